//! `staffwork odds close-combat|charge|fire|morale`: exact combat and Morale Check odds from the
//! combatants' attributes given as flags. Text shows counts and percentages; `--format json`
//! gives integer counts over a denominator (shape in docs/combat.md).
//!
//! Owns: flag parsing into [`crate::combat`] inputs and printing. Must not: compute odds itself.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::{CmdResult, Failure, Format};
use crate::app::{ArcArg, CombatRequest, FlanksArg, ProcedureArg, Response};
use crate::combat::charge::{CavalryNation, ChargeDecisions, ChargeInput};
use crate::combat::close::{CloseCombatInput, Elevation, Terrain};
use crate::combat::fire::{ArtilleryFireInput, Battery};
use crate::combat::odds::{CombatOdds, charge_odds, close_combat_odds, fire_odds, percent};
use crate::combat::tables::{self, CombatTables};
use crate::combat::{CombatError, Combatant, CommanderIn, MoraleState, Size};
use crate::scenario::model::{MoraleRating, UnitFormation, UnitKind};

#[derive(Subcommand, Debug)]
pub enum CombatOddsCmd {
    /// Exact odds of a Close Combat (15, 19).
    CloseCombat(CloseCombatArgs),
    /// Exact odds of a cavalry charge (16).
    Charge(ChargeArgs),
    /// Exact odds of an artillery fire (17).
    Fire(FireArgs),
    /// Exact odds of a Morale Check (21.2): Forced March (12.5.6.2), moving a Square (8.3.2),
    /// a Reaction Charge from outside the frontal arc (16.5.5), or any other.
    Morale(MoraleCheckArgs),
}

/// One Morale Check (21.2): 1d6 plus modifiers must reach the rating's number.
#[derive(Args, Debug)]
pub struct MoraleCheckArgs {
    /// The checking unit's Morale Rating.
    #[arg(long, value_enum, ignore_case = true)]
    pub morale: MoraleArg,
    /// The best Commander in its hex, by printed rating (0–4): +1 when rated 2 or more (21.2).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=4))]
    pub commander: Option<u8>,
    /// Any other modifiers, summed (e.g. `--modifier -1`).
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    pub modifier: i8,
    /// What the check is for: names its rule in the answer.
    #[arg(long = "for", value_enum, default_value_t = MoraleFor::Other)]
    pub purpose: MoraleFor,
    /// Replace sections of the built-in combat tables with those in this TOML file.
    #[arg(long)]
    pub tables: Option<PathBuf>,
    #[arg(long, ignore_case = true, value_enum, default_value_t)]
    pub format: Format,
}

/// The rule that asks for a Morale Check.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum MoraleFor {
    /// 12.5.6.2: each set of three extra Movement Points; failed, a Straggler.
    ForcedMarch,
    /// 8.3.2: a Square moving one hex; failed, DG and Column.
    SquareMove,
    /// 16.5.5: cavalry Reaction Charging a trigger outside its frontal arc; failed, no charge.
    ReactionCharge,
    /// 21.2 alone.
    #[default]
    Other,
}

