//! The game record and every command in the hash chain (decision 0185, hostile2's findings 5
//! and 6): an edited seed, scenario, table or command is refused on opening and named by
//! `replay --verify`; a forger who recomputes the chain is caught by a receipt; files of the
//! older chain (events alone) keep it and go on being played.

use std::path::Path;

use crate::integrity_record::{file_bytes, game, ok, run, sql};

/// Recompute every link after the rows or the game record were edited, as a forger would:
/// the game record, then each command before its events (chain 2, decision 0185).
pub(crate) fn rechain(db: &Path) {
    use staffwork::store::{chain_hash, command_link, record_link};
    let conn = rusqlite::Connection::open(db).unwrap();
    let meta: String = conn
        .query_row("SELECT meta FROM game", [], |r| r.get(0))
        .unwrap();
    let commands: Vec<(i64, String, String)> = conn
        .prepare("SELECT seq, actor, payload FROM command ORDER BY seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let events: Vec<(i64, i64, String)> = conn
        .prepare("SELECT seq, command_seq, payload FROM event ORDER BY seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut prev = record_link(&meta).unwrap();
    let mut events = events.into_iter().peekable();
    for (seq, actor, payload) in commands {
        // Events claiming an earlier (or no) command stay where they are in the order.
        while let Some((e, _, p)) = events.next_if(|e| e.1 < seq) {
            prev = chain_hash(&prev, &p);
            conn.execute(
                "UPDATE event SET hash = ?1 WHERE seq = ?2",
                rusqlite::params![prev, e],
            )
            .unwrap();
        }
        prev = command_link(&prev, seq, &actor, &payload);
        conn.execute(
            "UPDATE command SET hash = ?1 WHERE seq = ?2",
            rusqlite::params![prev, seq],
        )
        .unwrap();
        while let Some((e, _, p)) = events.next_if(|e| e.1 == seq) {
            prev = chain_hash(&prev, &p);
            conn.execute(
                "UPDATE event SET hash = ?1 WHERE seq = ?2",
                rusqlite::params![prev, e],
            )
            .unwrap();
        }
    }
    for (e, _, p) in events {
        prev = chain_hash(&prev, &p);
        conn.execute(
            "UPDATE event SET hash = ?1 WHERE seq = ?2",
            rusqlite::params![prev, e],
        )
        .unwrap();
    }
    conn.execute(
        "UPDATE game SET head_events = (SELECT COUNT(*) FROM event),
                         head_commands = (SELECT COUNT(*) FROM command), head_hash = ?1",
        [prev],
    )
    .unwrap();
}

/// Turn a game file into one of chain 1, as files created before decision 0185 are: no chain
/// format in the record, no command links, the events chained alone from zeros.
pub(crate) fn make_chain_1(db: &Path) {
    use staffwork::store::{GENESIS, chain_hash};
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch(
        "UPDATE game SET meta = json_remove(meta, '$.chain'); UPDATE command SET hash = NULL;",
    )
    .unwrap();
    let rows: Vec<(i64, String)> = conn
        .prepare("SELECT seq, payload FROM event ORDER BY seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut prev = GENESIS.to_string();
    for (seq, payload) in rows {
        prev = chain_hash(&prev, &payload);
        conn.execute(
            "UPDATE event SET hash = ?1 WHERE seq = ?2",
            rusqlite::params![prev, seq],
        )
        .unwrap();
    }
    conn.execute("UPDATE game SET head_hash = ?1", [prev])
        .unwrap();
}

/// Finding 5: the seed in the game row was outside the chain; editing it chose future dice
/// and every read used it silently. Now the file is refused on opening, and nothing is written.
#[test]
fn an_edited_seed_is_refused_on_opening_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "seed.db");
    let d = db.to_str().unwrap();
    sql(&db, "UPDATE game SET meta = json_set(meta, '$.seed', 999)");
    let before = file_bytes(&db);
    for args in [
        vec!["status", "--db", d],
        vec!["log", "--db", d],
        vec!["turn", "--db", d],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(
            err.contains("does not read back cleanly"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("breaks at its start") && err.contains("seed"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(before, file_bytes(&db), "nothing written");
    let (code, out, _) = run(&["replay", "--db", d, "--verify"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("verify: FAILED") && out.contains("breaks at its start"),
        "{out}"
    );
}

/// The creation time is wall clock, metadata only: it is not in the chain, so two games of the
/// same scenario, seed and commands have the same chain whenever they were played.
#[test]
fn the_creation_time_is_outside_the_chain() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "created.db");
    let d = db.to_str().unwrap();
    sql(
        &db,
        "UPDATE game SET meta = json_set(meta, '$.created_at', '1808-08-21T09:00:00Z')",
    );
    assert!(ok(&["replay", "--db", d, "--verify"]).contains("verify: ok"));
}

/// A scenario edited in the file (a brigade's morale, a commander's rating) is caught the same
/// way, even where no decision has read it yet.
#[test]
fn an_edited_scenario_in_the_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "scenario.db");
    let d = db.to_str().unwrap();
    sql(
        &db,
        "UPDATE game SET meta = json_set(meta, '$.scenario_toml',
             meta->>'$.scenario_toml' || char(10) || '# edited')",
    );
    let (code, _, err) = run(&["status", "--db", d]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("breaks at its start"), "{err}");
}

/// Finding 6: command rows were outside the chain; an edited order opened and played back, and
/// `study` re-ran the forged command. Now the command is named and the file refused.
#[test]
fn an_edited_command_is_named_and_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "command.db");
    let d = db.to_str().unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let seq: i64 = conn
        .query_row(
            "SELECT seq FROM command WHERE payload->>'$.type' = 'issue-order' ORDER BY seq LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute(
        "UPDATE command SET payload = json_set(payload, '$.method', 'oral') WHERE seq = ?1",
        [seq],
    )
    .unwrap();
    drop(conn);
    let (code, _, err) = run(&["status", "--db", d]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&format!("breaks at command {seq}")), "{err}");
    let (code, out, _) = run(&["replay", "--db", d, "--verify"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(&format!("breaks at command {seq}")), "{out}");
    let (code, _, err) = run(&["study", "replay", "--db", d, "--runs", "2"]);
    assert_ne!(
        code, 0,
        "a what-if study of a forged record is refused: {err}"
    );
}

