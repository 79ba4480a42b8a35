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
