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

fn pair_game(dir: &std::path::Path) -> String {
    let db = dir.join("pair.db");
    let db = db.to_str().unwrap().to_string();
    let o = staffwork(&[
        "new",
        "--scenario",
        "tests/conformance/scenarios/mini-opportunity-pair.toml",
        "--db",
        &db,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(staffwork(&["turn", "--db", &db]).status.success());
    db
}

fn fire(db: &str, battery: &str, at: &str, more: &[&str]) -> std::process::Output {
    let mut args = vec![
        "combat",
        "fire",
        "--db",
        db,
        "--attacker",
        battery,
        "--defender",
        "fr-col",
        "--opportunity-at",
        at,
    ];
    args.extend_from_slice(more);
    staffwork(&args)
}

/// 17.4 trigger 3 (decision 0154): a formation change in a battery's zone is offered apart from
/// the path, in the move's output and the umpire's status, and the offer closes once fired on.
#[test]
fn a_formation_change_in_the_zone_is_offered_17_4_trigger_3() {
    let dir = tempfile::tempdir().unwrap();
    let db = pair_game(dir.path());
    assert!(
        staffwork(&["move", "--db", &db, "--piece", "fr-col", "--to", "5.06"])
            .status
            .success()
    );
    let v = json(&[
        "move",
        "--db",
        &db,
        "--piece",
        "fr-col",
        "--to",
        "5.06",
        "--formation",
        "line",
        "--format",
        "json",
    ]);
    assert_eq!(v["ok"], true, "{v}");
    let changes: Vec<(String, String)> = v["opportunity_fire"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|o| {
            o["formation_changes"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|z| {
                    (
                        o["battery"].as_str().unwrap().to_string(),
                        z["hex"].as_str().unwrap().to_string(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(
        changes,
        vec![
            ("aus-bty".to_string(), "5.06".to_string()),
            ("aus-bty2".to_string(), "5.06".to_string())
        ],
        "{v}"
    );
    let o = staffwork(&["status", "--db", &db]);
    let text = stdout(&o);
    assert!(
        text.contains("Opportunity Fire (17.4 trigger 3): aus-bty (austrian) at 5.03 may fire at fr-col's formation change at 5.06 (range 3)")
            && text.contains("--formation-change"),
        "{text}"
    );
    let o = fire(&db, "aus-bty", "5.06", &["--formation-change"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // 17.4.1: one firer per trigger — the other battery is no longer offered that change.
    let umpire = json(&["status", "--db", &db, "--format", "json"]);
    let open: Vec<&serde_json::Value> = umpire["opportunity_fire"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| {
            o["formation_changes"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
        })
        .collect();
    assert!(open.is_empty(), "{umpire}");
}

/// 17.4.1 (decision 0154): a second battery on the same trigger is refused with the rule and the
/// hex and writes nothing; a side may not overrule it, the umpire may, with a reason.
#[test]
fn a_second_firer_on_a_trigger_is_refused_and_only_the_umpire_overrules_17_4_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = pair_game(dir.path());
    assert!(
        staffwork(&["move", "--db", &db, "--piece", "fr-col", "--to", "5.05"])
            .status
            .success()
    );
    assert!(fire(&db, "aus-bty", "5.06", &[]).status.success());
    let o = fire(&db, "aus-bty2", "5.06", &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr).to_string() + &stdout(&o);
    assert!(
        err.contains("one-firer-per-trigger") && err.contains("17.4.1") && err.contains("5.06"),
        "{err}"
    );
    let ruled = [
        "--allow-fire",
        "--ruling",
        "the two batteries were laid together",
    ];
    let o = fire(
        &db,
        "aus-bty2",
        "5.06",
        &[&ruled[..], &["--side", "austrian"]].concat(),
    );
    assert!(!o.status.success(), "a side may not overrule 17.4.1");
    let o = fire(&db, "aus-bty2", "5.06", &ruled);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// 17.4.2 (decision 0154): a Line Extension moving on its own is offered as a target of its
/// own, with the `--defender-at` that names it.
#[test]
fn a_line_extension_moving_on_its_own_is_offered_17_4_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ext.db");
    let db = db.to_str().unwrap().to_string();
    let scenario = "tests/conformance/scenarios/mini-opportunity-pair.toml";
    for args in [
        &["new", "--scenario", scenario, "--db", &db][..],
        &[
            "override",
            "--db",
            &db,
            "--reason",
            "set-up",
            "--place",
            "fr-line=6.06",
        ],
        &["turn", "--db", &db],
        &[
            "move", "--db", &db, "--piece", "fr-line", "--to", "6.06", "--extend", "5.07",
        ],
    ] {
        let o = staffwork(args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = staffwork(&[
        "move",
        "--db",
        &db,
        "--piece",
        "fr-line",
        "--extension",
        "5.07",
        "--to",
        "5.06",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    assert!(
        text.contains("aus-bty (austrian) at 5.03 may fire at fr-line's Line Extension (now 5.06) in 5.06 (range 3); fire with `combat fire --attacker aus-bty --defender fr-line --defender-at 5.06 --opportunity-at HEX`"),
        "{text}"
    );
}
