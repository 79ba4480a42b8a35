//! Opportunity Fire offered along a move (17.4, decision 0167): the `move` command's output
//! (text and JSON) and the umpire's status name the batteries that may fire and the hexes of
//! the path in their zone; a side sees only its own batteries' offers. On the conformance
//! suite's mini-opportunity scenario.

use crate::common::{staffwork, stdout};

fn game(dir: &std::path::Path) -> String {
    let db = dir.join("of.db");
    let db = db.to_str().unwrap().to_string();
    let o = staffwork(&[
        "new",
        "--scenario",
        "tests/conformance/scenarios/mini-opportunity.toml",
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

fn batteries(v: &serde_json::Value) -> Vec<String> {
    v["opportunity_fire"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|o| o["battery"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_move_offers_opportunity_fire_at_the_hexes_of_its_path_in_the_zone_17_4() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path());
    let v = json(&[
        "move", "--db", &db, "--piece", "fr-col", "--to", "5.05", "--format", "json",
    ]);
    assert_eq!(v["ok"], true, "{v}");
    // Only the Unlimbered battery facing the path: not the one facing away (its rear and
    // flank), nor the Limbered one.
    assert_eq!(batteries(&v), vec!["aus-bty".to_string()], "{v}");
    let offer = &v["opportunity_fire"][0];
    assert_eq!(offer["target"], "fr-col");
    assert_eq!(offer["side"], "austrian");
    assert_eq!(offer["battery_hex"], "5.03");
    // 5.07 is 4 hexes away; 5.06 (3) and 5.05 (2) are in the zone, in path order.
    let hexes: Vec<(String, u64)> = offer["hexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|z| {
            (
                z["hex"].as_str().unwrap().to_string(),
                z["range"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        hexes,
        vec![("5.06".to_string(), 3), ("5.05".to_string(), 2)],
        "{v}"
    );
}

#[test]
fn the_move_text_says_who_may_fire_and_how_17_4() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path());
    let o = staffwork(&["move", "--db", &db, "--piece", "fr-col", "--to", "5.05"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    assert!(
        text.contains("Opportunity Fire (17.4): aus-bty (austrian) at 5.03 may fire at fr-col in 5.06 (range 3), 5.05 (range 2)"),
        "{text}"
    );
    assert!(text.contains("--opportunity-at HEX"), "{text}");
    assert!(
        !text.contains("aus-back") && !text.contains("aus-limber"),
        "{text}"
    );
}

#[test]
fn the_umpire_sees_the_pending_offer_and_the_moving_side_does_not_17_4() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path());
    assert!(
        staffwork(&["move", "--db", &db, "--piece", "fr-col", "--to", "5.05"])
            .status
            .success()
    );
    let umpire = json(&["status", "--db", &db, "--format", "json"]);
    assert_eq!(batteries(&umpire), vec!["aus-bty".to_string()], "{umpire}");
    let austrian = json(&[
        "status", "--db", &db, "--side", "austrian", "--format", "json",
    ]);
    assert_eq!(
        batteries(&austrian),
        vec!["aus-bty".to_string()],
        "{austrian}"
    );
    // 4.0: the French are not told which enemy batteries could fire.
    let french = json(&[
        "status", "--db", &db, "--side", "french", "--format", "json",
    ]);
    assert!(batteries(&french).is_empty(), "{french}");
    // 17.4.1: once the battery has fired at the Column, the offer is gone.
    let o = staffwork(&[
        "combat",
        "fire",
        "--db",
        &db,
        "--attacker",
        "aus-bty",
        "--defender",
        "fr-col",
        "--opportunity-at",
        "5.06",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let umpire = json(&["status", "--db", &db, "--format", "json"]);
    assert!(batteries(&umpire).is_empty(), "{umpire}");
    // A move that stays out of every zone offers nothing.
    let v = json(&[
        "move", "--db", &db, "--piece", "fr-line", "--to", "9.08", "--format", "json",
    ]);
    assert_eq!(v["ok"], true, "{v}");
    assert!(batteries(&v).is_empty(), "{v}");
}
