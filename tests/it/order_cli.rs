//! `staffwork check` driven as a binary: exit codes, text and JSON output.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_staffwork"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // The binary may exit before reading its input (usage errors).
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn data(name: &str) -> String {
    format!("{}/tests/data/orders/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn good_orders_exit_zero_with_read_back_and_type() {
    let out = run(
        &[
            "check",
            "--scenario",
            "tutorial-hall",
            "--side",
            "imperial",
            &data("nbs-examples.txt"),
        ],
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(
        "read back: 2nd Division is to attack along the Säter road and capture Hall. Engage order."
    ));
    assert!(text.contains("order 4 (line 7): Complex"));
    assert!(text.contains("11 order(s): 0 error(s)"));
    // The spelling variant is underlined where it stands.
    assert!(text.contains("warning[spelling-variant]"));
    assert!(text.contains("^^^^^^^^^^^^^^"));
}

#[test]
fn an_order_with_an_error_exits_one_and_underlines_it() {
    let out = run(
        &["check", "--scenario", "tutorial-hall", "-"],
        b"2nd Div: attack west!\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("error[open-ended]"), "{text}");
    assert!(
        text.contains("      1 | 2nd Div: attack west!")
            || text.contains("   1 | 2nd Div: attack west!"),
        "{text}"
    );
    assert!(
        text.contains("| ^^^^^^^^^^^^^^^^") || text.contains("^^^^^^"),
        "{text}"
    );
}

#[test]
fn usage_and_io_errors_exit_two() {
    let out = run(&["check", "/no/such/file.txt"], b"");
    assert_eq!(out.status.code(), Some(2));
    let out = run(
        &["check", "--scenario", "no-such-scenario", "-"],
        b"2nd Div: capture Hall.",
    );
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["check", "--format", "yaml", "-"], b"");
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["check", "-"], b"\xff\xfe attack \x00");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("UTF-8"));
    let out = run(
        &[
            "check",
            "--scenario",
            "tutorial-hall",
            "--side",
            "french",
            "-",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn json_output_follows_the_documented_contract() {
    let input =
        "2nd Div: attack up the Säter road and capture Hall.\n\nHall Division: defend Säter.\n";
    let out = run(
        &[
            "check",
            "--scenario",
            "tutorial-hall",
            "--side",
            "imperial",
            "--format",
            "json",
            "-",
        ],
        input.as_bytes(),
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "the second order is the enemy's"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let o = &v["orders"][0];
    assert_eq!(
        o["text"],
        "2nd Div: attack up the Säter road and capture Hall."
    );
    assert_eq!(o["span"], serde_json::json!([0, 52]));
    assert_eq!(o["recipient"]["text"], "2nd Div");
    assert_eq!(o["recipient"]["resolved"]["id"], "div-2");
    assert_eq!(o["type"], "engage");
    let st = &o["stages"][0];
    assert_eq!(st["action"], "attack");
    assert_eq!(st["posture"], "engage");
    assert_eq!(st["objectives"][0]["text"], "Hall");
    assert_eq!(st["objectives"][0]["resolved"]["name"], "Hall");
    assert_eq!(st["route"][0]["text"], "Säter road");
    for k in ["direction", "timing", "condition"] {
        assert!(st[k].is_null(), "{k}");
    }
    let places: Vec<&str> = o["places"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert_eq!(places, ["Säter road", "Hall"]);
    let sp = &o["places"][0]["span"];
    let (a, b) = (
        sp[0].as_u64().unwrap() as usize,
        sp[1].as_u64().unwrap() as usize,
    );
    assert_eq!(&input[a..b], "Säter road");
    assert_eq!(o["independent"], false);
    assert!(o["intent"].is_null());
    assert_eq!(o["remarks"], serde_json::json!([]));
    assert!(o["readback"].as_str().unwrap().ends_with("Engage order."));
    let d = &o["diagnostics"][0];
    for k in ["severity", "code", "message", "span", "help"] {
        assert!(!d[k].is_null(), "{k}");
    }
    let second = &v["orders"][1];
    assert_eq!(second["span"][0], 54);
    assert!(
        second["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "recipient-not-own-side")
    );
    assert_eq!(v["summary"]["orders"], 2);
    assert_eq!(v["summary"]["errors"], 1);
}

#[test]
fn without_a_scenario_names_stay_unresolved_and_the_order_is_fine() {
    let out = run(
        &["check", "--format", "json"],
        b"3rd Div: march over Hinzeberg to K\xc3\xbcmla and defend.",
    );
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &v["orders"][0];
    assert_eq!(o["type"], "general");
    assert!(o["recipient"]["resolved"].is_null());
    assert_eq!(o["places"].as_array().unwrap().len(), 2);
    assert!(o["places"][1]["resolved"].is_null());
}

#[test]
fn the_whole_corpus_is_read_by_the_binary() {
    for f in [
        "real-orders.txt",
        "presets.txt",
        "other-rulebooks.txt",
        "letters.txt",
    ] {
        let out = run(&["check", "--format", "json", &data(f)], b"");
        assert!(matches!(out.status.code(), Some(0 | 1)), "{f}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for o in v["orders"].as_array().unwrap() {
            assert!(!o["type"].is_null(), "{f}: {}", o["text"]);
        }
    }
}

/// An order can be given on the command line with --text, without a game; an order typed
/// where the file goes is refused with the way to pass it, not a bare "No such file".
#[test]
fn an_order_on_the_command_line_is_read_with_text_and_the_slip_is_explained() {
    let order = "2nd Div: attack up the Säter road and capture Hall";
    let out = run(
        &[
            "check",
            "--scenario",
            "tutorial-hall",
            "--side",
            "imperial",
            "--text",
            order,
        ],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("Engage"), "{text}");

    let slip = run(&["check", "--scenario", "tutorial-hall", order], b"");
    assert_eq!(slip.status.code(), Some(2));
    let err = String::from_utf8_lossy(&slip.stderr);
    assert!(err.contains("--text"), "{err}");
    assert!(err.contains(order), "{err}");

    // A missing file whose name has no space is still only a missing file.
    let missing = run(&["check", "no-such-orders.txt"], b"");
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(!err.contains("--text"), "{err}");
}
