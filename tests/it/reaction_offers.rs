//! Reaction Charges offered along a move (16.5, decision 0155): the enemy cavalry whose
//! Reaction Zone a unit moved, changed formation or retreated in, at which hexes, and which of
//! them need its Morale Check (16.5.5); shown in the move's response, the umpire's status and
//! the umpire's web console, to the cavalry's side and not the mover's. A retreat offers
//! Reaction Charges (16.5: "including … retreating … units") but no Opportunity Fire (17.4.5).
//! On the conformance suite's mini-reaction scenario (`aus-cav` at 3.06 facing N).

use staffwork::app::{self, Request, Response};
use staffwork::game::{Game, NewGame};
use staffwork::rules::dice::{Purpose, ScriptedDice};
use staffwork::view::Viewer;

fn game(dir: &std::path::Path) -> Game {
    let db = dir.join("rc.db");
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/scenarios/mini-reaction.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let sc = staffwork::scenario::parse("mini-reaction.toml", &text).unwrap();
    Game::create(&db, NewGame::on(text, sc, 1).unwrap()).unwrap();
    Game::open(&db).unwrap()
}

fn run(game: &mut Game, seat: &Viewer, line: &str) -> app::Applied {
    let req = app::parse_request(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    match app::execute(game, seat, &req).unwrap_or_else(|e| panic!("{line}: {e}")) {
        Response::Applied(a) => a,
        other => panic!("{line}: {other:?}"),
    }
}

fn status(game: &mut Game, seat: &Viewer) -> app::StatusView {
    match app::execute(game, seat, &Request::Status).unwrap() {
        Response::Status(s) => *s,
        other => panic!("{other:?}"),
    }
}

fn hexes(o: &staffwork::engine::opportunity::ReactionOffer) -> Vec<(String, bool)> {
    o.hexes
        .iter()
        .map(|z| (z.hex.to_string(), z.morale_check))
        .collect()
}

#[test]
fn a_move_through_a_reaction_zone_offers_the_cavalry_a_charge_16_5() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = game(dir.path());
    run(&mut g, &Viewer::Umpire, "turn");
    let a = run(&mut g, &Viewer::Umpire, "move --piece fr-col --to 5.05");
    let [o] = &a.reaction_charges[..] else {
        panic!("one offer: {:?}", a.reaction_charges)
    };
    assert_eq!(
        (o.cavalry.as_str(), o.side.as_str()),
        ("aus-cav", "austrian")
    );
    assert!(!o.retreat);
    // 1 to 3 hexes, in line of sight; 5.05 lies outside its frontal arc (16.5.5).
    assert_eq!(
        hexes(o),
        vec![
            ("5.08".into(), false),
            ("5.07".into(), false),
            ("5.06".into(), false),
            ("5.05".into(), true)
        ]
    );
    // Trigger b: a formation change in the zone.
    let a = run(
        &mut g,
        &Viewer::Umpire,
        "move --piece fr-col --to 5.05 --formation line",
    );
    assert_eq!(
        a.reaction_charges[0]
            .formation_changes
            .iter()
            .map(|z| z.hex.to_string())
            .collect::<Vec<_>>(),
        vec!["5.05".to_string()]
    );
    // The umpire's pending items and the cavalry's side see it; the mover's side does not (4.0).
    assert_eq!(status(&mut g, &Viewer::Umpire).reaction_charges.len(), 1);
    assert_eq!(
        status(&mut g, &Viewer::Side("austrian".into()))
            .reaction_charges
            .len(),
        1
    );
    assert!(
        status(&mut g, &Viewer::Side("french".into()))
            .reaction_charges
            .is_empty()
    );
}

