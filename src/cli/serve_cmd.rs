//! `staffwork serve`: the web table for one game (issue 15, `docs/web.md`).
//!
//! Parses the arguments, creates the demo game if asked, binds the address (127.0.0.1 by
//! default; anything else says loudly that the table is open to the network), prints one join
//! link per seat and runs the server until ctrl-c. Owns printing for the web table; the server
//! itself is `crate::web`.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use super::{CmdResult, Failure, Format};
use crate::web::seats::Seat;

/// Seed of the demo game's dice.
pub const DEMO_SEED: u64 = 1808;

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
staffwork serve --demo                     # Vimeiro in a temporary file, links printed\n  \
staffwork serve --demo --scenario tutorial-hall --db hall.db   # the tutorial, kept in hall.db\n  \
staffwork serve --db vimeiro.db            # serve an existing game on 127.0.0.1:8080\n  \
staffwork serve --db g.db --reissue        # print new links for every seat (old ones stop working)\n  \
staffwork serve --db g.db --addr 0.0.0.0:8080   # a LAN game: anyone who can reach the port and has a link\n\n\
Each seat (umpire, each side, observer) gets a join link with a secret token; only its SHA-256 is \
kept in the game file. Restarting keeps the links valid. Stop with ctrl-c: every command is one \
transaction, so a game stopped at any moment reopens and verifies.")]
pub struct ServeArgs {
    /// The game file to serve (with --demo: where to create the demo game; default a temporary
    /// directory).
    #[arg(long, required_unless_present = "demo")]
    pub db: Option<PathBuf>,
    /// Address to listen on. 127.0.0.1 (this computer only) by default; 0.0.0.0:PORT opens the
    /// table to the local network.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Create the bundled demo game (Vimeiro, 1808) and serve it.
    #[arg(long)]
    pub demo: bool,
    /// The bundled scenario of the demo game (`staffwork scenario list` shows them).
    #[arg(long, default_value = "vimeiro-1808", requires = "demo")]
    pub scenario: String,
    /// Revoke every seat's link and print new ones.
    #[arg(long)]
    pub reissue: bool,
    /// Print the links as JSON (`{"url": …, "links": {seat: link}}`) before serving.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

fn create_demo(db: &std::path::Path, name: &str) -> Result<(), Failure> {
    let new = crate::app::prepare_new(&crate::app::NewRequest {
        scenario: name.to_string(),
        seed: DEMO_SEED,
        tables: None,
        combat_tables: None,
        movement_tables: None,
        variant: Vec::new(),
    })
    .map_err(|e| Failure::Usage(format!("demo game: {e}")))?;
    crate::app::create(Some(db), new).map_err(|e| Failure::Usage(e.to_string()))?;
    Ok(())
}

pub fn run(a: ServeArgs) -> CmdResult {
    let (db, _tmp) = match (&a.db, a.demo) {
        (Some(db), true) => {
            if !db.exists() {
                create_demo(db, &a.scenario)?;
            }
            (db.clone(), None)
        }
        (None, true) => {
            let dir = std::env::temp_dir().join(format!("staffwork-demo-{}", std::process::id()));
            std::fs::create_dir_all(&dir)
                .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", dir.display())))?;
            let db = dir.join("vimeiro.db");
            let _ = std::fs::remove_file(&db);
            create_demo(&db, &a.scenario)?;
            (db, Some(dir))
        }
        (Some(db), false) => (db.clone(), None),
        (None, false) => return Err(Failure::Usage("give --db GAME.db or --demo".into())),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::Usage(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(a.addr)
            .await
            .map_err(|e| Failure::Usage(format!("cannot listen on {}: {e}", a.addr)))?;
        let bound = listener
            .local_addr()
            .map_err(|e| Failure::Usage(e.to_string()))?;
        let host = if bound.ip().is_unspecified() {
            format!("127.0.0.1:{}", bound.port())
        } else {
            bound.to_string()
        };
        let base = format!("http://{host}");
        let (state, issued) = crate::web::AppState::open(&db, &base, a.reissue)
            .map_err(|e| Failure::Usage(e.to_string()))?;
        print_links(&db, &base, bound, &issued, a.format)?;
        crate::web::serve(listener, state)
            .await
            .map_err(|e| Failure::Usage(format!("the server stopped: {e}")))
    })
}

fn print_links(
    db: &std::path::Path,
    base: &str,
    bound: SocketAddr,
    issued: &[(Seat, String)],
    format: Format,
) -> CmdResult {
    if format == Format::Json {
        let links: serde_json::Map<String, serde_json::Value> =
            issued.iter().map(|(s, l)| (s.key(), json!(l))).collect();
        super::out::emit_json(&json!({"url": base, "db": db, "links": links}))?;
    } else {
        println!("staffwork web table for {} at {base}", db.display());
        if issued.is_empty() {
            println!(
                "every seat's link was issued earlier and is still valid (only hashes are kept); \
                 `--reissue` prints new ones"
            );
        }
        for (seat, link) in issued {
            println!("  {:<16} {link}", seat.key());
        }
        println!("Give each player only their own link. Stop with ctrl-c.");
    }
    if !bound.ip().is_loopback() {
        eprintln!(
            "WARNING: listening on {bound}: ANYONE WHO CAN REACH THIS PORT ON YOUR NETWORK CAN \
             CONNECT. Plain HTTP, no TLS: a join link seen on the network is a seat. Use \
             127.0.0.1 unless you mean to play over a trusted LAN."
        );
    }
    use std::io::Write;
    let _ = std::io::stdout().flush();
    Ok(())
}
