//! The game file against a raw rusqlite baseline, in the same run (issue: replay at no less than
//! half the baseline's speed). Figures go to docs/performance.md.
//!
//! Setup plays one whole game of the bundled tutorial scenario through `Game::execute` (orders
//! from both sides every Command Phase, every Advance to the end), then measures:
//!
//! - `append`: `Store::append` of every recorded command with its events into a fresh file, one
//!   transaction per command, against raw inserts of the same rows (the same payload and hash
//!   strings, precomputed) with the same pragmas (WAL, `synchronous = FULL`), and once more with
//!   `synchronous = OFF` to show what the fsync per transaction costs;
//! - `playback`: `Store::open` + `Store::events`, `Game::open` (parse the stored scenario and
//!   tables, read, fold), and the fold alone, against a raw `SELECT` of the same rows;
//! - `verify`: `Game::verify` (hash chain + re-simulation), for context.
//!
//! Throughput is in events, so criterion prints events/second for every line.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

// The same allocator as the `staffwork` binary (src/main.rs), so the figures are what it does.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use rusqlite::{Connection, TransactionBehavior, params};
use staffwork::engine::{Command, Engine, Event};
use staffwork::game::{Game, NewGame, playback, typed_order};
use staffwork::rules::Method;
use staffwork::rules::tables::CommandTables;
use staffwork::scenario::{bundled, bundled_text};
use staffwork::store::{Store, StoredCommand, StoredEvent};

const SEED: u64 = 183;

/// Orders each side tries to send in its Command Phases (recipient, text), in rotation. A
/// refusal (points, same order still pending, distortion) writes nothing and is skipped.
const IMPERIAL_ORDERS: &[(&str, &str)] = &[
    (
        "div-3",
        "3rd Div: march over Hinzeberg to Kümla and defend it from attacks from the north.",
    ),
    (
        "div-2",
        "2nd Div: attack up the Säter road and capture Hall.",
    ),
    (
        "div-4",
        "4th Div: march to Kirseberg and defend the bridge there.",
    ),
    ("div-2", "2nd Div: defend Hinzeberg."),
    (
        "div-3",
        "3rd Div: attack along the Hinzeberg road and capture Hall.",
    ),
    ("div-4", "4th Div: march to Kümla and defend it."),
];
const ALLIED_ORDERS: &[(&str, &str)] = &[
    ("hall-div", "Hall Division: defend Hall and the Säter road."),
    (
        "hall-div",
        "Hall Div: attack along the Hinzeberg road and capture Hinzeberg.",
    ),
    ("sater-bde", "Säter brigade: march to Hall and defend it."),
];

fn new_game() -> NewGame {
    let (_, text) = bundled_text("tutorial-hall").expect("bundled tutorial");
    let scenario = bundled("tutorial-hall").expect("tutorial scenario loads");
    let mut new = NewGame::on(text.to_string(), scenario, SEED).expect("pre-set orders type");
    new.created_at = String::from("bench");
    new
}

/// Play the whole tutorial game into `db`: every Command Phase each side sends what its points
/// allow from its list, then the game advances; to the last turn.
fn play(db: &Path) -> Game {
    let mut game = Game::create(db, new_game()).expect("game starts");
    let mut next = [0usize; 2];
    while game.state.step != staffwork::engine::Step::GameOver {
        if game.state.step == staffwork::engine::Step::Command {
            let side = game.state.phasing().to_string();
            let (list, k) = if side == "imperial" {
                (IMPERIAL_ORDERS, 0)
            } else {
                (ALLIED_ORDERS, 1)
            };
            let from = game
                .scenario
                .army_commander(&side)
                .map(|c| c.id.clone())
                .expect("army commander");
            for _ in 0..2 {
                let (to, text) = list[next[k] % list.len()];
                next[k] += 1;
                let checked = staffwork::order::check_one(text, Some(&game.scenario), Some(&side));
                let cmd = Command::IssueOrder {
                    side: side.clone(),
                    from: from.clone(),
                    to: to.to_string(),
                    method: if next[k] % 2 == 0 {
                        Method::Oral
                    } else {
                        Method::Written
                    },
                    order: typed_order(&checked),
                };
                let _ = game.execute(&side, &cmd);
            }
        }
        game.execute("umpire", &Command::Advance)
            .expect("advance is never refused before the end");
    }
    game
}

/// The recorded game, grouped by command, as the baseline and the appends need it.
struct Record {
    commands: Vec<StoredCommand>,
    events: Vec<StoredEvent>,
    /// Per command: its payload JSON and its events as `Event` values.
    grouped: Vec<(StoredCommand, Vec<Event>)>,
    command_json: Vec<String>,
}