#[test]
fn a_required_retreat_offers_reaction_charges_but_no_opportunity_fire_16_5_17_4_5() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = game(dir.path());
    let u = Viewer::Umpire;
    run(
        &mut g,
        &u,
        "override --reason set-up --set-unit fr-col --morale-state shaken",
    );
    run(&mut g, &u, "turn");
    run(&mut g, &u, "move --piece fr-col --to 5.05");
    // 1(1)M-2 routs the Shaken Column at 5.06: it stands there (decision 0154) and owes 6 hexes.
    let mut dice = ScriptedDice::new();
    dice.push(Purpose::Fire, [1]);
    let req = app::parse_request(
        "combat fire --attacker aus-bty --defender fr-col --opportunity-at 5.06",
    )
    .unwrap();
    app::execute_with(&mut g, &u, &req, Some(&mut dice)).unwrap();
    assert_eq!(g.state.positions["fr-col"].to_string(), "5.06");
    let a = run(
        &mut g,
        &u,
        "move --piece fr-col --to 11.09 --path 6.06,7.07,8.07,9.08,10.08,11.09 --retreat-from 5.03",
    );
    assert!(
        a.opportunity_fire.is_empty(),
        "17.4.5: {:?}",
        a.opportunity_fire
    );
    let retreat: Vec<_> = a.reaction_charges.iter().filter(|o| o.retreat).collect();
    let [o] = &retreat[..] else {
        panic!("one retreat offer: {:?}", a.reaction_charges)
    };
    assert_eq!(o.cavalry, "aus-cav");
    assert_eq!(
        hexes(o).into_iter().map(|(h, _)| h).collect::<Vec<_>>(),
        vec!["5.06".to_string(), "6.06".to_string()]
    );
    // 17.4.5: no battery may fire at a hex of the retreat.
    let req = app::parse_request(
        "combat fire --attacker aus-bty2 --defender fr-col --opportunity-at 6.06",
    )
    .unwrap();
    assert!(app::execute(&mut g, &u, &req).is_err());
}

/// 16.2.1 with 16.5 and 17.4.6 (decision 0195): a Square formed against a Reaction Charge
/// without `--square-fire` is in the game — `formation-changed` before the combat's result (the
/// Square is formed before the melee), `status` showing it in Square — and its formation
/// change is offered to no battery afterwards: the fire at it is the charge's own.
#[test]
fn a_square_formed_against_a_charge_is_in_status_and_offered_to_no_battery_16_2_1() {
    use staffwork::engine::EventKind;
    let dir = tempfile::tempdir().unwrap();
    let mut g = game(dir.path());
    let u = Viewer::Umpire;
    run(&mut g, &u, "turn");
    run(&mut g, &u, "move --piece fr-col --to 5.06");
    // fr-col stands (6), the cavalry breaks off (4), its loss 5, odd/even 5.
    let mut dice = ScriptedDice::new();
    dice.push(Purpose::Charge, [6, 4, 5, 5]);
    let req = app::parse_request(
        "combat charge --attacker aus-cav --defender fr-col --reaction --at 5.06 --form-square",
    )
    .unwrap();
    let Response::Applied(a) = app::execute_with(&mut g, &u, &req, Some(&mut dice)).unwrap() else {
        panic!("applied")
    };
    let at = |want: fn(&EventKind) -> bool| a.events.iter().position(|e| want(&e.kind));
    let square = at(|k| {
        matches!(k, EventKind::FormationChanged { unit, to, rule, .. }
            if unit == "fr-col" && *to == staffwork::scenario::UnitFormation::Square && rule == "16.2.1")
    })
    .expect("formation-changed to Square");
    let resolved = at(|k| matches!(k, EventKind::CombatResolved { .. })).expect("combat-resolved");
    assert!(square < resolved, "the Square comes before the result");
    // Its path still offers aus-bty fire (17.4 triggers 1, 5); the Square does not.
    assert!(
        a.opportunity_fire
            .iter()
            .all(|o| o.formation_changes.is_empty()),
        "{:?}",
        a.opportunity_fire
    );
    let s = status(&mut g, &u);
    let f = s.formations.iter().find(|f| f.unit == "fr-col").unwrap();
    assert_eq!(f.formation, staffwork::scenario::UnitFormation::Square);
    assert_eq!(f.facing, "all-around");
}

