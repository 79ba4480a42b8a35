//! The diagnostics table of docs/order-language.md is executable: each documented code is
//! triggered by the order documented next to it (jaq style), and each code the checker emits
//! is documented.

use staffwork::order;

fn table() -> Vec<(String, String, String)> {
    let path = format!("{}/docs/order-language.md", env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(&path).expect("docs/order-language.md");
    let section = doc
        .split("## 4. Diagnostics")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a diagnostics section");
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let code = cells[1].trim_matches('`').to_string();
            let severity = cells[2].to_string();
            let example = cells[3].to_string();
            (code, severity, example)
        })
        .collect()
}

#[test]
fn every_documented_code_is_triggered_by_its_example() {
    let s = staffwork::scenario::bundled("tutorial-hall").unwrap();
    let rows = table();
    assert!(rows.len() >= 20, "{rows:?}");
    for (code, severity, example) in rows {
        let Some(text) = example.strip_prefix('`').and_then(|e| e.strip_suffix('`')) else {
            continue; // described, not quoted (too-long)
        };
        let o = order::check_one(text, Some(&s), Some("imperial"));
        let d = o
            .diagnostics
            .iter()
            .find(|d| d.code == code)
            .unwrap_or_else(|| panic!("`{text}` should trigger {code}; got {:?}", o.diagnostics));
        assert_eq!(d.severity.to_string(), severity, "{code}");
        assert!(!d.help.is_empty(), "{code} has help");
        assert!(
            d.span.1 <= text.len()
                && text.is_char_boundary(d.span.0)
                && text.is_char_boundary(d.span.1)
        );
    }
}

#[test]
fn too_long_sentences_are_kept_and_flagged() {
    // Over the sentence limit (4096 bytes), under the order's (8000 characters, decision 0176).
    let long = format!("2nd Div: capture Hall. {}", "very ".repeat(1000));
    let o = order::check_one(&long, None, None);
    assert!(o.diagnostics.iter().any(|d| d.code == "too-long"));
    assert_eq!(o.remarks.len(), 1);
    assert_eq!(o.stages.len(), 1);
}

#[test]
fn every_code_the_checker_emits_is_documented() {
    let documented: Vec<String> = table().into_iter().map(|r| r.0).collect();
    let src_dir = format!("{}/src/order", env!("CARGO_MANIFEST_DIR"));
    let mut emitted = Vec::new();
    for entry in std::fs::read_dir(&src_dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        // Codes are the string literal right after a `Severity::…,` argument.
        for part in text.split("Severity::").skip(1) {
            let after = part.split_once(',').map(|x| x.1).unwrap_or("");
            let lit = after.trim_start();
            if let Some(rest) = lit.strip_prefix('"')
                && let Some(code) = rest.split('"').next()
            {
                emitted.push(code.to_string());
            }
        }
    }
    assert!(emitted.len() >= 15, "{emitted:?}");
    for c in emitted {
        assert!(
            documented.contains(&c),
            "code `{c}` is not documented in docs/order-language.md"
        );
    }
}
