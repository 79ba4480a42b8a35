//! The shape of names (issue 11 §3): the scenario's place names laid over a sentence's tokens,
//! longest first, and the general rules that cut ordinary words off the edges of a name the
//! grammar captured ("Hall together", "left Hinzeberg", "the foot of the Medellin").
//!
//! Owns: the place-name phrase table of a scenario ([`Phrases`], compiled once per scenario by
//! [`super::resolve::Index`]) and the rewrite that merges or trims `Place` tokens. Must not:
//! resolve a name to an id (that is [`super::resolve`]) or decide what tokens mean together
//! (that is [`super::build`]). Linear in the sentence: each word is tried once against the
//! phrases that start with it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::ast::{Form, Span};
use super::lexicon::{self, split_words};
use super::lower::{Target, Tok};
use crate::text::{Lower, fold, is_folded, nfc};

/// A scenario's place names and aliases as folded word sequences, by first word, longest
/// first. A leading "the" is left out (it is matched as the phrase's article).
#[derive(Default)]
pub(crate) struct Phrases {
    by_first: FxHashMap<String, Vec<Vec<String>>>,
}

/// The folded words of a text (diacritics, case and apostrophes dropped; "33.17" is two words).
fn folded_words(text: &str) -> Vec<(Cow<'_, str>, Span)> {
    split_words(text, 0)
        .into_iter()
        // A word already folded is kept, not copied (reading speed).
        .map(|(w, s)| {
            (
                if is_folded(&w) {
                    w
                } else {
                    Cow::Owned(fold(&w))
                },
                s,
            )
        })
        .filter(|(w, _)| !w.is_empty())
        .collect()
}

