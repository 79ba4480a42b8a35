//! The application layer (`staffwork::app`) as a front end other than the CLI uses it: typed
//! requests, a seat, typed responses. A side acts only for itself and sees only its own; the
//! umpire may do everything; a refused request writes nothing.

use staffwork::app::{self, AppError, MethodArg, NewRequest, OrderRequest, Request, Response};
use staffwork::game::Game;
use staffwork::view::Viewer;

pub(crate) fn tutorial() -> Game {
    let new = app::prepare_new(&NewRequest {
        scenario: "tutorial-hall".into(),
        seed: 7,
        tables: None,
        combat_tables: None,
        movement_tables: None,
        variant: Vec::new(),
    })
    .expect("bundled scenario loads");
    app::create(None, new).expect("game starts").0
}

fn imperial_order() -> Request {
    Request::Order(OrderRequest {
        side: "imperial".into(),
        from: None,
        to: None,
        method: MethodArg::Written,
        via: None,
        text: "3rd Div: march to Kümla and defend.".into(),
    })
}

fn side(s: &str) -> Viewer {
    Viewer::Side(s.into())
}

#[test]
fn a_side_sends_its_own_order_and_gets_typed_events() {
    let mut game = tutorial();
    let r = app::execute(&mut game, &side("imperial"), &imperial_order()).expect("accepted");
    let Response::Applied(a) = r else {
        panic!("expected events, got {r:?}")
    };
    assert!(!a.events.is_empty());
    // 6.4.1: a written General order costs 5 + 1; Davrange had 15.
    assert_eq!(game.state.sides["imperial"].command_points, 9);
    let json = serde_json::to_value(Response::Applied(a)).unwrap();
    assert_eq!(json["response"], "applied");
}

#[test]
fn a_side_cannot_write_the_enemys_order_and_nothing_changes() {
    let mut game = tutorial();
    let before = game.state.events;
    let e = app::execute(&mut game, &side("allied"), &imperial_order()).unwrap_err();
    assert!(matches!(e, AppError::Forbidden(_)), "{e:?}");
    assert!(e.is_judged());
    assert!(e.to_string().contains("allied"), "{e}");
    assert_eq!(game.state.events, before);
    assert_eq!(game.store.events().unwrap().len() as u64, before);
}

