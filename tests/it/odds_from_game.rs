//! `staffwork odds close-combat|charge|fire --db GAME --attacker … --defender …`: the exact odds
//! of a combat between pieces of a game, read as the game's combat reads them — the arc from
//! facing included (10.0, decision 0140) — and an arc flag overriding it with a note (decision
//! 0166). The odds' Check to Stand must be the one the game's combat then rolls against.

use crate::common::{staffwork, stdout};
use serde_json::Value;

const SCENARIO: &str = "tests/conformance/scenarios/mini-arcs.toml";

fn ok(args: &[&str]) -> String {
    let o = staffwork(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout(&o)
}

/// The French brigade fr-1 at 5.04 under an Engage order, in the French Operations window;
/// the Austrian Line aus-1 at 5.05 faces N, so fr-1 is across its S hexside: its rear.
fn game(dir: &std::path::Path) -> String {
    let db = dir.join("g.db").to_str().unwrap().to_string();
    ok(&["new", "--db", &db, "--scenario", SCENARIO, "--seed", "3"]);
    ok(&[
        "override",
        "--db",
        &db,
        "--reason",
        "set-up",
        "--impose-order",
        "fr-1",
        "--text",
        "French 1st brigade: attack the Austrian line.",
    ]);
    ok(&["turn", "--db", &db]);
    db
}

fn odds(db: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "odds",
        "close-combat",
        "--db",
        db,
        "--attacker",
        "fr-1",
        "--defender",
        "aus-1",
        "--format",
        "json",
    ];
    args.extend(extra);
    serde_json::from_str(&ok(&args)).expect("odds JSON")
}

/// The Check to Stand of each side as (side, need, modifier, modifiers).
fn stand(checks: &Value) -> Vec<(String, i64, i64, String)> {
    checks
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| {
            (
                c["side"].as_str().unwrap_or_default().to_string(),
                c["need"].as_i64().unwrap_or(-1),
                c["modifier"].as_i64().unwrap_or(-99),
                c["modifiers"].to_string(),
            )
        })
        .collect()
}

#[test]
fn odds_from_a_game_read_the_rear_arc_from_facing_and_match_the_combat_it_then_fights() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path());
    let o = odds(&db, &[]);
    let a = &o["aspects"][0];
    assert_eq!(a["unit"], "aus-1");
    assert_eq!(a["through"][0], "S");
    assert_eq!(a["arc"], "rear", "{o}");
    assert_eq!(a["ruled_by"], "facing");
    assert_eq!(
        o["input"]["close-combat"]["defender"]["attacked_in_rear"],
        true
    );
    let predicted = stand(&o["odds"]["stand"]["checks"]);
    assert!(
        predicted.iter().any(|(s, _, m, mods)| s == "defender"
            && *m == -2
            && mods.contains("attacked_in_rear")),
        "{predicted:?}"
    );
    // The text says where the arc came from.
    let text = ok(&[
        "odds",
        "close-combat",
        "--db",
        &db,
        "--attacker",
        "fr-1",
        "--defender",
        "aus-1",
    ]);
    assert!(
        text.contains(
            "arc: attack on aus-1 (N front (NNE or NNW)) through its S hexside: rear arc (10.0) — facing"
        ),
        "{text}"
    );
    // The game's combat: the same arc and the same Check to Stand, need and modifiers.
    ok(&[
        "combat",
        "close-combat",
        "--db",
        &db,
        "--attacker",
        "fr-1",
        "--defender",
        "aus-1",
    ]);
    let log: Value =
        serde_json::from_str(&ok(&["log", "--db", &db, "--umpire", "--format", "json"])).unwrap();
    let dice = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["event"])
        .find(|e| e["kind"] == "combat-dice")
        .expect("the combat's dice");
    assert_eq!(dice["readback"]["aspects"], o["aspects"]);
    assert_eq!(stand(&dice["readback"]["checks"]), predicted);
}

#[test]
fn an_arc_flag_overrides_the_facing_with_a_note_and_changes_the_odds() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path());
    // fr-1 in front of aus-1 (its N hexside): front arc, no modifier.
    ok(&[
        "override",
        "--db",
        &db,
        "--reason",
        "set-up",
        "--place",
        "fr-1=5.06",
    ]);
    let front = odds(&db, &[]);
    assert_eq!(front["aspects"][0]["arc"], "front");
    let rear = odds(&db, &["--rear"]);
    let a = &rear["aspects"][0];
    assert_eq!(a["arc"], "rear");
    assert!(
        a["ruled_by"]
            .as_str()
            .unwrap()
            .starts_with("umpire: --rear"),
        "{a}"
    );
    assert_ne!(front["odds"]["outcomes"], rear["odds"]["outcomes"]);
    let text = ok(&[
        "odds",
        "close-combat",
        "--db",
        &db,
        "--attacker",
        "fr-1",
        "--defender",
        "aus-1",
        "--rear",
    ]);
    assert!(text.contains("note: the arc is the flag's"), "{text}");
}