impl MoraleFor {
    fn rule(self) -> (&'static str, &'static str) {
        match self {
            MoraleFor::ForcedMarch => ("12.5.6.2", "Forced March"),
            MoraleFor::SquareMove => ("8.3.2", "Square movement"),
            MoraleFor::ReactionCharge => ("16.5.5", "Reaction Charge outside the frontal arc"),
            MoraleFor::Other => ("21.2", "Morale Check"),
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum MoraleArg {
    A,
    B,
    C,
    D,
    E,
}

impl From<MoraleArg> for MoraleRating {
    fn from(m: MoraleArg) -> MoraleRating {
        match m {
            MoraleArg::A => MoraleRating::A,
            MoraleArg::B => MoraleRating::B,
            MoraleArg::C => MoraleRating::C,
            MoraleArg::D => MoraleRating::D,
            MoraleArg::E => MoraleRating::E,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SizeArg {
    C,
    B,
    A,
    Ab,
    Aa,
    Aab,
    Aaa,
}

impl From<SizeArg> for Size {
    fn from(s: SizeArg) -> Size {
        match s {
            SizeArg::C => Size::C,
            SizeArg::B => Size::B,
            SizeArg::A => Size::A,
            SizeArg::Ab => Size::AB,
            SizeArg::Aa => Size::AA,
            SizeArg::Aab => Size::AAB,
            SizeArg::Aaa => Size::AAA,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormationArg {
    Line,
    Column,
    MarchColumn,
    Square,
    Limbered,
    Unlimbered,
    Skirmish,
}

impl From<FormationArg> for UnitFormation {
    fn from(f: FormationArg) -> UnitFormation {
        match f {
            FormationArg::Line => UnitFormation::Line,
            FormationArg::Column => UnitFormation::Column,
            FormationArg::MarchColumn => UnitFormation::MarchColumn,
            FormationArg::Square => UnitFormation::Square,
            FormationArg::Limbered => UnitFormation::Limbered,
            FormationArg::Unlimbered => UnitFormation::Unlimbered,
            FormationArg::Skirmish => UnitFormation::Skirmish,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum StateArg {
    Bl,
    Normal,
    Sh,
    Dg,
    R,
}

impl From<StateArg> for MoraleState {
    fn from(s: StateArg) -> MoraleState {
        match s {
            StateArg::Bl => MoraleState::BloodLust,
            StateArg::Normal => MoraleState::Normal,
            StateArg::Sh => MoraleState::Shaken,
            StateArg::Dg => MoraleState::Disorganized,
            StateArg::R => MoraleState::Routed,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum KindArg {
    Infantry,
    Skirmisher,
    LightCavalry,
    HeavyCavalry,
    Artillery,
    HorseArtillery,
}

impl From<KindArg> for UnitKind {
    fn from(k: KindArg) -> UnitKind {
        match k {
            KindArg::Infantry => UnitKind::Infantry,
            KindArg::Skirmisher => UnitKind::Skirmisher,
            KindArg::LightCavalry => UnitKind::CavalryLight,
            KindArg::HeavyCavalry => UnitKind::CavalryHeavy,
            KindArg::Artillery => UnitKind::ArtilleryLightFoot,
            KindArg::HorseArtillery => UnitKind::ArtilleryLightHorse,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum, Default)]
pub enum TerrainArg {
    #[default]
    Clear,
    Village,
    Fortified,
}

#[derive(Clone, Copy, Debug, ValueEnum, Default)]
pub enum ElevationArg {
    /// Same top elevation.
    #[default]
    Level,
    /// The attacker comes from higher ground.
    Higher,
    /// The attacker comes from lower ground.
    Lower,
}

/// Options shared by all odds commands.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// Replace sections of the built-in combat tables with those in this TOML file (with --db,
    /// the game's tables are used).
    #[arg(long, conflicts_with = "db")]
    pub tables: Option<PathBuf>,
    #[arg(long, ignore_case = true, value_enum, default_value_t)]
    pub format: Format,
}

/// A combat between pieces of a game (decision 0166): instead of the combatants' flags.
#[derive(Args, Debug, Clone, Default)]
pub struct FromGame {
    /// A game file: the odds of a combat between its pieces named by --attacker and
    /// --defender, as its combat would fight it now — strength, losses, morale, formation,
    /// commanders, terrain, night and the arc read from facing (10.0, decision 0140). The
    /// umpire's: it reads the enemy's units.
    #[arg(long, requires = "attackers", requires = "defenders")]
    pub db: Option<PathBuf>,
    /// With --db: an attacking unit (repeat for a stack, the first leads, 14.2; batteries for
    /// `fire`).
    #[arg(long = "attacker", requires = "db")]
    pub attackers: Vec<String>,
    /// With --db: a defending unit (repeat for a stack, the first leads, 14.2).
    #[arg(long = "defender", requires = "db")]
    pub defenders: Vec<String>,
}

/// The defender's counter, shared by `odds close-combat` and `odds charge`.
#[derive(Args, Debug, Clone)]
pub struct DefenderArgs {
    /// The defender's arm: infantry, Skirmishers, cavalry or artillery.
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value = "infantry"
    )]
    pub defender_kind: KindArg,
    /// The defender's Morale Rating on its counter, A (best) to E.
    #[arg(
        long,
        required_unless_present = "db",
        conflicts_with = "db",
        ignore_case = true,
        value_enum
    )]
    pub defender_morale: Option<MoraleArg>,
    /// The defender's size class, C (smallest) to AAA (chart p4/p5 columns).
    #[arg(
        long,
        required_unless_present = "db",
        conflicts_with = "db",
        ignore_case = true,
        value_enum
    )]
    pub defender_size: Option<SizeArg>,
    /// The defender's formation (8.0).
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value = "line"
    )]
    pub defender_formation: FormationArg,
    /// The defender's Morale State: Blood Lust, Normal, Shaken, Disorganized or Routed (21).
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value = "normal"
    )]
    pub defender_state: StateArg,
    /// The defender is Wrecked (20.4).
    #[arg(long, conflicts_with = "db")]
    pub defender_wrecked: bool,
    /// Rating of the best Commander with the defender.
    #[arg(long, conflicts_with = "db")]
    pub defender_commander: Option<u8>,
    /// The defender's Commander is a Fighter (+2, max 4).
    #[arg(long, conflicts_with = "db")]
    pub defender_fighter: bool,
}

impl DefenderArgs {
    /// The defender as the combat core takes it, with its commanders.
    fn combatant(&self) -> Result<Combatant, Failure> {
        let mut def = combatant(
            self.defender_kind,
            given(self.defender_size, "--defender-size")?,
            given(self.defender_morale, "--defender-morale")?,
            self.defender_formation,
            self.defender_state,
            self.defender_wrecked,
        );
        def.commanders = commanders("defender", self.defender_commander, self.defender_fighter)?;
        Ok(def)
    }
}

#[derive(Args, Debug, Clone)]
pub struct CloseCombatArgs {
    /// The attacker's arm: infantry, Skirmishers, cavalry or artillery.
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value = "infantry"
    )]
    pub attacker_kind: KindArg,
    /// The attacker's Morale Rating on its counter, A (best) to E.
    #[arg(
        long,
        required_unless_present = "db",
        conflicts_with = "db",
        ignore_case = true,
        value_enum
    )]
    pub attacker_morale: Option<MoraleArg>,
    /// The attacker's size class, C (smallest) to AAA (chart p4/p5 columns).
    #[arg(
        long,
        required_unless_present = "db",
        conflicts_with = "db",
        ignore_case = true,
        value_enum
    )]
    pub attacker_size: Option<SizeArg>,
    /// The attacker's formation (8.0).
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value = "column"
    )]
    pub attacker_formation: FormationArg,
    /// The attacker's Morale State: Blood Lust, Normal, Shaken, Disorganized or Routed (21).
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value = "normal"
    )]
    pub attacker_state: StateArg,
    /// The attacker is Wrecked (20.4).
    #[arg(long, conflicts_with = "db")]
    pub attacker_wrecked: bool,
    /// Rating of the best Commander with the attacker.
    #[arg(long, conflicts_with = "db")]
    pub attacker_commander: Option<u8>,
    /// The attacker's Commander is a Fighter (+2, max 4).
    #[arg(long, conflicts_with = "db")]
    pub attacker_fighter: bool,
    /// Skirmisher Fire Value with the attacker (e.g. 2, 1.5, 0.5).
    #[arg(long, conflicts_with = "db")]
    pub attacker_skirmishers: Option<String>,
    #[command(flatten)]
    pub defender: DefenderArgs,
    /// Skirmisher Fire Value with the defender (e.g. 2, 1.5, 0.5).
    #[arg(long, conflicts_with = "db")]
    pub defender_skirmishers: Option<String>,
    /// The defender is attacked through its rear. With --db it overrides the arc read from
    /// facing, and the output says so.
    #[arg(long)]
    pub rear: bool,
    /// The defender's hex: clear, a Town/Village (19) or fortified.
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value_t
    )]
    pub terrain: TerrainArg,
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value_t
    )]
    pub elevation: ElevationArg,
    /// The combat is fought at night (14.1.5: the night modifiers apply).
    #[arg(long, conflicts_with = "db")]
    pub night: bool,
    #[command(flatten)]
    pub game: FromGame,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Args, Debug, Clone)]