impl Phrases {
    pub(crate) fn new<'n>(names: impl Iterator<Item = &'n str>) -> Phrases {
        let mut by_first: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
        for n in names {
            let mut ws: Vec<String> = folded_words(n)
                .into_iter()
                .map(|(w, _)| w.into_owned())
                .collect();
            if ws.first().is_some_and(|w| w == "the") {
                ws.remove(0);
            }
            // A bare hex alias ("50.04") is read as a hex, never merged into a name.
            if ws.is_empty() || ws.iter().all(|w| w.chars().all(|c| c.is_ascii_digit())) {
                continue;
            }
            by_first.entry(ws[0].clone()).or_default().push(ws);
        }
        for v in by_first.values_mut() {
            v.sort_by_key(|w| std::cmp::Reverse(w.len()));
            v.dedup();
        }
        Phrases {
            by_first: by_first.into_iter().collect(),
        }
    }

    /// The length in words of the longest name starting at word `i`.
    fn longest(&self, ws: &[(Cow<'_, str>, Span)], i: usize) -> Option<usize> {
        self.by_first.get(&*ws[i].0)?.iter().find_map(|p| {
            (i + p.len() <= ws.len() && p.iter().zip(&ws[i..]).all(|(a, (b, _))| a == b))
                .then_some(p.len())
        })
    }
}

/// A name target built from `text[span]`, with `phrase_from` the start of its article.
pub(crate) fn name_target(text: &str, span: Span, phrase_from: usize) -> Target {
    let name = nfc(&text[span.0..span.1]);
    Target {
        form: Form::Name,
        phrase: if phrase_from < span.0 {
            nfc(&text[phrase_from..span.1])
        } else {
            name.clone()
        },
        text: name,
        span,
        phrase_span: (phrase_from.min(span.0), span.1),
        hexes: Vec::new(),
        within: None,
        parts: Vec::new(),
    }
}

/// A simple (one-part) name target.
fn simple(t: &Tok) -> Option<&Target> {
    match t {
        Tok::Place(x) if x.form == Form::Name && x.parts.is_empty() => Some(x),
        _ => None,
    }
}

/// The piece `text[a..b]` left over when a name is cut: a name when it holds a capitalised
/// word, else an ordinary word (never a place).
fn leftover(text: &str, a: usize, b: usize, out: &mut Vec<Tok>) {
    let raw = &text[a..b];
    let s = raw.trim_matches(|c: char| c.is_whitespace() || c == ',');
    if s.is_empty() {
        return;
    }
    let from = a
        + (raw.len()
            - raw
                .trim_start_matches(|c: char| c.is_whitespace() || c == ',')
                .len());
    let span = (from, from + s.len());
    if capitalised_word(s) {
        out.push(Tok::Place(name_target(text, span, span.0)));
    } else {
        out.push(Tok::Filler(span));
    }
}

/// The text holds a capitalised word other than the pronoun "I".
fn capitalised_word(s: &str) -> bool {
    s.split_whitespace()
        .any(|w| w != "I" && w.chars().next().is_some_and(char::is_uppercase))
}

/// Rule `name.scenario`: lay the scenario's place names over the tokens, longest first. A name
/// written across what the grammar read as several tokens ("the bridge at Kirseberg", "the hill
/// east of Vimeiro", "the 33.17 crossroads") becomes one place; a name inside a longer captured
/// name ("Hall falls", "the heights above Kümla") is cut out of it. `keep` says whether a
/// captured name must be kept whole (it is itself a name of the scenario, e.g. a unit).
pub(crate) fn scenario(
    text: &str,
    sent: Span,
    toks: Vec<Tok>,
    phrases: &Phrases,
    keep: &dyn Fn(&str) -> bool,
    fired: &mut bool,
) -> Vec<Tok> {
    let ws: Vec<(Cow<'_, str>, Span)> = folded_words(&text[sent.0..sent.1])
        .into_iter()
        .map(|(w, s)| (w, (s.0 + sent.0, s.1 + sent.0)))
        .collect();
    let mut toks = toks;
    let mut i = 0;
    while i < ws.len() {
        let Some(n) = phrases.longest(&ws, i) else {
            i += 1;
            continue;
        };
        let m = (ws[i].1.0, ws[i + n - 1].1.1);
        match merge(text, &toks, m, keep) {
            Some((range, repl)) => {
                toks.splice(range, repl);
                *fired = true;
                i += n;
            }
            None => i += 1,
        }
    }
    toks
}

/// The replacement of the tokens a scenario name `m` covers, if they may be merged.
fn merge(
    text: &str,
    toks: &[Tok],
    m: Span,
    keep: &dyn Fn(&str) -> bool,
) -> Option<(std::ops::RangeInclusive<usize>, Vec<Tok>)> {
    let from = toks.partition_point(|t| t.span().1 <= m.0);
    let hit: Vec<usize> = (from..toks.len())
        .take_while(|&k| toks[k].span().0 < m.1)
        .collect();
    let (&first, &last) = (hit.first()?, hit.last()?);
    // Already one token of exactly this name.
    if hit.len() == 1
        && let Some(t) = simple(&toks[first])
        && t.span == m
    {
        return None;
    }
    let inside = |s: Span| s.0 >= m.0 && s.1 <= m.1;
    let mut phrase_from = m.0;
    let mut head: Vec<Tok> = Vec::new();
    let mut tail: Vec<Tok> = Vec::new();
    let mut relation: Option<(String, usize)> = None;
    for &k in &hit {
        let t = &toks[k];
        let ok = match t {
            Tok::Place(x) if x.form == Form::Hex && x.parts.is_empty() => inside(x.span),
            Tok::Place(x) if x.form == Form::Name && x.parts.is_empty() => {
                if !inside(x.span)
                    && (keep(&x.text)
                        || names_in(&text[x.span.0..m.0.max(x.span.0)])
                        || names_in(&text[m.1.min(x.span.1)..x.span.1]))
                {
                    // "Kümla Hall crossroads" is one name as written, not two places.
                    return None;
                }
                if k == first && x.span.0 < m.0 {
                    // Rule `name.relation-head` here too: "outskirts of Hall".
                    let from = x.phrase_span.0.min(x.span.0);
                    if relation.is_none() && relation_head(&text[from..m.0]) {
                        relation = Some((text[from..m.0].trim().to_lowercase(), from));
                    } else if above_below(&text[from..m.0]) {
                        leading_words(text, from, m.0, &mut head);
                    } else {
                        leftover(text, x.span.0, m.0, &mut head);
                    }
                    phrase_from = m.0;
                } else if k == first && x.phrase_span.0 < m.0 {
                    phrase_from = x.phrase_span.0;
                }
                if k == last && x.span.1 > m.1 {
                    leftover(text, m.1, x.span.1, &mut tail);
                }
                (k == first || x.span.0 >= m.0) && (k == last || x.span.1 <= m.1)
            }
            // "behind the bridge at Kirseberg": the relation keeps its word, the name grows.
            Tok::Relation { rel, target, span }
                if k == first && span.0 < m.0 && target.parts.is_empty() =>
            {
                relation = Some((rel.clone(), span.0));
                phrase_from = target.phrase_span.0.min(m.0);
                target.span.0 == m.0 && span.1 <= m.1
            }
            Tok::Relation { span, .. }
            | Tok::DestPrep(_, span)
            | Tok::RoutePrep(_, span)
            | Tok::Compass(_, span)
            | Tok::Filler(span)
            | Tok::Punct(span) => inside(*span),
            _ => false,
        };
        if !ok {
            return None;
        }
    }
    // "at the 33.17 crossroads", "near the 33.17 crossroads": the article, and a relation word
    // the grammar could not join to a name it did not know (it starts with a hex), belong to
    // the name, so neither is left over as a remark nor is the place read bare.
    let mut first = first;
    if relation.is_none() && head.is_empty() && phrase_from == m.0 {
        let (k, rel, article) = article_and_relation(text, toks, first, m.0);
        if let Some(rel) = rel {
            relation = Some((rel, toks[k].span().0));
        }
        phrase_from = article;
        first = k;
    }
    let target = name_target(text, m, phrase_from);
    let mut repl = head;
    match relation {
        Some((rel, at)) => repl.push(Tok::Relation {
            rel,
            span: (at, m.1),
            target,
        }),
        None => repl.push(Tok::Place(target)),
    }
    repl.extend(tail);
    Some((first..=last, repl))
}

/// Ordinary words right before token `at` (a name starting at byte `name_from`): a "the" and
/// a relation word before it. Gives the first token that belongs to the name's phrase, the
/// relation if any, and where the phrase starts. Looks back at most five tokens (linear time).
fn article_and_relation(
    text: &str,
    toks: &[Tok],
    at: usize,
    name_from: usize,
) -> (usize, Option<String>, usize) {
    let mut article = name_from;
    let mut k = at;
    if k > 0
        && let Tok::Filler(s) = toks[k - 1]
        && text[s.0..s.1].eq_ignore_ascii_case("the")
        && text[s.1..name_from].trim().is_empty()
    {
        article = s.0;
        k -= 1;
    }
    let Some(end) = k.checked_sub(1).map(|j| toks[j].span().1) else {
        return (k, None, article);
    };
    if !text[end..article].trim().is_empty() {
        return (k, None, article);
    }
    for j in (k.saturating_sub(4)..k).rev() {
        let Tok::Filler(s) = toks[j] else { break };
        if let Some(rel) = super::lower::relation_word(&text[s.0..end]) {
            return (j, Some(rel), article);
        }
    }
    (k, None, article)
}

/// The text holds a word that may be part of a name (not only links and ordinary words).
fn names_in(s: &str) -> bool {
    s.split_whitespace()
        .any(|w| !is_link(&w.lower()) && name_word(w.trim_matches(',')))
}

/// Rule `name.feature`: with no scenario to say what a name is, a terrain feature joined to a
/// proper name is one place: "the ford of Almaraz", "the road to Coimbra", "the bridge at
/// Mantua" (a relation noun never is: "the foot of the Medellin" names the Medellin).
pub(crate) fn features(text: &str, toks: Vec<Tok>, fired: &mut bool) -> Vec<Tok> {
    let lex = lexicon::get();
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    for t in toks {
        out.push(t);
        let n = out.len();
        if n < 3 {
            continue;
        }
        let (Some(a), Some(b)) = (simple(&out[n - 3]), simple(&out[n - 1])) else {
            continue;
        };
        let head = a.text.lower();
        let link = match &out[n - 2] {
            Tok::Filler(s) if text[s.0..s.1].eq_ignore_ascii_case("of") => "of",
            Tok::DestPrep(p, _) if p == "to" || p == "at" => p.as_str(),
            _ => continue,
        };
        let road = matches!(
            head.as_ref(),
            "road" | "roads" | "bridge" | "ford" | "pass" | "way"
        );
        let ok = !head.contains(' ')
            && lex.is_terrain(&head)
            && !lex.is_relation(&head)
            && (link == "of" || road)
            && capitalised_word(&b.text)
            && b.phrase_span.0 == b.span.0;
        if !ok {
            continue;
        }
        let merged = name_target(text, (a.span.0, b.span.1), a.phrase_span.0);
        out.truncate(n - 3);
        out.push(Tok::Place(merged));
        *fired = true;
    }
    out
}

/// Rule `name.terrain-head`: a terrain noun the grammar reads as a keyword ("pass") right after
/// a proper name ends that name: "the Kösen pass", "the Maya pass" are one place.
pub(crate) fn terrain_head(text: &str, toks: Vec<Tok>, fired: &mut bool) -> Vec<Tok> {
    let lex = lexicon::get();
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    for t in toks {
        if let Tok::Filler(s) = &t
            && let Some(x) = out.last().and_then(simple)
            && capitalised_word(&x.text)
            && text[x.span.1..s.0].chars().all(|c| c == ' ')
        {
            let w = text[s.0..s.1].lower();
            if !w.contains(' ')
                && lex.is_terrain(&w)
                && !lex.is_relation(&w)
                && super::lower::is_keyword(&w)
            {
                let merged = name_target(text, (x.span.0, s.1), x.phrase_span.0);
                out.pop();
                out.push(Tok::Place(merged));
                *fired = true;
                continue;
            }
        }
        out.push(t);
    }
    out
}

/// Words that join the parts of a name ("Pajar de Vergara", "ford of Almaraz").
pub(crate) fn is_link(w: &str) -> bool {
    matches!(
        w,
        "de" | "del"
            | "della"
            | "la"
            | "le"
            | "les"
            | "of"
            | "the"
            | "von"
            | "van"
            | "der"
            | "den"
            | "du"
            | "des"
            | "di"
            | "da"
            | "y"
            | "am"
            | "an"
            | "sur"
    )
}

/// A word that may stand inside a name although written in lower case: a linking particle, a
/// terrain noun ("road", "heights"), a troop word ("division", "lancers"), or a word that does
/// not begin with a letter ("3rd").
fn name_word(w: &str) -> bool {
    let lex = lexicon::get();
    let lower = w.lower();
    let f = fold(&lower);
    !w.chars().next().is_some_and(char::is_lowercase)
        || is_link(&lower)
        || elided_particle(w)
        || lex.is_name_adjective(&lower)
        || lex.is_terrain(&lower)
        || lex.is_troop_word(&f)
        || lex.is_troop_word(f.trim_end_matches('s'))
}

/// "d'Aver", "l'Orme", "dell'Acqua": a particle elided onto a capitalised word is part of the
/// name ("Nave d'Aver", rule `name.edges`).
fn elided_particle(w: &str) -> bool {
    ["d'", "d’", "l'", "l’", "dell'", "dell’"].iter().any(|p| {
        w.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p))
            && w[p.len()..].starts_with(char::is_uppercase)
    })
}

