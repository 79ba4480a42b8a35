//! The game file as evidence (issue 12): forged, truncated, emptied or reset files are caught by
//! `replay --verify` or refused; a verify that cannot re-simulate does not say ok; receipts make
//! a cut-back file evident; views leak no hashes or global counts; bad input is refused cleanly.

use std::path::{Path, PathBuf};

use crate::common::staffwork;
use crate::integrity_chain::{make_chain_1, rechain};

pub(crate) fn run(args: &[&str]) -> (i32, String, String) {
    let out = staffwork(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub(crate) fn ok(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "staffwork {args:?}: {out}{err}");
    out
}

/// A game with orders, turns and a move, all verified.
pub(crate) fn game(dir: &Path, name: &str) -> PathBuf {
    let db = dir.join(name);
    let d = db.to_str().unwrap();
    ok(&[
        "new",
        "--scenario",
        "tutorial-hall",
        "--db",
        d,
        "--seed",
        "5",
    ]);
    ok(&[
        "order",
        "--db",
        d,
        "--side",
        "imperial",
        "--method",
        "written",
        "3rd Div: march to Kümla and defend.",
    ]);
    ok(&["turn", "--db", d]);
    ok(&["move", "--db", d, "--piece", "hq:i-corps", "--to", "6.10"]);
    ok(&["turn", "--db", d, "--until-turn", "3"]);
    ok(&["replay", "--db", d, "--verify"]);
    db
}

pub(crate) fn sql(db: &Path, statements: &str) {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute_batch(statements).unwrap();
}

pub(crate) fn file_bytes(db: &Path) -> Vec<u8> {
    std::fs::read(db).unwrap()
}

/// Issue 12: an inserted "wrecked-changed" event naming no command, chain recomputed, passed
/// verify and showed in `status`. Now verify fails and status refuses the file.
#[test]
fn an_event_of_no_recorded_command_fails_verify_and_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "forged.db");
    let d = db.to_str().unwrap();
    sql(
        &db,
        r#"PRAGMA foreign_keys = OFF;
           INSERT INTO event (seq, command_seq, payload, hash)
           VALUES ((SELECT MAX(seq) + 1 FROM event), 999,
                   '{"turn":3,"visibility":{"to":"public"},"kind":"wrecked-changed","command":"div-3","wrecked":true}', '');"#,
    );
    rechain(&db);
    let (code, out, err) = run(&["replay", "--db", d, "--verify"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("FAILED") && out.contains("command 999"),
        "{out}"
    );
    let (code, out, err) = run(&["status", "--db", d]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("does not read back cleanly"), "{err}");
    assert!(!out.contains("WRECKED"), "{out}");
}

/// An extra event under a real command (chain recomputed): re-simulation produces no such event.
#[test]
fn an_extra_event_under_a_real_command_fails_verify() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "extra.db");
    let d = db.to_str().unwrap();
    sql(
        &db,
        r#"INSERT INTO event (seq, command_seq, payload, hash)
           VALUES ((SELECT MAX(seq) + 1 FROM event), (SELECT MAX(seq) FROM command),
                   '{"turn":3,"visibility":{"to":"public"},"kind":"wrecked-changed","command":"div-3","wrecked":true}', '');"#,
    );
    rechain(&db);
    let (code, out, _) = run(&["replay", "--db", d, "--verify"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("re-simulation differs"), "{out}");
}

