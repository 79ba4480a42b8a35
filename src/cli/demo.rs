//! `staffwork demo`: a scripted game on the tutorial scenario. It writes orders from the
//! rulebook's order-writing example, runs turns through acceptance, delay, distortion and its
//! discovery, an initiative roll, an attack stoppage check and an emergency withdrawal, prints the
//! umpire's log and one side's view, then replays the file with verification.
//!
//! Every step is an ordinary CLI command line, printed before it runs, so the demo also teaches
//! the commands. The dice are the game's own (seed [`DEMO_SEED`], chosen so that the short game
//! shows every kind of result); a test checks that it still does.

use std::path::PathBuf;

use clap::Args;

use super::{CmdResult, Failure};
use crate::app::{self, AppError, Request, Response};
use crate::game::Game;
use crate::view::Viewer;

/// Seed whose dice show a delay, a distortion and its discovery, an initiative roll and a failed
/// attack stoppage within the script (checked by a test).
pub const DEMO_SEED: u64 = 183;

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Where to write the demo game (replaced if it exists).
    #[arg(long, default_value = "staffwork-demo.db")]
    pub db: PathBuf,
    /// Seed of the dice (the default shows every kind of result).
    #[arg(long, default_value_t = DEMO_SEED)]
    pub seed: u64,
    /// Print only the summary.
    #[arg(long)]
    pub quiet: bool,
}

/// The script: a caption and a command line (without `--db`).
pub const SCRIPT: &[(&str, &str)] = &[
    (
        "08:00, the Imperial Command Phase. Marshal Davrange (rating 3) has 15 command points (6.4.1). \
A General order to 3rd Division, written: 5 + 1 = 6 points; the aide rides 3 MP along the road, one turn (6.4.7).",
        r#"order --side imperial --method written "3rd Div: march over Hinzeberg to Kümla and defend it from attacks from the north.""#,
    ),
    (
        "An Engage order to 2nd Division, sent orally to save points: 2 + 5 = 7.",
        r#"order --side imperial --method oral "2nd Div: attack up the Säter road and capture Hall.""#,
    ),
    (
        "A third order would cost 6 with only 2 points left: refused, and nothing is written.",
        r#"order --side imperial --method written "4th Div: march to Kirseberg and defend the bridge there.""#,
    ),
    (
        "Close the Command Phase (attack stoppage, delay reduction, acceptance), then the Imperial operations.",
        "turn",
    ),
    ("The Allied turn begins.", "turn"),
    (
        "General Rosenblad tries to seize the initiative for the Hall Division (6.6.1).",
        r#"initiative --commander rosenblad "Hall Div: attack along the Hinzeberg road and capture Hinzeberg.""#,
    ),
    (
        "On to 08:30: the aides reach 3rd and 2nd Divisions.",
        "turn --until-turn 2",
    ),
    (
        "The 4th Division's order, now affordable.",
        r#"order --side imperial --method written "4th Div: march to Kirseberg and defend the bridge there.""#,
    ),
    (
        "New Order Acceptance: each arrived order is rolled for on 11..66 (6.5).",
        "turn",
    ),
    (
        "The umpire rules that the Allied fire has broken a brigade of 2nd Division (21.6).",
        r#"override --reason "2-2-I broken by the guns of Hall" --wreck 2-2-i"#,
    ),
    (
        "On to 09:00: a distorted order may be discovered on a 5 or 6 (6.5.3).",
        "turn --until-turn 3",
    ),
    (
        "The corps light cavalry, caught in the open by the Allied hussars, withdraws (6.6.3).",
        "withdraw --command cav-i",
    ),
    (
        "Attack stoppage for every command under Engage orders, delay reduction, acceptance.",
        "turn",
    ),
    ("On to 09:30.", "turn --until-turn 4"),
    ("", "turn"),
    ("On to 10:00.", "turn --until-turn 5"),
    ("", "turn"),
    (
        "The end of the Imperial turn: any withdrawal ends in straggler checks and No Orders (6.6.3.6–7).",
        "turn",
    ),
];

