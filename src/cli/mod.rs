//! The command-line front end: argument parsing (clap), logging setup (tracing) and printing.
//!
//! `cli` is the only module that prints or installs a tracing subscriber. Each subcommand lives in
//! its own file and turns library results into text or JSON. Exit codes: 0 ok, 1 the input was
//! judged bad (order errors, invalid scenario, failed verification), 2 usage or IO error.

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

pub mod odds_combat;
mod scenario_cmd;

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
    /// Validate and print scenarios.
    #[command(subcommand)]
    Scenario(scenario_cmd::ScenarioCmd),
    /// Exact combat odds (temporary name; to become `odds close-combat|charge|fire`).
    #[command(subcommand, name = "combat-odds")]
    CombatOdds(odds_combat::CombatOddsCmd),
}

/// Entry point used by the binary: parse, set up logging, run, map the result to an exit code.
pub fn main() -> ExitCode {
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
        Command::Scenario(cmd) => scenario_cmd::run(cmd),
        Command::CombatOdds(cmd) => odds_combat::run(cmd),
    }
}

/// Print a value as pretty JSON on stdout.
pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> CmdResult {
    let s = serde_json::to_string_pretty(value).map_err(|e| Failure::Usage(e.to_string()))?;
    println!("{s}");
    Ok(())
}
