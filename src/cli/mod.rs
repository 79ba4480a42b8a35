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
mod odds_cmd;
mod odds_combat;
mod rules_cmd;
mod scenario_cmd;
mod serve_cmd;
mod simulate_cmd;

pub use odds_cmd::OddsCmd;

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

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
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
    Order(game_cmd::OrderArgs),
    /// Re-issue a relayed order in person to its recipient (Talavera T4.2b: Jourdan).
    Relay(game_cmd::RelayArgs),
    /// Run the automatic steps up to the next one that needs a person (5.1).
    Turn(game_cmd::TurnArgs),
    /// Roll for Initiative for a command (6.6.1); the order is written if it succeeds.
    Initiative(game_cmd::InitiativeArgs),
    /// Write the one-turn order of an enemy command that suffered a Loose Cannon (6.6.1.6).
    LooseCannon(game_cmd::LooseCannonArgs),
    /// Adopt Default Defense for a command (6.6.2).
    DefaultDefense(game_cmd::CommandArgs),
    /// Execute a voluntary Emergency Withdrawal (6.6.3).
    Withdraw(game_cmd::CommandArgs),
    /// Mark the current stage of a command's order complete (6.3.3).
    Stage(game_cmd::CommandArgs),
    /// Move a commander, HQ (`hq:<formation>`) or unit to a hex.
    Move(game_cmd::MoveArgs),
    /// Resolve a close combat, cavalry charge or artillery fire; losses feed wrecks and stoppage.
    Combat(game_cmd::CombatArgs),
    /// Umpire override, recorded with a reason and hidden from the sides.
    Override(game_cmd::OverrideArgs),
    /// Show the game's state as the umpire or one side may see it.
    Status(game_cmd::LogArgs),
    /// Show the Order Log (6.4.5) and the events as the umpire or one side may see them.
    Log(game_cmd::LogArgs),
    /// Play the recorded events back; `--verify` checks the hash chain and re-simulates.
    Replay(game_cmd::ReplayArgs),
    /// Copy a game up to a turn into a new file, for other orders or other dice.
    Branch(game_cmd::BranchArgs),
    /// Run conformance cases (by default the project's own suite in tests/conformance).
    Conformance(conformance_cmd::ConformanceArgs),
    /// Print the command tables (chart p1), or the Random Events table (29), with the provenance
    /// of every cell.
    #[command(subcommand)]
    Rules(rules_cmd::RulesCmd),
    /// Exact odds of acceptance, initiative, attack stoppage and combat, by enumerating the dice.
    Odds(OddsArgs),
    /// Draw many checks with the seeded dice and compare with the exact odds.
    #[command(subcommand)]
    Simulate(simulate_cmd::SimulateCmd),
    /// Read orders, classify and criticise them (docs/order-language.md).
    Check(check_cmd::CheckArgs),
    /// Serve one game as a web table: a page per seat (umpire, each side, observer), join links.
    Serve(serve_cmd::ServeArgs),
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
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Entry point used by the binary: parse, set up logging, run, map the result to an exit code.
pub fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let cli = Cli::parse();
    init_tracing();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Judged) => ExitCode::from(1),
        Err(Failure::Usage(msg)) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

/// `staffwork log … | head` closes stdout early; like other command-line tools, stop quietly
/// instead of reporting a panic from `println!`.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
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
        Command::Turn(a) => game_cmd::turn(a),
        c @ (Command::Order(_)
        | Command::Initiative(_)
        | Command::LooseCannon(_)
        | Command::DefaultDefense(_)
        | Command::Withdraw(_)
        | Command::Stage(_)
        | Command::Move(_)
        | Command::Combat(_)
        | Command::Override(_)
        | Command::Relay(_)) => game_cmd::run_game_command(&c),
        Command::Status(a) => game_cmd::status(a),
        Command::Log(a) => game_cmd::log(a),
        Command::Replay(a) => game_cmd::replay(a),
        Command::Branch(a) => game_cmd::branch(a),
        Command::Conformance(a) => conformance_cmd::run(a),
        Command::Rules(cmd) => rules_cmd::run(cmd),
        Command::Odds(a) => match (a.check, a.db, a.order) {
            (Some(cmd), _, _) => odds_cmd::run(cmd),
            (None, Some(db), Some(n)) => odds_cmd::order_odds(&db, n, a.format),
            _ => Err(Failure::Usage(
                "give a check (`odds acceptance …`, `odds close-combat …`) or a game order (`odds --db GAME.db --order N`); see `staffwork odds --help`".into(),
            )),
        },
        Command::Simulate(cmd) => simulate_cmd::run(cmd),
        Command::Check(args) => check_cmd::run(args),
        Command::Serve(a) => serve_cmd::run(a),
    }
}

/// Print a value as pretty JSON on stdout.
pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> CmdResult {
    let s = serde_json::to_string_pretty(value).map_err(|e| Failure::Usage(e.to_string()))?;
    println!("{s}");
    Ok(())
}

/// The command tables in force and their text (stored in a game): a user's file, checked like
/// every table file (`odds_cmd::load_tables`), or the bundled NBS v3.0 tables.
pub(crate) fn load_tables(
    path: Option<&std::path::Path>,
) -> Result<(String, crate::rules::tables::CommandTables), Failure> {
    let tables = odds_cmd::load_tables(path, Format::Text)?.into_owned();
    let text = match path {
        None => crate::rules::tables::DEFAULT_TABLES_TOML.to_string(),
        Some(p) => std::fs::read_to_string(p)
            .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", p.display())))?,
    };
    Ok((text, tables))
}