/// Issue 12: a changed engine_version (or rng) made verify exit 0 with a note. Now it fails and
/// says "chain only, NOT re-simulated", unless `--chain-only` was asked.
#[test]
fn a_verify_that_cannot_resimulate_does_not_say_ok() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "version.db");
    let d = db.to_str().unwrap();
    sql(
        &db,
        "UPDATE game SET meta = json_set(meta, '$.engine_version', '0.0.1')",
    );
    // Decision 0185: the record is in the chain, so the edit alone breaks it at its start.
    let (code, out, _) = run(&["replay", "--db", d, "--verify"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("breaks at its start"), "{out}");
    // A forger who also recomputes the chain gets a file that opens; verify still refuses.
    rechain(&db);
    let (code, out, _) = run(&["replay", "--db", d, "--verify"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("chain only, NOT re-simulated"), "{out}");
    assert!(!out.contains("verify: ok"), "{out}");
    let (code, out, _) = run(&["replay", "--db", d, "--verify", "--chain-only"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("chain only, NOT re-simulated"), "{out}");
}

/// Issue 12: cutting the last commands and their events went unnoticed. The game row's head
/// catches a plain cut; a receipt catches a cut that also rewrote the game row.
#[test]
fn truncation_is_evident_from_the_head_record_and_from_a_receipt() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "cut.db");
    let d = db.to_str().unwrap();
    let receipt = dir.path().join("imperial.receipt");
    let r = receipt.to_str().unwrap();
    ok(&["receipt", "--db", d, "--side", "imperial", "--out", r]);
    let text = std::fs::read_to_string(&receipt).unwrap();
    assert!(
        !text.contains("head_hash") && !text.contains("\"events\""),
        "a side's receipt holds no hash or count: {text}"
    );
    ok(&["replay", "--db", d, "--verify", "--receipt", r]);
    sql(
        &db,
        "DELETE FROM event WHERE command_seq = (SELECT MAX(seq) FROM command);
         DELETE FROM command WHERE seq = (SELECT MAX(seq) FROM command);",
    );
    let (code, out, _) = run(&["replay", "--db", d, "--verify"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("rows were cut or added"), "{out}");
    // Writing to it is refused, and changes nothing.
    let before = file_bytes(&db);
    let (code, _, err) = run(&["turn", "--db", d]);
    assert_ne!(code, 0);
    assert!(err.contains("does not read back cleanly"), "{err}");
    assert_eq!(before, file_bytes(&db));
    // The forger also rewrites the head record: the receipt still shows the cut.
    sql(
        &db,
        "UPDATE game SET head_events = (SELECT COUNT(*) FROM event),
                         head_commands = (SELECT COUNT(*) FROM command),
                         head_hash = (SELECT hash FROM event ORDER BY seq DESC LIMIT 1)",
    );
    ok(&["replay", "--db", d, "--verify"]);
    let (code, out, _) = run(&["replay", "--db", d, "--verify", "--receipt", r]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("receipt: FAILED"), "{out}");
}

/// Issue 12: `visibility`, `kind` and `turn` were outside the hash, so the order_log view and
/// the overrides query could be made to hide rows. They are now derived from the hashed
/// payload: they cannot be set, and changing the payload breaks the chain.
#[test]
fn view_columns_are_derived_from_the_hashed_payload() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "cols.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    for col in ["visibility = 'umpire'", "kind = 'x'", "turn = 99"] {
        let r = conn.execute(&format!("UPDATE event SET {col}"), []);
        assert!(r.is_err(), "{col} must not be settable");
    }
    let orders: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM order_log WHERE side = 'imperial'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(orders >= 2, "order_log reads the payload: {orders}");
    let public: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM event WHERE visibility = 'public'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(public > 0);
}

