//! Building the order AST from the tokens of its sentences.
//!
//! Owns: what the tokens mean together: which verb starts a new step, which words belong to a
//! condition or to the purpose, where an objective or a route goes, what is a remark, and how
//! steps group into stages (NBS 6.3.3; the grouping rule is documented in
//! docs/order-language.md and decision 0011). Must not: resolve names or judge the order.

use super::ast::*;
use super::lower::{self, Target, Tok, Unreadable};
use super::{lexicon, names, source, subjects};
use crate::rules::{OrderType, Posture};
use crate::text::{Lower, nfc};

/// A step with how it was joined to the one before it.
#[derive(Clone, Debug)]
pub(crate) struct DraftStep {
    pub step: Step,
    pub link: Link,
    pub sentence: usize,
    pub condition: Option<Condition>,
    pub subject: Option<Reference>,
    pub purpose: Option<String>,
    /// The purpose calls for an attack ("in order to fall on the rear of the enemy").
    pub purpose_engage: bool,
}

/// An order as read, before resolution and judgement.
#[derive(Clone, Debug, Default)]
pub(crate) struct Draft {
    pub header: Option<String>,
    pub courtesies: Vec<Remark>,
    pub recipient: Option<Reference>,
    pub preset: bool,
    pub independent: bool,
    pub independent_span: Option<Span>,
    pub stated_type: Option<(OrderType, Span)>,
    pub steps: Vec<DraftStep>,
    pub attached: Vec<Reference>,
    /// Attachments written with the recipient ("2-I with Beamont-I attached:").
    pub lead_attached: Vec<Reference>,
    pub intent: Vec<String>,
    pub intent_span: Option<Span>,
    pub remarks: Vec<Remark>,
    /// Remarks kept because a sentence was too long to parse.
    pub too_long: Vec<Span>,
    /// Every reference in the text, in order of appearance.
    pub refs: Vec<Reference>,
    pub unreadable: Option<Unreadable>,
    /// The order speaks to "you" ("His Majesty desires that you …"): a letter's addressee.
    pub addressed_you: bool,
    /// Start of the first sentence that is not a courtesy or header (for "no recipient").
    pub body_start: usize,
    /// Negated verb phrases: what the recipient is NOT to do (rule `neg.prohibition`).
    pub prohibitions: Vec<Prohibition>,
    /// Further recipients of one order ("Morvan and Sauret:", rule `lead.several`).
    pub also: Vec<Reference>,
    /// Where the recipient stands, written with it ("The artillery on the Cerro will …", rule
    /// `lead.subject-where`): its relation is the preposition; read back with the recipient.
    pub stands: Option<Reference>,
    /// The objectives of the last verbless sentence ("4th Div: Kümla."), with their
    /// read-backs: the next bare action takes them (rule `verbless.objective`).
    pub topic: Vec<(Reference, String)>,
    /// The time given with the verbless sentence ("Tordesillas road, 0600.").
    pub topic_time: Option<Timing>,
    /// The man the last sentence named first (its recipient, or a titled name opening it):
    /// whom "Tell him to …" in the next sentence means (rule `pronoun.recipient`).
    pub last_person: Option<Target>,
    /// The meaning rules that fired, by id, in order (for `check --explain`).
    pub rules: Vec<&'static str>,
    /// Every token of every sentence with its tag, only when `explain` is asked for.
    pub tags: Vec<Tag>,
}

pub(crate) fn to_reference(t: &Target) -> Reference {
    let form = if t.form == Form::Name && super::resolve::looks_like_troops(&t.text) {
        Form::Unit
    } else if t.form == Form::Name && side_of_troops(&t.text) {
        Form::Own
    } else {
        t.form
    };
    Reference {
        text: t.text.clone(),
        span: t.span,
        form,
        relation: None,
        within: t.within,
        hexes: t.hexes.clone(),
        parts: t.parts.iter().map(to_reference).collect(),
        resolved: None,
        phrase: t.phrase.clone(),
    }
}

/// Rule `place.side`: a lower-case "left", "right", "flank", "front", "rear" or "centre" with
/// no name ("cover the left", "either flank", "the left flank") is a part of a body of troops,
/// not ground of the map: no place, and no vague place to warn about.
/// Rule `name.side-of`: "the left of the line", "the right of the army" too (decision 0203).
fn side_of_troops(text: &str) -> bool {
    if super::names::side_of(text) == Some(true) {
        return true;
    }
    !text.chars().any(char::is_uppercase)
        && text.split_whitespace().last().is_some_and(|w| {
            matches!(
                w,
                "left" | "right" | "flank" | "flanks" | "front" | "rear" | "centre" | "center"
            )
        })
}

/// Leaves of a reference, in order: the hexes and names a compound reference is made of.
fn leaves(r: &Reference, out: &mut Vec<Reference>) {
    if r.parts.is_empty() {
        out.push(r.clone());
    } else {
        for p in &r.parts {
            leaves(p, out);
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Prep {
    Route,
    Dest,
    From,
}

#[derive(Default)]
struct Pending {
    timing: Option<Timing>,
    direction: Option<Direction>,
    facing: Option<Direction>,
    against: Option<Direction>,
    if_possible: bool,
    /// Places written before their verb, with their read-back and whether they are route.
    objectives: Vec<(Reference, String, bool)>,
    condition: Option<Condition>,
    subject: Option<Reference>,
    manner: Vec<String>,
}

enum Mode {
    Normal,
    Cond {
        kind: String,
        start: usize,
        end: usize,
        refs: Vec<Reference>,
        /// The condition has its verb ("the enemy holds …"); the next action ends it.
        predicate: bool,
        after_subject: bool,
        /// A modal followed the subject ("the enemy can …"): the next verb is the condition's.
        modal: bool,
        /// Written before its action ("If the enemy holds Kümla stop …", "or, should …,
        /// defend"): it governs the next step, not the last.
        leading: bool,
    },
    Purpose {
        start: usize,
        end: usize,
        engage: bool,
        alternatives: bool,
    },
    /// A negated verb phrase (rule `neg.prohibition`): it runs to ";", "but", a condition, a
    /// purpose, or a verb joined by "and" or a comma ("do not pursue, and hold the ridge").
    Prohibit {
        start: usize,
        end: usize,
        joined: bool,
        /// The verb a negated alternative leaves out ("march to Kümla, not to Hall": "march").
        prefix: Option<String>,
        /// Rule `neg.avoid`: what follows "avoid", "refrain from" is forbidden as written.
        avoid: bool,
    },
}

/// "In the direction of …" → "in the direction of …" (keywords only; names keep their case).
fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) if f.is_ascii_uppercase() => f.to_ascii_lowercase().to_string() + c.as_str(),
        Some(f) => f.to_string() + c.as_str(),
        None => String::new(),
    }
}

/// A token's text as written, lower-cased.
fn tok_word(text: &str, t: &Tok) -> String {
    let s = t.span();
    text[s.0..s.1].to_lowercase()
}

fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Read one order (`text` is the whole input, `span` the order's byte range in it).
pub(crate) fn build(
    text: &str,
    span: Span,
    index: Option<&super::resolve::Index<'_>>,
    explain: bool,
) -> Draft {
    let mut d = Draft {
        body_start: span.0,
        ..Draft::default()
    };
    let order = &text[span.0..span.1];
    let sentences = source::split_sentences(order);
    let mut body_found = false;
    for (si, (s0, s1)) in sentences.iter().enumerate() {
        let abs = (span.0 + s0, span.0 + s1);
        let stext = &text[abs.0..abs.1];
        if stext.len() > source::MAX_SENTENCE {
            d.remarks.push(Remark {
                text: nfc(stext),
                span: abs,
            });
            d.too_long.push(abs);
            continue;
        }
        let toks = token_rules(text, abs, stext, index, &mut d);
        if explain {
            push_tags(text, &toks, &mut d);
        }
        if !body_found
            && toks
                .iter()
                .any(|t| !matches!(t, Tok::Header(_) | Tok::Courtesy(_) | Tok::Punct(_)))
        {
            body_found = true;
            d.body_start = toks
                .iter()
                .find(|t| !matches!(t, Tok::Header(_) | Tok::Courtesy(_) | Tok::Punct(_)))
                .map_or(abs.0, |t| t.span().0);
        }
        let last_sentence = si + 1 == sentences.len();
        // Rule `lead.sender`: "I shall attack at noon with the whole army." — the writer's
        // own intention gives the recipient nothing to do.
        let sender = toks.iter().find_map(|t| match t {
            Tok::Recipient { who: Some(w), .. } => Some(w.text.as_str()),
            _ => None,
        });
        // "I have driven the enemy …": "I" or "We" read as a word, then an auxiliary.
        let sender = sender.or_else(|| match toks.as_slice() {
            [Tok::Filler(a), Tok::Filler(b), ..]
                if matches!(&text[a.0..a.1], "I" | "We")
                    && lexicon::get().is_finite(&text[b.0..b.1].lower()) =>
            {
                Some(&text[a.0..a.1])
            }
            _ => None,
        });
        if whereabouts(text, &toks) {
            // Rule `lead.whereabouts`: where the chief or headquarters will be is news for the
            // recipient, no stage (its places stay places of the order).
            d.rules.push("lead.whereabouts");
            let mut sink = Vec::new();
            for t in &toks {
                if !matches!(t, Tok::Recipient { .. }) {
                    collect_refs(t, &mut sink, &mut d.refs);
                }
            }
            d.courtesies.push(Remark {
                text: nfc(stext.trim()),
                span: abs,
            });
            continue;
        }
        if sender.is_some_and(|w| matches!(w, "I" | "We" | "we")) {
            d.rules.push("lead.sender");
            // Rule `lead.sender-turn`: "I will come to you if I can, but if I cannot do not
            // wait for me" — after "but" or ";" a "do not" / "never" speaks to the recipient
            // again: that part is read as an order of its own.
            let turn = toks.iter().enumerate().position(|(k, t)| {
                matches!(t, Tok::Connector(c, _) if c == "but" || c == ";")
                    && toks[k + 1..]
                        .iter()
                        .take_while(
                            |u| !matches!(u, Tok::Connector(c, _) if c == "but" || c == ";"),
                        )
                        .any(|u| {
                            matches!(u, Tok::Negate(n) if {
                                let w = text[n.0..n.1].lower();
                                w.starts_with("do not") || w.starts_with("don't")
                                    || w.starts_with("never") || w.starts_with("on no")
                                    || w.starts_with("you ")
                            })
                        })
            });
            let mine = turn.map_or(&toks[..], |k| &toks[..k]);
            // Its places are still places of the order (`places`), just no objectives.
            let mut sink = Vec::new();
            for t in mine {
                if !matches!(t, Tok::Recipient { .. }) {
                    collect_refs(t, &mut sink, &mut d.refs);
                }
            }
            let upto = turn.map_or(abs.1, |k| toks[k].span().0);
            let mine = Remark {
                text: nfc(text[abs.0..upto].trim()),
                span: (abs.0, upto),
            };
            // Beside an order the writer's intention is kept like a report, with no warning.
            if turn.is_some() {
                d.courtesies.push(mine);
            } else {
                d.remarks.push(mine);
            }
            if let Some(k) = turn {
                d.rules.push("lead.sender-turn");
                sentence(text, &toks[k + 1..], si, abs, last_sentence, &mut d);
            }
            continue;
        }
        sentence(text, &toks, si, abs, last_sentence, &mut d);
    }
    if d.steps.is_empty() && d.prohibitions.is_empty() {
        // Explain the first sentence that has a body.
        for (s0, s1) in &sentences {
            let abs = (span.0 + s0, span.0 + s1);
            if abs.1 - abs.0 > source::MAX_SENTENCE || abs.0 + (abs.1 - abs.0) < d.body_start {
                continue;
            }
            d.unreadable = Some(lower::explain(&text[abs.0..abs.1], abs.0));
            break;
        }
        if d.unreadable.is_none() {
            d.unreadable = Some(Unreadable {
                pos: span.0,
                expected: vec!["an action such as march, attack or defend".into()],
            });
        }
    }
    share_objectives(&mut d.steps);
    d
}

/// Rule `lead.whereabouts`: "Headquarters will be at Frenada tomorrow", "The Archduke will place
/// himself at Deutsch-Wagram" — the high command or its headquarters, in the third person, and
/// "be (found) at" or "place / establish himself": where the chief will be, news for the
/// recipient, never a stage of the order ("Army HQ is to move to 38.12" still moves it).
fn whereabouts(text: &str, toks: &[Tok]) -> bool {
    const CHIEFS: [&str; 14] = [
        "headquarters",
        "head-quarters",
        "head quarters",
        "hq",
        "the emperor",
        "the archduke",
        "the king",
        "the field marshal",
        "the marshal",
        "the commander of the forces",
        "the commander in chief",
        "the commander-in-chief",
        "his majesty",
        "his lordship",
    ];
    let mut it = toks
        .iter()
        .skip_while(|t| matches!(t, Tok::Header(_) | Tok::Courtesy(_)));
    let (Some(Tok::Recipient { who: Some(w), .. }), Some(Tok::Verb { verb, .. })) =
        (it.next(), it.next())
    else {
        return false;
    };
    let who = words(&w.phrase.lower());
    // 6.3.5: an army or corps commander moves without orders, so "X will place himself at"
    // is where he will be, whoever X is.
    let reflexive = matches!(verb.as_str(), "place" | "establish" | "post")
        && matches!(it.next(), Some(Tok::Place(p))
            if text[p.span.0..p.span.1].eq_ignore_ascii_case("himself"));
    reflexive
        || CHIEFS.contains(&who.as_str()) && matches!(verb.as_str(), "be at" | "be" | "be found at")
}

/// The rules over one sentence's tokens, in order: the lexicon, the scenario's names, the
/// edges of names, the leads and the verb rules. Each rule that changed something is noted.
fn token_rules(
    text: &str,
    abs: Span,
    stext: &str,
    index: Option<&super::resolve::Index<'_>>,
    d: &mut Draft,
) -> Vec<Tok> {
    let toks = lexicon::rewrite(text, abs, lower::sentence(stext, abs.0));
    let keep = |t: &str| {
        super::resolve::looks_like_troops(t) || index.is_some_and(|ix| ix.is_exact_name(t))
    };
    let mut fired = false;
    let toks = match index {
        Some(ix) => names::scenario(text, abs, toks, &ix.phrases, &keep, &mut fired),
        None => toks,
    };
    if fired {
        d.rules.push("name.scenario");
    }
    let mut fired = false;
    let toks = names::edges(text, toks, &keep, &mut fired);
    if fired {
        d.rules.push("name.edges");
    }
    let mut fired = false;
    let toks = names::terrain_head(text, toks, &mut fired);
    if fired {
        d.rules.push("name.terrain-head");
    }
    let mut fired = false;
    let toks = match index {
        Some(_) => toks,
        None => names::features(text, toks, &mut fired),
    };
    if fired {
        d.rules.push("name.feature");
    }
    let toks = letter_forms(text, toks, index.is_none(), &mut d.rules);
    let toks = verb_not_recipient(text, toks, &mut d.rules);
    let toks = subjects::commanding_lead(text, toks, &mut d.rules);
    let toks = subjects::passed_on(text, toks, d.last_person.as_ref(), &mut d.rules);
    let toks = subjects::bid_imperative(text, toks, &mut d.rules);
    let toks = subjects::wish_list(text, toks, &mut d.rules);
    let toks = subjects::send_to(text, toks, &mut d.rules);
    d.last_person = person_named(text, &toks);
    let toks = passive_second_agent(text, toks, &mut d.also, &mut d.rules);
    let toks = everything_subject(text, toks, &mut d.rules);
    let n = toks.len();
    let toks = passive(text, toks);
    let first = |t: &[Tok]| t.first().map(Tok::span);
    if toks.len() != n
        || toks
            .iter()
            .any(|t| matches!(t, Tok::Recipient { span, .. } if span.0 == span.1))
    {
        d.rules.push("lead.passive");
    }
    if toks
        .iter()
        .filter(|t| matches!(t, Tok::Recipient { span, .. } if span.0 == span.1))
        .count()
        > 1
    {
        d.rules.push("lead.passive-gap");
    }
    let before = first(&toks);
    let toks = sender_to(text, toks, &mut d.rules);
    let toks = compliments(text, toks);
    if first(&toks) != before {
        d.rules.push("lead.compliments");
    }
    let toks = by_clock(text, toks, &mut d.rules);
    let toks = in_minutes(text, toks, &mut d.rules);
    let toks = time_offset(text, toks, &mut d.rules);
    let toks = paces(text, toks, &mut d.rules);
    let toks = from_short(text, toks, &mut d.rules);
    let toks = before_clause(text, toks, &mut d.rules);
    let toks = before_place(text, toks, &mut d.rules);
    let toks = split_object(text, toks, &mut d.rules);
    let toks = in_support_of(text, toks, &mut d.rules);
    let toks = round_route(text, toks, &mut d.rules);
    let toks = relative_negation(text, toks, &mut d.rules);
    let toks = nor_clause(text, toks, &mut d.rules);
    let toks = no_noun(text, toks, &mut d.rules);
    let toks = report_duty(text, toks, &mut d.rules);
    let toks = relative_object(text, toks, &mut d.rules);
    let toks = day_word(text, toks, &mut d.rules);
    let toks = should_name(text, toks, &mut d.rules);
    let toks = then_place(toks, &mut d.rules);
    let toks = observe_orders(text, toks, &mut d.rules);
    let toks = participle_description(text, toks, &mut d.rules);
    let toks = passive_pronoun(text, toks, &mut d.rules);
    let toks = passive_own(text, toks, &mut d.rules);
    let toks = super::registers::apply(text, toks, &mut d.rules);
    let n = toks.len();
    let toks = third_person(text, toks);
    if toks.len() != n {
        d.rules.push("lead.third-person");
        if toks.iter().any(|t| matches!(t, Tok::Stands(..))) {
            d.rules.push("lead.subject-where");
        }
    }
    let toks = object_noun(text, toks, index, &mut d.rules);
    let toks = demonstrative(text, toks, &mut d.rules);
    let toks = possessed_noun(text, toks, &mut d.rules);
    let toks = bring_troops(text, toks, index, &mut d.rules);
    let toks = take_position(text, toks, &mut d.rules);
    let toks = follow_own(text, toks, &mut d.rules);
    let toks = ready_to(text, toks, &mut d.rules);
    let toks = action_noun(text, toks, &mut d.rules);
    let toks = participle_manner(text, toks, &mut d.rules);
    let had = d.attached.len();
    let toks = division_members(text, toks, &mut d.attached);
    if d.attached.len() != had {
        d.rules.push("division.members");
    }
    let had = d.also.len();
    let toks = several_recipients(text, toks, &mut d.also);
    if d.also.len() != had {
        d.rules.push("lead.several");
        if d.also[had..]
            .iter()
            .any(|r| text.get(r.span.0..r.span.1) != Some(r.text.as_str()))
        {
            d.rules.push("lead.elided");
        }
    }
    let toks = vocative(text, toks, &mut d.rules);
    let toks = directed_by(text, toks, &mut d.rules);
    let n = toks.len();
    let toks = colon_lead(text, toks);
    if toks.len() != n {
        d.rules.push("lead.colon");
    }
    let had = d.also.len();
    let toks = split_recipient(text, toks, index, &mut d.also);
    if d.also.len() != had {
        d.rules.push("lead.several");
    }
    let toks = subjects::having_clause(text, toks, &mut d.rules);
    let toks = subjects::bare_lead(text, toks, index, &mut d.rules);
    let toks = subjects::clause_subjects(text, toks, index, &mut d.rules);
    let toks = subjects::supported_by(text, toks, index, &mut d.rules);
    let toks = super::registers::followed_by(text, toks, &mut d.rules);
    let toks = subjects::in_reserve(text, toks, &mut d.rules);
    let toks = work_then(text, toks, &mut d.rules);
    passive_negation(text, toks)
}

/// Rule `verb.work-then`: "The officer commanding at Castello Branco will destroy the bridge
/// and will then retire to Sarzedas" — a task of the lexicon that moves nobody ("destroy",
/// "burn", "blow up"), the recipient's first action, with "then" and another action after it,
/// is a stage of its own: the command stays where it is until the work is done (halt, 6.3.2),
/// then goes on. Elsewhere such a task is kept with its stage (`clause.report-duty`).
fn work_then(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    const WORK: [&str; 4] = ["destroy", "burn", "blow up", "break down"];
    let Some(r) = toks.iter().position(|t| matches!(t, Tok::Recipient { .. })) else {
        return toks;
    };
    let mut k = r + 1;
    while matches!(toks.get(k), Some(Tok::Stands(..))) {
        k += 1;
    }
    let Some(Tok::Filler(f)) = toks.get(k) else {
        return toks;
    };
    let f = *f;
    let verb = words(&text[f.0..f.1].lower());
    if !WORK.contains(&verb.as_str()) {
        return toks;
    }
    let then = toks[k + 1..].iter().enumerate().any(|(j, t)| {
        matches!(t, Tok::Connector(c, _) if c == "then" || c == "and then")
            && matches!(toks.get(k + 2 + j), Some(Tok::Verb { .. }))
    });
    if !then
        || toks[k + 1..]
            .iter()
            .any(|t| matches!(t, Tok::Recipient { .. }))
    {
        return toks;
    }
    toks[k] = Tok::Verb {
        action: Action::Halt,
        verb,
        span: f,
    };
    rules.push("verb.work-then");
    toks
}

/// The man a sentence names first, for a "him" in the next (rule `pronoun.recipient`): its
/// recipient, or a name with a title opening it ("General Alten is at Espeja").
fn person_named(text: &str, toks: &[Tok]) -> Option<Target> {
    let first = toks
        .iter()
        .find(|t| !matches!(t, Tok::Header(_) | Tok::Courtesy(_)))?;
    let who = match first {
        Tok::Recipient { who: Some(w), .. } if w.form != Form::Pronoun => w,
        Tok::Place(w) if w.form == Form::Name => w,
        _ => return None,
    };
    let s = who.span;
    let head = crate::text::fold(text[s.0..s.1].split(' ').next().unwrap_or(""));
    let lex = lexicon::get();
    (lex.is_title(&head) || matches!(first, Tok::Recipient { .. }) && lex.is_person(&who.text))
        .then(|| who.clone())
}

/// The tags `check --explain` shows, one per token.
fn push_tags(text: &str, toks: &[Tok], d: &mut Draft) {
    for t in toks {
        let sp = t.span();
        let shown = match t {
            // A recipient moved by a rule (a passive's agent) shows its own words.
            Tok::Recipient { who: Some(w), .. } if sp.0 == sp.1 => w.phrase.clone(),
            _ => nfc(&text[sp.0..sp.1]),
        };
        d.tags.push(Tag {
            tag: lower::tag(t),
            text: shown,
            span: sp,
        });
    }
}

#[allow(clippy::too_many_lines)]
fn sentence(text: &str, toks: &[Tok], si: usize, abs: Span, last: bool, d: &mut Draft) {
    let has_verb = toks.iter().any(|t| matches!(t, Tok::Verb { .. }));
    // A sentence with no action, made only of names: a signature when it ends the order.
    if !has_verb && last && si > 0 {
        let names_only = toks.iter().all(|t| {
            matches!(
                t,
                Tok::Place(_) | Tok::Punct(_) | Tok::Connector(_, _) | Tok::Courtesy(_)
            )
        });
        let short = abs.1 - abs.0 <= 60;
        if names_only && short && toks.iter().any(|t| matches!(t, Tok::Place(_))) {
            d.courtesies.push(Remark {
                text: nfc(&text[abs.0..abs.1]),
                span: abs,
            });
            return;
        }
    }
    let mut r = Reading {
        text,
        si,
        pending: Pending::default(),
        mode: Mode::Normal,
        prep: None,
        link_hint: None,
        conn: None,
        filler: None,
        finite_seen: false,
        first_step_here: None,
        prev_place: None,
        word_conn: false,
        negate: false,
        negate_verb: false,
        negate_alt: false,
        negate_to: false,
        negate_avoid: false,
        absorbed: 0,
        passive_tail: None,
        after_conn: false,
        after_and: false,
        verb_next: false,
    };
    let reports = report_clauses(text, toks, !d.steps.is_empty());
    let mut prev: Option<&Tok> = None;
    for (i, tok) in toks.iter().enumerate() {
        let conn = |c: &str| matches!(c, "," | "and" | "but" | "—" | "–");
        r.after_conn = matches!(prev, Some(Tok::Connector(c, _)) if conn(c));
        r.after_and = matches!(prev, Some(Tok::Connector(c, _)) if c == "and" || c == "but");
        prev = Some(tok);
        r.verb_next = match toks.get(i + 1) {
            Some(Tok::Verb { .. }) => true,
            Some(Tok::Filler(s)) => lexicon::get().is_verb_word(&text[s.0..s.1].lower()),
            _ => false,
        };
        // Rule `clause.report`: a report after the action ("take Hall; it is good enough",
        // "the bridge is broken") gives the recipient nothing to do: kept with the courtesies
        // (no command), its places still places of the order.
        if let Some(&(a, b)) = reports.iter().find(|(a, b)| (*a..*b).contains(&i)) {
            if i == a && matches!(r.mode, Mode::Normal) {
                r.flush(d);
                let sp = (toks[a].span().0, toks[b - 1].span().1);
                let (span, t) = trimmed(text, sp, &[',', ';', '.', '!', '?']);
                d.courtesies.push(Remark { text: nfc(t), span });
                d.rules.push("clause.report");
            }
            if matches!(r.mode, Mode::Normal) {
                let mut sink = Vec::new();
                collect_refs(tok, &mut sink, &mut d.refs);
                continue;
            }
        }
        if r.in_mode(tok, d) || r.negation(tok, d) {
            continue;
        }
        r.token(tok, d);
    }
    r.finish(abs, d);
}

/// Rule `clause.report`: the token ranges of report clauses after an action — after `;`, `,` or
/// "but" following a verb of this sentence (or a whole sentence after an order's first step):
/// one noun phrase, then "is", "are", "was", "were" not followed by "to" ("it is good enough",
/// "the bridge is broken", "the enemy is weak there"). A report runs to the next `;`, action,
/// condition, purpose or negator.
fn report_clauses(text: &str, toks: &[Tok], after_step: bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut verb_seen = false;
    let be = |t: &Tok| {
        matches!(t, Tok::Filler(s)
            if matches!(text[s.0..s.1].lower().as_ref(), "is" | "are" | "was" | "were"))
    };
    let mut k = 0;
    if let Some(end) = enemy_present(toks) {
        out.push((0, end));
        k = end;
    }
    while k < toks.len() {
        let opens = match &toks[k] {
            Tok::Connector(c, _) => verb_seen && matches!(c.as_str(), ";" | "," | "but"),
            _ => false,
        };
        let sentence_start = k == 0 && after_step;
        if matches!(toks[k], Tok::Verb { .. }) {
            verb_seen = true;
        }
        let from = if sentence_start { k } else { k + 1 };
        // "it is", "they are": a pronoun and its verb read as one word.
        let pronoun_be = |t: &Tok| {
            matches!(t, Tok::Filler(s) if {
                let w = text[s.0..s.1].lower();
                let ws: Vec<&str> = w.split_whitespace().collect();
                matches!(ws.as_slice(), [p, b]
                    if matches!(*p, "it" | "they" | "this" | "that" | "there")
                        && matches!(*b, "is" | "are" | "was" | "were"))
            })
        };
        let subject = if toks.get(from).is_some_and(pronoun_be) {
            Some(from + 1)
        } else if matches!(toks.get(from), Some(Tok::Place(_)))
            && toks.get(from + 1).is_some_and(be)
        {
            Some(from + 2)
        } else {
            None
        };
        if (opens || sentence_start)
            && let Some(after) = subject
            && !matches!(toks.get(after), Some(Tok::DestPrep(p, _)) if p == "to")
        {
            let mut end = after;
            // A verb inside the report is a noun ("it is a strong post"); an action follows
            // a connector ("…, and push on to Hall").
            let action_at = |e: usize| {
                matches!(toks[e], Tok::Verb { .. })
                    && matches!(toks.get(e.wrapping_sub(1)), Some(Tok::Connector(..)))
            };
            while end < toks.len()
                && !action_at(end)
                && !matches!(
                    &toks[end],
                    Tok::CondStart(..) | Tok::Purpose(_) | Tok::Negate(_) | Tok::Recipient { .. }
                )
                && !matches!(&toks[end], Tok::Connector(c, _) if c == ";")
            {
                end += 1;
            }
            // A sentence that is only the report: its closing punctuation belongs to it.
            out.push((from, end));
            k = end;
            continue;
        }
        k += 1;
    }
    out
}

/// Rule `clause.report-present`: "The enemy occupies Hall with two battalions and holds the
/// bridge." — a sentence that opens with the enemy's or a nation's troops and a verb in its
/// third-person form tells what they do: a report, never an action of the recipient (the
/// counterpart of `lead.disposition` for own troops). It runs, over more verbs of the same
/// form joined to it, to the next `;` or a verb in its base form ("…; attack him at once").
/// Where it ends, if the sentence opens so.
fn enemy_present(toks: &[Tok]) -> Option<usize> {
    let third_person =
        |t: &Tok| matches!(t, Tok::Verb { verb, .. } if lexicon::base_form(verb) != verb.as_str());
    let Some(Tok::Place(who)) = toks.first() else {
        return None;
    };
    let hostile =
        super::resolve::looks_like_troops(&who.text) && subjects::names_a_side(&who.text, false);
    if !hostile || !toks.get(1).is_some_and(third_person) {
        return None;
    }
    let end = toks
        .iter()
        .enumerate()
        .skip(2)
        .find(|(_, t)| {
            matches!(t, Tok::Connector(c, _) if c == ";")
                || matches!(t, Tok::Verb { .. }) && !third_person(t)
                || matches!(t, Tok::Negate(_) | Tok::Recipient { .. })
        })
        .map_or(toks.len(), |(e, _)| e);
    Some(end)
}

/// What reading one sentence carries from token to token: modifiers waiting for their action,
/// the condition, purpose or prohibition being read, the last preposition, connector and place.
/// `sentence` feeds it the tokens; each method below reads one family of them.
struct Reading<'t> {
    text: &'t str,
    /// The sentence's index in the order.
    si: usize,
    pending: Pending,
    mode: Mode,
    prep: Option<(Prep, String)>,
    link_hint: Option<Link>,
    conn: Option<String>,
    filler: Option<Span>,
    /// An auxiliary ("is", "are") before any action: the clause may be a report.
    finite_seen: bool,
    first_step_here: Option<usize>,
    /// The last place: (index into the step's objectives or forces, is a force).
    prev_place: Option<(usize, bool)>,
    /// A word connector ("and", "or", "then") since the last item.
    word_conn: bool,
    negate: bool,
    /// The negator must be followed by a verb ("do not", "never"; not a bare "not").
    negate_verb: bool,
    /// A bare "not" / "not to" right after a connector: it may exclude an alternative place
    /// (rule `neg.alternative`); `negate_to` when it was "not to".
    negate_alt: bool,
    negate_to: bool,
    /// After "avoid", "refrain from": the next item is what is forbidden (rule `neg.avoid`).
    negate_avoid: bool,
    /// The token before this one was a connector ",", "and", "but" (`after_and`: a word one).
    after_conn: bool,
    after_and: bool,
    /// The token after this one is a verb ("do not wait"; not "I do not think").
    verb_next: bool,
    /// The end of a negator that took its object in (rule `neg.passive`).
    absorbed: usize,
    /// The prohibition a passive negator just made, its text and where its tail starts: the
    /// places and times after the participle extend it ("no carts are to be allowed upon the
    /// high road").
    passive_tail: Option<(usize, String, usize)>,
}

