//! `move --face`, `--forced-march`, `--extend` and `status` showing formation, facing and Line
//! Extensions (10, 12.5.6, 13) through the command line, on the conformance suite's
//! mini-facing and mini-march scenarios.

use crate::common::{staffwork, stdout};

fn game(dir: &std::path::Path, scenario: &str) -> String {
    let db = dir.join("f.db");
    let db = db.to_str().unwrap().to_string();
    let o = staffwork(&[
        "new",
        "--scenario",
        &format!("tests/conformance/scenarios/{scenario}.toml"),
        "--db",
        &db,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(staffwork(&["turn", "--db", &db]).status.success());
    db
}

fn status_row(db: &str, unit: &str) -> serde_json::Value {
    let o = staffwork(&["status", "--db", db, "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["formations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["unit"] == unit)
        .cloned()
        .unwrap_or_else(|| panic!("no row for {unit}: {v}"))
}

#[test]
fn status_shows_the_corner_a_unit_faces_after_it_turns_10() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "mini-facing");
    // Before: the scenario's "N" leaves two corners open.
    let row = status_row(&db, "fa-n");
    assert_eq!(row["facing"], "N front (NNE or NNW)");
    assert_eq!(row["formation"], "line");
    let o = staffwork(&[
        "move", "--db", &db, "--piece", "fa-n", "--to", "5.05", "--face", "E",
    ]);
    assert!(o.status.success(), "{}", stdout(&o));
    let row = status_row(&db, "fa-n");
    assert_eq!(row["facing"], "E");
    assert_eq!(row["mp_spent"], "1");
    // The text view says it too.
    let text = stdout(&staffwork(&["status", "--db", &db]));
    assert!(text.contains("faces E"), "{text}");
}

#[test]
fn a_bad_corner_is_a_usage_error_and_a_refused_turn_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "mini-facing");
    // "N" is a hexside, not a corner: clap refuses it with the list of corners (exit 2).
    let o = staffwork(&[
        "move", "--db", &db, "--piece", "fa-n", "--to", "5.05", "--face", "N",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("NNE") && err.contains("hexside"), "{err}");
    // A Skirmisher has no facing to set: refused by rule, exit 1, nothing written.
    let o = staffwork(&[
        "move", "--db", &db, "--piece", "fa-sk", "--to", "2.08", "--face", "E",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stderr);
    assert!(text.contains("10.1.4") && text.contains("2.08"), "{text}");
    assert_eq!(status_row(&db, "fa-sk")["facing"], "all-around");
}

#[test]
fn forced_march_sets_are_limited_on_the_command_line_12_5_6() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "mini-march");
    let o = staffwork(&[
        "move",
        "--db",
        &db,
        "--piece",
        "fm-col",
        "--to",
        "13.02",
        "--forced-march",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let o = staffwork(&[
        "move",
        "--db",
        &db,
        "--piece",
        "fm-col",
        "--to",
        "13.02",
        "--forced-march",
        "1",
    ]);
    assert!(o.status.success(), "{}", stdout(&o));
    let log = stdout(&staffwork(&["log", "--db", &db]));
    assert!(log.contains("fm-col moves 3.02 → 13.02"), "{log}");
}

#[test]
fn line_extensions_show_in_status_and_are_taken_back_13() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "mini-facing");
    let o = staffwork(&[
        "move",
        "--db",
        &db,
        "--piece",
        "fa-n",
        "--to",
        "5.05",
        "--extend",
        "4.05,6.05",
    ]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(
        status_row(&db, "fa-n")["extensions"],
        serde_json::json!(["4.05", "6.05"])
    );
    // 13.0: it may move only to end next to each extension; 5.04 is not next to 4.05.
    let o = staffwork(&["move", "--db", &db, "--piece", "fa-n", "--to", "5.04"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("13.0") && err.contains("4.05"), "{err}");
    let o = staffwork(&[
        "move",
        "--db",
        &db,
        "--piece",
        "fa-n",
        "--to",
        "5.05",
        "--retract",
        "4.05,6.05",
    ]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(status_row(&db, "fa-n")["extensions"], serde_json::json!([]));
}

#[test]
fn path_explains_forced_march_facing_and_zoi_without_moving() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "mini-march");
    let o = staffwork(&[
        "path",
        "--db",
        &db,
        "--piece",
        "fm-col",
        "--to",
        "13.02",
        "--forced-march",
        "1",
        "--face",
        "W",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stdout(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // 10 road hexes at 1 MP, then an about-face to W: 11 MP of the 11 Forced March gives.
    assert_eq!(v["move"]["ruling"]["cost"], 22, "{v}");
    assert_eq!(v["move"]["ruling"]["facing"], "W");
    // Nothing moved.
    let log = stdout(&staffwork(&["log", "--db", &db]));
    assert!(!log.contains("fm-col moves"), "{log}");

    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "mini-facing");
    let text = stdout(&staffwork(&[
        "path",
        "--db",
        &db,
        "--piece",
        "fa-z",
        "--to",
        "8.03",
        "--path",
        "7.03,8.03",
    ]));
    assert!(text.contains("11.3.1") && text.contains("12.1.2"), "{text}");
}

/// 13.1.2 (decision 0153): `status` shows each Line Extension's own Morale State, facing and MP
/// spent, which differ from its parent's once it turns on its own.
#[test]
fn status_shows_each_line_extensions_own_morale_facing_and_mp_13_1_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path(), "mini-facing");
    let run = |args: &[&str]| {
        let mut a = args.to_vec();
        a.extend(["--db", &db]);
        let o = staffwork(&a);
        assert!(o.status.success(), "{args:?}: {}", stdout(&o));
    };
    run(&[
        "override",
        "--reason",
        "set-up",
        "--set-unit",
        "fa-n",
        "--morale-state",
        "shaken",
    ]);
    run(&[
        "move", "--piece", "fa-n", "--to", "5.05", "--extend", "4.05",
    ]);
    run(&[
        "move",
        "--piece",
        "fa-n",
        "--extension",
        "4.05",
        "--to",
        "4.05",
        "--face",
        "W",
    ]);
    let row = status_row(&db, "fa-n");
    let part = &row["extension_parts"][0];
    assert_eq!(part["hex"], "4.05", "{row}");
    assert_eq!(part["morale"], "shaken", "{row}");
    assert_eq!(part["facing"], "W", "{row}");
    assert_ne!(part["mp_spent"], row["mp_spent"], "its own MP: {row}");
    let text = stdout(&staffwork(&["status", "--db", &db]));
    assert!(
        text.contains("Line Extensions in 4.05 (shaken, faces W,"),
        "{text}"
    );
}
