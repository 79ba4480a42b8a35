//! The rebuilt reader (issue 11): signed numbers are not hexes, underlines align under wide
//! characters, and the behaviours of the later slices (negation, signal diagnostics).

use staffwork::order;

fn hall() -> staffwork::scenario::Scenario {
    staffwork::scenario::bundled("tutorial-hall").unwrap()
}

fn codes(o: &order::CheckedOrder) -> Vec<&str> {
    o.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn a_negative_hex_is_refused_not_read_as_a_positive_one() {
    // 2.1.1: hex numbers carry no sign; "-5.-5" must not become 5.5.
    for text in ["2nd Div: march to -5.-5.", "2nd Div: march to 29.-17."] {
        let o = order::check_one(text, Some(&hall()), Some("imperial"));
        let d = o
            .diagnostics
            .iter()
            .find(|d| d.code == "not-a-hex")
            .unwrap_or_else(|| panic!("{text}: {:?}", codes(&o)));
        assert_eq!(d.severity, order::Severity::Error);
        assert!(text[d.span.0..d.span.1].contains(".-") || text[d.span.0..].starts_with('-'));
        assert!(!o.readback.contains("5, 5"), "{}", o.readback);
        assert!(o.places.iter().all(|p| p.resolved.is_none()));
    }
    // Without a scenario too.
    let o = order::check_one("2nd Div: march to -5.-5.", None, None);
    assert!(codes(&o).contains(&"not-a-hex"), "{:?}", codes(&o));
}

#[test]
fn underlines_align_under_wide_characters() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_staffwork"))
        .args([
            "check",
            "--scenario",
            "tutorial-hall",
            "--side",
            "imperial",
            "-",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all("2nd Div: capture 北京 and Kirsebrg from the west.\n".as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("warning[near-miss]"))
        .unwrap_or_else(|| panic!("{text}"));
    let caret = lines[at + 2];
    // "2nd Div: capture " is 17 cells, 北京 four, " and " five: Kirsebrg starts at cell 26.
    assert_eq!(
        caret,
        format!("        | {}{}", " ".repeat(26), "^".repeat(8)),
        "{text}"
    );
}
