//! Text folding shared by the gazetteer and the order resolver.
//!
//! Names are stored in Unicode NFC. They are compared after [`fold`]: NFC, lower case,
//! diacritics removed, runs of white space and hyphens made one space, so "Kümla", "KUMLA" and
//! "kumla" all match. This module owns that one definition of "the same name", lower case
//! without a copy where there is nothing to lower ([`Lower`], the order reader's word tests),
//! the one spelling of bytes as text ([`hex`], for digests, keys and tokens), and the one way an
//! input file is read as text ([`read_file`], [`utf8`]: not UTF-8 is refused with the place of
//! the first bad byte).

use unicode_normalization::char::{decompose_canonical, is_combining_mark};
use unicode_normalization::{IsNormalized, UnicodeNormalization};

/// The bytes of an input file (a scenario, tables, orders, a plan, a case) as UTF-8 text; bytes
/// that are not UTF-8 are an `InvalidData` error naming the line, the column and the byte offset
/// of the first bad byte, and how to fix it. The caller names the file.
pub fn utf8(bytes: Vec<u8>) -> std::io::Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let good = &bytes[..at];
        let line = good.iter().filter(|b| **b == b'\n').count() + 1;
        let line_start = good.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        // Columns count characters, as editors do; the bytes before `at` are valid UTF-8.
        let column = String::from_utf8_lossy(&good[line_start..]).chars().count() + 1;
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8: byte 0x{:02X} at line {line}, column {column} (byte offset {at}) \
                 is not valid UTF-8; save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)",
                bytes[at]
            ),
        )
    })
}

/// [`std::fs::read_to_string`] with [`utf8`]'s error for bytes that are not UTF-8.
pub fn read_file(path: impl AsRef<std::path::Path>) -> std::io::Result<String> {
    utf8(std::fs::read(path)?)
}

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
    // Text that is plainly NFC (typographic quotes and dashes, "ü" already composed) is
    // copied: the quick check is a table lookup a character, composing is much more.
    if s.is_ascii() || unicode_normalization::is_nfc_quick(s.chars()) == IsNormalized::Yes {
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
    let mut step = |c: char| {
        if c.is_alphanumeric() {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            } else {
                out.extend(c.to_lowercase());
            }
        } else if c == '\'' || c == '’' || c == '.' {
            // "Prince Karl's" and "Prince Karls", "St. Clair" and "St Clair" fold alike.
        } else {
            pending_space = true;
        }
    };
    // The order reader folds every name it looks up (issue 11), so the common cases skip the
    // general NFD: ASCII has no decomposition, and a Latin-1 or Latin Extended-A letter
    // ("ü", "ñ", "ł") decomposes to a base letter and combining marks only, so decomposing it
    // alone and dropping the marks is what NFD followed by dropping the marks gives (NFD only
    // reorders combining marks, which are all dropped). Anything else takes the general path.
    if s.is_ascii() {
        // Byte by byte: an ASCII character is one byte (reading speed, issue 11).
        for &b in s.as_bytes() {
            if b.is_ascii_alphanumeric() {
                if pending_space && !out.is_empty() {
                    out.push(' ');
                }
                pending_space = false;
                out.push(char::from(b.to_ascii_lowercase()));
            } else if !matches!(b, b'\'' | b'.') {
                pending_space = true;
            }
        }
    } else if s
        .chars()
        .all(|c| c.is_ascii() || ('\u{C0}'..='\u{17F}').contains(&c))
    {
        for c in s.chars() {
            if c.is_ascii() {
                step(c);
            } else {
                decompose_canonical(c, |d| {
                    if !is_combining_mark(d) {
                        step(d)
                    }
                });
            }
        }
    } else {
        s.nfd().filter(|c| !is_combining_mark(*c)).for_each(step);
    }
    out
}

/// Lower case without a copy when there is nothing to lower: `str::to_lowercase` for the order
/// reader's many word tests, which mostly ask about words already in lower case (reading speed,
/// issue 11). The result is always `to_lowercase`'s.
pub trait Lower {
    /// `self.to_lowercase()`, borrowed when that would equal `self`.
    fn lower(&self) -> std::borrow::Cow<'_, str>;
}

impl Lower for str {
    fn lower(&self) -> std::borrow::Cow<'_, str> {
        use std::borrow::Cow;
        if !self.is_ascii() {
            Cow::Owned(self.to_lowercase())
        } else if self.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(self.to_ascii_lowercase())
        } else {
            Cow::Borrowed(self)
        }
    }
}

