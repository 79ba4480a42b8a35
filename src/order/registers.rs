//! Two registers the reader once read badly (reader21): the telegraphic memorandum ("The 3rd
//! division to collect this night at Braine …": an infinitive order with no "will") and French
//! imperial staff orders in English translation ("The Emperor has ordered the Count d'Erlon to
//! move …", "The intention of the Emperor is that you …", "Order to General Reille: …").
//!
//! Owns: rules `time.day-part`, `lead.order-header`, `lead.authority`, `lead.telegraphic`,
//! `lead.followed-by`, `troops.part-of`, `place.over`, `verb.collect`, `verb.administrative`,
//! `pronoun.there-verb` and `verb.push-troops`, each a pass over
//! one sentence's tokens run by `build::token_rules` before the third person is looked for.
//! Must not: resolve names (that is [`super::resolve`]).

use super::ast::{Action, Form};
use super::lower::{Target, Tok};
use super::resolve::looks_like_troops;
use crate::text::{Lower, nfc};

type Span = (usize, usize);

/// Every pass of this module, in order.
pub(crate) fn apply(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let toks = day_part(text, toks, rules);
    let toks = part_of(text, toks, rules);
    let toks = order_header(text, toks, rules);
    let toks = authority(text, toks, rules);
    let toks = if toks.iter().any(|t| matches!(t, Tok::Recipient { .. })) {
        that_clauses(text, toks, rules)
    } else {
        toks
    };
    let toks = telegraphic(text, toks, rules);
    let toks = later_telegraphic(text, toks, rules);
    let toks = capital_verb_in_name(text, toks, rules);
    let toks = recipient_of(text, toks, rules);
    let toks = collect(text, toks, rules);
    let toks = administrative(text, toks, rules);
    let toks = bridge_over(text, toks, rules);
    let toks = there_then_verb(text, toks, rules);
    push_troops(text, toks, rules)
}

/// Whether some token's text is `w` (ASCII case ignored), without allocating: the passes'
/// early exit, so a sentence without their words pays nothing (parsing speed, issue 11).
fn has_word(text: &str, toks: &[Tok], w: &[&str]) -> bool {
    toks.iter().any(|t| {
        let s = t.span();
        text.get(s.0..s.1).is_some_and(|x| {
            w.iter()
                .any(|w| x.trim_end_matches(',').eq_ignore_ascii_case(w))
        })
    })
}

