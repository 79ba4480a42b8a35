//! Checks on every string a scenario file holds, made on the span-preserving parse so they run
//! even when the file's shape is wrong (a type error stops the typed parse at its first field,
//! and these problems are still reported beside it — issue 12).
//!
//! Owns: which characters a scenario's text may hold and how long a name or a text may be.
//! Must not: know the scenario model (it sees keys and strings only) or print.

use toml::de::{DeTable, DeValue};

use super::validate::{Parsed, Problem};

/// Keys whose values are names or ids: one line, short, nothing invisible.
const NAME_KEYS: &[&str] = &[
    "id",
    "name",
    "short",
    "aliases",
    "title",
    "side",
    "parent",
    "commander",
    "army",
    "members",
    "nation",
];

/// The longest name or id, in characters (the longest real name in the bundled scenarios is
/// under 60).
pub const MAX_NAME_CHARS: usize = 120;

/// The longest other text (descriptions, orders, sources), in characters.
pub const MAX_TEXT_CHARS: usize = 20_000;

/// Is this character one a reader cannot see or that changes how text is shown: C0 and C1
/// controls (tab and line breaks allowed in texts only), DEL, bidirectional overrides and
/// isolates, zero-width characters and the byte-order mark.
fn unseen(c: char, in_name: bool) -> bool {
    match c {
        '\t' | '\n' | '\r' => in_name,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' => true,
        '\u{061c}' | '\u{feff}' => true,
        _ => false,
    }
}

/// Every problem with the strings of the parsed text (assumed to be valid TOML syntax).
pub fn problems(file: &str, parsed: &Parsed) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut path = String::new();
    walk_table(
        parsed.root.get_ref(),
        &mut path,
        file,
        parsed.text,
        &mut out,
    );
    out
}

fn walk_table(t: &DeTable, path: &mut String, file: &str, text: &str, out: &mut Vec<Problem>) {
    for (k, v) in t.iter() {
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(k.get_ref());
        let in_name = NAME_KEYS.contains(&k.get_ref().as_ref());
        walk_value(v.get_ref(), v.span().start, in_name, path, file, text, out);
        path.truncate(len);
    }
}

fn walk_value(
    v: &DeValue,
    at: usize,
    in_name: bool,
    path: &mut String,
    file: &str,
    text: &str,
    out: &mut Vec<Problem>,
) {
    match v {
        DeValue::String(s) => check_string(s, at, in_name, path, file, text, out),
        DeValue::Table(t) => walk_table(t, path, file, text, out),
        DeValue::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                walk_value(x.get_ref(), x.span().start, in_name, path, file, text, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn check_string(
    s: &str,
    at: usize,
    in_name: bool,
    path: &str,
    file: &str,
    text: &str,
    out: &mut Vec<Problem>,
) {
    // The line is counted only for a string with a problem: counting it for every string made
    // loading a scenario quadratic in its length (Talavera took 0.1 s).
    let mut push = |message: String, help: &str| {
        out.push(Problem {
            file: file.to_string(),
            line: Some(text[..at.min(text.len())].matches('\n').count() + 1),
            field: path.to_string(),
            message,
            help: help.to_string(),
        })
    };
    if let Some((i, c)) = s.char_indices().find(|(_, c)| unseen(*c, in_name)) {
        push(
            format!(
                "holds the invisible or control character U+{:04X} at character {}",
                u32::from(c),
                s[..i].chars().count() + 1
            ),
            if in_name {
                "names and ids are one line of visible characters; retype the name"
            } else {
                "texts may hold tabs and line breaks but no other control or invisible characters"
            },
        );
    }
    let (limit, what) = if in_name {
        (MAX_NAME_CHARS, "a name or id")
    } else {
        (MAX_TEXT_CHARS, "a text")
    };
    let n = s.chars().count();
    if n > limit {
        push(
            format!("is {n} characters long; {what} may have at most {limit}"),
            "shorten it",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_bidi_and_overlong_names_are_each_reported_with_their_line() {
        let long = "x".repeat(MAX_NAME_CHARS + 1);
        let text = format!(
            "[meta]\nid = \"a\\u0000b\"\ntitle = \"ok\"\n[[units]]\nname = \"evil\\u202Eeman\"\n[[units]]\nname = \"{long}\"\ndescription = \"two\\nlines are fine\"\n"
        );
        let p = problems("f.toml", &Parsed::new(&text));
        assert_eq!(p.len(), 3, "{p:#?}");
        assert_eq!((p[0].field.as_str(), p[0].line), ("meta.id", Some(2)));
        assert!(p[0].message.contains("U+0000"), "{}", p[0].message);
        assert_eq!(p[1].field, "units[0].name");
        assert!(p[1].message.contains("U+202E"));
        assert_eq!(p[2].field, "units[1].name");
        assert!(p[2].message.contains("at most 120"));
    }

    #[test]
    fn a_line_break_is_refused_in_a_name_but_allowed_in_a_text() {
        let p = problems(
            "f.toml",
            &Parsed::new("name = \"a\\nb\"\ntext = \"a\\nb\"\n"),
        );
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].field, "name");
    }
}
