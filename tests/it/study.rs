//! What-if studies (issue 16): exactness against `odds`, the same figures whatever the threads
//! or shards, comparisons, replays of a game file, and plans that are refused with their place.

use std::path::Path;

use crate::common::{staffwork, stdout};
use staffwork::engine::Command;
use staffwork::game::{Game, NewGame};
use staffwork::rules::simulate::within_sigmas;
use staffwork::rules::{Method, odds};
use staffwork::study::{self, Options, Shard};

const ENGAGE: &str = "2nd Div: attack up the Säter road and capture Hall.";

fn single_order_plan(method: &str) -> String {
    format!(
        r#"[plan]
name = "one order"
scenario = "tutorial-hall"

[[orders]]
id = "engage"
from = "davrange"
to = "div-2"
method = "{method}"
text = "{ENGAGE}"
turn = 1
"#
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// 6.5, 6.5.2: for one order, the study's acceptance results and acceptance-by-turn agree with
/// the exact odds of that order in its real situation (`odds --db G --order N`), within four
/// binomial standard errors (sqrt(n·p·(1−p)) of the count) at a fixed seed.
#[test]
fn rule_6_5_single_order_frequencies_agree_with_exact_odds() {
    let plan = study::plan::parse(Path::new("one.toml"), &single_order_plan("written")).unwrap();
    let runs = 2_000;
    let out = study::run(
        &plan,
        Options {
            runs,
            seed: 20_261_201,
            threads: 2,
            shard: Shard::whole(),
            keep_runs: false,
        },
        &|_| {},
    )
    .unwrap();
    let o = &out.summary.orders[0];
    assert_eq!(o.sent.some(), runs, "the order goes out in every run");

    // The exact odds of the same order, issued the same way in a game held in memory.
    let (_, text) = staffwork::scenario::bundled_text("tutorial-hall").unwrap();
    let scenario = staffwork::scenario::bundled("tutorial-hall").unwrap();
    let mut game = Game::in_memory(NewGame::on(text.into(), scenario, 1).unwrap()).unwrap();
    let issue = Command::IssueOrder {
        side: "imperial".into(),
        from: "davrange".into(),
        to: "div-2".into(),
        method: Method::Written,
        order: plan.orders[0].order.clone(),
    };
    game.execute("imperial", &issue).unwrap();
    let number = game.state.orders.keys().max().copied().unwrap();
    let q = staffwork::game::acceptance_situation(&game, number).unwrap();
    let exact = odds::acceptance(&game.tables, q);

    let rolled: u64 = o.results.iter().sum();
    assert_eq!(rolled, runs, "one acceptance roll per run");
    for (i, c) in exact.counts.iter().enumerate() {
        assert!(
            within_sigmas(o.results[i], runs, u64::from(c.count), 36, 4),
            "{:?}: {} of {runs} against {}/36",
            c.result,
            o.results[i],
            c.count
        );
    }
    // Accepted within k turns of arrival (6.5.2), as far as the day lasts.
    let turns_left = (plan.last_turn - o.arrived.reaching(runs).unwrap() as u32) as usize;
    for (k, t) in exact.by_turn.iter().enumerate().take(turns_left) {
        assert!(
            within_sigmas(
                o.delay.at_most(k),
                runs,
                t.accepted,
                exact.by_turn_denominator,
                4
            ),
            "accepted within {} turns: {} of {runs} against {}/{}",
            k + 1,
            o.delay.at_most(k),
            t.accepted,
            exact.by_turn_denominator
        );
    }
}

fn json(args: &[&str]) -> serde_json::Value {
    let o = staffwork(args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn a_study_gives_the_same_figures_whatever_the_number_of_threads() {
    let plan = "examples/plans/vimeiro-french-attack.toml";
    let one = json(&[
        "study",
        plan,
        "--runs",
        "24",
        "--seed",
        "5",
        "--threads",
        "1",
        "--format",
        "json",
    ]);
    let two = json(&[
        "study",
        plan,
        "--runs",
        "24",
        "--seed",
        "5",
        "--threads",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(one, two);
    // And another seed gives other dice.
    let other = json(&[
        "study",
        plan,
        "--runs",
        "24",
        "--seed",
        "6",
        "--threads",
        "2",
        "--format",
        "json",
    ]);
    assert_ne!(one["runs"], other["runs"]);
}

#[test]
fn shards_merged_equal_one_run_of_the_whole_study() {
    let dir = tempfile::tempdir().unwrap();
    let d = |s: &str| dir.path().join(s).display().to_string();
    let plan = "examples/plans/vimeiro-french-attack.toml";
    let whole = staffwork(&[
        "study",
        plan,
        "--runs",
        "30",
        "--seed",
        "9",
        "--out",
        &d("whole"),
        "--format",
        "json",
    ]);
    assert!(whole.status.success());
    for k in 1..=3 {
        let o = staffwork(&[
            "study",
            plan,
            "--runs",
            "30",
            "--seed",
            "9",
            "--shard",
            &format!("{k}/3"),
            "--out",
            &d(&format!("s{k}")),
            "--format",
            "csv",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // A shard holds runs k−1, k+2, …
        let csv = stdout(&o);
        assert_eq!(csv.lines().count(), 1 + 10);
        assert!(
            csv.lines()
                .nth(1)
                .unwrap()
                .starts_with(&format!("{},", k - 1))
        );
    }
    let merged = json(&[
        "study",
        "merge",
        &d("s3/summary.json"),
        &d("s1/summary.json"),
        &d("s2/summary.json"),
        "--format",
        "json",
    ]);
    let whole: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d("whole/summary.json")).unwrap()).unwrap();
    let strip = |mut v: serde_json::Value| {
        v.as_object_mut().unwrap().remove("shards");
        v
    };
    assert_eq!(merged["shards"].as_array().unwrap().len(), 3);
    assert_eq!(strip(merged), strip(whole));

    // A shard given twice, or a shard of another study, is refused and names the file.
    let twice = staffwork(&[
        "study",
        "merge",
        &d("s1/summary.json"),
        &d("s1/summary.json"),
    ]);
    assert_eq!(twice.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("given twice"));
    let other = staffwork(&[
        "study",
        "merge",
        &d("s1/summary.json"),
        &d("whole/summary.json"),
    ]);
    assert_eq!(other.status.code(), Some(1));
}

#[test]
fn a_study_writes_runs_charts_and_vega_lite() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = staffwork(&[
        "study",
        "examples/plans/vimeiro-french-attack.toml",
        "--runs",
        "20",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(
        text.contains("brennier-flank") && text.contains("delaborde-div"),
        "{text}"
    );
    let csv = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(csv.lines().count(), 21);
    assert!(csv.starts_with("run,seed,end_turn,brennier-flank.sent"));
    let svg = std::fs::read_to_string(out.join("implemented.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("<polyline") && svg.contains("09:00"));
    assert_eq!(svg.matches("<polyline").count(), 6, "one line per order");
    let vl: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("implemented.vl.json")).unwrap())
            .unwrap();
    assert_eq!(vl["data"]["values"].as_array().unwrap().len(), 6 * 21);
    assert!(
        std::fs::read_to_string(out.join("delay.svg"))
            .unwrap()
            .contains("never")
    );
}

#[test]
fn compare_reads_written_against_oral_as_differences_with_intervals() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "oral.toml", &single_order_plan("oral"));
    let b = write(dir.path(), "written.toml", &single_order_plan("written"));
    let v = json(&[
        "study",
        "--compare",
        &a,
        &b,
        "--runs",
        "400",
        "--format",
        "json",
    ]);
    let rows = v["rows"].as_array().unwrap();
    let row = rows
        .iter()
        .find(|r| r["subject"] == "engage" && r["measure"] == "accepted on arrival (all runs)")
        .unwrap();
    // 6.4.3: oral −1, written ±0 — the written order is accepted on arrival more often.
    assert!(row["diff"].as_f64().unwrap() > 0.0, "{row}");
    assert!(row["low"].as_f64().unwrap() < row["diff"].as_f64().unwrap());
    assert!(row["high"].as_f64().unwrap() > row["diff"].as_f64().unwrap());
    let text = stdout(&staffwork(&["study", "--compare", &a, &b, "--runs", "100"]));
    assert!(
        text.contains("95 % interval") && text.contains("accepted on arrival"),
        "{text}"
    );
}

#[test]
fn a_bad_plan_is_refused_with_its_place_and_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let bad = single_order_plan("written").replace("to = \"div-2\"", "to = \"div-22\"");
    let p = write(dir.path(), "bad.toml", &bad);
    let o = staffwork(&["study", &p, "--runs", "5"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("orders[0] (engage).to") && err.contains("div-2"),
        "{err}"
    );

    let p = write(
        dir.path(),
        "syntax.toml",
        "[plan]\nname = \"x\"\nscenario = \n",
    );
    let o = staffwork(&["study", &p]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("syntax.toml:3:"));

    let p = write(
        dir.path(),
        "late.toml",
        &single_order_plan("written").replace("turn = 1", "time = \"07:00\""),
    );
    let o = staffwork(&["study", &p]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no turn starts at `07:00`"));
}

#[test]
fn a_game_file_is_replayed_with_other_seeds_and_divergence_counted() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let db = db.to_str().unwrap();
    assert!(
        staffwork(&[
            "new",
            "--scenario",
            "tutorial-hall",
            "--db",
            db,
            "--seed",
            "3"
        ])
        .status
        .success()
    );
    let o = staffwork(&[
        "order", "--db", db, "--side", "imperial", "--method", "written", ENGAGE,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for _ in 0..4 {
        assert!(staffwork(&["turn", "--db", db]).status.success());
    }
    let v = json(&[
        "study",
        "--db",
        db,
        "--from-turn",
        "1",
        "--runs",
        "50",
        "--format",
        "json",
    ]);
    assert_eq!(v["runs"], 50);
    assert_eq!(
        v["agreed"].as_u64().unwrap() + v["diverged"].as_u64().unwrap(),
        50
    );
    assert!(v["commands_replayed"].as_u64().unwrap() >= 5);
    let none = staffwork(&["study", "--db", db, "--from-turn", "40"]);
    assert_eq!(none.status.code(), Some(1));
}

/// The study's fast path, `Engine::decide_owned`, gives the events `decide` gives, and its
/// state is the fold of those events (a whole Vimeiro day, every Advance both ways).
#[test]
fn decide_owned_gives_the_events_and_state_of_decide_and_evolve() {
    use staffwork::engine::{Step, evolve};
    use staffwork::rules::dice::SeededDice;
    let plan = study::plan::load(Path::new("examples/plans/vimeiro-french-attack.toml")).unwrap();
    let engine = study::engine(&plan);
    let start = Command::Start {
        presets: plan.presets.clone(),
        variants: plan.variants.clone(),
    };
    let mut a = engine.initial_state();
    let mut da = SeededDice::new(11);
    for e in engine.decide(&a, &start, &mut da).unwrap() {
        evolve(&mut a, &e);
    }
    let mut b = a.clone();
    let mut db = da.clone();
    let mut steps = 0;
    while a.step != Step::GameOver {
        let ea = engine.decide(&a, &Command::Advance, &mut da).unwrap();
        for e in &ea {
            evolve(&mut a, e);
        }
        let (next, eb) = engine.decide_owned(b, &Command::Advance, &mut db).unwrap();
        b = next;
        assert_eq!(ea, eb, "step {steps}");
        assert_eq!(a, b, "step {steps}");
        steps += 1;
    }
    assert!(steps > 40, "a whole day: {steps} steps");
}

/// Every shipped plan reads and runs; conditional orders go out only once their condition
/// holds (Vimeiro: Kellerman after DeLaborde's attack is implemented, Solignac after Brennier's
/// order has arrived), never before.
#[test]
fn the_historical_plans_run_and_conditions_hold_in_every_run() {
    for entry in std::fs::read_dir("examples/plans").unwrap() {
        let path = entry.unwrap().path();
        let plan = study::plan::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let out = study::run(
            &plan,
            Options {
                runs: 8,
                seed: 3,
                threads: 1,
                shard: Shard::whole(),
                keep_runs: true,
            },
            &|_| {},
        )
        .unwrap();
        assert_eq!(out.runs.len(), 8, "{}", path.display());
        assert!(
            out.summary.orders.iter().all(|o| o.sent.some() > 0),
            "{}",
            path.display()
        );
    }
    let plan = study::plan::load(Path::new("examples/plans/vimeiro-french-attack.toml")).unwrap();
    let idx = |id: &str| plan.orders.iter().position(|o| o.id == id).unwrap();
    let (del, kel, bre, sol) = (
        idx("delaborde-hill"),
        idx("kellerman-village"),
        idx("brennier-flank"),
        idx("solignac-flank"),
    );
    let out = study::run(
        &plan,
        Options {
            runs: 60,
            seed: 8,
            threads: 2,
            shard: Shard::whole(),
            keep_runs: true,
        },
        &|_| {},
    )
    .unwrap();
    let mut held_back = 0;
    for r in &out.runs {
        match (r.orders[kel].sent, r.orders[del].implemented) {
            (Some(sent), Some(done)) => assert!(sent >= done, "run {}", r.run),
            (Some(_), None) => panic!("run {}: Kellerman sent before DeLaborde attacked", r.run),
            (None, _) => held_back += 1,
        }
        if let Some(sent) = r.orders[sol].sent {
            let arrived = r.orders[bre]
                .arrived
                .expect("Solignac went only after Brennier's arrived");
            assert!(sent >= arrived, "run {}", r.run);
        }
    }
    // Where DeLaborde's order is never implemented, Kellerman's never goes (it may also wait
    // for command points past the end of the day).
    let never = out
        .runs
        .iter()
        .filter(|r| r.orders[del].implemented.is_none())
        .count();
    assert!(
        never > 0 && held_back >= never,
        "{held_back} held back, {never} never implemented"
    );
}

/// The umpire's scripted events are played as overrides: a division wrecked at 09:00 (21.6)
/// counts in the victory measures of every run, and a lost commander (25) too.
#[test]
fn scripted_umpire_events_reach_the_measures() {
    let text = single_order_plan("written")
        + r#"
[[events]]
turn = 2
action = "wreck"
command = "div-2"
reason = "2nd Division broken in the wood"

[[events]]
turn = 3
action = "commander-lost"
command = "div-2"
reason = "its general shot"
"#;
    let plan = study::plan::parse(Path::new("events.toml"), &text).unwrap();
    let out = study::run(
        &plan,
        Options {
            runs: 20,
            seed: 4,
            threads: 1,
            shard: Shard::whole(),
            keep_runs: true,
        },
        &|_| {},
    )
    .unwrap();
    let side = plan
        .scenario
        .sides
        .iter()
        .position(|s| s.id == "imperial")
        .unwrap();
    for r in &out.runs {
        assert!(r.wrecked[side] >= 1, "run {}: {:?}", r.run, r.wrecked);
        assert!(
            r.commanders_lost[side] >= 1,
            "run {}: {:?}",
            r.run,
            r.refused_events
        );
    }
    let none = study::plan::parse(Path::new("events.toml"), &single_order_plan("written")).unwrap();
    let quiet = study::run(
        &none,
        Options {
            runs: 20,
            seed: 4,
            threads: 1,
            shard: Shard::whole(),
            keep_runs: true,
        },
        &|_| {},
    )
    .unwrap();
    assert!(
        quiet
            .runs
            .iter()
            .all(|r| r.wrecked[side] == 0 && r.commanders_lost[side] == 0)
    );
}