/// `s` is its own [`fold`]: lower-case ASCII letters and digits only (one word), so a caller may
/// keep it instead of folding a copy.
pub fn is_folded(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// Edit distance between two folded names (Levenshtein on characters).
pub fn edit_distance(a: &str, b: &str) -> usize {
    // The order reader measures every unknown place against every place of the scenario
    // (issue 11): on ASCII (characters are bytes) with the first name at most 64 bytes, the
    // bit-parallel form, one machine word per column and no allocation.
    if a.is_ascii() && b.is_ascii() && !a.is_empty() && a.len() <= 64 {
        return bit_parallel_distance(a.as_bytes(), b.as_bytes());
    }
    strsim::levenshtein(a, b)
}

/// Levenshtein distance of two byte strings, `a` of 1 to 64 bytes, by Myers' bit-vector
/// algorithm in Hyyrö's form (2003): bit `i` of the vertical deltas stands for row `i` of the
/// table, so each byte of `b` costs a few word operations instead of a row of the table.
fn bit_parallel_distance(a: &[u8], b: &[u8]) -> usize {
    let mut peq = [0u64; 256];
    for (i, &c) in a.iter().enumerate() {
        peq[usize::from(c)] |= 1 << i;
    }
    let last = 1u64 << (a.len() - 1);
    let (mut pv, mut mv) = (!0u64, 0u64);
    let mut score = a.len();
    for &c in b {
        let eq = peq[usize::from(c)];
        let xv = eq | mv;
        let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
        let mut ph = mv | !(xh | pv);
        let mut mh = pv & xh;
        if ph & last != 0 {
            score += 1;
        } else if mh & last != 0 {
            score -= 1;
        }
        // The top row of the table counts up by one a column: a horizontal +1 shifts in.
        ph = (ph << 1) | 1;
        mh <<= 1;
        pv = mh | !(xv | ph);
        mv = ph & xv;
    }
    score
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
    fn the_bit_parallel_distance_is_levenshtein() {
        // Every pair of a fixed pseudo-random set of short ASCII names, against the plain
        // dynamic programme (strsim), lengths 0 to 70 on either side.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let names: Vec<String> = (0..300)
            .map(|_| {
                let len = (next() % 71) as usize;
                (0..len)
                    .map(|_| char::from(b"abcde fgh"[(next() % 9) as usize]))
                    .collect()
            })
            .chain(["", "a", "kumla", "kümla", "talavera", "talaveera"].map(String::from))
            .collect();
        for a in &names {
            for b in names.iter().step_by(7) {
                assert_eq!(
                    super::edit_distance(a, b),
                    strsim::levenshtein(a, b),
                    "{a:?} {b:?}"
                );
            }
        }
    }

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

    /// The reference: NFD, combining marks dropped, then the same folding loop.
    fn fold_by_nfd(s: &str) -> String {
        let mut out = String::new();
        let mut pending_space = false;
        for c in s.nfd().filter(|c| !is_combining_mark(*c)) {
            if c.is_alphanumeric() {
                if pending_space && !out.is_empty() {
                    out.push(' ');
                }
                pending_space = false;
                out.extend(c.to_lowercase());
            } else if c == '\'' || c == '’' || c == '.' {
            } else {
                pending_space = true;
            }
        }
        out
    }

    /// The fast paths of `fold` (ASCII; Latin-1 and Latin Extended-A letters decomposed one by
    /// one) give what full NFD gives, for every such character, alone and inside words, and for
    /// text that takes the general path (decomposed input, Greek, a lone combining mark).
    #[test]
    fn folding_fast_paths_are_nfd() {
        let mut texts: Vec<String> = (0xC0u32..=0x17F)
            .filter_map(char::from_u32)
            .flat_map(|c| {
                [
                    c.to_string(),
                    format!("Ab{c}cd Ef-{c}"),
                    format!("{c}{c}. {c}'s"),
                ]
            })
            .collect();
        texts.extend(
            [
                "Kümla",
                "Cerro de Medellín",
                "Ku\u{308}mla",
                "Ǆemal",
                "Ωmega",
                "\u{301}a",
                "Ŀ·l",
                "Æbelø",
                "Straße",
                "İstanbul",
                "  Säter   road ",
                "St. Clair",
            ]
            .map(str::to_string),
        );
        for t in &texts {
            assert_eq!(fold(t), fold_by_nfd(t), "{t:?}");
        }
    }

    /// The ASCII edit distance is strsim's Levenshtein, including empty and long strings.
    #[test]
    fn edit_distance_is_levenshtein() {
        let words = [
            "",
            "a",
            "hall",
            "kumla",
            "kumlaa",
            "sater road",
            "cerro de medellin",
            "cerro medellin",
            "talavera",
            "tavalera",
            "pajar de vergara",
            "2nd division",
            "second division",
            "x".repeat(63).leak(),
            "y".repeat(70).leak(),
            "kümla",
            "säter",
        ];
        for a in words {
            for b in words {
                assert_eq!(
                    edit_distance(a, b),
                    strsim::levenshtein(a, b),
                    "{a:?} {b:?}"
                );
            }
        }
    }

    #[test]
    fn nfc_composes_decomposed_input() {
        let decomposed = "Ku\u{308}mla";
        assert_eq!(nfc(decomposed), "Kümla");
        assert_eq!(fold(decomposed), "kumla");
    }
}