pub struct ChargeArgs {
    /// The attacker's arm: infantry, Skirmishers, cavalry or artillery.
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value = "light-cavalry"
    )]
    pub attacker_kind: KindArg,
    /// The attacker's Morale Rating on its counter, A (best) to E.
    #[arg(
        long,
        required_unless_present = "db",
        conflicts_with = "db",
        ignore_case = true,
        value_enum
    )]
    pub attacker_morale: Option<MoraleArg>,
    /// The attacker's size class, C (smallest) to AAA (chart p4/p5 columns).
    #[arg(
        long,
        required_unless_present = "db",
        conflicts_with = "db",
        ignore_case = true,
        value_enum
    )]
    pub attacker_size: Option<SizeArg>,
    /// The attacker's Morale State: Blood Lust, Normal, Shaken, Disorganized or Routed (21).
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value = "normal"
    )]
    pub attacker_state: StateArg,
    /// Rating of the best Commander with the attacker.
    #[arg(long, conflicts_with = "db")]
    pub attacker_commander: Option<u8>,
    /// The attacker's Commander is a Fighter (+2, max 4).
    #[arg(long, conflicts_with = "db")]
    pub attacker_fighter: bool,
    /// British cavalry (26.4).
    #[arg(long, conflicts_with = "db")]
    pub british: bool,
    #[command(flatten)]
    pub defender: DefenderArgs,
    /// Artillery is stacked with the defender.
    #[arg(long, conflicts_with = "db")]
    pub defender_artillery: bool,
    /// The defending Line's flanks are secure (chart p4 note 1). With --db it overrides what
    /// the map says, and the output says so.
    #[arg(long)]
    pub flanks_secure: bool,
    /// Defending cavalry is stationary (16.4 box).
    #[arg(long, conflicts_with = "db")]
    pub defender_stationary: bool,
    /// The target forms Square (16.2.1).
    #[arg(long)]
    pub form_square: bool,
    /// Follow-on Charges against the same target, 0..=3 (16.2.7.2).
    #[arg(long, default_value_t = 0)]
    pub follow_ons: u8,
    /// The defender is charged through its rear. With --db it overrides the arc read from
    /// facing, and the output says so.
    #[arg(long)]
    pub rear: bool,
    /// The combat is fought at night (14.1.5: the night modifiers apply).
    #[arg(long, conflicts_with = "db")]
    pub night: bool,
    #[command(flatten)]
    pub game: FromGame,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Args, Debug, Clone)]
