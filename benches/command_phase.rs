//! A whole Command Phase for an army of 30 commands (issue 4: turns resolve in milliseconds),
//! pure engine, no store. Figures go to docs/performance.md.
//!
//! The bench writes a miniature scenario (below): a Blue army of two corps, six divisions,
//! eighteen infantry brigades and three cavalry brigades (30 commands), with pre-set orders in
//! force (Engage orders that must check Attack Stoppage, orders in delay), then plays three Blue
//! Command Phases sending every order the command points allow, and at turn 3 also rolls for
//! Initiative. From that Command window it measures `Engine::decide(&state, &Command::Advance,
//! &mut SeededDice)`: Attack Stoppage, Delay Reduction and New Order Acceptance for the whole
//! army, and the end of the player turn after it; in the same run, the raw parts it cannot do
//! without (one clone of the state, the same number of seeded dice).

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

// The same allocator as the `staffwork` binary (src/main.rs), so the figures are what it does.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use staffwork::engine::{Command, Engine, Event, GameState, Refusal, Step, TypedOrder, evolve};
use staffwork::game::type_presets;
use staffwork::rules::dice::{Purpose, SeededDice, seeded_roll};
use staffwork::rules::tables::CommandTables;
use staffwork::rules::{Method, OrderType, Posture};
use staffwork::scenario::Scenario;

const SEED: u64 = 7;

/// Per division: (id, name, commander, rating, row).
const DIVISIONS: [(&str, &str, &str, u8, u32); 6] = [
    ("d1", "1st Division", "gen-d1", 2, 4),
    ("d2", "2nd Division", "gen-d2", 3, 6),
    ("d3", "3rd Division", "gen-d3", 1, 8),
    ("d4", "4th Division", "gen-d4", 2, 12),
    ("d5", "5th Division", "gen-d5", 2, 14),
    ("d6", "6th Division", "gen-d6", 3, 16),
];

/// Pre-set order status per command: `A` Engage accepted, `G` General accepted, `D4`..`D6`
/// General in delay; commands not listed start in No Orders (their brigades follow them).
const PRESETS: &[(&str, &str)] = &[
    ("c1", "A"),
    ("c2", "G"),
    ("d1", "A"),
    ("d2", "A"),
    ("d3", "D5"),
    ("d4", "A"),
    ("d5", "D4"),
    ("d6", "D6"),
    ("b-d1-1", "A"),
    ("b-d2-1", "A"),
    ("b-d3-1", "A"),
    ("b-d4-1", "D4"),
    ("b-d5-1", "D5"),
    ("b-d6-1", "D6"),
    ("b-d1-2", "D4"),
    ("b-d2-2", "D6"),
    ("cav-1", "A"),
    ("cav-2", "D5"),
];

fn commander(out: &mut String, id: &str, side: &str, rating: u8, pos: &str) {
    let _ = writeln!(
        out,
        "[[commanders]]\nid = \"{id}\"\nname = \"General {id}\"\nside = \"{side}\"\nrating = {rating}\nposition = \"{pos}\"\n"
    );
}

fn unit(out: &mut String, id: &str, name: &str, side: &str, parent: &str, kind: &str, pos: &str) {
    let extra = if kind.starts_with("artillery") {
        "gun_points = 4".to_string()
    } else {
        "strength = \"A\"\nmorale = \"B\"".to_string()
    };
    let _ = writeln!(
        out,
        "[[units]]\nid = \"{id}\"\nname = \"{name}\"\nside = \"{side}\"\nparent = \"{parent}\"\nkind = \"{kind}\"\n{extra}\nposition = \"{pos}\"\n"
    );
}