fn record(game: &Game) -> Record {
    let commands = game.store.commands().expect("commands");
    let events = game.store.events().expect("events");
    let grouped = commands
        .iter()
        .map(|c| {
            let evs = events
                .iter()
                .filter(|e| e.command_seq == c.seq)
                .map(|e| e.event.clone())
                .collect();
            (c.clone(), evs)
        })
        .collect();
    let command_json = commands
        .iter()
        .map(|c| serde_json::to_string(&c.command).expect("command serialises"))
        .collect();
    Record {
        commands,
        events,
        grouped,
        command_json,
    }
}

/// The raw baseline's schema: the same tables and index as staffwork's, without its `STRICT`
/// and `json_valid` checks and without the views.
const RAW_SCHEMA: &str = "
CREATE TABLE command (seq INTEGER PRIMARY KEY, actor TEXT NOT NULL, payload TEXT NOT NULL);
CREATE TABLE event (seq INTEGER PRIMARY KEY, command_seq INTEGER NOT NULL, turn INTEGER NOT NULL,
  kind TEXT NOT NULL, visibility TEXT NOT NULL, payload TEXT NOT NULL, hash TEXT NOT NULL);
CREATE INDEX event_by_command ON event(command_seq);
";

fn raw_open(path: &Path, synchronous: &str) -> Connection {
    let conn = Connection::open(path).expect("raw open");
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))
        .expect("WAL");
    conn.pragma_update(None, "synchronous", synchronous)
        .expect("synchronous");
    conn
}

/// One row of the raw baseline: the strings staffwork stores, precomputed.
struct RawRow {
    seq: i64,
    command_seq: i64,
    turn: i64,
    kind: String,
    visibility: String,
    payload: String,
    hash: String,
}

fn raw_rows(rec: &Record) -> Vec<RawRow> {
    rec.events
        .iter()
        .map(|e| RawRow {
            seq: e.seq,
            command_seq: e.command_seq,
            turn: i64::from(e.event.turn),
            kind: e.event.kind_name(),
            visibility: match &e.event.visibility {
                staffwork::engine::Visibility::Public => "public".to_string(),
                staffwork::engine::Visibility::Umpire => "umpire".to_string(),
                staffwork::engine::Visibility::Side(s) => format!("side:{s}"),
            },
            payload: e.payload.clone(),
            hash: e.hash.clone(),
        })
        .collect()
}

