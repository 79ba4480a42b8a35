//! Who is to act when the order does not say it with a colon: the recipient written bare at
//! the start ("2nd Div attack Hall at 1000.", "Pellerin, bring your division forward"), the
//! subject of a later clause ("I Corps: 2nd Div will attack Hall; 3rd Div will hold Kümla"),
//! and the verbless "4th Div: in reserve behind Hinzeberg."
//!
//! Owns: rules `clause.having`, `cond.modal-ends`, `lead.bare`, `lead.you`, `lead.clause-subject`, `lead.same-subject`,
//! `lead.commanding`, `lead.passed-on`, `pronoun.recipient`, `lead.that-subject`,
//! `lead.passive-own` after a clause break, `with.supported-by` and `verb.in-reserve`, over one sentence's
//! tokens. Must not: resolve names (that is [`super::resolve`]); it only asks whether a name
//! is one of the scenario's commands or reads as friendly troops.

use super::ast::{Action, Form};
use super::lower::{self, Target, Tok};
use super::names;
use super::resolve::{Index, Match, looks_like_troops};
use crate::text::Lower;

/// A name that can be given orders: one of the scenario's commands, or, without one (or for
/// a name it does not know), troops by their words ("2nd Div", "Kellerman's grenadiers") that
/// are not the enemy or a nation ("the English", "the enemy's cavalry").
pub(crate) fn commands(t: &Target, index: Option<&Index<'_>>) -> bool {
    if !matches!(t.form, Form::Name | Form::Unit) {
        return false;
    }
    if let Some(ix) = index {
        if matches!(ix.unit(&t.text, false), Match::Found { near: None, .. }) {
            return true;
        }
        if matches!(ix.place(&t.text), Match::Found { near: None, .. }) {
            return false;
        }
    }
    let lex = super::lexicon::get();
    let folded = crate::text::fold(&t.text);
    looks_like_troops(&t.text)
        && t.text
            .chars()
            .any(|c| c.is_uppercase() || c.is_ascii_digit())
        && !folded
            .split(' ')
            .any(|w| lex.is_nation(w) || lex.is_nation(w.trim_end_matches('s')))
}

fn word(text: &str, t: &Tok) -> String {
    let s = t.span();
    text[s.0..s.1].to_ascii_lowercase()
}

fn has_lead(toks: &[Tok]) -> bool {
    toks.iter().any(|t| {
        matches!(
            t,
            Tok::Recipient { .. } | Tok::Preset { .. } | Tok::Addressee(_)
        )
    })
}

/// Rule `clause.having`: "Leval's division, having crossed the Portiña, will form on the left
/// of Sebastiani", "Having passed the bridge, the 3rd Division will halt" — "having" and a past
/// participle is what the command does first: a stage of its own ("cross the Portiña", then
/// "form …"), never a name. A subject written after the opening participle clause leads the
/// order.
pub(crate) fn having_clause(
    text: &str,
    mut toks: Vec<Tok>,
    rules: &mut Vec<&'static str>,
) -> Vec<Tok> {
    let is_having = |t: &Tok| {
        let s = t.span();
        text[s.0..s.1].eq_ignore_ascii_case("having")
    };
    // "2nd Div: having taken Hall, push on …": the grammar read the clause and its comma as a
    // second, vocative lead; it is the participle and its object.
    if let Some(r) = toks.iter().position(|t| {
        matches!(t, Tok::Recipient { who: Some(w), .. } if w.phrase.lower().starts_with("having "))
    }) && let Tok::Recipient {
        who: Some(w),
        span,
        ..
    } = &toks[r]
        && let Some(split) = having_split(text, w, *span)
    {
        toks.splice(r..=r, split);
        rules.push("clause.having");
    }
    // Only a clause that opens the sentence's action and leads to its verb: "…, gained a
    // victory, having driven them from all their positions" reports, and orders nothing.
    let verb = |t: &Tok| matches!(t, Tok::Verb { .. });
    let Some(k) = (0..toks.len().saturating_sub(1)).find(|&k| {
        is_having(&toks[k])
            && matches!(toks[k + 1], Tok::Participle { .. })
            && !toks[..k].iter().any(verb)
            && toks[k + 2..].iter().any(verb)
    }) else {
        return toks;
    };
    let Tok::Participle { action, span } = toks[k + 1] else {
        return toks;
    };
    let past = text[span.0..span.1].lower();
    let past = past.split_whitespace().collect::<Vec<_>>().join(" ");
    let verb = super::lexicon::get()
        .lemma_of(&past)
        .map_or(past.clone(), str::to_string);
    toks[k] = Tok::Verb {
        action,
        verb,
        span: (toks[k].span().0, span.1),
    };
    toks.remove(k + 1);
    rules.push("clause.having");
    // "Having crossed the Portiña, Leval will form …": the subject after the clause leads.
    let start = lower::body_start(&toks);
    if k == start
        && let Some(r) = toks.iter().position(|t| matches!(t, Tok::Recipient { .. }))
        && r > k
        && matches!(&toks[r - 1], Tok::Connector(c, _) if c == ",")
    {
        let lead = toks.remove(r);
        toks.insert(start, lead);
    }
    toks
}

/// A lead "having taken Hall," as the tokens it stands for: the participle (a verb of the
/// lexicon's past forms, one to three words), the name after it and the comma.
fn having_split(text: &str, w: &Target, span: super::ast::Span) -> Option<Vec<Tok>> {
    let lex = super::lexicon::get();
    let at = w.phrase_span.0;
    let phrase = text.get(at..w.phrase_span.1)?;
    // Word boundaries of the phrase after "having ".
    let words: Vec<(usize, &str)> = phrase
        .char_indices()
        .filter(|&(i, c)| {
            !c.is_whitespace() && (i == 0 || phrase[..i].ends_with(char::is_whitespace))
        })
        .map(|(i, _)| (i, phrase[i..].split_whitespace().next().unwrap_or("")))
        .skip(1)
        .collect();
    let (n, lemma) = (1..=3.min(words.len())).rev().find_map(|n| {
        let past = words[..n]
            .iter()
            .map(|(_, w)| w.lower())
            .collect::<Vec<_>>()
            .join(" ");
        lex.lemma_of(&past).map(|l| (n, l.to_string()))
    })?;
    let action = lex.verb_action(&lemma)?;
    let (last_at, last) = words[n - 1];
    let verb_end = at + last_at + last.len();
    let mut out = vec![Tok::Verb {
        action,
        verb: lemma,
        span: (at, verb_end),
    }];
    if let Some(&(obj_at, _)) = words.get(n) {
        let obj = &phrase[obj_at..];
        let (article, name) = match obj.split_once(' ') {
            Some((a, rest)) if matches!(a.lower().as_ref(), "the" | "a" | "an") => {
                (a.len() + 1, rest)
            }
            _ => (0, obj),
        };
        let start = at + obj_at;
        out.push(Tok::Place(Target {
            form: Form::Name,
            text: crate::text::nfc(name),
            span: (start + article, start + obj.len()),
            phrase: crate::text::nfc(obj),
            phrase_span: (start, start + obj.len()),
            hexes: Vec::new(),
            within: None,
            parts: Vec::new(),
        }));
    }
    let end = at + phrase.len();
    if span.1 > end {
        out.push(Tok::Connector(",".into(), (end, span.1)));
    }
    Some(out)
}