/// Rule `name.edges`: a captured name is cut back to its name words. Lower-case words before
/// its first capitalised word that are not terrain ("left Hinzeberg", "tell General Cuesta"),
/// a relation head ("the foot of the Medellin", "the west bank of the Viskan": lexicon
/// `[relations]`), and lower-case words after its last name word ("Hall together", "Frenada
/// tomorrow") are ordinary words, never part of a place. The pronoun "I" is no name ("I wish").
pub(crate) fn edges(
    text: &str,
    toks: Vec<Tok>,
    keep: &dyn Fn(&str) -> bool,
    fired: &mut bool,
) -> Vec<Tok> {
    let mut out = Vec::with_capacity(toks.len());
    for t in toks {
        // "round the northern foot of the Cerro de Medellín": a relation's own target loses
        // its relation head the same way (rule `name.relation-head`); the relation and its
        // span stay as written.
        if let Tok::Relation { rel, target, span } = &t
            && target.form == Form::Name
            && target.parts.is_empty()
            && !keep(&target.text)
            && let Some((a, b)) = cut(text, target)
            && a > target.span.0
            && a < b
            && text[a..b].starts_with(|c: char| c.is_uppercase())
            && relation_head(&text[target.phrase_span.0.min(target.span.0)..a])
        {
            *fired = true;
            out.push(Tok::Relation {
                rel: rel.clone(),
                target: name_target(text, (a, b), a),
                span: *span,
            });
            continue;
        }
        let Some(x) = simple(&t) else {
            out.push(t);
            continue;
        };
        if keep(&x.text) || side_of(&x.text).is_some() {
            out.push(t);
            continue;
        }
        match cut(text, x) {
            Some((a, b)) if (a, b) != x.span => {
                *fired = true;
                let article = x.phrase_span.0 < x.span.0;
                let from = if article { x.phrase_span.0 } else { x.span.0 };
                // Rule `name.relation-head`: "the foot of Kümla", "the line of the Portina" —
                // a relation head cut off before the name is the name's relation, read back
                // with it, not an unread remark.
                if a > x.span.0
                    && a < b
                    && text[a..b].starts_with(|c: char| c.is_uppercase())
                    && relation_head(&text[from..a])
                {
                    out.push(Tok::Relation {
                        rel: text[from..a].trim().to_lowercase(),
                        target: name_target(text, (a, b), a),
                        span: (from, b),
                    });
                    if b < x.span.1 {
                        leftover_filler(text, b, x.span.1, &mut out);
                    }
                    continue;
                }
                if a > x.span.0 {
                    leading_words(text, from, a, &mut out);
                }
                if a < b {
                    let phrase_from = if article && a == x.span.0 {
                        x.phrase_span.0
                    } else {
                        a
                    };
                    out.push(Tok::Place(name_target(text, (a, b), phrase_from)));
                }
                if b < x.span.1 {
                    leftover_filler(text, b, x.span.1, &mut out);
                }
            }
            None => {
                *fired = true;
                out.push(Tok::Filler(x.phrase_span));
            }
            _ => out.push(t),
        }
    }
    out
}

