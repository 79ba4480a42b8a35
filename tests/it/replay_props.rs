//! Property: any game replays. Random sequences of commands (many of them refused) are played on
//! the tutorial scenario in memory; then playback from the recorded events equals the live
//! state, and re-simulation from the seed reproduces every event byte for byte.

use proptest::prelude::*;
use staffwork::engine::{CombatKind, Command, OverrideAction};
use staffwork::game::{Game, NewGame, Until};
use staffwork::hex::Hex;
use staffwork::rules::Method;

fn typed(text: &str, side: &str) -> staffwork::engine::TypedOrder {
    let scenario = staffwork::scenario::bundled("tutorial-hall").unwrap();
    staffwork::game::typed_order(&staffwork::order::check_one(
        text,
        Some(&scenario),
        Some(side),
    ))
}

/// A pool of commands a player or umpire might give at any moment.
fn command(i: u8) -> Command {
    let order = |to: &str, text: &str, method| Command::IssueOrder {
        side: "imperial".into(),
        from: "davrange".into(),
        to: to.into(),
        method,
        order: typed(text, "imperial"),
    };
    match i % 15 {
        0..=2 => Command::Advance,
        3 => order(
            "div-2",
            "2nd Div: attack up the Säter road and capture Hall.",
            Method::Oral,
        ),
        4 => order(
            "div-3",
            "3rd Div: march to Kümla and defend.",
            Method::Written,
        ),
        5 => order("cav-i", "Cav-I: join 3rd Division.", Method::Written),
        6 => Command::RollInitiative {
            commander: "sauret".into(),
            command: "div-3".into(),
            order: typed(
                "3rd Div: march to Kirseberg and defend the bridge.",
                "imperial",
            ),
        },
        7 => Command::RollInitiative {
            commander: "rosenblad".into(),
            command: "hall-div".into(),
            order: typed(
                "Hall Div: attack along the Hinzeberg road and capture Hinzeberg.",
                "allied",
            ),
        },
        8 => Command::DefaultDefense {
            command: "div-4".into(),
        },
        9 => Command::Withdraw {
            command: "div-2".into(),
        },
        10 => Command::Move {
            piece: "hall-1".into(),
            to: Hex::new(5, 7),
            path: Vec::new(),
            formation: None,
            face: None,
            forced_march: 0,
            extend: Vec::new(),
            retract: Vec::new(),
            extension: None,
            backstep: false,
            retreat_from: None,
            as_seen: false,
        },
        11 => Command::Combat {
            kind: CombatKind::CloseCombat { fortified: false },
            attackers: vec!["hall-1".into()],
            defenders: vec!["2-2-i".into()],
            options: Default::default(),
        },
        // A retreat (21.4, decision 0141), refused or not, replays like any move.
        13 => Command::Move {
            piece: "2-2-i".into(),
            to: Hex::new(4, 8),
            path: vec![Hex::new(4, 7), Hex::new(4, 8)],
            formation: None,
            face: None,
            forced_march: 0,
            extend: Vec::new(),
            retract: Vec::new(),
            extension: None,
            backstep: false,
            retreat_from: Some(Hex::new(4, 5)),
            as_seen: false,
        },
        12 => Command::Override {
            reason: "ruling".into(),
            action: OverrideAction::SetWrecked {
                command: "1-2-i".into(),
                wrecked: true,
            },
        },
        _ => Command::StageComplete {
            command: "div-3".into(),
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    #[test]
    fn any_game_replays(seed in 0u64..1000, script in proptest::collection::vec(0u8..=255, 1..60)) {
        let (_, text) = staffwork::scenario::bundled_text("tutorial-hall").unwrap();
        let scenario = staffwork::scenario::bundled("tutorial-hall").unwrap();
        let mut game = Game::in_memory(NewGame::on(text.to_string(), scenario, seed).unwrap()).unwrap();
        for i in script {
            // Refusals write nothing; that is part of what is being checked.
            let _ = game.execute("umpire", &command(i));
        }
        let _ = game.advance(Until::Once, None);
        let replayed = game.state_at(None).unwrap();
        prop_assert_eq!(&replayed, &game.state);
        let v = game.verify().unwrap();
        prop_assert!(v.ok(), "{:?}", v);
    }
}