/// 13.2.1 with 8.3 (decision 0198): a Line Extension charged in its own hex forms a Square of its
/// own — `formation-changed` with its hex, said as the extension's in the log — and `status`
/// shows that extension in Square to its side and the umpire while its parent stays in Line.
#[test]
fn a_line_extensions_square_is_its_own_in_status_13_2_1() {
    use staffwork::engine::EventKind;
    use staffwork::scenario::UnitFormation;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ext.db");
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/scenarios/mini-reaction-cavalry.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let sc = staffwork::scenario::parse("mini-reaction-cavalry.toml", &text).unwrap();
    Game::create(&db, NewGame::on(text, sc, 1).unwrap()).unwrap();
    let mut g = Game::open(&db).unwrap();
    let u = Viewer::Umpire;
    run(&mut g, &u, "turn");
    run(&mut g, &u, "move --piece fr-line --to 9.09 --extend 10.08");
    let mut dice = ScriptedDice::new();
    dice.push(Purpose::Charge, [6, 4, 5, 5]);
    let req = app::parse_request(
        "combat charge --attacker aus-cav3 --defender fr-line --defender-at 10.08 --reaction --form-square",
    )
    .unwrap();
    let Response::Applied(a) = app::execute_with(&mut g, &u, &req, Some(&mut dice)).unwrap() else {
        panic!("applied")
    };
    let square = a
        .events
        .iter()
        .find(|e| {
            matches!(&e.kind, EventKind::FormationChanged { unit, extension: Some(h), .. }
                if unit == "fr-line" && h.to_string() == "10.08")
        })
        .expect("the extension's formation-changed");
    let said = staffwork::engine::describe::describe(square);
    assert!(
        said.contains("fr-line's Line Extension at 10.08 changes formation Line → Square"),
        "{said}"
    );
    for seat in [u.clone(), Viewer::Side("french".into())] {
        let s = status(&mut g, &seat);
        let f = s.formations.iter().find(|f| f.unit == "fr-line").unwrap();
        assert_eq!(
            f.formation,
            UnitFormation::Line,
            "the parent keeps its Line"
        );
        let ext = &f.extension_parts[0];
        assert_eq!(ext.hex.to_string(), "10.08");
        assert_eq!(ext.formation, UnitFormation::Square);
    }
}

/// 8.3.1.2 with decision 0206: a Square the umpire sets Routed (`override --set-unit …
/// --morale-state routed`) leaves it for Column as one a combat Routs does; the change is the
/// umpire's, as the override is — in his log, not in the unit's side's.
#[test]
fn a_square_the_umpire_routs_leaves_it_seen_by_the_umpire_only_8_3_1_2() {
    use staffwork::scenario::UnitFormation;
    let dir = tempfile::tempdir().unwrap();
    let mut g = game(dir.path());
    let u = Viewer::Umpire;
    run(&mut g, &u, "turn");
    run(&mut g, &u, "move --piece fr-col --to 5.06");
    let mut dice = ScriptedDice::new();
    dice.push(Purpose::Charge, [6, 4, 5, 5]);
    let req = app::parse_request(
        "combat charge --attacker aus-cav --defender fr-col --reaction --at 5.06 --form-square",
    )
    .unwrap();
    app::execute_with(&mut g, &u, &req, Some(&mut dice)).unwrap();
    let formation = |g: &mut Game| {
        let s = status(g, &Viewer::Umpire);
        s.formations
            .iter()
            .find(|f| f.unit == "fr-col")
            .map(|f| f.formation)
    };
    assert_eq!(formation(&mut g), Some(UnitFormation::Square));
    run(
        &mut g,
        &u,
        r#"override --reason "a ruling" --set-unit fr-col --morale-state routed"#,
    );
    assert_eq!(formation(&mut g), Some(UnitFormation::Column));
    let told = |g: &mut Game, seat: &Viewer| -> String {
        let Response::Log(log) = app::execute(g, seat, &Request::Log).unwrap() else {
            panic!("expected a log")
        };
        log.events
            .iter()
            .map(|e| e.event.describe())
            .collect::<Vec<_>>()
            .join("; ")
    };
    let umpire = told(&mut g, &u);
    assert!(umpire.contains("8.3.1.2"), "{umpire}");
    let french = told(&mut g, &Viewer::Side("french".into()));
    assert!(!french.contains("8.3.1.2"), "{french}");
}

