//! Text folding shared by the gazetteer and the order resolver.
//!
//! Names are stored in Unicode NFC. They are compared after [`fold`]: NFC, lower case,
//! diacritics removed, runs of white space and hyphens made one space, so "Kümla", "KUMLA" and
//! "kumla" all match. This module owns that one definition of "the same name", and the one
//! spelling of bytes as text ([`hex`], for digests, keys and tokens).

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Bytes as lowercase hex, two digits a byte (hash-chain digests, receipt keys, join tokens).
pub fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0x0f)]));
    }
    out
}

/// Normalise text to NFC (the form every stored name and every parsed order uses).
pub fn nfc(s: &str) -> String {
    // ASCII is already NFC (the common case, and the order reader's hot path).
    if s.is_ascii() {
        return s.to_string();
    }
    s.nfc().collect()
}

/// Fold a name for comparison: case, diacritics, punctuation and spacing are ignored.
///
/// ```
/// assert_eq!(staffwork::text::fold("Kümla"), staffwork::text::fold("KUMLA"));
/// ```
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    // ASCII has no decomposition: the same loop without NFD (the order reader's hot path).
    let chars: Box<dyn Iterator<Item = char>> = if s.is_ascii() {
        Box::new(s.chars())
    } else {
        Box::new(s.nfd().filter(|c| !is_combining_mark(*c)))
    };
    for c in chars {
        if c.is_alphanumeric() {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.extend(c.to_lowercase());
        } else if c == '\'' || c == '’' || c == '.' {
            // "Prince Karl's" and "Prince Karls", "St. Clair" and "St Clair" fold alike.
        } else {
            pending_space = true;
        }
    }
    out
}

/// Edit distance between two folded names (Levenshtein on characters).
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

/// Characters that change how a terminal shows text without being seen: control characters
/// (C0, DEL, C1 — escape sequences start with one), bidirectional overrides and isolates, and
/// zero-width characters.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{061C}' | '\u{FEFF}')
}

/// User text (order text, override reasons, names) made safe to print: every control or
/// invisible formatting character is shown as a `\u{…}` escape (`\n`, `\t` for the common two),
/// so escape sequences, right-to-left overrides and NULs are seen rather than obeyed. The one
/// renderer every CLI printer uses for text a user typed.
///
/// ```
/// assert_eq!(staffwork::text::visible("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
/// ```
pub fn visible(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(is_hidden) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if is_hidden(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The parts of a name in brackets: "6th Brigade (Fane)" → "Fane", the commander the counter
/// is named after (the scenario has no commander entry for most brigadiers).
pub fn bracketed(name: &str) -> Option<&str> {
    let (_, rest) = name.split_once('(')?;
    let (inner, _) = rest.split_once(')')?;
    Some(inner.trim()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    #[test]
    fn visible_shows_control_and_invisible_characters() {
        assert_eq!(super::visible("Oporto"), "Oporto");
        assert_eq!(super::visible("a\u{1b}]0;x\u{7}b"), "a\\u{1b}]0;x\\u{7}b");
        assert_eq!(super::visible("x\u{202e}y\u{0}"), "x\\u{202e}y\\u{0}");
        assert_eq!(super::visible("l1\nl2\t"), "l1\\nl2\\t");
        assert_eq!(super::visible("Säter"), "Säter");
    }

    use super::*;

    #[test]
    fn folding_ignores_case_diacritics_and_spacing() {
        assert_eq!(fold("Kümla"), "kumla");
        assert_eq!(fold("KUMLA"), "kumla");
        assert_eq!(fold("  Säter   road "), "sater road");
        assert_eq!(fold("Cerro de Medellín"), "cerro de medellin");
        assert_eq!(fold("Talavera-Casa de Salinas"), "talavera casa de salinas");
        assert_eq!(fold("St. Clair"), "st clair");
    }

    #[test]
    fn nfc_composes_decomposed_input() {
        let decomposed = "Ku\u{308}mla";
        assert_eq!(nfc(decomposed), "Kümla");
        assert_eq!(fold(decomposed), "kumla");
    }
}