/// Issue 12: emptied tables gave "ok over 0 events", then `status` panicked.
#[test]
fn emptied_tables_are_a_clear_error_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "empty.db");
    let d = db.to_str().unwrap();
    sql(&db, "DELETE FROM event; DELETE FROM command;");
    let (code, out, _) = run(&["replay", "--db", d, "--verify"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no commands"), "{out}");
    let out_path = dir.path().join("b.db");
    for args in [
        vec!["status", "--db", d],
        vec!["log", "--db", d, "--side", "imperial"],
        vec!["replay", "--db", d],
        vec!["turn", "--db", d],
        vec![
            "branch",
            "--db",
            d,
            "--at-turn",
            "1",
            "--out",
            out_path.to_str().unwrap(),
        ],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(
            err.contains("does not read back cleanly"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!out_path.exists());
}

/// Issue 12: `user_version = 0` gave a raw SQL error; a corrupt command row let `turn` append.
#[test]
fn a_reset_schema_version_or_a_corrupt_command_row_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "v0.db");
    let d = db.to_str().unwrap();
    sql(&db, "PRAGMA user_version = 0");
    let (code, _, err) = run(&["status", "--db", d]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("user_version") && err.contains("reset"),
        "{err}"
    );

    let db = game(dir.path(), "badcmd.db");
    let d = db.to_str().unwrap();
    sql(
        &db,
        r#"UPDATE command SET payload = '{"bogus":1}' WHERE seq = 2"#,
    );
    let before = file_bytes(&db);
    let (code, _, err) = run(&["turn", "--db", d]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("command 2"), "{err}");
    assert_eq!(before, file_bytes(&db), "nothing written");
}

/// A schema-1 file (before this change) opens, is migrated, and still verifies.
#[test]
fn a_schema_1_file_migrates_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let new = game(dir.path(), "new.db");
    make_chain_1(&new);
    let old = dir.path().join("old.db");
    {
        let src = rusqlite::Connection::open(&new).unwrap();
        let dst = rusqlite::Connection::open(&old).unwrap();
        dst.execute_batch(include_str!("../../src/store/migrations/0001_init.sql"))
            .unwrap();
        let meta: String = src
            .query_row("SELECT meta FROM game", [], |r| r.get(0))
            .unwrap();
        dst.execute("INSERT INTO game (id, meta) VALUES (1, ?1)", [meta])
            .unwrap();
        let mut st = src
            .prepare("SELECT seq, actor, payload FROM command")
            .unwrap();
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .unwrap();
        for row in rows {
            let (seq, actor, payload) = row.unwrap();
            dst.execute(
                "INSERT INTO command VALUES (?1, ?2, ?3)",
                rusqlite::params![seq, actor, payload],
            )
            .unwrap();
        }
        let mut st = src
            .prepare("SELECT seq, command_seq, turn, kind, visibility, payload, hash FROM event")
            .unwrap();
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                ))
            })
            .unwrap();
        for row in rows {
            let (a, b, c, k, v, p, h) = row.unwrap();
            dst.execute(
                "INSERT INTO event VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                rusqlite::params![a, b, c, k, v, p, h],
            )
            .unwrap();
        }
        dst.execute_batch("PRAGMA user_version = 1; PRAGMA application_id = 1398231627;")
            .unwrap();
    }
    let d = old.to_str().unwrap();
    let out = ok(&["replay", "--db", d, "--verify"]);
    assert!(out.contains("verify: ok"), "{out}");
    ok(&["turn", "--db", d]);
    ok(&["replay", "--db", d, "--verify"]);
    let conn = rusqlite::Connection::open(&old).unwrap();
    let v: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, staffwork::store::SCHEMA_VERSION);
}

/// Issue 12: `log --side X --format json` included the chain hashes and global event numbers;
/// the text said "Events (99 of 169 visible)". A side gets its own numbering and no hash.
#[test]
fn a_side_sees_no_hashes_and_no_global_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "secret.db");
    let d = db.to_str().unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let hashes: Vec<String> = conn
        .prepare("SELECT hash FROM event")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for side in ["imperial", "allied"] {
        let json = ok(&["log", "--db", d, "--side", side, "--format", "json"]);
        let text = ok(&["log", "--db", d, "--side", side]);
        for h in &hashes {
            assert!(
                !json.contains(&h[..16]) && !text.contains(&h[..16]),
                "{side} sees a hash"
            );
        }
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let evs = v["events"].as_array().unwrap();
        for (i, e) in evs.iter().enumerate() {
            assert_eq!(e["number"], i + 1, "numbered per side");
            assert!(e.get("seq").is_none() && e.get("hash").is_none(), "{e}");
        }
        assert!(!text.contains(" visible)"), "{text}");
        let (_, out, _) = run(&["replay", "--db", d, "--side", side]);
        assert!(out.contains("orders of yours"), "{out}");
    }
}