/// The miniature scenario: 30 Blue commands, a small Red army, an open 30×20 map.
fn scenario_toml() -> String {
    let mut s = String::from(
        r#"[meta]
id = "bench-army"
title = "An army of 30 commands (bench)"
date = "1809-07-05"
ruleset = "nbs-3.0"

[clock]
first_turn = "1809-07-05T08:00:00"
last_turn = "1809-07-05T18:00:00"
first_player = "blue"

[[sides]]
id = "blue"
name = "Blue"
army = "blue-army"

[[sides]]
id = "red"
name = "Red"
army = "red-army"

"#,
    );
    commander(&mut s, "emperor", "blue", 4, "2.10");
    commander(&mut s, "gen-c1", "blue", 3, "5.06");
    commander(&mut s, "gen-c2", "blue", 3, "5.14");
    for (_, _, cmdr, rating, row) in DIVISIONS {
        commander(&mut s, cmdr, "blue", rating, &format!("7.{row:02}"));
    }
    commander(&mut s, "wellington", "red", 3, "28.10");
    commander(&mut s, "picton", "red", 2, "24.10");

    let _ = writeln!(
        s,
        r#"[[formations]]
id = "blue-army"
name = "Blue Army"
side = "blue"
echelon = "army"
commander = "emperor"
hq = "2.10"

[[formations]]
id = "c1"
name = "I Corps"
side = "blue"
echelon = "corps"
parent = "blue-army"
commander = "gen-c1"
hq = "5.06"

[[formations]]
id = "c2"
name = "II Corps"
side = "blue"
echelon = "corps"
parent = "blue-army"
commander = "gen-c2"
hq = "5.14"

[[formations]]
id = "red-army"
name = "Red Army"
side = "red"
echelon = "army"
commander = "wellington"
hq = "28.10"

[[formations]]
id = "red-div"
name = "Red Division"
side = "red"
echelon = "division"
parent = "red-army"
commander = "picton"
"#
    );
    for (i, (id, name, cmdr, _, _)) in DIVISIONS.iter().enumerate() {
        let corps = if i < 3 { "c1" } else { "c2" };
        let _ = writeln!(
            s,
            "[[formations]]\nid = \"{id}\"\nname = \"{name}\"\nside = \"blue\"\nechelon = \"division\"\nparent = \"{corps}\"\ncommander = \"{cmdr}\"\n"
        );
    }
    for (id, name, _, _, row) in DIVISIONS {
        for k in 1..=3 {
            unit(
                &mut s,
                &format!("b-{id}-{k}"),
                &format!("Brigade {k} of the {name}"),
                "blue",
                id,
                "infantry",
                &format!("{}.{row:02}", 7 + k),
            );
        }
        unit(
            &mut s,
            &format!("art-{id}"),
            &format!("Battery of the {name}"),
            "blue",
            id,
            "artillery-light-foot",
            &format!("6.{row:02}"),
        );
    }
    for (k, pos) in [(1, "4.03"), (2, "4.17"), (3, "3.10")] {
        unit(
            &mut s,
            &format!("cav-{k}"),
            &format!("Cavalry brigade {k}"),
            "blue",
            "blue-army",
            "cavalry-light",
            pos,
        );
    }
    unit(
        &mut s,
        "r1",
        "1st Red Brigade",
        "red",
        "red-div",
        "infantry",
        "24.10",
    );
    unit(
        &mut s,
        "r2",
        "2nd Red Brigade",
        "red",
        "red-div",
        "infantry",
        "24.11",
    );

    s.push_str(
        "[map]\nfirst_col = 1\nlast_col = 30\nfirst_row = 1\nlast_row = 20\nterrain = \"\"\"\n",
    );
    for _ in 0..20 {
        s.push_str(&".".repeat(30));
        s.push('\n');
    }
    s.push_str(
        "\"\"\"\n\n[map.legend]\n\".\" = \"clear\"\n\n[commander_costs.terrain]\nclear = { mp = 1, provenance = \"assumed\" }\n\n",
    );
    s.push_str(
        "[[places]]\nid = \"ridge\"\nname = \"the ridge\"\nkind = \"ridge\"\nhexes = [\"14.08\", \"14.09\", \"14.10\", \"14.11\", \"14.12\"]\n\n",
    );
    for (i, (to, status)) in PRESETS.iter().enumerate() {
        let (text, status) = match *status {
            "A" => ("attack the ridge and capture it.", "accepted"),
            "G" => ("hold the ridge and defend it.", "accepted"),
            d => ("march to the ridge and defend it.", d),
        };
        let _ = writeln!(
            s,
            "[[preset_orders]]\nid = \"p{i}\"\nside = \"blue\"\nto = \"{to}\"\ntext = \"{to}: {text}\"\nstatus = \"{status}\"\n"
        );
    }
    s
}

fn order(n: usize, engage: bool) -> TypedOrder {
    let (text, ty, posture) = if engage {
        (
            "attack the ridge and capture it.",
            OrderType::Engage,
            Posture::Engage,
        )
    } else {
        (
            "march to the ridge and defend it.",
            OrderType::General,
            Posture::General,
        )
    };
    TypedOrder {
        text: text.to_string(),
        readback: text.to_string(),
        order_type: ty,
        stages: vec![posture],
        independent: false,
        key: format!("bench-order-{n}"),
        joins: None,
        attaches: Vec::new(),
    }
}

/// Decide and apply one command with the game's dice.
fn exec(engine: &Engine, state: &mut GameState, cmd: &Command) -> Result<Vec<Event>, Refusal> {
    let mut dice = SeededDice::at(SEED, state.dice.clone());
    let events = engine.decide(state, cmd, &mut dice)?;
    for e in &events {
        evolve(state, e);
    }
    Ok(events)
}