/// The token's words, lower case, single-spaced; borrowed when the text is so already (most
/// tokens: parsing speed, issue 11).
fn word<'t>(text: &'t str, t: &Tok) -> std::borrow::Cow<'t, str> {
    let s = t.span();
    let raw = text.get(s.0..s.1).unwrap_or("");
    let plain = raw
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"',.-".contains(&b) || b == b' ')
        && !raw.contains("  ")
        && !raw.starts_with(' ')
        && !raw.ends_with(' ');
    if plain {
        return std::borrow::Cow::Borrowed(raw);
    }
    std::borrow::Cow::Owned(raw.lower().split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The lower-case words of `toks`, single-spaced.
fn words_of(text: &str, toks: &[Tok]) -> String {
    toks.iter()
        .map(|t| word(text, t))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A name target over `span` of `text` (article kept in the phrase).
fn target(text: &str, span: Span, form: Form) -> Target {
    let phrase = text[span.0..span.1].trim();
    let (name, name_span) = match phrase.split_once(' ') {
        Some((a, rest)) if matches!(a.lower().as_ref(), "the" | "a" | "an") => {
            (rest, (span.1 - rest.len(), span.1))
        }
        _ => (phrase, span),
    };
    Target {
        form,
        text: nfc(name),
        span: name_span,
        phrase: nfc(phrase),
        phrase_span: span,
        hexes: Vec::new(),
        within: None,
        parts: Vec::new(),
    }
}

/// The parts of the day a memorandum names ("this night", "to-morrow morning").
const PARTS: [&str; 6] = [
    "night",
    "evening",
    "morning",
    "afternoon",
    "day",
    "forenoon",
];
/// Later days written as one word.
const DAYS: [&str; 6] = [
    "to-morrow",
    "tomorrow",
    "to-night",
    "tonight",
    "to-day",
    "today",
];

/// Rule `time.day-part`: "this night", "this evening", "to-morrow morning", "to-night" where
/// the grammar left words or a name ("collect this night at Braine", "bivouac to-night on the
/// heights") are a later hour of the day, a start time (30.0), as "to-morrow" is
/// (`time.day-word`).
fn day_part(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let starts_day = |t: &Tok| {
        let s = t.span();
        matches!(t, Tok::Filler(_) | Tok::Place(_))
            && text.get(s.0..s.1).is_some_and(|x| {
                let x = x.as_bytes();
                x.len() >= 4
                    && (x[..4].eq_ignore_ascii_case(b"this") || x[..2].eq_ignore_ascii_case(b"to"))
            })
    };
    if !toks.iter().any(starts_day) {
        return toks;
    }
    let is_day = |w: &str| match w.split_once(' ') {
        Some((d, p)) => DAYS[..2].contains(&d) && PARTS.contains(&p),
        None => DAYS.contains(&w),
    };
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut k = 0;
    while k < toks.len() {
        let w = word(text, &toks[k]);
        let here = matches!(toks[k], Tok::Filler(_) | Tok::Place(_));
        // "this night", "this evening": "this" and a part of the day.
        if here
            && w == "this"
            && let Some(next) = toks.get(k + 1)
            && matches!(next, Tok::Filler(_) | Tok::Place(_))
            && PARTS.contains(&word(text, next).as_ref())
        {
            let span = (toks[k].span().0, next.span().1);
            out.push(Tok::Timing {
                prep: "at".into(),
                value: Some(format!("this {}", word(text, next))),
                span,
            });
            rules.push("time.day-part");
            k += 2;
            continue;
        }
        if here && is_day(w.trim_end_matches(',')) {
            let w = w.trim_end_matches(',').to_string();
            let s = toks[k].span();
            let end = s.0 + text[s.0..s.1].trim_end_matches([',', ' ']).len();
            out.push(Tok::Timing {
                prep: "at".into(),
                value: Some(w),
                span: (s.0, end),
            });
            rules.push("time.day-part");
            k += 1;
            continue;
        }
        out.push(toks[k].clone());
        k += 1;
    }
    out
}

/// The words that take a part of a body of troops before "of": "the whole of his corps".
fn part_word(w: &str) -> bool {
    let last = w.rsplit(' ').next().unwrap_or("");
    matches!(
        last,
        "whole" | "rest" | "remainder" | "part" | "half" | "bulk"
    )
}

/// Rule `troops.part-of`: "with the whole of his corps", "the rest of your brigade", "part of
/// his cavalry", "the remainder of the division" — a part of a body of troops, "of" and the
/// troops are one body of troops (forces after "with", an object or subject elsewhere), never
/// an unread "of".
fn part_of(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    if !toks
        .iter()
        .any(|t| matches!(t, Tok::Filler(_)) && word(text, t) == "of")
    {
        return toks;
    }
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut k = 0;
    while k < toks.len() {
        let of = matches!(toks.get(k + 1), Some(t @ Tok::Filler(_)) if word(text, t) == "of");
        let troops = match toks.get(k + 2) {
            Some(Tok::Place(t)) => {
                matches!(t.form, Form::Own | Form::Unit) || looks_like_troops(&t.text)
            }
            _ => false,
        };
        if of && troops {
            let end = toks[k + 2].span().1;
            match &toks[k] {
                Tok::With(w, s) if part_word(&w.phrase.lower()) => {
                    let span = (w.phrase_span.0, end);
                    out.push(Tok::With(target(text, span, Form::Unit), (s.0, end)));
                    rules.push("troops.part-of");
                    k += 3;
                    continue;
                }
                Tok::Place(w) if part_word(&w.phrase.lower()) => {
                    let span = (w.phrase_span.0, end);
                    out.push(Tok::Place(target(text, span, Form::Unit)));
                    rules.push("troops.part-of");
                    k += 3;
                    continue;
                }
                _ => {}
            }
        }
        out.push(toks[k].clone());
        k += 1;
    }
    out
}

/// Where the sentence's body begins and whether a recipient is already read.
fn body(toks: &[Tok]) -> usize {
    super::lower::body_start(toks)
}

/// Rule `lead.order-header`: "Order to General Reille: you will …", "Orders for General
/// Sébastiani: …" — a heading of the order naming its recipient before a colon; "Order for
/// the march to-morrow:" names nobody and is a courtesy (it carries no command itself).
fn order_header(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let b = body(&toks);
    let Some(first) = toks.get(b) else {
        return toks;
    };
    if !matches!(first, Tok::Filler(_) | Tok::Place(_))
        || !matches!(word(text, first).as_ref(), "order" | "orders")
        || toks.iter().any(|t| matches!(t, Tok::Recipient { .. }))
    {
        return toks;
    }
    let Some(colon) = toks[b..]
        .iter()
        .position(|t| matches!(t, Tok::Punct(s) if &text[s.0..s.1] == ":"))
        .map(|c| b + c)
    else {
        return toks;
    };
    if colon > b + 8 {
        return toks;
    }
    let prep = toks.get(b + 1).map(|t| word(text, t)).unwrap_or_default();
    let named = match (prep.as_ref(), toks.get(b + 2)) {
        ("to" | "for", Some(Tok::Place(w)))
            if colon == b + 3
                && w.text.chars().next().is_some_and(char::is_uppercase)
                && !super::lexicon::get().is_action_noun(&w.text.lower()) =>
        {
            Some(w.clone())
        }
        _ => None,
    };
    let mut out: Vec<Tok> = toks[..b].to_vec();
    let colon_end = toks[colon].span().1;
    match named {
        Some(w) => {
            out.push(Tok::Courtesy((first.span().0, toks[b + 1].span().1)));
            out.push(Tok::Recipient {
                who: Some(w.clone()),
                attached: Vec::new(),
                span: (w.phrase_span.0, colon_end),
            });
        }
        None => out.push(Tok::Courtesy((first.span().0, colon_end))),
    }
    out.extend(toks[colon + 1..].iter().cloned());
    rules.push("lead.order-header");
    out
}

/// Who commands in a French staff order: "the Emperor", "His Majesty", "he" (after a report
/// of his), "the King", "the Marshal", "the Prince", "His Excellency".
const AUTHORITIES: [&str; 10] = [
    "the emperor",
    "his majesty",
    "his imperial majesty",
    "he",
    "the king",
    "the marshal",
    "the prince",
    "his excellency",
    "his highness",
    "the major-general",
];
/// Verbs of command in any tense.
const COMMANDS: [&str; 21] = [
    "orders",
    "ordered",
    "directs",
    "directed",
    "desires",
    "desired",
    "wishes",
    "wished",
    "commands",
    "commanded",
    "wants",
    "wanted",
    "requires",
    "required",
    "intends",
    "instructs",
    "instructed",
    "charges",
    "charged",
    "enjoins",
    "enjoined",
];

/// "the Emperor has just ordered", "His Majesty orders", "the intention of the Emperor is",
/// with or without "that": an authority lead (lower case, single-spaced).
fn authority_head(w: &str) -> bool {
    let w = w.strip_suffix(" that").unwrap_or(w);
    if let Some(rest) = w.strip_prefix("the intention of ") {
        let who = rest.strip_suffix(" is").unwrap_or("");
        return AUTHORITIES.contains(&who) || who == "his majesty the emperor";
    }
    let Some(who) = AUTHORITIES.iter().find(|a| {
        w.strip_prefix(**a)
            .is_some_and(|r| r.is_empty() || r.starts_with(' '))
    }) else {
        return false;
    };
    let mut rest: Vec<&str> = w[who.len()..].split_whitespace().collect();
    let Some(verb) = rest.pop() else {
        return false;
    };
    COMMANDS.contains(&verb)
        && rest
            .iter()
            .all(|x| matches!(*x, "has" | "had" | "just" | "also" | "now" | "therefore"))
}

/// The link between the person an authority bids and his verb: "to", "should", "will",
/// "shall", "may", "must" (one token), or none before a verb ("that Marshal Soult march").
fn bid_link(text: &str, toks: &[Tok], k: usize) -> Option<usize> {
    match toks.get(k)? {
        Tok::Verb { .. } => Some(k),
        t @ (Tok::Filler(_) | Tok::DestPrep(..) | Tok::RoutePrep(..))
            if matches!(
                word(text, t).as_ref(),
                "to" | "should" | "will" | "shall" | "may" | "must"
            ) && matches!(toks.get(k + 1), Some(Tok::Verb { .. })) =>
        {
            Some(k + 1)
        }
        _ => None,
    }
}

/// Rule `lead.authority`: "The Emperor has just ordered the Count d'Erlon to move …", "His
/// Majesty orders Marshal Davout to …", "The Emperor orders that the Guard remain …", "the
/// intention of the Emperor is that you attack …", "…; he orders that Marshal Macdonald pursue
/// …" — an authority, a verb of command in any tense, then a person (or "you") and "to", a
/// modal or a bare verb (the subjunctive of the French "que"): the person is the recipient, the
/// authority's words a courtesy.
fn authority(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    if toks.iter().any(|t| matches!(t, Tok::Recipient { .. })) {
        return toks;
    }
    let commanded = toks.iter().any(|t| {
        let s = t.span();
        text.get(s.0..s.1).is_some_and(|x| {
            x.split_whitespace().any(|w| {
                w.eq_ignore_ascii_case("intention")
                    || COMMANDS.iter().any(|c| w.eq_ignore_ascii_case(c))
            })
        })
    });
    if !commanded {
        return toks;
    }
    let b = body(&toks);
    let mut starts = vec![b];
    starts.extend(
        toks.iter()
            .enumerate()
            .filter_map(|(k, t)| matches!(t, Tok::Connector(c, _) if c == ";").then_some(k + 1)),
    );
    // "I have the honour to inform you, Monsieur le Maréchal, that His Majesty orders …": after
    // the courtesies and a vocative, "that" opens the authority's words.
    if let Some(t) = toks[b..]
        .iter()
        .position(|t| !matches!(t, Tok::Courtesy(_) | Tok::Connector(..) | Tok::Place(_)))
        && word(text, &toks[b + t]) == "that"
        && toks[b..b + t]
            .iter()
            .all(|x| !matches!(x, Tok::Place(w) if !titled(&w.text)))
    {
        starts.push(b + t + 1);
    }
    for s in starts {
        let Some(head) = (s..toks.len().min(s + 9))
            .rev()
            .find(|&j| authority_head(&words_of(text, &toks[s..=j])))
        else {
            continue;
        };
        let p = head + 1;
        let (who, mut after) = match toks.get(p) {
            Some(t @ Tok::Filler(_)) if word(text, t) == "you" => (None, p + 1),
            Some(Tok::Place(w)) if w.form != Form::Pronoun => (Some(w.clone()), p + 1),
            _ => continue,
        };
        // "the cavalry of the reserve": "of" and a name belong to the person bidden.
        let mut who = who;
        if let Some(w) = &who
            && matches!(toks.get(after), Some(t @ Tok::Filler(_)) if word(text, t) == "of")
            && let Some(Tok::Place(x)) = toks.get(after + 1)
        {
            who = Some(target(text, (w.phrase_span.0, x.phrase_span.1), Form::Unit));
            after += 2;
        }
        let Some(verb) = bid_link(text, &toks, after) else {
            continue;
        };
        let mut out: Vec<Tok> = toks[..s].to_vec();
        // The vocative and "that" before the authority are courtesies too.
        if s > b
            && !out
                .iter()
                .any(|t| matches!(t, Tok::Connector(c, _) if c == ";"))
        {
            out.truncate(b);
            out.push(Tok::Courtesy((toks[b].span().0, toks[s - 1].span().1)));
        }
        out.push(Tok::Courtesy((toks[s].span().0, toks[head].span().1)));
        let end = if verb > after {
            toks[verb - 1].span().1
        } else {
            toks[after - 1].span().1
        };
        out.push(Tok::Recipient {
            who,
            attached: Vec::new(),
            span: (toks[p].span().0, end),
        });
        out.extend(toks[verb..].iter().cloned());
        rules.push("lead.authority");
        return out;
    }
    toks
}

/// Rule `lead.authority`, its later wishes: after a break, "that" and a person or troops and a
/// bare verb ("and that the Duke of Ragusa march …") is a second wish with its own subject;
/// "that he (should) …" carries on the same subject (the pronoun is the man just named).
fn that_clauses(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    if !has_word(text, &toks, &["that"]) {
        return toks;
    }
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut k = 0;
    while k < toks.len() {
        let at_break = matches!(out.last(), Some(Tok::Connector(c, _)) if matches!(c.as_str(), "and" | "," | ";"));
        let that = matches!(&toks[k], t @ Tok::Filler(_) if word(text, t) == "that");
        if at_break && that {
            match toks.get(k + 1) {
                Some(t @ Tok::Filler(_))
                    if matches!(word(text, t).as_ref(), "he" | "they" | "you") =>
                {
                    // The same subject: drop "that he" and a modal before the verb.
                    let mut j = k + 2;
                    if matches!(toks.get(j), Some(m @ Tok::Filler(_))
                        if matches!(word(text, m).as_ref(), "should" | "will" | "shall" | "may"))
                    {
                        j += 1;
                    }
                    if matches!(toks.get(j), Some(Tok::Verb { .. }))
                        || followed_at(text, &toks, j).is_some()
                    {
                        rules.push("lead.authority");
                        k = j;
                        continue;
                    }
                }
                Some(Tok::Place(w))
                    if w.form != Form::Pronoun
                        && !enemy(w)
                        && (looks_like_troops(&w.text)
                            || w.text.chars().next().is_some_and(char::is_uppercase))
                        && matches!(toks.get(k + 2), Some(Tok::Verb { .. })) =>
                {
                    out.push(Tok::Recipient {
                        who: Some(w.clone()),
                        attached: Vec::new(),
                        span: (toks[k].span().0, w.phrase_span.1),
                    });
                    rules.push("lead.authority");
                    k += 2;
                    continue;
                }
                _ => {}
            }
        }
        out.push(toks[k].clone());
        k += 1;
    }
    out
}

/// Rule `lead.telegraphic`: "The reserve artillery to follow the 5th division.", "The troops in
/// Ath and its neighbourhood to assemble …", "The artillery of the reserve to remain at …" —
/// troops opening the sentence (with "of" and a name, and where they stand: "in", "at", "near",
/// "on" a place and what is joined to it by "and"), then "to" and a verb: the memorandum's
/// subject, the recipient; where they stand is a place of the order, never an objective.
fn telegraphic(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    if toks.iter().any(|t| matches!(t, Tok::Recipient { .. })) {
        return toks;
    }
    let b = body(&toks);
    let Some(Tok::Place(head)) = toks.get(b) else {
        return toks;
    };
    let mut who = head.clone();
    let mut k = b + 1;
    if matches!(toks.get(k), Some(t @ Tok::Filler(_)) if word(text, t) == "of")
        && let Some(Tok::Place(x)) = toks.get(k + 1)
    {
        who = target(text, (head.phrase_span.0, x.phrase_span.1), Form::Unit);
        k += 2;
    }
    if !looks_like_troops(&who.text) {
        return toks;
    }
    let mut stands = None;
    if let Some(Tok::DestPrep(p, ps)) = toks.get(k)
        && matches!(p.as_str(), "in" | "at" | "near" | "on")
        && let Some(Tok::Place(place)) = toks.get(k + 1)
        && !looks_like_troops(&place.text)
    {
        let mut end = place.phrase_span.1;
        k += 2;
        // "in Ath and its neighbourhood": what is joined to the place is where they stand too.
        while matches!(toks.get(k), Some(Tok::Connector(c, _)) if c == "and")
            && matches!(toks.get(k + 1), Some(Tok::Place(o)) if o.form == Form::Own)
        {
            end = toks[k + 1].span().1;
            k += 2;
        }
        stands = Some(Tok::Stands(p.clone(), place.clone(), (ps.0, end)));
    }
    let to = matches!(toks.get(k), Some(t @ (Tok::DestPrep(..) | Tok::Filler(_))) if word(text, t) == "to");
    let verb = match toks.get(k + 1) {
        Some(Tok::Verb { .. }) => true,
        Some(t @ Tok::Filler(_)) => super::lexicon::get().is_verb_word(&word(text, t)),
        _ => false,
    };
    if !to || !verb {
        return toks;
    }
    let mut out: Vec<Tok> = toks[..b].to_vec();
    out.push(Tok::Recipient {
        who: Some(who.clone()),
        attached: Vec::new(),
        span: (who.phrase_span.0, toks[k].span().1),
    });
    if let Some(s) = stands {
        out.push(s);
    }
    out.extend(toks[k + 1..].iter().cloned());
    rules.push("lead.telegraphic");
    out
}

/// Rule `lead.authority` (a name): a capitalised word of the lexicon's verbs right after the
/// recipient's name and before its link ("the whole of the Young Guard should …") is the end
/// of the name, not an action.
fn capital_verb_in_name(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let Some(r) = toks.iter().position(|t| matches!(t, Tok::Recipient { .. })) else {
        return toks;
    };
    let (Some(Tok::Verb { span: vs, .. }), Some(link)) = (toks.get(r + 1), toks.get(r + 2)) else {
        return toks;
    };
    let vs = *vs;
    let capital = text[vs.0..vs.1]
        .chars()
        .next()
        .is_some_and(char::is_uppercase);
    let is_link = matches!(link, Tok::Filler(_) | Tok::DestPrep(..))
        && matches!(
            word(text, link).as_ref(),
            "should" | "will" | "shall" | "is to" | "are to" | "to" | "must" | "may"
        );
    let Tok::Recipient {
        who: Some(w), span, ..
    } = &toks[r]
    else {
        return toks;
    };
    if !capital || !is_link || span.1 > vs.0 || !matches!(toks.get(r + 3), Some(Tok::Verb { .. })) {
        return toks;
    }
    let who = target(text, (w.phrase_span.0, vs.1), Form::Unit);
    let span = (span.0, link.span().1);
    toks[r] = Tok::Recipient {
        who: Some(who),
        attached: Vec::new(),
        span,
    };
    toks.drain(r + 1..r + 3);
    rules.push("lead.authority");
    toks
}

/// "will be followed by X", "should be followed by X", "be followed by X" at `k`: the index of
/// the `With` token that holds X.
fn followed_at(text: &str, toks: &[Tok], k: usize) -> Option<usize> {
    let mut j = k;
    while matches!(toks.get(j), Some(t @ Tok::Filler(_))
        if matches!(word(text, t).as_ref(), "will" | "should" | "shall" | "is to" | "are to" | "to" | "be" | "will be" | "should be" | "that" | "he" | "they" | "it"))
    {
        j += 1;
    }
    if j == k {
        return None;
    }
    match toks.get(j) {
        Some(Tok::With(_, s)) if text[s.0..s.1].lower().starts_with("followed by") => Some(j),
        _ => None,
    }
}

/// Rule `lead.followed-by`: "General Picton's division will assemble …, and will be followed by
/// the 4th division" — the passive "be followed by X" after a break says X follows the subject:
/// a stage of its own for X (a move behind own troops, 6.3.2), never a remark nor forces of the
/// stage before.
pub(crate) fn followed_by(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    if !toks
        .iter()
        .any(|t| matches!(t, Tok::With(_, s) if text[s.0..s.1].starts_with("followed")))
    {
        return toks;
    }
    let Some(subject) = toks.iter().find_map(|t| match t {
        Tok::Recipient { who: Some(w), .. } => Some(w.clone()),
        _ => None,
    }) else {
        return toks;
    };
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut k = 0;
    while k < toks.len() {
        let at_break = matches!(out.last(), Some(Tok::Connector(c, _)) if matches!(c.as_str(), "and" | "," | ";"));
        if at_break
            && let Some(j) = followed_at(text, &toks, k)
            && let Tok::With(x, s) = &toks[j]
            && (looks_like_troops(&x.text) || x.form == Form::Unit)
        {
            let by = text[s.0..x.phrase_span.0].trim_end();
            let verb_span = (s.0, s.0 + by.len());
            out.push(Tok::Recipient {
                who: Some(x.clone()),
                attached: Vec::new(),
                span: (toks[k].span().0, s.1),
            });
            out.push(Tok::Verb {
                action: Action::Move,
                verb: "follow".into(),
                span: verb_span,
            });
            let mut own = subject.clone();
            own.form = Form::Unit;
            out.push(Tok::Place(own));
            rules.push("lead.followed-by");
            k = j + 1;
            continue;
        }
        out.push(toks[k].clone());
        k += 1;
    }
    out
}

/// Rule `place.over`: "guard the bridge over the Saale", "the ford across the Tormes" — a
/// crossing (a terrain noun of the lexicon) right before "over" / "across" and a name is that
/// crossing of the name: the name is the place (with the relation), never a route.
fn bridge_over(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    if !toks
        .iter()
        .any(|t| matches!(t, Tok::RoutePrep(p, _) if p == "over" || p == "across"))
    {
        return toks;
    }
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut k = 0;
    while k < toks.len() {
        if let (Tok::Place(a), Some(Tok::RoutePrep(p, ps)), Some(Tok::Place(b))) =
            (&toks[k], toks.get(k + 1), toks.get(k + 2))
            && matches!(p.as_str(), "over" | "across")
            && a.phrase.lower().starts_with("the ")
            && matches!(
                a.text.lower().as_ref(),
                "bridge" | "bridges" | "ford" | "fords" | "ferry" | "passage" | "passages"
            )
            && b.text.chars().next().is_some_and(char::is_uppercase)
        {
            out.push(Tok::Relation {
                rel: format!("{} {p}", a.text.lower()),
                target: b.clone(),
                span: (a.phrase_span.0, b.phrase_span.1),
            });
            let _ = ps;
            rules.push("place.over");
            k += 3;
            continue;
        }
        out.push(toks[k].clone());
        k += 1;
    }
    let _ = text;
    out
}

/// Rule `verb.push-troops`: "push him vigorously", "push the enemy" — "push" whose object is
/// the enemy (or a pronoun for him) presses him: a pursuit (Engage), not a march.
fn push_troops(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    for k in 0..toks.len().saturating_sub(1) {
        let Tok::Verb {
            action: Action::Move,
            verb,
            span,
        } = &toks[k]
        else {
            continue;
        };
        if verb != "push" {
            continue;
        }
        let enemy = match &toks[k + 1] {
            Tok::Place(t) if t.form == Form::Pronoun => {
                matches!(word(text, &toks[k + 1]).as_ref(), "him" | "them")
            }
            Tok::Place(t) => {
                let w = t.text.lower();
                w == "enemy" || w.starts_with("enemy's") || w.starts_with("enemy ")
            }
            _ => false,
        };
        if enemy {
            let span = *span;
            toks[k] = Tok::Verb {
                action: Action::Pursue,
                verb: "push".into(),
                span,
            };
            rules.push("verb.push-troops");
        }
    }
    toks
}

/// A name that opens with a title ("Monsieur le Maréchal", "Marshal Ney"): a person.
fn titled(name: &str) -> bool {
    let lex = super::lexicon::get();
    name.split_whitespace()
        .next()
        .is_some_and(|w| lex.is_title(&crate::text::fold(w)))
}

/// Rule `lead.telegraphic` after a break: "…, and the cavalry of the right to follow the
/// corps" — troops (with "of" and a name), "to" and a verb after "and", "," or ";" are the
/// subject of that clause's task, not an objective of the step before.
fn later_telegraphic(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    if !toks.iter().any(|t| matches!(t, Tok::Recipient { .. }))
        || !toks.windows(3).any(|w| {
            matches!(w[0], Tok::Connector(..))
                && matches!(w[1], Tok::Place(_))
                && has_word(text, &w[2..], &["to", "of"])
        })
    {
        return toks;
    }
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut k = 0;
    while k < toks.len() {
        // "…, and the cavalry to follow": a comma or ";" before it, never a bare "and" ("send a
        // brigade and two battalions to support …" is one object of "send").
        let n = out.len();
        let at_break = match (n.checked_sub(2).map(|i| &out[i]), out.last()) {
            (_, Some(Tok::Connector(c, _))) if c == "," || c == ";" => true,
            (Some(Tok::Connector(a, _)), Some(Tok::Connector(c, _))) => {
                c == "and" && (a == "," || a == ";")
            }
            _ => false,
        };
        if at_break && let Tok::Place(head) = &toks[k] {
            let mut who = head.clone();
            let mut j = k + 1;
            if matches!(toks.get(j), Some(t @ Tok::Filler(_)) if word(text, t) == "of")
                && let Some(Tok::Place(x)) = toks.get(j + 1)
            {
                who = target(text, (head.phrase_span.0, x.phrase_span.1), Form::Unit);
                j += 2;
            }
            let to = matches!(toks.get(j), Some(t @ (Tok::DestPrep(..) | Tok::Filler(_))) if word(text, t) == "to");
            if to
                && !enemy(&who)
                && head.form != Form::Pronoun
                && looks_like_troops(&who.text)
                && matches!(toks.get(j + 1), Some(Tok::Verb { .. }))
            {
                out.push(Tok::Recipient {
                    who: Some(who.clone()),
                    attached: Vec::new(),
                    span: (who.phrase_span.0, toks[j].span().1),
                });
                rules.push("lead.telegraphic");
                k = j + 1;
                continue;
            }
        }
        out.push(toks[k].clone());
        k += 1;
    }
    out
}

/// Rule `lead.authority` (a name): "His Majesty wishes the cavalry of the reserve to pass …" —
/// "of" and a name after the recipient's name, before "to" and a verb, belong to the name.
fn recipient_of(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let Some(r) = toks.iter().position(|t| matches!(t, Tok::Recipient { .. })) else {
        return toks;
    };
    let Tok::Recipient {
        who: Some(w), span, ..
    } = &toks[r]
    else {
        return toks;
    };
    let of = matches!(toks.get(r + 1), Some(t @ Tok::Filler(_)) if word(text, t) == "of");
    let to = matches!(toks.get(r + 3), Some(t @ (Tok::DestPrep(..) | Tok::Filler(_))) if word(text, t) == "to");
    let (true, true, Some(Tok::Place(x)), Some(Tok::Verb { .. })) =
        (of, to, toks.get(r + 2), toks.get(r + 4))
    else {
        return toks;
    };
    if span.1 > toks[r + 1].span().0 || x.form == Form::Pronoun {
        return toks;
    }
    let who = target(text, (w.phrase_span.0, x.phrase_span.1), Form::Unit);
    toks[r] = Tok::Recipient {
        who: Some(who),
        attached: Vec::new(),
        span: (span.0, toks[r + 3].span().1),
    };
    toks.drain(r + 1..r + 4);
    rules.push("lead.authority");
    toks
}

/// Rule `verb.collect`: "The 3rd division to collect this night at Braine", "… is requested to
/// collect at Nivelles the 2nd and 3rd divisions" — "collect" as the subject's first action,
/// before a time, a preposition of place or troops, is "assemble" (a move, 6.3.2); elsewhere
/// ("and collect the stragglers") it stays a task that moves nobody (`clause.report-duty`).
fn collect(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let Some(r) = toks.iter().position(|t| matches!(t, Tok::Recipient { .. })) else {
        return toks;
    };
    let mut k = r + 1;
    while matches!(toks.get(k), Some(Tok::Stands(..))) {
        k += 1;
    }
    let Some(t @ Tok::Filler(f)) = toks.get(k) else {
        return toks;
    };
    let f = *f;
    let w = word(text, t);
    if !matches!(w.as_ref(), "collect" | "collects") {
        return toks;
    }
    let next = toks.get(k + 1);
    let fits = match next {
        Some(Tok::Timing { .. } | Tok::DestPrep(..) | Tok::Relation { .. }) => true,
        Some(Tok::Place(p)) => looks_like_troops(&p.text) || p.form == Form::Own,
        _ => false,
    };
    if !fits {
        return toks;
    }
    toks[k] = Tok::Verb {
        action: Action::Move,
        verb: "collect".into(),
        span: f,
    };
    rules.push("verb.collect");
    toks
}

/// The camp's chores: verbs of the lexicon that move nobody and are no stage.
const CHORES: [&str; 12] = [
    "cook", "cooks", "draw", "draws", "forage", "forages", "bake", "bakes", "feed", "feeds",
    "water", "waters",
];

/// Rule `verb.administrative`: "The troops will cook at once, and be ready …", "… will draw
/// rations for four days, and will bivouac …" — a chore of the camp as the subject's first
/// action, with its words to the next break (`,`, `;`, "and"), carries no command: kept with the
/// courtesies (no stage, no remark), so a time written with it ("at once") is not the next
/// step's. Only when the clause names no place.
fn administrative(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let Some(r) = toks.iter().position(|t| matches!(t, Tok::Recipient { .. })) else {
        return toks;
    };
    let mut k = r + 1;
    while matches!(toks.get(k), Some(Tok::Stands(..))) {
        k += 1;
    }
    let Some(first @ Tok::Filler(_)) = toks.get(k) else {
        return toks;
    };
    if !CHORES.contains(&word(text, first).as_ref()) {
        return toks;
    }
    let end = toks[k..]
        .iter()
        .position(|t| matches!(t, Tok::Connector(..) | Tok::Punct(_)))
        .map_or(toks.len(), |e| k + e);
    let named = |w: &Target| {
        w.text
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
    };
    let plain = toks[k + 1..end].iter().all(|t| match t {
        Tok::Place(w) => !named(w) && w.form != Form::Pronoun,
        Tok::Filler(_)
        | Tok::Timing { .. }
        | Tok::DestPrep(..)
        | Tok::Manner(..)
        | Tok::With(..) => true,
        _ => false,
    });
    if !plain || end == k + 1 && !matches!(toks.get(end), Some(Tok::Connector(..) | Tok::Punct(_)))
    {
        return toks;
    }
    let mut out: Vec<Tok> = toks[..k].to_vec();
    out.push(Tok::Courtesy((first.span().0, toks[end - 1].span().1)));
    out.extend(toks[end..].iter().cloned());
    rules.push("verb.administrative");
    out
}

/// The enemy or a nation ("the enemy's cavalry", "the English"): never a subject of ours.
fn enemy(who: &Target) -> bool {
    let lex = super::lexicon::get();
    who.text.lower().starts_with("enemy")
        || who
            .text
            .split_whitespace()
            .next()
            .is_some_and(|w| lex.is_nation(&crate::text::fold(w)))
}

/// Rule `pronoun.there-verb`: "march to Ostiz, and there await further orders" — "there" between
/// "and" (or a comma) and a verb is where that verb acts: the next step's place, read back after
/// it ("and await further orders there"), never a second objective of the step before.
fn there_then_verb(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    for k in 1..toks.len().saturating_sub(1) {
        let joined = matches!(&toks[k - 1], Tok::Connector(c, _) if c == "and" || c == ",");
        let there = matches!(&toks[k], Tok::Place(t) if t.form == Form::Pronoun)
            && word(text, &toks[k]) == "there";
        if joined && there && matches!(toks[k + 1], Tok::Verb { .. }) {
            toks.swap(k, k + 1);
            rules.push("pronoun.there-verb");
        }
    }
    toks
}