#[test]
fn only_the_umpire_runs_the_turn_and_overrides() {
    let mut game = tutorial();
    let turn = app::parse_request("turn").unwrap();
    let e = app::execute(&mut game, &side("imperial"), &turn).unwrap_err();
    assert!(matches!(e, AppError::Forbidden(_)), "{e:?}");
    let wreck = app::parse_request(r#"override --reason "test" --wreck div-2"#).unwrap();
    let e = app::execute(&mut game, &side("imperial"), &wreck).unwrap_err();
    assert!(matches!(e, AppError::Forbidden(_)), "{e:?}");
    assert!(app::execute(&mut game, &Viewer::Umpire, &turn).is_ok());
}

#[test]
fn an_unknown_side_is_a_bad_request_naming_the_sides() {
    let mut game = tutorial();
    let e = app::execute(&mut game, &side("nosuch"), &Request::Status).unwrap_err();
    assert!(matches!(e, AppError::BadRequest(_)), "{e:?}");
    let m = e.to_string();
    assert!(
        m.contains("nosuch") && m.contains("imperial") && m.contains("allied"),
        "{m}"
    );
}

#[test]
fn a_side_sees_its_own_orders_only_and_no_enemy_odds() {
    let mut game = tutorial();
    app::execute(&mut game, &Viewer::Umpire, &imperial_order()).expect("accepted");
    let Response::Status(allied) =
        app::execute(&mut game, &side("allied"), &Request::Status).unwrap()
    else {
        panic!("status")
    };
    assert!(
        allied.orders.iter().all(|o| o.side == "allied"),
        "{:?}",
        allied.orders
    );
    assert!(allied.commands.iter().all(|c| c.side == "allied"));
    assert!(allied.sides.iter().all(|s| s.side == "allied"));
    let Response::Status(umpire) =
        app::execute(&mut game, &Viewer::Umpire, &Request::Status).unwrap()
    else {
        panic!("status")
    };
    let sent = umpire
        .orders
        .iter()
        .find(|o| o.side == "imperial" && o.text.contains("Kümla"))
        .expect("the umpire sees the imperial order")
        .number;
    // The enemy's order and a missing order 99 read the same to the allied side (4.0).
    let odds = |n| app::parse_request(&format!("odds --order {n}")).unwrap();
    let a = app::execute(&mut game, &side("allied"), &odds(sent)).unwrap_err();
    let b = app::execute(&mut game, &side("allied"), &odds(99)).unwrap_err();
    assert_eq!(
        a.to_string().replace(&format!(" {sent} "), " N "),
        b.to_string().replace(" 99 ", " N ")
    );
    // The imperial side asks by its own number: its orders counted alone (decision 0160).
    let Response::Status(imperial) =
        app::execute(&mut game, &side("imperial"), &Request::Status).unwrap()
    else {
        panic!("status")
    };
    let own = imperial
        .orders
        .iter()
        .find(|o| o.text.contains("Kümla"))
        .expect("the imperial side sees its order")
        .number;
    assert_eq!(
        imperial.orders.iter().map(|o| o.number).collect::<Vec<_>>(),
        (1..=imperial.orders.len() as u32).collect::<Vec<_>>(),
        "a side's own orders are numbered 1, 2, 3 …"
    );
    assert!(own < sent, "the allied pre-set orders are not counted");
    match app::execute(&mut game, &side("imperial"), &odds(own)).unwrap() {
        Response::Odds(o) => assert_eq!(o.order, own),
        other => panic!("odds, got {other:?}"),
    }
}

#[test]
fn an_order_with_errors_comes_back_with_its_diagnostics() {
    let mut game = tutorial();
    let bad = app::parse_request(r#"order --side imperial --method written "xyzzy""#).unwrap();
    match app::execute(&mut game, &Viewer::Umpire, &bad) {
        Err(AppError::Order(checked)) => assert!(checked.has_errors()),
        other => panic!("expected order errors, got {other:?}"),
    }
}

#[test]
fn requests_travel_as_json() {
    let req: Request = serde_json::from_str(
        r#"{"action": "order", "side": "imperial", "method": "written", "text": "3rd Div: march to Kümla and defend."}"#,
    )
    .expect("a request as JSON");
    let mut game = tutorial();
    assert!(app::execute(&mut game, &side("imperial"), &req).is_ok());
    let turn: Request = serde_json::from_str(r#"{"action": "turn"}"#).unwrap();
    assert!(matches!(turn, Request::Turn(_)));
}

/// 21.4, decision 0171: a side retreats a unit a combat required to retreat, or a Routed one;
/// a retreat nobody required is refused to the side and writes nothing — it is the umpire's.
#[test]
fn a_side_may_not_retreat_a_unit_no_combat_required_to_21_4() {
    let mut game = tutorial();
    let turn = app::parse_request("turn").unwrap();
    app::execute(&mut game, &Viewer::Umpire, &turn).unwrap();
    let retreat = app::parse_request("move --piece cav-i --to 20.10 --retreat-from 20.12").unwrap();
    let before = game.state.events;
    let e = app::execute(&mut game, &side("imperial"), &retreat).unwrap_err();
    assert!(matches!(e, AppError::Forbidden(_)), "{e:?}");
    assert!(e.to_string().contains("umpire's to order"), "{e}");
    assert_eq!(game.state.events, before);
    // The enemy asking about the same unit hears only that it moves its own pieces.
    let e = app::execute(&mut game, &side("allied"), &retreat).unwrap_err();
    assert!(e.to_string().contains("moves only its own pieces"), "{e}");
    // The umpire is not stopped by the seat rule (the engine's own 21.4 checks still apply).
    if let Err(e) = app::execute(&mut game, &Viewer::Umpire, &retreat) {
        assert!(!e.to_string().contains("umpire's to order"), "{e}");
    }
}

/// 11.3.2 with 12.1.2 (decision 0182, brief rules13): a side's move cut short by its own
/// Disorganization on the way (Morale Degradation moving ZoI to ZoI) tells the side's seat
/// where it stopped and why, as the umpire's does: the side's move is planned on what it sees
/// and walked against the truth (decision 0181), and the cut must survive that second walk.
#[test]
fn a_side_is_told_where_its_own_disorganization_stopped_its_move() {
    let new = app::prepare_new(&NewRequest {
        scenario: "tests/conformance/scenarios/mini-facing.toml".into(),
        seed: 7,
        tables: None,
        combat_tables: None,
        movement_tables: None,
        variant: Vec::new(),
    })
    .expect("scenario loads");
    let mut game = app::create(None, new).expect("game starts").0;
    for r in [
        "turn",
        r#"override --reason "set-up: shaken by fire" --set-unit fa-z --morale-state shaken"#,
    ] {
        app::execute(&mut game, &Viewer::Umpire, &app::parse_request(r).unwrap()).unwrap();
    }
    let mv = app::parse_request("move --piece fa-z --to 9.02 --path 7.03,8.02,9.02").unwrap();
    let Response::Applied(a) = app::execute(&mut game, &side("french"), &mv).unwrap() else {
        panic!("expected events")
    };
    let told: Vec<String> = a.events.iter().map(|e| e.describe()).collect();
    let told = told.join("; ");
    assert_eq!(game.state.positions["fa-z"].to_string(), "8.02", "{told}");
    // Where it stopped, short of where it was going, and why (12.1.2 after 11.3.1).
    assert!(
        told.contains("it stops there, short of 9.02")
            && told.contains("as far as 8.02")
            && told.contains("12.1.2")
            && told.contains("became Disorganized"),
        "{told}"
    );
}

/// 12.1.2 with 13.1.3 (decision 0192): a Line Extension the enemy's Opportunity Fire stops short
/// is its own side's news: the French seat reads where its extension now stands and why; the
/// Austrian seat, whose battery fired, is not told the French extension's MP or stop.
#[test]
fn a_side_is_told_where_its_extension_was_stopped_and_the_enemy_is_not() {
    const SEED: u64 = 1;
    let new = app::prepare_new(&NewRequest {
        scenario: "tests/conformance/scenarios/mini-opportunity-start.toml".into(),
        seed: SEED,
        tables: None,
        combat_tables: None,
        movement_tables: None,
        variant: Vec::new(),
    })
    .expect("scenario loads");
    let mut game = app::create(None, new).expect("game starts").0;
    let umpire = |game: &mut Game, r: &str| {
        app::execute(game, &Viewer::Umpire, &app::parse_request(r).unwrap()).unwrap();
    };
    umpire(&mut game, "turn");
    for r in [
        "move --piece fr-line --to 5.06 --extend 6.06",
        "move --piece fr-line --extension 6.06 --to 5.05 --path 6.05,5.05",
    ] {
        app::execute(&mut game, &side("french"), &app::parse_request(r).unwrap()).unwrap();
    }
    // This seed's fire die leaves the extension Disorganized (the case file scripts the dice).
    umpire(
        &mut game,
        "combat fire --attacker aus-bty2 --defender fr-line --defender-at 5.05 --opportunity-at 6.06",
    );
    let told = |game: &mut Game, seat: &Viewer| -> String {
        let Response::Log(log) = app::execute(game, seat, &Request::Log).unwrap() else {
            panic!("expected a log")
        };
        log.events
            .iter()
            .map(|e| e.event.describe())
            .collect::<Vec<_>>()
            .join("; ")
    };
    let french = told(&mut game, &side("french"));
    assert!(
        french.contains("the Line Extension at 5.05 of fr-line stands at 6.05")
            && french.contains("12.1.2"),
        "{french}"
    );
    let austrian = told(&mut game, &side("austrian"));
    assert!(!austrian.contains("stands at 6.05"), "{austrian}");
    assert!(!austrian.contains("MP it had left"), "{austrian}");
}