impl Reading<'_> {
    /// Words gathered as filler become one remark.
    fn flush(&mut self, d: &mut Draft) {
        if let Some(s) = self.filler.take() {
            let (span, t) = trimmed(self.text, s, &[',', ';']);
            if !t.is_empty() {
                d.remarks.push(Remark { text: nfc(t), span });
            }
        }
    }

    /// Condition, purpose and prohibition modes absorb what follows them; true when the token
    /// was absorbed.
    fn in_mode(&mut self, tok: &Tok, d: &mut Draft) -> bool {
        let text = self.text;
        let flags = (self.after_conn, self.verb_next, self.after_and);
        match &mut self.mode {
            Mode::Cond {
                kind,
                start,
                end,
                refs,
                predicate,
                after_subject,
                modal,
                leading,
            } => {
                let ends = match tok {
                    // "should the enemy advance, …": a verb right after the condition's
                    // subject is the condition's own verb.
                    Tok::Verb { .. } => !*modal && (*predicate || !*after_subject),
                    Tok::Purpose(_) | Tok::CondStart(..) | Tok::IfPossible(_) => true,
                    // "When these troops shall march, the 3rd army must move": a new subject
                    // read as a lead ends the condition.
                    Tok::Recipient { .. } => *predicate,
                    // "…, and are not to pursue", "on no account": a prohibition to the
                    // recipient ends the condition ("if the enemy does not come" does not).
                    // "as soon as it has crossed, and not wait", "if I cannot, do not wait": once
                    // the condition has its verb, "do not" or "and not" turns to the recipient.
                    Tok::Negate(s) => negator_ends_condition(&text[s.0..s.1], *predicate, flags),
                    Tok::Connector(c, _) => {
                        matches!(c.as_str(), "then" | "and then" | "afterwards" | ";")
                    }
                    _ => false,
                };
                if !ends {
                    if !matches!(tok, Tok::Connector(..) | Tok::Punct(_)) {
                        *end = tok.span().1;
                    }
                    // Rule `cond.modal`: "until the enemy can reinforce Hall", "if the French
                    // should advance" — a modal after the condition's subject leaves its verb to
                    // come, and that verb is the condition's own, not the recipient's action.
                    // Rule `cond.attempt-to`: "should the enemy attempt to pass the river" —
                    // a verb of trying and "to" leave the verb to come too.
                    if *after_subject
                        && let Tok::Filler(s) = tok
                        && (is_modal(&text[s.0..s.1])
                            || trying(&text[s.0..s.1])
                                && text[s.1..]
                                    .trim_start()
                                    .as_bytes()
                                    .get(..3)
                                    .is_some_and(|w| w.eq_ignore_ascii_case(b"to ")))
                    {
                        if !is_modal(&text[s.0..s.1]) {
                            d.rules.push("cond.attempt-to");
                        }
                        d.rules.push("cond.modal");
                        *modal = true;
                        *predicate = true;
                        *after_subject = false;
                        return true;
                    }
                    if matches!(tok, Tok::Verb { .. } | Tok::Participle { .. }) {
                        *modal = false;
                    }
                    // "if I cannot": a subject and a modal with its verb left out is a whole
                    // condition; what follows turns to the recipient.
                    if let Tok::Filler(s) = tok
                        && text[s.0..s.1].split_whitespace().last().is_some_and(|w| {
                            let w = w.lower();
                            w == "cannot" || w == "can't" || w == "not" && *after_subject
                        })
                    {
                        *predicate = true;
                    }
                    if *after_subject && matches!(tok, Tok::Filler(_) | Tok::Verb { .. }) {
                        *predicate = true;
                    }
                    // "should he attack the village", "if they advance", "as they advance": a
                    // pronoun is the condition's subject too, and the verb after it the
                    // condition's own.
                    // Only opening the condition: "when the troops cross at X they must march"
                    // has its subject already, and "they" begins the recipient's clause.
                    let opening = !*predicate && refs.is_empty();
                    *after_subject = matches!(tok, Tok::Place(_))
                        || opening
                            && matches!(tok, Tok::Filler(s) if matches!(
                                text[s.0..s.1].lower().as_ref(),
                                "he" | "they" | "we" | "it" | "she"
                            ));
                    collect_refs(tok, refs, &mut d.refs);
                    return true;
                }
                let cond = make_condition(text, kind, *start, *end, std::mem::take(refs));
                let here = if *leading { None } else { self.first_step_here };
                attach_condition(cond, d, here, &mut self.pending);
                self.mode = Mode::Normal;
                if let Tok::Connector(c, _) = tok {
                    if c != ";" {
                        self.link_hint = Some(Link::Then);
                    }
                    return true;
                }
            }
            Mode::Purpose {
                end,
                engage,
                alternatives,
                ..
            } => {
                *end = tok.span().1;
                match tok {
                    // Decision 0203: "in order to meet the French column coming by Ventosa" is
                    // why the command takes its position (to receive them there), no attack.
                    Tok::Verb { verb, .. } if verb == "meet" => {}
                    // "with the object of falling on the English left": an -ing form counts.
                    Tok::Verb { action, .. } | Tok::Participle { action, .. }
                        if action.posture() == Posture::Engage =>
                    {
                        *engage = true
                    }
                    Tok::Connector(c, _) if c == "or" || c == "either" => *alternatives = true,
                    _ => {}
                }
                let mut sink = Vec::new();
                collect_refs(tok, &mut sink, &mut d.refs);
                return true;
            }
            Mode::Prohibit {
                start,
                end,
                joined,
                prefix,
                avoid,
            } => {
                let ends = match tok {
                    Tok::Connector(c, _) if c == ";" || c == "but" => true,
                    Tok::Connector(c, _) => {
                        *joined = c == "and" || c == "," || c == "then" || c == "and then";
                        false
                    }
                    // "you are not to engage until the infantry has crossed": how long the
                    // prohibition lasts is part of it (rule `neg.prohibition`).
                    Tok::CondStart(k, _) if k == "until" || k == "till" || k == "before" => {
                        d.rules.push("neg.until");
                        false
                    }
                    // Rule `neg.unless`: "do not charge unless the infantry is broken" — the
                    // exception is part of what is forbidden (a conditional permission), kept and
                    // read back with it, never a condition waiting for a stage.
                    Tok::CondStart(k, _) if k.eq_ignore_ascii_case("unless") => {
                        d.rules.push("neg.unless");
                        false
                    }
                    // "…, and are not to destroy the bridge": a new negator starts a
                    // prohibition of its own.
                    Tok::CondStart(..) | Tok::Purpose(_) | Tok::Negate(_) => true,
                    Tok::Verb { .. } => *joined,
                    _ => false,
                };
                if !ends {
                    if !matches!(tok, Tok::Connector(..) | Tok::Punct(_)) {
                        *end = tok.span().1;
                        *joined = false;
                    }
                    let mut sink = Vec::new();
                    collect_refs(tok, &mut sink, &mut d.refs);
                    return true;
                }
                prohibit(text, (*start, *end), prefix.take(), *avoid, d);
                self.mode = Mode::Normal;
                self.condition_of_prohibition(d);
            }
            Mode::Normal => {}
        }
        false
    }

    /// Start the prohibition a negator asked for over `span` (rule `neg.prohibition`);
    /// `prefix` is the step's verb it forbids elsewhere, `avoid` reads it back as "avoid …".
    /// Rule `neg.condition`: "if I cannot, do not wait for me" — a condition still waiting for
    /// its action when a prohibition is read governs the prohibition (a copy: an action after
    /// it, "do not engage but fall back", keeps it too).
    fn condition_of_prohibition(&mut self, d: &mut Draft) {
        if let (Some(c), Some(p)) = (&self.pending.condition, d.prohibitions.last_mut())
            && p.condition.is_none()
            && c.span.1 <= p.span.0
        {
            p.condition = Some(c.text.clone());
            d.rules.push("neg.condition");
        }
    }

    fn forbid(&mut self, span: Span, prefix: Option<String>, avoid: bool) {
        self.mode = Mode::Prohibit {
            start: span.0,
            end: span.1,
            joined: false,
            prefix,
            avoid,
        };
    }

    /// Rules `neg.passive` and `neg.no-noun` (an action noun with its object): prohibitions
    /// read whole from one token; true when the token was read.
    fn passive_negation(&mut self, tok: &Tok, d: &mut Draft) -> bool {
        let text = self.text;
        if let Tok::Negate(s) = tok
            && let Some((lemma, object)) = passive_forbidden(&text[s.0..s.1])
        {
            // Rule `neg.passive`: "…, and the guns are not to be withdrawn" forbids
            // withdrawing the guns; the guns are no objective of the step before.
            self.flush(d);
            self.negate = false;
            d.rules.push("neg.passive");
            d.rules.push("neg.prohibition");
            // "The baggage is …" opening the sentence: the article is not a name's.
            let object = words(object);
            let object = match object.strip_prefix("The ") {
                Some(rest) => format!("the {rest}"),
                None => object,
            };
            let base = nfc(&format!("{lemma} {object}"));
            d.prohibitions.push(Prohibition {
                text: base.clone(),
                span: *s,
                avoid: false,
                condition: None,
            });
            self.passive_tail = Some((d.prohibitions.len() - 1, base, s.1));
            self.condition_of_prohibition(d);
            self.absorbed = s.1;
            return true;
        }
        let place_like = matches!(
            tok,
            Tok::Place(_) | Tok::Relation { .. } | Tok::RoutePrep(..) | Tok::DestPrep(..)
        );
        // The object of that prohibition, after it: its places are places of the order.
        if place_like && tok.span().1 <= self.absorbed {
            let mut sink = Vec::new();
            collect_refs(tok, &mut sink, &mut d.refs);
            return true;
        }
        // Where and when, after the participle, belong to what is forbidden ("… allowed upon
        // the high road"), never to the step before.
        if let Some((i, base, from)) = &self.passive_tail {
            if (place_like
                || matches!(
                    tok,
                    Tok::Timing { .. } | Tok::Direction { .. } | Tok::Compass(..)
                ))
                && let Some(p) = d.prohibitions.get_mut(*i)
            {
                let end = tok.span().1;
                p.text = nfc(&format!("{base} {}", words(&text[*from..end])));
                p.span.1 = end;
                let mut sink = Vec::new();
                collect_refs(tok, &mut sink, &mut d.refs);
                return true;
            }
            // "… is by no means to be destroyed before the 3rd Division has passed": how long
            // it is forbidden is part of it (rule `neg.until`), read on as a prohibition.
            if let Tok::CondStart(k, s) = tok
                && matches!(k.lower().as_ref(), "until" | "till" | "before" | "unless")
                && *i + 1 == d.prohibitions.len()
                && let Some(p) = d.prohibitions.pop()
            {
                self.passive_tail = None;
                d.rules.push(if k.eq_ignore_ascii_case("unless") {
                    "neg.unless"
                } else {
                    "neg.until"
                });
                self.mode = Mode::Prohibit {
                    start: s.0,
                    end: s.1,
                    joined: false,
                    prefix: Some(p.text),
                    avoid: false,
                };
                return true;
            }
            self.passive_tail = None;
        }
        // "no passage of the Tagus is to be attempted": the action noun read with its object
        // (rule `name.action-noun`) is what is forbidden, its place still a place.
        if let Tok::Relation { rel, span, .. } = tok
            && self.negate
            && !self.negate_verb
            && rel
                .split(' ')
                .next()
                .is_some_and(|w| lexicon::get().is_action_noun(w))
        {
            self.negate = false;
            let mut sink = Vec::new();
            collect_refs(tok, &mut sink, &mut d.refs);
            d.rules.push("neg.no-noun");
            d.rules.push("neg.prohibition");
            self.forbid(*span, None, true);
            return true;
        }
        false
    }

    /// A negator and the verb it forbids (rule `neg.prohibition`); true when the token was read.
    fn negation(&mut self, tok: &Tok, d: &mut Draft) -> bool {
        let text = self.text;
        // "the ground is not good; hold Kümla": a negator with no verb before the clause ends
        // forbids nothing after it.
        if self.negate && matches!(tok, Tok::Connector(c, _) if c == ";" || c == "but") {
            self.negate = false;
        }
        // "not allow the enemy to pass": a verb that is no stage is still what is forbidden.
        let verb_word = matches!(tok, Tok::Filler(s)
            if lexicon::get().is_verb_word(&text[s.0..s.1].lower()));
        // Rule `neg.no-noun`: "no movement is to be attempted" — after "no", an action noun (a
        // word, see `no_noun`) is what is forbidden, as a verb would be.
        // It reads back as "avoid movement before dawn" (a noun, as after "avoid").
        let action_noun = !verb_word
            && self.negate
            && !self.negate_verb
            && matches!(tok, Tok::Filler(s)
                if lexicon::get().is_action_noun(&text[s.0..s.1].lower()));
        let verb_word = verb_word || action_noun;
        // "do not enter Hall", "do not attempt the village", "do not let the hussars across": a
        // lower-case word right after a negator is the verb it forbids even when the lexicon
        // does not know it (it is then neither a remark nor a place).
        let bare = match tok {
            Tok::Filler(s) => Some(*s).filter(|s| bare_verb(&text[s.0..s.1])),
            Tok::Place(t)
                if t.form == Form::Name
                    && t.parts.is_empty()
                    && t.phrase_span == t.span
                    && bare_verb(&text[t.span.0..t.span.1]) =>
            {
                Some(t.span)
            }
            _ => None,
        };
        if self.passive_negation(tok, d) {
            return true;
        }
        if let Tok::Negate(s) = tok {
            self.flush(d);
            let w = words(&text[s.0..s.1].lower());
            // Rule `neg.avoid`: "without engaging the enemy" holds its verb; "avoid a general
            // action", "refrain from attacking" forbid what follows, whatever it is.
            if lexicon::get().is_avoid_negator(&w) {
                d.rules.push("neg.avoid");
                d.rules.push("neg.prohibition");
                let last = w.rsplit(' ').next().unwrap_or("");
                if w.contains(' ') && last.ends_with("ing") {
                    self.forbid((s.1 - last.len(), s.1), None, true);
                } else {
                    self.negate_avoid = true;
                }
                return true;
            }
            self.negate = true;
            self.negate_verb = !matches!(w.as_str(), "not" | "no");
            self.negate_alt = self.after_conn && matches!(w.as_str(), "not" | "not to");
            self.negate_to = w == "not to";
            return true;
        }
        if self.negate_avoid && !matches!(tok, Tok::Punct(_) | Tok::Connector(..)) {
            self.negate_avoid = false;
            let mut sink = Vec::new();
            collect_refs(tok, &mut sink, &mut d.refs);
            let sp = tok.span();
            self.forbid(sp, None, true);
            return true;
        }
        // Rule `neg.alternative`: "march to Kümla, not to Hall", "attack Hall and not Kümla" —
        // a negated place after the step excludes it (what the step is not to do there); it is
        // never a second objective.
        let place_like = matches!(
            tok,
            Tok::Place(_)
                | Tok::Relation { .. }
                | Tok::DestPrep(..)
                | Tok::RoutePrep(..)
                | Tok::Direction { .. }
        );
        if self.negate
            && self.negate_alt
            && place_like
            && !bare.is_some_and(|_| self.negate_verb)
            && self.first_step_here.is_some()
        {
            self.negate = false;
            self.negate_alt = false;
            let st = &d.steps[d.steps.len() - 1].step;
            let mut prefix = st.verb.clone();
            if self.negate_to {
                prefix.push_str(" to");
            }
            let mut sink = Vec::new();
            collect_refs(tok, &mut sink, &mut d.refs);
            let sp = tok.span();
            d.rules.push("neg.alternative");
            d.rules.push("neg.prohibition");
            self.forbid(sp, Some(prefix), false);
            return true;
        }
        if self.negate
            && self.negate_verb
            && let Some(span) = bare.filter(|_| !verb_word)
        {
            self.negate = false;
            d.rules.push("neg.verb-word");
            d.rules.push("neg.prohibition");
            self.forbid(span, None, false);
            return true;
        }
        // Rule `neg.avoid`: "no crossing", "no firing": "no" and an -ing form forbid it.
        if let (true, Tok::Participle { span, .. }) = (self.negate, tok)
            && !self.negate_verb
            && text[span.0..span.1].lower().ends_with("ing")
        {
            self.negate = false;
            d.rules.push("neg.avoid");
            d.rules.push("neg.prohibition");
            self.forbid(*span, None, true);
            return true;
        }
        if let (true, Tok::Verb { span, .. } | Tok::Filler(span)) = (self.negate, tok)
            && (verb_word || matches!(tok, Tok::Verb { .. }))
        {
            self.negate = false;
            if verb_word && !action_noun {
                d.rules.push("neg.verb-word");
            }
            d.rules.push("neg.prohibition");
            self.forbid(*span, None, action_noun);
            return true;
        }
        false
    }

    /// Every other token: its own rule, then what the next token may join to.
    fn token(&mut self, tok: &Tok, d: &mut Draft) {
        let word_conn_before = self.word_conn;
        if !matches!(tok, Tok::Connector(..) | Tok::Punct(_) | Tok::CondStart(..)) {
            self.word_conn = false;
        }
        if !matches!(tok, Tok::Filler(_)) && !matches!(tok, Tok::Punct(_)) {
            self.flush(d);
        }
        let cur = self.first_step_here.map(|_| d.steps.len() - 1);
        // Whether the connector and last-place bookkeeping below applies (not after a new step or
        // a place still waiting for its action).
        let settle = match tok {
            Tok::Verb { .. } => self.verb(tok, cur, d),
            Tok::Place(_) | Tok::Relation { .. } => self.place(tok, cur, d),
            Tok::Connector(c, _) => {
                self.connector(c, d);
                true
            }
            Tok::Header(_)
            | Tok::Courtesy(_)
            | Tok::TypeLabel(..)
            | Tok::Preset { .. }
            | Tok::Addressee(_)
            | Tok::Recipient { .. }
            | Tok::Stands(..)
            | Tok::Independent(_) => {
                self.lead(tok, d);
                true
            }
            Tok::Manner(..)
            | Tok::Timing { .. }
            | Tok::IfPossible(_)
            | Tok::CondStart(..)
            | Tok::Purpose(_)
            | Tok::Facing(..)
            | Tok::Threat(..)
            | Tok::Direction { .. }
            | Tok::Attached(..)
            | Tok::With(..) => {
                self.modifier(tok, cur, word_conn_before, d);
                true
            }
            Tok::ToFront(_)
            | Tok::RoutePrep(..)
            | Tok::DestPrep(..)
            | Tok::Compass(..)
            | Tok::Punct(_)
            | Tok::Negate(_)
            | Tok::Filler(_)
            | Tok::Participle { .. } => {
                self.link_word(tok, cur, d);
                true
            }
        };
        if !settle {
            return;
        }
        if !matches!(tok, Tok::Place(_) | Tok::Relation { .. }) {
            if !matches!(tok, Tok::Connector(..) | Tok::Punct(_)) {
                self.conn = None;
            }
            if !matches!(tok, Tok::Punct(_)) && !matches!(tok, Tok::Connector(..)) {
                self.prev_place = None;
            }
            if matches!(tok, Tok::Connector(..)) {
                self.prev_place = self.prev_place.filter(|(_, force)| *force);
            }
        }
    }

    /// Leads, headers, courtesies, type labels, recipients.
    fn lead(&mut self, tok: &Tok, d: &mut Draft) {
        let text = self.text;
        match tok {
            Tok::Header(s) => {
                d.header = Some(nfc(text[s.0..s.1]
                    .trim_end_matches(['—', '–', '-', ':'])
                    .trim()))
            }
            Tok::Courtesy(s) => {
                // "I have the honour to request that you will …": the letter speaks to its
                // addressee, who is the recipient though the text does not name him.
                if text[s.0..s.1]
                    .split_whitespace()
                    .any(|w| w.eq_ignore_ascii_case("you"))
                {
                    d.addressed_you = true;
                }
                d.courtesies.push(Remark {
                    text: nfc(&text[s.0..s.1]),
                    span: *s,
                });
            }
            Tok::TypeLabel(t, s) => d.stated_type = Some((*t, *s)),
            Tok::Preset { independent, span } => {
                d.preset = true;
                if *independent {
                    d.independent = true;
                    d.independent_span = Some(*span);
                }
            }
            Tok::Addressee(t) => {
                let generic = t.text.split_whitespace().all(|w| {
                    matches!(
                        w.lower().as_ref(),
                        "general"
                            | "sir"
                            | "marshal"
                            | "friend"
                            | "colonel"
                            | "lord"
                            | "duke"
                            | "prince"
                    )
                });
                if d.recipient.is_none() && !generic {
                    d.recipient = Some(to_reference(t));
                } else {
                    d.addressed_you = true;
                }
            }
            Tok::Recipient { who, attached, .. } => {
                if who.is_none() {
                    d.addressed_you = true;
                }
                if let Some(w) = who {
                    let r = to_reference(w);
                    if d.recipient.is_none() && d.steps.is_empty() {
                        d.recipient = Some(r);
                    } else {
                        self.pending.subject = Some(r);
                    }
                }
                for a in attached {
                    let r = to_reference(a);
                    d.refs.push(r.clone());
                    d.lead_attached.push(r.clone());
                    d.attached.push(r);
                }
            }
            Tok::Independent(s) => {
                d.independent = true;
                d.independent_span.get_or_insert(*s);
            }
            // Rule `lead.subject-where`: where the subject stands is a place of the order.
            Tok::Stands(prep, t, _) => {
                let mut r = to_reference(t);
                r.relation = Some(prep.clone());
                if d.stands.is_none() && d.steps.is_empty() {
                    d.stands = Some(r.clone());
                }
                d.refs.push(r);
            }
            _ => {}
        }
    }

    /// Manner, timing, conditions, purposes, directions and attachments: on the current step,
    /// or waiting for the next action.
    fn modifier(&mut self, tok: &Tok, cur: Option<usize>, word_conn_before: bool, d: &mut Draft) {
        let text = self.text;
        match tok {
            Tok::Manner(m, _) => match cur {
                Some(i) => {
                    // Rule `clause.participle`: ", keeping his left on the Azava" keeps its
                    // comma when read back.
                    // So does "…, ready to charge" (rule `verb.ready-to`).
                    let participle = m
                        .split(' ')
                        .next()
                        .is_some_and(|w| w.ends_with("ing") || w == "ready")
                        && m.contains(' ');
                    if participle && self.conn.as_deref() == Some(",") {
                        self.conn = None;
                        d.steps[i].step.parts.push(",".into());
                    }
                    // Rule `clause.report-duty` ("and report anything that moves") keeps its
                    // places as places, as a participle clause does.
                    let duty = m.starts_with("and ") || m.starts_with(", ");
                    if participle || duty {
                        self.absorbed = self.absorbed.max(tok.span().1);
                    }
                    d.steps[i].step.manner.push(m.clone());
                    d.steps[i].step.parts.push(m.clone());
                }
                None => self.pending.manner.push(m.clone()),
            },
            Tok::Timing {
                prep: p,
                value,
                span,
            } => {
                let t = Timing {
                    text: lower_first(&nfc(&words(&text[span.0..span.1]))),
                    span: *span,
                    kind: p.clone(),
                    time: value.clone(),
                };
                match cur {
                    Some(i) => {
                        let st = &mut d.steps[i].step;
                        st.parts.push(t.text.clone());
                        // A start time ("at 09:30") outranks a later deadline ("by noon"): it
                        // makes the order conditional (30.0).
                        if st.timing.as_ref().is_none_or(|x| !x.is_start()) {
                            st.timing = Some(t);
                        }
                    }
                    None => self.pending.timing = Some(t),
                }
            }
            Tok::IfPossible(_) => self.pending.if_possible = true,
            Tok::CondStart(kind, s) => {
                d.rules.push("cond.condition");
                self.mode = Mode::Cond {
                    kind: kind.clone(),
                    start: s.0,
                    end: s.1,
                    refs: Vec::new(),
                    predicate: false,
                    after_subject: false,
                    modal: false,
                    leading: self.first_step_here.is_none() || word_conn_before,
                };
            }
            Tok::Purpose(s) => {
                d.rules.push("purpose.why");
                // A purpose phrase that holds its verb ("to draw", a lexicon entry) keeps the
                // verb in the WHY; only the marker ("in order to", "to") is dropped.
                let marker = &text[s.0..s.1];
                let start = match marker.get(..3) {
                    Some(to) if to.eq_ignore_ascii_case("to ") => s.0 + 3,
                    _ => s.1,
                };
                self.mode = Mode::Purpose {
                    start,
                    end: s.1,
                    engage: false,
                    alternatives: false,
                };
            }
            Tok::Facing(t, s)
            | Tok::Threat(t, s)
            | Tok::Direction {
                target: t, span: s, ..
            } => {
                let (compass, place) = split_target(t, &mut d.refs);
                let dir = Direction {
                    text: lower_first(&nfc(&words(&text[s.0..s.1]))),
                    span: *s,
                    compass,
                    place,
                    from: matches!(tok, Tok::Threat(..) | Tok::Direction { from: true, .. }),
                };
                let which = match tok {
                    Tok::Facing(..) => 0,
                    Tok::Threat(..) => 1,
                    _ => 2,
                };
                match cur {
                    Some(i) => {
                        let st = &mut d.steps[i].step;
                        st.parts.push(dir.text.clone());
                        *[&mut st.facing, &mut st.against, &mut st.direction][which] = Some(dir);
                    }
                    None => {
                        *[
                            &mut self.pending.facing,
                            &mut self.pending.against,
                            &mut self.pending.direction,
                        ][which] = Some(dir);
                    }
                }
            }
            Tok::Attached(items, s) => {
                for a in items {
                    let r = to_reference(a);
                    d.refs.push(r.clone());
                    d.attached.push(r);
                }
                let part = nfc(&words(&text[s.0..s.1]));
                match cur {
                    Some(i) => d.steps[i].step.parts.push(part),
                    None => self.pending.manner.push(part),
                }
            }
            Tok::With(t, s) => {
                let r = to_reference(t);
                leaves(&r, &mut d.refs);
                if let Some(i) = cur {
                    d.steps[i].step.forces.push(r);
                    d.steps[i].step.parts.push(nfc(&words(&text[s.0..s.1])));
                }
            }
            _ => {}
        }
    }

    /// Prepositions, compass words, punctuation and filler words.
    fn link_word(&mut self, tok: &Tok, cur: Option<usize>, d: &mut Draft) {
        let text = self.text;
        match tok {
            Tok::ToFront(s) => {
                let phrase = nfc(&words(&text[s.0..s.1]));
                let r = Reference {
                    text: phrase.clone(),
                    span: *s,
                    form: Form::Own,
                    relation: None,
                    within: None,
                    hexes: Vec::new(),
                    parts: Vec::new(),
                    resolved: None,
                    phrase: phrase.clone(),
                };
                match cur {
                    Some(i) => {
                        let st = &mut d.steps[i].step;
                        st.parts.push(phrase);
                        st.objectives.push(r);
                    }
                    None => self.pending.objectives.push((r, phrase, false)),
                }
                self.prev_place = None;
            }
            Tok::RoutePrep(w, _) => {
                let canon = if matches!(w.as_str(), "up" | "down" | "along") {
                    "along"
                } else {
                    "via"
                };
                self.prep = Some((Prep::Route, canon.to_string()));
            }
            Tok::DestPrep(w, _) => {
                let kind = if w == "from" { Prep::From } else { Prep::Dest };
                self.prep = Some((kind, w.clone()));
            }
            Tok::Compass(w, s) => {
                let dir = Direction {
                    text: lower_first(&nfc(&words(&text[s.0..s.1]))),
                    span: *s,
                    compass: Some(w.clone()),
                    place: None,
                    from: false,
                };
                match cur {
                    Some(i) => {
                        let st = &mut d.steps[i].step;
                        if let Some(c) = self.conn.take() {
                            st.parts.push(c);
                        }
                        st.parts.push(dir.text.clone());
                        st.direction = Some(dir);
                    }
                    None => self.pending.direction = Some(dir),
                }
                self.prep = None;
                self.prev_place = None;
            }
            Tok::Punct(_) | Tok::Negate(_) => {}
            Tok::Filler(s) | Tok::Participle { span: s, .. } => {
                self.finite_seen |= lexicon::get().is_finite(&text[s.0..s.1].lower());
                self.filler = Some(match self.filler {
                    Some((a, _)) => (a, s.1),
                    None => *s,
                });
            }
            _ => {}
        }
    }

    /// Rule `verbless.march`: "4-I: Kümla by 10.30 a.m., then hold it" — places (and a time)
    /// before "then" and the first action of the sentence are where to go first: a march there
    /// is the first stage (6.3.3: a sequence).
    fn implicit_march(&mut self, span: Span, d: &mut Draft) {
        if !(self.first_step_here.is_none()
            && self.link_hint == Some(Link::Then)
            && self.pending.condition.is_none()
            && !self.pending.objectives.is_empty()
            && self
                .pending
                .objectives
                .iter()
                .all(|(r, _, route)| !route && matches!(r.form, Form::Name | Form::Hex)))
        {
            return;
        }
        d.rules.push("verbless.march");
        let mut parts = vec!["march".to_string()];
        let mut objectives = Vec::new();
        for (i, (r, p, _)) in self.pending.objectives.drain(..).enumerate() {
            parts.push(if i == 0 {
                format!("to {p}")
            } else {
                format!("and {p}")
            });
            objectives.push(r);
        }
        let timing = self.pending.timing.take();
        if let Some(t) = &timing {
            parts.push(t.text.clone());
        }
        let first_at = objectives.first().map_or(span, |r| r.span);
        d.steps.push(DraftStep {
            step: Step {
                action: Action::Move,
                verb: "march".into(),
                posture: Action::Move.posture(),
                span: (first_at.0, first_at.0),
                objectives,
                route: Vec::new(),
                direction: None,
                facing: None,
                against: None,
                timing,
                forces: Vec::new(),
                manner: Vec::new(),
                if_possible: false,
                alternatives: false,
                parts,
                own_objectives: 0,
                purpose: None,
            },
            link: if d.steps.is_empty() {
                Link::First
            } else {
                Link::Sentence
            },
            sentence: self.si,
            condition: None,
            subject: self.pending.subject.take(),
            purpose: None,
            purpose_engage: false,
        });
        self.first_step_here = Some(d.steps.len() - 1);
    }

    /// An action: a new step, with the modifiers and places written before it. Never followed by the
    /// connector and last-place bookkeeping (false).
    fn verb(&mut self, tok: &Tok, cur: Option<usize>, d: &mut Draft) -> bool {
        let text = self.text;
        let Tok::Verb { action, verb, span } = tok else {
            return true;
        };
        // A verb straight after a name is part of the name: "the British retreat",
        // "the Imperial Guard".
        if let (Some(i), Some((oi, is_force))) = (cur, self.prev_place) {
            let st = &mut d.steps[i].step;
            let list = if is_force {
                &mut st.forces
            } else {
                &mut st.objectives
            };
            if let Some(r) = list.get_mut(oi)
                && matches!(r.form, Form::Name | Form::Unit)
                && self.conn.is_none()
                && self.prep.is_none()
            {
                let new_end = span.1;
                let ext = nfc(&text[r.span.1..new_end]);
                r.text.push_str(&ext);
                r.phrase.push_str(&ext);
                r.span.1 = new_end;
                if let Some(last_part) = st.parts.last_mut() {
                    last_part.push_str(&ext);
                }
                if let Some(p) = d.refs.iter_mut().rev().find(|p| p.span.0 == r.span.0) {
                    *p = r.clone();
                }
                return false;
            }
        }
        self.implicit_march(*span, d);
        let link = if d.steps.is_empty() {
            Link::First
        } else if self.first_step_here.is_none() {
            match self.link_hint {
                Some(Link::Then) => Link::Then,
                Some(Link::Or) => Link::Or,
                _ => Link::Sentence,
            }
        } else {
            self.link_hint.unwrap_or(Link::And)
        };
        let mut step = Step {
            action: *action,
            verb: verb.clone(),
            posture: action.posture(),
            span: *span,
            objectives: Vec::new(),
            route: Vec::new(),
            direction: self.pending.direction.take(),
            facing: self.pending.facing.take(),
            against: self.pending.against.take(),
            timing: self.pending.timing.take(),
            forces: Vec::new(),
            manner: std::mem::take(&mut self.pending.manner),
            if_possible: std::mem::take(&mut self.pending.if_possible),
            alternatives: false,
            // "2nd Div advances on Hall" reads back "… is to advance on Hall".
            parts: vec![lexicon::base_form(verb).into_owned()],
            own_objectives: 0,
            purpose: None,
        };
        let moving = matches!(
            action,
            Action::Move | Action::Cross | Action::Withdraw | Action::Deploy
        );
        let mut first = true;
        for (r, p, route) in self.pending.objectives.drain(..) {
            // Noun phrases side by side before the verb ("The 3rd, 4th … will form",
            // "upon the left flank and rear of the enemy") stay apart when read back,
            // as after it: the connector between them is not kept, so a comma is.
            if !first && p == r.phrase {
                step.parts.push(",".into());
            }
            first = false;
            // The same rules as after the verb: "from X" is a direction, route is
            // route (except for defend), own troops of a movement are its forces.
            if p.starts_with("from ") && step.direction.is_none() {
                step.direction = Some(Direction {
                    text: p.clone(),
                    span: r.span,
                    compass: None,
                    place: Some(r),
                    from: true,
                });
                step.parts.push(p);
                continue;
            }
            step.parts.push(p);
            if route && !matches!(action, Action::Defend) {
                step.route.push(r);
            } else if moving && step.objectives.is_empty() && r.form == Form::Own {
                step.forces.push(r);
            } else {
                step.objectives.push(r);
            }
        }
        for m in &step.manner {
            step.parts.push(m.clone());
        }
        for x in [&step.direction, &step.facing, &step.against]
            .into_iter()
            .flatten()
        {
            step.parts.push(x.text.clone());
        }
        if let Some(t) = &step.timing {
            step.parts.push(t.text.clone());
        }
        let condition = self.pending.condition.take();
        if condition.is_some() && self.first_step_here.is_some() && link == Link::And {
            d.rules.push("cond.own-clause");
        }
        d.steps.push(DraftStep {
            step,
            link,
            sentence: self.si,
            condition,
            subject: self.pending.subject.take(),
            purpose: None,
            purpose_engage: false,
        });
        self.first_step_here.get_or_insert(d.steps.len() - 1);
        self.link_hint = None;
        self.conn = None;
        self.prep = None;
        self.prev_place = None;
        false
    }

    /// A place or a relation to one: an objective, route, direction or force of the current step.
    /// False when it waits for its action.
    fn place(&mut self, tok: &Tok, cur: Option<usize>, d: &mut Draft) -> bool {
        let text = self.text;
        let (Tok::Place(t) | Tok::Relation { target: t, .. }) = tok else {
            return true;
        };
        let mut r = to_reference(t);
        let mut phrase = r.phrase.clone();
        if let Tok::Relation { rel, span, .. } = tok {
            r.relation = Some(rel.clone());
            phrase = nfc(&words(&text[span.0..span.1]));
        }
        leaves(&r, &mut d.refs);
        let (kind, word) = self.prep.take().unwrap_or((Prep::Dest, String::new()));
        let rendered = match kind {
            Prep::Route => format!("{word} {phrase}"),
            _ if word.is_empty() => phrase.clone(),
            _ => format!("{word} {phrase}"),
        };
        let c = self.conn.take();
        let Some(i) = cur else {
            self.pending
                .objectives
                .push((r, rendered, kind == Prep::Route));
            return false;
        };
        let st = &mut d.steps[i].step;
        if let Some(c) = &c {
            st.parts.push(if c == "," { ",".into() } else { c.clone() });
            if c == "or" {
                st.alternatives = true;
            }
        } else if word.is_empty()
            && matches!(r.form, Form::Name | Form::Unit)
            // "the ford below the bridge" (rule `place.above`) is one place, read back so.
            && !matches!(tok, Tok::Relation { rel, .. } if rel == "above" || rel == "below")
            && st.parts.len() > 1
            && st
                .parts
                .last()
                .is_some_and(|p| p != "," && p != "and" && p != "or")
        {
            // Two names side by side stay two names when read back.
            st.parts.push(",".into());
        }
        st.parts.push(rendered);
        let moving = matches!(
            st.action,
            Action::Move | Action::Cross | Action::Withdraw | Action::Deploy
        );
        let after_force = matches!(self.prev_place, Some((_, true)));
        if kind == Prep::From {
            st.direction = Some(Direction {
                text: format!("from {phrase}"),
                span: r.span,
                compass: None,
                place: Some(r),
                from: true,
            });
            self.prev_place = None;
        } else if kind == Prep::Route && !matches!(st.action, Action::Defend) {
            st.route.push(r);
            self.prev_place = None;
        } else if word.is_empty()
            && matches!(st.action, Action::Move | Action::Cross | Action::Withdraw)
            && matches!(tok, Tok::Relation { rel, .. } if rel == "round" || rel == "around")
        {
            // Rule `route.round-place`: "move at daybreak round the northern foot of the
            // Cerro de Medellín and turn the English left" — going round a place is the
            // stage's path (6.4.4), not its objective.
            st.route.push(r);
            self.prev_place = None;
            d.rules.push("route.round-place");
        } else if word.is_empty()
            && ((moving
                && st.objectives.is_empty()
                && (r.form == Form::Own
                    || r.form == Form::Unit
                        && matches!(st.verb.as_str(), "put" | "set")
                        && friendly_troops(&r.text)
                    // Rule `verb.send-troops`: "send a brigade to Celorico" — the troops
                    // sent, never an objective (a force of the stage, not a place).
                    || r.form == Form::Unit
                        && matches!(st.verb.as_str(), "send" | "detach" | "dispatch")
                        && r.resolved.is_none()
                        && friendly_troops(&r.text)
                    // "send the rest forward": the troops that go (rule `verb.in-support-of`).
                    || r.form == Form::Name
                        && st.verb == "send"
                        && subjects::remainder(&r.text)))
                || (after_force && c.is_some()))
        {
            st.forces.push(r);
            self.prev_place = Some((st.forces.len() - 1, true));
        } else {
            st.objectives.push(r);
            self.prev_place = Some((st.objectives.len() - 1, false));
        }
        true
    }

    /// A connector: how the next action links to the last, and what joins two objectives.
    fn connector(&mut self, c: &str, d: &mut Draft) {
        // Rule `clause.report`: "the position on Hinzeberg is good enough; stay there"
        // — a clause with an auxiliary and no action, ended by ";", reports; its noun
        // phrases are no objectives of the action after it (its places stay places).
        if c == ";"
            && self.finite_seen
            && self.first_step_here.is_none()
            && !self.pending.objectives.is_empty()
        {
            self.pending.objectives.clear();
            d.rules.push("clause.report");
        }
        self.finite_seen = false;
        // A condition after "and", "but" or ";" opens the next clause and governs the action
        // after it (rule `cond.condition`: "…; otherwise stay at Kümla"), not the one before.
        self.word_conn |= c == ";" || c.chars().next().is_some_and(char::is_alphabetic);
        match c {
            "then" | "and then" | "afterwards" | "after that" | "after which" | "thereafter" => {
                self.link_hint = Some(Link::Then)
            }
            "or" | "either" => {
                if self.link_hint != Some(Link::Then) {
                    self.link_hint = Some(Link::Or);
                }
            }
            _ => {
                if self.link_hint.is_none() {
                    self.link_hint = Some(Link::And);
                }
            }
        }
        let shown = match c {
            "," | ";" | "—" | "–" | "--" => ",",
            "either" => "either",
            "or" => "or",
            _ => "and",
        };
        // Keep the first meaningful connector word between two objectives.
        if self.conn.as_deref().is_none_or(|x| x == ",") {
            self.conn = Some(shown.to_string());
        }
        self.prep = None;
    }

    /// What the sentence leaves when its tokens are read: the open mode, the pending condition,
    /// a verbless objective, modifiers with no action.
    fn finish(mut self, abs: Span, d: &mut Draft) {
        let text = self.text;
        self.flush(d);
        match std::mem::replace(&mut self.mode, Mode::Normal) {
            Mode::Prohibit {
                start,
                end,
                prefix,
                avoid,
                ..
            } => {
                prohibit(text, (start, end), prefix, avoid, d);
                self.condition_of_prohibition(d);
            }
            Mode::Cond {
                kind,
                start,
                end,
                refs,
                ..
            } => {
                let cond = make_condition(text, &kind, start, end, refs);
                attach_condition(cond, d, self.first_step_here, &mut self.pending);
            }
            Mode::Purpose {
                start,
                end,
                engage,
                alternatives,
            } => {
                let raw = text[start..end]
                    .trim()
                    .trim_end_matches(['.', '!', '?', ',', ';']);
                let intent = nfc(&words(raw));
                if !intent.is_empty() {
                    if d.intent_span.is_none() {
                        d.intent_span = Some((start, end));
                    }
                    if let Some(i) = self.first_step_here.map(|_| d.steps.len() - 1) {
                        let st = &mut d.steps[i];
                        st.purpose = Some(intent.clone());
                        st.purpose_engage = engage;
                        st.step.alternatives |= alternatives;
                    }
                    d.intent.push(intent);
                }
            }
            Mode::Normal => {}
        }
        if let (Some(c), Some(_)) = (self.pending.condition.take(), self.first_step_here) {
            let last = d.steps.len() - 1;
            if d.steps[last].condition.is_none() {
                d.steps[last].condition = Some(c);
            } else {
                self.pending.condition = Some(c);
            }
        }
        // Rule `verbless.objective`: a sentence of places and nothing else ("Kümla.", "Hinzeberg
        // road, Mill bridge, Hall.") names the objective of the next bare action.
        if self.first_step_here.is_none()
            && self.pending.condition.is_none()
            && self.pending.direction.is_none()
            && !self.pending.objectives.is_empty()
            && self
                .pending
                .objectives
                .iter()
                .all(|(r, _, route)| !route && r.form != Form::Pronoun)
        {
            d.topic = self
                .pending
                .objectives
                .drain(..)
                .map(|(r, p, _)| (r, p))
                .collect();
            d.topic_time = self.pending.timing.take();
            return;
        }
        if let Some(f) = self.first_step_here {
            take_topic(f, d);
        }
        // Modifiers that found no action in this sentence are kept, not dropped.
        if self.first_step_here.is_none() || self.pending.condition.is_some() {
            let mut left: Vec<String> = Vec::new();
            if let Some(t) = self.pending.timing {
                left.push(t.text);
            }
            for x in [
                self.pending.direction,
                self.pending.facing,
                self.pending.against,
            ]
            .into_iter()
            .flatten()
            {
                left.push(x.text);
            }
            for (r, _, _) in self.pending.objectives {
                left.push(r.phrase);
            }
            if let Some(c) = self.pending.condition {
                left.push(c.text);
            }
            if !left.is_empty() {
                d.remarks.push(Remark {
                    text: nfc(text[abs.0..abs.1].trim()),
                    span: abs,
                });
            }
        }
    }
}

