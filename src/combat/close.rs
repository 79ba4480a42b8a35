//! Close Combat (rule 15) and village fighting (rule 19): checking order, Check to Stand with
//! its modifiers (±4 cap, unmodified 6 stands), outcome, the four loss tables and the
//! Firefight table with their modifiers (±2 cap), loss adjustments (15.3.1–15.3.7), special
//! cases (15.4: routed, artillery, skirmishers, squares, march columns) and the retreat
//! requirement.
//!
//! Owns: one Close Combat from "both sides are in the hex" to "results applied". Must not:
//! fire the defending artillery's Cannister (the engine resolves it with
//! [`super::fire::resolve_artillery_fire`] first), move anything, or touch game state.
//!
//! Dice order (the replay contract): first checker, second checker, attacker's loss roll,
//! defender's loss roll (skirmisher fights: the loser's reduction roll), Gun Loss roll, then
//! Commander Loss Checks (attacker's commanders, then defender's). All on
//! [`Purpose::CloseCombat`] except the commander checks ([`Purpose::CommanderLoss`]).

use serde::{Deserialize, Serialize};

use super::morale::{Apply, apply, high_morale};
use super::tables::{CombatTables, Res, Table};
use super::{
    CombatError, Combatant, CommanderIn, GunLoss, Loss, MoraleState, Retreat, Side, SideResult,
    Size, Trace, best_rating, halve, morale_index,
};
use crate::provenance::Provenance;
use crate::rules::dice::{Dice, Purpose};
use crate::units::{UnitFormation, UnitKind};

/// Terrain of the defender's hex (or the hexside the attack crosses) that the rules ask about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Terrain {
    #[default]
    Clear,
    /// Town/Village (19): only the attacker checks.
    Village,
    /// Fortified terrain, in the hex or across the hexside (15.2.1 case 2).
    Fortified,
}

/// Top elevation of the attacker's origin hex compared with the combat hex (14.1.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Elevation {
    #[default]
    Level,
    AttackerHigher,
    AttackerLower,
}

/// Everything a Close Combat needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CloseCombatInput {
    pub attacker: Combatant,
    pub defender: Combatant,
    #[serde(default)]
    pub terrain: Terrain,
    #[serde(default)]
    pub elevation: Elevation,
    #[serde(default)]
    pub night: bool,
    /// The attacker's origin hex has become enemy-occupied (v3.0 errata 15.4.8).
    #[serde(default)]
    pub origin_hex_enemy_occupied: bool,
    /// Skip the Commander Loss Checks (exact odds only; the engine never sets this).
    #[serde(default)]
    pub skip_commander_loss: bool,
}

/// The result of the Check to Stand (15.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    AttackerWon,
    DefenderWon,
    Firefight,
    /// 15.4.1: the attacker was Routed (by Opportunity Fire) before checking: it retreats and
    /// the combat ends.
    AttackerRoutedBeforeCheck,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Outcome::AttackerWon => "Attacker Won",
            Outcome::DefenderWon => "Defender Won",
            Outcome::Firefight => "Firefight",
            Outcome::AttackerRoutedBeforeCheck => "Attacker Routed before checking",
        })
    }
}

/// Why a side checks first (chart p5, read top to bottom).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OrderCase {
    /// 1) Defender in Town/Village: attacker only (19.5).
    Village,
    /// 2) Fortified: attacker first.
    Fortified,
    /// 3) Attack from higher ground: defender first.
    AttackerHigher,
    /// 3) Attack from lower ground: attacker first.
    AttackerLower,
    /// 4) Smallest stack first (7.4).
    Smallest,
    /// 5) Equal size: attacker first.
    EqualSize,
}

/// One side's Check to Stand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandCheck {
    pub side: Side,
    /// Stand on ≥ this (chart p4/p5).
    pub need: u8,
    /// The die, if rolled.
    pub roll: Option<u8>,
    /// Sum of modifiers after the cap.
    pub modifier: i8,
    /// Each modifier that applied, named, before the cap.
    pub modifiers: Vec<(String, i8)>,
    /// Why no die was rolled (auto-fail or auto-stand), with the rule.
    pub automatic: Option<String>,
    pub stands: bool,
}

/// What a resolved Close Combat reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CloseCombatResult {
    pub outcome: Outcome,
    pub order_case: Option<OrderCase>,
    pub checks: Vec<StandCheck>,
    pub attacker: SideResult,
    pub defender: SideResult,
    /// 19.5.1: a winning attacker in Column in a Town/Village may rush on.
    pub may_rush: bool,
    /// 26.5: a winning attacking Combat Column may change to Line (French only: the engine
    /// checks nationality).
    pub column_may_form_line: bool,
    /// Special-case notes with rule numbers.
    pub notes: Vec<String>,
    pub trace: Trace,
}

