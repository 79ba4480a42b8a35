//! Drives the built `staffwork` binary: `rules show`, `odds …`, `simulate …` (rules 6.4–6.7,
//! chart p1). Exit codes: 0 ok, 1 input judged bad, 2 usage or IO error.

use std::process::Command;

use serde_json::Value;

use crate::common::staffwork;

fn ok_json(args: &[&str]) -> Value {
    let out = staffwork(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn counts(v: &Value) -> Vec<u64> {
    v["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["count"].as_u64().unwrap())
        .collect()
}

const ACC: [&str; 11] = [
    "odds",
    "acceptance",
    "--sender-rating",
    "3",
    "--receiver-rating",
    "2",
    "--method",
    "written",
    "--type",
    "engage",
    "--current",
];

#[test]
fn rules_show_lists_every_table_and_every_assumed_cell() {
    let v = ok_json(&["rules", "show", "--format", "json"]);
    assert_eq!(v["tables"].as_array().unwrap().len(), 9);
    assert_eq!(v["assumed_cells"].as_array().unwrap().len(), 113);
    assert_eq!(v["hash"].as_str().unwrap().len(), 64);
    let out = staffwork(&["rules", "show"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("* assumed"));
    assert!(text.contains("14-23*"));
    assert!(text.contains("Assumed cells (113):"));
    assert!(text.contains("order-cost, row method, column in-person: 2"));
}

#[test]
fn rule_6_5_rules_show_one_table_keeps_the_seed_dt_row() {
    let v = ok_json(&["rules", "show", "acceptance", "--format", "json"]);
    let t = &v["tables"][0];
    assert_eq!(t["name"], "acceptance");
    let dt: Vec<&str> = t["rows"][0]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert_eq!(c["provenance"], "seed");
            c["text"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        dt,
        [
            "11-32", "11-26", "11-23", "11-16", "11-14", "11-13", "11-13", "11-12", "11-12", "11",
            "11", "-", "-", "-"
        ]
    );
    assert_eq!(v["assumed_cells"].as_array().unwrap().len(), 56);
}

#[test]
fn rule_6_5_odds_acceptance_json_contract() {
    let mut args = ACC.to_vec();
    args.extend(["general", "--format", "json"]);
    let v = ok_json(&args);
    assert_eq!(v["check"], "acceptance");
    assert_eq!(v["acceptance_number"], 3);
    assert_eq!(v["column"], 3);
    assert_eq!(v["out_of"], 36);
    assert_eq!(counts(&v), [3, 6, 5, 4, 18]);
    let den = v["by_turn_denominator"].as_u64().unwrap();
    assert_eq!(den, 36 * 6u64.pow(9));
    let turns = v["by_turn"].as_array().unwrap();
    assert_eq!(turns.len(), 10);
    assert_eq!(turns[0]["turn"], 1);
    assert_eq!(turns[0]["accepted"].as_u64().unwrap() * 2, den);
    // Talavera 2.4: column 3, roll 23 is D6.
    assert_eq!(v["counts"][1]["rolls"], "14-23");
    assert!(
        v["cells_used"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["provenance"] == "assumed")
    );
}

#[test]
fn rule_3_5_acceptance_clamps_to_the_edge_column() {
    let v = ok_json(&[
        "odds",
        "acceptance",
        "--sender-rating",
        "4",
        "--receiver-rating",
        "4",
        "--method",
        "in-person",
        "--type",
        "general",
        "--current",
        "none",
        "--format",
        "json",
    ]);
    assert_eq!(v["acceptance_number"], 11);
    assert_eq!(v["column"], 10);
    assert_eq!(v["column_label"], "10 or more");
    assert_eq!(counts(&v)[0], 0);
}

#[test]
fn rule_6_6_1_3_odds_initiative_agree_with_the_whole_table() {
    let want = [[4, 31, 1], [3, 31, 2], [3, 30, 3], [2, 29, 5], [2, 25, 9]];
    for (rating, w) in want.iter().enumerate() {
        let r = rating.to_string();
        let v = ok_json(&["odds", "initiative", "--rating", &r, "--format", "json"]);
        assert_eq!(counts(&v), w.to_vec(), "rating {rating}");
    }
    // Chart p1: +1 column under General Orders; rating 4 uses column 5.
    let v = ok_json(&[
        "odds",
        "initiative",
        "--rating",
        "4",
        "--general",
        "--format",
        "json",
    ]);
    assert_eq!(v["column_used"], 5);
    assert_eq!(counts(&v), [1, 24, 11]);
    assert_eq!(v["counts"][0]["result"], "loose-cannon");
}

#[test]
fn rule_6_7_example_stoppage_needs_5() {
    let v = ok_json(&[
        "odds",
        "stoppage",
        "--sub-units",
        "3",
        "--wrecked",
        "1",
        "--rating",
        "4",
        "--format",
        "json",
    ]);
    assert_eq!(v["result"], 2);
    assert_eq!(v["needed"], 5);
    assert_eq!(v["pass"], 30);
    let night = ok_json(&[
        "odds",
        "stoppage",
        "--sub-units",
        "3",
        "--wrecked",
        "1",
        "--rating",
        "4",
        "--night",
        "--format",
        "json",
    ]);
    assert_eq!(night["roll_modifier"], -3);
    assert_eq!(night["pass"], 15);
    let text = staffwork(&[
        "odds",
        "stoppage",
        "--sub-units",
        "1",
        "--wrecked",
        "1",
        "--rating",
        "2",
    ]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("needs 11"), "{text}");
    assert!(text.contains("assumed"));
}

#[test]
fn bad_flags_exit_2_with_a_clear_message() {
    let out = staffwork(&["odds", "initiative", "--rating", "9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("0..=4"));
    let mut args = ACC.to_vec();
    args.push("general");
    args[7] = "pigeon";
    let out = staffwork(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values"));
    let out = staffwork(&[
        "odds",
        "stoppage",
        "--sub-units",
        "3",
        "--wrecked",
        "5",
        "--rating",
        "4",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("sub-units + 1"));
    let out = staffwork(&["rules", "show", "--tables", "/nonexistent/x.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read tables file"));
}

#[test]
fn a_broken_override_is_refused_naming_table_row_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.toml");
    // An initiative table whose column 2 leaves a gap (Loose Cannon ends at 12, No Effect
    // begins at 14).
    std::fs::write(
        &path,
        r#"[initiative]
loose-cannon = { provenance = "seed", cells = ["11-14", "11-13", "11-12", "11-12", "11-12", "11"] }
no-effect = { provenance = "seed", cells = ["15-65", "14-64", "14-63", "13-61", "13-53", "12-51"] }
initiative = { provenance = "seed", cells = ["66", "65-66", "64-66", "62-66", "54-66", "52-66"] }
"#,
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let out = staffwork(&["odds", "initiative", "--rating", "2", "--tables", p]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("table initiative, row No Effect, column 2"),
        "{err}"
    );
    let out = staffwork(&["rules", "show", "--tables", p, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], false);
    assert_eq!(v["problems"][0]["table"], "initiative");
    assert_eq!(v["problems"][0]["row"], "No Effect");
    assert_eq!(v["problems"][0]["column"], "2");
}

#[test]
fn a_valid_override_replaces_only_its_tables() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("night.toml");
    std::fs::write(
        &path,
        "[night]\nstoppage_modifier = { value = -2, provenance = \"assumed\" }\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let v = ok_json(&[
        "odds",
        "stoppage",
        "--sub-units",
        "3",
        "--wrecked",
        "1",
        "--rating",
        "4",
        "--night",
        "--tables",
        p,
        "--format",
        "json",
    ]);
    assert_eq!(v["roll_modifier"], -2);
    assert_eq!(v["pass"], 21);
    let show = ok_json(&["rules", "show", "--tables", p, "--format", "json"]);
    assert_eq!(show["overridden"], serde_json::json!(["night"]));
    assert_eq!(show["assumed_cells"].as_array().unwrap().len(), 114);
}

#[test]
fn simulate_agrees_with_odds_and_is_reproducible() {
    // 2·10⁴ trials keep the debug test fast; the 10⁶ check runs in rules::simulate's unit tests
    // at 10⁵ and from the release CLI (docs/rules.md).
    let mut args = vec!["simulate"];
    args.extend(&ACC[1..]);
    args.extend([
        "general", "--trials", "20000", "--seed", "5", "--format", "json",
    ]);
    let v = ok_json(&args);
    assert_eq!(v["all_within_5_sigma"], true);
    assert_eq!(v["rows"].as_array().unwrap().len(), 15);
    assert_eq!(v["exact"]["acceptance_number"], 3);
    let again = ok_json(&args);
    assert_eq!(v, again);
    let s = ok_json(&[
        "simulate",
        "stoppage",
        "--sub-units",
        "4",
        "--wrecked",
        "2",
        "--rating",
        "1",
        "--trials",
        "20000",
        "--seed",
        "3",
        "--format",
        "json",
    ]);
    assert_eq!(s["all_within_5_sigma"], true);
    let i = ok_json(&[
        "simulate",
        "initiative",
        "--rating",
        "3",
        "--general",
        "--trials",
        "20000",
        "--format",
        "json",
    ]);
    assert_eq!(i["all_within_5_sigma"], true);
    let out = staffwork(&[
        "simulate",
        "initiative",
        "--rating",
        "3",
        "--trials",
        "1000",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Loose Cannon"));
    assert!(text.contains("within 5σ"));
}

#[test]
fn a_closed_stdout_pipe_ends_quietly_without_panic() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_staffwork"))
        .args(["rules", "show"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn staffwork");
    // Close the reading end before the child writes (like `staffwork rules show | head -0`).
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn rule_29_rules_show_random_events() {
    let v = ok_json(&["rules", "show", "random-events", "--format", "json"]);
    assert_eq!(v["check"]["occurs_on"], 1);
    assert_eq!(v["check"]["provenance"], "seed");
    let t = &v["tables"][0];
    assert_eq!(t["name"], "random-events");
    assert_eq!(t["rule"], "29.0");
    let rows = t["rows"].as_array().unwrap();
    let events: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            assert_eq!(r["cells"][0]["provenance"], "seed");
            (
                r["label"].as_str().unwrap(),
                r["cells"][0]["text"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(events.len(), 11);
    assert_eq!(events[0], ("2", "Loose Cannon"));
    assert_eq!(events[8], ("10", "Commander Loss"));
    assert_eq!(events[10], ("12", "Loose Cannon"));
    assert_eq!(v["assumed_cells"].as_array().unwrap().len(), 0);
    let out = staffwork(&["rules", "show", "random-events"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Standard Random Events Table (29.0) [random-events]"));
    assert!(text.contains("Advance Reinforcements"));
}
