//! The game loop through the CLI (issue 5): a scripted game, determinism, replay verification,
//! tamper detection, crash safety, per-side secrecy, and bad input changing nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::staffwork;

fn ok(args: &[&str]) -> String {
    let out = staffwork(args);
    assert!(
        out.status.success(),
        "staffwork {args:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
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

/// Event count and last hash of a game file, read directly.
fn head(db: &Path) -> (i64, String) {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(
        "SELECT COUNT(*), COALESCE((SELECT hash FROM event ORDER BY seq DESC LIMIT 1), '') FROM event",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}

/// A short scripted game covering the command cycle: orders, acceptance, turns, initiative,
/// default defense, withdrawal, an override, a move.
fn scripted_game(dir: &Path, name: &str, seed: &str) -> PathBuf {
    let db = dir.join(name);
    let d = db.to_str().unwrap();
    ok(&[
        "new",
        "--scenario",
        "tutorial-hall",
        "--db",
        d,
        "--seed",
        seed,
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
    ok(&[
        "order",
        "--db",
        d,
        "--side",
        "imperial",
        "--method",
        "oral",
        "2nd Div: capture Hall.",
    ]);
    for _ in 0..4 {
        ok(&["turn", "--db", d]);
    }
    // Turn 2, Imperial Command Phase: 4th Division takes the initiative (any result is fine).
    ok(&[
        "initiative",
        "--db",
        d,
        "--commander",
        "pellerin",
        "4th Div: march to Kirseberg and defend the bridge.",
    ]);
    ok(&["turn", "--db", d]);
    ok(&["move", "--db", d, "--piece", "hq:i-corps", "--to", "6.10"]);
    ok(&[
        "override",
        "--db",
        d,
        "--reason",
        "ruling: 2-2-I broken at Hall",
        "--wreck",
        "2-2-i",
    ]);
    for _ in 0..3 {
        ok(&["turn", "--db", d]);
    }
    ok(&["withdraw", "--db", d, "--command", "cav-i"]);
    for _ in 0..9 {
        ok(&["turn", "--db", d]);
    }
    db
}

#[test]
fn same_seed_and_commands_give_the_same_final_hash_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let a = scripted_game(dir.path(), "a.db", "5");
    let b = scripted_game(dir.path(), "b.db", "5");
    assert_eq!(head(&a), head(&b));
    let v = json(&["replay", "--db", a.to_str().unwrap(), "--verify"]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(
        v["verification"]["chain_broken_at"],
        serde_json::Value::Null
    );
    let c = scripted_game(dir.path(), "c.db", "6");
    assert_ne!(head(&a).1, head(&c).1, "other dice, other history");
}

#[test]
fn altering_one_byte_of_a_payload_is_caught_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let db = scripted_game(dir.path(), "g.db", "3");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let seq: i64 = conn
        .query_row(
            "SELECT seq FROM event WHERE kind = 'acceptance-rolled' ORDER BY seq LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    conn.execute(
        "UPDATE event SET payload = replace(payload, '\"roll\":', '\"roll\": ') WHERE seq = ?1",
        [seq],
    )
    .unwrap();
    drop(conn);
    let out = staffwork(&["replay", "--db", db.to_str().unwrap(), "--verify"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("breaks at event {seq}")), "{text}");
}

#[test]
fn killing_the_process_mid_game_leaves_a_file_that_opens_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    for (i, wait_ms) in [30u64, 80, 160, 320].iter().enumerate() {
        let db = dir.path().join(format!("k{i}.db"));
        let d = db.to_str().unwrap();
        ok(&[
            "new",
            "--scenario",
            "tutorial-hall",
            "--db",
            d,
            "--seed",
            "9",
        ]);
        let mut child = Command::new(env!("CARGO_BIN_EXE_staffwork"))
            .args(["turn", "--db", d, "--until-end"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(*wait_ms));
        let _ = child.kill();
        let _ = child.wait();
        let v = json(&["replay", "--db", d, "--verify"]);
        assert_eq!(v["ok"], true, "after a kill at {wait_ms} ms: {v}");
    }
}

#[test]
fn a_side_never_sees_the_other_sides_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let db = scripted_game(dir.path(), "s.db", "4");
    let d = db.to_str().unwrap();
    let umpire = json(&["log", "--db", d, "--umpire"]);
    let all = umpire["events"].as_array().unwrap().len();
    for (side, other) in [("imperial", "allied"), ("allied", "imperial")] {
        let view = json(&["log", "--db", d, "--side", side]);
        let events = view["events"].as_array().unwrap();
        assert!(events.len() < all);
        for e in events {
            let vis = &e["event"]["visibility"];
            let to = vis["to"].as_str().unwrap();
            assert!(
                to == "public" || (to == "side" && vis["side"] == side),
                "{side} sees {e}"
            );
        }
        for o in view["orders"].as_array().unwrap() {
            assert_eq!(o["side"], side);
        }
        let text = serde_json::to_string(&view).unwrap();
        assert!(!text.contains("override"), "{side} sees an override");
        assert!(
            !text.contains("2-2-I broken"),
            "{side} sees the umpire's reason"
        );
        if side == "allied" {
            assert!(
                !text.contains("Kümla and defend"),
                "allied sees an Imperial order"
            );
            assert!(
                !text.contains("straggler-check"),
                "allied sees Imperial stragglers"
            );
            assert!(
                !text.contains("wrecked-changed"),
                "allied sees Imperial wrecks"
            );
        }
        let status = json(&["status", "--db", d, "--side", side]);
        for c in status["commands"].as_array().unwrap() {
            assert_eq!(c["side"], side, "{side} sees {other}'s command");
        }
    }
}

#[test]
fn bad_input_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = scripted_game(dir.path(), "b.db", "2");
    let d = db.to_str().unwrap();
    let before = head(&db);
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "order",
            "--db",
            d,
            "--side",
            "imperial",
            "--method",
            "written",
            "9th Div: capture Paris.",
            "--to",
            "nonexistent",
        ],
        vec!["move", "--db", d, "--piece", "nobody", "--to", "5.05"],
        vec!["move", "--db", d, "--piece", "1-3-i", "--to", "99.99"],
        vec!["default-defense", "--db", d, "--command", "no-such-command"],
        vec!["override", "--db", d, "--reason", "", "--wreck", "div-2"],
        vec![
            "initiative",
            "--db",
            d,
            "--commander",
            "davrange",
            "--command",
            "div-3",
            "3rd Div: attack Hall.",
        ],
    ];
    for args in cases {
        let out = staffwork(&args);
        assert_ne!(out.status.code(), Some(0), "{args:?} should fail");
        assert_eq!(head(&db), before, "{args:?} changed the file");
    }
}