/// Rule `lead.bare`: "2nd Div attack Hall at 1000.", "Pellerin, bring your division forward to
/// Hinzeberg." — an order that opens with one of the scenario's commands (or friendly troops
/// by name), then at once a verb, is addressed to it, though no colon says so. Only at the
/// start of a sentence with no other lead, and only for a name that commands: "Hall, attack"
/// stays unaddressed.
pub(crate) fn bare_lead(
    text: &str,
    toks: Vec<Tok>,
    index: Option<&Index<'_>>,
    rules: &mut Vec<&'static str>,
) -> Vec<Tok> {
    if has_lead(&toks) {
        return toks;
    }
    let start = lower::body_start(&toks);
    let Some(Tok::Place(who)) = toks.get(start) else {
        return toks;
    };
    let comma = matches!(toks.get(start + 1), Some(Tok::Connector(c, _)) if c == ",");
    let verb_at = match apposition_end(text, &toks[start + 1..]) {
        Some(n) => start + 1 + n,
        None => start + 1 + usize::from(comma),
    };
    let apposition = verb_at > start + 2;
    // A verb token is an action form already: "2nd Div attacked Hall" (a report) has none.
    let Some(Tok::Verb { verb, .. }) = toks.get(verb_at) else {
        return toks;
    };
    let third_person = super::lexicon::base_form(verb) != verb.as_str();
    let commanding = commands(who, index);
    let disposition = (!comma || apposition) && third_person && disposition_subject(who);
    if !(commanding && (!apposition || third_person) || disposition) {
        return toks;
    }
    let rule = if commanding {
        "lead.bare"
    } else {
        "lead.disposition"
    };
    let mut who = who.clone();
    // "The artillery of the reserve": the "of" phrase is part of the troops' name (an
    // apposition of two tokens; one between commas takes at least three).
    if let Some(Tok::Place(of)) = toks.get(start + 2)
        && verb_at == start + 3
    {
        who.text = crate::text::nfc(&text[who.span.0..of.span.1]);
        who.phrase = crate::text::nfc(&text[who.phrase_span.0..of.span.1]);
        who.span.1 = of.span.1;
        who.phrase_span.1 = of.span.1;
    }
    let span = (who.phrase_span.0, toks[verb_at - 1].span().1);
    let mut out: Vec<Tok> = toks[..start].to_vec();
    out.push(Tok::Recipient {
        who: Some(who),
        attached: Vec::new(),
        span,
    });
    out.extend(toks.into_iter().skip(verb_at));
    rules.push(rule);
    out
}

/// "The second column, under General Morand, descends …": a phrase between two commas right
/// after the subject, with no verb, clause break or condition in it, is said of the subject
/// (rule `lead.disposition`), as is an "of" and more troops ("The artillery of the reserve").
/// How many tokens it and its commas take, if there is one.
fn apposition_end(text: &str, rest: &[Tok]) -> Option<usize> {
    let is_comma = |t: &Tok| matches!(t, Tok::Connector(c, _) if c == ",");
    // "The artillery of the reserve takes post …": the troops' own "of" phrase.
    if rest.first().is_some_and(|t| word(text, t) == "of")
        && matches!(rest.get(1), Some(Tok::Place(t)) if looks_like_troops(&t.text))
    {
        return Some(2);
    }
    if !rest.first().is_some_and(is_comma) {
        return None;
    }
    let close = rest.iter().skip(1).take(8).position(is_comma)? + 1;
    let inside = &rest[1..close];
    (!inside.is_empty()
        && inside.iter().all(|t| {
            !matches!(
                t,
                Tok::Verb { .. }
                    | Tok::Punct(_)
                    | Tok::CondStart(..)
                    | Tok::Purpose(_)
                    | Tok::Negate(_)
                    | Tok::Connector(..)
            )
        }))
    .then_some(close + 1)
}

/// Rule `lead.disposition`: "The reserve remains at Hinzeberg until further orders.", "The
/// first column marches by Hall to Säter." — a disposition in the present tense names each
/// body of troops by a description at the head of its sentence ("The cavalry", "The light
/// infantry", "The second column"), lower-case after its article, so no scenario command. With
/// a verb in its third-person form straight after (the caller's test), that description is the
/// recipient. A nation's or the enemy's troops ("The enemy advances", "The French cavalry
/// retires") are a report, never a recipient.
fn disposition_subject(who: &Target) -> bool {
    who.phrase.starts_with("The ") && own_troop_words(who)
}