pub struct FireArgs {
    /// Gun points firing, 1..=5.
    #[arg(long, required_unless_present = "db", conflicts_with = "db")]
    pub guns: Option<u8>,
    /// Range in hexes, 1..=9.
    #[arg(long, conflicts_with = "db", default_value_t = 1)]
    pub range: u8,
    /// Heavy guns (12 lb or more).
    #[arg(long, conflicts_with = "db")]
    pub heavy: bool,
    /// Further batteries of a Grand Battery, as GP:light|heavy:RANGE (17.3).
    #[arg(long, conflicts_with = "db")]
    pub battery: Vec<String>,
    /// The target's arm: infantry, Skirmishers, cavalry or artillery.
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value = "infantry"
    )]
    pub target_kind: KindArg,
    /// The target's Morale Rating on its counter, A (best) to E.
    #[arg(
        long,
        required_unless_present = "db",
        conflicts_with = "db",
        ignore_case = true,
        value_enum
    )]
    pub target_morale: Option<MoraleArg>,
    /// The target's size class, C (smallest) to AAA (chart p4/p5 columns).
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value = "a"
    )]
    pub target_size: SizeArg,
    /// The target's formation (8.0).
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value = "line"
    )]
    pub target_formation: FormationArg,
    /// The target's Morale State: Blood Lust, Normal, Shaken, Disorganized or Routed (21).
    #[arg(
        long,
        conflicts_with = "db",
        ignore_case = true,
        value_enum,
        default_value = "normal"
    )]
    pub target_state: StateArg,
    /// The target is Wrecked (20.4).
    #[arg(long, conflicts_with = "db")]
    pub target_wrecked: bool,
    /// Rating of the best Commander with the target.
    #[arg(long, conflicts_with = "db")]
    pub target_commander: Option<u8>,
    /// The target's Commander is a Fighter (+2, max 4).
    #[arg(long, conflicts_with = "db")]
    pub target_fighter: bool,
    /// Target in a Town/Village or Fortified hex.
    #[arg(long, conflicts_with = "db")]
    pub cover: bool,
    /// Fire enters a target Line from its flank (17.1.6). With --db it overrides the arc read
    /// from facing, and the output says so.
    #[arg(long)]
    pub flanked_line: bool,
    /// Cannister Opportunity Fire at units entering the guns' hex (17.4.9).
    #[arg(long)]
    pub cannister: bool,
    /// Cannister at a unit entering through the firer's flank (−1). With --db it overrides the
    /// arc read from the battery's facing, and the output says so.
    #[arg(long)]
    pub flank_entry: bool,
    /// Vimeiro British Case Shot (+1 vs artillery).
    #[arg(long, conflicts_with = "db")]
    pub case_shot: bool,
    /// The combat is fought at night (14.1.5: the night modifiers apply).
    #[arg(long, conflicts_with = "db")]
    pub night: bool,
    #[command(flatten)]
    pub game: FromGame,
    #[command(flatten)]
    pub common: Common,
}

fn load_tables(c: &Common) -> Result<CombatTables, Failure> {
    match &c.tables {
        None => Ok(tables::builtin().clone()),
        Some(p) => {
            let text = crate::text::read_file(p)
                .map_err(|e| Failure::Usage(format!("{}: {e}", p.display())))?;
            CombatTables::with_override(&text)
                .map_err(|e| Failure::Usage(format!("{}: {e}", p.display())))
        }
    }
}