/// Whether a negator ends the condition being read and turns to the recipient (rule
/// `neg.condition`): "…, and are not to pursue", "on no account"; "if the enemy does not come"
/// does not. Once the condition has its verb, "do not" or "and not" turns to the recipient
/// ("as soon as it has crossed, and not wait", "if I cannot, do not wait"); `flags` are the
/// reader's (after a connector, a verb next, after "and"/"but").
fn negator_ends_condition(w: &str, predicate: bool, flags: (bool, bool, bool)) -> bool {
    let (after_conn, verb_next, after_and) = flags;
    let w = w.lower();
    w.ends_with(" to")
        || w.starts_with("on no")
        || (predicate && w.starts_with("you "))
        // "if the allied hussars appear, do not pursue them": after the condition's comma an
        // imperative negator turns to the recipient, even when the condition's verb went unread.
        || (after_conn && verb_next && (w.starts_with("do not") || w.starts_with("don't") || w == "never"))
        || w == "never"
        || lexicon::get().is_avoid_negator(&w)
        || (predicate
            && verb_next
            && (w.starts_with("do not") || w.starts_with("don't") || (w == "not" && after_and)))
}

/// The topic of a verbless sentence given to the actions of the sentence after it, from step
/// `f` on (rules `verbless.objective`, `verbless.pronoun`, `verbless.march-time`).
fn take_topic(f: usize, d: &mut Draft) {
    if d.topic.is_empty() {
        return;
    }
    let topic = std::mem::take(&mut d.topic);
    let time = d.topic_time.take();
    let mut took = false;
    // A place named before the pronoun in this sentence is its antecedent, not the topic.
    let mut named = false;
    for ds in &mut d.steps[f..] {
        let st = &mut ds.step;
        let before = named;
        named |= st.objectives.iter().any(|o| o.form != Form::Pronoun);
        // "Kirseberg by 0800. Hold it against all comers.": the pronoun takes the topic.
        took |= !before
            && st
                .objectives
                .first()
                .is_some_and(|o| o.form == Form::Pronoun);
        if st.objectives.is_empty()
            && st.route.is_empty()
            && st.direction.is_none()
            && !matches!(st.action, Action::Halt | Action::Join)
        {
            took = true;
            // Several places read back as a list ("Hinzeberg road, Mill bridge and Hall"),
            // never run together into one name.
            let n = topic.len();
            for (i, (r, p)) in topic.iter().enumerate() {
                st.objectives.push(r.clone());
                let sep = if i + 1 == n || n == 1 {
                    ""
                } else if i + 2 == n {
                    " and"
                } else {
                    ","
                };
                st.parts.push(format!("{p}{sep}"));
            }
            if let (None, Some(t)) = (&st.timing, &time) {
                st.parts.push(t.text.clone());
                st.timing = Some(t.clone());
            }
            d.rules.push("verbless.objective");
        } else if let [only] = st.objectives.as_slice()
            && !before
            && only.form == Form::Pronoun
            && matches!(only.text.lower().as_ref(), "it" | "there")
            && st.route.is_empty()
            && let [(r, _)] = topic.as_slice()
        {
            // Rule `verbless.pronoun`: "4th Div: Kirseberg. Hold it." — the pronoun of
            // the next action is the place the verbless sentence named, and is read back
            // as that place, so the order says where even without a scenario.
            let pro = only.phrase.clone();
            if let Some(part) = st
                .parts
                .iter_mut()
                .rev()
                .find(|p| **p == pro || p.ends_with(&format!(" {pro}")))
            {
                let head = &part[..part.len() - pro.len()];
                *part = format!("{head}{}", r.phrase);
                st.objectives = vec![r.clone()];
                d.rules.push("verbless.pronoun");
                took = true;
            }
        }
    }
    // Rule `verbless.march-time`: "4th Div: Kümla road, 0700. Push on to Kümla." — places
    // and a time that the next action does not take (it has its own objective) are where
    // to be by then: a march stage first (6.3.3, a sequence).
    if !took && let Some(t) = time {
        let mut parts = vec!["march".to_string()];
        let n = topic.len();
        for (i, (_, p)) in topic.iter().enumerate() {
            let lead = if i == 0 {
                "to "
            } else if i + 1 == n {
                "and "
            } else {
                ""
            };
            let sep = if i + 2 < n { "," } else { "" };
            parts.push(format!("{lead}{p}{sep}"));
        }
        parts.push(t.text.clone());
        let objectives: Vec<Reference> = topic.into_iter().map(|(r, _)| r).collect();
        let at = objectives.first().map_or(t.span.0, |r| r.span.0);
        let next = &mut d.steps[f];
        let link = std::mem::replace(&mut next.link, Link::Sentence);
        let link = if link == Link::First {
            Link::First
        } else {
            Link::Sentence
        };
        let sentence = next.sentence.saturating_sub(1);
        d.steps.insert(
            f,
            DraftStep {
                step: Step {
                    action: Action::Move,
                    verb: "march".into(),
                    posture: Action::Move.posture(),
                    span: (at, at),
                    objectives,
                    route: Vec::new(),
                    direction: None,
                    facing: None,
                    against: None,
                    timing: Some(t),
                    forces: Vec::new(),
                    manner: Vec::new(),
                    if_possible: false,
                    alternatives: false,
                    parts,
                    own_objectives: 0,
                    purpose: None,
                },
                link,
                sentence,
                condition: None,
                subject: None,
                purpose: None,
                purpose_engage: false,
            },
        );
        d.rules.push("verbless.march-time");
    }
}