pub(crate) fn stand_need(t: &CombatTables, c: &Combatant) -> u8 {
    t.stand.need[morale_index(c.morale_rating)]
}

/// Commander Advantage for Close Combat and cavalry-vs-cavalry (15.2.2 box, 16.4 box): the
/// side with the highest-rated Commander; a 0-rated Commander against none gives it to the
/// side without. Equal ratings: nobody.
pub fn commander_advantage(a: &[CommanderIn], d: &[CommanderIn]) -> Option<Side> {
    match (best_rating(a), best_rating(d)) {
        (None, None) => None,
        (Some(0), None) => Some(Side::Defender),
        (None, Some(0)) => Some(Side::Attacker),
        (Some(_), None) => Some(Side::Attacker),
        (None, Some(_)) => Some(Side::Defender),
        (Some(x), Some(y)) if x > y => Some(Side::Attacker),
        (Some(x), Some(y)) if y > x => Some(Side::Defender),
        _ => None,
    }
}

/// The Check to Stand modifiers for `side` in a Close Combat (chart p5), uncapped.
pub fn stand_modifiers(t: &CombatTables, i: &CloseCombatInput, side: Side) -> Vec<(String, i8)> {
    let m = &t.stand.close_combat;
    let v = |k: &str| m.get(k).map_or(0, |x| x.value);
    let (me, opp) = match side {
        Side::Attacker => (&i.attacker, &i.defender),
        Side::Defender => (&i.defender, &i.attacker),
    };
    let mut out: Vec<(String, i8)> = Vec::new();
    let mut add = |name: &str, on: bool| {
        if on {
            out.push((name.to_string(), v(name)));
        }
    };
    add("blood_lust", me.morale_state == MoraleState::BloodLust);
    add(
        "commander_advantage",
        commander_advantage(&i.attacker.commanders, &i.defender.commanders) == Some(side),
    );
    add("shaken", me.morale_state == MoraleState::Shaken);
    // 15.4.4.1: between lone Skirmishers a full one is twice the size of a reduced one.
    let twice = if me.lone_skirmisher() && opp.lone_skirmisher() {
        sk_size(opp) >= 2 * sk_size(me)
    } else {
        opp.effective_size().at_least_twice(me.effective_size())
    };
    add("opponent_twice_size", twice);
    add("disorganized", me.morale_state == MoraleState::Disorganized);
    add(
        "attacked_in_rear",
        side == Side::Defender && me.attacked_in_rear,
    );
    add("wrecked", me.is_wrecked());
    let fortified_def = side == Side::Defender && i.terrain == Terrain::Fortified;
    // v3.0 errata 15.4.4: a lone Skirmisher that stays to fight infantry is treated as C-size
    // infantry, so the "Skirmishers only" modifier does not apply to it (it still does in a
    // Skirmisher vs Skirmisher fight, 15.4.4.1).
    let sk_as_infantry = me.lone_skirmisher() && !opp.lone_skirmisher();
    add(
        "artillery_skirmishers_only",
        me.only_artillery_or_skirmishers() && !fortified_def && !sk_as_infantry,
    );
    add("defending_fortified", fortified_def);
    // 15.4.4 errata: a lone Skirmisher has no column/line modifiers; 19.4: a March Column
    // attacking into a Town/Village counts as a Combat Column.
    let formation_mods = !me.lone_skirmisher();
    add(
        "attacking_in_line",
        side == Side::Attacker && formation_mods && me.formation == UnitFormation::Line,
    );
    let (mine, theirs) = (
        if me.mix().skirmishers {
            Some(me.skirmisher_fv_halves)
        } else {
            None
        },
        if opp.mix().skirmishers {
            Some(opp.skirmisher_fv_halves)
        } else {
            None
        },
    );
    if mine.is_some() || theirs.is_some() {
        add(
            "skirmisher_disadvantage",
            mine.unwrap_or(0) < theirs.unwrap_or(0),
        );
    }
    add(
        "attacking_in_march_column",
        side == Side::Attacker
            && formation_mods
            && me.formation == UnitFormation::MarchColumn
            && i.terrain != Terrain::Village,
    );
    add("night", i.night);
    add(
        "attacking_line_in_village",
        side == Side::Attacker
            && i.terrain == Terrain::Village
            && opp.formation == UnitFormation::Line
            && !opp.lone_skirmisher(),
    );
    out
}

/// Sum and cap modifiers.
pub(crate) fn capped(mods: &[(String, i8)], cap: i8) -> i8 {
    let s: i16 = mods.iter().map(|(_, v)| i16::from(*v)).sum();
    s.clamp(-i16::from(cap), i16::from(cap)) as i8
}