fn commanders(side: &str, rating: Option<u8>, fighter: bool) -> Result<Vec<CommanderIn>, Failure> {
    match rating {
        None if fighter => Err(Failure::Usage(format!(
            "--{side}-fighter needs --{side}-commander RATING"
        ))),
        None => Ok(vec![]),
        Some(r) if r > 4 => Err(Failure::Usage(format!(
            "--{side}-commander: ratings are 0..=4, got {r}"
        ))),
        Some(r) => Ok(vec![CommanderIn::new(
            format!("{side}-commander"),
            r,
            fighter,
        )]),
    }
}

/// "2", "1.5", "0.5", "1/2" → halves.
fn fv_halves(flag: &str, s: &str) -> Result<u8, Failure> {
    let t = s.trim();
    let bad = || {
        Failure::Usage(format!(
            "--{flag}: expected a Fire Value like 2, 1.5 or 1/2, got {s:?}"
        ))
    };
    if t == "1/2" {
        return Ok(1);
    }
    let (whole, half) = match t.split_once('.') {
        Some((w, "5")) => (w, 1),
        Some((w, "0")) => (w, 0),
        Some(_) => return Err(bad()),
        None => (t, 0),
    };
    let w: u8 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    w.checked_mul(2)
        .and_then(|v| v.checked_add(half))
        .ok_or_else(bad)
}

fn combatant(
    kind: KindArg,
    size: SizeArg,
    morale: MoraleArg,
    formation: FormationArg,
    state: StateArg,
    wrecked: bool,
) -> Combatant {
    let mut c = Combatant::new(kind.into(), size.into(), morale.into());
    c.formation = formation.into();
    c.morale_state = state.into();
    c.wrecked = wrecked;
    c
}

fn judged(e: CombatError) -> Failure {
    eprintln!("error: {e}");
    Failure::Judged
}

pub fn run(cmd: CombatOddsCmd) -> CmdResult {
    match cmd {
        CombatOddsCmd::CloseCombat(a) if a.game.db.is_some() => {
            let over = a.rear.then_some((ArcArg::Rear, None, "--rear"));
            from_game(
                &a.game,
                ProcedureArg::CloseCombat,
                over,
                false,
                0,
                a.common.format,
            )
        }
        CombatOddsCmd::Charge(a) if a.game.db.is_some() => {
            let over = match (a.rear, a.flanks_secure) {
                (true, true) => Some((
                    ArcArg::Rear,
                    Some(FlanksArg::Secure),
                    "--rear --flanks-secure",
                )),
                (true, false) => Some((ArcArg::Rear, None, "--rear")),
                (false, true) => Some((ArcArg::Front, Some(FlanksArg::Secure), "--flanks-secure")),
                (false, false) => None,
            };
            let decisions = (a.form_square, a.follow_ons);
            from_game(
                &a.game,
                ProcedureArg::Charge,
                over,
                decisions.0,
                decisions.1,
                a.common.format,
            )
        }
        CombatOddsCmd::Fire(a) if a.game.db.is_some() => {
            let flag = if a.cannister {
                "--flank-entry"
            } else {
                "--flanked-line"
            };
            let over = (a.flanked_line || a.flank_entry).then_some((ArcArg::Flank, None, flag));
            from_game_fire(&a.game, a.cannister, over, a.common.format)
        }
        CombatOddsCmd::CloseCombat(a) => close_combat(a),
        CombatOddsCmd::Charge(a) => charge(a),
        CombatOddsCmd::Fire(a) => fire(a),
        CombatOddsCmd::Morale(a) => morale(a),
    }
}

/// `odds morale`: the check's odds, asked for by `a.purpose`'s rule.
fn morale(a: MoraleCheckArgs) -> CmdResult {
    let t = load_tables(&Common {
        tables: a.tables,
        format: a.format,
    })?;
    let rating = MoraleRating::from(a.morale);
    let o = crate::combat::odds::morale_check_odds(&t, rating, a.commander, a.modifier)
        .map_err(judged)?;
    let (rule, what) = a.purpose.rule();
    if a.format == Format::Json {
        #[derive(serde::Serialize)]
        struct Answer<'a> {
            check: &'static str,
            asked_by: &'static str,
            morale: &'static str,
            #[serde(flatten)]
            odds: &'a crate::combat::odds::MoraleCheckOdds,
        }
        return super::emit_json(&Answer {
            check: "morale",
            asked_by: rule,
            morale: crate::combat::morale_label(rating),
            odds: &o,
        });
    }
    println!(
        "{what} ({rule}): a Morale Check ({}), morale {} needs {} or more on 1d6 with modifier {:+}",
        o.rule,
        crate::combat::morale_label(rating),
        o.need,
        o.modifier
    );
    println!("{}", line("passes", o.pass, o.denominator));
    println!("{}", line("fails", o.fail, o.denominator));
    Ok(())
}

