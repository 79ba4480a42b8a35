//! Concurrent writers on one game file (issue 12): any number of processes and threads issuing
//! orders, turns and moves at once serialise — every command lands once or is refused, command
//! points are never overspent, and `replay --verify` passes. Every time: each test repeats its
//! race a few times and is bounded (a few seconds).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::staffwork;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_staffwork"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn new_game(db: &Path) {
    let out = staffwork(&[
        "new",
        "--scenario",
        "tutorial-hall",
        "--db",
        db.to_str().unwrap(),
        "--seed",
        "12",
    ]);
    assert!(out.status.success(), "{out:?}");
}

fn json(args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    let out = staffwork(&a);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: not JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Run every command line at once as its own process; returns how many succeeded (exit 0) and
/// checks the others were refused cleanly (exit 1, never 2 or a crash).
fn race(lines: &[Vec<String>]) -> usize {
    let children: Vec<_> = lines
        .iter()
        .map(|args| bin().args(args).spawn().expect("spawn staffwork"))
        .collect();
    let mut landed = 0;
    for (child, args) in children.into_iter().zip(lines) {
        let out = child.wait_with_output().unwrap();
        match out.status.code() {
            Some(0) => landed += 1,
            Some(1) => {}
            other => panic!(
                "{args:?} exited {other:?}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        }
    }
    landed
}

fn verify_ok(db: &str) -> serde_json::Value {
    let v = json(&["replay", "--db", db, "--verify"]);
    assert_eq!(v["ok"], true, "verify after the race: {v}");
    v
}

/// Issue 12: three (here six) `order` processes started together all became "order 14" and
/// spent 18 command points of 13. Now each order gets its own number, the points spent are the
/// sum of the orders' costs, never more than the side had, and the file verifies.
#[test]
fn orders_from_many_processes_each_land_once_and_never_overspend() {
    let dir = tempfile::tempdir().unwrap();
    for trial in 0..3 {
        let db = dir.path().join(format!("orders-{trial}.db"));
        new_game(&db);
        let d = db.to_str().unwrap();
        let before = json(&["status", "--db", d, "--side", "imperial"]);
        let points = before["sides"][0]["command_points"].as_i64().unwrap();
        let orders_before = before["orders"].as_array().unwrap().len();
        let lines: Vec<Vec<String>> = (0..6)
            .map(|i| {
                let text = [
                    "3rd Div: march to Kümla and defend.",
                    "2nd Div: attack up the Säter road and capture Hall.",
                    "3rd Div: hold Kümla.",
                    "2nd Div: capture Hall.",
                    "3rd Div: defend Kümla.",
                    "2nd Div: march to Hall.",
                ][i];
                [
                    "order", "--db", d, "--side", "imperial", "--method", "written", text,
                ]
                .map(String::from)
                .to_vec()
            })
            .collect();
        let landed = race(&lines);
        assert!(landed >= 1, "the first order to take the lock lands");
        let after = json(&["status", "--db", d, "--side", "imperial"]);
        let orders = after["orders"].as_array().unwrap();
        assert_eq!(
            orders.len() - orders_before,
            landed,
            "one order per command that landed"
        );
        let mut numbers: Vec<u64> = orders
            .iter()
            .map(|o| o["number"].as_u64().unwrap())
            .collect();
        numbers.dedup();
        assert_eq!(
            numbers.len(),
            orders.len(),
            "distinct order numbers: {numbers:?}"
        );
        let spent: i64 = orders[orders_before..]
            .iter()
            .map(|o| o["cost"].as_i64().unwrap_or(0))
            .sum();
        let left = after["sides"][0]["command_points"].as_i64().unwrap();
        assert_eq!(
            left,
            points - spent,
            "points left = points - costs of the orders that landed"
        );
        assert!(left >= 0, "never overspent: {left}");
        let v = verify_ok(d);
        assert_eq!(v["verification"]["commands"], 1 + landed as i64);
    }
}

/// Issue 12: two loops of `turn` gave 24 "turn began" events for 16 turns, and two loops moving
/// one piece recorded stale "from" hexes. Rounds of racing `turn` processes, then racing `move`
/// processes on one piece: every command recorded once, the file verifies, and every recorded
/// move starts where the previous one left the piece.
#[test]
fn turns_and_moves_from_many_processes_serialise() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("turns.db");
    new_game(&db);
    let d = db.to_str().unwrap().to_string();
    let mut total = 0;
    let mut moved = 0;
    for _ in 0..3 {
        let turns: Vec<Vec<String>> = (0..3)
            .map(|_| ["turn", "--db", &d].map(String::from).to_vec())
            .collect();
        let landed = race(&turns);
        assert_eq!(
            landed, 3,
            "a turn step is always possible before the game ends"
        );
        total += landed;
        // Movement needs the imperial Operations window (5.1).
        loop {
            let st = json(&["status", "--db", &d]);
            if st["step"] == "operations" && st["phasing"] == "imperial" {
                break;
            }
            assert!(staffwork(&["turn", "--db", &d]).status.success());
            total += 1;
        }
        let moves: Vec<Vec<String>> = ["6.10", "6.11", "7.10", "7.11"]
            .iter()
            .map(|hex| {
                ["move", "--db", &d, "--piece", "hq:i-corps", "--to", hex]
                    .map(String::from)
                    .to_vec()
            })
            .collect();
        let landed = race(&moves);
        moved += landed;
        total += landed;
    }
    let v = verify_ok(&d);
    assert_eq!(v["verification"]["commands"], 1 + total as i64);
    // Every move's "from" is where the previous move (or the start) left the piece.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut st = conn
        .prepare("SELECT payload FROM event WHERE kind = 'piece-moved' ORDER BY seq")
        .unwrap();
    let moves: Vec<serde_json::Value> = st
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(|p| serde_json::from_str(&p.unwrap()).unwrap())
        .collect();
    assert_eq!(moves.len(), moved, "one move event per move that landed");
    assert!(moved >= 3, "moves landed: {moves:?}");
    for pair in moves.windows(2) {
        assert_eq!(pair[1]["from"], pair[0]["to"], "stale from: {pair:?}");
    }
}

/// Threads of one process, each with its own open game (the library, no CLI): orders and turns
/// at once serialise the same way.
#[test]
fn threads_with_their_own_open_game_serialise() {
    use staffwork::engine::Command as C;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("threads.db");
    new_game(&db);
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let db = db.clone();
            std::thread::spawn(move || {
                let mut game = staffwork::game::Game::open(&db).unwrap();
                let mut landed = 0;
                for _ in 0..5 {
                    let cmd = if i % 2 == 0 {
                        C::Advance
                    } else {
                        let text = "3rd Div: march to Kümla and defend.";
                        let checked = staffwork::order::check_one(
                            text,
                            Some(&game.scenario),
                            Some("imperial"),
                        );
                        C::IssueOrder {
                            side: "imperial".into(),
                            from: "davrange".into(),
                            to: "div-3".into(),
                            method: staffwork::rules::Method::Written,
                            order: staffwork::game::typed_order(&checked),
                        }
                    };
                    match game.execute("imperial", &cmd) {
                        Ok(_) => landed += 1,
                        Err(staffwork::game::GameError::Refused(_)) => {}
                        Err(e) => panic!("thread {i}: {e}"),
                    }
                }
                landed
            })
        })
        .collect();
    let landed: i64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    let game = staffwork::game::Game::open(&db).unwrap();
    let v = game.verify().unwrap();
    assert!(v.ok(), "{v:?}");
    assert_eq!(v.commands, 1 + landed);
}

/// A writer that cannot get the lock within the busy wait says so and writes nothing; it never
/// waits forever and never corrupts.
#[test]
fn a_writer_past_the_busy_wait_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("busy.db");
    new_game(&db);
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let out = bin()
        .args(["turn", "--db", db.to_str().unwrap()])
        .env("STAFFWORK_BUSY_WAIT_MS", "300")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is busy") && err.contains("nothing was written"),
        "{err}"
    );
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    let v = json(&["replay", "--db", db.to_str().unwrap(), "--verify"]);
    assert_eq!(v["verification"]["commands"], 1, "{v}");
    assert!(
        staffwork(&["turn", "--db", db.to_str().unwrap()])
            .status
            .success()
    );
}