/// The checking order (15.2.1, chart p5). Returns the first checker, whether the second
/// checks at all, and the case.
pub fn checking_order(i: &CloseCombatInput) -> (Side, bool, OrderCase) {
    if i.terrain == Terrain::Village
        && !(i.attacker.lone_skirmisher() && i.defender.lone_skirmisher())
    {
        return (Side::Attacker, false, OrderCase::Village);
    }
    if i.terrain == Terrain::Fortified {
        return (Side::Attacker, true, OrderCase::Fortified);
    }
    match i.elevation {
        Elevation::AttackerHigher => return (Side::Defender, true, OrderCase::AttackerHigher),
        Elevation::AttackerLower => return (Side::Attacker, true, OrderCase::AttackerLower),
        Elevation::Level => {}
    }
    let (a, d) = (sk_size(&i.attacker), sk_size(&i.defender));
    if d < a {
        (Side::Defender, true, OrderCase::Smallest)
    } else if a < d {
        (Side::Attacker, true, OrderCase::Smallest)
    } else {
        (Side::Attacker, true, OrderCase::EqualSize)
    }
}

/// Size for the checking order; skirmisher-only fights count a full Skirmisher twice a
/// reduced one (15.4.4.1).
fn sk_size(c: &Combatant) -> u8 {
    if c.lone_skirmisher() {
        if c.skirmisher_full { 2 } else { 1 }
    } else {
        c.effective_size().units() * 2
    }
}

fn auto_fail(c: &Combatant) -> Option<String> {
    if c.routed() {
        Some("Routed: automatically fails (15.4.1)".into())
    } else if c.lone_artillery() && c.formation == UnitFormation::Limbered {
        Some("Limbered artillery alone: automatically fails (15.4.3.1)".into())
    } else {
        None
    }
}

fn roll_stand(
    t: &CombatTables,
    i: &CloseCombatInput,
    side: Side,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<(StandCheck, i16), CombatError> {
    let me = match side {
        Side::Attacker => &i.attacker,
        Side::Defender => &i.defender,
    };
    let need = stand_need(t, me);
    let modifiers = stand_modifiers(t, i, side);
    let modifier = capped(&modifiers, t.stand.max_modifier);
    if let Some(why) = auto_fail(me) {
        return Ok((
            StandCheck {
                side,
                need,
                roll: None,
                modifier,
                modifiers,
                automatic: Some(why),
                stands: false,
            },
            i16::MIN,
        ));
    }
    let d = dice.roll(Purpose::CloseCombat, 6)?;
    trace.dice.push(d);
    let total = i16::from(d.value) + i16::from(modifier);
    let stands = d.value >= t.stand.unmodified_always_stands || total >= i16::from(need);
    Ok((
        StandCheck {
            side,
            need,
            roll: Some(d.value),
            modifier,
            modifiers,
            automatic: None,
            stands,
        },
        total,
    ))
}

fn auto_stand(t: &CombatTables, c: &Combatant, side: Side, why: &str) -> StandCheck {
    StandCheck {
        side,
        need: stand_need(t, c),
        roll: None,
        modifier: 0,
        modifiers: vec![],
        automatic: Some(why.into()),
        stands: true,
    }
}

/// The Check to Stand phase: outcome, why the order, the checks, and each side's modified
/// total (for 15.4.4.1 skirmisher firefights; `i16::MIN` when not rolled).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandPhase {
    pub outcome: Outcome,
    pub order_case: Option<OrderCase>,
    pub checks: Vec<StandCheck>,
    pub totals: [i16; 2],
}