#[test]
fn with_a_game_the_combatant_flags_are_refused_and_a_side_may_not_ask() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path());
    let o = staffwork(&[
        "odds",
        "close-combat",
        "--db",
        &db,
        "--attacker",
        "fr-1",
        "--defender",
        "aus-1",
        "--attacker-morale",
        "a",
    ]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cannot be used with"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The odds read the enemy's hidden state: the umpire's only (4.0).
    let mut game = staffwork::game::Game::open(std::path::Path::new(&db)).unwrap();
    let req = staffwork::app::Request::CombatOdds(staffwork::app::CombatRequest::between(
        staffwork::app::ProcedureArg::CloseCombat,
        vec!["fr-1".into()],
        vec!["aus-1".into()],
    ));
    let side = staffwork::view::Viewer::Side("french".into());
    match staffwork::app::execute(&mut game, &side, &req) {
        Err(staffwork::app::AppError::Forbidden(m)) => assert!(m.contains("umpire"), "{m}"),
        other => panic!("a side asked a combat's odds: {other:?}"),
    }
    assert!(staffwork::app::execute(&mut game, &staffwork::view::Viewer::Umpire, &req).is_ok());
}

#[test]
fn a_charges_odds_read_a_lines_secure_flanks_from_the_map_like_the_charge() {
    // Chart p4 note 1: aus-1 (facing NNE or NNW) with Austrian Lines in its flank hexes 6.04 and
    // 4.05 is charged from the N by the hussars: front arc, flanks secure (decision 0140).
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db").to_str().unwrap().to_string();
    ok(&["new", "--db", &db, "--scenario", SCENARIO, "--seed", "3"]);
    for set in [
        vec![
            "--impose-order",
            "fr-hus",
            "--text",
            "French hussars: attack the Austrian line.",
        ],
        vec!["--place", "fr-hus=5.06"],
        vec!["--place", "aus-left=6.04"],
        vec!["--place", "aus-right=4.05"],
    ] {
        let mut args = vec!["override", "--db", &db, "--reason", "set-up"];
        args.extend(set);
        ok(&args);
    }
    ok(&["turn", "--db", &db]);
    let o = charge_odds(&db, "fr-hus", "aus-1", &[]);
    assert_eq!(o["aspects"][0]["arc"], "front", "{o}");
    assert_eq!(o["aspects"][0]["flanks_secure"], true);
    assert_eq!(o["input"]["charge"]["defender"]["line_flanks_secure"], true);
    // The charge itself reads the same.
    ok(&[
        "combat",
        "charge",
        "--db",
        &db,
        "--attacker",
        "fr-hus",
        "--defender",
        "aus-1",
        "--no-square",
    ]);
    let log: Value =
        serde_json::from_str(&ok(&["log", "--db", &db, "--umpire", "--format", "json"])).unwrap();
    let dice = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["event"])
        .find(|e| e["kind"] == "combat-dice")
        .expect("the charge's dice");
    assert_eq!(dice["readback"]["aspects"], o["aspects"]);
}

#[test]
fn a_charges_odds_price_the_square_with_the_morale_state_it_costs() {
    // 11.3.1 with 16.2.1 (decision 0195): the Austrian Line forms Square against the charge in
    // the Zone of Influence of the French Line at 9.02, which costs it a Morale State before the
    // Check to Stand; the odds asked from the game price that, as the charge fights it.
    let scenario = "tests/conformance/scenarios/mini-reaction-cavalry.toml";
    let odds = |in_zone: bool| {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("g.db").to_str().unwrap().to_string();
        ok(&["new", "--db", &db, "--scenario", scenario, "--seed", "3"]);
        let mut sets = vec![vec![
            "--impose-order",
            "french-army",
            "--text",
            "French army: attack the Austrian line.",
        ]];
        if in_zone {
            sets.push(vec!["--place", "fr-line=9.02"]);
        }
        for set in sets {
            let mut args = vec!["override", "--db", &db, "--reason", "set-up"];
            args.extend(set);
            ok(&args);
        }
        ok(&["turn", "--db", &db]);
        charge_odds(&db, "fr-cav", "aus-inf", &["--form-square"])
    };
    let inside = odds(true);
    let outside = odds(false);
    let d = |o: &Value| o["input"]["charge"]["defender"].clone();
    assert_eq!(d(&inside)["morale_state"], "shaken", "{inside}");
    assert_eq!(d(&inside)["formation"], "square", "{inside}");
    assert_eq!(d(&outside)["morale_state"], "normal", "{outside}");
    assert_eq!(d(&outside)["formation"], "square", "{outside}");
    assert_ne!(
        inside["odds"], outside["odds"],
        "the lost Morale State changes the odds"
    );
}

/// `odds charge --db DB --attacker A --defender D EXTRA… --format json`, parsed.
fn charge_odds(db: &str, attacker: &str, defender: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "odds",
        "charge",
        "--db",
        db,
        "--attacker",
        attacker,
        "--defender",
        defender,
        "--format",
        "json",
    ];
    args.extend(extra);
    serde_json::from_str(&ok(&args)).unwrap()
}
