//! The umpire's game loop: `new`, `order`, `turn`, `initiative`, `default-defense`, `withdraw`,
//! `move`, `stage`, `override`, `status`, `log`, `replay`, `branch`.
//!
//! Each command opens the game file, asks the engine, and appends in one transaction; a refused
//! command prints why (exit 1) and leaves the file unchanged.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::json;

use super::{CmdResult, Failure, Format};
use crate::engine::{
    Command, CommandStatus, Event, EventKind, OrderStatus, OverrideAction, TypedOrder,
};
use crate::game::{Game, GameError, NewGame, Viewer};
use crate::hex::Hex;

/// `--side SIDE` or `--umpire`: whose view to show.
#[derive(Args, Debug, Clone)]
pub struct ViewArgs {
    /// Show one side's view: its own orders and units, and of the enemy only what rule 4.0 reveals.
    #[arg(long, conflicts_with = "umpire")]
    pub side: Option<String>,
    /// Show the umpire's master view (the default).
    #[arg(long)]
    pub umpire: bool,
}

impl ViewArgs {
    fn viewer(&self) -> Viewer {
        match &self.side {
            Some(s) => Viewer::Side(s.clone()),
            None => Viewer::Umpire,
        }
    }
}

use super::odds_cmd::MethodArg;

/// Status of an order imposed by the umpire (`override --impose-order`).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ImposedStatusArg {
    Accepted,
    D4,
    D5,
    D6,
}

impl From<ImposedStatusArg> for crate::engine::command::ImposedStatus {
    fn from(s: ImposedStatusArg) -> Self {
        use crate::engine::command::ImposedStatus as I;
        match s {
            ImposedStatusArg::Accepted => I::Accepted,
            ImposedStatusArg::D4 => I::D4,
            ImposedStatusArg::D5 => I::D5,
            ImposedStatusArg::D6 => I::D6,
        }
    }
}

