//! The arc an attack comes through, read from facing (10.0, decision 0140), through the CLI: the
//! combat text shows it, the umpire may rule it otherwise with a reason, a side may not.

use crate::common::{staffwork, stdout};

const SCENARIO: &str = "tests/conformance/scenarios/mini-arcs.toml";

fn game(dir: &std::path::Path) -> String {
    let db = dir.join("g.db").to_str().unwrap().to_string();
    let ok = |args: &[&str]| {
        let o = staffwork(args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    ok(&["new", "--db", &db, "--scenario", SCENARIO]);
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

#[test]
fn the_combat_text_names_the_defenders_facing_and_the_rear_arc() {
    let dir = tempfile::tempdir().unwrap();
    let db = game(dir.path());
    // fr-1 stands at 5.04, across aus-1's S hexside; aus-1 set up with N frontal.
    let o = staffwork(&[
        "combat",
        "close-combat",
        "--db",
        &db,
        "--attacker",
        "fr-1",
        "--defender",
        "aus-1",
    ]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(
        out.contains(
            "attack on aus-1 (N front (NNE or NNW)) through its S hexside: rear arc (10.0) — facing"
        ),
        "{out}"
    );
    assert!(out.contains("attacked_in_rear -2"), "{out}");
}

#[test]
fn a_side_may_not_rule_the_arc_and_nothing_is_written() {
    use staffwork::app::{self, AppError, NewRequest};
    use staffwork::view::Viewer;
    let new = app::prepare_new(&NewRequest {
        scenario: SCENARIO.into(),
        seed: 1,
        tables: None,
        combat_tables: None,
        movement_tables: None,
        variant: Vec::new(),
    })
    .expect("scenario loads");
    let mut g = app::create(None, new).expect("game starts").0;
    for line in [
        r#"override --reason set-up --impose-order fr-1 --text "French 1st brigade: attack the Austrian line.""#,
        "turn",
    ] {
        app::execute(&mut g, &Viewer::Umpire, &app::parse_request(line).unwrap()).unwrap();
    }
    let before = g.state.events;
    let ruled = app::parse_request(
        r#"combat close-combat --attacker fr-1 --defender aus-1 --attack-arc front --ruling "we say so""#,
    )
    .unwrap();
    let e = app::execute(&mut g, &Viewer::Side("french".into()), &ruled).unwrap_err();
    assert!(matches!(e, AppError::Forbidden(_)), "{e:?}");
    assert!(e.to_string().contains("only the umpire"), "{e}");
    assert_eq!(g.state.events, before);
    // A ruling needs its reason: --attack-arc alone is not a request.
    assert!(
        app::parse_request(
            "combat close-combat --attacker fr-1 --defender aus-1 --attack-arc rear"
        )
        .is_err()
    );
}
