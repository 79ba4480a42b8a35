//! Issue 17, decision 0162: a formation moving as one (`move --whole FORMATION --to HEX`) and
//! `show FORMATION`. At Vimeiro's first French Operations window Loison's division (Loison,
//! Solignac's and Charlot's brigades) stands at 40.06.

use crate::common::{staffwork, stdout};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Vimeiro in the first French Operations window.
fn french_operations(dir: &tempfile::TempDir) -> String {
    let db = dir.path().join("v.db").to_string_lossy().into_owned();
    assert!(
        staffwork(&["new", "--db", &db, "--scenario", "vimeiro-1808"])
            .status
            .success()
    );
    assert!(staffwork(&["turn", "--db", &db]).status.success());
    db
}

fn positions(db: &str) -> serde_json::Value {
    let o = staffwork(&["status", "--db", db, "--format", "json"]);
    serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()["positions"].clone()
}

fn hex(s: &str) -> staffwork::hex::Hex {
    s.parse().unwrap()
}

#[test]
fn a_division_moves_as_one_keeping_its_places() {
    let dir = tempfile::tempdir().unwrap();
    let db = french_operations(&dir);
    // Spread the division first (the umpire's placements), so the shape is worth keeping.
    for place in ["solignac=39.06", "charlot=40.07"] {
        let o = staffwork(&[
            "override", "--db", &db, "--reason", "deploy", "--place", place,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let before = positions(&db);
    let o = staffwork(&[
        "move",
        "--db",
        &db,
        "--whole",
        "Loison's division",
        "--to",
        "37.07",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    for piece in [
        "loison moves 40.06 → 37.07",
        "solignac moves 39.06",
        "charlot moves 40.07",
    ] {
        assert!(t.contains(piece), "{piece} in {t}");
    }
    let after = positions(&db);
    // Every pair of members is as far apart as before (the shape is kept, 12.0 per member).
    let members = ["loison", "solignac", "charlot"];
    for a in members {
        for b in members {
            let d0 = hex(before[a].as_str().unwrap()).distance(hex(before[b].as_str().unwrap()));
            let d1 = hex(after[a].as_str().unwrap()).distance(hex(after[b].as_str().unwrap()));
            assert_eq!(d0, d1, "{a}–{b}: {before} → {after}");
        }
    }
    assert_eq!(after["loison"], "37.07");
    // Each member's move is a move of its own in the record: replay verifies.
    let v = stdout(&staffwork(&["replay", "--db", &db, "--verify"]));
    assert!(v.contains("verify: ok"), "{v}");
}

#[test]
fn one_members_refusal_moves_nothing_and_names_the_member_rule_and_hex() {
    let dir = tempfile::tempdir().unwrap();
    let db = french_operations(&dir);
    let before = positions(&db);
    let o = staffwork(&[
        "move",
        "--db",
        &db,
        "--whole",
        "loison-div",
        "--to",
        "30.07",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let err = stderr(&o);
    // Charlot's brigade runs out of Movement Points first (12.1.3); the refusal says so.
    assert!(
        err.contains("not-enough-mp") && err.contains("12.1.3"),
        "{err}"
    );
    assert!(err.contains("charlot to 30.07"), "{err}");
    assert!(err.contains("nothing moved"), "{err}");
    assert_eq!(positions(&db), before, "nothing moved");
    // A side may not move the enemy's formation.
    let o = staffwork(&[
        "move",
        "--db",
        &db,
        "--whole",
        "loison-div",
        "--to",
        "38.07",
        "--side",
        "british",
    ]);
    assert_ne!(o.status.code(), Some(0));
    assert_eq!(positions(&db), before);
}

#[test]
fn show_a_formation_to_its_side_and_not_to_the_enemy() {
    let dir = tempfile::tempdir().unwrap();
    let db = french_operations(&dir);
    let o = staffwork(&["show", "--db", &db, "Loison's division", "--side", "french"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    for want in [
        "(loison-div) — french, division",
        "commander",
        "order      order",
        "solignac",
        "charlot",
        "40.06",
    ] {
        assert!(t.contains(want), "{want} in {t}");
    }
    let doc: serde_json::Value = serde_json::from_slice(
        &staffwork(&["show", "--db", &db, "loison-div", "--format", "json"]).stdout,
    )
    .unwrap();
    assert_eq!(doc["formation"], "loison-div");
    assert!(doc["members"].as_array().unwrap().len() >= 3, "{doc}");
    // The British: refused in the same words as a name that is nothing at all (4.0).
    let real = staffwork(&[
        "show",
        "--db",
        &db,
        "Loison's division",
        "--side",
        "british",
    ]);
    let fake = staffwork(&[
        "show",
        "--db",
        &db,
        "Loisxn's division",
        "--side",
        "british",
    ]);
    assert_eq!(real.status.code(), Some(1));
    assert_eq!(
        stderr(&real).replace("Loison", "X"),
        stderr(&fake).replace("Loisxn", "X")
    );
}