/// Issue 12: unknown sides (`nosuch`, wrong case, `umpire` as a side) are errors listing the
/// sides; `odds --order` needs a seat and a side cannot ask about an enemy order.
#[test]
fn unknown_sides_and_enemy_orders_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "sides.db");
    let d = db.to_str().unwrap();
    for side in ["nosuch", "IMPERIAL", "umpire"] {
        for cmd in ["status", "log"] {
            let (code, out, err) = run(&[cmd, "--db", d, "--side", side]);
            assert_eq!(code, 2, "{cmd} --side {side}: {out}");
            assert!(out.is_empty());
            assert!(err.contains("imperial, allied"), "{err}");
        }
    }
    // Imperial's written order, and an order number that does not exist: the allied side is
    // told the same of both. The umpire numbers orders across both sides; a side counts its
    // own only (decision 0160), so the umpire's number is no order of the allied side.
    let written = |seat: &[&str]| {
        let mut args = vec!["status", "--db", d, "--format", "json"];
        args.extend_from_slice(seat);
        let status: serde_json::Value = serde_json::from_str(&ok(&args)).unwrap();
        status["orders"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["method"] == "written" && o["side"] == "imperial")
            .expect("imperial's written order")["number"]
            .to_string()
    };
    let (e, n) = (written(&["--umpire"]), written(&["--side", "imperial"]));
    let (e, n) = (e.as_str(), n.as_str());
    assert_ne!(e, n, "the imperial side does not count the allied orders");
    let (code, _, err) = run(&["odds", "--db", d, "--order", n]);
    assert_eq!(code, 2, "a seat is required: {err}");
    assert!(err.contains("--side") && err.contains("--umpire"), "{err}");
    let a = run(&["odds", "--db", d, "--order", e, "--side", "allied"]);
    let b = run(&["odds", "--db", d, "--order", "99", "--side", "allied"]);
    assert_eq!(a.0, 2);
    assert_eq!(a.1, "");
    assert_eq!(
        a.2.replace(&format!(" {e} "), " N "),
        b.2.replace(" 99 ", " N ")
    );
    let own = ok(&["odds", "--db", d, "--order", n, "--side", "imperial"]);
    assert!(own.contains(&format!("Order {n}")), "{own}");
    let umpire = ok(&["odds", "--db", d, "--order", e, "--umpire"]);
    assert!(umpire.contains(&format!("Order {e}")), "{umpire}");
}

