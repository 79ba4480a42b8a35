//! An order addressed to several commands (rule `lead.several`, decision 0184): every
//! recipient is read, read back and resolved, and in a game the order is a copy to each —
//! all sent, or none. None of these sentences is in the annotated corpus.

use staffwork::app::{self, AppError, MethodArg, OrderRequest, Request, Response};

use super::app_layer::tutorial;
use staffwork::engine::EventKind;
use staffwork::order::{self, CheckedOrder};
use staffwork::view::Viewer;

fn hall(text: &str) -> CheckedOrder {
    let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
    order::check_one(text, Some(&s), Some("imperial"))
}

/// The resolved ids of every recipient, the first first.
fn recipients(o: &CheckedOrder) -> Vec<String> {
    o.recipient
        .iter()
        .chain(&o.also)
        .filter_map(|r| r.resolved.as_ref().map(|x| x.id.clone()))
        .collect()
}

#[test]
fn names_joined_before_will_or_is_to_are_all_recipients() {
    for (text, want) in [
        (
            "Morvan and Sauret will attack Hall.",
            vec!["div-2", "div-3"],
        ),
        (
            "Generals Morvan and Sauret will attack Hall.",
            vec!["div-2", "div-3"],
        ),
        (
            "The 2nd and 3rd Divisions will attack Hall.",
            vec!["div-2", "div-3"],
        ),
        (
            "Morvan, Sauret and Pellerin are to march to Kümla.",
            vec!["div-2", "div-3", "div-4"],
        ),
        ("Morvan, Sauret: attack Hall.", vec!["div-2", "div-3"]),
    ] {
        let o = hall(text);
        assert_eq!(recipients(&o), want, "{text}: {}", o.readback);
        assert!(!o.has_errors(), "{text}: {:?}", o.diagnostics);
    }
}

#[test]
fn the_read_back_names_every_recipient_and_reads_again_the_same() {
    let o = hall("Morvan and Sauret: attack Hall; they are not to pursue beyond the stream.");
    assert!(
        o.readback
            .starts_with("2nd Division and 3rd Division are to attack Hall"),
        "{}",
        o.readback
    );
    assert!(o.readback.contains("are not to pursue"), "{}", o.readback);
    let again = hall(&o.readback);
    assert_eq!(recipients(&again), recipients(&o), "{}", again.readback);
    assert_eq!(again.readback, o.readback);
}

#[test]
fn an_unknown_second_recipient_is_an_error_not_dropped() {
    let o = hall("Morvan and Smith will attack Hall.");
    let unknown: Vec<&str> = o
        .diagnostics
        .iter()
        .filter(|d| d.code == "unknown-recipient")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(unknown.len(), 1, "{:?}", o.diagnostics);
    assert!(unknown[0].contains("Smith"), "{unknown:?}");
}

#[test]
fn a_title_before_a_brigadiers_surname_finds_his_brigade() {
    // Rule `name.title`: "General Fane" is the 6th Brigade (Fane), as "Fane" is.
    let s = staffwork::scenario::bundled("vimeiro-1808").unwrap();
    for text in [
        "General Fane will hold Vimeiro Hill.",
        "Brigadier-General Fane: hold Vimeiro Hill.",
        "Fane will hold Vimeiro Hill.",
    ] {
        let o = order::check_one(text, Some(&s), Some("british"));
        assert_eq!(
            recipients(&o),
            vec!["6-fane"],
            "{text}: {:?}",
            o.diagnostics
        );
    }
}

fn order_request(text: &str, to: Option<&str>, method: MethodArg) -> Request {
    Request::Order(OrderRequest {
        side: "imperial".into(),
        from: None,
        to: to.map(str::to_string),
        method,
        via: None,
        text: text.into(),
    })
}

/// (recipient, cost) of every order issued by the events.
fn issued(events: &[staffwork::engine::Event]) -> Vec<(String, u8)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::OrderIssued { order } => Some((order.recipient.clone(), order.cost)),
            _ => None,
        })
        .collect()
}

#[test]
fn in_a_game_an_order_to_two_commands_is_a_copy_to_each_with_its_own_cost() {
    let mut game = tutorial();
    let seat = Viewer::Side("imperial".into());
    let before = game.state.sides["imperial"].command_points;
    let req = order_request(
        "Morvan and Sauret will march to Kümla.",
        None,
        MethodArg::Oral,
    );
    let Response::Applied(done) = app::execute(&mut game, &seat, &req).expect("sent") else {
        panic!("an order applies events");
    };
    let sent = issued(&done.events);
    assert_eq!(
        sent.iter().map(|(r, _)| r.as_str()).collect::<Vec<_>>(),
        vec!["div-2", "div-3"]
    );
    let spent: u8 = sent.iter().map(|(_, c)| c).sum();
    assert!(sent.iter().all(|(_, c)| *c > 0));
    assert_eq!(game.state.sides["imperial"].command_points, before - spent);
}

#[test]
fn copies_that_cost_more_than_the_side_has_are_refused_whole() {
    let mut game = tutorial();
    let seat = Viewer::Side("imperial".into());
    let events = game.state.clone();
    // Three written Engage orders cost more than the 15 points of the turn (6.4.1).
    let req = order_request(
        "Morvan, Sauret and Pellerin will attack Hall up the Säter road.",
        None,
        MethodArg::Written,
    );
    let Err(AppError::Refused(r)) = app::execute(&mut game, &seat, &req) else {
        panic!("refused");
    };
    assert_eq!(r.code, "not-enough-command-points");
    assert!(r.message.contains("of 3 copies"), "{}", r.message);
    // Nothing was sent: not even the copies the points would have paid for.
    assert_eq!(game.state.orders.len(), events.orders.len());
    assert_eq!(
        game.state.sides["imperial"].command_points,
        events.sides["imperial"].command_points
    );
}

#[test]
fn to_names_the_one_recipient_whatever_the_text_says() {
    let mut game = tutorial();
    let seat = Viewer::Side("imperial".into());
    let req = order_request(
        "Morvan and Sauret will march to Kümla.",
        Some("div-4"),
        MethodArg::Oral,
    );
    let Response::Applied(done) = app::execute(&mut game, &seat, &req).expect("sent") else {
        panic!("an order applies events");
    };
    let sent = issued(&done.events);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].0, "div-4");
}

/// The web table's live check prices all the copies (decision 0184): two oral General orders.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_check_prices_every_copy() {
    let (_dir, st, tokens) = super::web::table(4);
    let side = tokens["side:imperial"].as_str();
    let one = super::web::call(
        &st,
        "POST",
        "/check",
        Some(side),
        &[("text", "Morvan will march to Kümla."), ("method", "oral")],
    )
    .await;
    let two = super::web::call(
        &st,
        "POST",
        "/check",
        Some(side),
        &[
            ("text", "Morvan and Sauret will march to Kümla."),
            ("method", "oral"),
        ],
    )
    .await;
    let cost = |body: &str| -> u32 {
        let at = body.find(" command points").expect("a cost is shown");
        let digits: String = body[..at]
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.chars().rev().collect::<String>().parse().unwrap()
    };
    assert_eq!(cost(&two.body), 2 * cost(&one.body), "{}", two.body);
}