/// A forger who edits the seed and recomputes the whole chain gets a file that opens; the
/// receipt a side was given before no longer matches any prefix of it.
#[test]
fn a_rechained_record_edit_fails_a_receipt_given_before() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "receipt.db");
    let d = db.to_str().unwrap();
    let receipt = dir.path().join("allied.receipt");
    let r = receipt.to_str().unwrap();
    ok(&["receipt", "--db", d, "--side", "imperial", "--out", r]);
    ok(&["replay", "--db", d, "--verify", "--receipt", r]);
    sql(&db, "UPDATE game SET meta = json_set(meta, '$.seed', 999)");
    rechain(&db);
    ok(&["status", "--db", d]);
    let (code, out, _) = run(&[
        "replay",
        "--db",
        d,
        "--verify",
        "--chain-only",
        "--receipt",
        r,
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("receipt: FAILED"), "{out}");
}

/// Files created before decision 0185 keep the chain they began with: they open, verify, go on
/// being played in the same format, and a branch of one starts a file of the new chain.
#[test]
fn a_file_of_the_older_chain_goes_on_and_branches_into_the_new() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "old.db");
    let d = db.to_str().unwrap();
    make_chain_1(&db);
    assert!(ok(&["replay", "--db", d, "--verify"]).contains("verify: ok"));
    ok(&["turn", "--db", d]);
    assert!(ok(&["replay", "--db", d, "--verify"]).contains("verify: ok"));
    let conn = rusqlite::Connection::open(&db).unwrap();
    let linked: i64 = conn
        .query_row("SELECT COUNT(hash) FROM command", [], |r| r.get(0))
        .unwrap();
    assert_eq!(linked, 0, "an older file's commands stay unlinked");
    drop(conn);
    // In the older chain the record is outside it: that is what the new format closes.
    sql(
        &db,
        "UPDATE game SET meta = json_set(meta, '$.created_at', 'edited')",
    );
    ok(&["status", "--db", d]);
    let out_db = dir.path().join("branch.db");
    let o = out_db.to_str().unwrap();
    ok(&["branch", "--db", d, "--at-turn", "2", "--out", o]);
    assert!(ok(&["replay", "--db", o, "--verify"]).contains("verify: ok"));
    let conn = rusqlite::Connection::open(&out_db).unwrap();
    let (chain, unlinked): (i64, i64) = conn
        .query_row(
            "SELECT meta->>'$.chain', (SELECT COUNT(*) FROM command WHERE hash IS NULL) FROM game",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((chain, unlinked), (2, 0));
}
