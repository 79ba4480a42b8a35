//! A historian's what-if: play the same opening many times with other dice and count outcomes.
//!
//! Each run is a whole game held in memory: the tutorial scenario, an Engage order to 2nd
//! Division, then two game turns. We count how often the order was accepted by 09:00.
//!
//! `cargo run --release --example what_if -- 1000`

use staffwork::engine::{Command, OrderStatus};
use staffwork::game::{Game, NewGame, Until};
use staffwork::rules::Method;

fn main() {
    let runs: u64 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let (_, text) = staffwork::scenario::bundled_text("tutorial-hall").expect("bundled");
    let scenario = staffwork::scenario::bundled("tutorial-hall").expect("bundled");
    let order_text = "2nd Div: attack up the Säter road and capture Hall.";
    let checked = staffwork::order::check_one(order_text, Some(&scenario), Some("imperial"));
    let order = staffwork::game::typed_order(&checked);
    let mut accepted = 0;
    for seed in 0..runs {
        let new =
            NewGame::on(text.to_string(), scenario.clone(), seed).expect("pre-set orders read");
        let mut game = Game::in_memory(new).expect("game starts");
        let issue = Command::IssueOrder {
            side: "imperial".into(),
            from: "davrange".into(),
            to: "div-2".into(),
            method: Method::Written,
            order: order.clone(),
        };
        game.execute("imperial", &issue).expect("order sent");
        game.advance(Until::Turn(3), None).expect("turns run");
        if game
            .state
            .orders
            .values()
            .any(|o| o.recipient == "div-2" && o.status == OrderStatus::Accepted)
        {
            accepted += 1;
        }
    }
    println!("2nd Division's Engage order was accepted by 09:00 in {accepted} of {runs} games");
}