/// Insert the game's rows, one `BEGIN IMMEDIATE` transaction per command, as staffwork does.
fn raw_append(conn: &mut Connection, rec: &Record, rows: &[RawRow]) {
    let mut at = 0usize;
    for (c, json) in rec.commands.iter().zip(&rec.command_json) {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .expect("tx");
        tx.execute(
            "INSERT INTO command (seq, actor, payload) VALUES (?1, ?2, ?3)",
            params![c.seq, c.actor, json],
        )
        .expect("command row");
        {
            let mut ins = tx
                .prepare_cached(
                    "INSERT INTO event (seq, command_seq, turn, kind, visibility, payload, hash) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )
                .expect("prepare");
            while let Some(r) = rows.get(at).filter(|r| r.command_seq == c.seq) {
                ins.execute(params![
                    r.seq,
                    r.command_seq,
                    r.turn,
                    r.kind,
                    r.visibility,
                    r.payload,
                    r.hash
                ])
                .expect("event row");
                at += 1;
            }
        }
        tx.commit().expect("commit");
    }
}

fn raw_select(conn: &Connection) -> Vec<(i64, i64, String, String)> {
    let mut st = conn
        .prepare("SELECT seq, command_seq, payload, hash FROM event ORDER BY seq")
        .expect("prepare");
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

/// A fresh path in `dir` for each iteration.
struct Paths {
    dir: PathBuf,
    n: usize,
}

impl Paths {
    fn next(&mut self, stem: &str) -> PathBuf {
        self.n += 1;
        let p = self.dir.join(format!("{stem}-{}.db", self.n));
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", p.display()));
        }
        p
    }
}

fn replay(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("game.db");
    let game = play(&db);
    let rec = record(&game);
    let rows = raw_rows(&rec);
    let n_events = rec.events.len() as u64;
    let payload_bytes: usize = rec.events.iter().map(|e| e.payload.len()).sum();
    eprintln!(
        "replay bench game: {} commands, {} events, {} payload bytes (mean {} B/event), {} turns",
        rec.commands.len(),
        n_events,
        payload_bytes,
        payload_bytes / rec.events.len().max(1),
        game.state.turn
    );
    // A raw copy of the same rows to read back.
    let raw_db = dir.path().join("raw.db");
    {
        let mut conn = raw_open(&raw_db, "FULL");
        conn.execute_batch(RAW_SCHEMA).expect("raw schema");
        raw_append(&mut conn, &rec, &rows);
        let read = raw_select(&conn);
        assert_eq!(read.len() as u64, n_events);
    }
    drop(game);
    let mut paths = Paths {
        dir: dir.path().to_path_buf(),
        n: 0,
    };

    // ---- appending: one transaction per command
    let meta = Store::open(&db).expect("store opens").meta().clone();
    let mut g = c.benchmark_group("append");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n_events));
    g.bench_function("raw_insert_wal_full", |b| {
        b.iter_batched(
            || {
                let conn = raw_open(&paths.next("raw-full"), "FULL");
                conn.execute_batch(RAW_SCHEMA).expect("raw schema");
                conn
            },
            |mut conn| {
                raw_append(&mut conn, &rec, &rows);
                conn
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("raw_insert_wal_off", |b| {
        b.iter_batched(
            || {
                let conn = raw_open(&paths.next("raw-off"), "OFF");
                conn.execute_batch(RAW_SCHEMA).expect("raw schema");
                conn
            },
            |mut conn| {
                raw_append(&mut conn, &rec, &rows);
                conn
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("store_append", |b| {
        b.iter_batched(
            || Store::create(&paths.next("store"), &meta).expect("store"),
            |mut store| {
                for (c, evs) in &rec.grouped {
                    store.append(&c.actor, &c.command, evs).expect("append");
                }
                store
            },
            BatchSize::PerIteration,
        )
    });
    // The same without a file: what staffwork adds in CPU (serialising, hashing, the schema's
    // `json_valid` checks and foreign key) when no fsync hides it.
    g.bench_function("raw_insert_in_memory", |b| {
        b.iter_batched(
            || {
                let conn = Connection::open_in_memory().expect("memory");
                conn.execute_batch(RAW_SCHEMA).expect("raw schema");
                conn
            },
            |mut conn| {
                raw_append(&mut conn, &rec, &rows);
                conn
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("store_append_in_memory", |b| {
        b.iter_batched(
            || Store::in_memory(&meta).expect("store"),
            |mut store| {
                for (c, evs) in &rec.grouped {
                    store.append(&c.actor, &c.command, evs).expect("append");
                }
                store
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();

    // ---- playback: read the events back (and fold them)
    let mut g = c.benchmark_group("playback");
    g.throughput(Throughput::Elements(n_events));
    g.bench_function("raw_select", |b| {
        b.iter(|| {
            let conn = raw_open(&raw_db, "FULL");
            black_box(raw_select(&conn))
        })
    });
    g.bench_function("store_open_events", |b| {
        b.iter(|| {
            let store = Store::open(&db).expect("open");
            black_box(store.events().expect("events"))
        })
    });
    let open = Game::open(&db).expect("open");
    g.bench_function("raw_select_open_conn", |b| {
        let conn = raw_open(&raw_db, "FULL");
        b.iter(|| black_box(raw_select(&conn)))
    });
    g.bench_function("store_events_open_conn", |b| {
        b.iter(|| black_box(open.store.events().expect("events")))
    });
    drop(open);
    let scenario = bundled("tutorial-hall").expect("scenario");
    let tables = CommandTables::nbs();
    g.bench_function("fold_only", |b| {
        let engine = Engine::new(&scenario, tables);
        b.iter(|| black_box(playback(&engine, rec.events.iter().map(|e| &e.event))))
    });
    g.bench_function("store_open_only", |b| {
        b.iter(|| black_box(Store::open(&db).expect("open")))
    });
    let stored = Store::open(&db).expect("open").meta().clone();
    g.bench_function("parse_stored_scenario", |b| {
        b.iter(|| {
            black_box(
                staffwork::scenario::parse("(stored scenario)", &stored.scenario_toml)
                    .expect("scenario"),
            )
        })
    });
    g.bench_function("parse_stored_tables", |b| {
        b.iter(|| {
            black_box(
                CommandTables::from_toml_str("(stored tables)", &stored.tables_toml)
                    .expect("tables"),
            )
        })
    });
    g.bench_function("game_open", |b| {
        b.iter(|| black_box(Game::open(&db).expect("open").state))
    });
    g.finish();

    // ---- verification: hash chain + re-simulation
    let mut g = c.benchmark_group("verify");
    g.sample_size(20);
    g.throughput(Throughput::Elements(n_events));
    let game = Game::open(&db).expect("open");
    assert!(game.verify().expect("verify").ok(), "the game verifies");
    g.bench_function("chain_only", |b| {
        b.iter(|| black_box(game.store.verify_chain().expect("chain")))
    });
    g.bench_function("game_verify", |b| {
        b.iter(|| black_box(game.verify().expect("verify")))
    });
    g.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
