//! Issue 17, decision 0161: an enemy seen only as a stack. 4.0: "Players can only examine enemy
//! stacks at or within 12 hexes of a friendly Commander and within that Commander's LOS";
//! elsewhere a side in sight of an enemy stack knows only that a stack stands there. In the
//! tutorial battle the Säter brigade (25.04) and the allied Army HQ with Stedingk (25.11) are in
//! the imperial units' sight but more than 12 hexes from every imperial Commander.

use crate::common::{staffwork, stdout};

fn new_game(dir: &tempfile::TempDir) -> String {
    let db = dir.path().join("g.db").to_str().unwrap().to_string();
    let o = staffwork(&["new", "--scenario", "tutorial-hall", "--db", &db]);
    assert!(o.status.success());
    db
}

fn json(args: &[&str]) -> serde_json::Value {
    let o = staffwork(args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The pieces and only-a-stack hexes a side's `status` shows.
fn sighted(db: &str, side: &str) -> (Vec<String>, Vec<String>) {
    let v = json(&["status", "--db", db, "--side", side, "--format", "json"]);
    let named = v["positions"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let stacks = v["enemy_stacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap().to_string())
        .collect();
    (named, stacks)
}

#[test]
fn an_enemy_beyond_12_hexes_of_every_commander_is_only_a_stack() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_game(&dir);
    let (named, stacks) = sighted(&db, "imperial");
    // In sight of imperial units, but no imperial Commander within 12 hexes (4.0).
    for piece in ["sater-bde", "stedingk", "hq:allied-army"] {
        assert!(
            !named.contains(&piece.to_string()),
            "{piece} named: {named:?}"
        );
    }
    assert!(stacks.contains(&"25.04".to_string()), "{stacks:?}");
    assert!(stacks.contains(&"25.11".to_string()), "{stacks:?}");
    // Within 12 hexes of Sauret (8.10) and in his sight: examined, named.
    assert!(named.contains(&"hall-1".to_string()), "{named:?}");
    assert!(!stacks.contains(&"17.10".to_string()), "{stacks:?}");
    // The text: a stack, never its name, strength or count.
    let t = stdout(&staffwork(&["status", "--db", &db, "--side", "imperial"]));
    assert!(t.contains("an enemy stack       25.04"), "{t}");
    for secret in ["sater-bde", "Säter", "stedingk", "Stedingk"] {
        assert!(!t.contains(secret), "{secret} in {t}");
    }
    // `show` of a unit seen only as a stack: the same refusal as for one not seen at all.
    let o = staffwork(&["show", "--db", &db, "sater-bde", "--side", "imperial"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("not-seen") && !err.contains("25.04"), "{err}");
    // The umpire sees every piece by name.
    let (all, none) = sighted_umpire(&db);
    assert!(all.contains(&"sater-bde".to_string()) && none.is_empty());
}

fn sighted_umpire(db: &str) -> (Vec<String>, Vec<serde_json::Value>) {
    let v = json(&["status", "--db", db, "--format", "json"]);
    (
        v["positions"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect(),
        v["enemy_stacks"].as_array().unwrap().clone(),
    )
}

#[test]
fn a_commander_within_12_hexes_with_sight_examines_the_stack() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_game(&dir);
    let o = staffwork(&[
        "override",
        "--db",
        &db,
        "--reason",
        "scouting",
        "--place",
        "sauret=17.06",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (named, stacks) = sighted(&db, "imperial");
    assert!(named.contains(&"sater-bde".to_string()), "{named:?}");
    assert!(!stacks.contains(&"25.04".to_string()), "{stacks:?}");
    // A stack is examined whole or not at all: no hex is both a stack and a named enemy's.
    let v = json(&[
        "status", "--db", &db, "--side", "imperial", "--format", "json",
    ]);
    for (piece, hex) in v["positions"].as_object().unwrap() {
        assert!(
            !stacks.contains(&hex.as_str().unwrap().to_string()),
            "{piece} named at a stack's hex {hex}"
        );
    }
}

#[test]
fn the_turn_report_shows_a_stack_not_its_units() {
    let dir = tempfile::tempdir().unwrap();
    let db = new_game(&dir);
    assert!(staffwork(&["turn", "--db", &db]).status.success());
    for format in ["text", "html"] {
        let t = stdout(&staffwork(&[
            "report", "--db", &db, "--side", "imperial", "--turn", "1", "--format", format,
        ]));
        assert!(t.contains("stack at 25.04"), "{t}");
        assert!(!t.contains("Säter") && !t.contains("sater-bde"), "{t}");
    }
    let r = json(&[
        "report", "--db", &db, "--side", "imperial", "--turn", "1", "--format", "json",
    ]);
    assert!(
        r["enemy_stacks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h == "25.04"),
        "{r}"
    );
}