/// Resolve only the Check to Stand (for odds and read-back): the outcome and the checks.
pub fn resolve_stand(
    t: &CombatTables,
    i: &CloseCombatInput,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<StandPhase, CombatError> {
    let phase = |outcome, order_case, checks, totals| StandPhase {
        outcome,
        order_case,
        checks,
        totals,
    };
    if i.attacker.routed() {
        return Ok(phase(
            Outcome::AttackerRoutedBeforeCheck,
            None,
            vec![],
            [0, 0],
        ));
    }
    let (first, second_checks, case) = checking_order(i);
    let mut checks = Vec::new();
    let mut totals = [i16::MIN; 2];
    // 15.4.1: a Routed defender fails and the attacker passes without rolling.
    if i.defender.routed() {
        checks.push(StandCheck {
            side: Side::Defender,
            need: stand_need(t, &i.defender),
            roll: None,
            modifier: 0,
            modifiers: vec![],
            automatic: Some("Routed: automatically fails (15.4.1)".into()),
            stands: false,
        });
        checks.push(auto_stand(
            t,
            &i.attacker,
            Side::Attacker,
            "defender Routed: automatically passes (15.4.1)",
        ));
        return Ok(phase(Outcome::AttackerWon, Some(case), checks, totals));
    }
    let (c1, t1) = roll_stand(t, i, first, dice, trace)?;
    totals[first as usize] = t1;
    let first_stands = c1.stands;
    checks.push(c1);
    let outcome = if !second_checks {
        // 19.5: only the attacker checks; pass = Attacker Won, fail = Defender Won.
        if first_stands {
            Outcome::AttackerWon
        } else {
            Outcome::DefenderWon
        }
    } else if !first_stands {
        // 15.2.3.2: the other side stands without rolling.
        let other = first.other();
        let oc = match other {
            Side::Attacker => &i.attacker,
            Side::Defender => &i.defender,
        };
        checks.push(auto_stand(
            t,
            oc,
            other,
            "first checker failed: stands automatically (15.2.3.2)",
        ));
        match first {
            Side::Attacker => Outcome::DefenderWon,
            Side::Defender => Outcome::AttackerWon,
        }
    } else {
        let (c2, t2) = roll_stand(t, i, first.other(), dice, trace)?;
        totals[first.other() as usize] = t2;
        let second_stands = c2.stands;
        checks.push(c2);
        match (first.other(), second_stands) {
            (_, true) => Outcome::Firefight,
            (Side::Attacker, false) => Outcome::DefenderWon,
            (Side::Defender, false) => Outcome::AttackerWon,
        }
    };
    Ok(phase(outcome, Some(case), checks, totals))
}

fn loss_roll(
    t: &Table<Res>,
    col: usize,
    mods: i8,
    dice: &mut dyn Dice,
    trace: &mut Trace,
) -> Result<(u8, Loss, bool), CombatError> {
    let d = dice.roll(Purpose::CloseCombat, 6)?;
    trace.dice.push(d);
    let key = i32::from(d.value) + i32::from(mods);
    let (v, cell) = t.lookup(key, col)?;
    if cell.provenance != Provenance::Seed {
        trace.cells.push(cell);
    }
    Ok((d.value, v.loss, t.bulleted(col)))
}

/// Pre-combat changes: a defending Square becomes Column or Line and is M-1, never worse
/// than DG (15.4.5); a March Column attacking a Town/Village counts as Combat Column (19.4).
pub fn prepare(input: &CloseCombatInput) -> (CloseCombatInput, Vec<String>) {
    let mut notes = Vec::new();
    let mut i = input.clone();
    // 15.4.5: a defending Square becomes Column (Line if it has/is an Extension), M-1 but
    // never worse than DG.
    if i.defender.formation == UnitFormation::Square {
        i.defender.formation = if i.defender.line_extension {
            UnitFormation::Line
        } else {
            UnitFormation::Column
        };
        if i.defender.morale_state > MoraleState::Disorganized {
            i.defender.morale_state = i.defender.morale_state.shift(-1);
        }
        notes.push(format!(
            "defending Square becomes {:?} and is M-1, not worse than DG (15.4.5)",
            i.defender.formation
        ));
    }
    // 19.4: a March Column attacking into a Town/Village is a Combat Column.
    if i.terrain == Terrain::Village && i.attacker.formation == UnitFormation::MarchColumn {
        i.attacker.formation = UnitFormation::Column;
        notes.push("March Column attacking a Town/Village counts as Combat Column (19.4)".into());
    }
    // 19.3: "Infantry units in Line formation that move into Town/Village hexes automatically
    // become DG. This takes place before Close Combat."
    if i.terrain == Terrain::Village
        && i.attacker.formation == UnitFormation::Line
        && i.attacker.kind.is_infantry()
        && i.attacker.morale_state > MoraleState::Disorganized
    {
        i.attacker.morale_state = MoraleState::Disorganized;
        notes.push("attacking Line moving into a Town/Village becomes DG first (19.3)".into());
    }
    (i, notes)
}

/// Resolve a Close Combat (15, 19).
pub fn resolve_close_combat(
    t: &CombatTables,
    input: &CloseCombatInput,
    dice: &mut dyn Dice,
) -> Result<CloseCombatResult, CombatError> {
    let a = &input.attacker;
    if !(a.kind.is_infantry() || a.kind == UnitKind::Skirmisher) {
        return Err(CombatError::Illegal(
            "only infantry (and Skirmishers, 15.4.4) may initiate Close Combat (15.1)".into(),
        ));
    }
    if a.lone_skirmisher() && !input.defender.lone_skirmisher() {
        return Err(CombatError::Illegal(
            "Skirmishers alone may only attack Skirmishers (15.4.4, 24.2.2)".into(),
        ));
    }
    if input.defender.kind.is_cavalry() {
        return Err(CombatError::Illegal(
            "cavalry attacked in Close Combat withdraws 6–12 hexes instead (15.1.8, 22.1)".into(),
        ));
    }
    let (i, notes) = prepare(input);
    let mut trace = Trace::default();
    let StandPhase {
        outcome,
        order_case,
        checks,
        totals,
    } = resolve_stand(t, &i, &mut *dice, &mut trace)?;
    let mut res = CloseCombatResult {
        outcome,
        order_case,
        checks,
        attacker: SideResult {
            morale_before: i.attacker.morale_state,
            morale_after: i.attacker.morale_state,
            ..Default::default()
        },
        defender: SideResult {
            morale_before: input.defender.morale_state,
            morale_after: i.defender.morale_state,
            ..Default::default()
        },
        may_rush: false,
        column_may_form_line: false,
        notes,
        trace,
    };
    if outcome == Outcome::AttackerRoutedBeforeCheck {
        res.attacker.retreat = Retreat::Rout;
        res.notes
            .push("attacker Routed before checking: retreats, combat ends (15.4.1)".into());
        return Ok(res);
    }
    if i.attacker.lone_skirmisher() && i.defender.lone_skirmisher() {
        skirmisher_fight(t, &i, totals, &mut res, dice)?;
        return Ok(res);
    }
    losses(t, &i, &mut res, dice)?;
    if i.origin_hex_enemy_occupied && res.attacker.retreat == Retreat::OneHex {
        res.attacker.retreat = Retreat::Displace;
        res.attacker.notes.push(
            "origin hex enemy-occupied: displace to an adjacent enemy-free hex (15.4.8)".into(),
        );
    }
    if outcome == Outcome::AttackerWon {
        res.may_rush = i.terrain == Terrain::Village
            && i.attacker.formation == UnitFormation::Column
            && res.attacker.morale_after != MoraleState::Routed;
        res.column_may_form_line = i.attacker.formation == UnitFormation::Column;
    }
    Ok(res)
}

/// 15.4.4.1: no loss tables; the loser is M-2 and reduced on a further 1; in a Firefight the
/// lower modified roll retreats (attacker on ties).
fn skirmisher_fight(
    t: &CombatTables,
    i: &CloseCombatInput,
    totals: [i16; 2],
    res: &mut CloseCombatResult,
    dice: &mut dyn Dice,
) -> Result<(), CombatError> {
    res.notes
        .push("Skirmisher vs Skirmisher: no loss tables (15.4.4.1)".into());
    let loser = match res.outcome {
        Outcome::AttackerWon => Some(Side::Defender),
        Outcome::DefenderWon => Some(Side::Attacker),
        _ => None,
    };
    if let Some(l) = loser {
        let d = dice.roll(Purpose::CloseCombat, 6)?;
        res.trace.dice.push(d);
        let reduced = d.value == 1;
        let (sr, c) = match l {
            Side::Attacker => (&mut res.attacker, &i.attacker),
            Side::Defender => (&mut res.defender, &i.defender),
        };
        sr.loss_roll = Some(d.value);
        sr.loss = Loss::new(u8::from(reduced), 0, -2);
        sr.morale_after = c.morale_state.shift(-2);
        if l == Side::Defender {
            sr.morale_after = MoraleState::Routed;
        }
        sr.retreat = if sr.morale_after == MoraleState::Routed {
            Retreat::Rout
        } else {
            Retreat::OneHex
        };
        sr.notes.push(if reduced {
            "rolled 1: reduced (eliminated if already reduced) (15.4.4.1)".into()
        } else {
            format!("rolled {}: not reduced (15.4.4.1)", d.value)
        });
    } else {
        let retreating = if totals[Side::Defender as usize] < totals[Side::Attacker as usize] {
            Side::Defender
        } else {
            Side::Attacker
        };
        let sr = match retreating {
            Side::Attacker => &mut res.attacker,
            Side::Defender => &mut res.defender,
        };
        sr.retreat = Retreat::OneHex;
        sr.notes
            .push("Firefight: lowest modified Check to Stand retreats (15.4.4.1)".into());
    }
    let _ = t;
    Ok(())
}

/// Firefight column by the OPPONENT's formation and size (15.3.3): Combat Column AB+ or Line
/// B+ → column 0; Column A–C or Line C → column 1. March Column and Square (not covered,
/// 8.2 item 26) count as Column; a lone Skirmisher or the Skirmisher/Artillery combo as a
/// C-size Line (15.4.4, 15.4.4.2).
pub fn firefight_column(opp: &Combatant) -> usize {
    let size = opp.effective_size();
    let column_like = matches!(
        opp.formation,
        UnitFormation::Column | UnitFormation::MarchColumn | UnitFormation::Square
    ) && !opp.only_artillery_or_skirmishers();
    let big = if column_like {
        size >= Size::AB
    } else {
        size >= Size::B
    };
    if big { 0 } else { 1 }
}

/// The loss rolls of both sides (15.3), their adjustments (15.3.1–15.3.7, 15.4.6, 20.3) and
/// their application (Gun Loss, Morale Change, wreck, commanders).
fn losses(
    t: &CombatTables,
    i: &CloseCombatInput,
    res: &mut CloseCombatResult,
    dice: &mut dyn Dice,
) -> Result<(), CombatError> {
    let raw = loss_rolls(t, i, res, &mut *dice)?;
    let mut adj = adjusted_losses(i, res, raw);
    winner_cap(i, res, &mut adj);
    apply_losses(t, i, res, adj, dice)
}

/// A side's raw loss roll: the die, its capped modifier, the cell and whether it is bulleted.
type RawLoss = Option<(u8, i8, Loss, bool)>;

/// Raw rolls, attacker then defender, on the table of the outcome with its modifiers (15.3).
fn loss_rolls(
    t: &CombatTables,
    i: &CloseCombatInput,
    res: &mut CloseCombatResult,
    dice: &mut dyn Dice,
) -> Result<[RawLoss; 2], CombatError> {
    let cap = t.close_combat.loss_max_modifier;
    let outcome = res.outcome;
    let (att, def) = (&i.attacker, &i.defender);
    let lone_art_def = def.lone_artillery();
    let mut raw: [RawLoss; 2] = [None, None];
    for side in [Side::Attacker, Side::Defender] {
        let (me, opp) = match side {
            Side::Attacker => (att, def),
            Side::Defender => (def, att),
        };
        // 15.4.3.1: against lone artillery the attacker does not roll; the artillery uses the
        // Gun Loss Table if it must retreat, and nothing otherwise.
        if lone_art_def {
            continue;
        }
        let mcol = morale_index(me.morale_rating);
        let size_aa = me.effective_size().is_aa_plus();
        let (table, col, mods): (&Table<Res>, usize, Vec<(&str, bool)>) = match (outcome, side) {
            (Outcome::AttackerWon, Side::Attacker) => (
                &t.cc_attacker_won_attacker,
                mcol,
                vec![("size_aa_plus", size_aa), ("night", i.night)],
            ),
            (Outcome::AttackerWon, Side::Defender) => (
                &t.cc_attacker_won_defender,
                mcol,
                vec![
                    ("size_aa_plus", size_aa),
                    (
                        "attacker_in_line",
                        opp.formation == UnitFormation::Line && !opp.lone_skirmisher(),
                    ),
                    ("night", i.night),
                ],
            ),
            (Outcome::DefenderWon, Side::Attacker) => (
                &t.cc_defender_won_attacker,
                mcol,
                vec![
                    (
                        "column_vs_line",
                        me.in_column()
                            && opp.formation == UnitFormation::Line
                            && !me.lone_skirmisher()
                            && !opp.lone_skirmisher(),
                    ),
                    ("size_aa_plus", size_aa),
                    ("night", i.night),
                ],
            ),
            (Outcome::DefenderWon, Side::Defender) => (
                &t.cc_defender_won_defender,
                mcol,
                vec![
                    ("in_column", me.in_column() && !me.lone_skirmisher()),
                    ("size_aa_plus", size_aa),
                    ("fortified", i.terrain == Terrain::Fortified),
                    ("night", i.night),
                ],
            ),
            (Outcome::Firefight, _) => (
                &t.firefight,
                firefight_column(opp),
                vec![
                    (
                        "size_aa_plus_or_column",
                        size_aa || (me.in_column() && !me.only_artillery_or_skirmishers()),
                    ),
                    ("different_elevation", i.elevation != Elevation::Level),
                    ("skirmisher_firing", me.lone_skirmisher()),
                    (
                        "fortified",
                        side == Side::Defender && i.terrain == Terrain::Fortified,
                    ),
                    ("night", i.night),
                ],
            ),
            (Outcome::AttackerRoutedBeforeCheck, _) => continue,
        };
        let named: Vec<(String, i8)> = mods
            .iter()
            .filter(|(_, on)| *on)
            .map(|(n, _)| (n.to_string(), table.modifier(n)))
            .collect();
        let m = capped(&named, cap);
        let (roll, loss, bullet) = loss_roll(table, col, m, &mut *dice, &mut res.trace)?;
        let sr = match side {
            Side::Attacker => &mut res.attacker,
            Side::Defender => &mut res.defender,
        };
        sr.loss_roll = Some(roll);
        sr.loss_modifier = m;
        sr.table_result = Some(loss);
        for (n, v) in &named {
            sr.notes.push(format!("loss DRM {n} {v:+}"));
        }
        raw[side as usize] = Some((roll, m, loss, bullet));
    }

    Ok(raw)
}

/// Each side's loss after the adjustments: Blood Lust, AA+, B/C halving, night, no-infantry
/// Stragglers, the March Column opponent (decision 0031 row 8 gives the order).
fn adjusted_losses(
    i: &CloseCombatInput,
    res: &mut CloseCombatResult,
    raw: [RawLoss; 2],
) -> [Loss; 2] {
    let outcome = res.outcome;
    let (att, def) = (&i.attacker, &i.defender);
    let firefight = outcome == Outcome::Firefight;
    let mut adj = [Loss::NONE; 2];
    for side in [Side::Attacker, Side::Defender] {
        let Some((roll, _, loss, bullet)) = raw[side as usize] else {
            continue;
        };
        let (me, opp) = match side {
            Side::Attacker => (att, def),
            Side::Defender => (def, att),
        };
        let sr = match side {
            Side::Attacker => &mut res.attacker,
            Side::Defender => &mut res.defender,
        };
        let mut l = loss;
        if !firefight {
            // 15.3.5, 21.3.3: Blood Lust on an unmodified 1 replaces the Morale Change.
            if bullet && roll == 1 && high_morale(me.morale_rating, me.is_wrecked(), &me.commanders)
            {
                l.morale_change = 2;
                sr.blood_lust = true;
                sr.notes
                    .push("unmodified 1: Blood Lust, M+2 instead (15.3.5, 21.3.3)".into());
            }
            // 15.3.4: AA+ stacks treat negative Morale Changes one level less.
            if me.effective_size().is_aa_plus() && l.morale_change < 0 {
                l.morale_change += 1;
                sr.notes
                    .push("size AA+: Morale Change one less (15.3.4)".into());
            }
        }
        // 15.3.6: B or C stacks halve P and S (Firefight: only C).
        let halves = if firefight {
            me.effective_size() == Size::C
        } else {
            me.effective_size().is_b_or_c()
        };
        if halves && (l.permanent > 0 || l.stragglers > 0) {
            l.permanent = halve(l.permanent);
            l.stragglers = halve(l.stragglers);
            sr.notes
                .push("size B/C: P and S halved, rounding down, minimum 1 (15.3.6)".into());
        }
        if !firefight && i.night {
            // 15.3.7: +1 Straggler (0 becomes 1); positive Morale Changes ignored.
            l.stragglers = l.stragglers.saturating_add(1);
            if l.morale_change > 0 {
                l.morale_change = 0;
                sr.blood_lust = false;
            }
            sr.notes
                .push("night: +1 Straggler, positive Morale Change ignored (15.3.7)".into());
        }
        // 20.3: only infantry takes Stragglers.
        if !me.mix().infantry && l.stragglers > 0 {
            l.stragglers = 0;
            sr.notes
                .push("no infantry in the stack: Stragglers ignored (20.3)".into());
        }
        // 15.4.6: the opponent of a March Column takes only the morale result.
        if opp.formation == UnitFormation::MarchColumn && !(i.terrain == Terrain::Village) {
            l.permanent = 0;
            l.stragglers = 0;
            sr.notes
                .push("opponent in March Column: P and S ignored, morale only (15.4.6)".into());
        }
        adj[side as usize] = l;
    }
    adj
}

/// 15.3.1: the winner never loses more P than the loser (unless in March Column).
fn winner_cap(i: &CloseCombatInput, res: &mut CloseCombatResult, adj: &mut [Loss; 2]) {
    let outcome = res.outcome;
    let (att, def) = (&i.attacker, &i.defender);
    let winner = match outcome {
        Outcome::AttackerWon => Some(Side::Attacker),
        Outcome::DefenderWon => Some(Side::Defender),
        _ => None,
    };
    if let Some(w) = winner {
        let wc = match w {
            Side::Attacker => att,
            Side::Defender => def,
        };
        let lp = adj[w.other() as usize].permanent;
        if wc.formation != UnitFormation::MarchColumn && adj[w as usize].permanent > lp {
            adj[w as usize].permanent = lp;
            let sr = match w {
                Side::Attacker => &mut res.attacker,
                Side::Defender => &mut res.defender,
            };
            sr.notes.push(format!(
                "winner never loses more Permanent Casualties than the loser: capped at {lp} (15.3.1)"
            ));
        }
    }
}

/// Apply to each side, attacker first (gun loss and commander dice in that order).
fn apply_losses(
    t: &CombatTables,
    i: &CloseCombatInput,
    res: &mut CloseCombatResult,
    adj: [Loss; 2],
    dice: &mut dyn Dice,
) -> Result<(), CombatError> {
    let outcome = res.outcome;
    let (att, def) = (&i.attacker, &i.defender);
    for side in [Side::Attacker, Side::Defender] {
        let (me, loss) = match side {
            Side::Attacker => (att, adj[0]),
            Side::Defender => (def, adj[1]),
        };
        let rout = side == Side::Defender && outcome == Outcome::AttackerWon;
        let loser = match outcome {
            Outcome::AttackerWon => side == Side::Defender,
            Outcome::DefenderWon | Outcome::Firefight => side == Side::Attacker,
            Outcome::AttackerRoutedBeforeCheck => side == Side::Attacker,
        };
        let sr = match side {
            Side::Attacker => &mut res.attacker,
            Side::Defender => &mut res.defender,
        };
        sr.loss = loss;
        if rout {
            sr.notes.push("losing defender is Routed (15.3.2)".into());
        }
        // Gun Loss Table for artillery that must retreat (15.4.3.1, 21.4.6, 23.1.1).
        if loser && me.mix().artillery {
            let mut m = 0i8;
            if me.mix().all_artillery_horse {
                m += t.gun_loss.modifier("all_horse_artillery");
            }
            let d = dice.roll(Purpose::CloseCombat, 6)?;
            res.trace.dice.push(d);
            let (g, cell) = t.gun_loss.lookup(i32::from(d.value) + i32::from(m), 0)?;
            if cell.provenance != Provenance::Seed {
                res.trace.cells.push(cell);
            }
            sr.aftermath.gun_loss = Some(g);
            sr.notes.push(format!(
                "artillery retreats: Gun Loss roll {}{:+} → {} (23.1.1)",
                d.value,
                m,
                match g {
                    GunLoss::All => "all guns".to_string(),
                    GunLoss::Points(p) => format!("{p} GP"),
                }
            ));
        }
        let gun_aftermath = sr.aftermath.gun_loss;
        let mut notes = std::mem::take(&mut sr.notes);
        let (state, mut after) = apply(
            t,
            Apply {
                before: sr.morale_after,
                rout,
                ..Apply::to(me, loss, !i.skip_commander_loss)
            },
            &mut *dice,
            &mut res.trace,
            &mut notes,
        )?;
        after.gun_loss = gun_aftermath;
        let sr = match side {
            Side::Attacker => &mut res.attacker,
            Side::Defender => &mut res.defender,
        };
        sr.notes = notes;
        sr.morale_after = state;
        sr.aftermath = after;
        sr.retreat = if state == MoraleState::Routed {
            Retreat::Rout
        } else if loser {
            Retreat::OneHex
        } else {
            Retreat::None
        };
    }
    Ok(())
}

/// The parts of a unit with Line Extensions after all of its Close Combats (15.4.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineExtensionSummary {
    /// Permanent Casualties and Stragglers of all parts, summed (apply to the unit once).
    pub permanent: u8,
    pub stragglers: u8,
    /// A part Routed: the unit collapses into its parent hex (13.3.1) and is Routed.
    pub collapse: bool,
    /// A part became Wrecked: every part takes the extra M-1 (15.4.2).
    pub wreck_penalty_all_parts: bool,
}

