//! Definite descriptions and the kinds of places (rule `place.definite`, decisions 0214–0216):
//! a bare "the village", "the town", "the bridge", "the heights" written after places stands for
//! the last of them **of its kind**, as "that village" does (rule `pronoun.kind`); with none of
//! its kind before it, it is a scenario alias ("the bridge") or a vague place of its own.
//!
//! Owns: the kinds a place of the order may be — the gazetteer's kind with a scenario, else read
//! from the place's own words through the lexicon (`[kinds]` and `[named]`: "the village of X",
//! "X bridge", "Fort X", "the bridge at X" which also names X, a bare name, "the Coa" with its
//! article) — and the search back for the antecedent of a description. Must not: know any word
//! itself (grammar/lexicon.toml does), resolve names (that is [`super::resolve`]).

use super::ast::{Form, Reference, Resolved, Span, Stage};
use super::lexicon;
use super::resolve::{Index, Match};
use crate::text::Lower;

/// A place written in the order that a description may point back to.
struct Antecedent<'a> {
    /// Where it is written (the reference it belongs to).
    span: Span,
    /// The place kinds it may be.
    kinds: Vec<String>,
    /// What it resolved to, with a scenario.
    resolved: Option<&'a Resolved>,
}

/// The kinds a place written without a scenario may be, read from its own words (decision
/// 0216): the head's noun of `[kinds]` ("village of Fuentes", "Almaraz bridge", "Fort
/// Concepcion", the last such noun before a link word of `[named]`), else a bare name's kinds
/// (`[named] bare`, or `article` for a name written with "the": "the Coa"). A head with a link
/// and a name after it ("the castle of Badajoz", "the bridge at Sabugal") gives that name too,
/// as a bare name of its own: the second entry — unless the head is that place (`[named] same`:
/// "the village of Elchingen" is Elchingen).
pub(super) fn word_kinds(text: &str, phrase: &str) -> Vec<Vec<String>> {
    let lex = lexicon::get();
    // Each word with its byte offset in `text`.
    let words: Vec<(usize, String)> = text
        .split_whitespace()
        .map(|w| {
            (
                w.as_ptr() as usize - text.as_ptr() as usize,
                w.lower().into_owned(),
            )
        })
        .collect();
    let link = words.iter().position(|(_, w)| lex.is_kind_link(w));
    let head = &words[..link.unwrap_or(words.len())];
    let kind_of = |ws: &[(usize, String)]| ws.iter().rev().find_map(|(_, w)| lex.place_kinds(w));
    match kind_of(head) {
        Some(kinds) => {
            let mut out = vec![kinds.to_vec()];
            let tail = link.map_or(&[][..], |i| &words[i + 1..]);
            let tail_text = tail.first().map_or("", |(at, _)| &text[*at..]);
            if !tail.is_empty()
                && !lex.is_same_kind(kinds)
                && kind_of(tail).is_none()
                && super::name_like(tail_text)
            {
                out.push(lex.bare_kinds(false).to_vec());
            }
            out
        }
        None => {
            let with_article = phrase.lower().starts_with("the ");
            vec![lex.bare_kinds(with_article).to_vec()]
        }
    }
}

/// Every place before `before` that a description may point back to, in the order written.
/// With a scenario only resolved places count, by the gazetteer's kind; without one, names
/// written as names, by their words ([`word_kinds`]; a name's own kind found before the bare
/// name inside it when searching back).
fn antecedents<'a>(places: &'a [Reference], before: usize, scenario: bool) -> Vec<Antecedent<'a>> {
    let mut out = Vec::new();
    for p in places.iter().filter(|p| p.span.0 < before) {
        if scenario {
            if let Some(x) = &p.resolved {
                out.push(Antecedent {
                    span: p.span,
                    kinds: vec![x.kind.clone()],
                    resolved: Some(x),
                });
            }
        } else if p.form == Form::Name && super::name_like(&p.text) {
            for kinds in word_kinds(&p.text, &p.phrase).into_iter().rev() {
                out.push(Antecedent {
                    span: p.span,
                    kinds,
                    resolved: None,
                });
            }
        }
    }
    out
}

/// The places a step moves away from ("advance from Ventosa against the village"): the
/// "from" of the step whose objective or route is at `span`. Such a place is never what the
/// same step goes to, so never the antecedent of its description (decision 0214).
fn origins(stages: &[Stage], span: Span) -> Vec<Span> {
    let mut out = Vec::new();
    for step in stages.iter().flat_map(|st| &st.steps) {
        if !step
            .objectives
            .iter()
            .chain(&step.route)
            .any(|r| r.span == span)
        {
            continue;
        }
        if let Some(d) = &step.direction
            && (d.from || d.text.lower().starts_with("from "))
            && let Some(p) = &d.place
        {
            out.push(p.span);
        }
    }
    out
}

/// The last place written before `at` whose kinds meet `kinds`, skipping the step's origins.
fn last_of_kind<'a>(
    places: &'a [Reference],
    at: Span,
    kinds: &[String],
    scenario: bool,
    stages: &[Stage],
) -> Option<Antecedent<'a>> {
    let skip = origins(stages, at);
    antecedents(places, at.0, scenario)
        .into_iter()
        .rev()
        .filter(|a| !skip.contains(&a.span))
        .find(|a| a.kinds.iter().any(|k| kinds.contains(k)))
}