/// Rule `lead.clause-subject`: "I Corps: 2nd Div will attack Hall; 3rd Div will hold Kümla;
/// 4th Div will remain in reserve." — after a clause break (";", ",", "and"), one of the
/// scenario's commands followed by "will", "shall", "must", "is to" or "are to" and a verb is
/// the subject of what follows, not an objective of what went before. The first such subject
/// at the start of the order is the grammar's (`who` with its link); these are the later ones.
pub(crate) fn clause_subjects(
    text: &str,
    toks: Vec<Tok>,
    index: Option<&Index<'_>>,
    rules: &mut Vec<&'static str>,
) -> Vec<Tok> {
    if !has_links(text, &toks) {
        return toks;
    }
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut k = 0;
    let mut fired = false;
    let mut you = false;
    let mut same = false;
    let mut in_condition = false;
    let mut ends = false;
    // Rule `cond.then-subject`: (a condition opened the clause, its comma has just passed).
    let mut cond = (false, false);
    let mut then_subject = false;
    let mut that = false;
    while k < toks.len() {
        // "You will attack Hall." read by `lead.third-person` names nobody: it addresses the
        // recipient.
        if let Tok::Recipient {
            who: Some(w),
            attached,
            span,
        } = &toks[k]
            && w.text.eq_ignore_ascii_case("you")
        {
            out.push(Tok::Recipient {
                who: None,
                attached: attached.clone(),
                span: *span,
            });
            k += 1;
            you = true;
            continue;
        }
        // A courtesy right after a break ("; meanwhile the 2nd Div will …") keeps it open.
        let last = out.iter().rev().find(|t| !matches!(t, Tok::Courtesy(_)));
        let at_break = match last {
            Some(Tok::Connector(c, _)) => matches!(c.as_str(), ";" | "," | "and"),
            Some(Tok::Punct(s)) => &text[s.0..s.1] == ";",
            _ => false,
        };
        // Rule `lead.you`: "2nd Div: you will attack Hall", "You are to hold Kümla", "you may
        // …" — the recipient addressed, not a name.
        let clause_start = at_break
            || out.iter().all(|t| {
                matches!(
                    t,
                    Tok::Header(_) | Tok::Courtesy(_) | Tok::Recipient { .. } | Tok::Addressee(_)
                )
            });
        if clause_start
            && (word(text, &toks[k]) == "you" || your_troops(text, &toks[k]))
            && let Some(link) = you_link_len(text, &toks[k + 1..])
            && matches!(toks.get(k + 1 + link), Some(Tok::Verb { .. }))
        {
            out.push(Tok::Recipient {
                who: None,
                attached: Vec::new(),
                span: (toks[k].span().0, toks[k + link].span().1),
            });
            k += 1 + link;
            you = true;
            continue;
        }
        // Rule `cond.modal-ends`: "… and on reaching Kümla will halt": the subject's link after
        // a condition's words ends the condition, as a comma would ("on reaching Kümla, halt").
        if in_condition
            && !at_break
            && let Some(link) = link_len(text, &toks[k..])
            && matches!(toks.get(k + link), Some(Tok::Verb { .. }))
        {
            let span = (toks[k].span().0, toks[k + link - 1].span().1);
            out.push(Tok::Connector(",".into(), span));
            k += link;
            in_condition = false;
            ends = true;
            continue;
        }
        match &toks[k] {
            Tok::CondStart(..) => in_condition = true,
            Tok::Connector(..) | Tok::Punct(_) | Tok::Verb { .. } => in_condition = false,
            _ => {}
        }
        cond_clause(&toks[k], clause_start, at_break, &mut cond);
        // Rule `lead.same-subject`: "… will move to Fuentes, and will take up a position",
        // "… to Guarda, where it will halt", "The Guards will not pursue; they will re-form":
        // the subject goes on; the link is no remark.
        // "…, and will afterwards form behind X": "then" or "afterwards" may stand between the
        // link and the verb (the sequence is kept).
        let later = |j: usize| {
            matches!(toks.get(j), Some(Tok::Connector(c, _)) if c == "then" || c == "afterwards")
                && matches!(toks.get(j + 1), Some(Tok::Verb { .. }))
        };
        if (at_break || clause_start && !out.is_empty())
            && let Some(link) = continuation(text, &toks[k..])
            && (matches!(toks.get(k + link), Some(Tok::Verb { .. })) || later(k + link))
        {
            k += link;
            same = true;
            continue;
        }
        if at_break && let Some((lead, n)) = that_subject(text, &toks[k..], index) {
            out.push(lead);
            k += n;
            that = true;
            continue;
        }
        // Rule `lead.clause-subject`, telegraphic: "…, Charlot to follow in support".
        if at_break
            && let Tok::Place(who) = &toks[k]
            && let Some(link) = link_len(text, &toks[k + 1..]).or_else(|| {
                (toks.get(k + 1).map(|t| word(text, t)).as_deref() == Some("to")).then_some(1)
            })
            && matches!(toks.get(k + 1 + link), Some(Tok::Verb { .. }))
            && (commands(who, index)
                || passive_own(text, who, toks.get(k + 1 + link))
                || cond.1 && {
                    let fits = own_troop_words(who) && word(text, &toks[k + 1]) != "to";
                    then_subject |= fits;
                    fits
                }
                // "The light infantry will skirmish in front, and the line will follow": own
                // troops in lower case with "will" and a verb begin a clause of their own.
                || own_troop_words(who)
                    && matches!(word(text, &toks[k + 1]).as_str(), "will" | "shall"))
        {
            let span = (who.phrase_span.0, toks[k + link].span().1);
            out.push(Tok::Recipient {
                who: Some(who.clone()),
                attached: Vec::new(),
                span,
            });
            k += 1 + link;
            fired = true;
            continue;
        }
        out.push(toks[k].clone());
        k += 1;
    }
    if fired {
        rules.push("lead.clause-subject");
    }
    if you {
        rules.push("lead.you");
    }
    if ends {
        rules.push("cond.modal-ends");
    }
    if then_subject {
        rules.push("cond.then-subject");
    }
    if that {
        rules.push("lead.that-subject");
    }
    if same {
        rules.push("lead.same-subject");
    }
    out
}

/// Every rule of [`clause_subjects`] needs a link ("will", "is to", "it will", "you may") or a
/// "You" read as a name: most sentences have neither and pass untouched, without a copy (the
/// reader's hot path).
fn has_links(text: &str, toks: &[Tok]) -> bool {
    let links = |t: &Tok| {
        let s = t.span();
        let first = text[s.0..s.1].split(' ').next().unwrap_or("");
        [
            "will", "shall", "must", "may", "is", "are", "it", "he", "they",
        ]
        .iter()
        .any(|l| first.eq_ignore_ascii_case(l))
            || matches!(t, Tok::Recipient { who: Some(w), .. } if w.text.eq_ignore_ascii_case("you"))
    };
    // "…; Pellerin to follow in reserve": a name, "to" and a verb.
    let to_link = |w: &[Tok]| {
        matches!(w[0], Tok::Place(_))
            && matches!(w[2], Tok::Verb { .. })
            && word(text, &w[1]) == "to"
    };
    toks.iter().any(links) || toks.windows(3).any(to_link)
}

/// Rule `lead.that-subject`: "Lord Wellington desires that the 4th Division may halt at
/// Guarda, and that General Cole will send a brigade to Celorico" — after a break, "that", a
/// subject, its link and a verb: a second wish of the same authority, with its own subject (a
/// command, own troops or a titled officer); "that" is its lead. The lead and how many tokens
/// of `rest` it takes.
fn that_subject(text: &str, rest: &[Tok], index: Option<&Index<'_>>) -> Option<(Tok, usize)> {
    if word(text, rest.first()?) != "that" {
        return None;
    }
    let Some(Tok::Place(who)) = rest.get(1) else {
        return None;
    };
    let link = you_link_len(text, &rest[2..])?;
    if !matches!(rest.get(2 + link), Some(Tok::Verb { .. }))
        || !(commands(who, index) || own_troop_words(who) || titled(text, who))
    {
        return None;
    }
    let span = (rest[0].span().0, rest[1 + link].span().1);
    let lead = Tok::Recipient {
        who: Some(who.clone()),
        attached: Vec::new(),
        span,
    };
    Some((lead, 2 + link))
}

