//! The command-line front end: argument parsing (clap), logging setup (tracing) and printing.
//!
//! `cli` is the only module that prints or installs a tracing subscriber. Each subcommand lives in
//! its own file and turns library results into text or JSON. Exit codes: 0 ok, 1 the input was
//! judged bad (order errors, invalid scenario, failed verification), 2 usage or IO error.

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod check_cmd;
mod conformance_cmd;
mod demo;
pub(crate) mod game_cmd;
pub(crate) mod movement_cmd;
mod odds_cmd;
mod odds_combat;
mod out;
mod rules_cmd;
mod scenario_cmd;
mod serve_cmd;
mod simulate_cmd;
mod study_cmd;
mod workbench_cmd;

pub use odds_cmd::OddsCmd;
pub(crate) use out::{emit, emit_json};

/// Output format of every command that reports something.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable text.
    #[default]
    Text,
    /// A stable JSON document (see the docs for each command's shape).
    Json,
}

/// Why a command failed, which decides the exit code.
#[derive(Debug)]
pub enum Failure {
    /// The input was read and judged bad (exit 1). The report has already been printed.
    Judged,
    /// Usage or IO error (exit 2), with a message for stderr.
    Usage(String),
}

// Each error converts explicitly, with the exit code it deserves; there is no blanket
// conversion, so a new error type must say whether it is judged (1) or usage/IO (2). Refusals
// and other `app::AppError`s have no `From` on purpose: `game_cmd::report` prints them (text or
// JSON) before choosing the exit code, so a `?` cannot swallow what was refused and why.

/// Reading or writing a file or stream failed: a usage/IO error (exit 2) naming the cause.
impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Usage(e.to_string())
    }
}

/// Result of running one subcommand.
pub type CmdResult = Result<(), Failure>;

#[derive(Parser, Debug)]
#[command(
    name = "staffwork",
    version,
    about = "Write Napoleonic orders in plain English and run them through the NBS v3.0 command system.",
    long_about = "staffwork reads orders written the way officers wrote them, checks and classifies \
them (Engage / General / Complex), and runs the command system of the Napoleonic Battle Series v3.0: \
command points, courier delivery, acceptance rolls, delay, distortion, local initiative and attack \
stoppage. Every command and every die is logged to SQLite so games replay exactly.\n\n\
Start with `staffwork demo`, then try `staffwork check` on an order of your own.\n\
Logs go to stderr; set RUST_LOG=debug for detail.",
    after_help = "Exit codes: 0 ok, 1 input judged bad (order errors, invalid scenario, failed verification), 2 usage or IO error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Play a scripted game on the tutorial scenario, from written orders to a verified replay.
    Demo(demo::DemoArgs),
    /// Validate and print scenarios.
    #[command(subcommand)]
    Scenario(scenario_cmd::ScenarioCmd),
    /// Start a new game file from a scenario.
    New(game_cmd::NewArgs),
    /// Send an order: parsed, checked, priced and timed; refused with diagnostics if it has errors.
    Order(game_cmd::OnGame<crate::app::OrderRequest>),
    /// Re-issue a relayed order in person to its recipient (Talavera T4.2b: Jourdan).
    Relay(game_cmd::OnGame<crate::app::RelayRequest>),
    /// Run the automatic steps up to the next one that needs a person (5.1).
    Turn(game_cmd::OnGame<crate::app::TurnRequest>),
    /// Roll for Initiative for a command (6.6.1); the order is written if it succeeds.
    Initiative(game_cmd::OnGame<crate::app::InitiativeRequest>),
    /// Write the one-turn order of an enemy command that suffered a Loose Cannon (6.6.1.6).
    LooseCannon(game_cmd::OnGame<crate::app::LooseCannonRequest>),
    /// Adopt Default Defense for a command (6.6.2).
    DefaultDefense(game_cmd::OnGame<crate::app::CommandRequest>),
    /// Execute a voluntary Emergency Withdrawal (6.6.3).
    Withdraw(game_cmd::OnGame<crate::app::CommandRequest>),
    /// Mark the current stage of a command's order complete (6.3.3).
    Stage(game_cmd::OnGame<crate::app::CommandRequest>),
    /// A message between a side's table and the umpire, seen by that side and the umpire only.
    Message(game_cmd::OnGame<crate::app::MessageRequest>),
    /// Move a commander, HQ (`hq:<formation>`) or unit to a hex.
    Move(game_cmd::OnGame<crate::app::MoveRequest>),
    /// Resolve a close combat, cavalry charge or artillery fire; losses feed wrecks and stoppage.
    Combat(game_cmd::OnGame<crate::app::CombatRequest>),
    /// Umpire override, recorded with a reason and hidden from the sides.
    Override(game_cmd::OnGame<crate::app::OverrideRequest>),
    /// Take back the last command(s) no side could yet have seen (a mistyped move): recorded
    /// as a retraction, replayed and verified; refused after `turn` or once dice were seen.
    Undo(game_cmd::OnGame<crate::app::UndoRequest>),
    /// Show the game's state as the umpire or one side may see it.
    Status(game_cmd::LogArgs),
    /// Show the Order Log (6.4.5) and the events as the umpire or one side may see them.
    Log(game_cmd::LogArgs),
    /// Play the recorded events back; `--verify` checks the hash chain and re-simulates.
    Replay(game_cmd::AsSeat<crate::app::ReplayRequest>),
    /// A keyed digest of the record as it stands, to keep and check later with
    /// `replay --verify --receipt` (a file cut back or rewritten before it fails).
    Receipt(game_cmd::AsSeat<crate::app::ReceiptRequest>),
    /// Copy a game up to a turn into a new file, for other orders or other dice.
    Branch(game_cmd::OnGame<crate::app::BranchRequest>),
    /// Run conformance cases (by default the project's own suite in tests/conformance).
    Conformance(conformance_cmd::ConformanceArgs),
    /// Line of sight from one hex to another (14.1), hex by hex, with this turn's visibility.
    Los(movement_cmd::LosArgs),
    /// The cost and legality of moving a unit (12, chart p2), hex by hex, without moving it.
    Path(movement_cmd::PathArgs),
    /// Print the command tables (chart p1), the Movement Table (chart p2) or the Random Events
    /// table (29), with the provenance of every cell.
    #[command(subcommand)]
    Rules(rules_cmd::RulesCmd),
    /// Exact odds of acceptance, initiative, attack stoppage, combat and Morale Checks, by enumerating the dice.
    Odds(OddsArgs),
    /// Draw many checks with the seeded dice and compare with the exact odds.
    #[command(subcommand)]
    Simulate(simulate_cmd::SimulateCmd),
    /// Read orders, classify and criticise them (docs/order-language.md).
    Check(check_cmd::CheckArgs),
    /// What-if studies: run a plan (orders, initiative, umpire events) thousands of times, compare
    /// two plans, re-run a game with other seeds, merge shards (docs/studies.md).
    Study(study_cmd::StudyArgs),
    /// Serve one game as a web table: a page per seat (umpire, each side, observer), join links.
    Serve(serve_cmd::ServeArgs),
    /// One unit at a glance: position, formation, facing, strength, losses, morale, commander
    /// and the order it acts on — as the seat (`--side S`) may see it.
    Show(workbench_cmd::ShowArgs),
    /// What a side learned in one game turn (arrivals, acceptances, the enemy seen, losses,
    /// messages), as text, JSON or an HTML page to send to the player.
    Report(workbench_cmd::ReportArgs),
}