/// Play to the Blue Command window of turn 3 with every order the points allow sent each turn
/// (one Engage and three General orders by voice, 16 points) and two Initiative rolls at turn 3.
fn build_state(engine: &Engine) -> GameState {
    let s = engine.scenario;
    let presets = type_presets(s).expect("pre-set orders type");
    let mut state = engine.initial_state();
    exec(
        engine,
        &mut state,
        &Command::Start {
            presets,
            variants: Vec::new(),
        },
    )
    .expect("start");
    let candidates: Vec<String> = staffwork::engine::oob::commands(s)
        .into_iter()
        .filter(|c| c.side == "blue" && c.id != "blue-army")
        .map(|c| c.id)
        .collect();
    let mut n = 0usize;
    let mut cursor = 0usize;
    loop {
        assert_eq!(state.step, Step::Command);
        if state.phasing() == "blue" {
            let mut sent = 0;
            let mut tries = 0;
            while sent < 4 && tries < candidates.len() {
                let to = &candidates[cursor % candidates.len()];
                cursor += 1;
                tries += 1;
                n += 1;
                let cmd = Command::IssueOrder {
                    side: "blue".into(),
                    from: "emperor".into(),
                    to: to.clone(),
                    method: Method::Oral,
                    order: order(n, sent == 0),
                };
                if exec(engine, &mut state, &cmd).is_ok() {
                    sent += 1;
                }
            }
            if state.turn == 3 {
                for (div, _, cmdr, _, _) in &DIVISIONS[2..4] {
                    n += 1;
                    let _ = exec(
                        engine,
                        &mut state,
                        &Command::RollInitiative {
                            commander: (*cmdr).to_string(),
                            command: (*div).to_string(),
                            order: order(n, true),
                        },
                    );
                }
                return state;
            }
        }
        // Command window → Operations → the next Command window.
        exec(engine, &mut state, &Command::Advance).expect("advance");
        exec(engine, &mut state, &Command::Advance).expect("advance");
    }
}

fn count(events: &[Event], kind: &str) -> usize {
    events.iter().filter(|e| e.kind_name() == kind).count()
}

fn command_phase(c: &mut Criterion) {
    let text = scenario_toml();
    let scenario: Scenario =
        staffwork::scenario::parse("bench-army.toml", &text).expect("bench scenario is valid");
    let tables = CommandTables::nbs();
    let engine = Engine::new(&scenario, tables);
    let commands = staffwork::engine::oob::commands(&scenario)
        .iter()
        .filter(|c| c.side == "blue")
        .count();
    assert_eq!(commands, 30, "the Blue army has 30 commands");
    let state = build_state(&engine);

    // What the measured Advance does, for the table.
    let mut after = state.clone();
    let events = exec(&engine, &mut after, &Command::Advance).expect("advance");
    let dice_before: u64 = state.dice.values().sum();
    let dice_after: u64 = after.dice.values().sum();
    let n_dice = dice_after - dice_before;
    eprintln!(
        "command phase: turn {}, {} commands, {} orders in the log; the Advance makes {} events: \
         {} stoppage checks, {} delay rolls, {} acceptance rolls, {} orders accepted, {} dice",
        state.turn,
        state.commands.len(),
        state.orders.len(),
        events.len(),
        count(&events, "stoppage-checked"),
        count(&events, "delay-rolled"),
        count(&events, "acceptance-rolled"),
        count(&events, "order-accepted"),
        n_dice
    );
    let mut next = after.clone();
    let end = exec(&engine, &mut next, &Command::Advance).expect("end of player turn");
    eprintln!(
        "end of player turn: {} events, {} dice",
        end.len(),
        next.dice.values().sum::<u64>() - dice_after
    );

    let mut g = c.benchmark_group("command_phase");
    g.throughput(Throughput::Elements(1));
    g.bench_function("advance_command_window_30_commands", |b| {
        b.iter(|| {
            let mut dice = SeededDice::at(SEED, state.dice.clone());
            black_box(
                engine
                    .decide(black_box(&state), &Command::Advance, &mut dice)
                    .expect("advance"),
            )
        })
    });
    g.bench_function("advance_and_evolve_30_commands", |b| {
        b.iter(|| {
            let mut s = state.clone();
            black_box(exec(&engine, &mut s, &Command::Advance).expect("advance"));
            s
        })
    });
    g.bench_function("advance_end_of_player_turn", |b| {
        b.iter(|| {
            let mut dice = SeededDice::at(SEED, after.dice.clone());
            black_box(
                engine
                    .decide(black_box(&after), &Command::Advance, &mut dice)
                    .expect("advance"),
            )
        })
    });
    g.bench_function("raw_state_clone", |b| b.iter(|| black_box(state.clone())));
    g.bench_function("raw_same_number_of_seeded_dice", |b| {
        let mut i = 0u64;
        b.iter(|| {
            for _ in 0..n_dice {
                i += 1;
                black_box(seeded_roll(SEED, Purpose::Acceptance, i, 6));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, command_phase);
criterion_main!(benches);