/// Rule `cond.then-subject`, the clauses: `cond` is (a condition opened this clause and runs
/// on, its clause ended at the comma just passed), updated for `tok`.
fn cond_clause(tok: &Tok, clause_start: bool, at_break: bool, cond: &mut (bool, bool)) {
    let (open, after) = cond;
    if let Tok::CondStart(kind, _) = tok {
        // Only a condition that opens its clause ("Should …, the brigade is to …"), not one
        // inside a stage, nor how long a stage lasts ("till formed on the beach").
        let kind = kind.lower();
        *open = clause_start
            && !matches!(
                kind.as_ref(),
                "till" | "until" | "unless" | "before" | "relative"
            );
    } else if matches!(tok, Tok::Connector(c, _) if c != ",") || matches!(tok, Tok::Punct(_)) {
        *open = false;
        *after = false;
    } else if matches!(tok, Tok::Connector(c, _) if c == ",") && *open {
        *open = false;
        *after = true;
    } else if !matches!(tok, Tok::Connector(..)) && !at_break {
        *after = false;
    }
}

/// Rule `cond.then-subject`: "Should the enemy attempt to pass the river, the brigade is to
/// dispute the passage" — after a condition's clause and its comma, troops described in lower
/// case ("the brigade", "the light companies") with their link and a verb are the subject of
/// what follows (never the enemy or a nation), not more words of the condition.
fn own_troop_words(who: &Target) -> bool {
    who.form == Form::Name && looks_like_troops(&who.text) && !names_a_side(&who.text, true)
}

/// A word of `text` names the enemy or a nation (the lexicon's `nations`: "the enemy's", "the
/// English", "French"); "troops", also in that list (no 6.4.4 limit), only `with_troops`.
pub(crate) fn names_a_side(text: &str, with_troops: bool) -> bool {
    let lex = super::lexicon::get();
    crate::text::fold(text).split(' ').any(|w| {
        let w = w.trim_end_matches("'s");
        (with_troops || w != "troops")
            && (lex.is_nation(w) || lex.is_nation(w.trim_end_matches('s')))
    })
}

/// A name that opens with a title ("General Cole", "Sir Stapleton Cotton"): a person.
fn titled(text: &str, who: &Target) -> bool {
    let s = who.span;
    let head = text[s.0..s.1].split(' ').next().unwrap_or("");
    head.chars().next().is_some_and(char::is_uppercase)
        && super::lexicon::get().is_title(&crate::text::fold(head))
}

/// "…; the reserve cavalry is to be kept in hand": troops described in lower case, then a
/// passive verb phrase ("be kept in hand", "be posted"), are that clause's subject as a named
/// command is (rule `lead.passive-own` after a clause break), never the enemy or a nation.
fn passive_own(text: &str, who: &Target, verb: Option<&Tok>) -> bool {
    let lex = super::lexicon::get();
    matches!(verb, Some(Tok::Verb { span, .. })
        if text[span.0..span.1].lower().starts_with("be "))
        && who.form == Form::Name
        && looks_like_troops(&who.text)
        && !crate::text::fold(&who.text)
            .split(' ')
            .any(|w| lex.is_nation(w) || lex.is_nation(w.trim_end_matches('s')))
}

/// How many tokens of `rest` carry on the same subject before a verb: "will", "shall", "is
/// to", "are to" (the link alone), "where it will", "where they are to" (a place named just
/// before: the action happens there). `None` when `rest` does not open so.
fn continuation(text: &str, rest: &[Tok]) -> Option<usize> {
    let w = |k: usize| rest.get(k).map(|t| word(text, t));
    if let Some(n) = link_len(text, rest) {
        return Some(n);
    }
    // "…; they will re-form", "He is then to hold Kümla": the subject named again by a
    // pronoun (the lexicon reads "it will", "they will" as one word).
    match w(0).as_deref() {
        Some("it will" | "they will" | "he will") => return Some(1),
        Some("it is" | "he is" | "they are") if w(1).as_deref() == Some("to") => return Some(2),
        Some("it" | "he" | "they") => return link_len(text, &rest[1..]).map(|n| 1 + n),
        _ => {}
    }
    if w(0).as_deref() != Some("where") {
        return None;
    }
    // The lexicon reads "it will", "they will" as one word.
    match w(1).as_deref() {
        Some("it will" | "they will" | "he will") => Some(2),
        Some("it" | "he" | "they") => link_len(text, &rest[2..]).map(|n| 2 + n),
        _ => None,
    }
}

/// "your division", "your brigade", "your cavalry": the recipient's own troops, named as the
/// subject of its order ("2nd Div: your division will hold Hall" — rule `lead.you`).
fn your_troops(text: &str, t: &Tok) -> bool {
    let Tok::Place(x) = t else {
        return false;
    };
    let phrase = text[x.phrase_span.0..x.phrase_span.1].lower();
    matches!(x.form, super::ast::Form::Own)
        && phrase.strip_prefix("your ").is_some_and(|noun| {
            super::lexicon::get().is_troop_word(&crate::text::fold(noun.trim()))
        })
}

/// How many tokens make the link between a subject and its verb: "will", "shall", "must" (1);
/// "is to", "are to" (2); none (`None`).
/// [`link_len`] after "you" (rule `lead.you`), which also takes leave: "You may attack if …"
/// addresses the recipient. Not a link of `cond.modal-ends`: "if the enemy may …" stays a
/// condition.
fn you_link_len(text: &str, rest: &[Tok]) -> Option<usize> {
    link_len(text, rest).or_else(|| {
        rest.first()
            .is_some_and(|t| word(text, t) == "may")
            .then_some(1)
    })
}

fn link_len(text: &str, rest: &[Tok]) -> Option<usize> {
    let w = |k: usize| rest.get(k).map(|t| word(text, t));
    match w(0)?.as_str() {
        "will" | "shall" | "must" => Some(1),
        "is" | "are" if w(1).as_deref() == Some("to") => Some(2),
        _ => None,
    }
}