#[test]
fn foreign_corrupt_and_newer_files_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.db");
    std::fs::write(&text, "this is not a database").unwrap();
    let out = staffwork(&["status", "--db", text.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a staffwork game file"));
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x);")
        .unwrap();
    let out = staffwork(&["status", "--db", other.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a staffwork game file"));
    let db = dir.path().join("new.db");
    ok(&[
        "new",
        "--scenario",
        "tutorial-hall",
        "--db",
        db.to_str().unwrap(),
    ]);
    rusqlite::Connection::open(&db)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let out = staffwork(&["status", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("newer staffwork"));
    let out = staffwork(&[
        "new",
        "--scenario",
        "tutorial-hall",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("already exists"));
}

#[test]
fn a_branch_keeps_the_history_and_verifies_with_new_dice() {
    let dir = tempfile::tempdir().unwrap();
    let db = scripted_game(dir.path(), "m.db", "8");
    let out = dir.path().join("whatif.db");
    ok(&[
        "branch",
        "--db",
        db.to_str().unwrap(),
        "--at-turn",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "77",
    ]);
    let o = out.to_str().unwrap();
    for _ in 0..6 {
        ok(&["turn", "--db", o]);
    }
    let v = json(&["replay", "--db", o, "--verify"]);
    assert_eq!(v["ok"], true, "{v}");
    let log = json(&["log", "--db", o, "--umpire"]);
    assert!(
        log["orders"].as_array().unwrap().len() >= 5,
        "the branch keeps the orders"
    );
}

#[test]
fn the_order_log_has_the_fields_of_rule_6_4_5() {
    let dir = tempfile::tempdir().unwrap();
    let db = scripted_game(dir.path(), "l.db", "1");
    let log = json(&["log", "--db", db.to_str().unwrap(), "--side", "imperial"]);
    let o = &log["orders"].as_array().unwrap()[1];
    for field in [
        "number",
        "time_sent",
        "arrival_time",
        "sender",
        "receiver",
        "text",
        "readback",
        "method",
        "type",
        "status",
    ] {
        assert!(o.get(field).is_some(), "missing {field}: {o}");
    }
    let text = ok(&["log", "--db", db.to_str().unwrap(), "--umpire"]);
    assert!(text.contains("Order Log (6.4.5)"));
}

#[test]
fn attacks_that_wreck_a_brigade_feed_the_stoppage_check_and_the_replayed_log() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let d = db.to_str().unwrap();
    ok(&[
        "new",
        "--scenario",
        "tutorial-hall",
        "--db",
        d,
        "--seed",
        "3",
    ]);
    ok(&[
        "override",
        "--db",
        d,
        "--reason",
        "set-up",
        "--impose-order",
        "div-2",
        "--text",
        "2nd Div: capture Hall.",
    ]);
    ok(&[
        "override",
        "--db",
        d,
        "--reason",
        "set-up",
        "--place",
        "hall-1=5.07",
    ]);
    for _ in 0..3 {
        ok(&["turn", "--db", d]);
    }
    // The Allied Hall brigade attacks 2-2-I until it is wrecked (or can attack no more).
    for _ in 0..6 {
        let out = staffwork(&[
            "combat",
            "close-combat",
            "--db",
            d,
            "--attacker",
            "hall-1",
            "--defender",
            "2-2-i",
        ]);
        if !out.status.success()
            || String::from_utf8_lossy(&out.stdout).contains("2-2-i is wrecked")
        {
            break;
        }
    }
    ok(&["turn", "--db", d]);
    ok(&["turn", "--db", d]);
    let log = json(&["log", "--db", d, "--umpire"]);
    let events = log["events"].as_array().unwrap();
    let wrecked = events
        .iter()
        .any(|e| e["event"]["kind"] == "wrecked-changed" && e["event"]["command"] == "2-2-i");
    assert!(wrecked, "2-2-I was not wrecked");
    let check = events
        .iter()
        .rev()
        .find(|e| e["event"]["kind"] == "stoppage-checked" && e["event"]["command"] == "div-2")
        .expect("a stoppage check after the combat");
    assert_eq!(check["event"]["wrecked"], 1, "{check}");
    if check["event"]["passed"] == false {
        assert!(
            events
                .iter()
                .any(|e| e["event"]["kind"] == "withdrawal-began"
                    && e["event"]["cause"] == "stoppage")
        );
    }
    // The Imperial player never sees the Allied brigade's losses; the replay verifies.
    let imperial = serde_json::to_string(&json(&["log", "--db", d, "--side", "imperial"])).unwrap();
    assert!(
        !imperial.contains("\"unit\":\"hall-1\""),
        "imperial sees Allied losses"
    );
    assert!(imperial.contains("combat-resolved"));
    let v = json(&["replay", "--db", d, "--verify"]);
    assert_eq!(v["ok"], true, "{v}");
}

/// The visibility each kind of event must have (rule 4.0; decision 0041).
fn policy(kind: &str) -> &'static [&'static str] {
    match kind {
        "step-began" | "turn-began" | "game-ended" | "combat-resolved" => &["public"],
        "game-started" | "override" | "combat-dice" | "unit-state-set" => &["umpire"],
        // A Loose Cannon's order is written by one side and carried out by the other.
        "order-issued" | "order-accepted" => &["side", "public"],
        _ => &["side"],
    }
}

#[test]
fn every_kind_of_event_has_the_visibility_rule_4_0_gives_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("demo.db");
    let d = db.to_str().unwrap();
    ok(&["demo", "--quiet", "--db", d]);
    // Add combat, an override and more turns to the demo's game.
    ok(&[
        "override",
        "--db",
        d,
        "--reason",
        "set-up",
        "--place",
        "hall-2=5.07",
    ]);
    ok(&["turn", "--db", d, "--until-turn", "6"]);
    ok(&["turn", "--db", d]);
    ok(&["turn", "--db", d]);
    ok(&["turn", "--db", d]);
    let _ = staffwork(&[
        "combat",
        "close-combat",
        "--db",
        d,
        "--attacker",
        "hall-2",
        "--defender",
        "1-2-i",
    ]);
    let log = json(&["log", "--db", d, "--umpire"]);
    let mut kinds = std::collections::BTreeSet::new();
    for e in log["events"].as_array().unwrap() {
        let kind = e["event"]["kind"].as_str().unwrap();
        let to = e["event"]["visibility"]["to"].as_str().unwrap();
        assert!(policy(kind).contains(&to), "{kind} is visible to {to}: {e}");
        if to == "side" {
            let side = e["event"]["visibility"]["side"].as_str().unwrap();
            assert!(side == "imperial" || side == "allied");
        }
        kinds.insert(kind.to_string());
    }
    for k in [
        "acceptance-rolled",
        "order-distorted",
        "stoppage-checked",
        "withdrawal-began",
        "straggler-check",
        "combat-resolved",
        "unit-losses-taken",
        "override",
        "initiative-rolled",
    ] {
        assert!(
            kinds.contains(k),
            "the game should show `{k}`; it has {kinds:?}"
        );
    }
}

#[test]
fn a_game_keeps_its_combat_table_overrides_and_refuses_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    // The printed Loss Charts might give more boxes per strength level than our assumption.
    let tables = dir.path().join("combat.toml");
    std::fs::write(
        &tables,
        "[wrecked]\nrule = \"21.6 (printed chart)\"\nprovenance = \"seed\"\nbrigade_fraction = [1, 2]\ndivision_less = 1\nboxes_per_a = 12\nmorale_change = -1\n",
    )
    .unwrap();
    let db = dir.path().join("g.db");
    let d = db.to_str().unwrap();
    ok(&[
        "new",
        "--scenario",
        "tutorial-hall",
        "--db",
        d,
        "--combat-tables",
        tables.to_str().unwrap(),
    ]);
    let log = json(&["log", "--db", d, "--umpire"]);
    let start = &log["events"][0]["event"];
    let hall = start["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u[0] == "hall-1")
        .unwrap();
    assert_eq!(
        hall[1]["track"]["boxes"], 12,
        "an A brigade has 12 boxes with the override: {hall}"
    );
    let v = json(&["replay", "--db", d, "--verify"]);
    assert_eq!(v["ok"], true, "{v}");

    std::fs::write(&tables, "[wrecked]\nboxes_per_a = \"many\"\n").unwrap();
    let bad = dir.path().join("bad.db");
    let out = staffwork(&[
        "new",
        "--scenario",
        "tutorial-hall",
        "--db",
        bad.to_str().unwrap(),
        "--combat-tables",
        tables.to_str().unwrap(),
    ]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("combat tables"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!bad.exists(), "a refused game leaves no file");
}

/// `override --set-unit` (20.4, 21.1, 22.2): the umpire sets a unit's Loss Chart row, Morale
/// State and Blown status; the next combat starts from it; no side sees it.
#[test]
fn the_umpire_sets_a_units_state_and_no_side_sees_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("u.db");
    let d = db.to_str().unwrap();
    ok(&["new", "--scenario", "tutorial-hall", "--db", d]);
    let out = ok(&[
        "override",
        "--db",
        d,
        "--reason",
        "Hall brigade mauled earlier",
        "--set-unit",
        "hall-1",
        "--losses",
        "2 (1)",
        "--morale-state",
        "shaken",
    ]);
    assert!(
        out.contains("umpire sets hall-1: 2 permanent, 1 stragglers (7 of 10 boxes left), Shaken"),
        "{out}"
    );
    ok(&[
        "override",
        "--db",
        d,
        "--reason",
        "blown in a charge",
        "--set-unit",
        "cav-i",
        "--blown",
    ]);
    let log = json(&["log", "--db", d, "--umpire"]);
    let set: Vec<&serde_json::Value> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["event"])
        .filter(|e| e["kind"] == "unit-state-set")
        .collect();
    assert_eq!(set.len(), 2);
    assert_eq!(set[0]["unit"], "hall-1");
    assert_eq!(set[0]["track"]["permanent"], 2);
    assert_eq!(set[0]["track"]["stragglers"], 1);
    assert_eq!(set[0]["morale"], "shaken");
    assert_eq!(set[0]["visibility"]["to"], "umpire");
    assert_eq!(set[1]["unit"], "cav-i");
    assert_eq!(set[1]["blown"], true);
    assert_eq!(
        set[1]["morale"], "normal",
        "the morale state is left as it was"
    );
    // Taking the cavalry's Blown status away again.
    ok(&[
        "override",
        "--db",
        d,
        "--reason",
        "ruled not blown",
        "--set-unit",
        "cav-i",
        "--not-blown",
    ]);
    let log = json(&["log", "--db", d, "--umpire"]);
    let last = log["events"].as_array().unwrap().last().unwrap()["event"].clone();
    assert_eq!(last["kind"], "unit-state-set");
    assert_eq!(last["blown"], false);
    for side in ["imperial", "allied"] {
        let view = serde_json::to_string(&json(&["log", "--db", d, "--side", side])).unwrap();
        assert!(
            !view.contains("unit-state-set"),
            "{side} sees the umpire's setting"
        );
        assert!(!view.contains("mauled"), "{side} sees the umpire's reason");
    }
    let v = json(&["replay", "--db", d, "--verify"]);
    assert_eq!(v["ok"], true, "{v}");
}