/// 16.5 with 13.1.1 and 13.1.3 (decision 0211): a Line Extension's own move — its generation
/// included — offers the enemy cavalry a Reaction Charge of its own, naming the extension's hex
/// (`extension`, to aim at with `--defender-at`): in the move's response, and in `status` to the
/// umpire and the cavalry's side, never to the moving side (4.0). Its turn in place in a later
/// phase offers nothing (16.5.9, decision 0212).
#[test]
fn a_line_extensions_own_move_offers_a_reaction_charge_at_it_16_5_13_1_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ext.db");
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/scenarios/mini-reaction-cavalry.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let sc = staffwork::scenario::parse("mini-reaction-cavalry.toml", &text).unwrap();
    Game::create(&db, NewGame::on(text, sc, 1).unwrap()).unwrap();
    let mut g = Game::open(&db).unwrap();
    let u = Viewer::Umpire;
    run(
        &mut g,
        &u,
        "override --reason set-up --place aus-cav2=10.12",
    );
    run(
        &mut g,
        &u,
        "override --reason set-up --place aus-cav3=16.01",
    );
    run(&mut g, &u, "turn");
    let a = run(&mut g, &u, "move --piece fr-line --to 9.09 --extend 10.08");
    assert!(
        a.reaction_charges.is_empty(),
        "10.08 is 4 hexes from aus-cav2: {:?}",
        a.reaction_charges
    );
    let a = run(
        &mut g,
        &u,
        "move --piece fr-line --extension 10.08 --to 10.09",
    );
    let [o] = &a.reaction_charges[..] else {
        panic!("one offer: {:?}", a.reaction_charges)
    };
    assert_eq!(
        (o.target.as_str(), o.cavalry.as_str()),
        ("fr-line", "aus-cav2")
    );
    assert_eq!(o.extension.map(|h| h.to_string()).as_deref(), Some("10.09"));
    assert_eq!(hexes(o), vec![("10.09".into(), false)]);
    // Aimed at the unit, which did not move there: refused, the help naming the extension.
    let req = app::parse_request(
        "combat charge --attacker aus-cav2 --defender fr-line --reaction --at 10.09 --no-square",
    )
    .unwrap();
    let Err(app::AppError::Refused(r)) = app::execute(&mut g, &u, &req) else {
        panic!("refused");
    };
    assert_eq!((r.code, r.rule), ("not-offered", "16.5"));
    assert!(
        r.help
            .contains("its Line Extension now in 10.09 (--defender-at 10.09)"),
        "{}",
        r.help
    );
    for (seat, sees) in [
        (u.clone(), true),
        (Viewer::Side("austrian".into()), true),
        (Viewer::Side("french".into()), false),
    ] {
        let s = status(&mut g, &seat);
        let offered = s
            .reaction_charges
            .iter()
            .any(|o| o.extension.is_some_and(|h| h.to_string() == "10.09"));
        assert_eq!(offered, sees, "{seat:?}: {:?}", s.reaction_charges);
    }
    // The next French Movement Phase: a turn in place is no trigger.
    for _ in 0..4 {
        run(&mut g, &u, "turn");
    }
    let a = run(
        &mut g,
        &u,
        "move --piece fr-line --extension 10.09 --to 10.09 --face SSW",
    );
    assert!(a.reaction_charges.is_empty(), "{:?}", a.reaction_charges);
    assert!(status(&mut g, &u).reaction_charges.is_empty());
}