/// Rule `lead.passive`: "Hall is to be taken by the 2nd Division", "Ventosa will be occupied
/// by Brennier's brigade" — the agent after "by" is the recipient, the participle the action
/// and the subject its objective. Any other sentence is returned unchanged.
fn passive(text: &str, toks: Vec<Tok>) -> Vec<Tok> {
    let word = |t: &Tok, w: &[&str]| {
        let s = t.span();
        w.iter().any(|x| text[s.0..s.1].eq_ignore_ascii_case(x))
    };
    // "The bridge at Kirseberg is to be held by …": a subject the grammar did not read as a
    // lead (a scenario name with a preposition in it) is the lead of the passive.
    let mut toks = toks;
    if !toks
        .iter()
        .any(|t| matches!(t, Tok::Recipient { who: Some(_), .. }))
        && let Some(k) = toks
            .iter()
            .position(|t| !matches!(t, Tok::Header(_) | Tok::Courtesy(_)))
        && let Some(Tok::Place(subject)) = toks.get(k).cloned()
        && toks.get(k + 1).is_some_and(|t| word(t, &["is", "are"]))
        && toks
            .get(k + 2)
            .is_some_and(|t| matches!(t, Tok::DestPrep(p, _) if p == "to"))
        && toks.get(k + 3).is_some_and(|t| word(t, &["be"]))
        && matches!(toks.get(k + 4), Some(Tok::Participle { .. }))
    {
        let end = toks[k + 2].span().1;
        let lead = Tok::Recipient {
            who: Some(subject.clone()),
            attached: Vec::new(),
            span: (subject.phrase_span.0, end),
        };
        toks.splice(k..=k + 2, [lead]);
    }
    let Some(lead) = toks
        .iter()
        .position(|t| matches!(t, Tok::Recipient { who: Some(_), .. }))
    else {
        return toks;
    };
    let Some(be) = toks.get(lead + 1).filter(|t| word(t, &["be", "been"])) else {
        return toks;
    };
    let _ = be;
    let Some(Tok::Participle {
        action,
        span: pspan,
    }) = toks.get(lead + 2).cloned()
    else {
        return toks;
    };
    // "…, supported by the 95th" (rule `with.supported-by`) names who goes with them, not the
    // agent: a "by" right after such a past form is passed over.
    let Some(by) = (lead + 3..toks.len()).find(|&k| {
        matches!(toks[k], Tok::RoutePrep(..) | Tok::DestPrep(..))
            && word(&toks[k], &["by"])
            && !(k - 1 > lead + 2
                && word(
                    &toks[k - 1],
                    &["supported", "followed", "covered", "preceded", "escorted"],
                ))
    }) else {
        return toks;
    };
    let Some(Tok::Place(agent)) = toks.get(by + 1).cloned() else {
        return toks;
    };
    let Tok::Recipient {
        who: Some(mut subject),
        span: lead_span,
        ..
    } = toks[lead].clone()
    else {
        return toks;
    };
    // The subject of a passive is what is acted on: a place unless it names troops.
    if !super::resolve::looks_like_troops(&subject.text) {
        subject.form = Form::Name;
    }
    let mut out: Vec<Tok> = toks[..lead].to_vec();
    out.push(Tok::Recipient {
        who: Some(agent),
        attached: Vec::new(),
        span: (lead_span.0, lead_span.0),
    });
    out.push(Tok::Verb {
        action,
        verb: action.as_str().to_string(),
        span: pspan,
    });
    // Rule `lead.passive-and`: "Hall is to be attacked and held by the 2nd Division" — more
    // participles joined by "and" are more steps on the same subject (a repeated action, as
    // "attacked and carried", is one).
    let mut chain = lead + 2;
    let mut seen = vec![action];
    while chain + 2 < by
        && matches!(&toks[chain + 1], Tok::Connector(c, _) if c == "and" || c == ",")
        && let Tok::Participle { action: a, span } = toks[chain + 2]
    {
        if !seen.contains(&a) {
            seen.push(a);
            out.push(toks[chain + 1].clone());
            out.push(Tok::Verb {
                action: a,
                verb: a.as_str().to_string(),
                span,
            });
        }
        chain += 2;
    }
    out.push(Tok::Place(subject));
    for (k, t) in toks.into_iter().enumerate() {
        if k > chain && k != by && k != by + 1 {
            out.push(t);
        }
    }
    // "…, and the Ventosa Ridge by Thomières' brigade": a gapped passive is another stage of
    // the same action for another agent.
    let mut k = 0;
    while k + 3 < out.len() {
        let gap = matches!(&out[k], Tok::Connector(c, _) if c == "and" || c == ",")
            && matches!(&out[k + 1], Tok::Place(x) if x.form == Form::Name)
            && matches!(&out[k + 2], Tok::RoutePrep(p, _) | Tok::DestPrep(p, _) if p == "by")
            && matches!(&out[k + 3], Tok::Place(_));
        if gap {
            let (Tok::Place(object), Tok::Place(agent)) = (out[k + 1].clone(), out[k + 3].clone())
            else {
                break;
            };
            let at = object.phrase_span.0;
            out.splice(
                k + 1..=k + 3,
                [
                    Tok::Recipient {
                        who: Some(agent),
                        attached: Vec::new(),
                        span: (at, at),
                    },
                    Tok::Verb {
                        action,
                        verb: action.as_str().to_string(),
                        span: pspan,
                    },
                    Tok::Place(object),
                ],
            );
            k += 4;
        } else {
            k += 1;
        }
    }
    out
}

/// Rule `lead.compliments`: "X presents his compliments to General Y and requests that he
/// will …": Y is the recipient; X and the courtesies carry no command.
fn compliments(text: &str, toks: Vec<Tok>) -> Vec<Tok> {
    let Some(c) = toks.iter().position(|t| match t {
        Tok::Courtesy(s) => text[s.0..s.1]
            .to_ascii_lowercase()
            .starts_with("presents his compliments"),
        _ => false,
    }) else {
        return toks;
    };
    let Some(Tok::Place(who)) = toks.get(c + 1).cloned() else {
        return toks;
    };
    let first = toks.first().map_or((0, 0), Tok::span);
    let mut out = vec![
        Tok::Courtesy((first.0, toks[c].span().1)),
        Tok::Recipient {
            who: Some(who),
            attached: Vec::new(),
            span: toks[c + 1].span(),
        },
    ];
    out.extend(toks.into_iter().skip(c + 2));
    out
}

/// Rule `lead.third-person`: "The reserve battery will move …", "On receipt of this, the 3rd
/// Division will withdraw …" — when the grammar found no recipient, the noun phrase right
/// before "will", "shall", "must", "is to" or "are to" and the first action is the recipient.
fn third_person(text: &str, toks: Vec<Tok>) -> Vec<Tok> {
    if toks.iter().any(|t| matches!(t, Tok::Recipient { .. })) {
        return toks;
    }
    let Some(v) = toks.iter().position(|t| matches!(t, Tok::Verb { .. })) else {
        return toks;
    };
    let word = |k: usize| {
        let s = toks[k].span();
        text[s.0..s.1].to_ascii_lowercase()
    };
    // "The brigade at Kirseberg is on no account to abandon the bridge": the subject's link
    // inside a negator of the lexicon ("is on no account to"); the negator stays after the lead.
    let negated = v >= 2
        && matches!(toks[v - 1], Tok::Negate(_))
        && word(v - 1).contains(' ')
        && matches!(
            word(v - 1).split(' ').next(),
            Some("is" | "are" | "will" | "shall" | "must")
        );
    let link = match v {
        0 => return toks,
        _ if negated => v - 1,
        _ if matches!(word(v - 1).as_str(), "will" | "shall" | "must") => v - 1,
        _ if v >= 2 && word(v - 1) == "to" && matches!(word(v - 2).as_str(), "is" | "are") => v - 2,
        // "Sir Thomas Picton will be so good as to occupy …": a courtesy that holds the link.
        _ if matches!(toks[v - 1], Tok::Courtesy(_))
            && (word(v - 1).starts_with("will ") || word(v - 1).starts_with("is requested")) =>
        {
            v - 1
        }
        _ => return toks,
    };
    let mut first = link;
    while first > 0
        && matches!(
            toks[first - 1],
            Tok::Place(_) | Tok::Filler(_) | Tok::Verb { .. }
        )
    {
        first -= 1;
    }
    // The tokens kept after the lead: the verb's, or the negator's that holds the link.
    let rest = if negated { link } else { v };
    if first == link {
        // "The dragoons near Kümla are to patrol …", "The guns behind Hinzeberg will …": the
        // place the grammar read as a relation (rule `lead.subject-where`).
        return near_subject(&toks, link, rest).unwrap_or(toks);
    }
    if let Some(out) = subject_where(&toks, first, link, rest) {
        return out;
    }
    let span = (toks[first].span().0, toks[link - 1].span().1);
    let phrase = text[span.0..span.1].trim();
    if phrase.len() > 60
        || !phrase
            .chars()
            .any(|c| c.is_uppercase() || c.is_ascii_digit())
    {
        return toks;
    }
    let (name, name_span) = match phrase.split_once(' ') {
        Some((a, rest)) if a.eq_ignore_ascii_case("the") => (rest, (span.1 - rest.len(), span.1)),
        _ => (phrase, span),
    };
    let who = Target {
        form: Form::Unit,
        text: nfc(name),
        span: name_span,
        phrase: nfc(phrase),
        phrase_span: span,
        hexes: Vec::new(),
        within: None,
        parts: Vec::new(),
    };
    let end = toks[rest - 1].span().1;
    let mut out: Vec<Tok> = toks[..first].to_vec();
    out.push(Tok::Recipient {
        who: Some(who),
        attached: Vec::new(),
        span: (span.0, end),
    });
    out.extend(toks.into_iter().skip(rest));
    out
}

/// Rule `lead.subject-where`: "The artillery on the Cerro will open on …", "The brigade at Hall
/// is to hold …" — troops opening the sentence, a preposition of place and a place, then the
/// link: the troops are the recipient, the place where they stand (a place of the order, no
/// objective). `first..link` is the place the third person found before the link.
fn subject_where(toks: &[Tok], first: usize, link: usize, rest: usize) -> Option<Vec<Tok>> {
    let at = first.checked_sub(2)?;
    let Tok::DestPrep(prep, _) = &toks[at + 1] else {
        return None;
    };
    if !matches!(prep.as_str(), "on" | "at" | "in" | "near" | "upon") || link != first + 1 {
        return None;
    }
    let (Tok::Place(who), Tok::Place(place)) = (&toks[at], &toks[first]) else {
        return None;
    };
    if !opens_sentence(&toks[..at])
        || !super::resolve::looks_like_troops(&who.text)
        || super::resolve::looks_like_troops(&place.text)
    {
        return None;
    }
    let end = toks[rest - 1].span().1;
    let mut out: Vec<Tok> = toks[..at].to_vec();
    out.push(Tok::Recipient {
        who: Some(who.clone()),
        attached: Vec::new(),
        span: (who.phrase_span.0, end),
    });
    out.push(Tok::Stands(
        prep.clone(),
        place.clone(),
        (toks[at + 1].span().0, place.phrase_span.1),
    ));
    out.extend(toks[rest..].iter().cloned());
    Some(out)
}

/// Only the sentence's opening comes before the troops of `lead.subject-where`: a header, a
/// courtesy, a time or a connector.
fn opens_sentence(before: &[Tok]) -> bool {
    before.iter().all(|t| {
        matches!(
            t,
            Tok::Header(_) | Tok::Courtesy(_) | Tok::Timing { .. } | Tok::Connector(..)
        )
    })
}

/// Rule `lead.subject-where` with a relation ("near Kümla", "behind Hinzeberg") between the
/// troops opening the sentence and the link: the troops are the recipient, the relation where
/// they stand.
fn near_subject(toks: &[Tok], link: usize, rest: usize) -> Option<Vec<Tok>> {
    let at = link.checked_sub(2)?;
    let (Tok::Place(who), Tok::Relation { rel, target, span }) = (&toks[at], &toks[at + 1]) else {
        return None;
    };
    if !opens_sentence(&toks[..at])
        || !super::resolve::looks_like_troops(&who.text)
        || super::resolve::looks_like_troops(&target.text)
        || !target.parts.is_empty()
    {
        return None;
    }
    let end = toks[rest - 1].span().1;
    let mut out: Vec<Tok> = toks[..at].to_vec();
    out.push(Tok::Recipient {
        who: Some(who.clone()),
        attached: Vec::new(),
        span: (who.phrase_span.0, end),
    });
    out.push(Tok::Stands(rel.clone(), target.clone(), *span));
    out.extend(toks[rest..].iter().cloned());
    Some(out)
}

/// A modal or auxiliary that leaves its verb to come ("can", "should", "does").
/// A verb of trying ("attempt", "tries", "endeavour"): the infinitive after it is the verb
/// of the clause it stands in (rule `cond.attempt-to`).
fn trying(w: &str) -> bool {
    matches!(
        w.lower().as_ref(),
        "attempt"
            | "attempts"
            | "try"
            | "tries"
            | "endeavour"
            | "endeavours"
            | "endeavor"
            | "endeavors"
            | "seek"
            | "seeks"
    )
}

fn is_modal(w: &str) -> bool {
    matches!(
        w.lower().as_ref(),
        "can"
            | "could"
            | "may"
            | "might"
            | "shall"
            | "should"
            | "will"
            | "would"
            | "must"
            | "do"
            | "does"
            | "did"
            | "be able to"
    )
}

/// Rule `lead.verb-to`: "1 Div: adv to Lindenau" — after the recipient, a second "X to" lead
/// whose X is a verb of the lexicon (an abbreviation the grammar does not know) is that verb
/// and "to", never a second recipient.
fn verb_not_recipient(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let lex = lexicon::get();
    for k in 1..toks.len() {
        let Tok::Recipient {
            who: Some(_),
            attached,
            span,
        } = &toks[k]
        else {
            continue;
        };
        if !attached.is_empty() || !toks[..k].iter().any(|t| matches!(t, Tok::Recipient { .. })) {
            continue;
        }
        let raw = &text[span.0..span.1];
        let Some((v, to)) = raw.split_once(' ') else {
            continue;
        };
        let v_low = v.to_lowercase();
        if !to.trim().eq_ignore_ascii_case("to") {
            continue;
        }
        let Some(action) = lex.verb_action(&v_low) else {
            continue;
        };
        let vspan = (span.0, span.0 + v.len());
        let tspan = (span.1 - 2, span.1);
        toks.splice(
            k..=k,
            [
                Tok::Verb {
                    action,
                    verb: v_low,
                    span: vspan,
                },
                Tok::DestPrep("to".into(), tspan),
            ],
        );
        rules.push("lead.verb-to");
        break;
    }
    toks
}

/// Rule `place.distance`: "300 paces behind the church", "two hundred yards in front of Hall" —
/// a number and a unit of length is how far from the place after it (a manner of the step),
/// never a place called "300".
fn paces(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    const UNITS: [&str; 8] = [
        "paces", "pace", "yards", "yard", "miles", "toises", "metres", "leagues",
    ];
    let mut k = 0;
    while k + 1 < toks.len() {
        let number = matches!(&toks[k], Tok::Place(_) | Tok::Filler(_)) && {
            let s = toks[k].span();
            let w = &text[s.0..s.1];
            !w.is_empty() && w.chars().all(|c| c.is_ascii_digit())
        };
        let unit = matches!(&toks[k + 1], Tok::Filler(_) | Tok::Place(_)) && {
            let s = toks[k + 1].span();
            UNITS.contains(&text[s.0..s.1].lower().as_ref())
        };
        if number && unit {
            let span = (toks[k].span().0, toks[k + 1].span().1);
            toks.splice(
                k..=k + 1,
                [Tok::Manner(words(&text[span.0..span.1].lower()), span)],
            );
            rules.push("place.distance");
        }
        k += 1;
    }
    toks
}

/// Rule `dir.short`: "atk Hall fm the W" — players' "fm" is "from", and a capital N, S, E, W (or
/// NE, SW …) after it, with or without "the", is that compass point: a direction (6.4.4), never
/// a place called "W".
fn from_short(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let point = |w: &str| {
        Some(match w {
            "N" => "north",
            "S" => "south",
            "E" => "east",
            "W" => "west",
            "NE" => "north-east",
            "NW" => "north-west",
            "SE" => "south-east",
            "SW" => "south-west",
            _ => return None,
        })
    };
    for k in 0..toks.len().saturating_sub(1) {
        let Tok::Filler(f) = toks[k] else { continue };
        if !text[f.0..f.1].eq_ignore_ascii_case("fm") {
            continue;
        }
        let Tok::Place(t) = &toks[k + 1] else {
            continue;
        };
        let Some(name) = point(text[t.span.0..t.span.1].trim()) else {
            continue;
        };
        let mut target = t.clone();
        target.form = Form::Compass;
        target.text = name.into();
        let span = (f.0, t.phrase_span.1.max(t.span.1));
        toks.splice(
            k..=k + 1,
            [Tok::Direction {
                from: true,
                target,
                span,
            }],
        );
        rules.push("dir.short");
    }
    toks
}

/// Rule `time.in-minutes`: "in 20 minutes march to Kirseberg", "advance in half an hour" — "in"
/// and a span of time from now is when the step starts (30.0: a start time, so Complex), kept as
/// written; never a place called "20" and an unread "minutes".
fn in_minutes(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let word = |t: &Tok| tok_word(text, t);
    let mut k = 0;
    while k + 2 < toks.len() {
        if !matches!(&toks[k], Tok::DestPrep(..) | Tok::Filler(_)) || word(&toks[k]) != "in" {
            k += 1;
            continue;
        }
        // The unit ends a word token ("minutes", or "an hour" read as one word).
        let last = |t: &Tok| word(t).rsplit(' ').next().unwrap_or("").to_string();
        let unit = (k + 1..toks.len().min(k + 5)).find(|&m| {
            matches!(&toks[m], Tok::Filler(_) | Tok::Place(_))
                && SPAN_UNITS.contains(&last(&toks[m]).as_str())
        });
        let Some(m) = unit else {
            k += 1;
            continue;
        };
        let unit_at = toks[m].span().1 - last(&toks[m]).len();
        if !span_count(&text[toks[k].span().1..unit_at]) {
            k += 1;
            continue;
        }
        let span = (toks[k].span().0, toks[m].span().1);
        toks.splice(
            k..=m,
            [Tok::Timing {
                prep: "after".into(),
                value: Some(words(&text[span.0..span.1].lower())),
                span,
            }],
        );
        rules.push("time.in-minutes");
        k += 1;
    }
    toks
}

/// Rule `clause.participle`: "move the 3rd Division to the right, keeping his left on the
/// Azava", "retire on Fuentes, skirmishing with the enemy" — after a comma that follows a verb,
/// an -ing form of the lexicon and the words after it, to the next comma, connector, verb or
/// the end, say how the stage is carried out: a manner of it (6.3.2), never a remark nor an
/// objective of the step.
fn participle_manner(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let mut k = 1;
    while k < toks.len() {
        // An -ing form of a verb that is no stage ("keeping up the communication") too.
        let ps = match toks[k] {
            Tok::Participle { span, .. } => span,
            Tok::Filler(f)
                if text[f.0..f.1]
                    .split(' ')
                    .next()
                    .is_some_and(|w| w.ends_with("ing"))
                    && lexicon::get().is_verb_phrase(&text[f.0..f.1].lower()) =>
            {
                f
            }
            _ => {
                k += 1;
                continue;
            }
        };
        let after_comma = matches!(&toks[k - 1], Tok::Connector(c, _) if c == ",");
        let verb_before = toks[..k].iter().any(|t| matches!(t, Tok::Verb { .. }));
        let ing = text[ps.0..ps.1]
            .split(' ')
            .next()
            .is_some_and(|w| w.lower().ends_with("ing"));
        if !after_comma || !verb_before || !ing {
            k += 1;
            continue;
        }
        let end = (k + 1..toks.len())
            .find(|&m| {
                matches!(
                    toks[m],
                    Tok::Connector(..)
                        | Tok::Punct(_)
                        | Tok::Verb { .. }
                        | Tok::CondStart(..)
                        | Tok::Purpose(_)
                        | Tok::Negate(_)
                        | Tok::Participle { .. }
                )
            })
            .unwrap_or(toks.len());
        let span = (ps.0, toks[end - 1].span().1);
        // Its places follow the manner so they are still places of the order (`absorbed`).
        // "keeping up the communication with Hall": the place after "with" too.
        let places: Vec<Tok> = toks[k + 1..end]
            .iter()
            .filter_map(|t| match t {
                Tok::Place(_) | Tok::Relation { .. } => Some(t.clone()),
                Tok::With(w, _) => Some(Tok::Place(w.clone())),
                _ => None,
            })
            .collect();
        let n = into_manner(text, &mut toks, k..end, span, places);
        rules.push("clause.participle");
        k += 1 + n;
    }
    toks
}

/// `toks[range]` become one manner of the stage, the text of `span`, followed by `places`, the
/// places it named (so they are still places of the order, `absorbed`); the number of places.
fn into_manner(
    text: &str,
    toks: &mut Vec<Tok>,
    range: std::ops::Range<usize>,
    span: Span,
    places: Vec<Tok>,
) -> usize {
    let n = places.len();
    toks.splice(
        range,
        std::iter::once(Tok::Manner(words(&text[span.0..span.1]), span)).chain(places),
    );
    n
}

/// Rule `clause.report-duty`: "scour the country towards Escalona and report anything that
/// moves", "patrol towards Säter and send word of what you find" — after a step, "and" (or a
/// comma) and a verb of reporting, to the end of the clause, is what the command is to tell the
/// writer: a duty kept with the stage as its manner and read back with it, never a stage (it
/// moves nobody, 6.3.2), a place, nor an unread remark; its verbs are its own.
fn report_duty(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    // Reporting, and the tasks of the lexicon that move nobody ("destroy the bridge of boats",
    // "keep up the communication").
    const REPORT: [&str; 14] = [
        "destroy",
        "burn",
        "keep up",
        "collect",
        "report",
        "send word",
        "send back word",
        "send me word",
        "inform me",
        "acquaint me",
        "give notice",
        "give me notice",
        "give information",
        "send information",
    ];
    let mut k = 2;
    while k < toks.len() {
        let Tok::Filler(f) = toks[k] else {
            k += 1;
            continue;
        };
        let fits = REPORT.contains(&words(&text[f.0..f.1].lower()).as_str())
            && matches!(&toks[k - 1], Tok::Connector(c, _) if c == "and" || c == ",")
            && toks[..k - 1].iter().any(|t| matches!(t, Tok::Verb { .. }));
        if !fits {
            k += 1;
            continue;
        }
        // To the clause's end: a stop, ";", "then", "but", "or", a purpose or negator, or a
        // connector before another action.
        let end = (k + 1..toks.len())
            .find(|&m| match &toks[m] {
                Tok::Punct(_) | Tok::Purpose(_) | Tok::Negate(_) => true,
                Tok::Connector(c, _) => {
                    !matches!(c.as_str(), "and" | ",")
                        || matches!(toks.get(m + 1), Some(Tok::Verb { .. }))
                }
                _ => false,
            })
            .unwrap_or(toks.len());
        // "…, then return": the comma before the next clause is not the duty's.
        let mut end = end;
        while end > k + 1 && matches!(toks[end - 1], Tok::Connector(..)) {
            end -= 1;
        }
        let span = (toks[k - 1].span().0, toks[end - 1].span().1);
        // Its places follow the manner so they are still places of the order (`absorbed`);
        // its lower-case words ("what you find") are no places.
        // "any movement … towards Kirseberg": a direction's place too, which is no direction of
        // the stage.
        let places: Vec<Tok> = toks[k + 1..end]
            .iter()
            .filter_map(|t| match t {
                Tok::Place(p) => (p.form != Form::Name || p.text.chars().any(char::is_uppercase))
                    .then(|| t.clone()),
                Tok::Direction { target, .. } => (target.form != Form::Name
                    || target.text.chars().any(char::is_uppercase))
                .then(|| Tok::Place(target.clone())),
                Tok::Relation { .. } => Some(t.clone()),
                _ => None,
            })
            .collect();
        let n = into_manner(text, &mut toks, k - 1..end, span, places);
        rules.push("clause.report-duty");
        k += n + 1;
    }
    toks
}