/// Issue 12: `branch --at-turn 0` panicked and left a 0-event file.
#[test]
fn branch_outside_the_recorded_turns_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "branch.db");
    let d = db.to_str().unwrap();
    for turn in ["0", "99"] {
        let out = dir.path().join(format!("b{turn}.db"));
        let (code, stdout, err) = run(&[
            "branch",
            "--db",
            d,
            "--at-turn",
            turn,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{stdout}{err}");
        assert!(err.contains("outside the turns"), "{err}");
        assert!(!out.exists());
    }
    let out = dir.path().join("b1.db");
    ok(&[
        "branch",
        "--db",
        d,
        "--at-turn",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    ok(&["replay", "--db", out.to_str().unwrap(), "--verify"]);
    // No temporary file is left beside it.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".tmp")), "{names:?}");
}

/// Issue 12: `combat close-combat --defender 6-fane --defender 6-fane` counted the unit twice.
/// A unit named twice (or on both sides) is refused before anything is rolled.
#[test]
fn a_unit_named_twice_in_a_combat_is_refused() {
    use staffwork::engine::{CombatKind, Command};
    let (_, text) = staffwork::scenario::bundled_text("tutorial-hall").unwrap();
    let scenario = staffwork::scenario::bundled("tutorial-hall").unwrap();
    let new = staffwork::game::NewGame::on(text.to_string(), scenario, 3).unwrap();
    let mut game = staffwork::game::Game::in_memory(new).unwrap();
    game.execute("umpire", &Command::Advance).unwrap();
    let combat = |attackers: &[&str], defenders: &[&str]| Command::Combat {
        kind: CombatKind::CloseCombat { fortified: false },
        attackers: attackers.iter().map(|s| s.to_string()).collect(),
        defenders: defenders.iter().map(|s| s.to_string()).collect(),
        options: Default::default(),
    };
    for cmd in [
        combat(&["1-3-i"], &["hall-1", "hall-1"]),
        combat(&["1-3-i", "1-3-i"], &["hall-1"]),
        combat(&["1-3-i"], &["1-3-i"]),
    ] {
        match game.execute("imperial", &cmd) {
            Err(staffwork::game::GameError::Refused(r)) => {
                assert_eq!(r.code, "duplicate-unit", "{r}");
                assert_eq!(r.rule, "15.1");
            }
            other => panic!("{cmd:?}: {other:?}"),
        }
    }
}

/// Issue 12: user text (override reasons, order text echoed in diagnostics) was printed raw,
/// escape sequences included. It is shown with its control characters made visible.
#[test]
fn user_text_is_printed_with_control_characters_visible() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "esc.db");
    let d = db.to_str().unwrap();
    let reason = "rain\u{1b}[2J\u{202e}damp";
    ok(&[
        "override", "--db", d, "--reason", reason, "--wreck", "div-2",
    ]);
    let log = ok(&["log", "--db", d, "--umpire"]);
    assert!(log.contains("rain\\u{1b}[2J\\u{202e}damp"), "{log}");
    let out = staffwork(&[
        "order",
        "--db",
        d,
        "--side",
        "imperial",
        "--method",
        "written",
        "3rd Div: march to Kü\u{1b}]0;pwned\u{7}mla.",
    ]);
    let all = [out.stdout, out.stderr].concat();
    assert!(
        !all.contains(&0x1b) && !all.contains(&0x07),
        "{}",
        String::from_utf8_lossy(&all)
    );
    let err = staffwork(&["status", "--db", d, "--side", "evil\u{1b}[31m"]);
    assert!(
        !err.stderr.contains(&0x1b),
        "{}",
        String::from_utf8_lossy(&err.stderr)
    );
}

/// Issue 12: orders naming a hex off the map (`move to 99999.99999`, `-5.-5`) were accepted.
/// The game refuses them, naming the hex and the map's bounds, and writes nothing.
#[test]
fn orders_naming_hexes_off_the_map_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("offmap.db");
    let d = db.to_str().unwrap();
    ok(&["new", "--scenario", "tutorial-hall", "--db", d]);
    let before = file_bytes(&db);
    for (text, hex) in [
        ("3rd Div: move to 99999.99999.", "99999.99999"),
        ("3rd Div: march to -5.-5 and defend.", "-5.-5"),
        ("3rd Div: march to 31.10 and defend.", "31.10"),
    ] {
        let (code, out, err) = run(&[
            "order", "--db", d, "--side", "imperial", "--method", "written", text,
        ]);
        assert_eq!(code, 1, "{text}: {out}{err}");
        let all = format!("{out}{err}");
        assert!(
            all.contains(&format!("hex {hex} is not on the map")),
            "{all}"
        );
        assert!(all.contains("column 1 to 30 and row 1 to 20"), "{all}");
    }
    assert_eq!(before, file_bytes(&db), "nothing written");
    ok(&[
        "order",
        "--db",
        d,
        "--side",
        "imperial",
        "--method",
        "written",
        "3rd Div: march to 12.10 and defend.",
    ]);
}