/// Rule `verb.in-reserve`: "4th Div: in reserve behind Hinzeberg.", "K Div: in reserve at
/// 38.12 until I send for you." — a sentence with no verb whose body opens with "in reserve"
/// (or "in support", "in second line") is an order to stand in reserve there.
pub(crate) fn in_reserve(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let toks = rest_in_reserve(text, toks, rules);
    let start = toks
        .iter()
        .position(|t| {
            !matches!(
                t,
                Tok::Header(_) | Tok::Courtesy(_) | Tok::Recipient { .. } | Tok::Addressee(_)
            )
        })
        .unwrap_or(toks.len());
    let Some(Tok::Manner(m, span)) = toks.get(start) else {
        return toks;
    };
    let (m, span) = (m.to_ascii_lowercase(), *span);
    if !matches!(m.as_str(), "in reserve" | "in second line" | "in support") || start == 0 {
        return toks;
    }
    // A verb of its own before any condition or purpose makes it a manner: "4th Div: in
    // reserve, follow the 2nd" is read as written.
    let own_verb = toks[start + 1..]
        .iter()
        .take_while(|t| !matches!(t, Tok::CondStart(..) | Tok::Purpose(_)))
        .any(|t| matches!(t, Tok::Verb { .. } | Tok::Negate(_)));
    if own_verb {
        return toks;
    }
    let action = if m == "in support" {
        Action::Support
    } else {
        Action::Reserve
    };
    let mut out = toks;
    // Read back with the verb the lexicon knows ("stand in reserve"), so it reads the same again.
    out[start] = Tok::Verb {
        action,
        verb: format!("stand {}", &text[span.0..span.1]),
        span,
    };
    rules.push("verb.in-reserve");
    out
}

/// Rule `verb.in-reserve` (a clause): "2 sqns to patrol towards Säter, the rest in reserve behind
/// Kümla" — after a clause break, the rest of the command ("the rest", "the remainder") or own
/// troops by their words, then "in reserve" / "in support" / "in second line" with no verb of
/// its own, is that part's task: the subject of a stage that stands so.
fn rest_in_reserve(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let mut k = 1;
    while k + 1 < toks.len() {
        let at_break =
            matches!(&toks[k - 1], Tok::Connector(c, _) if matches!(c.as_str(), "," | ";" | "and"));
        let Tok::Manner(m, span) = &toks[k + 1] else {
            k += 1;
            continue;
        };
        let m = m.to_ascii_lowercase();
        let rest = matches!(&toks[k], Tok::Place(t) if t.form == Form::Name && {
            let w = crate::text::fold(&t.text);
            remainder(&t.text)
                || looks_like_troops(&t.text) && !super::lexicon::get().is_nation(&w)
        });
        let own_verb = toks[k + 2..]
            .iter()
            .take_while(|t| !matches!(t, Tok::Connector(..) | Tok::Punct(_)))
            .any(|t| matches!(t, Tok::Verb { .. } | Tok::Negate(_)));
        if !at_break
            || !rest
            || own_verb
            || !matches!(m.as_str(), "in reserve" | "in second line" | "in support")
        {
            k += 1;
            continue;
        }
        let span = *span;
        let Tok::Place(who) = toks[k].clone() else {
            k += 1;
            continue;
        };
        let action = if m == "in support" {
            Action::Support
        } else {
            Action::Reserve
        };
        toks[k] = Tok::Recipient {
            span: who.phrase_span,
            who: Some(who),
            attached: Vec::new(),
        };
        toks[k + 1] = Tok::Verb {
            action,
            verb: format!("stand {}", &text[span.0..span.1]),
            span,
        };
        rules.push("verb.in-reserve");
        k += 2;
    }
    toks
}

/// "the rest", "the remainder of the division", "the others": the recipient's troops not
/// given a task of their own (a name's text, without its article).
pub(crate) fn remainder(name: &str) -> bool {
    let w = crate::text::fold(name);
    matches!(w.as_str(), "rest" | "remainder" | "others")
        || w.starts_with("rest of ")
        || w.starts_with("remainder of ")
}

/// Rule `with.supported-by`: "attack Hall at 1100, supported by the 3rd Division on your
/// left" — troops after "supported by" (or "followed by", "covered by") go with the action, as
/// "with the 3rd Division" would; "by" is no route through them.
pub(crate) fn supported_by(
    text: &str,
    toks: Vec<Tok>,
    index: Option<&Index<'_>>,
    rules: &mut Vec<&'static str>,
) -> Vec<Tok> {
    let hit = |k: usize| {
        let participle = toks.get(k).is_some_and(|t| {
            matches!(t, Tok::Participle { .. } | Tok::Filler(_))
                && matches!(
                    word(text, t).as_str(),
                    "supported" | "followed" | "covered" | "seconded" | "sustained"
                )
        });
        // "supported by the 95th": a regiment by its number alone is troops too.
        let regiment = |t: &super::lower::Target| {
            let w = t.text.lower();
            ["st", "nd", "rd", "th", "d"].iter().any(|s| {
                w.strip_suffix(s)
                    .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            })
        };
        participle
            && matches!(toks.get(k + 1), Some(Tok::RoutePrep(p, _)) if p == "by")
            && matches!(toks.get(k + 2), Some(Tok::Place(t)) if commands(t, index) || regiment(t))
    };
    if !(0..toks.len()).any(hit) {
        return toks;
    }
    let mut out = Vec::with_capacity(toks.len());
    let mut k = 0;
    while k < toks.len() {
        if hit(k)
            && let Some(Tok::Place(t)) = toks.get(k + 2)
        {
            out.push(Tok::With(t.clone(), (toks[k].span().0, t.phrase_span.1)));
            k += 3;
            continue;
        }
        out.push(toks[k].clone());
        k += 1;
    }
    rules.push("with.supported-by");
    out
}

/// The heads of a recipient described by his command: "the officer commanding at X", "the
/// officers commanding the cavalry regiments", "the commanding officer of the 88th", "the
/// general officer commanding the 4th Division" (rule `lead.commanding`).
const COMMANDING: [&str; 12] = [
    "officer commanding",
    "officers commanding",
    "general commanding",
    "generals commanding",
    "general officer commanding",
    "general officers commanding",
    "officer in command",
    "officers in command",
    "commanding officer",
    "commanding officers",
    "officer in charge",
    "officers in charge",
];

/// Rule `lead.commanding`: a recipient described by his command — `Some((at, what))`, `at`
/// when he commands at a place ("the officer commanding at Castello Branco": what =
/// "Castello Branco"), else what he commands ("the cavalry", "the rear guard", "" when
/// nothing is said).
pub(crate) fn by_command(text: &str) -> Option<(bool, &str)> {
    // Asked of every recipient: the first word decides before anything else is compared.
    let first = text.split(' ').next()?;
    if ![
        "the",
        "officer",
        "officers",
        "general",
        "generals",
        "commanding",
    ]
    .iter()
    .any(|w| first.eq_ignore_ascii_case(w))
    {
        return None;
    }
    let body = strip_ci(text, "the ").unwrap_or(text);
    let rest = COMMANDING
        .iter()
        .find_map(|h| strip_ci(body, h).filter(|rest| rest.is_empty() || rest.starts_with(' ')))?;
    let rest = rest.trim_start();
    for prep in ["at ", "in ", "on ", "near "] {
        if let Some(place) = strip_ci(rest, prep) {
            return Some((true, place.trim()));
        }
    }
    let rest = strip_ci(rest, "of ").unwrap_or(rest);
    Some((false, rest.trim()))
}