/// Bad `--set-unit` input is refused with the field and a fix, and changes nothing.
#[test]
fn a_bad_unit_setting_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("b.db");
    let d = db.to_str().unwrap();
    ok(&["new", "--scenario", "tutorial-hall", "--db", d]);
    let before = head(&db);
    let cases: Vec<(Vec<&str>, &[&str])> = vec![
        (
            vec!["--set-unit", "hall-9", "--losses", "1 (0)"],
            &[
                "--set-unit",
                "`hall-9` is not a unit",
                "did you mean hall-1",
            ],
        ),
        (
            vec!["--set-unit", "hall-1", "--losses", "two"],
            &["--losses", "not \"P (S)\"", "--losses \"2 (1)\""],
        ),
        (
            vec!["--set-unit", "hall-1", "--losses", "2 (1"],
            &["--losses", "not \"P (S)\""],
        ),
        (
            vec!["--set-unit", "hall-1", "--losses", "7 (5)"],
            &["--losses 7 (5) marks 12 boxes", "has 10", "at most 10"],
        ),
        (
            vec!["--set-unit", "cav-i", "--losses", "1 (1)"],
            &["not infantry", "Stragglers"],
        ),
        (
            vec!["--set-unit", "hall-1", "--blown"],
            &["--blown", "not cavalry"],
        ),
        (vec!["--set-unit", "hall-1"], &["say what to set"]),
        (vec!["--losses", "1 (0)"], &["--set-unit"]),
    ];
    for (extra, words) in cases {
        let mut args = vec!["override", "--db", d, "--reason", "fix"];
        args.extend(extra.iter().copied());
        let out = staffwork(&args);
        assert_ne!(out.status.code(), Some(0), "{args:?} should fail");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        for w in words {
            assert!(text.contains(w), "{args:?}: `{w}` not in: {text}");
        }
        assert_eq!(head(&db), before, "{args:?} changed the file");
    }
}