/// Units of a span of time ("20 minutes", "an hour").
const SPAN_UNITS: [&str; 8] = [
    "minutes", "minute", "mins", "min", "hours", "hour", "hrs", "hr",
];

/// Whether `count` (the words before a unit of time) counts it: a number or a count word.
fn span_count(count: &str) -> bool {
    const COUNTS: [&str; 12] = [
        "an",
        "half an",
        "a quarter of an",
        "one",
        "two",
        "three",
        "five",
        "ten",
        "fifteen",
        "twenty",
        "thirty",
        "forty",
    ];
    let count = words(&count.lower());
    let number = !count.is_empty() && count.chars().all(|c| c.is_ascii_digit());
    number || COUNTS.contains(&count.as_str())
}

/// Rule `time.offset`: "an hour before daylight", "half an hour before dawn", "two hours after
/// daybreak" — a span of time right before a "before"/"after" time is one moment, when the step
/// starts (30.0: a start time, Complex), kept as written; never a place called "an" and an
/// unread "hour" beside a deadline.
fn time_offset(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let mut m = 1;
    while m < toks.len() {
        let Tok::Timing { prep, span, .. } = &toks[m] else {
            m += 1;
            continue;
        };
        if !matches!(prep.as_str(), "before" | "after") {
            m += 1;
            continue;
        }
        // The span of time: up to three words or names just before, ending in the unit.
        let end = span.1;
        let mut found = None;
        for k in (m.saturating_sub(3)..m).rev() {
            if !matches!(&toks[k], Tok::Filler(_) | Tok::Place(_)) {
                break;
            }
            let written = words(&text[toks[k].span().0..toks[m].span().0].lower());
            let Some((count, unit)) = written.rsplit_once(' ') else {
                continue;
            };
            if SPAN_UNITS.contains(&unit) && span_count(count) {
                found = Some(k);
            }
        }
        let Some(k) = found else {
            m += 1;
            continue;
        };
        let span = (toks[k].span().0, end);
        toks.splice(
            k..=m,
            [Tok::Timing {
                prep: "at".into(),
                value: Some(words(&text[span.0..span.1].lower())),
                span,
            }],
        );
        rules.push("time.offset");
        m = k + 1;
    }
    toks
}

/// Rule `lead.directed-by`: "I am directed by the Commander of the Forces to request that you
/// will …" — the "by" after "I am directed / commanded / desired / instructed" names the
/// authority the writer speaks for, never a route: up to the "to" and the courtesy after it
/// ("request that you will"), the whole is one courtesy, and what follows is the order.
fn directed_by(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    const SPEAKS_FOR: [&str; 6] = [
        "i am directed",
        "i am commanded",
        "i am desired",
        "i am instructed",
        "i have been directed",
        "i have been desired",
    ];
    let Some(b) = toks
        .iter()
        .position(|t| matches!(t, Tok::RoutePrep(p, _) if p == "by"))
    else {
        return toks;
    };
    // From the sentence's first token, not the start of `text`: `text` may be a whole file of
    // orders, and reading it from the start for every sentence made `check` quadratic.
    let before = words(&text[toks[0].span().0..toks[b].span().0].lower());
    let Some(phrase) = SPEAKS_FOR.iter().find(|p| before.ends_with(*p)) else {
        return toks;
    };
    // The first token of the phrase: the words before "by" that make it up.
    let n = phrase.split(' ').count();
    let mut k = b;
    let mut seen = 0;
    while k > 0 && seen < n {
        k -= 1;
        seen += text[toks[k].span().0..toks[k].span().1]
            .split_whitespace()
            .count();
    }
    if seen != n {
        return toks;
    }
    // The authority: names and words up to "to", then the courtesy that asks.
    let Some(to) = (b + 1..toks.len())
        .take_while(|&j| matches!(toks[j], Tok::Place(_) | Tok::Filler(_) | Tok::DestPrep(..)))
        .find(|&j| matches!(&toks[j], Tok::DestPrep(p, _) if p == "to"))
    else {
        return toks;
    };
    if to == b + 1 || !matches!(toks.get(to + 1), Some(Tok::Courtesy(_))) {
        return toks;
    }
    let span = (toks[k].span().0, toks[to + 1].span().1);
    toks.splice(k..=to + 1, [Tok::Courtesy(span)]);
    rules.push("lead.directed-by");
    toks
}

/// Rule `cond.before`: "seize Hall before the enemy can reinforce it" — "before" and a clause
/// (a subject, then a modal or a verb) is a deadline for the stage (30.0: not a condition, not a
/// start time), never a stage for the clause's subject. "before 0900" is the grammar's timing;
/// "before Badajoz" (no verb follows) is left as it was.
fn before_clause(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    for k in 0..toks.len() {
        let Tok::Filler(s) = toks[k] else { continue };
        let word = text[s.0..s.1].to_ascii_lowercase();
        // Rule `cond.while`: "… while Lapisse attacks in earnest" — what is done at the same
        // time as another command's action hangs on it: a condition (30.0), never a stage.
        // "whilst" (a word of the lexicon) is the same.
        let kind = match word.as_str() {
            "before" => "before",
            "while" | "whilst" => "while",
            // Rule `cond.as`: "open on the columns as they advance" — "as" and a clause is
            // when the stage acts (30.0: a condition), never a stage of its own.
            "as" => "as",
            _ => continue,
        };
        // A subject first (a name, troops, a pronoun; for "while" also an action noun's phrase:
        // "whilst the attack on Hall goes on"), then its verb within a few words.
        let subject = matches!(toks.get(k + 1), Some(Tok::Place(_) | Tok::Filler(_)))
            && !matches!(toks.get(k + 1), Some(Tok::Filler(f)) if is_modal(&text[f.0..f.1]))
            || kind == "while" && matches!(toks.get(k + 1), Some(Tok::Relation { .. }));
        let verb_follows = toks[k + 1..]
            .iter()
            .take(5)
            .take_while(|t| !matches!(t, Tok::Punct(_) | Tok::Connector(..)))
            .skip(1)
            .any(|t| match t {
                Tok::Verb { .. } | Tok::Participle { .. } => true,
                Tok::Filler(f) => {
                    let w = text[f.0..f.1].lower();
                    is_modal(&w)
                        || lexicon::get().is_finite(&w)
                        // "goes on", "lasts": a verb form the lexicon does not know.
                        || kind == "while"
                            && w.len() > 3
                            && w.ends_with('s')
                            && !w.ends_with("ss")
                            && !w.contains(' ')
                }
                _ => false,
            });
        // After "as" only a pronoun or troops, then a verb of the lexicon ("as they advance",
        // "as the enemy retires"): "as far as", "as a support", "such as" stay as they were.
        let as_clause = kind != "as"
            || match toks.get(k + 1) {
                Some(Tok::Filler(f)) => matches!(
                    text[f.0..f.1].lower().as_ref(),
                    "they" | "he" | "it" | "she" | "we"
                ),
                Some(Tok::Place(t)) => super::resolve::looks_like_troops(&t.text),
                _ => false,
            } && matches!(
                toks.get(k + 2),
                Some(Tok::Verb { .. } | Tok::Participle { .. })
            );
        if subject && verb_follows && as_clause {
            toks[k] = Tok::CondStart(kind.into(), s);
            rules.push(match kind {
                "before" => "cond.before",
                "as" => "cond.as",
                _ => "cond.while",
            });
        }
    }
    toks
}

/// Rule `place.before`: "assemble before Badajoz", "form before the village" — "before" and a
/// place (no clause after it, no time: those are `cond.before` and the grammar's deadline) is
/// where, in front of that place, never a time nor an unread word.
fn before_place(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let mut k = 0;
    while k + 1 < toks.len() {
        // Rule `place.above`: "the heights above Hall", "the ford below the bridge" — "above" or
        // "below" and a place is where, relative to it, never an unread word.
        if let Tok::Filler(f) = toks[k]
            && let w @ ("above" | "below") = text[f.0..f.1].lower().as_ref()
            && let Tok::Place(t) = &toks[k + 1]
            && matches!(t.form, Form::Name | Form::Vague | Form::Hex | Form::Pronoun)
            && !super::resolve::looks_like_troops(&t.text)
        {
            let rel = w.to_string();
            let t = t.clone();
            let span = (f.0, t.span.1);
            toks.splice(
                k..=k + 1,
                [Tok::Relation {
                    rel,
                    target: t,
                    span,
                }],
            );
            rules.push("place.above");
            k += 1;
            continue;
        }
        let fits = matches!(&toks[k], Tok::Filler(f) if text[f.0..f.1].eq_ignore_ascii_case("before"))
            && matches!(&toks[k + 1], Tok::Place(t)
                if matches!(t.form, Form::Name | Form::Vague | Form::Hex)
                    && !super::resolve::looks_like_troops(&t.text));
        if fits && let Tok::Place(t) = toks[k + 1].clone() {
            let span = (toks[k].span().0, t.span.1);
            toks.splice(
                k..=k + 1,
                [Tok::Relation {
                    rel: "in front of".into(),
                    target: t,
                    span,
                }],
            );
            rules.push("place.before");
        }
        k += 1;
    }
    toks
}

/// Rule `verb.in-support-of`: "send the rest forward in support of Ruffin", "move up in support
/// of the 1st Division" — "in support of" and a name is a support step of that command (6.3.2:
/// General), never a manner and an unread "of". A "follow" before it, in the same clause, goes
/// after the supported command: a move, not a pursuit of it.
fn in_support_of(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let mut k = 0;
    while k + 2 < toks.len() {
        let fits = matches!(&toks[k], Tok::Manner(m, _) if m == "in support")
            && matches!(&toks[k + 1], Tok::Filler(f) if text[f.0..f.1].eq_ignore_ascii_case("of"))
            && matches!(&toks[k + 2], Tok::Place(_) | Tok::Relation { .. });
        if !fits {
            k += 1;
            continue;
        }
        let span = (toks[k].span().0, toks[k + 1].span().1);
        toks.splice(
            k..=k + 1,
            [Tok::Verb {
                action: Action::Support,
                verb: text[span.0..span.1].to_lowercase(),
                span,
            }],
        );
        if let Some(j) = (0..k)
            .rev()
            .take_while(|&j| !matches!(toks[j], Tok::Connector(..) | Tok::Punct(_)))
            .find(|&j| matches!(toks[j], Tok::Verb { .. }))
            && let Tok::Verb {
                action: a @ Action::Pursue,
                verb,
                ..
            } = &mut toks[j]
            && verb == "follow"
        {
            *a = Action::Move;
        }
        rules.push("verb.in-support-of");
        k += 1;
    }
    toks
}

/// Rule `verb.split-object`: "keep your horse in hand", "hold the cavalry in readiness" — a
/// verb phrase of the lexicon written with its object inside it is that phrase (its action),
/// the object its objective and the rest a manner, so the phrase is not read as "keep" plus a
/// place called "hand". Only own troops or troop words may stand inside (never a place).
fn split_object(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    for k in 0..toks.len().saturating_sub(2) {
        // The verb: a verb of the lexicon, or the first word of a phrase the lexicon knows only
        // whole ("put" of "put in motion"), read as a word or a one-word name.
        let (vs, whole_only) = match &toks[k] {
            Tok::Verb { span, .. } => (*span, false),
            Tok::Filler(s) | Tok::Place(Target { span: s, .. })
                if text[s.0..s.1].chars().all(|c| c.is_ascii_lowercase()) =>
            {
                (*s, true)
            }
            _ => continue,
        };
        let Tok::Place(t) = &toks[k + 1] else {
            continue;
        };
        // Own troops, troop words, or a whole nation ("keep the Spaniards in check").
        let lex = lexicon::get();
        let nation = crate::text::fold(&t.text)
            .split(' ')
            .all(|w| w == "the" || lex.is_nation(w));
        // After a phrase-only verb a named command may stand inside too ("put the 4th Division
        // in motion"): the word is no verb without the phrase, so nothing else can be meant.
        let troops = t.form == Form::Own
            || (t.form == Form::Name
                && (t.text.chars().next().is_some_and(char::is_lowercase) || nation || whole_only)
                && super::resolve::looks_like_troops(&t.text));
        if !troops {
            continue;
        }
        let from = t.span.1;
        let Some(end) = toks.last().map(|l| l.span().1) else {
            continue;
        };
        let Some((action, to)) =
            lexicon::get().split_verb(&text[vs.0..vs.1], &text[from..end], from)
        else {
            continue;
        };
        // The completing words must be whole tokens, so nothing is cut in two.
        let Some(last) = (k + 2..toks.len()).find(|&j| toks[j].span().1 >= to) else {
            continue;
        };
        // The phrase's own last word may be a verb of its own ("check" in "keep … in check").
        if toks[last].span().1 != to
            || toks[k + 2..last]
                .iter()
                .any(|t| matches!(t, Tok::Punct(_) | Tok::Connector(..) | Tok::Verb { .. }))
            || matches!(toks[last], Tok::Punct(_) | Tok::Connector(..))
        {
            continue;
        }
        let tail = (toks[k + 2].span().0, to);
        // The verb as written; the completing words read back after the object, as a manner.
        let verb = text[vs.0..vs.1].to_lowercase();
        toks[k] = Tok::Verb {
            action,
            verb,
            span: vs,
        };
        toks.splice(
            k + 2..=last,
            [Tok::Manner(text[tail.0..tail.1].to_lowercase(), tail)],
        );
        rules.push("verb.split-object");
    }
    toks
}

/// Rule `route.round`: "take your division round by Ventosa", "go round through the wood" —
/// "round" before a route word is part of the route (a detour), not an unread word.
fn round_route(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let mut k = 0;
    while k + 1 < toks.len() {
        if let (Tok::Filler(f), Tok::RoutePrep(w, r)) = (&toks[k], &toks[k + 1])
            && matches!(text[f.0..f.1].lower().as_ref(), "round" | "around")
        {
            let merged = Tok::RoutePrep(w.clone(), (f.0, r.1));
            toks.splice(k..=k + 1, [merged]);
            rules.push("route.round");
        }
        // "march round by the north", "by the east": a route by a quarter of the compass is a
        // direction that way, never "the" left unread.
        if let (Tok::RoutePrep(w, r), Tok::Filler(f)) = (&toks[k], &toks[k + 1])
            && w.ends_with("by")
            && text[f.0..f.1].eq_ignore_ascii_case("the")
            && let Some(Tok::Compass(c, cs)) = toks.get(k + 2)
        {
            let merged = Tok::Compass(c.clone(), (r.0, cs.1));
            toks.splice(k..=k + 2, [merged]);
            rules.push("route.round");
        }
        k += 1;
    }
    toks
}

/// Rule `neg.relative`: "on ground which should not give you an advantage" — a negation inside
/// a relative clause (after "which", "that", "who", "where" and modals) describes, it forbids
/// nothing; "which you must not abandon" still speaks to the recipient.
fn relative_negation(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    for k in 1..toks.len() {
        let Tok::Negate(n) = toks[k] else { continue };
        let w = text[n.0..n.1].lower();
        // "not", or a modal and "not" read as one negator ("does not").
        let modal_not = w
            .strip_suffix(" not")
            .is_some_and(|m| !m.contains(' ') && is_modal(m));
        if w != "not" && !modal_not {
            continue;
        }
        let mut j = k;
        while j > 0
            && k - j < 3
            && matches!(&toks[j - 1], Tok::Filler(f) if is_modal(&text[f.0..f.1]))
        {
            j -= 1;
        }
        let relative = (j < k || modal_not)
            && j > 0
            && matches!(&toks[j - 1], Tok::Filler(f) if matches!(
                text[f.0..f.1].lower().as_ref(),
                "which" | "that" | "who" | "where"
            ));
        if relative {
            toks[k] = Tok::Filler(n);
            rules.push("neg.relative");
        }
    }
    toks
}

/// Rule `neg.nor`: "nor is any individual or body of men, in conceiving themselves displaced, to
/// attempt to regain their situation" — "nor is/are (subject) … to" forbids the verb after "to",
/// as "is not to" does; the subject between is the writer's description, not a place.
fn nor_clause(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let word = |t: &Tok| tok_word(text, t);
    let Some(k) = toks
        .iter()
        .position(|t| matches!(t, Tok::Filler(_) | Tok::Connector(..)) && word(t) == "nor")
    else {
        return toks;
    };
    if !toks
        .get(k + 1)
        .is_some_and(|t| matches!(word(t).as_str(), "is" | "are" | "shall" | "will" | "must"))
    {
        return toks;
    }
    let Some(to) = (k + 2..toks.len())
        .take_while(|&j| {
            !matches!(&toks[j], Tok::Punct(_) | Tok::Verb { .. })
                && !matches!(&toks[j], Tok::Connector(c, _) if c == ";" || c == "but")
        })
        .find(|&j| {
            matches!(&toks[j], Tok::DestPrep(p, _) if p == "to")
                && toks.get(j + 1).is_some_and(|t| {
                    // The case is the written one: "sent to Säter to cross" skips "to Säter".
                    let s = t.span();
                    let w = &text[s.0..s.1];
                    w.chars().next().is_some_and(char::is_lowercase)
                        && matches!(t, Tok::Place(_) | Tok::Filler(_) | Tok::Verb { .. })
                        && !w.contains(' ')
                })
        })
    else {
        return toks;
    };
    let span = (toks[k].span().0, toks[to].span().1);
    toks.splice(k..=to, [Tok::Negate(span)]);
    rules.push("neg.nor");
    toks
}

/// The passive links after which a prohibition's subject is its object ("the guns are not to
/// be withdrawn"), lower-case, with spaces around.
const PASSIVE_NOT: [&str; 8] = [
    " is not to be ",
    " are not to be ",
    " will not be ",
    " shall not be ",
    " must not be ",
    " is never to be ",
    " are never to be ",
    " will never be ",
];

/// Negators of the lexicon written between a passive link and "to be" ("is on no account to
/// be"), with the spaces around them and the "to be" after.
const PASSIVE_NEGATORS: [&str; 9] = [
    " on no account to be ",
    " upon no account to be ",
    " not on any account to be ",
    " by no means to be ",
    " by no means be ",
    " under no circumstances to be ",
    " in no case to be ",
    " on no consideration to be ",
    " never to be ",
];

/// A negator made by `passive_negation` ("the guns are not to be withdrawn"): the lemma of
/// its participle and its object as written.
fn passive_forbidden(neg: &str) -> Option<(&'static str, &str)> {
    let low = neg.lower();
    // "no ground is to be given up": "no", the object and a passive link without "not".
    if let Some(rest) = low.strip_prefix("no ") {
        let (at, link) = [
            " is to be ",
            " are to be ",
            " will be ",
            " shall be ",
            " must be ",
        ]
        .iter()
        .find_map(|l| rest.find(l).map(|at| (at, l.len())))?;
        let lemma = lexicon::get().lemma_of(rest.get(at + link..)?.trim())?;
        // "no attack is to be made": the noun is the action (rule `neg.no-noun`). "No carts
        // are to be allowed upon the road": allowing is forbidden when the noun is no action.
        let object = rest.get(..at)?;
        let action = object
            .rsplit(' ')
            .next()
            .is_some_and(|w| lexicon::get().is_action_noun(w));
        if matches!(
            lemma,
            "make" | "attempt" | "undertake" | "risk" | "hazard" | "begin"
        ) || matches!(lemma, "permit" | "allow") && action
        {
            return None;
        }
        return Some((lemma, neg.get(3..3 + at)?));
    }
    // "the baggage is on no account to be brought forward": a negator between the link and
    // "to be" reads as "not" (the object before it keeps its offsets).
    let low = match PASSIVE_NEGATORS
        .iter()
        .find_map(|n| low.find(n).map(|at| (at, n.len())))
    {
        Some((at, len)) => format!("{} not to be {}", &low[..at], &low[at + len..]),
        None => low.into_owned(),
    };
    let (at, link) = PASSIVE_NOT
        .iter()
        .find_map(|l| low.find(l).map(|at| (at, l.len())))?;
    let participle = low.get(at + link..)?;
    let lemma = lexicon::get().lemma_of(participle.trim())?;
    Some((lemma, neg.get(..at)?))
}

/// Rule `neg.passive`: "hold the ridge, and the guns are not to be withdrawn", "…; the bridge is
/// not to be destroyed" — after a clause break, a noun phrase, a negated passive link and a past
/// form of the lexicon forbid that verb on that noun phrase (read back "is not to withdraw the
/// guns"); one negator token carries the whole clause (see `passive_forbidden`).
fn passive_negation(text: &str, toks: Vec<Tok>) -> Vec<Tok> {
    let mut toks = no_passive(text, toks);
    let mut k = 0;
    while k + 3 < toks.len() {
        // After a clause break, or opening the sentence ("The baggage is on no account to be
        // brought forward.").
        let after_break = k == 0
            || matches!(&toks[k - 1], Tok::Connector(c, _)
            if matches!(c.as_str(), "and" | "," | ";" | "but"));
        let object = match &toks[k] {
            Tok::Place(t)
                if matches!(t.form, Form::Name | Form::Unit | Form::Own | Form::Vague) =>
            {
                Some(t.clone())
            }
            // "The guns are not to be withdrawn." taken for a third person ("The guns are
            // not to"): the negator repeats the recipient's link.
            Tok::Recipient {
                who: Some(t), span, ..
            } if k == 0
                && matches!(&toks[k + 1], Tok::Negate(n) if n.1 == span.1 && n.0 > span.0) =>
            {
                Some(t.clone())
            }
            _ => None,
        };
        // A link written apart from its negator ("is on no account to be").
        let link = usize::from(matches!(&toks[k + 1], Tok::Filler(f) if matches!(
            text[f.0..f.1].lower().as_ref(),
            "is" | "are" | "will" | "shall" | "must"
        )));
        let neg = matches!(toks.get(k + 1 + link), Some(Tok::Negate(_)));
        // "by no means" and its "to" apart.
        let to = link
            * usize::from(matches!(toks.get(k + 2 + link), Some(Tok::DestPrep(p, _)) if p == "to"));
        let be = matches!(toks.get(k + 2 + link + to),
            Some(Tok::Filler(f)) if text[f.0..f.1].eq_ignore_ascii_case("be"));
        let last = k + 3 + link + to;
        if after_break
            && let Some(object) = object
            && neg
            && be
            && let Some(Tok::Participle { span: p, .. } | Tok::Filler(p)) = toks.get(last)
        {
            let span = (object.phrase_span.0, p.1);
            if passive_forbidden(&text[span.0..span.1]).is_some() {
                // The object follows its negator so its places are still counted (`absorbed`).
                toks.splice(k..=last, [Tok::Negate(span), Tok::Place(object)]);
            }
        }
        k += 1;
    }
    toks
}