/// An arc flag given with --db: the arc (and a Line's flanks) it rules, and the flag's words.
type ArcOverride = Option<(ArcArg, Option<FlanksArg>, &'static str)>;

fn from_game_fire(g: &FromGame, cannister: bool, over: ArcOverride, format: Format) -> CmdResult {
    let mut req = request(g, ProcedureArg::Fire, over);
    req.cannister = cannister;
    ask_game(g, req, format)
}

fn from_game(
    g: &FromGame,
    procedure: ProcedureArg,
    over: ArcOverride,
    form_square: bool,
    follow_ons: u8,
    format: Format,
) -> CmdResult {
    let mut req = request(g, procedure, over);
    if procedure == ProcedureArg::Charge {
        // 16.2.1: the odds are for the defender's choice as given; without --form-square, for
        // not forming Square.
        req.form_square = form_square;
        req.no_square = !form_square;
        req.follow_ons = follow_ons;
    }
    ask_game(g, req, format)
}

/// The combat request for the game's pieces: an arc flag becomes a ruling on the arc, so the
/// game's own readback says it was given, not read (`ruled_by: umpire: …`, decision 0140).
fn request(g: &FromGame, procedure: ProcedureArg, over: ArcOverride) -> CombatRequest {
    let (arc, flanks, ruling) = match over {
        Some((arc, flanks, flag)) => {
            // --flanks-secure alone rules only the flanks.
            let arc = (flag != "--flanks-secure").then_some(arc);
            (
                arc,
                flanks,
                Some(format!(
                    "{flag} given to `odds`: overrides the arc read from facing"
                )),
            )
        }
        None => (None, None, None),
    };
    CombatRequest {
        attack_arc: arc,
        flanks,
        ruling,
        ..CombatRequest::between(procedure, g.attackers.clone(), g.defenders.clone())
    }
}

/// Ask the game, as the umpire (decision 0166), and print the odds with what it read.
fn ask_game(g: &FromGame, req: CombatRequest, format: Format) -> CmdResult {
    let db = g.db.as_deref().unwrap_or(std::path::Path::new(""));
    let mut game = super::game_cmd::open(db)?;
    let response = crate::app::execute(
        &mut game,
        &crate::view::Viewer::Umpire,
        &crate::app::Request::CombatOdds(req),
    )
    .map_err(|e| super::game_cmd::report(e, format))?;
    let Response::CombatOdds(v) = response else {
        return Err(Failure::Usage("odds answered something else".into()));
    };
    if format == Format::Json {
        return super::emit_json(&v);
    }
    let title = format!(
        "{} in {} as the game would fight it now: {} against {}",
        match v.procedure {
            ProcedureArg::CloseCombat => "Close combat",
            ProcedureArg::Charge => "Cavalry charge",
            _ => "Artillery fire",
        },
        db.display(),
        v.attackers.join(", "),
        v.defenders.join(", ")
    );
    let mut lines = vec![title];
    for a in &v.aspects {
        lines.push(format!("arc: {}", crate::engine::aspect::describe(a)));
        if a.ruled_by != "facing" {
            lines.push(format!(
                "note: the arc is the flag's, not the one read from facing ({})",
                a.ruled_by
            ));
        }
    }
    let sides: &[&str] = match v.procedure {
        ProcedureArg::CloseCombat | ProcedureArg::Charge => &["attacker", "defender"],
        _ => &["target"],
    };
    report(&lines.join("\n"), &v.odds, format, sides)
}

/// A flag clap requires without --db.
fn given<T: Copy>(v: Option<T>, flag: &str) -> Result<T, Failure> {
    v.ok_or_else(|| {
        Failure::Usage(format!(
            "{flag} is required (or --db with --attacker and --defender)"
        ))
    })
}

/// `odds close-combat`: 15, 19.
fn close_combat(a: CloseCombatArgs) -> CmdResult {
    let t = load_tables(&a.common)?;
    let mut att = combatant(
        a.attacker_kind,
        given(a.attacker_size, "--attacker-size")?,
        given(a.attacker_morale, "--attacker-morale")?,
        a.attacker_formation,
        a.attacker_state,
        a.attacker_wrecked,
    );
    att.commanders = commanders("attacker", a.attacker_commander, a.attacker_fighter)?;
    if let Some(s) = &a.attacker_skirmishers {
        att.stack.skirmishers = true;
        att.skirmisher_fv_halves = fv_halves("attacker-skirmishers", s)?;
    }
    let mut def = a.defender.combatant()?;
    if let Some(s) = &a.defender_skirmishers {
        def.stack.skirmishers = true;
        def.skirmisher_fv_halves = fv_halves("defender-skirmishers", s)?;
    }
    def.attacked_in_rear = a.rear;
    let input = CloseCombatInput {
        attacker: att,
        defender: def,
        terrain: match a.terrain {
            TerrainArg::Clear => Terrain::Clear,
            TerrainArg::Village => Terrain::Village,
            TerrainArg::Fortified => Terrain::Fortified,
        },
        elevation: match a.elevation {
            ElevationArg::Level => Elevation::Level,
            ElevationArg::Higher => Elevation::AttackerHigher,
            ElevationArg::Lower => Elevation::AttackerLower,
        },
        night: a.night,
        origin_hex_enemy_occupied: false,
        skip_commander_loss: true,
    };
    let odds = close_combat_odds(&t, &input).map_err(judged)?;
    let title = format!(
        "Close combat: attacker {} size {} morale {} {:?} vs defender {} size {} morale {} {:?}; {:?}, {:?}{}",
        kind_name(input.attacker.kind),
        input.attacker.size,
        crate::combat::morale_label(input.attacker.morale_rating),
        input.attacker.formation,
        kind_name(input.defender.kind),
        input.defender.size,
        crate::combat::morale_label(input.defender.morale_rating),
        input.defender.formation,
        input.terrain,
        input.elevation,
        if input.night { ", night" } else { "" }
    );
    report(&title, &odds, a.common.format, &["attacker", "defender"])
}

/// `odds charge`: 16.
fn charge(a: ChargeArgs) -> CmdResult {
    let t = load_tables(&a.common)?;
    let mut att = combatant(
        a.attacker_kind,
        given(a.attacker_size, "--attacker-size")?,
        given(a.attacker_morale, "--attacker-morale")?,
        FormationArg::Line,
        a.attacker_state,
        false,
    );
    att.formation = UnitFormation::Ready;
    att.commanders = commanders("attacker", a.attacker_commander, a.attacker_fighter)?;
    let mut def = a.defender.combatant()?;
    def.stack.artillery = a.defender_artillery;
    def.line_flanks_secure = a.flanks_secure;
    def.stationary = a.defender_stationary;
    def.attacked_in_rear = a.rear;
    if def.kind.is_cavalry() {
        def.formation = UnitFormation::Ready;
    }
    let input = ChargeInput {
        attacker: att,
        defender: def,
        attacker_nation: if a.british {
            CavalryNation::British
        } else {
            CavalryNation::Standard
        },
        defender_cossack: false,
        night: a.night,
        follow_on: false,
        reaction: false,
        square_forbidden: false,
        defender_was_charging: false,
        decisions: ChargeDecisions {
            form_square: a.form_square,
            follow_ons_same_target: a.follow_ons,
            defender_checks_second: false,
        },
        skip_commander_loss: true,
    };
    let odds = charge_odds(&t, &input).map_err(judged)?;
    let title = format!(
        "Cavalry charge: {} size {} morale {} vs {} size {} morale {} {:?}{}{}",
        kind_name(input.attacker.kind),
        input.attacker.size,
        crate::combat::morale_label(input.attacker.morale_rating),
        kind_name(input.defender.kind),
        input.defender.size,
        crate::combat::morale_label(input.defender.morale_rating),
        input.defender.formation,
        if a.form_square { ", forms Square" } else { "" },
        if a.follow_ons > 0 {
            format!(", {} Follow-on(s)", a.follow_ons)
        } else {
            String::new()
        }
    );
    report(&title, &odds, a.common.format, &["attacker", "defender"])
}

/// `odds fire`: 17.
fn fire(a: FireArgs) -> CmdResult {
    let t = load_tables(&a.common)?;
    let mut target = combatant(
        a.target_kind,
        a.target_size,
        given(a.target_morale, "--target-morale")?,
        a.target_formation,
        a.target_state,
        a.target_wrecked,
    );
    target.commanders = commanders("target", a.target_commander, a.target_fighter)?;
    let guns = given(a.guns, "--guns")?;
    let mut batteries = vec![Battery {
        gun_points: guns,
        heavy: a.heavy,
        range: a.range,
    }];
    for b in &a.battery {
        batteries.push(parse_battery(b)?);
    }
    let input = ArtilleryFireInput {
        batteries,
        target,
        target_in_cover: a.cover,
        flanked_line: a.flanked_line,
        cannister: a.cannister,
        flank_entry: a.flank_entry,
        case_shot_vs_artillery: a.case_shot,
        stacked_with_high_morale: false,
        night: a.night,
        skip_commander_loss: true,
    };
    let odds = fire_odds(&t, &input).map_err(judged)?;
    let title = format!(
        "Artillery fire: {} {} GP at range {}{} vs {} size {} morale {} {:?}",
        guns,
        if a.heavy { "Heavy" } else { "Light" },
        if a.cannister { 1 } else { a.range },
        if a.cannister { " (Cannister)" } else { "" },
        kind_name(input.target.kind),
        input.target.size,
        crate::combat::morale_label(input.target.morale_rating),
        input.target.formation
    );
    report(&title, &odds, a.common.format, &["target"])
}

fn parse_battery(s: &str) -> Result<Battery, Failure> {
    let bad = || {
        Failure::Usage(format!(
            "--battery: expected GP:light|heavy:RANGE, got {s:?}"
        ))
    };
    let parts: Vec<&str> = s.split(':').collect();
    let [gp, ty, range] = parts.as_slice() else {
        return Err(bad());
    };
    Ok(Battery {
        gun_points: gp.parse().map_err(|_| bad())?,
        heavy: match *ty {
            "light" | "l" | "L" => false,
            "heavy" | "h" | "H" => true,
            _ => return Err(bad()),
        },
        range: range.parse().map_err(|_| bad())?,
    })
}

fn kind_name(k: UnitKind) -> &'static str {
    match k {
        UnitKind::Infantry => "infantry",
        UnitKind::Skirmisher => "skirmisher",
        UnitKind::CavalryLight | UnitKind::CavalryLancer => "light cavalry",
        UnitKind::CavalryHeavy => "heavy cavalry",
        UnitKind::Train => "train",
        _ => "artillery",
    }
}

