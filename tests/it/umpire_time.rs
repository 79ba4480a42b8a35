//! Issue 17's evidence: "the time an umpire needs measured the same way (commands typed per
//! game turn) and written in docs/ with the before and after" (docs/umpiring.md). Eight turns of
//! Vimeiro scripted with today's workbench — names, formations moving as one (`move --whole`),
//! an order checked against the game before it is sent, a mistyped move taken back (`undo`),
//! the umpire's `status` and each side's `report` every turn — counting every command typed,
//! refused ones included. The same plan with one piece per `move` (the tools the 236
//! commands were typed with) is counted alongside.

use std::collections::BTreeMap;

use crate::common::{staffwork, stdout};

/// Commands typed per game turn: (today, one piece per move).
#[derive(Default)]
struct Tally {
    typed: BTreeMap<u32, usize>,
    one_by_one: BTreeMap<u32, usize>,
}

impl Tally {
    /// Run a command as the umpire types it; `pieces` is how many one-piece moves it replaces.
    fn run(&mut self, turn: u32, pieces: usize, args: &[&str]) -> std::process::Output {
        *self.typed.entry(turn).or_default() += 1;
        *self.one_by_one.entry(turn).or_default() += pieces;
        staffwork(args)
    }

    fn ok(&mut self, turn: u32, args: &[&str]) -> String {
        let o = self.run(turn, 1, args);
        assert!(
            o.status.success(),
            "{args:?}: {}{}",
            stdout(&o),
            String::from_utf8_lossy(&o.stderr)
        );
        stdout(&o)
    }
}

/// Where the game stands, read from the file (what the umpire has on the `status` screen).
fn game(db: &str) -> staffwork::game::Game {
    staffwork::game::Game::open(std::path::Path::new(db)).unwrap()
}

#[test]
fn eight_vimeiro_turns_from_the_workbench_count_their_commands() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v.db").to_string_lossy().into_owned();
    let d = db.as_str();
    let mut t = Tally::default();
    t.ok(0, &["new", "--db", d, "--scenario", "vimeiro-1808"]);
    // Each French division marches west in a lane of its own, as one (decision 0162).
    let lanes = [
        ("loison-div", 7),
        ("delaborde-div", 9),
        ("kellerman-div", 8),
        ("margaron-div", 6),
    ];
    for turn in 1..=8u32 {
        // To the French Operations window.
        loop {
            let g = game(d);
            if g.state.turn == turn
                && g.state.phasing() == "french"
                && g.state.step == staffwork::engine::Step::Operations
            {
                break;
            }
            t.ok(turn, &["turn", "--db", d]);
        }
        for (division, row) in lanes {
            let g = game(d);
            let pieces = staffwork::engine::oob::formation_pieces(&g.scenario, &g.state, division);
            let Some(hub) = staffwork::engine::oob::hub_piece(&g.scenario, &g.state, division)
                .and_then(|h| g.state.positions.get(&h).copied())
            else {
                continue;
            };
            // Four hexes if the march allows, else shorter: a refused try is a command typed.
            let moved = (1..=4).rev().any(|k| {
                let to = format!("{}.{row:02}", hub.col - k);
                t.run(
                    turn,
                    pieces.len(),
                    &["move", "--db", d, "--whole", division, "--to", &to],
                )
                .status
                .success()
            });
            assert!(moved, "{division} could not move in turn {turn}");
        }
        // British Command Phase; first, 22.1: cavalry the French marched next to withdraws (the
        // umpire places it, decision 0157).
        loop {
            let o = t.run(turn, 1, &["turn", "--db", d]);
            if o.status.success() {
                break;
            }
            let text = format!("{}{}", stdout(&o), String::from_utf8_lossy(&o.stderr));
            assert!(text.contains("withdrawal-owed"), "{text}");
            let cavalry = text
                .split('`')
                .nth(1)
                .expect("the refusal names the cavalry");
            let at = game(d).state.positions[cavalry];
            let to = format!("{cavalry}={}.{:02}", at.col - 7, at.row);
            let reason = "22.1: the cavalry withdraws";
            t.ok(
                turn,
                &["override", "--db", d, "--reason", reason, "--place", &to],
            );
        }
        if turn == 2 {
            let to = ["--to", "Hill's division"];
            let text = "Take up position at 13.09 and defend it.";
            let base = ["--db", d, "--side", "british", "--method", "written"];
            let mut check = vec!["check"];
            check.extend(base);
            check.extend(to);
            check.extend(["--text", text]);
            assert!(t.ok(turn, &check).contains("would be order 8 to hill-div"));
            let mut order = vec!["order"];
            order.extend(base);
            order.extend(to);
            order.push(text);
            t.ok(turn, &order);
        }
        t.ok(turn, &["turn", "--db", d]); // British Operations
        if turn == 3 {
            // A mistyped hex, taken back on the record (decision 0124), then the move meant.
            t.ok(
                turn,
                &["move", "--db", d, "--piece", "Wellesley", "--to", "15.12"],
            );
            t.ok(turn, &["undo", "--db", d, "--reason", "meant 14.12"]);
            t.ok(
                turn,
                &["move", "--db", d, "--piece", "Wellesley", "--to", "14.12"],
            );
        }
        t.ok(turn, &["turn", "--db", d]); // the turn ends
        t.ok(turn, &["status", "--db", d]);
        for side in ["french", "british"] {
            let report = t.ok(
                turn,
                &[
                    "report",
                    "--db",
                    d,
                    "--side",
                    side,
                    "--turn",
                    &turn.to_string(),
                ],
            );
            assert!(report.contains(&format!("Report for the {side} side, turn {turn}")));
        }
    }
    let v = stdout(&staffwork(&["replay", "--db", d, "--verify"]));
    assert!(v.contains("verify: ok"), "{v}");

    let typed: usize = t.typed.range(1..).map(|(_, n)| n).sum();
    let one_by_one: usize = t.one_by_one.range(1..).map(|(_, n)| n).sum();
    let line = |m: &BTreeMap<u32, usize>| {
        m.range(1..)
            .map(|(_, n)| n.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    // Printed for docs/umpiring.md (`cargo test --test it umpire_time -- --nocapture`).
    println!(
        "commands per turn, today:          {} = {typed}",
        line(&t.typed)
    );
    println!(
        "commands per turn, one piece/move: {} = {one_by_one}",
        line(&t.one_by_one)
    );
    // The table took 236 commands for 8 turns; the workbench must do the same 8 turns
    // in fewer, and fewer than the same plan one piece at a time.
    assert!(typed < 236, "{typed} commands for 8 turns");
    assert!(typed < one_by_one, "{typed} vs {one_by_one}");
}