/// Issue 12: refusals named hidden things ("17.09 is not adjacent to 40.06", "range 20" for a
/// unit the side cannot see). A side naming an enemy unit it cannot see is told the same as for
/// a unit that does not exist, with no hex or range.
#[test]
fn a_sides_refusal_does_not_depend_on_what_it_cannot_see() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("unseen.db");
    let d = db.to_str().unwrap();
    ok(&["new", "--scenario", "tutorial-hall", "--db", d]);
    ok(&["turn", "--db", d]);
    let status: serde_json::Value = serde_json::from_str(&ok(&[
        "status", "--db", d, "--side", "imperial", "--format", "json",
    ]))
    .unwrap();
    let seen = status["positions"].as_object().unwrap();
    assert!(
        !seen.contains_key("kumla-bde"),
        "kumla-bde is out of sight at the start"
    );
    // The side's seat (as the web table gives it); the umpire at the CLI is told the real reason.
    let mut game = staffwork::game::Game::open(&db).unwrap();
    let refuse = |game: &mut staffwork::game::Game, defender: &str| {
        let request = staffwork::app::parse_request(&format!(
            "combat close-combat --attacker 1-3-i --defender {defender}"
        ))
        .unwrap();
        let seat = staffwork::view::Viewer::Side("imperial".into());
        match staffwork::app::execute(game, &seat, &request) {
            Err(e @ staffwork::app::AppError::Refused(_)) => e.to_string().replace(defender, "X"),
            other => panic!("expected a refusal, got {other:?}"),
        }
    };
    let mut refusal = |defender: &str| refuse(&mut game, defender);
    let hidden = refusal("kumla-bde");
    assert_eq!(hidden, refusal("no-such-unit"));
    assert!(hidden.contains("not-seen"), "{hidden}");
    assert!(
        !hidden
            .chars()
            .any(|c| c.is_ascii_digit() && c != '4' && c != '0'),
        "no hex or range: {hidden}"
    );
}

/// Decision 0051: an observer sees public events only while the game runs — no orders, points,
/// loss charts or pieces — and everything once the game is over.
#[test]
fn an_observer_sees_public_events_only_until_the_game_ends() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "observer.db");
    let d = db.to_str().unwrap();
    let status: serde_json::Value = serde_json::from_str(&ok(&[
        "status",
        "--db",
        d,
        "--observer",
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(status["viewer"], "observer");
    for key in ["orders", "sides", "commands", "units"] {
        assert_eq!(
            status[key].as_array().map(Vec::len),
            Some(0),
            "{key}: {status}"
        );
    }
    assert_eq!(status["positions"].as_object().map(|o| o.len()), Some(0));
    let log: serde_json::Value =
        serde_json::from_str(&ok(&["log", "--db", d, "--observer", "--format", "json"])).unwrap();
    for e in log["events"].as_array().unwrap() {
        assert_eq!(e["event"]["visibility"]["to"], "public", "{e}");
    }
    ok(&["turn", "--db", d, "--until-end"]);
    let status: serde_json::Value = serde_json::from_str(&ok(&[
        "status",
        "--db",
        d,
        "--observer",
        "--format",
        "json",
    ]))
    .unwrap();
    assert_eq!(status["step"], "game-over", "{}", status["step"]);
    assert_eq!(
        status["viewer"], "umpire",
        "after the game the observer sees all"
    );
    assert!(!status["orders"].as_array().unwrap().is_empty());
}

/// `new` writes under a temporary name and renames into place: an existing file is refused and
/// left as it was, and no temporary file is left behind either way.
#[test]
fn new_is_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "exists.db");
    let d = db.to_str().unwrap();
    let before = file_bytes(&db);
    let (code, _, err) = run(&["new", "--scenario", "tutorial-hall", "--db", d]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(before, file_bytes(&db));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.contains("staffwork-")), "{names:?}");
}

/// Issue 12: a killed `branch` left a partial copy that verified and looked complete. Killed at
/// any moment, a branch leaves either no file or the whole branch.
#[test]
fn a_killed_branch_leaves_no_partial_copy() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "source.db");
    let d = db.to_str().unwrap();
    ok(&["turn", "--db", d, "--until-turn", "6"]);
    for delay_ms in [0u64, 5, 20, 60] {
        let out = dir.path().join(format!("killed-{delay_ms}.db"));
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_staffwork"))
            .args([
                "branch",
                "--db",
                d,
                "--at-turn",
                "5",
                "--out",
                out.to_str().unwrap(),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        if out.exists() {
            let o = out.to_str().unwrap();
            let v = ok(&["replay", "--db", o, "--verify"]);
            assert!(v.contains("verify: ok"), "{v}");
            let s: serde_json::Value =
                serde_json::from_str(&ok(&["status", "--db", o, "--format", "json"])).unwrap();
            assert!(s["turn"].as_u64().unwrap() >= 5, "a complete branch: {s}");
        }
    }
}
