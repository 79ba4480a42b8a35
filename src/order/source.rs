//! Cutting input text into orders (separated by blank lines) and orders into sentences.
//!
//! Owns: the lexical splitting that keeps parsing linear: each sentence is parsed on its own
//! and a sentence longer than [`MAX_SENTENCE`] bytes is not parsed at all (it is kept as a
//! remark). Must not: interpret words beyond sentence punctuation and abbreviations.
//!
//! Spans are byte offsets into the input as given. The input is *not* NFC-normalised before
//! parsing (the grammar accepts combining marks inside words, and names are compared after
//! [`crate::text::fold`]), so no offset ever shifts; extracted texts are normalised to NFC.

/// Longest sentence the grammar is asked to read, in bytes.
pub const MAX_SENTENCE: usize = 4096;

/// Longest order the reader reads, in characters (decision 0176): ten times the longest order
/// of the corpus. The reader's work on one order grows faster than its length (pronouns,
/// contradictions and shared objectives look across its stages), so bounding the order keeps a
/// whole input linear.
pub const MAX_ORDER_CHARS: usize = 8000;

/// Byte ranges of the orders in `text`: runs of lines separated by blank lines, trimmed.
pub fn split_orders(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut end = 0;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let blank = line.trim().is_empty();
        if blank {
            if let Some(s) = start.take() {
                out.push((s, end));
            }
        } else {
            let lead = line.len() - line.trim_start().len();
            if start.is_none() {
                start = Some(pos + lead);
            }
            end = pos + line.trim_end().len();
        }
        pos += line.len();
    }
    if let Some(s) = start {
        out.push((s, end));
    }
    out
}

/// Abbreviations before a name: a stop after them never ends a sentence ("To Gen. Hill").
const TITLES: &[&str] = &[
    "gen", "genl", "lt", "col", "maj", "capt", "brig", "br", "st", "mr", "no", "a.m", "p.m",
];

/// Abbreviations that end a unit's name ("2nd Div."): a stop after them ends a sentence only
/// when a capitalised word follows ("2nd Div. Then capture Hall").
const UNIT_ABBREVIATIONS: &[&str] = &["div", "bde", "cav", "inf", "art", "bn", "regt"];

/// Byte ranges (relative to `order`) of its sentences. A sentence ends after `.`, `!` or `?`
/// followed by white space or the end, except after an abbreviation ("Gen.", "Div.").
/// Closing brackets and quotes after the stop stay with the sentence.
pub fn split_sentences(order: &str) -> Vec<(usize, usize)> {
    let bytes = order.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'.' || c == b'!' || c == b'?' {
            let mut j = i + 1;
            while j < bytes.len() && matches!(bytes[j], b')' | b'"' | b'\'' | b']') {
                j += 1;
            }
            let at_break = j >= bytes.len() || bytes[j].is_ascii_whitespace();
            let abbreviated = c == b'.'
                && match last_word(&order[start..i]).as_str() {
                    w if TITLES.contains(&w) => true,
                    w if UNIT_ABBREVIATIONS.contains(&w) => !order[j..]
                        .trim_start()
                        .starts_with(|ch: char| ch.is_uppercase()),
                    _ => false,
                };
            if at_break && !abbreviated {
                push_trimmed(order, start, j, &mut out);
                start = j;
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    push_trimmed(order, start, order.len(), &mut out);
    out
}

fn last_word(before: &str) -> String {
    before
        .rsplit(|c: char| c.is_whitespace() || c == '(' || c == ',')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

fn push_trimmed(text: &str, start: usize, end: usize, out: &mut Vec<(usize, usize)>) {
    let s = &text[start..end];
    let lead = s.len() - s.trim_start().len();
    let trimmed = s.trim();
    if !trimmed.is_empty() {
        out.push((start + lead, start + lead + trimmed.len()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_are_separated_by_blank_lines() {
        let t = "3rd Div: march to Kümla.\n\n  \n2nd Div: capture Hall.\nDavrange\n";
        let o = split_orders(t);
        assert_eq!(o.len(), 2);
        assert_eq!(&t[o[0].0..o[0].1], "3rd Div: march to Kümla.");
        assert_eq!(&t[o[1].0..o[1].1], "2nd Div: capture Hall.\nDavrange");
    }

    #[test]
    fn a_unit_abbreviation_ends_a_sentence_before_a_capital() {
        let t = "Attack with 3rd Div. General order.";
        assert_eq!(split_sentences(t).len(), 2);
        let t = "To 3rd Div. attack Hall.";
        assert_eq!(split_sentences(t).len(), 1);
    }

    #[test]
    fn sentences_end_at_stops_but_not_in_hexes_or_abbreviations() {
        let t = "To Gen. Hill: move to 29.17. Then attack Hall! Halt?";
        let s: Vec<&str> = split_sentences(t).iter().map(|r| &t[r.0..r.1]).collect();
        assert_eq!(
            s,
            ["To Gen. Hill: move to 29.17.", "Then attack Hall!", "Halt?"]
        );
    }
}