/// `s` without the prefix `p`, compared in ASCII case only (never cut inside a character).
fn strip_ci<'a>(s: &'a str, p: &str) -> Option<&'a str> {
    s.get(..p.len())
        .filter(|h| h.eq_ignore_ascii_case(p))
        .and_then(|_| s.get(p.len()..))
}

/// The word of a token, lower-case.
fn tok_word(text: &str, t: &Tok) -> String {
    word(text, t)
}

/// Rule `lead.commanding`: "The officer commanding at Castello Branco will destroy the
/// bridge", "The officer commanding the rear guard will hold …" — an officer described by his
/// command, opening the sentence before its link ("will", "shall", "must", "is to", "are to"),
/// is the recipient, however the grammar cut the words between; a place he commands at is
/// where he stands (a place of the order, never the recipient nor an objective).
pub(crate) fn commanding_lead(
    text: &str,
    toks: Vec<Tok>,
    rules: &mut Vec<&'static str>,
) -> Vec<Tok> {
    let start = lower::body_start(&toks);
    // Cheap test first: the sentence opens with "the officer", "officers", "the commanding" …
    let opens = toks.get(start).is_some_and(|t| {
        let s = t.span();
        let mut head = text[s.0..s.1].split_whitespace();
        let officer = |w: Option<&str>| {
            w.is_some_and(|w| {
                ["officer", "officers", "general", "generals", "commanding"]
                    .iter()
                    .any(|o| w.eq_ignore_ascii_case(o))
            })
        };
        let first = head.next();
        matches!(t, Tok::Place(_) | Tok::Filler(_))
            && (officer(first)
                || first.is_some_and(|w| w.eq_ignore_ascii_case("the")) && officer(head.next()))
    });
    if !opens || toks.iter().any(|t| matches!(t, Tok::Recipient { .. })) {
        return toks;
    }
    // The link, and how many tokens it takes.
    let mut link = None;
    for k in start + 1..toks.len().min(start + 12) {
        match &toks[k] {
            Tok::Punct(_) => break,
            Tok::Connector(c, _) if c != "," => break,
            _ => {}
        }
        let w = tok_word(text, &toks[k]);
        if matches!(w.as_str(), "will" | "shall" | "must" | "may") {
            link = Some((k, 1));
            break;
        }
        if matches!(w.as_str(), "is" | "are")
            && toks.get(k + 1).is_some_and(|t| tok_word(text, t) == "to")
        {
            link = Some((k, 2));
            break;
        }
    }
    let Some((link, len)) = link else {
        return toks;
    };
    // Only a lead the grammar broke up: one name before the link is `lead.third-person`'s.
    if link == start + 1 {
        return toks;
    }
    let phrase_span = (toks[start].span().0, toks[link - 1].span().1);
    let phrase = text[phrase_span.0..phrase_span.1].trim_end();
    if by_command(phrase).is_none()
        || !matches!(
            toks.get(link + len),
            Some(Tok::Verb { .. } | Tok::Filler(_) | Tok::Negate(_) | Tok::Connector(..))
        )
    {
        return toks;
    }
    // The name without its article.
    let name_span = match phrase.split_once(' ') {
        Some((a, _)) if a.eq_ignore_ascii_case("the") => {
            (phrase_span.0 + a.len() + 1, phrase_span.0 + phrase.len())
        }
        _ => (phrase_span.0, phrase_span.0 + phrase.len()),
    };
    let who = Target {
        form: Form::Unit,
        ..names::name_target(text, name_span, phrase_span.0)
    };
    let mut out: Vec<Tok> = toks[..start].to_vec();
    out.push(Tok::Recipient {
        who: Some(who),
        attached: Vec::new(),
        span: (phrase_span.0, toks[link + len - 1].span().1),
    });
    // "at Castello Branco": where he commands, a place of the order.
    for k in start..link.saturating_sub(1) {
        if let (Tok::DestPrep(p, ps), Tok::Place(place)) = (&toks[k], &toks[k + 1])
            && matches!(p.as_str(), "at" | "in" | "on" | "near")
            && place.text.chars().any(char::is_uppercase)
        {
            out.push(Tok::Stands(
                p.clone(),
                place.clone(),
                (ps.0, place.phrase_span.1),
            ));
        }
    }
    out.extend(toks.into_iter().skip(link + len));
    rules.push("lead.commanding");
    out
}

/// The bid verbs of a third person who passes an order on ("Colonel Elley will desire the
/// officers … to …") or of the writer's staff officer ("Tell him to …").
const BIDS: [&str; 9] = [
    "desire", "tell", "order", "direct", "instruct", "request", "ask", "beg", "require",
];