/// The antecedent of a demonstrative's noun ("that village"; rule `pronoun.kind`): the last
/// place of its kind before `at`, by the same search as a definite description. `None` when the
/// noun names no kind or no place of its kind is written before it.
pub(super) fn demonstrative(
    noun: &str,
    at: Span,
    places: &[Reference],
    scenario: bool,
    stages: &[Stage],
) -> Option<Option<Resolved>> {
    let kinds = lexicon::get().place_kinds(noun)?;
    last_of_kind(places, at, kinds, scenario, stages).map(|a| a.resolved.cloned())
}

/// Rule `place.definite`: what a bare definite description ("the village", "the bridge")
/// stands for. `Some(res)` when it points back — no place of its own, `res` its antecedent's
/// resolution (`None` without a scenario); `None` when it is read as any name is (a scenario
/// alias, else a vague place). The last place of its kind written before it wins, also over a
/// scenario alias of another place — then only a place of the noun's first kind (a stream is
/// not "the river" of Talavera's alias); the alias is kept, a place, when it names that same
/// place. A noun of no kind ("the position") points back to any name as before, without a
/// scenario only. "the village itself" points back to the last name of any kind.
pub(super) fn definite(
    text: &str,
    r: &Reference,
    places: &[Reference],
    index: Option<&Index<'_>>,
    stages: &[Stage],
) -> Option<Option<Resolved>> {
    let noun = super::definite_noun(r)?;
    if r.text.contains(' ') {
        return None;
    }
    let after = text.get(r.span.1..).unwrap_or("").trim_start();
    let itself = after
        .get(..6)
        .is_some_and(|w| w.eq_ignore_ascii_case("itself"));
    let named_before = || {
        places.iter().any(|p| {
            p.span.0 < r.span.0
                && p.form == Form::Name
                && (p.resolved.is_some() || super::name_like(&p.text))
        })
    };
    let Some(kinds) = lexicon::get().place_kinds(noun) else {
        return ((index.is_none() || itself) && named_before()).then_some(None);
    };
    let alias = index.and_then(|ix| {
        if !ix.is_exact_name(&r.text) {
            return None;
        }
        match ix.place(&r.text) {
            Match::Found { resolved, .. } => Some(resolved),
            Match::Missing { .. } => None,
        }
    });
    let kinds = match (&alias, kinds.get(..1)) {
        (Some(_), Some(first)) => first,
        _ => kinds,
    };
    match last_of_kind(places, r.span, kinds, index.is_some(), stages) {
        Some(a) => match (&alias, a.resolved) {
            (Some(al), Some(x)) if al.id == x.id => None,
            _ => Some(a.resolved.cloned()),
        },
        None if alias.is_none() && itself && named_before() => Some(None),
        None => None,
    }
}

/// The help of a vague description's warning with a scenario: the gazetteer's places of its
/// kind, so the writer can name the one meant. A scenario with exactly one place of that kind
/// is still asked (decision 0215): "the heights" may be ground the gazetteer does not name.
pub(super) fn vague_help(ix: &Index<'_>, r: &Reference) -> Option<String> {
    let noun = r.text.rsplit(' ').next()?.lower();
    let kinds = lexicon::get().place_kinds(&noun)?;
    let names = ix.places_of_kinds(kinds);
    match names.as_slice() {
        [] => None,
        [one] => Some(format!(
            "name the place or give a hex (the one place of that kind this map names is \"{one}\")"
        )),
        many => Some(format!(
            "name the place or give a hex (of that kind this map names {})",
            many.iter()
                .take(6)
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::word_kinds;

    fn kinds(text: &str, phrase: &str) -> Vec<Vec<String>> {
        word_kinds(text, phrase)
    }

    #[test]
    fn a_head_noun_gives_the_kind_and_the_name_after_its_link_is_a_bare_name() {
        // Decision 0216: "the village of Fuentes" is a village; "the castle of Badajoz" a
        // castle, and Badajoz a bare name (a village or town, never a bridge).
        assert_eq!(
            kinds("village of Elchingen", "the village of Elchingen"),
            [["village", "town"]]
        );
        let castle = kinds("castle of Badajoz", "the castle of Badajoz");
        assert_eq!(castle.len(), 2, "{castle:?}");
        assert!(castle[0].contains(&"castle".to_string()));
        assert!(castle[1].contains(&"town".to_string()));
        assert!(!castle[1].contains(&"bridge".to_string()));
        // "X bridge", "Fort X": the noun inside the name.
        assert_eq!(kinds("Almaraz bridge", "Almaraz bridge"), [["bridge"]]);
        assert!(kinds("Fort Concepcion", "Fort Concepcion")[0].contains(&"fort".to_string()));
        assert_eq!(kinds("bridge at Sabugal", "the bridge at Sabugal").len(), 2);
    }

    #[test]
    fn a_bare_name_is_a_settlement_or_a_height_and_with_the_article_a_river() {
        let bare = &kinds("San Cristobal", "San Cristobal")[0];
        assert!(bare.contains(&"village".to_string()), "{bare:?}");
        assert!(!bare.contains(&"bridge".to_string()), "{bare:?}");
        assert!(!bare.contains(&"river".to_string()), "{bare:?}");
        let the = &kinds("Coa", "the Coa")[0];
        assert!(the.contains(&"river".to_string()), "{the:?}");
        assert!(!the.contains(&"town".to_string()), "{the:?}");
        // "de" is no link: "Fuentes de Oñoro" is one bare name.
        assert_eq!(kinds("Fuentes de Oñoro", "Fuentes de Oñoro").len(), 1);
    }
}
