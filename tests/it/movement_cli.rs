//! `staffwork path`, `staffwork los`, `rules show movement` and a side's view (12, 14.1, 4.0)
//! on the conformance suite's mini-movement scenario.

use crate::common::{staffwork, stdout};

fn game(dir: &std::path::Path) -> String {
    let db = dir.join("mv.db");
    let db = db.to_str().unwrap().to_string();
    let o = staffwork(&[
        "new",
        "--scenario",
        "tests/conformance/scenarios/mini-movement.toml",
        "--db",
        &db,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(staffwork(&["turn", "--db", &db]).status.success());
    db
}

fn json(args: &[&str]) -> serde_json::Value {
    let o = staffwork(args);
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&o)))
}

#[test]
fn path_explains_each_hex_and_finds_the_cheapest_route_12() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path());
    let v = json(&[
        "path", "--db", &db, "--piece", "fr-line", "--to", "5.05", "--format", "json",
    ]);
    assert_eq!(v["ok"], true);
    // Round the woods at 4.05: 2 + 2 + 3 = 7 MP = 14 half-points.
    assert_eq!(v["move"]["ruling"]["cost"], 14);
    let path: Vec<String> = v["move"]["ruling"]["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap().to_string())
        .collect();
    assert!(!path.contains(&"4.05".to_string()), "{path:?}");
    assert_eq!(path.first().map(String::as_str), Some("2.05"));
    // A refusal names the rule and the hex and exits 1.
    let o = staffwork(&["path", "--db", &db, "--piece", "fr-lim", "--to", "1.09"]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(text.contains("12.2.2") && text.contains("1.09"), "{text}");
}

#[test]
fn los_explains_the_blocking_hex_14_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path());
    // 8.06 to 11.09 crosses the woods of column 10.
    let v = json(&["los", "--db", &db, "8.06", "11.09", "--format", "json"]);
    assert_eq!(v["visible"], false);
    assert!(v["reason"].as_str().unwrap().contains("woods"), "{v}");
    // Along row 5 the woods at 4.05 add a level (14.1.2.2); row 3 is open.
    let v = json(&["los", "--db", &db, "2.05", "8.05", "--format", "json"]);
    assert_eq!(v["visible"], false, "{v}");
    assert!(v["reason"].as_str().unwrap().contains("4.05"), "{v}");
    let v = json(&["los", "--db", &db, "2.03", "8.03", "--format", "json"]);
    assert_eq!(v["visible"], true, "{v}");
    let o = staffwork(&["los", "--db", &db, "2.05", "40.05"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_side_sees_by_line_of_sight_4_0() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path());
    let v = json(&[
        "status", "--db", &db, "--side", "french", "--format", "json",
    ]);
    let pos = &v["positions"];
    // aus-1 is in sight of French units but not of Napoleon (his line of sight is blocked at
    // 6.07): a stack, not a name (4.0, decision 0161).
    assert!(pos.get("aus-1").is_none(), "{pos}");
    assert_eq!(v["enemy_stacks"], serde_json::json!(["6.08"]), "{v}");
    assert!(pos.get("aus-hidden").is_none(), "{pos}");
}

#[test]
fn rules_show_movement_lists_every_assumed_cell() {
    let o = staffwork(&["rules", "show", "movement"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(
        text.contains("woods") && text.contains("Assumed cells"),
        "{text}"
    );
    let v = json(&["rules", "show", "movement", "--format", "json"]);
    assert_eq!(
        v["movement"]["terrain"]["clear"]["cells"]["line"]["provenance"],
        "seed"
    );
}

#[test]
fn an_enemy_gone_out_of_sight_is_last_seen_where_it_was_4_0() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path());
    // A French brigade next to the hidden Austrians sees them (14.1.1.1) …
    let place = |piece: &str, to: &str| {
        let o = staffwork(&[
            "override",
            "--db",
            &db,
            "--reason",
            "scouting",
            "--place",
            &format!("{piece}={to}"),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    // Napoleon rides with it, so the stack is examined, not only seen (4.0, decision 0161).
    place("fr-hill", "11.08");
    place("napoleon", "11.08");
    for _ in 0..4 {
        assert!(staffwork(&["turn", "--db", &db]).status.success());
    }
    // … through the 12:30 turn; back behind the woods it no longer does: last seen in 11.09 at
    // 12:30, the turn in which it was last in sight.
    place("fr-hill", "8.06");
    place("napoleon", "2.01");
    let v = json(&[
        "status", "--db", &db, "--side", "french", "--format", "json",
    ]);
    assert!(v["positions"].get("aus-hidden").is_none(), "{v}");
    let seen = &v["last_seen"]["aus-hidden"];
    assert_eq!(seen["hex"], "11.09", "{v}");
    assert_eq!(seen["time"], "12:30", "{v}");
    assert_eq!(seen["turn"], 2, "{v}");
}
