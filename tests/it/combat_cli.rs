//! The combat odds CLI (`staffwork odds close-combat|charge|fire`), driven through
//! the built binary.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_staffwork"))
        .args(args)
        .output()
        .expect("run staffwork");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const HAND_WORKED: &[&str] = &[
    "odds",
    "close-combat",
    "--attacker-morale",
    "B",
    "--attacker-size",
    "A",
    "--attacker-formation",
    "column",
    "--defender-morale",
    "C",
    "--defender-size",
    "B",
    "--defender-formation",
    "line",
    "--terrain",
    "clear",
];

/// The hand-worked case (see tests/combat_close.rs for the arithmetic): JSON counts.
#[test]
fn close_combat_json_has_integer_counts_and_denominator() {
    let mut args = HAND_WORKED.to_vec();
    args.extend(["--format", "json"]);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["denominator"], 1296);
    assert_eq!(v["outcomes"]["attacker-won"], 648);
    assert_eq!(v["outcomes"]["defender-won"], 108);
    assert_eq!(v["outcomes"]["firefight"], 540);
    assert_eq!(v["stand"]["denominator"], 36);
    assert_eq!(v["stand"]["first_checker"], "defender");
    assert_eq!(v["stand"]["outcomes"]["attacker-won"], 18);
    assert_eq!(v["stand"]["outcomes"]["defender-won"], 3);
    assert_eq!(v["stand"]["outcomes"]["firefight"], 15);
    let total: u64 = v["sides"]["defender"]["losses"]
        .as_object()
        .unwrap()
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(total, 1296);
    assert!(!v["non_seed_cells"].as_array().unwrap().is_empty());
}

#[test]
fn close_combat_text_shows_percentages() {
    let (code, out, _) = run(HAND_WORKED);
    assert_eq!(code, 0);
    assert!(out.contains("defender checks first"), "{out}");
    assert!(out.contains("18/36"), "{out}");
    assert!(out.contains("50.0%"), "{out}");
    assert!(out.contains("41.7%"), "{out}");
}

#[test]
fn charge_and_fire_odds() {
    let (code, out, err) = run(&[
        "odds",
        "charge",
        "--attacker-kind",
        "heavy-cavalry",
        "--attacker-morale",
        "b",
        "--attacker-size",
        "a",
        "--defender-morale",
        "c",
        "--defender-size",
        "a",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let d = v["denominator"].as_u64().unwrap();
    assert_eq!(v["outcomes"]["successful"].as_u64().unwrap() * 2, d);

    let (code, out, err) = run(&[
        "odds",
        "fire",
        "--guns",
        "3",
        "--range",
        "2",
        "--target-morale",
        "b",
        "--target-formation",
        "column",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("denominator 6"), "{out}");
}

#[test]
fn illegal_combat_exits_1_and_bad_flags_exit_2() {
    let (code, _, err) = run(&[
        "odds",
        "close-combat",
        "--attacker-kind",
        "light-cavalry",
        "--attacker-morale",
        "B",
        "--attacker-size",
        "A",
        "--defender-morale",
        "C",
        "--defender-size",
        "B",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("15.1"), "{err}");
    let (code, _, _) = run(&["odds", "close-combat", "--attacker-morale", "Z"]);
    assert_eq!(code, 2);
    let (code, _, err) = run(&["odds", "fire", "--guns", "9", "--target-morale", "b"]);
    assert_eq!(code, 1, "{err}");
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.toml");
    std::fs::write(&p, "[repulse]\nrule = 'x'\ncolumns = ['r']\nrows = []\n").unwrap();
    let mut args = HAND_WORKED.to_vec();
    let ps = p.to_str().unwrap().to_string();
    args.extend(["--tables", ps.as_str()]);
    let (code, _, err) = run(&args);
    assert_eq!(code, 2);
    assert!(err.contains("repulse"), "{err}");
}

/// `odds morale` (21.2, chart p6: A3 B4 C5 D6 E6 on 1d6, +1 with a Commander rated 2+): the
/// Morale Checks of the movement rules — Forced March (12.5.6.2), a Square moving (8.3.2), a
/// Reaction Charge from outside the frontal arc (16.5.5) — worked by hand.
#[test]
fn morale_check_odds_are_the_chart_worked_by_hand() {
    let json = |extra: &[&str]| {
        let mut args = vec!["odds", "morale", "--format", "json"];
        args.extend(extra);
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        (
            v["need"].as_u64().unwrap(),
            v["pass"].as_u64().unwrap(),
            v["denominator"].as_u64().unwrap(),
            v["asked_by"].as_str().unwrap().to_string(),
        )
    };
    // C needs 5: faces 5 and 6.
    assert_eq!(
        json(&["--morale", "C", "--for", "forced-march"]),
        (5, 2, 6, "12.5.6.2".into())
    );
    // A Commander rated 2 adds 1: 4, 5 and 6 pass; rated 1 adds nothing.
    assert_eq!(json(&["--morale", "C", "--commander", "2"]).1, 3);
    assert_eq!(json(&["--morale", "C", "--commander", "1"]).1, 2);
    // D needs 6; a −1 on E (needs 6) leaves no face that passes.
    assert_eq!(
        json(&["--morale", "D", "--for", "square-move"]),
        (6, 1, 6, "8.3.2".into())
    );
    assert_eq!(json(&["--morale", "E", "--modifier", "-1"]).1, 0);
    // Text names the rule that asked and the chance.
    let (code, out, _) = run(&[
        "odds",
        "morale",
        "--morale",
        "B",
        "--for",
        "reaction-charge",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("16.5.5") && out.contains("needs 4 or more"),
        "{out}"
    );
    assert!(out.contains("3/6"), "{out}");
    // A rating that is not one is a usage error (exit 2).
    assert_eq!(run(&["odds", "morale", "--morale", "F"]).0, 2);
}