fn line(label: &str, count: u64, denom: u64) -> String {
    format!(
        "  {label:<18} {count:>8}/{denom:<8} {:>5}%",
        percent(count, denom)
    )
}

fn report(title: &str, odds: &CombatOdds, format: Format, sides: &[&str]) -> CmdResult {
    if format == Format::Json {
        return super::emit_json(odds);
    }
    println!("{title}");
    if let Some(s) = &odds.stand {
        println!(
            "Check to Stand (chart p5 case {}: {} checks first)",
            s.order_case, s.first_checker
        );
        for c in &s.checks {
            let mods: Vec<String> = c
                .modifiers
                .iter()
                .map(|(n, v)| format!("{n} {v:+}"))
                .collect();
            println!(
                "  {} stands on {}+ with modifier {:+}{}",
                c.side,
                c.need,
                c.modifier,
                if mods.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", mods.join(", "))
                }
            );
        }
        for (k, v) in &s.outcomes {
            println!("{}", line(k, *v, s.denominator));
        }
    }
    println!(
        "Outcome (every die enumerated, denominator {})",
        odds.denominator
    );
    for (k, v) in &odds.outcomes {
        println!("{}", line(k, *v, odds.denominator));
    }
    for name in sides {
        let Some(s) = odds.sides.get(*name) else {
            continue;
        };
        println!("{name} losses (after adjustments)");
        for (k, v) in &s.losses {
            println!("{}", line(k, *v, odds.denominator));
        }
        println!("{name} morale afterwards");
        for (k, v) in &s.morale_after {
            println!("{}", line(k, *v, odds.denominator));
        }
        if s.gun_loss.keys().any(|k| k != "none") {
            println!("{name} gun points lost");
            for (k, v) in &s.gun_loss {
                println!("{}", line(k, *v, odds.denominator));
            }
        }
        println!("{name} retreat");
        for (k, v) in &s.retreat {
            println!("{}", line(k, *v, odds.denominator));
        }
    }
    if odds.using_non_seed_cells > 0 {
        println!(
            "{} of {} use reconstructed (non-seed) table cells:",
            odds.using_non_seed_cells, odds.denominator
        );
        for c in &odds.non_seed_cells {
            println!(
                "  {} row {} column {} ({})",
                c.table, c.row, c.column, c.provenance
            );
        }
    }
    for n in &odds.notes {
        println!("note: {n}");
    }
    Ok(())
}