/// Rule `lead.passed-on`: "Colonel Elley will desire the officers commanding the cavalry
/// regiments to send their led horses to the rear" — the subject only passes the order on: the
/// ones bidden (the words between the bid and its "to") are the recipient, and the subject
/// and his link are a courtesy. Rule `pronoun.recipient`: "Tell him to hang upon …" — the
/// bidden one may be a pronoun ("him", "them"): he is the recipient, the man named in the
/// order's sentence before (`before`), or nobody the order names.
pub(crate) fn passed_on(
    text: &str,
    toks: Vec<Tok>,
    before: Option<&Target>,
    rules: &mut Vec<&'static str>,
) -> Vec<Tok> {
    let start = lower::body_start(&toks);
    // "Colonel Elley will" + bid, or a bid opening the sentence ("Tell him to").
    let (bid, third) = match toks.get(start) {
        Some(Tok::Recipient { who: Some(_), .. }) => (start + 1, true),
        Some(_) => (start, false),
        None => return toks,
    };
    let Some(b) = toks.get(bid) else {
        return toks;
    };
    // Only after a subject and his link ("Colonel Elley will desire"), not after a colon
    // ("2nd Div: order the guns to withdraw" is the division's own order to its guns).
    if third
        && !{
            let (a, e) = toks[start].span();
            let lead = text[a..e].trim_end();
            [" will", " shall", " must", " is to", " are to"]
                .iter()
                .any(|l| {
                    lead.len()
                        .checked_sub(l.len())
                        .and_then(|at| lead.get(at..))
                        .is_some_and(|tail| tail.eq_ignore_ascii_case(l))
                })
        }
    {
        return toks;
    }
    let s = b.span();
    if !matches!(b, Tok::Filler(_) | Tok::Place(_) | Tok::Verb { .. })
        || !BIDS.iter().any(|w| text[s.0..s.1].eq_ignore_ascii_case(w))
    {
        return toks;
    }
    // The ones bidden, up to their "to" and the verb.
    let Some(to) = (bid + 1..toks.len().min(bid + 8)).find(|&k| {
        tok_word(text, &toks[k]) == "to" && matches!(toks.get(k + 1), Some(Tok::Verb { .. }))
    }) else {
        return toks;
    };
    if to == bid + 1
        || !toks[bid + 1..to]
            .iter()
            .all(|t| matches!(t, Tok::Place(_) | Tok::Filler(_)))
    {
        return toks;
    }
    let span = (toks[bid + 1].span().0, toks[to - 1].span().1);
    let phrase = text[span.0..span.1].trim_end();
    let pronoun = matches!(phrase.to_ascii_lowercase().as_str(), "him" | "them" | "her");
    // Only troops, an officer or a pronoun are bidden: "Order the 2nd Division to" is the
    // grammar's bid already, and "desire the road to be cleared" bids nobody.
    if !pronoun && (third && !looks_like_troops(phrase) && by_command(phrase).is_none()) {
        return toks;
    }
    if !third && !pronoun {
        return toks;
    }
    // The name without its article.
    let name_span = match phrase.split_once(' ') {
        Some((a, _)) if a.eq_ignore_ascii_case("the") => {
            (span.0 + a.len() + 1, span.0 + phrase.len())
        }
        _ => (span.0, span.0 + phrase.len()),
    };
    let who = match (pronoun, before) {
        // "General Alten is at Espeja. Tell him to …": the man named before.
        // He is read back by his name.
        (true, Some(b)) => Target {
            span: name_span,
            phrase_span: (span.0, span.0 + phrase.len()),
            ..b.clone()
        },
        _ => Target {
            form: if pronoun { Form::Pronoun } else { Form::Unit },
            ..names::name_target(text, name_span, span.0)
        },
    };
    let mut out: Vec<Tok> = toks[..start].to_vec();
    // The one who passes it on carries no command of his own.
    out.push(Tok::Courtesy((toks[start].span().0, b.span().1)));
    out.push(Tok::Recipient {
        who: Some(who),
        attached: Vec::new(),
        span: (span.0, toks[to].span().1),
    });
    out.extend(toks.into_iter().skip(to + 1));
    rules.push(if pronoun {
        "pronoun.recipient"
    } else {
        "lead.passed-on"
    });
    out
}

/// Rule `lead.bid-imperative`: the writer bids his addressee pass an order on, in the
/// imperative or after "you will" — "Order the Polish light horse to Compiègne to-morrow",
/// "Show this letter and desire Hill to give orders accordingly", "You will direct the
/// Commissaries attached to your corps to take measures …". The ones bidden (troops, a
/// capitalised name or a pronoun) are the recipient and the bid a courtesy, as in
/// `lead.passed-on`; "order … to" and a place is a march there. Only when no other recipient
/// leads the sentence.
pub(crate) fn bid_imperative(
    text: &str,
    toks: Vec<Tok>,
    rules: &mut Vec<&'static str>,
) -> Vec<Tok> {
    let start = lower::body_start(&toks);
    // (a) The grammar's own lead "Order the Polish light horse to" before a place.
    if let Some(Tok::Recipient {
        who: Some(w),
        attached,
        span,
    }) = toks.get(start)
        && attached.is_empty()
        && matches!(toks.get(start + 1), Some(Tok::Place(_)))
        && let Some((bid, rest)) = text[span.0..span.1].split_once(' ')
        && BIDS.iter().any(|b| bid.eq_ignore_ascii_case(b))
        && let Some(phrase) = rest.trim_end().strip_suffix(" to")
        && (looks_like_troops(phrase) || capitalised(phrase))
        && w.text.len() > bid.len()
    {
        let from = span.0 + bid.len() + 1;
        let to_at = from + phrase.len() + 1;
        let who = bidden(text, (from, from + phrase.len()));
        let mut out: Vec<Tok> = toks[..start].to_vec();
        out.push(Tok::Courtesy((span.0, span.0 + bid.len())));
        out.push(Tok::Recipient {
            who: Some(who),
            attached: Vec::new(),
            span: (from, from + phrase.len()),
        });
        out.push(Tok::Verb {
            action: Action::Move,
            verb: "march".into(),
            span: (to_at, to_at),
        });
        out.push(Tok::DestPrep("to".into(), (to_at, to_at + 2)));
        out.extend(toks.into_iter().skip(start + 1));
        rules.push("lead.bid-imperative");
        return out;
    }
    if toks
        .iter()
        .any(|t| matches!(t, Tok::Recipient { who: Some(_), .. }))
    {
        return toks;
    }
    // (b) "… and desire Hill to …", "You will direct X to …": a bid after "and" or "you
    // will", the ones bidden, "to" and a lower-case word.
    for k in start..toks.len() {
        // "You will direct": the grammar's "you will", or the two words left unread.
        let you_words = k > start
            && tok_word(text, &toks[k]) == "will"
            && tok_word(text, &toks[k - 1]) == "you";
        let after_you = matches!(&toks[k], Tok::Recipient { who: None, .. }) || you_words;
        let after_and = matches!(&toks[k], Tok::Connector(c, _) if c == "and");
        if !after_you && !after_and {
            continue;
        }
        let bid = k + 1;
        let Some(b) = toks.get(bid) else { break };
        let bs = b.span();
        if !matches!(b, Tok::Filler(_) | Tok::Place(_) | Tok::Verb { .. })
            || !BIDS
                .iter()
                .any(|w| text[bs.0..bs.1].eq_ignore_ascii_case(w))
        {
            continue;
        }
        let Some(to) = (bid + 2..toks.len().min(bid + 9)).find(|&j| {
            tok_word(text, &toks[j]) == "to"
                && toks.get(j + 1).is_some_and(|t| {
                    let s = t.span();
                    matches!(t, Tok::Verb { .. } | Tok::Filler(_))
                        && text[s.0..s.1].starts_with(|c: char| c.is_lowercase())
                })
        }) else {
            continue;
        };
        if toks[bid + 1..to]
            .iter()
            .any(|t| matches!(t, Tok::Punct(_) | Tok::Connector(..) | Tok::Verb { .. }))
        {
            continue;
        }
        let span = (toks[bid + 1].span().0, toks[to - 1].span().1);
        let phrase = text[span.0..span.1].trim_end();
        let pronoun = matches!(phrase.to_ascii_lowercase().as_str(), "him" | "them");
        // A phrase with a preposition of its own ("the Commissaries attached to your corps")
        // would read back as a "X to Y" lead: left to the grammar.
        let own_prep = phrase
            .split_whitespace()
            .any(|w| matches!(w.lower().as_ref(), "to" | "from" | "at" | "on"));
        if own_prep || !pronoun && !looks_like_troops(phrase) && !capitalised(phrase) {
            continue;
        }
        let mut who = bidden(text, (span.0, span.0 + phrase.len()));
        if pronoun {
            who.form = Form::Pronoun;
        }
        let keep = match (after_you, you_words) {
            (true, true) => k - 1,
            (true, false) => k,
            _ => k + 1,
        };
        let mut out: Vec<Tok> = toks[..keep].to_vec();
        let court_from = if after_you { toks[keep].span().0 } else { bs.0 };
        out.push(Tok::Courtesy((court_from, bs.1)));
        out.push(Tok::Recipient {
            who: Some(who),
            attached: Vec::new(),
            span: (span.0, toks[to].span().1),
        });
        out.extend(toks.into_iter().skip(to + 1));
        rules.push("lead.bid-imperative");
        return out;
    }
    toks
}