/// Rule `clause.relative`: "charge anything that comes out of Vimeiro", "attack whatever comes up
/// the road", "fire on any troops that cross the stream" — a relative clause on a verb's object
/// that is troops or a description ("anything", "whatever") says which troops, and when: it is a
/// condition of the stage (30.0), never a stage of its own; the places in it stay places.
fn relative_object(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    const RELATIVE: [&str; 4] = ["that", "which", "who", "as"];
    let word = |s: Span| text[s.0..s.1].lower();
    let mut k = 1;
    while k + 1 < toks.len() {
        let after_verb = matches!(toks[k - 1], Tok::Verb { .. })
            || k >= 2
                && matches!(toks[k - 1], Tok::DestPrep(..))
                && matches!(toks[k - 2], Tok::Verb { .. });
        let Tok::Place(t) = &toks[k] else {
            k += 1;
            continue;
        };
        // "any column", "every body of troops": a determiner of choice makes it a description.
        let any = text[t.phrase_span.0..t.phrase_span.1]
            .split(' ')
            .next()
            .is_some_and(|w| matches!(w.lower().as_ref(), "any" | "every" | "each"));
        let described = t.form == Form::Vague
            || t.form == Form::Name && (any || super::resolve::looks_like_troops(&t.text));
        if !after_verb || !described {
            k += 1;
            continue;
        }
        let mut t = t.clone();
        // "any column" names no place of the map: a description, like "whatever".
        if any && t.form == Form::Name && !super::resolve::looks_like_troops(&t.text) {
            t.form = Form::Vague;
        }
        // Where the relative starts: a relative word the description swallowed ("anything
        // that"), one after it ("any troops that"), or the verb right after "whatever".
        let swallowed = t.form == Form::Vague
            && t.text
                .rsplit_once(' ')
                .is_some_and(|(_, w)| RELATIVE.contains(&w.lower().as_ref()));
        let (rel, verb_at) = if swallowed {
            let cut = t.span.1 - t.text.rsplit_once(' ').map_or(0, |(_, w)| w.len());
            let head = text[t.span.0..cut].trim_end();
            let rel = (cut, t.span.1);
            t.text = nfc(head);
            t.phrase = nfc(&text[t.phrase_span.0..t.span.0 + head.len()]);
            t.span.1 = t.span.0 + head.len();
            t.phrase_span.1 = t.span.1;
            (Some(rel), k + 1)
        } else if let Some(Tok::Filler(f)) = toks.get(k + 1)
            && RELATIVE[..3].contains(&word(*f).as_ref())
        {
            (Some(*f), k + 2)
        } else if t.form == Form::Vague
            && matches!(
                word(t.span).as_ref(),
                "whatever" | "whoever" | "anything" | "everything"
            )
        {
            (None, k + 1)
        } else {
            k += 1;
            continue;
        };
        // The clause's verb: a verb form, a word of the lexicon, or a past participle.
        // After a relative word any lower-case word will do ("which attempt to cross").
        let verb = match toks.get(verb_at) {
            Some(Tok::Verb { span, .. } | Tok::Participle { span, .. }) => Some(*span),
            Some(Tok::Filler(f)) => {
                let w = word(*f);
                let first = w.split(' ').next().unwrap_or("");
                (rel.is_some()
                    || first.ends_with('s')
                    || is_modal(first)
                    || lexicon::get().is_finite(first))
                .then_some(*f)
            }
            Some(Tok::Place(p))
                if (rel.is_some() || p.text.ends_with('s'))
                    && p.form == Form::Name
                    && p.parts.is_empty()
                    && !p.text.contains(' ')
                    && p.text.starts_with(|c: char| c.is_lowercase()) =>
            {
                Some(p.span)
            }
            _ => None,
        };
        // "the enemy who holds Hall": a state describes the troops as they are now; only an
        // event ("comes out", "crosses") waits to happen.
        let stative = verb.is_some_and(|v| {
            matches!(
                word(v).split(' ').next().unwrap_or(""),
                "is" | "are"
                    | "holds"
                    | "hold"
                    | "occupies"
                    | "occupy"
                    | "lies"
                    | "lie"
                    | "stands"
                    | "stand"
                    | "remains"
                    | "remain"
                    | "defends"
                    | "defend"
                    | "guards"
                    | "guard"
            )
        });
        // It says where they are: "who holds Hall" places the objective as "at Hall" would.
        if stative
            && let (Some(r), Some(v)) = (rel, verb)
            && matches!(toks.get(verb_at + 1), Some(Tok::Place(_)))
        {
            let span = (r.0, v.1);
            let prep = Tok::DestPrep(words(&text[span.0..span.1].lower()), span);
            toks[k] = Tok::Place(t);
            toks.splice(k + 1..=verb_at, [prep]);
            rules.push("clause.relative");
            k += 2;
            continue;
        }
        let Some(verb) = verb.filter(|_| !stative) else {
            k += 1;
            continue;
        };
        // The clause's verbs are its own words, up to the clause's end.
        let mut j = verb_at;
        while j < toks.len() && !matches!(toks[j], Tok::Connector(..) | Tok::Punct(_)) {
            let to_before = j > verb_at && matches!(&toks[j - 1], Tok::DestPrep(p, _) if p == "to");
            if j == verb_at || to_before {
                if let Tok::Verb { span, .. } | Tok::Participle { span, .. } = toks[j] {
                    toks[j] = Tok::Filler(span);
                } else if j == verb_at && matches!(toks[j], Tok::Place(_)) {
                    toks[j] = Tok::Filler(verb);
                }
            } else if matches!(toks[j], Tok::Verb { .. }) {
                break;
            }
            j += 1;
        }
        let start = match rel {
            Some(r) => r,
            None => verb,
        };
        toks[k] = Tok::Place(t);
        match rel {
            Some(_) if swallowed => toks.insert(k + 1, Tok::CondStart("relative".into(), start)),
            Some(_) => toks[k + 1] = Tok::CondStart("relative".into(), start),
            None => toks.insert(k + 1, Tok::CondStart("relative".into(), (start.0, start.0))),
        }
        rules.push("clause.relative");
        k = j + 1;
    }
    toks
}

/// Rule `neg.passive` with "no": "no ground is to be given up", "no bridge is to be destroyed" —
/// "no", a noun phrase, a passive link and a past form of the lexicon forbid that verb on the
/// noun phrase ("give up ground"); one negator token carries the clause, its object after it.
fn no_passive(text: &str, mut toks: Vec<Tok>) -> Vec<Tok> {
    let mut k = 0;
    while k + 2 < toks.len() {
        let no = matches!(toks[k], Tok::Negate(n) if text[n.0..n.1].eq_ignore_ascii_case("no"));
        let object = matches!(&toks[k + 1], Tok::Place(t) if t.form == Form::Name);
        if !no || !object {
            k += 1;
            continue;
        }
        let end = (k + 2..toks.len().min(k + 12))
            .take_while(|&m| !matches!(toks[m], Tok::Punct(_) | Tok::Connector(..)))
            .find(|&m| {
                let span = (toks[k].span().0, toks[m].span().1);
                passive_forbidden(&text[span.0..span.1]).is_some()
            });
        if let Some(m) = end {
            let span = (toks[k].span().0, toks[m].span().1);
            // The object's tokens ("bridge over the Dyle") follow the negator, for their places.
            let object_end = passive_forbidden(&text[span.0..span.1])
                .map_or(span.0, |(_, obj)| span.0 + 3 + obj.len());
            let object: Vec<Tok> = toks[k + 1..m]
                .iter()
                .filter(|t| t.span().1 <= object_end)
                .cloned()
                .collect();
            toks.splice(k..=m, std::iter::once(Tok::Negate(span)).chain(object));
        }
        k += 1;
    }
    toks
}

/// Rule `neg.no-noun`: "no movement is to be attempted before dawn", "no advance will be made" —
/// "no" and an action noun of the lexicon followed by a passive ("is to be", "will be") forbid
/// that action; the noun is the verb of the prohibition, never a place.
fn no_noun(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let lex = lexicon::get();
    for k in 0..toks.len().saturating_sub(2) {
        let Tok::Negate(n) = toks[k] else { continue };
        if !text[n.0..n.1].eq_ignore_ascii_case("no") {
            continue;
        }
        let Tok::Place(t) = &toks[k + 1] else {
            continue;
        };
        let noun = &text[t.span.0..t.span.1];
        let passive = matches!(&toks[k + 2], Tok::Filler(f) | Tok::Negate(f)
            if matches!(text[f.0..f.1].lower().split(' ').next(),
                Some("is" | "are" | "will" | "shall" | "must" | "can" | "to")));
        if t.form == Form::Name
            && !noun.contains(' ')
            && noun.chars().all(char::is_lowercase)
            && lex.is_action_noun(noun)
            && passive
        {
            toks[k + 1] = Tok::Filler(t.span);
            rules.push("neg.no-noun");
        }
    }
    toks
}

/// Rule `time.day-word`: "cross the Danube at Ebersdorf to-morrow", "pass at Lobau to-night" — a
/// later day the grammar left as a word (after a name, or before a comma at the opening) is a
/// start time, as "to-morrow" before the verb is (30.0).
fn day_word(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let day = |s: Span| {
        let w = text[s.0..s.1].trim_end_matches([',', ' ']).to_lowercase();
        matches!(
            w.as_ref(),
            "to-morrow" | "tomorrow" | "to-night" | "tonight" | "to-day" | "today"
        )
        .then(|| {
            (
                s.0,
                s.0 + text[s.0..s.1].trim_end_matches([',', ' ']).len(),
                w,
            )
        })
    };
    let mut out = Vec::with_capacity(toks.len());
    for t in toks {
        // "Start the 3d regiment … of the Guard to-morrow, the 20th": the day word the name's
        // edges took in is cut off the name again.
        if let Tok::Place(p) = &t
            && p.form == Form::Name
            && p.parts.is_empty()
            && let Some(cut) = text[p.phrase_span.0..p.phrase_span.1].rfind(' ')
            && let Some((a, b, w)) = day((p.phrase_span.0 + cut + 1, p.phrase_span.1))
            && p.span.0 < p.phrase_span.0 + cut
        {
            let end = p.phrase_span.0 + cut;
            let name_from = p.span.0;
            out.push(Tok::Place(names::name_target(
                text,
                (name_from, end),
                p.phrase_span.0,
            )));
            rules.push("time.day-word");
            out.push(Tok::Timing {
                prep: "at".into(),
                value: Some(w),
                span: (a, b),
            });
            continue;
        }
        let hit = match &t {
            Tok::Filler(s) => day(*s),
            Tok::Recipient {
                who: Some(w),
                attached,
                span,
            } if attached.is_empty() && out.iter().any(|o| matches!(o, Tok::Recipient { .. })) => {
                day(*span).filter(|_| w.text.len() <= 9)
            }
            _ => None,
        };
        match hit {
            Some((a, b, w)) => {
                rules.push("time.day-word");
                out.push(Tok::Timing {
                    prep: "at".into(),
                    value: Some(w),
                    span: (a, b),
                });
            }
            None => out.push(t),
        }
    }
    out
}

/// Rule `lead.obliged`: "I shall likewise be much obliged to you, if you will take measures to
/// have … drawn into Elvas", "We should be very much obliged to you if you would …" — the
/// writer's thanks in advance and its "if you will" are one courtesy: what follows is the
/// order, never the writer's own intention (`lead.sender`) nor a condition.
fn obliged(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let start = lower::body_start(&toks);
    let Some(iff) = (start..toks.len().min(start + 12))
        .find(|&k| matches!(&toks[k], Tok::CondStart(c, _) if c.eq_ignore_ascii_case("if")))
    else {
        return toks;
    };
    if iff == start || iff + 2 >= toks.len() {
        return toks;
    }
    let lead = text[toks[start].span().0..toks[iff].span().0].lower();
    let ws: Vec<&str> = lead
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let opens = matches!(ws.first(), Some(&("i" | "we")))
        && matches!(ws.get(1), Some(&("shall" | "should" | "will" | "would")));
    let closes = ws.ends_with(&["obliged", "to", "you"]) || ws.ends_with(&["obliged"]);
    let between = ws.len() >= 3
        && ws[2..ws.len().saturating_sub(3).max(2)].iter().all(|w| {
            matches!(
                *w,
                "be" | "likewise"
                    | "also"
                    | "very"
                    | "much"
                    | "greatly"
                    | "particularly"
                    | "extremely"
                    | "obliged"
            )
        });
    let you = text[toks[iff + 1].span().0..toks[iff + 1].span().1].eq_ignore_ascii_case("you");
    let will = {
        let s = toks[iff + 2].span();
        matches!(text[s.0..s.1].lower().as_ref(), "will" | "would")
    };
    if !(opens && closes && between && you && will) {
        return toks;
    }
    let mut out: Vec<Tok> = toks[..start].to_vec();
    out.push(Tok::Courtesy((
        toks[start].span().0,
        toks[iff + 2].span().1,
    )));
    out.extend(toks.into_iter().skip(iff + 3));
    rules.push("lead.obliged");
    out
}

/// The forms of real letters read before the leads (reader20): spans of days and the ends of
/// "between" places, "Frankfort on the Oder" (without a scenario), thanks in advance.
fn letter_forms(
    text: &str,
    toks: Vec<Tok>,
    no_scenario: bool,
    rules: &mut Vec<&'static str>,
) -> Vec<Tok> {
    let toks = between_edges(text, toks, rules);
    let toks = if no_scenario {
        on_river(text, toks, rules)
    } else {
        toks
    };
    obliged(text, toks, rules)
}

/// Rules `time.between` and `name.between-edges`: "between the 15th of February and the 1st of
/// March" is a span of days (a time, never a place), and "the position between Oyarzun and the
/// Bidasoa too strong" ends its second place at its last name: the words after it ("too
/// strong") are left as words, never a place's.
fn between_edges(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let lex = lexicon::get();
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut it = toks.into_iter().peekable();
    while let Some(tok) = it.next() {
        let Tok::Place(t) = &tok else {
            out.push(tok);
            continue;
        };
        if t.form != Form::Between || t.parts.len() != 2 {
            out.push(tok);
            continue;
        }
        // A day: "15th of February", "the 1st" (its month may follow as "of March").
        let day = |p: &Target| {
            let ws: Vec<String> = p
                .text
                .split_whitespace()
                .map(|w| w.lower().into_owned())
                .collect();
            // An ordinal ("15th", "1st", "3d"), never a hex ("13.13") or a number.
            let ordinal = ws.first().is_some_and(|w| {
                let d = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
                !d.is_empty()
                    && d.chars().all(|c| c.is_ascii_digit())
                    && matches!(&w[d.len()..], "st" | "nd" | "rd" | "th" | "d")
            });
            ordinal && ws.iter().skip(1).all(|w| w == "of" || lex.is_month(w))
        };
        if day(&t.parts[0]) && day(&t.parts[1]) {
            let mut end = t.phrase_span.1;
            // "… and the 1st" "of" "March": the month the grammar left after it.
            let month = |x: Option<&Tok>| {
                x.is_some_and(|x| {
                    let s = x.span();
                    lex.is_month(&text[s.0..s.1].lower())
                })
            };
            if it.peek().is_some_and(|x| tok_word(text, x) == "of") {
                let of = it.next().expect("peeked");
                if month(it.peek()) {
                    end = it.next().expect("peeked").span().1;
                } else {
                    out.push(Tok::Timing {
                        prep: "between".into(),
                        value: Some(nfc(&text[t.phrase_span.0..end])),
                        span: (t.phrase_span.0, end),
                    });
                    out.push(of);
                    rules.push("time.between");
                    continue;
                }
            }
            out.push(Tok::Timing {
                prep: "between".into(),
                value: Some(nfc(&text[t.phrase_span.0..end])),
                span: (t.phrase_span.0, end),
            });
            rules.push("time.between");
            continue;
        }
        // The second place's trailing lower-case words that are no terrain ("too strong").
        let last = &t.parts[1];
        let ws: Vec<(usize, &str)> = text[last.span.0..last.span.1]
            .split_whitespace()
            .scan(last.span.0, |at, w| {
                let from = *at + text[*at..].find(w).unwrap_or(0);
                *at = from + w.len();
                Some((from, w))
            })
            .collect();
        let keep = ws.iter().rposition(|(_, w)| {
            w.starts_with(|c: char| c.is_uppercase()) || lex.is_terrain(&w.lower())
        });
        let Some(keep) = keep.filter(|&k| k + 1 < ws.len()) else {
            out.push(tok);
            continue;
        };
        let end = ws[keep].0 + ws[keep].1.len();
        let mut t = t.clone();
        let cut_from = ws[keep + 1].0;
        let cut_to = t.phrase_span.1;
        t.parts[1] = names::name_target(text, (last.span.0, end), last.phrase_span.0);
        t.span.1 = end;
        t.phrase_span.1 = end;
        t.text = nfc(&text[t.span.0..end]);
        t.phrase = nfc(&text[t.phrase_span.0..end]);
        out.push(Tok::Place(t));
        out.push(Tok::Filler((cut_from, cut_to)));
        rules.push("name.between-edges");
    }
    out
}

/// Rule `name.on-river` (without a scenario): in a list of places, "Frankfort on the Oder",
/// "Châlons on the Marne" is one town's name (a town and the river it stands on), never the
/// town and a second place: the name before "on (the)" follows a list's comma or "and" after
/// another place, the river is one capitalised word, and the list ends after it.
fn on_river(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let name = |t: &Tok| match t {
        Tok::Place(p) => {
            p.form == Form::Name
                && p.parts.is_empty()
                && p.text.starts_with(|c: char| c.is_uppercase())
                && !p.text.contains(' ')
        }
        _ => false,
    };
    let mut toks = toks;
    let mut k = 2;
    while k + 2 < toks.len() {
        let listed = matches!(&toks[k - 1], Tok::Connector(c, _) if c == "and" || c == ",")
            && (matches!(&toks[k - 2], Tok::Place(_) | Tok::Relation { .. })
                || matches!(&toks[k - 2], Tok::Connector(c, _) if c == ",")
                    && k >= 3
                    && matches!(&toks[k - 3], Tok::Place(_) | Tok::Relation { .. }));
        let on = matches!(&toks[k + 1], Tok::DestPrep(p, _) if p == "on");
        let ends = toks
            .get(k + 3)
            .is_none_or(|t| matches!(t, Tok::Punct(_) | Tok::Connector(..)));
        if listed && on && ends && name(&toks[k]) && name(&toks[k + 2]) {
            let (Tok::Place(a), Tok::Place(b)) = (&toks[k], &toks[k + 2]) else {
                unreachable!("checked by name()")
            };
            let t = names::name_target(text, (a.span.0, b.phrase_span.1), a.phrase_span.0);
            toks.splice(k..k + 3, [Tok::Place(t)]);
            rules.push("name.on-river");
        }
        k += 1;
    }
    toks
}

/// Rule `lead.passive-pronoun`: "It must be placed on a strong position" — a sentence opening
/// with "it" or "they", a link ("must", "will", "shall", "should", "is to", "are to"), "be" and
/// a participle of a move or a position, with no "by" after it, speaks of the addressee's own
/// force (the sentence before named it): the participle is his action, the pronoun no
/// objective. "It is to be held by …" (a passive with an agent) stays `lead.passive`'s.
fn passive_pronoun(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let start = lower::body_start(&toks);
    let Some(Tok::Place(p)) = toks.get(start) else {
        return toks;
    };
    if p.form != Form::Pronoun || !matches!(p.text.lower().as_ref(), "it" | "they") {
        return toks;
    }
    let w = |k: usize| toks.get(k).map(|t| tok_word(text, t)).unwrap_or_default();
    let link = match w(start + 1).as_str() {
        "must" | "will" | "shall" | "should" => 1,
        "is" | "are" if w(start + 2) == "to" => 2,
        _ => return toks,
    };
    let be = start + 1 + link;
    if w(be) != "be" {
        return toks;
    }
    let Some(Tok::Participle { action, span }) = toks.get(be + 1).cloned() else {
        return toks;
    };
    if !matches!(
        action,
        Action::Deploy | Action::Move | Action::Halt | Action::Reserve
    ) || toks
        .get(be + 2)
        .is_some_and(|t| matches!(t, Tok::RoutePrep(..)) && tok_word(text, t) == "by")
    {
        return toks;
    }
    let subject = (toks[start].span().0, toks[be - 1].span().1);
    let sp = (toks[be].span().0, span.1);
    // Read back in the lemma ("place on a strong position"), as `clause.having` does.
    let past = text[span.0..span.1].lower();
    let verb = lexicon::get()
        .lemma_of(&past)
        .map_or_else(|| nfc(&words(&text[sp.0..sp.1].lower())), str::to_string);
    toks.splice(
        start..=be + 1,
        [
            Tok::Recipient {
                who: None,
                attached: Vec::new(),
                span: subject,
            },
            Tok::Verb {
                action,
                verb,
                span: sp,
            },
        ],
    );
    rules.push("lead.passive-pronoun");
    toks
}

/// Rule `clause.participle-description`: "the five boats now formed into the two flying
/// bridges" — a past participle straight after a noun (not after "be", "is", "were" …)
/// describes that noun: a vague place after it and its preposition ("the two flying bridges")
/// is part of the description, never a place of the order (order-language §1.4: vague places
/// are listed only as a stage's objective or position). A named place there stays a place.
fn participle_description(
    text: &str,
    mut toks: Vec<Tok>,
    rules: &mut Vec<&'static str>,
) -> Vec<Tok> {
    let links = [
        "be", "been", "being", "is", "are", "was", "were", "to", "and", "or",
    ];
    for k in 1..toks.len().saturating_sub(2) {
        let Tok::Participle { .. } = toks[k] else {
            continue;
        };
        let noun = match &toks[k - 1] {
            Tok::Filler(_) => !links.contains(&tok_word(text, &toks[k - 1]).as_str()),
            Tok::Place(p) => p.form == Form::Name && !p.text.starts_with(char::is_uppercase),
            _ => false,
        };
        if !noun || !matches!(toks[k + 1], Tok::DestPrep(..) | Tok::RoutePrep(..)) {
            continue;
        }
        if let Tok::Place(p) = &toks[k + 2]
            && p.form == Form::Name
            && p.parts.is_empty()
            && !p.text.starts_with(char::is_uppercase)
        {
            toks[k + 2] = Tok::Filler(p.phrase_span);
            rules.push("clause.participle-description");
        }
    }
    toks
}

/// Rule `lead.passive-agents`: "The village is to be held by Anstruther's brigade and the
/// Portuguese brigade" — a passive's agent written as two troops joined by "and", at the end
/// of the sentence, is two recipients: the first is the passive's (`lead.passive`), the second
/// is read as another (`also`, rule `lead.several`), never an objective.
fn passive_second_agent(
    text: &str,
    mut toks: Vec<Tok>,
    also: &mut Vec<Reference>,
    rules: &mut Vec<&'static str>,
) -> Vec<Tok> {
    let troops = |t: &Tok| matches!(t, Tok::Place(p) if super::resolve::looks_like_troops(&p.text));
    let passive = toks
        .windows(2)
        .any(|w| tok_word(text, &w[0]) == "be" && matches!(w[1], Tok::Participle { .. }));
    if !passive {
        return toks;
    }
    let Some(by) = toks
        .iter()
        .rposition(|t| matches!(t, Tok::RoutePrep(p, _) | Tok::DestPrep(p, _) if p == "by"))
    else {
        return toks;
    };
    let ends = toks.get(by + 4).is_none_or(|t| matches!(t, Tok::Punct(_)));
    if !ends
        || !toks.get(by + 1).is_some_and(troops)
        || !matches!(toks.get(by + 2), Some(Tok::Connector(c, _)) if c == "and")
        || !toks.get(by + 3).is_some_and(troops)
    {
        return toks;
    }
    let Tok::Place(second) = toks.remove(by + 3) else {
        return toks;
    };
    toks.remove(by + 2);
    also.push(to_reference(&second));
    rules.push("lead.passive-agents");
    toks
}

/// Rule `lead.everything-subject`: "Everything that belongs to your staff and to general
/// headquarters must be assembled at Mainz" — "everything" (or "all") with a relative clause,
/// opening the sentence before the link ("must", "will", "shall", "is to", "are to") and a
/// verb, is the recipient: the things that are to move, read back whole.
fn everything_subject(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let start = lower::body_start(&toks);
    let Some(Tok::Place(p)) = toks.get(start) else {
        return toks;
    };
    let head = p.phrase.lower();
    if !(head.starts_with("everything that") || head.starts_with("all that"))
        || toks.iter().any(|t| matches!(t, Tok::Recipient { .. }))
    {
        return toks;
    }
    // The link: "must", "will", "shall", or "is to" / "are to".
    let link_len = |k: usize| match tok_word(text, &toks[k]).as_str() {
        "must" | "will" | "shall" => Some(1),
        "is" | "are" if toks.get(k + 1).is_some_and(|t| tok_word(text, t) == "to") => Some(2),
        _ => None,
    };
    let Some((link, len)) = (start + 1..toks.len().min(start + 16)).find_map(|k| {
        let n = link_len(k)?;
        (matches!(toks.get(k + n), Some(Tok::Verb { .. }))
            || toks.get(k + n).is_some_and(|t| tok_word(text, t) == "be")
                && matches!(toks.get(k + n + 1), Some(Tok::Participle { .. })))
        .then_some((k, n))
    }) else {
        return toks;
    };
    if toks[start..link]
        .iter()
        .any(|t| matches!(t, Tok::Punct(_) | Tok::Verb { .. }))
    {
        return toks;
    }
    let phrase_end = toks[link - 1].span().1;
    let who = Target {
        form: Form::Unit,
        ..names::name_target(text, (p.phrase_span.0, phrase_end), p.phrase_span.0)
    };
    let mut out: Vec<Tok> = toks[..start].to_vec();
    out.push(Tok::Recipient {
        who: Some(who),
        attached: Vec::new(),
        span: (p.phrase_span.0, toks[link + len - 1].span().1),
    });
    out.extend(toks.into_iter().skip(link + len));
    rules.push("lead.everything-subject");
    out
}

/// Rule `verb.observe-orders`: "Pray observe particularly the 29th Article of the
/// Instructions", "observe the standing orders" — "observe" (or "attend to") with a rule, an
/// order or an article as its object is to obey it: no stage (6.3: it moves nobody), and the
/// document is no place.
fn observe_orders(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    const PAPERS: [&str; 9] = [
        "article",
        "articles",
        "instructions",
        "orders",
        "order",
        "regulations",
        "rules",
        "directions",
        "memorandum",
    ];
    for k in 0..toks.len() {
        let Tok::Verb { span, .. } = toks[k] else {
            continue;
        };
        if !matches!(
            text[span.0..span.1].lower().as_ref(),
            "observe" | "observes"
        ) {
            continue;
        }
        let obj = if matches!(toks.get(k + 1), Some(Tok::Manner(..))) {
            k + 2
        } else {
            k + 1
        };
        let Some(Tok::Place(p)) = toks.get(obj) else {
            continue;
        };
        let before_of = p.text.split(" of ").next().unwrap_or("");
        let paper = before_of
            .split_whitespace()
            .last()
            .is_some_and(|w| PAPERS.contains(&w.lower().as_ref()));
        if paper {
            let ps = p.phrase_span;
            toks[k] = Tok::Filler(span);
            toks[obj] = Tok::Filler(ps);
            rules.push("verb.observe-orders");
        }
    }
    toks
}

/// Rule `cond.should-name`: "should Soult advance from Llerena, fall back …", "Should Ruffin be
/// repulsed, …" — "should", a name
/// and a verb open a condition, as "should the enemy advance" does (30.0).
fn should_name(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    for k in 0..toks.len().saturating_sub(2) {
        let Tok::Filler(s) = toks[k] else { continue };
        // Anywhere in the sentence: the read-back puts the condition after its stage ("hold
        // the heights should Soult advance"); "Soult should advance" has no name after it.
        // "Should Ruffin be repulsed", "should Hill have fallen back": a passive or perfect
        // after the name is the condition's verb too.
        let verb = match &toks[k + 2] {
            Tok::Verb { .. } | Tok::Participle { .. } => true,
            Tok::Filler(f) => matches!(text[f.0..f.1].lower().as_ref(), "be" | "have"),
            _ => false,
        };
        if text[s.0..s.1].eq_ignore_ascii_case("should")
            && matches!(&toks[k + 1], Tok::Place(t) if t.text.chars().next().is_some_and(char::is_uppercase))
            && verb
        {
            toks[k] = Tok::CondStart("should".into(), s);
            rules.push("cond.should-name");
        }
    }
    toks
}