#[derive(Args, Debug)]
pub struct NewArgs {
    /// Scenario file (TOML), or a bundled scenario name such as `tutorial-hall`.
    #[arg(long)]
    pub scenario: String,
    /// The game file to create (SQLite).
    #[arg(long)]
    pub db: PathBuf,
    /// Seed of the game's dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Command tables to use instead of the bundled ones (see `staffwork rules show`).
    #[arg(long)]
    pub tables: Option<PathBuf>,
    /// Combat tables replacing sections of the built-in ones (see docs/combat.md); stored in the game.
    #[arg(long)]
    pub combat_tables: Option<PathBuf>,
    /// A Movement Table replacing rows of the built-in one (chart p2; see docs/rules.md and
    /// `staffwork rules show movement`); stored in the game.
    #[arg(long)]
    pub movement_tables: Option<PathBuf>,
    /// A scenario variant to play (repeatable; `staffwork scenario show` lists them).
    #[arg(long)]
    pub variant: Vec<String>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct OrderArgs {
    #[arg(long)]
    pub db: PathBuf,
    /// The writing side.
    #[arg(long)]
    pub side: String,
    /// The sending commander (default: the side's army commander).
    #[arg(long)]
    pub from: Option<String>,
    /// Recipient command id, when the order text does not name it.
    #[arg(long)]
    pub to: Option<String>,
    #[arg(long, value_enum)]
    pub method: MethodArg,
    /// Hand the order in person to the commander who relays it (Talavera T4.2b: `--via
    /// jourdan`); he accepts it, rides to the recipient and re-issues it (`staffwork relay`).
    #[arg(long, value_name = "COMMANDER")]
    pub via: Option<String>,
    /// The order text, or `@FILE` to read it from a file, or `-` for standard input.
    pub text: String,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct RelayArgs {
    #[arg(long)]
    pub db: PathBuf,
    /// The order the relaying commander carries (its number in the Order Log).
    #[arg(long, value_name = "N")]
    pub order: u32,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct TurnArgs {
    #[arg(long)]
    pub db: PathBuf,
    /// Keep going until the first Command Phase of this game turn (each step is recorded on its own).
    #[arg(long, value_name = "TURN", conflicts_with = "until_end")]
    pub until_turn: Option<u32>,
    /// Keep going until the game is over.
    #[arg(long)]
    pub until_end: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

impl TurnArgs {
    /// How far this `turn` goes.
    pub(crate) fn until(&self) -> crate::game::Until {
        use crate::game::Until;
        match (self.until_turn, self.until_end) {
            (Some(t), _) => Until::Turn(t),
            (None, true) => Until::End,
            (None, false) => Until::Once,
        }
    }
}

#[derive(Args, Debug)]
pub struct InitiativeArgs {
    #[arg(long)]
    pub db: PathBuf,
    /// The commander rolling (or a cavalry/independent brigade's own id).
    #[arg(long)]
    pub commander: String,
    /// The command the order is for (default: the commander's own command).
    #[arg(long)]
    pub command: Option<String>,
    /// The order written if the roll gives Initiative.
    pub text: String,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct CommandArgs {
    #[arg(long)]
    pub db: PathBuf,
    /// The command (formation or brigade id).
    #[arg(long)]
    pub command: String,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct LooseCannonArgs {
    #[arg(long)]
    pub db: PathBuf,
    #[arg(long)]
    pub command: String,
    /// The one-turn order the opponent writes.
    pub text: String,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct MoveArgs {
    #[arg(long)]
    pub db: PathBuf,
    /// Commander id, `hq:<formation>` or unit id.
    #[arg(long)]
    pub piece: String,
    /// Destination hex, e.g. 12.15. Without --path a unit takes the cheapest legal path
    /// (see it first with `staffwork path`).
    #[arg(long)]
    pub to: Hex,
    /// The hexes to move through, in order, ending at --to (12.0), e.g. `--path 5.06,5.07`.
    /// Each step is checked against the Movement Table (chart p2).
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    pub path: Vec<Hex>,
    /// Change formation first, paying its cost (8.2): line, column, march-column, square,
    /// limbered, unlimbered. With --to the unit's own hex it only changes formation.
    #[arg(long, value_parser = crate::cli::movement_cmd::parse_formation)]
    pub formation: Option<crate::scenario::UnitFormation>,
    /// Face this hex corner at the end (10.1): NNE, E, SSE, SSW, W, NNW. Turning costs 1 MP a
    /// corner (1 for 180°); with --to the unit's own hex it only turns.
    #[arg(long)]
    pub face: Option<crate::movement::facing::Corner>,
    /// Forced March (12.5.6): 1 or 2 sets of +3 MP, a Morale Check for Stragglers each;
    /// infantry in Column, not DG, on the road all the way.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=2))]
    pub forced_march: u8,
    /// Generate Line Extensions into these adjacent hexes (13.1.3), with --to the unit's own
    /// hex: `--extend 5.06,6.05`. Infantry in Line of B strength or more; two for A or more.
    #[arg(long, value_delimiter = ',')]
    pub extend: Vec<Hex>,
    /// Remove the Line Extensions in these hexes (13.1.4), with --to the unit's own hex.
    #[arg(long, value_delimiter = ',')]
    pub retract: Vec<Hex>,
    /// Line Backstep (12.4.1): a Line steps one hex in any direction keeping its facing, for
    /// its whole Movement Allowance.
    #[arg(long)]
    pub backstep: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Skirmisher quality (18, 26.3).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum QualityArg {
    Elite,
    Regular,
    Rifles,
}

/// Combat procedures a player starts.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ProcedureArg {
    /// Close Combat (15, 19).
    CloseCombat,
    /// A cavalry charge (16).
    Charge,
    /// Artillery fire (17): the attackers are batteries.
    Fire,
    /// Skirmisher fire (18): the attackers are skirmishers.
    SkirmisherFire,
}

#[derive(Args, Debug)]
pub struct CombatArgs {
    /// Which procedure.
    #[arg(value_enum)]
    pub procedure: ProcedureArg,
    #[arg(long)]
    pub db: PathBuf,
    /// Attacking unit (repeat for a stack; the first leads, 14.2). Batteries for `fire`.
    #[arg(long = "attacker", required = true)]
    pub attackers: Vec<String>,
    /// Defending unit (repeat for a stack; the first leads, 14.2).
    #[arg(long = "defender", required = true)]
    pub defenders: Vec<String>,
    /// The defender is behind fortified terrain (15.2.1).
    #[arg(long)]
    pub fortified: bool,
    /// Charge: the target forms Square (16.2.1).
    #[arg(long)]
    pub form_square: bool,
    /// Charge: Follow-on Charges against the same target after a success (0–3, 16.2.7.2).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub follow_ons: u8,
    /// Charge: a Reaction Charge (16.5), allowed without orders, with no Follow-ons.
    #[arg(long)]
    pub reaction: bool,
    /// Charge: a Follow-on Charge against a new target (16.2.7.3).
    #[arg(long)]
    pub follow_on: bool,
    /// The attacking Skirmishers' quality: their Fire Value in skirmisher fire (18) and for
    /// Skirmisher Disadvantage in close combat (15.2.2 box). Elite for British and French,
    /// rifles 26.3.
    #[arg(long, value_enum, default_value_t = QualityArg::Elite)]
    pub quality: QualityArg,
    /// The defending stack's Skirmishers' quality: their Fire Value is deducted from the firers'
    /// (18.3) and counts for Skirmisher Disadvantage in close combat (15.2.2 box).
    #[arg(long, value_enum, default_value_t = QualityArg::Elite)]
    pub defender_quality: QualityArg,
    /// A Skirmisher named in a stack (not its Lead Unit) takes the stack's even Permanent
    /// Casualties, the 2nd, 4th, … (20.2), at most N of them and never more than its steps
    /// left: `UNIT` or `UNIT=N`. The owner's choice.
    #[arg(long, value_name = "UNIT[=N]")]
    pub skirmisher_absorbs: Vec<String>,
    /// Fire: Cannister (17.4.9), Opportunity Fire at units entering the battery's hex, so at
    /// range 1; either side fires it, also in the other player's turn (17.4).
    #[arg(long)]
    pub cannister: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct OverrideArgs {
    #[arg(long)]
    pub db: PathBuf,
    /// Why the umpire overrides (recorded, shown only to the umpire).
    #[arg(long)]
    pub reason: String,
    /// Mark a command wrecked (21.6).
    #[arg(long, value_name = "COMMAND")]
    pub wreck: Option<String>,
    /// Clear a command's wrecked mark.
    #[arg(long, value_name = "COMMAND")]
    pub unwreck: Option<String>,
    /// Mark a command's original commander lost (6.7).
    #[arg(long, value_name = "COMMAND")]
    pub commander_lost: Option<String>,
    /// Place a piece: `PIECE=HEX` (a courier, commander, HQ or unit).
    #[arg(long, value_name = "PIECE=HEX")]
    pub place: Option<String>,
    /// Discard an order by number (e.g. a courier captured).
    #[arg(long, value_name = "N")]
    pub discard_order: Option<u32>,
    /// Put a command in No Orders Status.
    #[arg(long, value_name = "COMMAND")]
    pub no_orders: Option<String>,
    /// Record a ruling (e.g. how an order is to be read).
    #[arg(long, value_name = "TEXT")]
    pub ruling: Option<String>,
    /// Roll the acceptance of an order in delay or distorted again (6.5).
    #[arg(long, value_name = "N")]
    pub reroll: Option<u32>,
    /// Put an order in force for a command (with --text and --status), e.g. to set up a situation.
    #[arg(long, value_name = "COMMAND")]
    pub impose_order: Option<String>,
    /// The order text for --impose-order.
    #[arg(long)]
    pub text: Option<String>,
    /// Status of the imposed order.
    #[arg(long, value_enum, default_value_t = ImposedStatusArg::Accepted)]
    pub status: ImposedStatusArg,
    /// Set a unit's combat state (with --losses, --morale-state, --blown or --not-blown): to
    /// correct a unit or set up a situation. Wrecked status is set with --wreck/--unwreck.
    #[arg(long, value_name = "UNIT")]
    pub set_unit: Option<String>,
    /// With --set-unit: the marks on its Loss Chart row, "P (S)" — Permanent Casualties and
    /// Stragglers (20.4); for a battery, gun points lost.
    #[arg(long, value_name = "P (S)", requires = "set_unit")]
    pub losses: Option<String>,
    /// With --set-unit: its Morale State (21.1).
    #[arg(long, value_enum, value_name = "STATE", requires = "set_unit")]
    pub morale_state: Option<MoraleStateArg>,
    /// With --set-unit: the cavalry is Blown (22.2).
    #[arg(long, requires = "set_unit", conflicts_with = "not_blown")]
    pub blown: bool,
    /// With --set-unit: the cavalry is not Blown (22.2).
    #[arg(long, requires = "set_unit")]
    pub not_blown: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Morale States (21.1), for `override --set-unit`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum MoraleStateArg {
    BloodLust,
    Normal,
    Shaken,
    Disorganized,
    Routed,
}

impl From<MoraleStateArg> for crate::combat::MoraleState {
    fn from(m: MoraleStateArg) -> Self {
        use crate::combat::MoraleState as M;
        match m {
            MoraleStateArg::BloodLust => M::BloodLust,
            MoraleStateArg::Normal => M::Normal,
            MoraleStateArg::Shaken => M::Shaken,
            MoraleStateArg::Disorganized => M::Disorganized,
            MoraleStateArg::Routed => M::Routed,
        }
    }
}

#[derive(Args, Debug)]
pub struct LogArgs {
    #[arg(long)]
    pub db: PathBuf,
    #[command(flatten)]
    pub view: ViewArgs,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    #[arg(long)]
    pub db: PathBuf,
    /// Stop the playback after this turn.
    #[arg(long)]
    pub to_turn: Option<u32>,
    /// Check the hash chain and re-simulate every command from the seed.
    #[arg(long)]
    pub verify: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct BranchArgs {
    #[arg(long)]
    pub db: PathBuf,
    /// Keep the history up to the end of this turn.
    #[arg(long)]
    pub at_turn: u32,
    /// The new game file.
    #[arg(long)]
    pub out: PathBuf,
    /// New dice from the branch point on.
    #[arg(long)]
    pub seed: Option<u64>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Wall-clock time for the game file's metadata; the engine never sees it.
#[allow(clippy::disallowed_methods)]
fn now() -> String {
    chrono::Local::now()
        .format("%Y-%m-%dT%H:%M:%S%:z")
        .to_string()
}

fn game_error(e: GameError) -> Failure {
    match e {
        GameError::Refused(r) => {
            eprintln!(
                "refused [{}]{}: {}",
                r.code,
                if r.rule.is_empty() {
                    String::new()
                } else {
                    format!(" (rule {})", r.rule)
                },
                r.message
            );
            if !r.help.is_empty() {
                eprintln!("  help: {}", r.help);
            }
            eprintln!("nothing was written.");
            Failure::Judged
        }
        other => Failure::Usage(other.to_string()),
    }
}

fn refusal_json(e: &GameError) -> serde_json::Value {
    match e {
        GameError::Refused(r) => {
            json!({"ok": false, "refused": {"code": r.code, "rule": r.rule, "message": r.message, "help": r.help}})
        }
        other => json!({"ok": false, "error": other.to_string()}),
    }
}

fn open(db: &Path) -> Result<Game, Failure> {
    Game::open(db).map_err(|e| Failure::Usage(e.to_string()))
}

/// Run a command on a game and report its events.
fn execute(game: &mut Game, actor: &str, cmd: &Command, format: Format) -> CmdResult {
    match game.execute(actor, cmd) {
        Ok(events) => {
            if format == Format::Json {
                super::print_json(
                    &json!({"ok": true, "events": events, "turn": game.state.turn, "step": game.state.step}),
                )
            } else {
                for e in &events {
                    println!("{}", describe(e));
                }
                Ok(())
            }
        }
        Err(e) => {
            if format == Format::Json {
                super::print_json(&refusal_json(&e))?;
                return Err(Failure::Judged);
            }
            Err(game_error(e))
        }
    }
}

fn read_text(text: &str) -> Result<String, Failure> {
    if text == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)?;
        Ok(s)
    } else if let Some(path) = text.strip_prefix('@') {
        std::fs::read_to_string(path)
            .map_err(|e| Failure::Usage(format!("cannot read {path}: {e}")))
    } else {
        Ok(text.to_string())
    }
}

/// Load a scenario by path or bundled name, returning its text too; an invalid one prints its
/// problems (exit 1).
pub(crate) fn scenario_source(name: &str) -> Result<(String, crate::scenario::Scenario), Failure> {
    match crate::scenario::source(Path::new(name)) {
        Ok((_, text, s)) => Ok((text, s)),
        Err(crate::scenario::ScenarioError::Io { message, .. }) if !Path::new(name).exists() => {
            let names: Vec<&str> = crate::scenario::BUNDLED
                .iter()
                .map(|(f, _)| f.trim_end_matches(".toml"))
                .collect();
            Err(Failure::Usage(format!(
                "no scenario file `{name}` ({message}); bundled scenarios: {}",
                names.join(", ")
            )))
        }
        Err(e @ crate::scenario::ScenarioError::Io { .. }) => Err(Failure::Usage(e.to_string())),
        Err(e) => {
            eprintln!("{e}");
            Err(Failure::Judged)
        }
    }
}

/// Why a command line could not become an engine command.
pub(crate) enum BuildError {
    /// The order language found errors in the order text.
    Order(Box<crate::order::CheckedOrder>),
    /// Bad arguments (unknown side, missing recipient, …).
    Usage(String),
}

impl BuildError {
    fn report(self, format: Format) -> Failure {
        match self {
            BuildError::Order(checked) => {
                if format == Format::Json {
                    let _ = super::print_json(&json!({"ok": false, "order": checked}));
                } else {
                    super::check_cmd::print_order_text(&checked.text, &checked);
                    eprintln!("the order has errors; nothing was written.");
                }
                Failure::Judged
            }
            BuildError::Usage(m) => Failure::Usage(m),
        }
    }
}

/// Type an order with the order language; errors refuse it.
fn type_order(
    text: &str,
    scenario: &crate::scenario::Scenario,
    side: &str,
) -> Result<(TypedOrder, Option<String>), BuildError> {
    let checked = crate::order::check_one(text, Some(scenario), Some(side));
    if checked.has_errors() {
        return Err(BuildError::Order(Box::new(checked)));
    }
    let recipient = checked
        .recipient
        .as_ref()
        .and_then(|r| r.resolved.as_ref())
        .map(|r| r.id.clone());
    Ok((crate::game::typed_order(&checked), recipient))
}

/// Turn a parsed command line into the actor and the engine command, for the CLI and the
/// conformance runner alike. `None` for subcommands that are not game commands.
pub(crate) fn build(
    game: &Game,
    cmd: &super::Command,
) -> Option<Result<(String, Command), BuildError>> {
    use super::Command as C;
    Some(match cmd {
        C::Order(a) => build_order(game, a),
        C::Turn(_) => Ok(("umpire".into(), Command::Advance)),
        C::Initiative(a) => build_initiative(game, a),
        C::LooseCannon(a) => build_loose_cannon(game, a),
        C::DefaultDefense(a) => Ok((
            side_of(game, &a.command),
            Command::DefaultDefense {
                command: a.command.clone(),
            },
        )),
        C::Withdraw(a) => Ok((
            side_of(game, &a.command),
            Command::Withdraw {
                command: a.command.clone(),
            },
        )),
        C::Stage(a) => Ok((
            side_of(game, &a.command),
            Command::StageComplete {
                command: a.command.clone(),
            },
        )),
        C::Move(a) => Ok((
            "player".into(),
            Command::Move {
                piece: a.piece.clone(),
                to: a.to,
                path: a.path.clone(),
                formation: a.formation,
                face: a.face,
                forced_march: a.forced_march,
                extend: a.extend.clone(),
                retract: a.retract.clone(),
                backstep: a.backstep,
            },
        )),
        C::Override(a) => build_override(game, a),
        C::Relay(a) => Ok((
            game.state
                .orders
                .get(&a.order)
                .map_or_else(|| "player".to_string(), |o| o.side.clone()),
            Command::DeliverRelayedOrder { order: a.order },
        )),
        C::Combat(a) => build_combat(game, a),
        _ => return None,
    })
}

fn build_combat(game: &Game, a: &CombatArgs) -> Result<(String, Command), BuildError> {
    let kind = match a.procedure {
        ProcedureArg::CloseCombat => crate::engine::CombatKind::CloseCombat {
            fortified: a.fortified,
        },
        ProcedureArg::Charge => crate::engine::CombatKind::Charge {
            form_square: a.form_square,
            follow_ons: a.follow_ons,
            reaction: a.reaction,
            follow_on: a.follow_on,
        },
        ProcedureArg::SkirmisherFire => crate::engine::CombatKind::SkirmisherFire {
            quality: quality(a.quality),
        },
        ProcedureArg::Fire => crate::engine::CombatKind::ArtilleryFire {
            cannister: a.cannister,
        },
    };
    let actor = game
        .scenario
        .unit(&a.attackers[0])
        .map_or_else(|| "player".to_string(), |u| u.side.clone());
    let mut absorbs = Vec::new();
    for x in &a.skirmisher_absorbs {
        let (unit, at_most) = match x.split_once('=') {
                Some((u, n)) => (
                    u,
                    Some(n.trim().parse::<u8>().map_err(|_| {
                        BuildError::Usage(format!(
                            "--skirmisher-absorbs takes UNIT or UNIT=N (N a number of casualties), not `{x}`"
                        ))
                    })?),
                ),
                None => (x.as_str(), None),
            };
        absorbs.push(crate::engine::command::SkirmisherAbsorbs {
            unit: unit.trim().to_string(),
            at_most,
        });
    }
    Ok((
        actor,
        Command::Combat {
            kind,
            attackers: a.attackers.clone(),
            defenders: a.defenders.clone(),
            options: crate::engine::command::CombatOptions {
                attacker_quality: quality(a.quality),
                defender_quality: quality(a.defender_quality),
                skirmisher_absorbs: absorbs,
            },
        },
    ))
}

fn quality(q: QualityArg) -> crate::combat::fire::SkirmisherQuality {
    match q {
        QualityArg::Elite => crate::combat::fire::SkirmisherQuality::Elite,
        QualityArg::Regular => crate::combat::fire::SkirmisherQuality::Regular,
        QualityArg::Rifles => crate::combat::fire::SkirmisherQuality::Rifles,
    }
}

fn failure_text(f: Failure) -> BuildError {
    match f {
        Failure::Usage(m) => BuildError::Usage(m),
        Failure::Judged => BuildError::Usage("bad input".into()),
    }
}

fn side_of(game: &Game, command: &str) -> String {
    game.state
        .commands
        .get(command)
        .map(|c| c.side.clone())
        .unwrap_or_default()
}

/// A command that changes the game (order, initiative, move, combat, override, …): open the
/// game, build the engine command with the same code as the conformance runner, execute it.
pub fn run_game_command(cmd: &super::Command) -> CmdResult {
    use super::Command as C;
    let (db, format) = match cmd {
        C::Order(a) => (&a.db, a.format),
        C::Initiative(a) => (&a.db, a.format),
        C::LooseCannon(a) => (&a.db, a.format),
        C::DefaultDefense(a) | C::Withdraw(a) | C::Stage(a) => (&a.db, a.format),
        C::Move(a) => (&a.db, a.format),
        C::Combat(a) => (&a.db, a.format),
        C::Override(a) => (&a.db, a.format),
        C::Relay(a) => (&a.db, a.format),
        _ => return Err(Failure::Usage("not a game command".into())),
    };
    let mut game = open(db)?;
    let (actor, engine_cmd) = match build(&game, cmd) {
        Some(Ok(x)) => x,
        Some(Err(e)) => return Err(e.report(format)),
        None => return Err(Failure::Usage("not a game command".into())),
    };
    execute(&mut game, &actor, &engine_cmd, format)
}

pub fn new(a: NewArgs) -> CmdResult {
    let (scenario_toml, scenario) = scenario_source(&a.scenario)?;
    let (tables_toml, tables) = super::load_tables(a.tables.as_deref())?;
    let mut new = NewGame::on(scenario_toml, scenario, a.seed).map_err(|(id, msg)| {
        Failure::Usage(format!(
            "pre-set order `{id}` cannot be read by the order language: {msg}"
        ))
    })?;
    new.tables_toml = tables_toml;
    new.tables = tables;
    if let Some(p) = &a.combat_tables {
        new.combat_tables_toml = std::fs::read_to_string(p)
            .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", p.display())))?;
    }
    if let Some(p) = &a.movement_tables {
        new.movement_tables_toml = std::fs::read_to_string(p)
            .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", p.display())))?;
    }
    new.variants = a.variant.clone();
    new.created_at = now();
    let game = Game::create(&a.db, new).map_err(game_error)?;
    if a.format == Format::Json {
        return super::print_json(
            &json!({"ok": true, "db": a.db, "scenario": game.scenario.meta.id, "seed": a.seed, "turn": game.state.turn, "phasing": game.state.phasing()}),
        );
    }
    println!(
        "created {} ({}), seed {}",
        a.db.display(),
        game.scenario.meta.title,
        a.seed
    );
    print_where(&game);
    Ok(())
}

fn print_where(game: &Game) {
    print_where_for(game, &Viewer::Umpire);
}

/// Where the game stands; the phasing side's command points only for the umpire and that side.
fn print_where_for(game: &Game, viewer: &Viewer) {
    let info = game
        .engine()
        .turn_info(game.state.turn)
        .map(|t| t.time.format("%H:%M").to_string())
        .unwrap_or_default();
    let side = game.state.phasing().to_string();
    let window = match game.state.step {
        crate::engine::Step::Command => "Command Phase (orders and local initiative)",
        crate::engine::Step::Operations => "operations (fire, movement, close combat, rally)",
        crate::engine::Step::GameOver => "game over",
    };
    let points = match viewer {
        Viewer::Side(v) if *v != side => String::new(),
        _ => format!(
            "; {} command points left",
            game.state.sides.get(&side).map_or(0, |s| s.command_points)
        ),
    };
    println!(
        "turn {} ({info}), {side} player, {window} window{points}",
        game.state.turn
    );
}

fn build_order(game: &Game, a: &OrderArgs) -> Result<(String, Command), BuildError> {
    let text = read_text(&a.text).map_err(failure_text)?;
    let (typed, recipient) = type_order(&text, &game.scenario, &a.side)?;
    let to = a.to.clone().or(recipient).ok_or_else(|| {
        BuildError::Usage(
            "the order names no recipient the scenario knows; add `--to COMMAND`".into(),
        )
    })?;
    // The army commander as the game stands (a successor, Burrard, Jourdan under 5.3b).
    let from = match &a.from {
        Some(f) => f.clone(),
        None => game
            .state
            .sides
            .get(&a.side)
            .map(|s| s.army_commander.clone())
            .ok_or_else(|| BuildError::Usage(format!("unknown side `{}`", a.side)))?,
    };
    let side = a.side.clone();
    let cmd = match &a.via {
        Some(via) => Command::IssueRelayedOrder {
            side: side.clone(),
            from,
            via: via.clone(),
            to,
            method: a.method.into(),
            order: typed,
        },
        None => Command::IssueOrder {
            side: side.clone(),
            from,
            to,
            method: a.method.into(),
            order: typed,
        },
    };
    Ok((side, cmd))
}

fn build_loose_cannon(game: &Game, a: &LooseCannonArgs) -> Result<(String, Command), BuildError> {
    let side = side_of(game, &a.command);
    let text = read_text(&a.text).map_err(failure_text)?;
    let (order, _) = type_order(&text, &game.scenario, &side)?;
    Ok((
        "opponent".into(),
        Command::LooseCannonOrder {
            command: a.command.clone(),
            order,
        },
    ))
}

fn build_initiative(game: &Game, a: &InitiativeArgs) -> Result<(String, Command), BuildError> {
    let command = match &a.command {
        Some(c) => c.clone(),
        None => game
            .scenario
            .formation_of_commander(&a.commander)
            .map(|f| f.id.clone())
            .unwrap_or_else(|| a.commander.clone()),
    };
    let side = side_of(game, &command);
    let text = read_text(&a.text).map_err(failure_text)?;
    let (order, _) = type_order(&text, &game.scenario, &side)?;
    Ok((
        side,
        Command::RollInitiative {
            commander: a.commander.clone(),
            command,
            order,
        },
    ))
}

fn build_override(game: &Game, a: &OverrideArgs) -> Result<(String, Command), BuildError> {
    let mut actions = Vec::new();
    if let Some(c) = &a.wreck {
        actions.push(OverrideAction::SetWrecked {
            command: c.clone(),
            wrecked: true,
        });
    }
    if let Some(c) = &a.unwreck {
        actions.push(OverrideAction::SetWrecked {
            command: c.clone(),
            wrecked: false,
        });
    }
    if let Some(c) = &a.commander_lost {
        actions.push(OverrideAction::SetCommanderLost {
            command: c.clone(),
            lost: true,
        });
    }
    if let Some(p) = &a.place {
        let (piece, hex) = p
            .split_once('=')
            .ok_or_else(|| BuildError::Usage(format!("--place takes PIECE=HEX, not `{p}`")))?;
        let to: Hex = hex
            .parse()
            .map_err(|e: crate::hex::HexParseError| BuildError::Usage(e.to_string()))?;
        actions.push(OverrideAction::Place {
            piece: piece.to_string(),
            to,
        });
    }
    if let Some(n) = a.discard_order {
        actions.push(OverrideAction::DiscardOrder { order: n });
    }
    if let Some(c) = &a.no_orders {
        actions.push(OverrideAction::SetStatus {
            command: c.clone(),
            status: CommandStatus::NoOrders,
        });
    }
    if let Some(t) = &a.ruling {
        actions.push(OverrideAction::Ruling { text: t.clone() });
    }
    if let Some(n) = a.reroll {
        actions.push(OverrideAction::Reroll { order: n });
    }
    if let Some(c) = &a.impose_order {
        let text = a
            .text
            .clone()
            .ok_or_else(|| BuildError::Usage("--impose-order needs --text \"ORDER\"".into()))?;
        let side = side_of(game, c);
        let (order, _) = type_order(&text, &game.scenario, &side)?;
        actions.push(OverrideAction::ImposeOrder {
            command: c.clone(),
            order,
            status: a.status.into(),
        });
    }
    if let Some(unit) = &a.set_unit {
        let losses = match &a.losses {
            Some(text) => Some(crate::engine::command::LossMarks::parse(text).ok_or_else(|| {
                BuildError::Usage(format!(
                    "--losses: `{text}` is not \"P (S)\"; write the Permanent Casualties, then the Stragglers in brackets, e.g. --losses \"2 (1)\" (20.4)"
                ))
            })?),
            None => None,
        };
        let blown = match (a.blown, a.not_blown) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        };
        if losses.is_none() && a.morale_state.is_none() && blown.is_none() {
            return Err(BuildError::Usage(format!(
                "--set-unit {unit}: say what to set with --losses \"P (S)\", --morale-state STATE, --blown or --not-blown"
            )));
        }
        actions.push(OverrideAction::SetUnit {
            unit: unit.clone(),
            losses,
            morale: a.morale_state.map(Into::into),
            blown,
        });
    }
    if actions.len() != 1 {
        return Err(BuildError::Usage(
            "give exactly one of --wreck, --unwreck, --commander-lost, --place, --discard-order, --no-orders, --ruling, --reroll, --impose-order, --set-unit".into(),
        ));
    }
    Ok((
        "umpire".into(),
        Command::Override {
            reason: a.reason.clone(),
            action: actions.remove(0),
        },
    ))
}

pub fn turn(a: TurnArgs) -> CmdResult {
    let mut game = open(&a.db)?;
    match game.advance(a.until(), None) {
        Ok(events) if a.format == Format::Json => super::print_json(
            &json!({"ok": true, "events": events, "turn": game.state.turn, "step": game.state.step}),
        ),
        Ok(events) => {
            for e in &events {
                println!("{}", describe(e));
            }
            print_where(&game);
            Ok(())
        }
        Err(e) if a.format == Format::Json => {
            super::print_json(&refusal_json(&e))?;
            Err(Failure::Judged)
        }
        Err(e) => Err(game_error(e)),
    }
}

/// The Order Log of rule 6.4.5 as a viewer may see it.
fn order_log(game: &Game, viewer: &Viewer) -> Vec<serde_json::Value> {
    let turn_time = |t: u32| {
        game.engine()
            .turn_info(t)
            .map(|i| i.time.format("%H:%M").to_string())
            .unwrap_or_else(|| "start".into())
    };
    game.state
        .orders
        .values()
        .filter(|o| match viewer {
            Viewer::Umpire => true,
            Viewer::Side(s) => &o.side == s,
        })
        .map(|o| {
            json!({
                "number": o.number,
                "side": o.side,
                "time_sent": turn_time(o.sent_turn),
                "sent_turn": o.sent_turn,
                "arrival_time": turn_time(o.arrival_turn),
                "arrival_turn": o.arrival_turn,
                "sender": o.sender,
                "receiver": o.recipient,
                "text": o.text,
                "readback": o.readback,
                "method": o.method,
                "type": o.order_type,
                "origin": o.origin,
                "cost": o.cost,
                "status": o.status,
            })
        })
        .collect()
}

/// An order's status for people: the log label, with the reason of a discard.
fn status_text(s: &OrderStatus) -> String {
    match s {
        OrderStatus::Discarded { reason } => format!("discarded ({reason})"),
        other => other.label().replace('-', " "),
    }
}

pub fn status(a: LogArgs) -> CmdResult {
    let game = open(&a.db)?;
    let viewer = a.view.viewer();
    let positions = crate::game::visible_positions(&game.state, &game.scenario, &viewer);
    let commands: Vec<serde_json::Value> = game
        .state
        .commands
        .iter()
        .filter(|(_, c)| match &viewer {
            Viewer::Umpire => true,
            Viewer::Side(s) => &c.side == s,
        })
        .map(|(id, c)| {
            let follows = if c.follows_parent && c.status == CommandStatus::NoOrders { c.parent.clone() } else { None };
            json!({"command": id, "side": c.side, "status": c.status, "follows": follows, "order": c.current_order, "stage": c.stage, "independent": c.independent, "wrecked": c.wrecked, "distortion_unnoticed": c.distortion_unnoticed, "loan": c.loan})
        })
        .collect();
    let sides: Vec<serde_json::Value> = game
        .state
        .sides
        .iter()
        .filter(|(s, _)| match &viewer {
            Viewer::Umpire => true,
            Viewer::Side(v) => v == *s,
        })
        .map(|(s, x)| json!({"side": s, "command_points": x.command_points}))
        .collect();
    // Loss charts (20.4), starting with the losses suffered before the scenario (Talavera 7.1):
    // a side sees only its own (4.0).
    let units: Vec<serde_json::Value> = game
        .state
        .units
        .iter()
        .filter_map(|(id, u)| {
            let side = game.scenario.unit(id)?.side.as_str();
            match &viewer {
                Viewer::Side(v) if v != side => return None,
                _ => {}
            }
            // Only a brigade is Wrecked (21.6); a battery's chart counts gun points.
            let wrecked = game.state.commands.get(id).is_some_and(|c| c.wrecked);
            Some(json!({
                "unit": id, "side": side,
                "permanent": u.track.permanent, "stragglers": u.track.stragglers,
                "skirmisher_losses": u.skirmisher_losses,
                "boxes": u.track.boxes, "remaining": u.track.remaining(),
                "morale": u.morale, "blown": u.blown, "wrecked": wrecked,
            }))
        })
        .collect();
    // 4.0: enemy pieces out of sight now, where and when this side last saw them.
    let last_seen = match &viewer {
        Viewer::Side(side) => {
            let events: Vec<_> = game.store.events()?.into_iter().map(|e| e.event).collect();
            crate::game::last_seen(&events, &game.scenario, side)
        }
        Viewer::Umpire => Default::default(),
    };
    let formations = super::movement_cmd::formations(&game, &viewer);
    if a.format == Format::Json {
        return super::print_json(&json!({
            "turn": game.state.turn, "phasing": game.state.phasing(), "step": game.state.step,
            "sides": sides, "commands": commands, "positions": positions, "units": units,
            "orders": order_log(&game, &viewer), "last_seen": last_seen, "formations": formations,
        }));
    }
    print_where_for(&game, &viewer);
    if !last_seen.is_empty() {
        println!("enemy out of sight (4.0):");
    }
    for (piece, l) in &last_seen {
        println!(
            "  {piece}: last seen at {} (turn {}) in {}",
            l.time, l.turn, l.hex
        );
    }
    println!("\ncommands:");
    for c in &commands {
        let order = c["order"]
            .as_u64()
            .map(|n| format!(" order {n}"))
            .unwrap_or_default();
        let wrecked = if c["wrecked"] == true {
            ", WRECKED"
        } else {
            ""
        };
        // Talavera T2.4: on loan to the army commander, or barred to him.
        let loan = c["loan"]
            .as_str()
            .map(|l| format!(", {l}"))
            .unwrap_or_default();
        if let Some(parent) = c["follows"].as_str() {
            println!(
                "  {:<16} {:<10} acts on {parent}'s orders{wrecked}{loan}",
                c["command"].as_str().unwrap_or(""),
                c["side"].as_str().unwrap_or("")
            );
            continue;
        }
        println!(
            "  {:<16} {:<10} {}{order}{wrecked}{loan}",
            c["command"].as_str().unwrap_or(""),
            c["side"].as_str().unwrap_or(""),
            c["status"].as_str().unwrap_or("")
        );
    }
    println!("\npositions ({} visible):", positions.len());
    for (p, h) in &positions {
        println!("  {p:<20} {h}");
    }
    super::movement_cmd::print_formations(&formations);
    let hurt: Vec<&serde_json::Value> = units
        .iter()
        .filter(|u| {
            u["permanent"] != 0
                || u["stragglers"] != 0
                || u["skirmisher_losses"] != 0
                || u["morale"] != "normal"
                || u["blown"] == true
        })
        .collect();
    if !hurt.is_empty() {
        println!("\nlosses (P (S) <n>, boxes left of the loss chart; 7.1, 20.4):");
        for u in hurt {
            let wrecked = if u["wrecked"] == true {
                ", WRECKED"
            } else {
                ""
            };
            let morale = u["morale"].as_str().unwrap_or("");
            let morale = if morale == "normal" {
                String::new()
            } else {
                format!(", {morale}")
            };
            println!(
                "  {:<20} {} ({}) <{}>   {} of {} boxes left{morale}{wrecked}",
                u["unit"].as_str().unwrap_or(""),
                u["permanent"],
                u["stragglers"],
                u["skirmisher_losses"],
                u["remaining"],
                u["boxes"],
            );
        }
    }
    Ok(())
}

pub fn log(a: LogArgs) -> CmdResult {
    let game = open(&a.db)?;
    let viewer = a.view.viewer();
    let events = game
        .store
        .events()
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let visible = crate::game::visible(&events, &viewer);
    let orders = order_log(&game, &viewer);
    if a.format == Format::Json {
        let evs: Vec<serde_json::Value> = visible
            .iter()
            .map(|e| json!({"seq": e.seq, "event": e.event, "hash": e.hash}))
            .collect();
        return super::print_json(
            &json!({"viewer": match &viewer { Viewer::Umpire => "umpire".to_string(), Viewer::Side(s) => s.clone() }, "orders": orders, "events": evs}),
        );
    }
    println!(
        "Order Log (6.4.5){}:",
        match &viewer {
            Viewer::Umpire => " — umpire".into(),
            Viewer::Side(s) => format!(" — {s}"),
        }
    );
    println!(
        "  {:>3}  {:<6} {:<6} {:<10} {:<14} {:<10} {:<8} status",
        "no", "sent", "arrive", "sender", "receiver", "method", "type"
    );
    for o in &game.state.orders {
        let (_, o) = o;
        if let Viewer::Side(s) = &viewer
            && &o.side != s
        {
            continue;
        }
        let t = |n: u32| {
            game.engine()
                .turn_info(n)
                .map(|i| i.time.format("%H:%M").to_string())
                .unwrap_or_else(|| "start".into())
        };
        let method = o
            .method
            .map_or("—".to_string(), |m| format!("{m:?}").to_lowercase());
        println!(
            "  {:>3}  {:<6} {:<6} {:<10} {:<14} {:<10} {:<8} {}",
            o.number,
            t(o.sent_turn),
            t(o.arrival_turn),
            o.sender,
            o.recipient,
            method,
            format!("{:?}", o.order_type).to_lowercase(),
            status_text(&o.status)
        );
        println!("       \"{}\"", o.text.trim());
        println!("       read back: {}", o.readback);
    }
    println!("\nEvents ({} of {} visible):", visible.len(), events.len());
    for e in visible {
        println!(
            "  #{:<4} t{:<3} {}",
            e.seq,
            e.event.turn,
            describe(&e.event)
        );
    }
    Ok(())
}

pub fn replay(a: ReplayArgs) -> CmdResult {
    let game = open(&a.db)?;
    let state = game
        .state_at(a.to_turn)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let verification = if a.verify {
        Some(game.verify().map_err(|e| Failure::Usage(e.to_string()))?)
    } else {
        None
    };
    let ok = verification.as_ref().is_none_or(|v| v.ok());
    if a.format == Format::Json {
        super::print_json(
            &json!({"turn": state.turn, "events": state.events, "orders": state.orders.len(), "verification": verification, "ok": ok}),
        )?;
    } else {
        println!(
            "played back {} events: turn {}, {} orders",
            state.events,
            state.turn,
            state.orders.len()
        );
        if let Some(v) = &verification {
            match (
                &v.chain_broken_at,
                &v.first_difference,
                &v.resimulation_skipped,
            ) {
                (Some(seq), _, _) => println!(
                    "verify: FAILED — the hash chain breaks at event {seq} (its payload or hash was altered)"
                ),
                (None, Some(d), _) => println!(
                    "verify: FAILED — re-simulation differs at event {} (command {}):\n  recorded:    {}\n  resimulated: {}",
                    d.seq, d.command_seq, d.recorded, d.resimulated
                ),
                (None, None, Some(why)) => println!(
                    "verify: hash chain ok over {} events; re-simulation skipped: {why}",
                    v.events
                ),
                (None, None, None) => println!(
                    "verify: ok — hash chain intact over {} events, {} commands re-simulated byte for byte (last hash {})",
                    v.events,
                    v.commands,
                    &v.last_hash[..16]
                ),
            }
        }
    }
    if ok { Ok(()) } else { Err(Failure::Judged) }
}

pub fn branch(a: BranchArgs) -> CmdResult {
    let game = open(&a.db)?;
    let new = game
        .branch(&a.out, a.at_turn, a.seed, now())
        .map_err(game_error)?;
    if a.format == Format::Json {
        return super::print_json(
            &json!({"ok": true, "out": a.out, "turn": new.state.turn, "events": new.state.events}),
        );
    }
    println!(
        "branched {} at turn {} into {} ({} events kept)",
        a.db.display(),
        a.at_turn,
        a.out.display(),
        new.state.events
    );
    print_where(&new);
    Ok(())
}

/// One line describing an event for people.
pub(crate) fn describe(e: &Event) -> String {
    let dice = |d: &[crate::rules::dice::Die]| {
        d.iter()
            .map(|x| x.value.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    match &e.kind {
        EventKind::GameStarted { scenario_id, .. } => format!("game started: {scenario_id}"),
        EventKind::PresetOrder { order } => format!(
            "pre-set order {} for {}: \"{}\" ({})",
            order.number,
            order.recipient,
            order.text,
            status_text(&order.status)
        ),
        EventKind::CommandPhaseBegan {
            side,
            command_points,
            commander_with_hq,
        } => format!(
            "{side} Command Phase: {command_points} command points (6.4.1){}",
            if *commander_with_hq {
                ""
            } else {
                "; army commander away from HQ: in-person orders only (6.4.6)"
            }
        ),
        EventKind::StepBegan { side, step } => format!("— {side}: {step:?} —"),
        EventKind::TurnBegan { new_turn, time } => format!("=== turn {new_turn}, {time} ==="),
        EventKind::GameEnded { last_turn } => format!("the game ends after turn {last_turn}"),
        EventKind::OrderIssued { order } => format!(
            "order {} to {}: {} — {:?}, cost {} CP, arrives turn {}",
            order.number,
            order.recipient,
            order.readback,
            order.order_type,
            order.cost,
            order.arrival_turn
        ),
        EventKind::OrderArrived { order } => format!("order {order} arrived"),
        EventKind::AcceptanceRolled {
            order,
            number,
            column,
            roll,
            result,
            provenance,
            ..
        } => format!(
            "order {order}: acceptance number {number} (column {column}), rolled {roll} → {result}{}",
            if *provenance == crate::provenance::Provenance::Assumed {
                " [assumed cell]"
            } else {
                ""
            }
        ),
        EventKind::OrderAccepted { order, implemented } => {
            format!(
                "order {order} accepted{}",
                if *implemented {
                    ""
                } else {
                    "; waits for the corps commander at his HQ (6.5.1)"
                }
            )
        }
        EventKind::OrderImplemented { order } => format!("order {order} implemented"),
        EventKind::OrderDelayed { order, needs } => {
            format!(
                "order {order} delayed: from next turn a {needs} or more on one die accepts it (6.5.2)"
            )
        }
        EventKind::DelayRolled {
            order,
            needs,
            dice: d,
            accepted,
        } => {
            format!(
                "order {order} in delay D{needs}: rolled {} → {}",
                dice(d),
                if *accepted {
                    "accepted"
                } else {
                    "still delayed"
                }
            )
        }
        EventKind::OrderDistorted { order } => format!("order {order} DISTORTED (6.5.3)"),
        EventKind::DistortionDiscoveryRolled {
            command,
            dice: d,
            discovered,
        } => format!(
            "discovery roll for {command}: {} → {}",
            dice(d),
            if *discovered {
                "distortion discovered; new orders may be sent"
            } else {
                "not yet noticed"
            }
        ),
        EventKind::OrderDiscarded { order, reason } => format!("order {order} discarded: {reason}"),
        EventKind::InitiativeRolled {
            command,
            commander,
            column,
            roll,
            result,
            ..
        } => {
            format!(
                "{commander} rolls for initiative for {command}: column {column}, rolled {roll} → {result:?}"
            )
        }
        EventKind::DefaultDefenseDeclared { command } => {
            format!("{command} adopts Default Defense (6.6.2)")
        }
        EventKind::WithdrawalBegan { command, cause } => {
            format!("{command} executes an Emergency Withdrawal ({cause:?}, 6.6.3)")
        }
        EventKind::StragglerCheck {
            unit,
            needs,
            dice: d,
            straggler,
        } => {
            format!(
                "{unit} morale check (needs {needs}): rolled {} → {}",
                dice(d),
                if *straggler { "1 straggler" } else { "passed" }
            )
        }
        EventKind::StoppageChecked {
            command,
            sub_units,
            wrecked,
            result,
            rating,
            needed,
            night,
            roll,
            passed,
            ..
        } => format!(
            "attack stoppage for {command}: {wrecked} of {sub_units} wrecked → result {result}, rating {rating} needs {needed}{}; rolled {roll} → {}",
            if *night { " (night −3)" } else { "" },
            if *passed {
                "attack continues"
            } else {
                "ATTACK STOPS"
            }
        ),
        EventKind::StatusChanged {
            command,
            status,
            reason,
        } => format!("{command} now {status:?}: {reason}"),
        EventKind::StageAdvanced { command, stage } => {
            format!("{command} moves on to stage {}", stage + 1)
        }
        EventKind::PieceMoved {
            piece,
            from,
            to,
            path,
            half_mp,
        } => {
            let via = if path.len() > 2 {
                let mid: Vec<String> = path[1..path.len() - 1]
                    .iter()
                    .map(|h| h.to_string())
                    .collect();
                format!(" via {}", mid.join(" "))
            } else {
                String::new()
            };
            let cost = half_mp
                .map(|m| format!(" ({} MP)", crate::movement::tables::show_halves(m)))
                .unwrap_or_default();
            format!(
                "{piece} moves {}→ {to}{via}{cost}",
                from.map(|f| format!("{f} ")).unwrap_or_default()
            )
        }
        EventKind::FormationChanged {
            unit,
            from,
            to,
            half_mp,
            rule,
        } => format!(
            "{unit} changes formation {from:?} → {to:?} ({} MP, {rule})",
            crate::movement::tables::show_halves(*half_mp)
        ),
        e @ (EventKind::FacingChanged { .. }
        | EventKind::MovementPointsLost { .. }
        | EventKind::AllowanceHalved { .. }
        | EventKind::LineExtended { .. }
        | EventKind::LineRetracted { .. }) => crate::cli::movement_cmd::describe(e),
        EventKind::MovementCheck {
            unit,
            rule,
            need,
            dice: d,
            passed,
        } => format!(
            "{unit}: Morale Check for {rule}, needs {need}: rolled {} → {}",
            dice(d),
            if *passed { "passed" } else { "failed" }
        ),
        EventKind::MoraleDegraded {
            unit,
            morale,
            rule,
            reason,
        } => format!("{unit} falls to {} ({rule}: {reason})", morale.short()),
        EventKind::ReinforcementRolled {
            group,
            dice: d,
            arrives,
        } => {
            format!(
                "reinforcement {group}: rolled {} → {}",
                dice(d),
                if *arrives {
                    "arrives this turn"
                } else {
                    "not yet"
                }
            )
        }
        EventKind::ReinforcementArrived { group, hex, pieces } => format!(
            "reinforcement {group} enters at {hex}: {}",
            pieces.join(", ")
        ),
        EventKind::WreckedChanged { command, wrecked } => format!(
            "{command} {}",
            if *wrecked {
                "is wrecked"
            } else {
                "is no longer wrecked"
            }
        ),
        EventKind::CommanderLost { command, lost } => format!(
            "{command}'s commander {}",
            if *lost { "is lost" } else { "is restored" }
        ),
        EventKind::CommandRangeChecked { out_of_command } => {
            if out_of_command.is_empty() {
                "command range: all in command (6.11)".into()
            } else {
                format!(
                    "command range: out of command: {}",
                    out_of_command.join(", ")
                )
            }
        }
        EventKind::CombatResolved {
            combat,
            attackers,
            defenders,
            outcome,
            attacker_retreat,
            defender_retreat,
        } => format!(
            "{}: {} against {} → {outcome}; attacker retreat {attacker_retreat:?}, defender retreat {defender_retreat:?}",
            match combat {
                crate::engine::CombatKind::CloseCombat { .. } => "close combat (15)",
                crate::engine::CombatKind::Charge { .. } => "cavalry charge (16)",
                crate::engine::CombatKind::ArtilleryFire { .. } => "artillery fire (17)",
                crate::engine::CombatKind::SkirmisherFire { .. } => "skirmisher fire (18)",
            },
            attackers.join("+"),
            defenders.join("+")
        ),
        EventKind::CombatDice { dice: d, cells, .. } => format!(
            "combat dice {}{}",
            dice(d),
            if cells.is_empty() {
                String::new()
            } else {
                format!(" ({} non-seed table cells used)", cells.len())
            }
        ),
        EventKind::UnitLossesTaken { unit, losses } => format!(
            "{unit} loses {} permanent, {} stragglers, morale {:+} → {:?}; {} of {} boxes left",
            losses.permanent,
            losses.stragglers,
            losses.morale_change,
            losses.morale_after,
            losses.track.remaining(),
            losses.track.boxes
        ),
        EventKind::CommanderReplaced { command, old, new } => {
            format!("{new} takes command of {command} in place of {old} (25)")
        }
        EventKind::HqOverrun { hq, by, hex, .. } => {
            format!("{hq} overrun at {hex} by {by} (6.10.2)")
        }
        EventKind::UnitRallied {
            unit,
            stragglers_recovered,
            morale_after,
            blown,
            ..
        } => format!(
            "rally phase: {unit} recovers {stragglers_recovered} straggler(s), now {morale_after:?}{}",
            if *blown { ", Blown" } else { "" }
        ),
        EventKind::SubUnitTransferred { command, to, order } => {
            format!("{command} joins {to} (order {order}, 6.9)")
        }
        EventKind::TemporaryDivisionFormed {
            division,
            commander,
            members,
            order,
        } => format!(
            "{division} is formed by order {order} under {commander}: {} (V2.3)",
            members.join(", ")
        ),
        EventKind::TemporaryDivisionDissolved { division, reason } => {
            format!("{division} ceases to exist: {reason}")
        }
        EventKind::ArmyCommanderReplaced {
            old, new, reason, ..
        } => format!("{new} replaces {old} in command: {reason}"),
        EventKind::ReleaseRolled {
            order,
            commander,
            number,
            penalty,
            roll,
            result,
            ..
        } => format!(
            "order {order}: {commander}'s release roll (T2.4), number {number}{} → rolled {roll} → {result}",
            if *penalty < 0 {
                format!(" (incl. {penalty} for divisions already borrowed)")
            } else {
                String::new()
            }
        ),
        EventKind::DivisionBorrowed { division, order } => {
            format!("{division} is on loan to the army commander by order {order} (T2.4)")
        }
        EventKind::DivisionBarred { division, .. } => {
            format!("{division} may never again be ordered by the army commander (T2.4)")
        }
        EventKind::DivisionReturned { division, wrecked } => format!(
            "{division} returns to its corps{} (T2.4)",
            if *wrecked {
                " wrecked: its borrowing still counts"
            } else {
                ""
            }
        ),
        EventKind::RelayAccepted { order, by } => {
            format!("{by} accepts order {order} and carries it on (T4.2b)")
        }
        EventKind::OrderRelayed { order, by } => {
            format!("{by} re-issues order {order} in person to its recipient (T4.2b)")
        }
        EventKind::SpecialRuleRolled {
            rule,
            dice: d,
            happens,
        } => {
            format!(
                "{rule}: rolled {} → {}",
                dice(d),
                if *happens {
                    "it happens"
                } else {
                    "nothing yet"
                }
            )
        }
        EventKind::RandomEventChecked {
            dice: d,
            outcome,
            text,
            ..
        } => {
            use crate::engine::event::RandomEventOutcome as O;
            let mark = match outcome {
                O::Nothing => "",
                O::NoEvent => " [no event]",
                O::Applied => " [applied]",
                O::Umpire => " [UMPIRE: apply by hand]",
            };
            format!("random events, dice {}: {text}{mark}", dice(d))
        }
        EventKind::Override { reason, action } => format!("UMPIRE OVERRIDE ({reason}): {action}"),
        EventKind::UnitStateSet {
            unit,
            track,
            morale,
            blown,
        } => format!(
            "umpire sets {unit}: {} permanent, {} stragglers ({} of {} boxes left), {morale:?}{}",
            track.permanent,
            track.stragglers,
            track.remaining(),
            track.boxes,
            if *blown { ", Blown" } else { "" }
        ),
    }
}