pub fn run(a: DemoArgs) -> CmdResult {
    if a.db.exists() {
        std::fs::remove_file(&a.db)
            .map_err(|e| Failure::Usage(format!("cannot replace {}: {e}", a.db.display())))?;
        for ext in ["-wal", "-shm"] {
            let side = PathBuf::from(format!("{}{ext}", a.db.display()));
            let _ = std::fs::remove_file(side);
        }
    }
    let mut game = play(&a.db, a.seed, !a.quiet)?;
    println!(
        "\n==> The umpire's Order Log (rule 6.4.5): staffwork log --db {} --umpire",
        a.db.display()
    );
    if !a.quiet {
        print_order_log(&game);
    }
    println!(
        "\n==> What the Allied player sees: staffwork status --db {} --side allied",
        a.db.display()
    );
    if !a.quiet {
        let allied = Viewer::Side("allied".into());
        match app::execute(&mut game, &allied, &Request::Status) {
            Ok(Response::Status(view)) => super::game_cmd::print_status(&view),
            Ok(_) => return Err(Failure::Usage("status: unexpected response".into())),
            Err(e) => return Err(Failure::Usage(e.to_string())),
        }
    }
    println!(
        "\n==> Replaying the file: staffwork replay --db {} --verify",
        a.db.display()
    );
    let v = game.verify().map_err(|e| Failure::Usage(e.to_string()))?;
    game.state = game
        .state_at(None)
        .map_err(|e| Failure::Usage(e.to_string()))?;
    if v.ok() {
        println!(
            "verified: the hash chain holds over {} events and re-simulating {} commands from seed {} reproduced every event byte for byte.",
            v.events, v.commands, a.seed
        );
    } else {
        println!("VERIFICATION FAILED: {v:?}");
        return Err(Failure::Judged);
    }
    println!(
        "\nThe game is in {} — open it with `staffwork log --db {}` or with the sqlite3 shell (see docs/replay.md).",
        a.db.display(),
        a.db.display()
    );
    Ok(())
}

/// Play the script into a new game file, each line a request executed by the application
/// layer as the umpire.
pub fn play(db: &std::path::Path, seed: u64, verbose: bool) -> Result<Game, Failure> {
    let mut new = app::prepare_new(&app::NewRequest {
        scenario: "tutorial-hall".into(),
        seed,
        tables: None,
        combat_tables: None,
        movement_tables: None,
        variant: Vec::new(),
    })
    .map_err(|e| Failure::Usage(e.to_string()))?;
    new.created_at = String::from("demo");
    let (mut game, _) = app::create(Some(db), new).map_err(|e| Failure::Usage(e.to_string()))?;
    if verbose {
        println!(
            "staffwork demo — {} (seed {seed})",
            game.scenario.meta.title
        );
        println!(
            "$ staffwork new --scenario tutorial-hall --db {} --seed {seed}",
            db.display()
        );
    }
    for (caption, line) in SCRIPT {
        if verbose {
            if !caption.is_empty() {
                println!("\n# {caption}");
            }
            println!("$ staffwork {line} --db {}", db.display());
        }
        let request = app::parse_request(line).map_err(Failure::Usage)?;
        match app::execute(&mut game, &Viewer::Umpire, &request) {
            Ok(Response::Applied(a)) => {
                if verbose {
                    for e in &a.events {
                        println!("  {}", crate::text::visible(&e.describe()));
                    }
                }
            }
            Ok(_) => return Err(Failure::Usage(format!("`{line}` is not a game command"))),
            Err(AppError::Refused(r)) => {
                if verbose {
                    println!(
                        "  refused [{}] (rule {}): {}\n  help: {}",
                        r.code, r.rule, r.message, r.help
                    );
                }
            }
            Err(AppError::Order(c)) => {
                return Err(Failure::Usage(format!(
                    "demo order has errors: {:?}",
                    c.diagnostics
                )));
            }
            Err(e) => return Err(Failure::Usage(e.to_string())),
        }
    }
    Ok(game)
}

fn print_order_log(game: &Game) {
    for o in game.state.orders.values() {
        println!(
            "  {:>2}. {:<8} → {:<10} {:<9} {:<8} sent t{} arr t{}  {:?}",
            o.number,
            o.sender,
            o.recipient,
            o.method
                .map_or("—".to_string(), |m| format!("{m:?}").to_lowercase()),
            format!("{:?}", o.order_type).to_lowercase(),
            o.sent_turn,
            o.arrival_turn,
            o.status
        );
        println!("      read back: {}", o.readback);
    }
}