/// A phrase whose first word after an article is capitalised ("the Commissaries", "Hill").
fn capitalised(phrase: &str) -> bool {
    let mut ws = phrase.split_whitespace();
    let first = ws.next().unwrap_or("");
    let w = if first.eq_ignore_ascii_case("the") {
        ws.next().unwrap_or("")
    } else {
        first
    };
    w.starts_with(|c: char| c.is_uppercase())
}

/// The ones bidden as a recipient: their name without its article.
fn bidden(text: &str, span: super::ast::Span) -> Target {
    let phrase = &text[span.0..span.1];
    let name_span = match phrase.split_once(' ') {
        Some((a, _)) if a.eq_ignore_ascii_case("the") => (span.0 + a.len() + 1, span.1),
        _ => span,
    };
    Target {
        form: Form::Unit,
        ..names::name_target(text, name_span, span.0)
    }
}

/// Rule `lead.wish-list`: "I wish the 6th division, and General Pack's brigade, to cross the
/// Tagus …" — the writer's wish ("I wish", "I should wish", "I desire") names the ones who are
/// to act before their "to" and verb: troops or capitalised names, one or several joined by
/// "and" or commas, are the recipients (rule `lead.several` reads the list), the wish a courtesy.
pub(crate) fn wish_list(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let start = lower::body_start(&toks);
    let Some(first) = toks.get(start) else {
        return toks;
    };
    let fs = first.span();
    let lead = text[fs.0..fs.1].lower();
    if !matches!(first, Tok::Filler(_))
        || !matches!(
            lead.as_ref(),
            "i wish" | "i should wish" | "i desire" | "we wish" | "i would wish"
        )
        || toks.iter().any(|t| matches!(t, Tok::Recipient { .. }))
    {
        return toks;
    }
    // The names, their connectors, and the "to" before a verb.
    let mut names = Vec::new();
    let mut k = start + 1;
    while k < toks.len() {
        match &toks[k] {
            Tok::Place(p)
                if matches!(p.form, Form::Name | Form::Unit)
                    && (looks_like_troops(&p.text) || capitalised(&p.phrase)) =>
            {
                names.push(k);
            }
            Tok::Connector(c, _) if c == "," || c == "and" => {}
            _ => break,
        }
        k += 1;
    }
    let to = k;
    if names.is_empty()
        || tok_word(text, toks.get(to).unwrap_or(&toks[start])) != "to"
        || !matches!(toks.get(to + 1), Some(Tok::Verb { .. }))
    {
        return toks;
    }
    let last = *names.last().expect("not empty");
    let Tok::Place(lt) = &toks[last] else {
        return toks;
    };
    let mut out: Vec<Tok> = toks[..start].to_vec();
    out.push(Tok::Courtesy(fs));
    // The names before the last stay as they are; "and" must stand before the last for the
    // list to be read as several (rule `lead.several`).
    for t in &toks[start + 1..last] {
        out.push(t.clone());
    }
    if names.len() > 1 && !matches!(out.last(), Some(Tok::Connector(c, _)) if c == "and") {
        return toks;
    }
    out.push(Tok::Recipient {
        who: Some(lt.clone()),
        attached: Vec::new(),
        span: (lt.phrase_span.0, toks[to].span().1),
    });
    out.extend(toks.into_iter().skip(to + 1));
    rules.push("lead.wish-list");
    out
}

/// Rule `lead.send-to` (a bid inside a sentence): "Send to Le Cor, and desire him to have …" —
/// "send (write) to X" is the writer's message to X, and the bid after it ("and desire him
/// to") names X again: X is the recipient of what follows, read back by his name.
pub(crate) fn send_to(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let start = lower::body_start(&toks);
    let Some(Tok::Recipient { span, attached, .. }) = toks.get(start) else {
        return toks;
    };
    let lead = text[span.0..span.1].lower();
    if !attached.is_empty() || !matches!(lead.as_ref(), "send to" | "write to" | "send word to") {
        return toks;
    }
    let Some(Tok::Place(x)) = toks.get(start + 1) else {
        return toks;
    };
    if !capitalised(&x.phrase) {
        return toks;
    }
    let mut k = start + 2;
    while matches!(toks.get(k), Some(Tok::Connector(c, _)) if c == "," || c == "and") {
        k += 1;
    }
    if k == start + 2 {
        return toks;
    }
    let Some(b) = toks.get(k) else { return toks };
    let bs = b.span();
    if !BIDS
        .iter()
        .any(|w| text[bs.0..bs.1].eq_ignore_ascii_case(w))
    {
        return toks;
    }
    let pron = k + 1;
    let is_pron = toks
        .get(pron)
        .is_some_and(|t| matches!(tok_word(text, t).as_str(), "him" | "them"));
    if !is_pron || toks.get(pron + 1).is_none_or(|t| tok_word(text, t) != "to") {
        return toks;
    }
    let ps = toks[pron].span();
    let who = Target {
        span: ps,
        phrase_span: ps,
        ..x.clone()
    };
    let mut out: Vec<Tok> = toks[..start].to_vec();
    out.push(Tok::Courtesy((span.0, bs.1)));
    out.push(Tok::Recipient {
        who: Some(who),
        attached: Vec::new(),
        span: (ps.0, toks[pron + 1].span().1),
    });
    out.extend(toks.into_iter().skip(pron + 2));
    rules.push("lead.send-to");
    out
}