/// Rule `verbless.then`: "Hold it till 1500, then Kirseberg." — a place alone after "then" at
/// the end of a sentence is where to march next: a move stage of the sequence (6.3.3).
fn then_place(toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let mut toks = toks;
    let n = toks.len();
    for k in 1..n {
        let then = matches!(&toks[k - 1], Tok::Connector(c, _) if c == "then" || c == "and then");
        // A name, a hex, or a definite place ("the bridge", a scenario alias); never troops.
        let place = matches!(&toks[k], Tok::Place(t) if matches!(t.form, Form::Name | Form::Hex)
            && !super::resolve::looks_like_troops(&t.text));
        let ends = toks[k + 1..]
            .iter()
            .all(|t| matches!(t, Tok::Punct(_) | Tok::Timing { .. }));
        if then && place && ends {
            let at = toks[k].span().0;
            toks.splice(
                k..k,
                [
                    Tok::Verb {
                        action: Action::Move,
                        verb: "march".into(),
                        span: (at, at),
                    },
                    Tok::DestPrep("to".into(), (at, at)),
                ],
            );
            rules.push("verbless.then");
            break;
        }
    }
    toks
}

/// Rule `time.by-clock`: "march to Kümla by 0800" — "by" and a bare military clock time is a
/// deadline (30.0), like "by noon"; it used to leave "by" as a route word and read "0800" as a
/// start time (a conditional, Complex order).
fn by_clock(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    for tok in toks {
        if let Tok::Timing { prep, value, span } = &tok
            && let Some(Tok::RoutePrep(w, by)) = out.last()
            && w.eq_ignore_ascii_case("by")
            && !matches!(prep.as_str(), "by" | "before" | "until" | "immediate")
            && text[span.0..span.1]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        {
            let joined = (by.0, span.1);
            out.pop();
            rules.push("time.by-clock");
            out.push(Tok::Timing {
                prep: "by".into(),
                value: value.clone(),
                span: joined,
            });
            continue;
        }
        out.push(tok);
    }
    out
}

/// Rule `lead.passive-own`: "The 2nd Division will be formed in column behind Hinzeberg",
/// "the guns are to be posted on the hill" — troops that "will be" or "are to be" done to are
/// the recipient, and the participle is the action (there is no agent to carry it out).
fn passive_own(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let word = |t: &Tok| tok_word(text, t);
    let troops = |t: &Tok| match t {
        Tok::Place(p) => super::resolve::looks_like_troops(&p.text),
        Tok::Recipient { who: Some(w), .. } => super::resolve::looks_like_troops(&w.text),
        _ => false,
    };
    let mut k = 1;
    while k + 1 < toks.len() {
        // "is to be loaded and sent to the rear": a first past form that is no stage ("loaded")
        // joins the participle after it (rule `lead.passive-and`).
        let mut j = k + 1;
        if word(&toks[k]) == "be"
            && let Tok::Filler(f) = toks[j]
            && {
                let w = text[f.0..f.1].lower();
                w.ends_with("ed") && lexicon::get().is_verb_word(&w)
            }
            && matches!(&toks.get(j + 1), Some(Tok::Connector(c, _)) if c == "and" || c == ",")
            && matches!(toks.get(j + 2), Some(Tok::Participle { .. }))
        {
            j += 2;
        }
        let Tok::Participle { action, span } = toks[j] else {
            k += 1;
            continue;
        };
        let be = word(&toks[k]) == "be";
        // "… will be formed": the grammar's recipient ("The 2nd Division will") or a troop
        // phrase before "will", "shall", "must", "is to", "are to".
        let subject = match toks[k - 1] {
            Tok::Recipient { .. } => troops(&toks[k - 1]),
            // "The reserve battery: be brought forward …" (the read-back of a name holding a
            // keyword): the colon lead is read later, by `colon_lead`.
            Tok::Punct(_) if word(&toks[k - 1]) == ":" => k >= 2 && troops(&toks[k - 2]),
            _ => {
                let w = word(&toks[k - 1]);
                let modal = matches!(w.as_str(), "will" | "shall" | "must");
                let is_to =
                    w == "to" && k >= 2 && matches!(word(&toks[k - 2]).as_str(), "is" | "are");
                let at = if is_to {
                    k.wrapping_sub(3)
                } else {
                    k.wrapping_sub(2)
                };
                (modal || is_to) && toks.get(at).is_some_and(troops)
            }
        };
        if be && subject {
            let sp = (toks[k].span().0, span.1);
            toks[k] = Tok::Verb {
                action,
                verb: nfc(&words(&text[sp.0..sp.1].lower())),
                span: sp,
            };
            toks.drain(k + 1..=j);
            rules.push("lead.passive-own");
            if j > k + 1 {
                rules.push("lead.passive-and");
            }
            // "… will be formed in column and marched to Kümla": a participle after "and"
            // carries on the same passive, a step of the same subject.
            let mut m = k + 1;
            while m + 1 < toks.len() && !matches!(toks[m], Tok::Punct(_)) {
                // "…, supported by the 95th" is who goes with them (rule `with.supported-by`).
                let by = toks
                    .get(m + 2)
                    .is_some_and(|t| matches!(t, Tok::RoutePrep(..)) && word(t) == "by");
                if matches!(&toks[m], Tok::Connector(c, _) if c == "and" || c == ",")
                    && !by
                    && let Tok::Participle { action, span } = toks[m + 1]
                {
                    toks[m + 1] = Tok::Verb {
                        action,
                        verb: text[span.0..span.1].to_lowercase(),
                        span,
                    };
                    rules.push("lead.passive-and");
                }
                m += 1;
            }
        }
        k += 1;
    }
    toks
}

/// Rule `lead.several` (lists in one lead): "2 Div + 3 Div:", "2nd Div, 3rd Div:", "2-I & 3-I:"
/// name several recipients; "1st Brigade, 2nd Division" (a brigade of a division: the words
/// after the comma are another echelon) and any exact name of the scenario stay one.
fn split_recipient(
    text: &str,
    mut toks: Vec<Tok>,
    index: Option<&super::resolve::Index<'_>>,
    also: &mut Vec<Reference>,
) -> Vec<Tok> {
    let Some(k) = toks.iter().position(|t| matches!(t, Tok::Recipient { .. })) else {
        return toks;
    };
    let Tok::Recipient {
        who: Some(w),
        attached,
        span,
    } = &toks[k]
    else {
        return toks;
    };
    let Some(raw) = text.get(w.span.0..w.span.1) else {
        return toks;
    };
    let head = |p: &str| {
        p.split_whitespace()
            .last()
            .map(|x| crate::text::fold(x).trim_end_matches('s').to_string())
    };
    // The parts and their byte offsets in `raw`.
    let mut parts: Vec<(usize, &str)> = Vec::new();
    let mut at = 0;
    let mut plus = false;
    for (i, c) in raw.char_indices() {
        if matches!(c, '+' | '&' | ',') {
            plus |= c != ',';
            parts.push((at, &raw[at..i]));
            at = i + c.len_utf8();
        }
    }
    parts.push((at, &raw[at..]));
    let parts: Vec<(usize, &str)> = parts
        .into_iter()
        .map(|(o, p)| (o + (p.len() - p.trim_start().len()), p.trim()))
        .collect();
    // "Morvan, Sauret:" — surnames, one word each, that the scenario's commands bear.
    let surnames = index.is_some()
        && parts.iter().all(|(_, p)| {
            !p.contains(char::is_whitespace) && p.chars().next().is_some_and(char::is_uppercase)
        });
    if parts.len() < 2
        || parts
            .iter()
            .any(|(_, p)| p.is_empty() || !surnames && !super::resolve::looks_like_troops(p))
    {
        return toks;
    }
    // Commas alone split only names of one echelon ("2nd Div, 3rd Div").
    let h0 = head(parts[0].1);
    if !plus && !surnames && parts.iter().any(|(_, p)| head(p) != h0) {
        return toks;
    }
    // With a scenario every part must name a command of its own, each a different one.
    if let Some(ix) = index {
        let mut ids: Vec<String> = Vec::new();
        for (_, p) in &parts {
            match ix.unit(p, false) {
                super::resolve::Match::Found {
                    resolved,
                    near: None,
                    ..
                } if !ids.contains(&resolved.id) => ids.push(resolved.id),
                _ => return toks,
            }
        }
    }
    let target = |(o, p): (usize, &str)| {
        let sp = (w.span.0 + o, w.span.0 + o + p.len());
        Target {
            form: Form::Unit,
            text: nfc(p),
            span: sp,
            phrase: nfc(p),
            phrase_span: sp,
            hexes: Vec::new(),
            within: None,
            parts: Vec::new(),
        }
    };
    let first = target(parts[0]);
    also.extend(parts[1..].iter().map(|x| to_reference(&target(*x))));
    toks[k] = Tok::Recipient {
        who: Some(first),
        attached: attached.clone(),
        span: *span,
    };
    toks
}

/// Troops named inside "put / set … in motion" (rule `verb.split-object`) that are not the
/// enemy or a nation: the troops that move (forces), never where to.
fn friendly_troops(text: &str) -> bool {
    let lex = lexicon::get();
    !crate::text::fold(text).split(' ').any(|w| {
        let w = w.trim_end_matches("'s");
        w == "enemy" || w == "enemys" || lex.is_nation(w)
    })
}

/// Rule `verb.bring`: "take your grenadiers forward to 34.10", "carry the division to Kümla" —
/// a verb of taking whose object is the recipient's own troops and which goes on to a
/// direction or a destination moves them; it captures nothing (issue 17).
fn bring_troops(
    text: &str,
    mut toks: Vec<Tok>,
    index: Option<&super::resolve::Index<'_>>,
    rules: &mut Vec<&'static str>,
) -> Vec<Tok> {
    for k in 0..toks.len().saturating_sub(2) {
        let Tok::Verb {
            action: Action::Attack,
            verb,
            span,
        } = &toks[k]
        else {
            continue;
        };
        if !matches!(verb.as_str(), "take" | "carry") {
            continue;
        }
        // "take the 1st Division round by Irun": a friendly command named as the object is
        // taken somewhere too, as "your division" is (never the enemy or a nation).
        // "take the light cavalry across the Coa": troops described in lower case, never the
        // enemy's nor a nation's, are the writer's own too.
        // Only on to somewhere: "take the battery at Hall" captures it.
        let onto = matches!(&toks[k + 2], Tok::Compass(..) | Tok::RoutePrep(..))
            || matches!(&toks[k + 2], Tok::DestPrep(p, _) if p == "to" || p == "into");
        let own_troops = matches!(&toks[k + 1], Tok::Place(t)
            if t.form == Form::Own && super::resolve::looks_like_troops(&text[t.span.0..t.span.1])
                || (subjects::commands(t, index)
                    || onto
                        && t.form == Form::Name
                        && t.text.starts_with(char::is_lowercase)
                        && super::resolve::looks_like_troops(&t.text)
                        && friendly_troops(&t.text))
                    && !crate::text::fold(&t.text)
                    .split(' ')
                    .any(|w| w.trim_end_matches("'s") == "enemy" || w == "enemys"));
        let onward = matches!(
            &toks[k + 2],
            Tok::Compass(..) | Tok::DestPrep(..) | Tok::RoutePrep(..)
        );
        if own_troops && onward {
            toks[k] = Tok::Verb {
                action: Action::Move,
                verb: verb.clone(),
                span: *span,
            };
            rules.push("verb.bring");
        }
    }
    toks
}

/// Rule `verb.object-noun`: a lexicon verb phrase that ends in its terrain object ("take up
/// the bridge") followed by "at" or "of" and a name gives that object its name: "take up the
/// bridge at Kirseberg" removes the bridge at Kirseberg (a place of its own), not Kirseberg.
fn object_noun(
    text: &str,
    mut toks: Vec<Tok>,
    index: Option<&super::resolve::Index<'_>>,
    rules: &mut Vec<&'static str>,
) -> Vec<Tok> {
    let lex = lexicon::get();
    for k in 0..toks.len().saturating_sub(2) {
        let Tok::Verb { action, span, .. } = &toks[k] else {
            continue;
        };
        let (action, vspan) = (*action, *span);
        let vtext = &text[vspan.0..vspan.1];
        let Some((head, noun)) = vtext.rsplit_once(' ') else {
            continue;
        };
        let Some(head) = head
            .strip_suffix(" the")
            .or_else(|| head.strip_suffix(" The"))
        else {
            continue;
        };
        let linked = matches!(&toks[k + 1], Tok::DestPrep(p, _) if p == "at")
            || matches!(&toks[k + 1], Tok::Filler(f) if text[f.0..f.1].eq_ignore_ascii_case("of"));
        let Tok::Place(p) = &toks[k + 2] else {
            continue;
        };
        if !linked
            || !lex.is_terrain(&noun.lower())
            || p.form != Form::Name
            || !p.text.chars().any(char::is_uppercase)
        {
            continue;
        }
        let noun_at = vspan.1 - noun.len();
        let name = (noun_at, p.span.1);
        // With a scenario the joined name must be one of its places.
        if index.is_some_and(|ix| !ix.is_exact_name(&text[name.0..name.1])) {
            continue;
        }
        let the = noun_at - "the ".len();
        let verb_end = vspan.0 + head.len();
        toks[k] = Tok::Verb {
            action,
            verb: text[vspan.0..verb_end].to_lowercase(),
            span: (vspan.0, verb_end),
        };
        toks[k + 1] = Tok::Place(names::name_target(text, name, the));
        toks.remove(k + 2);
        rules.push("verb.object-noun");
        return object_noun(text, toks, index, rules);
    }
    toks
}

/// Rule `name.action-noun`: "cover the retreat of the 2nd Division", "protect the passage of
/// the guns", "secure the crossing of the stream" — an action noun (lexicon `[actions]`) joined
/// by "of" to what follows is no place: the object is the troops or place after "of", with
/// "retreat of" as its relation, read back as written. One pass, linear in the tokens.
fn action_noun(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let lex = lexicon::get();
    // "[the|his|their …] NOUN of [the]" and nothing else: the words between the verb and the
    // object.
    let lead = |ws: &[&str]| -> Option<String> {
        let ws: Vec<&str> = match ws.first() {
            Some(&("the" | "his" | "their" | "its" | "our" | "your" | "this" | "that")) => {
                ws[1..].to_vec()
            }
            _ => ws.to_vec(),
        };
        match ws.as_slice() {
            [n, "of"] | [n, "of", "the"] if lex.is_action_noun(n) => Some(format!("{n} of")),
            _ => None,
        }
    };
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    for tok in toks {
        // "the 2nd Division's attack on Hall": an action noun after a possessive (rule
        // `verb.possessed` made it a word) is the possessor's.
        if let Tok::Filler(f) = &tok
            && lex.is_action_noun(&text[f.0..f.1].lower())
            && out.len() >= 2
            && matches!(
                out[out.len() - 2],
                Tok::Verb { .. } | Tok::DestPrep(..) | Tok::RoutePrep(..)
            )
            && let Some(Tok::Place(p)) = out.last()
            && p.form == Form::Name
            && p.parts.is_empty()
            && let Some(bare) = p
                .text
                .strip_suffix("'s")
                .or_else(|| p.text.strip_suffix("’s"))
        {
            let mut target = p.clone();
            let cut = p.text.len() - bare.len();
            target.text = bare.to_string();
            target.span.1 -= cut;
            target.phrase_span.1 -= cut;
            target.phrase = nfc(&text[target.phrase_span.0..target.phrase_span.1]);
            let rel = text[f.0..f.1].to_lowercase();
            let span = (p.phrase_span.0, f.1);
            out.pop();
            rules.push("name.action-noun");
            out.push(Tok::Relation { rel, target, span });
            continue;
        }
        let Tok::Place(t) = &tok else {
            out.push(tok);
            continue;
        };
        // One captured name: "the passage of the guns".
        let whole = &text[t.phrase_span.0..t.phrase_span.1];
        let ws: Vec<String> = whole.split_whitespace().map(str::to_lowercase).collect();
        if t.form == Form::Name
            && t.parts.is_empty()
            && let Some(of) = ws.iter().position(|w| w == "of")
            && of + 1 < ws.len()
            && let Some(rel) = lead(&ws[..=of].iter().map(String::as_str).collect::<Vec<_>>())
        {
            // The object starts after "of" (with its article).
            let mut at = t.phrase_span.0;
            for _ in 0..=of {
                let rest = &text[at..t.phrase_span.1];
                let skip = rest.len() - rest.trim_start().len();
                let w = rest.split_whitespace().next().unwrap_or("");
                at += skip + w.len();
            }
            let rest = &text[at..t.phrase_span.1];
            let from = at + (rest.len() - rest.trim_start().len());
            let article = text[from..t.phrase_span.1]
                .get(..4)
                .is_some_and(|a| a.eq_ignore_ascii_case("the "));
            let name_from = if article { from + 4 } else { from };
            let target = names::name_target(text, (name_from, t.phrase_span.1), from);
            rules.push("name.action-noun");
            out.push(Tok::Relation {
                rel,
                target,
                span: t.phrase_span,
            });
            continue;
        }
        // Tokens before it: "the retreat" "of", "crossing of the", "the march" "of".
        let mut done = false;
        for back in 1..=3usize.min(out.len()) {
            let k = out.len() - back;
            let ok = out[k..].iter().all(|x| match x {
                Tok::Filler(_) | Tok::Verb { .. } | Tok::Participle { .. } => true,
                Tok::Place(p) => p.form == Form::Name && p.parts.is_empty(),
                _ => false,
            });
            if !ok {
                break;
            }
            let mut from = out[k].span().0;
            // An article no token kept ("the" cut from "the passage of the Viskan") is the
            // relation's.
            let prev_end = k.checked_sub(1).map_or(0, |j| out[j].span().1);
            if let Some(gap) = text.get(prev_end..from)
                && let Some(w) = gap.split_whitespace().last()
                && matches!(w.lower().as_ref(), "the" | "his" | "their" | "its")
                && gap.split_whitespace().count() == 1
            {
                from = prev_end + gap.find(w).unwrap_or(0);
            }
            let Some(gap) = text.get(from..t.phrase_span.0) else {
                break;
            };
            let gap: Vec<String> = gap.split_whitespace().map(str::to_lowercase).collect();
            if let Some(rel) = lead(&gap.iter().map(String::as_str).collect::<Vec<_>>()) {
                // A verb before the noun is the step's own verb, not part of the relation:
                // "secure the crossing" keeps "secure".
                out.truncate(k);
                rules.push("name.action-noun");
                out.push(Tok::Relation {
                    rel,
                    target: t.clone(),
                    span: (from, t.phrase_span.1),
                });
                done = true;
                break;
            }
        }
        if !done {
            out.push(tok);
        }
    }
    out
}

/// Rule `pronoun.demonstrative`: "defend that village", "those heights in your front" — a
/// demonstrative and a terrain noun point back like "it": not a place of its own, resolved to
/// the last place named before it (rule `pronoun.antecedent`).
fn demonstrative(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let lex = lexicon::get();
    for k in 1..toks.len() {
        let pointer = matches!(&toks[k - 1], Tok::Filler(s)
            if matches!(text[s.0..s.1].lower().as_ref(), "that" | "this" | "these" | "those"));
        let Tok::Place(t) = &toks[k] else { continue };
        let terrain = t.form == Form::Name
            && t.phrase_span.0 == t.span.0
            && t.text.split_whitespace().all(|w| {
                w.chars().all(char::is_lowercase) && (lex.is_terrain(w) || lex.is_name_adjective(w))
            });
        if pointer && terrain {
            let from = toks[k - 1].span().0;
            let mut p = t.clone();
            p.form = Form::Pronoun;
            p.span = (from, t.span.1);
            p.phrase_span = p.span;
            p.text = crate::text::nfc(&text[from..t.span.1]);
            p.phrase = p.text.clone();
            toks[k] = Tok::Place(p);
            toks.remove(k - 1);
            rules.push("pronoun.demonstrative");
            return demonstrative(text, toks, rules);
        }
    }
    toks
}

/// Rule `verb.possessed`: "Loison's attack has failed" — a verb form right after a
/// possessive name is a noun (the attack), not an action.
fn possessed_noun(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    for k in 1..toks.len() {
        let possessive = matches!(&toks[k - 1], Tok::Place(t) if t.form == Form::Name && {
            let w = &text[t.span.0..t.span.1];
            w.ends_with("'s") || w.ends_with("’s") || w.ends_with("s'")
        });
        // "drive in the enemy posts": troops as the object of a verb, then a troop noun that is
        // also a verb form — the noun ends the object, it is no action.
        let object_troops = k >= 2
            && matches!(&toks[k - 2], Tok::Verb { .. })
            && matches!(&toks[k - 1], Tok::Place(t) if t.form == Form::Name
                && super::resolve::looks_like_troops(&t.text))
            && matches!(&toks[k], Tok::Verb { span, .. }
                if lexicon::get().is_troop_word(&crate::text::fold(&text[span.0..span.1])));
        // "by the Kösen pass", "the Maya pass": a terrain noun that is also a verb form, right
        // after a proper name, ends that name (as rule `name.terrain-head` for keywords).
        let named_terrain = matches!(&toks[k - 1], Tok::Place(t) if t.form == Form::Name
                && t.text.split_whitespace().last().is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase)))
            && matches!(&toks[k], Tok::Verb { span, .. }
                if lexicon::get().is_terrain(&text[span.0..span.1].lower()));
        let possessive = possessive || object_troops || named_terrain;
        if let Tok::Verb { span, .. } = &toks[k]
            && possessive
        {
            let span = *span;
            rules.push("verb.possessed");
            // "Frobisher's ford": a terrain noun extends the name; so does a troop noun ("the
            // enemy's posts", "Soult's pickets": troops, the object of the verb before).
            let noun = text[span.0..span.1].lower();
            let lex = lexicon::get();
            if (lex.is_terrain(&noun) || lex.is_troop_word(&crate::text::fold(&noun)))
                && let Tok::Place(t) = &toks[k - 1]
            {
                let from = t.phrase_span.0;
                toks[k - 1] = Tok::Place(names::name_target(text, (t.span.0, span.1), from));
                toks.remove(k);
                return possessed_noun(text, toks, rules);
            }
            toks[k] = Tok::Filler(span);
        }
    }
    toks
}

/// Rule `verb.take-position`: "take up a defensive position", "take a strong position on the
/// heights" deploy; they capture nothing (the position stays the objective, a vague place).
fn take_position(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    for k in 0..toks.len() {
        let Tok::Verb {
            action: Action::Attack,
            verb,
            span,
        } = &toks[k]
        else {
            continue;
        };
        if verb != "take" {
            continue;
        }
        let up = matches!(toks.get(k + 1), Some(Tok::DestPrep(p, _) | Tok::RoutePrep(p, _)) if p == "up");
        let j = k + 1 + usize::from(up);
        let position = matches!(toks.get(j), Some(Tok::Place(t)) if {
            let last = text[t.span.0..t.span.1].rsplit(' ').next().unwrap_or("").lower();
            matches!(last.as_ref(), "position" | "positions" | "post" | "ground")
        });
        if position {
            toks[k] = Tok::Verb {
                action: Action::Deploy,
                verb: verb.clone(),
                span: *span,
            };
            rules.push("verb.take-position");
            if up {
                // "take up": the particle of the verb, not a route.
                toks.remove(k + 1);
                return take_position(text, toks, rules);
            }
        }
    }
    toks
}

/// Rule `verb.follow-own`: "follow Loison's division", "follow the 1st Division along the
/// road" — to follow a particular body of troops that is not described as the enemy is to move
/// behind it (General); "follow the enemy", "follow them up" still pursue.
fn follow_own(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let lex = lexicon::get();
    for k in 0..toks.len().saturating_sub(1) {
        let Tok::Verb {
            action: Action::Pursue,
            verb,
            span,
        } = &toks[k]
        else {
            continue;
        };
        if lexicon::base_form(verb) != "follow" {
            continue;
        }
        // "The second column … follows the first": an ordinal alone is the body of troops
        // named before it (rule `name.ordinal-troops`), elided.
        let elided = |t: &Target| {
            t.form == Form::Name && lex.is_ordinal(&crate::text::fold(&text[t.span.0..t.span.1]))
        };
        let own_troops = |t: &Target| {
            let words = crate::text::fold(&text[t.span.0..t.span.1]);
            elided(t)
                || matches!(t.form, Form::Name | Form::Unit | Form::Own)
                    && super::resolve::looks_like_troops(&text[t.span.0..t.span.1])
                    && !words
                        .split(' ')
                        .all(|w| lex.is_nation(w) || w == "the" || w == "all")
                    && !words
                        .split(' ')
                        .any(|w| matches!(w, "enemy" | "enemys" | "enemies"))
        };
        // "follow directly the movement of …": an ordinary lower-case word (no place, no
        // troops) or a manner between the verb and its object is passed over.
        let adverb = |t: &Tok| match t {
            Tok::Manner(..) | Tok::Timing { .. } => true,
            // The read-back's comma after the adverb ("follow closely, the 4th Division").
            Tok::Connector(c, _) => c == ",",
            Tok::Place(x) => {
                let w = &text[x.span.0..x.span.1];
                x.form == Form::Name
                    && !w.contains(' ')
                    && !w.chars().any(char::is_uppercase)
                    && !lex.is_terrain(w)
                    && !lex.is_ordinal(w)
                    && !super::resolve::looks_like_troops(w)
            }
            _ => false,
        };
        let Some(object) = toks[k + 1..].iter().find(|t| !adverb(t)) else {
            continue;
        };
        let own = match object {
            // "move behind the 2-4-I and follow it": the pronoun's antecedent decides.
            // The clause's own subject before its link ("and that the cavalry will follow
            // it") does not follow itself: passed over.
            Tok::Place(t) if t.form == Form::Pronoun => toks[..k]
                .iter()
                .enumerate()
                .rev()
                .find_map(|(j, x)| match x {
                    Tok::Place(a)
                        if a.form != Form::Pronoun
                            && !subject_before_link(text, &toks[j + 1..]) =>
                    {
                        Some(a)
                    }
                    Tok::Relation { target, .. } => Some(target),
                    _ => None,
                })
                .is_some_and(own_troops),
            Tok::Place(t) => own_troops(t),
            _ => false,
        };
        if own {
            toks[k] = Tok::Verb {
                action: Action::Move,
                verb: verb.clone(),
                span: *span,
            };
            rules.push("verb.follow-own");
        }
    }
    toks
}

