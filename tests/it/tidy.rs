//! Issue 14, the house kept easy to change: one JSON printer (what `--format json` prints is the
//! document `--out` writes), underlines under wide and combining characters.

use crate::common::{staffwork, stdout};

fn ok(args: &[&str]) -> String {
    let out = staffwork(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "staffwork {args:?}: {}{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

/// `receipt --format json --out FILE`: the same document, newline-terminated like every other
/// JSON output, on stdout and in the file.
#[test]
fn a_receipt_prints_the_json_document_it_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let d = db.to_str().unwrap();
    ok(&[
        "new",
        "--scenario",
        "tutorial-hall",
        "--db",
        d,
        "--seed",
        "3",
    ]);
    let file = dir.path().join("r.json");
    let f = file.to_str().unwrap();
    let printed = ok(&[
        "receipt", "--db", d, "--side", "imperial", "--out", f, "--format", "json",
    ]);
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(printed, written);
    assert!(printed.ends_with("}\n"), "{printed:?}");
    let v: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert!(v.is_object(), "{v}");
}

/// The caret line under an unknown name: an emoji takes two terminal cells, an `e` with a
/// combining acute accent one, so the carets under the misspelt "Kirsebrg" start where it does.
#[test]
fn underlines_align_after_emoji_and_combining_marks() {
    for (before, cells) in [("🏰", 2), ("e\u{301}", 1), ("北京", 4)] {
        let text = format!("2nd Div: capture {before} and Kirsebrg from the west.\n");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("o.txt");
        std::fs::write(&file, &text).unwrap();
        let out = staffwork(&[
            "check",
            "--scenario",
            "tutorial-hall",
            "--side",
            "imperial",
            file.to_str().unwrap(),
        ]);
        let report = stdout(&out);
        let lines: Vec<&str> = report.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains(" | ") && l.contains("Kirsebrg"))
            .and_then(|i| {
                // The source line is followed by its carets; take the pair marking "Kirsebrg".
                (i..lines.len().saturating_sub(1)).find(|&j| {
                    lines[j].contains("Kirsebrg")
                        && lines[j + 1].trim_start().starts_with("| ")
                        && lines[j + 1].matches('^').count() == "Kirsebrg".len()
                })
            })
            .unwrap_or_else(|| panic!("no underline of Kirsebrg:\n{report}"));
        let carets = lines[at + 1];
        let col = carets.find('^').unwrap() - carets.find("| ").unwrap() - 2;
        // "2nd Div: capture " is 17 cells, then the name, then " and " (5).
        assert_eq!(
            col,
            17 + cells + 5,
            "{before:?}:\n{}\n{}",
            lines[at],
            carets
        );
    }
}
