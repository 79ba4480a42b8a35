//! Text folding shared by the gazetteer and the order resolver.
//!
//! Names are stored in Unicode NFC. They are compared after [`fold`]: NFC, lower case,
//! diacritics removed, runs of white space and hyphens made one space, so "Kümla", "KUMLA" and
//! "kumla" all match. This module owns that one definition of "the same name".

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

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

#[cfg(test)]
mod tests {
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