/// The tokens after a name open with its link ("will", "shall", "must", "is to", "are to"):
/// the name is its clause's subject.
fn subject_before_link(text: &str, after: &[Tok]) -> bool {
    let w = |k: usize| {
        after
            .get(k)
            .map(|t| text[t.span().0..t.span().1].to_ascii_lowercase())
    };
    match w(0).as_deref() {
        Some("will" | "shall" | "must") => true,
        Some("is" | "are") => w(1).as_deref() == Some("to"),
        _ => false,
    }
}

/// Rule `lead.sender-to`: "Lorcet to Pellerin: hold Kümla." — of two leads, "X to" followed
/// by "Y:", X is the writer (a courtesy) and Y the recipient.
fn sender_to(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    let ends = |t: &Tok, end: &str| {
        let s = t.span();
        text[s.0..s.1].trim_end().lower().ends_with(end)
    };
    if let [
        first @ Tok::Recipient { .. },
        second @ Tok::Recipient { .. },
        ..,
    ] = toks.as_slice()
        && ends(first, " to")
        && (ends(second, ":") || ends(second, "—") || ends(second, "-"))
    {
        let span = first.span();
        toks[0] = Tok::Courtesy(span);
        rules.push("lead.sender-to");
    }
    toks
}

/// Rule `verb.ready-to`: "hold yourself ready to march at two in the morning" — the verb
/// after "ready to" is what the troops are to be ready for, not a stage of its own (nothing
/// moves until ordered), and the time is when they must be ready: a deadline, not a start
/// (30.0), so the order stays General.
fn ready_to(text: &str, mut toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    // "hold your division ready", "keep your men ready": the recipient's own troops held ready
    // are the lexicon's "hold yourself ready" (reserve), not an objective to defend.
    let mut k = 0;
    while k + 1 < toks.len() {
        let held = match &toks[k] {
            Tok::Verb { verb, .. } => matches!(verb.as_str(), "hold" | "keep"),
            // "have" is an auxiliary of the lexicon ([finite]), so a word, not a verb.
            Tok::Filler(s) => text[s.0..s.1].eq_ignore_ascii_case("have"),
            _ => false,
        };
        let own_ready = matches!(&toks[k + 1], Tok::Place(t)
            if t.form == Form::Own && t.text.lower().ends_with(" ready"));
        if held && own_ready {
            let span = (toks[k].span().0, toks[k + 1].span().1);
            let verb = text[span.0..span.1].to_lowercase();
            let v = Tok::Verb {
                action: Action::Reserve,
                verb,
                span,
            };
            toks.splice(k..=k + 1, [v]);
        }
        k += 1;
    }
    let mut k = 0;
    while k + 2 < toks.len() {
        // "…, ready to charge": the troops' state after a comma, said of the stage before.
        let ready_word = matches!(&toks[k], Tok::Place(t) if t.phrase == "ready")
            && matches!(toks.get(k.wrapping_sub(1)), Some(Tok::Connector(c, _)) if c == ",");
        let ready = ready_word
            || matches!(&toks[k], Tok::Verb { action: Action::Reserve, verb, .. }
                if verb.contains("ready") || verb.contains("readiness"));
        let to_verb = matches!(&toks[k + 1], Tok::DestPrep(w, _) if w == "to")
            && matches!(toks[k + 2], Tok::Verb { .. });
        if !(ready && to_verb) {
            k += 1;
            continue;
        }
        let from = if ready_word { k } else { k + 1 };
        let span = (toks[from].span().0, toks[k + 2].span().1);
        let words = nfc(&words(&text[span.0..span.1]));
        toks.splice(from..=k + 2, [Tok::Manner(words, span)]);
        // Its time, up to the next action or clause, is a deadline.
        for t in &mut toks[from + 1..] {
            match t {
                Tok::Timing { prep, .. } if prep == "at" => *prep = "by".into(),
                Tok::Verb { .. } | Tok::Connector(..) | Tok::CondStart(..) => break,
                _ => {}
            }
        }
        rules.push("verb.ready-to");
        k = from + 1;
    }
    toks
}

/// Rule `division.members` (Vimeiro V2.3; issue 17): "form a temporary division with
/// 3-Nightingall, 4-Bowes and the battery at 15.16" — every name of the list after "with" is a
/// member (kept in `attached`, so it is resolved or flagged, never dropped); "the battery at
/// 15.16" is a member described by its kind and hex. The list ends at the next verb or ";".
fn division_members(text: &str, toks: Vec<Tok>, members: &mut Vec<Reference>) -> Vec<Tok> {
    let Some(v) = toks.iter().position(|t| {
        matches!(
            t,
            Tok::Verb {
                action: Action::FormDivision,
                ..
            }
        )
    }) else {
        return toks;
    };
    let mut k = v + 1;
    let mut found: Vec<Reference> = Vec::new();
    let mut end = k;
    while k < toks.len() {
        let (target, next) = match &toks[k] {
            Tok::With(t, _) if k == v + 1 => (t.clone(), k + 1),
            Tok::Place(t) if k > v + 1 && matches!(t.form, Form::Name | Form::Unit) => {
                (t.clone(), k + 1)
            }
            Tok::Connector(c, _) if (c == "," || c == "and" || c == "&") && k > v + 1 => {
                // A connector before a verb ends the list ("…, and defend Vimeiro").
                if toks
                    .get(k + 1)
                    .is_none_or(|t| !matches!(t, Tok::Place(_) | Tok::Connector(..)))
                {
                    break;
                }
                k += 1;
                continue;
            }
            _ => break,
        };
        let mut r = to_reference(&target);
        r.form = Form::Unit;
        k = next;
        // "the battery at 15.16": a member found by its kind and hex.
        if let (Some(Tok::DestPrep(p, _)), Some(Tok::Place(h))) = (toks.get(k), toks.get(k + 1))
            && p == "at"
            && h.form == Form::Hex
            && !h.hexes.is_empty()
        {
            r.hexes = h.hexes.clone();
            r.span.1 = h.span.1;
            r.phrase = crate::text::nfc(&text[target.phrase_span.0..h.span.1]);
            k += 2;
        }
        found.push(r);
        end = k;
    }
    if found.is_empty() {
        return toks;
    }
    members.extend(found);
    let mut out: Vec<Tok> = toks[..=v].to_vec();
    out.extend(toks.into_iter().skip(end));
    out
}

/// Titles that make a name a person addressed ("General Loison, …").
const TITLES: &[&str] = &[
    "general",
    "général",
    "marshal",
    "maréchal",
    "colonel",
    "major",
    "captain",
    "brigadier",
    "lieutenant",
    "lord",
    "sir",
    "monsieur",
    "count",
    "prince",
    "duke",
];

/// Rule `lead.vocative`: "General Loison, I have the honour …", "Monsieur le Général
/// Kellerman, you will …", "Lapisse, you will …" — a titled name addressed at the opening of
/// the order before a comma, or any name before ", you will", is its addressee (so its
/// recipient).
fn vocative(text: &str, toks: Vec<Tok>, rules: &mut Vec<&'static str>) -> Vec<Tok> {
    if toks.iter().any(|t| {
        matches!(
            t,
            Tok::Recipient { .. } | Tok::Preset { .. } | Tok::Addressee(_)
        )
    }) {
        return toks;
    }
    let titled = |s: &str| {
        let mut ws = s.split_whitespace().map(str::to_lowercase);
        ws.next().is_some_and(|w| TITLES.contains(&w.as_str()))
            && s.split_whitespace().skip(1).any(|w| {
                let l = w.lower();
                w.chars().next().is_some_and(char::is_uppercase)
                    && !TITLES.contains(&l.trim_end_matches(','))
            })
    };
    let start = toks
        .iter()
        .position(|t| !matches!(t, Tok::Header(_)))
        .unwrap_or(toks.len());
    let mut out = toks;
    match out.get(start) {
        // "Monsieur le Général Kellerman," read as a courtesy: its name is the addressee.
        Some(Tok::Courtesy(s)) => {
            let raw = text[s.0..s.1].trim_end_matches([',', ' ', ':', '!']);
            if !titled(raw) {
                return out;
            }
            // The name: from the first capitalised word that is no title.
            let mut at = None;
            let mut off = 0;
            for w in raw.split(' ') {
                let l = w.lower();
                if at.is_none()
                    && w.chars().next().is_some_and(char::is_uppercase)
                    && !TITLES.contains(&l.as_ref())
                {
                    at = Some(off);
                }
                off += w.len() + 1;
            }
            let Some(a) = at else { return out };
            let span = (s.0 + a, s.0 + raw.len());
            let who = names::name_target(text, span, span.0);
            out.insert(start + 1, Tok::Addressee(who));
            rules.push("lead.vocative");
        }
        Some(Tok::Place(t))
            if t.form == Form::Name
                && matches!(out.get(start + 1), Some(Tok::Connector(c, _)) if c == ",")
                && (titled(&t.text) || addressed_after(text, &t.text, out[start + 1].span().1)) =>
        {
            let who = t.clone();
            out[start] = Tok::Addressee(who);
            out.remove(start + 1);
            rules.push("lead.vocative");
        }
        _ => {}
    }
    out
}

/// A bare capitalised name is addressed when "you" and its link follow the comma: "Lapisse,
/// you will attack …", "Hill, you are to hold …" (nobody tells a place what it will do).
fn addressed_after(text: &str, name: &str, comma_end: usize) -> bool {
    let capitalised = name.chars().next().is_some_and(char::is_uppercase);
    let rest = text[comma_end..].trim_start().lower();
    capitalised
        && [
            "you will ",
            "you shall ",
            "you must ",
            "you are to ",
            "you are not to ",
            "you may ",
        ]
        .iter()
        .any(|link| rest.starts_with(link))
}

/// Rule `lead.colon`: "Junot's Guard: attack Vimeiro.", "3/66th: guard the baggage." — a
/// short capitalised text before a colon that opens the order is its recipient, whatever words
/// it is made of (a keyword such as "Guard" or a "/" inside does not hide it).
fn colon_lead(text: &str, toks: Vec<Tok>) -> Vec<Tok> {
    if toks.iter().any(|t| {
        matches!(
            t,
            Tok::Recipient { .. } | Tok::Preset { .. } | Tok::Addressee(_)
        )
    }) {
        return toks;
    }
    let start = lower::body_start(&toks);
    let Some(colon) = toks
        .iter()
        .enumerate()
        .skip(start)
        .take(7)
        .find(|(_, t)| matches!(t, Tok::Punct(s) if &text[s.0..s.1] == ":"))
        .map(|(k, _)| k)
    else {
        return toks;
    };
    if colon == start
        || !toks[start..colon].iter().all(|t| {
            matches!(t, Tok::Place(_) | Tok::Verb { .. } | Tok::Filler(_))
                || matches!(t, Tok::Punct(s) if matches!(&text[s.0..s.1], "/" | "-" | "'"))
        })
        || !toks.get(colon + 1).is_some_and(|t| {
            matches!(
                t,
                Tok::Verb { .. } | Tok::Negate(_) | Tok::Place(_) | Tok::Timing { .. }
            )
        })
    {
        return toks;
    }
    let from = toks[start].span().0;
    let to = toks[colon].span().0;
    let raw = text[from..to].trim_end();
    if raw.is_empty()
        || raw.len() > 60
        || !raw
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
    {
        return toks;
    }
    // The article is the phrase's, not the name's ("The reserve artillery:"), as in any lead.
    let article = ["the ", "The ", "THE "]
        .iter()
        .find(|a| raw.starts_with(**a) && raw.len() > a.len())
        .map_or(0, |a| a.len());
    let who = names::name_target(text, (from + article, from + raw.len()), from);
    let mut out: Vec<Tok> = toks[..start].to_vec();
    out.push(Tok::Recipient {
        who: Some(who),
        attached: Vec::new(),
        span: (from, toks[colon].span().1),
    });
    out.extend(toks.into_iter().skip(colon + 1));
    out
}

/// Rule `lead.several`: "Morvan and Sauret: …", "2nd Div, 3rd Div and 4th Div: …" — names
/// joined by "and" or commas before the colon are several recipients of one order; the first
/// is the recipient, the others are kept in `also`. The same in the third person: "Morvan and
/// Sauret will attack …", "The 2nd and 3rd Divisions are to …", where the grammar's lead took
/// only the last name.
fn several_recipients(text: &str, toks: Vec<Tok>, also: &mut Vec<Reference>) -> Vec<Tok> {
    let start = lower::body_start(&toks);
    let mut names: Vec<&Target> = Vec::new();
    let mut colon = None;
    for (k, t) in toks.iter().enumerate().skip(start) {
        match t {
            Tok::Place(x) if matches!(x.form, Form::Name | Form::Unit) => names.push(x),
            Tok::Connector(c, _) if c == "and" || c == "," || c == "&" => {}
            Tok::Punct(s) if matches!(&text[s.0..s.1], ":") => {
                colon = Some(k);
                break;
            }
            Tok::Connector(c, _) if c == "—" || c == "–" || c == "--" => {
                colon = Some(k);
                break;
            }
            Tok::Recipient {
                who: Some(last),
                attached,
                ..
            } if attached.is_empty()
                && !names.is_empty()
                && matches!(&toks[k - 1], Tok::Connector(c, _) if c == "and" || c == "&") =>
            {
                names.push(last);
                colon = Some(k);
                break;
            }
            _ => break,
        }
    }
    let Some(colon) = colon else {
        return toks;
    };
    // A colon lead with a third-person subject after it is rule `lead.clause-subject`'s.
    let subject_form = matches!(toks[colon], Tok::Recipient { .. });
    if !subject_form && toks.iter().any(|t| matches!(t, Tok::Recipient { .. })) {
        return toks;
    }
    if names.len() < 2 {
        return toks;
    }
    // Rule `lead.elided`: "2nd and 3rd Divs:", "Sebastiani's and Leval's divisions:" — a
    // bare ordinal or possessive takes the troop words of the last name.
    let last = names[names.len() - 1].text.clone();
    let tail: String = last
        .split_whitespace()
        .skip(1)
        .collect::<Vec<_>>()
        .join(" ");
    let bare = |t: &str| {
        t.split_whitespace().all(|w| {
            let l = w.lower();
            l.ends_with("'s")
                || l.ends_with("’s")
                || l.ends_with("s'")
                || l.chars().next().is_some_and(|c| c.is_ascii_digit())
                    && l.trim_start_matches(|c: char| c.is_ascii_digit()).len() <= 2
        })
    };
    let expand = |t: &Target| {
        let mut t = t.clone();
        if !tail.is_empty() && bare(&t.text) {
            t.text = format!("{} {tail}", t.text);
        }
        t
    };
    let first = expand(names[0]);
    also.extend(names[1..].iter().map(|t| to_reference(&expand(t))));
    let span = (toks[start].span().0, toks[colon].span().1);
    let mut out: Vec<Tok> = toks[..start].to_vec();
    out.push(Tok::Recipient {
        who: Some(first),
        attached: Vec::new(),
        span,
    });
    out.extend(toks.into_iter().skip(colon + 1));
    out
}

/// Keep a negated verb phrase as a prohibition (rule `neg.prohibition`): never an action.
/// One lower-case word that may be a verb: letters only, not an article or a pronoun.
fn bare_verb(w: &str) -> bool {
    !w.is_empty()
        && w.chars().all(|c| c.is_alphabetic() && !c.is_uppercase())
        && !matches!(
            w,
            "the"
                | "a"
                | "an"
                | "this"
                | "that"
                | "these"
                | "those"
                | "it"
                | "them"
                | "you"
                | "your"
                | "his"
                | "their"
                | "any"
                | "only"
                | "so"
                | "yet"
                | "even"
                | "at"
                | "all"
                | "later"
                | "before"
                | "till"
                | "until"
        )
}

fn prohibit(text: &str, at: Span, prefix: Option<String>, avoid: bool, d: &mut Draft) {
    let (span, raw) = trimmed(text, at, &[',', '.', '!', '?', ';']);
    if !raw.is_empty() {
        let raw = without_passive_link(&nfc(&words(raw)));
        d.prohibitions.push(Prohibition {
            text: prefix.map_or_else(|| raw.clone(), |p| format!("{p} {raw}")),
            span,
            avoid,
            condition: None,
        });
    }
}

/// Rule `neg.no-noun`: "no attack is to be made before noon", "no movement is to be attempted":
/// the noun after "no" is what is forbidden; the passive after it says no more ("attack before
/// noon").
fn without_passive_link(raw: &str) -> String {
    const LINKS: [&str; 4] = [" is to be ", " are to be ", " will be ", " shall be "];
    const DONE: [&str; 8] = [
        "made",
        "attempted",
        "undertaken",
        "risked",
        "hazarded",
        "permitted",
        "allowed",
        "begun",
    ];
    for link in LINKS {
        let Some(at) = raw.find(link) else { continue };
        let after = &raw[at + link.len()..];
        let (verb, rest) = after.split_once(' ').unwrap_or((after, ""));
        if DONE.contains(&verb) {
            return if rest.is_empty() {
                raw[..at].to_string()
            } else {
                format!("{} {rest}", &raw[..at])
            };
        }
    }
    raw.to_string()
}

fn split_target(t: &Target, refs: &mut Vec<Reference>) -> (Option<String>, Option<Reference>) {
    if t.form == Form::Compass {
        (Some(t.text.to_lowercase()), None)
    } else {
        let r = to_reference(t);
        leaves(&r, refs);
        (None, Some(r))
    }
}

fn collect_refs(tok: &Tok, sink: &mut Vec<Reference>, all: &mut Vec<Reference>) {
    let t = match tok {
        Tok::Place(t)
        | Tok::Relation { target: t, .. }
        | Tok::Direction { target: t, .. }
        | Tok::Facing(t, _)
        | Tok::Threat(t, _)
        | Tok::With(t, _) => t,
        Tok::Recipient { who: Some(t), .. } => t,
        _ => return,
    };
    if t.form == Form::Compass {
        return;
    }
    let r = to_reference(t);
    leaves(&r, all);
    sink.push(r);
}

/// `text[span]` without surrounding white space and without the given trailing characters,
/// with its span.
fn trimmed<'t>(text: &'t str, span: Span, tail: &[char]) -> (Span, &'t str) {
    let raw = &text[span.0..span.1];
    let lead = raw.len() - raw.trim_start().len();
    let t = raw
        .trim_start()
        .trim_end()
        .trim_end_matches(tail)
        .trim_end();
    ((span.0 + lead, span.0 + lead + t.len()), t)
}

fn make_condition(
    text: &str,
    kind: &str,
    start: usize,
    end: usize,
    refs: Vec<Reference>,
) -> Condition {
    let (span, raw) = trimmed(text, (start, end), &[',', '.', '!', '?', ';']);
    Condition {
        text: nfc(&words(raw)),
        span,
        kind: kind.to_string(),
        references: refs,
    }
}

fn attach_condition(cond: Condition, d: &mut Draft, here: Option<usize>, pending: &mut Pending) {
    // Rule `cond.duration`: "until the 7th Division comes up", "till relieved" say how long a
    // stage lasts; they are not conditions (no second stage, 30.0 does not apply).
    if matches!(cond.kind.as_str(), "until" | "till" | "before") {
        if cond.kind != "before" {
            d.rules.push("cond.duration");
        }
        let text = cond.text.clone();
        match here.map(|_| d.steps.len() - 1) {
            Some(i) => {
                d.steps[i].step.manner.push(text.clone());
                d.steps[i].step.parts.push(text);
            }
            None => pending.manner.push(text),
        }
        return;
    }
    match here {
        Some(_) => {
            let last = d.steps.len() - 1;
            if d.steps[last].condition.is_none() {
                d.steps[last].condition = Some(cond);
            } else {
                pending.condition = Some(cond);
            }
        }
        None => pending.condition = Some(cond),
    }
}

/// "capture and then defend Casa de Salinas": a step with nothing of its own shares the next
/// step's objectives; "march to Kümla and defend": a following step of the same sentence with
/// nothing of its own shares the previous one's.
fn share_objectives(steps: &mut [DraftStep]) {
    for s in steps.iter_mut() {
        s.step.own_objectives = s.step.objectives.len();
    }
    let bare = |s: &Step| s.objectives.is_empty() && s.route.is_empty() && s.direction.is_none();
    for i in (0..steps.len().saturating_sub(1)).rev() {
        let (a, b) = steps.split_at_mut(i + 1);
        let (cur, next) = (&mut a[i], &b[0]);
        if cur.sentence == next.sentence
            && bare(&cur.step)
            && !next.step.objectives.is_empty()
            && !matches!(cur.step.action, Action::Halt | Action::Join)
            && matches!(next.link, Link::And | Link::Then)
        {
            cur.step.objectives = next.step.objectives.clone();
        }
    }
    for i in 1..steps.len() {
        let (a, b) = steps.split_at_mut(i);
        let (prev, cur) = (&a[i - 1], &mut b[0]);
        // "…, occupy it; otherwise keep your ground": the other branch of a condition does
        // not take the places of the branch it replaces.
        let other_branch = cur.condition.as_ref().is_some_and(Condition::is_otherwise);
        if cur.sentence == prev.sentence
            && bare(&cur.step)
            && !other_branch
            && matches!(cur.link, Link::And)
            && matches!(
                cur.step.action,
                Action::Defend | Action::Deploy | Action::Reserve | Action::Halt
            )
        {
            cur.step.objectives = prev.step.objectives.clone();
        }
    }
}

/// 6.3.1: an order "that allows for movement to, into, or around areas of enemy control" is
/// Engage. A crossing joined by "and" to an attack in the same sentence ("Cross the stream and
/// capture Hall") is movement into the area the enemy holds: the attack, and its Attack Stoppage
/// checks (6.7), begin with the crossing, not a stage later (the 6.3 example: "you will only
/// begin checking for Attack Stoppage once the actual attack begins"; decision 0091).
fn crossing_into_attack(steps: &mut [DraftStep]) {
    for i in (0..steps.len().saturating_sub(1)).rev() {
        let next_engage =
            steps[i + 1].step.posture == Posture::Engage || steps[i + 1].purpose_engage;
        // Another command's attack ("…, and that the cavalry will charge") is not this
        // crossing's (rule `lead.that-subject`).
        if steps[i].step.action == Action::Cross
            && matches!(steps[i + 1].link, Link::And)
            && steps[i + 1].subject.is_none()
            && next_engage
        {
            steps[i].step.posture = Posture::Engage;
        }
    }
}

/// Group steps into stages (6.3.3). A new stage starts at the first step, at a new sentence,
/// after "then", at an alternative ("or"), where the posture changes, and where a second
/// condition begins. Steps joined by "and" (or "to": "deploy to defend") of one posture form
/// one stage: "march to Kümla and defend" is one General stage.
pub(crate) fn stages(steps: Vec<DraftStep>) -> Vec<Stage> {
    let mut out: Vec<Stage> = Vec::new();
    let mut steps = steps;
    crossing_into_attack(&mut steps);
    for mut ds in steps {
        if ds.purpose_engage {
            ds.step.posture = Posture::Engage;
        }
        let new_stage = match out.last() {
            None => true,
            Some(last) => {
                !matches!(ds.link, Link::And)
                    || last.posture != ds.step.posture
                    || (ds.condition.is_some() && last.condition.is_some())
                    || ds.subject.is_some()
                    // Rule `cond.own-clause`: "march to Kümla; if the enemy appears, halt" —
                    // a condition written before its step governs that step's clause, not
                    // the stage before it (30.0).
                    || ds
                        .condition
                        .as_ref()
                        .is_some_and(|c| c.span.0 < ds.step.span.0)
            }
        };
        if new_stage {
            let link = if out.is_empty() { Link::First } else { ds.link };
            out.push(Stage {
                action: ds.step.action,
                posture: ds.step.posture,
                link,
                subject: ds.subject.take(),
                objectives: Vec::new(),
                route: Vec::new(),
                direction: None,
                facing: None,
                against: None,
                timing: None,
                condition: None,
                if_possible: false,
                alternatives: false,
                span: ds.step.span,
                steps: Vec::new(),
            });
        }
        let st = out.last_mut().expect("a stage was just pushed");
        if st.condition.is_none() {
            st.condition = ds.condition.take();
        }
        st.span.1 = st.span.1.max(ds.step.span.1);
        st.objectives.extend(ds.step.objectives.iter().cloned());
        st.route.extend(ds.step.route.iter().cloned());
        if st.direction.is_none() {
            st.direction = ds.step.direction.clone();
        }
        if st.facing.is_none() {
            st.facing = ds.step.facing.clone();
        }
        if st.against.is_none() {
            st.against = ds.step.against.clone();
        }
        if st.timing.is_none() {
            st.timing = ds.step.timing.clone();
        }
        st.if_possible |= ds.step.if_possible;
        st.alternatives |= ds.step.alternatives;
        ds.step.purpose = ds.purpose.take();
        st.steps.push(ds.step);
    }
    out
}