/// `staffwork odds CHECK …` or `staffwork odds --db GAME.db --order N`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct OddsArgs {
    #[command(subcommand)]
    pub check: Option<OddsCmd>,
    /// A game file: with --order, the odds of that pending order in its real situation.
    #[arg(long, requires = "order")]
    pub db: Option<std::path::PathBuf>,
    /// The order number (see `staffwork log`).
    #[arg(long, requires = "db")]
    pub order: Option<u32>,
    /// With --order: whose seat asks. A side sees the odds of its own orders only.
    #[arg(long, requires = "order", conflicts_with = "umpire")]
    pub side: Option<String>,
    /// With --order: the umpire asks (any order).
    #[arg(long, requires = "order")]
    pub umpire: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Entry point used by the binary: parse, set up logging, run, map the result to an exit code.
pub fn main() -> ExitCode {
    out::quiet_on_closed_pipe();
    let cli = Cli::parse();
    init_tracing();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Judged) => ExitCode::from(1),
        Err(Failure::Usage(msg)) => {
            // Messages echo user input (paths, ids, order words): controls shown, not obeyed.
            eprintln!("error: {}", crate::text::visible(&msg));
            ExitCode::from(2)
        }
    }
}

fn init_tracing() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}

/// Run a parsed command line.
pub fn run(cli: Cli) -> CmdResult {
    match cli.command {
        Command::Demo(a) => demo::run(a),
        Command::Scenario(cmd) => scenario_cmd::run(cmd),
        Command::New(a) => game_cmd::new(a),
        c @ (Command::Order(_)
        | Command::Turn(_)
        | Command::Initiative(_)
        | Command::LooseCannon(_)
        | Command::DefaultDefense(_)
        | Command::Withdraw(_)
        | Command::Stage(_)
        | Command::Message(_)
        | Command::Move(_)
        | Command::Combat(_)
        | Command::Override(_)
        | Command::Undo(_)
        | Command::Relay(_)
        | Command::Status(_)
        | Command::Log(_)
        | Command::Replay(_)
        | Command::Receipt(_)
        | Command::Branch(_)) => game_cmd::run(c),
        Command::Conformance(a) => conformance_cmd::run(a),
        Command::Rules(cmd) => rules_cmd::run(cmd),
        Command::Los(a) => movement_cmd::los(a),
        Command::Path(a) => movement_cmd::path(a),
        Command::Odds(a) => match (a.check, a.db, a.order) {
            (Some(cmd), _, _) => odds_cmd::run(cmd),
            (None, Some(db), Some(n)) if a.side.is_some() || a.umpire => {
                odds_cmd::order_odds(&db, n, a.side.as_deref(), a.format)
            }
            (None, Some(_), Some(_)) => Err(Failure::Usage(
                "say whose odds these are: `--side SIDE` (that side's own orders) or `--umpire`".into(),
            )),
            _ => Err(Failure::Usage(
                "give a check (`odds acceptance …`, `odds close-combat …`) or a game order (`odds --db GAME.db --order N`); see `staffwork odds --help`".into(),
            )),
        },
        Command::Simulate(cmd) => simulate_cmd::run(cmd),
        Command::Check(args) => check_cmd::run(args),
        Command::Study(args) => study_cmd::run(args),
        Command::Serve(a) => serve_cmd::run(a),
        Command::Show(a) => workbench_cmd::show(a),
        Command::Report(a) => workbench_cmd::report(a),
    }
}