/// 15.4.2: resolve every Close Combat of an extended unit first (each call with `track: None`
/// so no part wrecks on its own), then sum the losses here; Morale Changes stay per part unless
/// the unit collapses.
pub fn sum_line_extension_parts(parts: &[&SideResult]) -> LineExtensionSummary {
    LineExtensionSummary {
        permanent: parts
            .iter()
            .fold(0u8, |a, p| a.saturating_add(p.loss.permanent)),
        stragglers: parts
            .iter()
            .fold(0u8, |a, p| a.saturating_add(p.loss.stragglers)),
        collapse: parts.iter().any(|p| p.morale_after == MoraleState::Routed),
        wreck_penalty_all_parts: parts.iter().any(|p| p.aftermath.brigade_became_wrecked),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_extension_parts_15_4_2() {
        let a = SideResult {
            loss: Loss::new(1, 2, -1),
            morale_after: MoraleState::Shaken,
            ..Default::default()
        };
        let b = SideResult {
            loss: Loss::new(2, 1, 0),
            morale_after: MoraleState::Routed,
            ..Default::default()
        };
        let s = sum_line_extension_parts(&[&a, &b]);
        assert_eq!((s.permanent, s.stragglers), (3, 3));
        assert!(s.collapse);
        assert!(!s.wreck_penalty_all_parts);
    }
}