/// Rule `name.side-of` (decision 0203): "left of the line", "right of the army", "centre of
/// the position" — a side of a body of troops or of ground, in lower case, is one phrase,
/// never a relation cut off a vague word. `Some(true)` when the body is troops (a part of
/// them, no place: "the line", "the army", "the columns"), `Some(false)` when it is ground ("the
/// position": a vague place).
pub(crate) fn side_of(text: &str) -> Option<bool> {
    // Most names are not: the first word decides before anything is collected (reading speed).
    let first = text.split(' ').next().unwrap_or("");
    if !matches!(
        first,
        "left" | "right" | "centre" | "center" | "front" | "rear"
    ) || text.chars().any(char::is_uppercase)
    {
        return None;
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let rest = match words.as_slice() {
        [side, "flank", "of", rest @ ..] | [side, "of", rest @ ..]
            if matches!(
                *side,
                "left" | "right" | "centre" | "center" | "front" | "rear"
            ) =>
        {
            rest
        }
        _ => return None,
    };
    match rest {
        [
            "the" | "our" | "your" | "his" | "its" | "their" | "this",
            last,
        ] => match *last {
            "line" | "lines" | "army" | "column" | "columns" => Some(true),
            "position" | "ground" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// "the foot of", "the west bank of the", "the line of the": words that end in "of" (and an
/// article) after a relation noun of the lexicon, with nothing but articles and the lexicon's
/// name words ("west", "upper") before it.
fn relation_head(raw: &str) -> bool {
    let lex = lexicon::get();
    let words: Vec<String> = raw.split_whitespace().map(str::to_lowercase).collect();
    let mut end = words.len();
    if end > 0 && matches!(words[end - 1].as_str(), "the" | "a") {
        end -= 1;
    }
    if end < 2 || words[end - 1] != "of" || !lex.is_relation(&words[end - 2]) {
        return false;
    }
    // "the garden walls of Vimeiro": a terrain noun may qualify the relation head.
    words[..end - 2].iter().all(|w| {
        matches!(w.as_str(), "the" | "a" | "its" | "his" | "their")
            || lex.is_name_adjective(w)
            || lex.is_terrain(w)
    })
}

fn leftover_filler(text: &str, a: usize, b: usize, out: &mut Vec<Tok>) {
    let raw = &text[a..b];
    let s = raw.trim();
    if !s.is_empty() {
        let from = a + (raw.len() - raw.trim_start().len());
        out.push(Tok::Filler((from, from + s.len())));
    }
}

/// The words cut off before a name. Rule `place.above`: "the heights above Hall" — a
/// description and "above" / "below" keep apart, the description a place and "above" a word,
/// so `place.above` reads "above Hall" as where, relative to Hall; anything else is one word.
fn leading_words(text: &str, a: usize, b: usize, out: &mut Vec<Tok>) {
    let ws = words_of(text, (a, b));
    let relation = above_below(&text[a..b]);
    let article = ws
        .first()
        .is_some_and(|(w, _)| matches!(w.lower().as_ref(), "the" | "a"));
    let first = usize::from(article);
    if !relation || ws.len() < first + 2 {
        leftover_filler(text, a, b, out);
        return;
    }
    let n = ws.len();
    let head = (ws[first].1.0, ws[n - 2].1.1);
    let from = if article { ws[0].1.0 } else { head.0 };
    out.push(Tok::Place(name_target(text, head, from)));
    out.push(Tok::Filler(ws[n - 1].1));
}

/// The words end in "above" or "below".
fn above_below(s: &str) -> bool {
    s.split_whitespace()
        .next_back()
        .is_some_and(|w| w.eq_ignore_ascii_case("above") || w.eq_ignore_ascii_case("below"))
}

/// The span of the name proper inside a captured name, `None` when nothing of it is a name.
fn cut(text: &str, x: &Target) -> Option<Span> {
    let ws: Vec<(&str, Span)> = words_of(text, x.span);
    let lex = lexicon::get();
    let is_i = |k: usize| {
        ws[k].0 == "I"
            && ws
                .get(k + 1)
                .is_some_and(|(n, _)| n.starts_with(char::is_lowercase))
            || ws[k].0 == "I" && k > 0 && ws[k - 1].0.starts_with(char::is_lowercase)
    };
    let capital = |k: usize| {
        !is_i(k)
            && ws[k]
                .0
                .chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
    };
    let first_cap = (0..ws.len()).find(|&k| capital(k));
    let Some(fc) = first_cap else {
        // All lower case: a terrain description stays ("the heights"); "I wish" is no name.
        if (0..ws.len()).any(is_i) {
            return None;
        }
        // "the east side of the road": a relation head before "of" is cut off here too.
        if let Some(of) = (1..ws.len().saturating_sub(1))
            .rev()
            .find(|&k| ws[k].0.eq_ignore_ascii_case("of"))
            && lex.is_relation(&ws[of - 1].0.lower())
        {
            let mut from = of + 1;
            while from + 1 < ws.len() && is_link(&ws[from].0.lower()) {
                from += 1;
            }
            return Some((ws[from].1.0, x.span.1));
        }
        // "the beach ready for embarkation": ordinary words after the last terrain noun go.
        let mut end = ws.len();
        while end > 1 && (!name_word(ws[end - 1].0) || is_link(&ws[end - 1].0.lower())) {
            end -= 1;
        }
        return Some((x.span.0, ws[end - 1].1.1));
    };
    // Leading words: drop lower-case non-name words before the first capital, and a relation
    // head before "of" ("foot of the", "west bank of the", "result of the examination of the").
    let mut start = 0;
    for (k, &(w, _)) in ws.iter().enumerate().take(fc) {
        // "left Hinzeberg": a relation word right before a name is no part of it.
        let relation_before_name = lex.is_relation(&w.lower()) && k + 1 == fc;
        if is_i(k) || !name_word(w) || relation_before_name {
            start = k + 1;
        }
    }
    // The last "of" before the first capital cuts a relation head off.
    if let Some(of) = (start..fc)
        .rev()
        .find(|&k| ws[k].0.eq_ignore_ascii_case("of"))
    {
        let head: Vec<&str> = ws[start..of].iter().map(|(w, _)| *w).collect();
        let last = head.last().map(|w| w.lower());
        let relation = last.as_deref().is_some_and(|h| lex.is_relation(h))
            || head.iter().any(|w| !name_word(w));
        if relation {
            start = of + 1;
        }
    }
    while start < fc && is_link(&ws[start].0.lower()) {
        start += 1;
    }
    // Trailing words: after the last capital or name word, lower-case non-name words go.
    let mut end = ws.len();
    while end > fc + 1 {
        let w = ws[end - 1].0;
        if capital(end - 1) || (name_word(w) && !is_link(&w.lower())) {
            break;
        }
        end -= 1;
    }
    // A lower-case non-name word inside the name ends it ("Le Cor joined to …" is cut above;
    // "Hill, Leith" never gets here).
    if let Some(k) = (fc + 1..end).find(|&k| !capital(k) && !name_word(ws[k].0)) {
        end = k;
        while end > fc + 1 && is_link(&ws[end - 1].0.lower()) {
            end -= 1;
        }
    }
    let span = (ws[start].1.0, ws[end - 1].1.1);
    // Rule `name.date`: "the convention of the 19th of April" names a day, not a place.
    if lex.is_date(&text[span.0..span.1]) {
        return None;
    }
    Some(span)
}

/// The whitespace-separated words of `text[span]` with their spans.
fn words_of(text: &str, span: Span) -> Vec<(&str, Span)> {
    let s = &text[span.0..span.1];
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in s.char_indices() {
        if c.is_whitespace() {
            if let Some(a) = start.take() {
                out.push((&s[a..i], (span.0 + a, span.0 + i)));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(a) = start {
        out.push((&s[a..], (span.0 + a, span.1)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(text: &str) -> Target {
        name_target(text, (0, text.len()), 0)
    }

    fn cut_text(text: &str) -> Option<&str> {
        cut(text, &name(text)).map(|(a, b)| &text[a..b])
    }

    #[test]
    fn ordinary_words_are_cut_off_the_edges_of_a_name() {
        assert_eq!(cut_text("Hall together"), Some("Hall"));
        assert_eq!(cut_text("Frenada tomorrow"), Some("Frenada"));
        assert_eq!(cut_text("left Hinzeberg"), Some("Hinzeberg"));
        assert_eq!(cut_text("foot of the Medellin"), Some("Medellin"));
        assert_eq!(cut_text("west bank of the Viskan"), Some("Viskan"));
        assert_eq!(cut_text("ford of Almaraz"), Some("ford of Almaraz"));
        assert_eq!(
            cut_text("heights of San Marcial"),
            Some("heights of San Marcial")
        );
        assert_eq!(cut_text("Merlin's lancers"), Some("Merlin's lancers"));
        assert_eq!(cut_text("Le Cor joined"), Some("Le Cor"));
        assert_eq!(cut_text("I wish"), None);
        assert_eq!(cut_text("heights"), Some("heights"));
    }

    #[test]
    fn scenario_names_are_matched_longest_first() {
        let p = Phrases::new(
            [
                "the bridge at Kirseberg",
                "Kirseberg",
                "the 33.17 crossroads",
                "50.04",
            ]
            .into_iter(),
        );
        let ws = folded_words("hold the bridge at Kirseberg");
        assert_eq!(p.longest(&ws, 2), Some(3));
        assert_eq!(p.longest(&folded_words("the 33.17 crossroads"), 1), Some(3));
        assert_eq!(p.longest(&folded_words("50.04"), 0), None);
    }
}
