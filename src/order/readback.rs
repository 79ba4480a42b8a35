//! The read-back: a canonical plain-English rendering of a typed order, as a staff officer
//! would read it back to the general ("2nd Division is to attack along the Säter road and
//! capture Hall. Engage order.").
//!
//! Owns: the rendering. It keeps the writer's names and verbs, canonicalises prepositions of
//! route ("up", "along" → "along"; "over", "via", "through" → "via"), puts modifiers after the
//! verb, conditions after the stage they govern and purposes last. Reading a read-back back in
//! gives the same typed order (same [`super::CheckedOrder::same_order_key`]). Must not: parse
//! or judge.

use super::ast::{Condition, Form, Link, Prohibition, Stage, Step};
use crate::rules::OrderType;
use crate::text::Lower;

fn join_parts(parts: &[String]) -> String {
    let mut out = String::new();
    for p in parts {
        if p.is_empty() {
            continue;
        }
        if !out.is_empty() && !p.starts_with(',') {
            out.push(' ');
        }
        out.push_str(p);
    }
    out
}

/// A part that says how long the step lasts ("till formed on the beach", "until dusk").
fn duration(p: &str) -> bool {
    let w = p.trim_start_matches(',').trim_start().lower();
    w.starts_with("till ") || w.starts_with("until ")
}

fn step_text(s: &Step) -> String {
    // Rule `readback.duration-last`: "till …" runs to the next action or condition when read
    // again, so it is read back after the step's places and manner, never before them ("march
    // upon Lobon till the last moment", not "march till the last moment upon Lobon").
    let (mut parts, last): (Vec<String>, Vec<String>) =
        s.parts.iter().cloned().partition(|p| !duration(p));
    parts.extend(last);
    if s.if_possible {
        parts.insert(0, "if possible".into());
    }
    join_parts(&parts)
}

pub(crate) fn stage_text(st: &Stage) -> String {
    stage_text_after(st, None)
}

/// A stage's text as it follows `prev` in the read-back (see [`would_join_back`]).
fn stage_text_after(st: &Stage, prev: Option<&Stage>) -> String {
    let mut out = String::new();
    // "otherwise hold your ground": the other branch reads first, as it was written.
    let otherwise = st.condition.as_ref().is_some_and(Condition::is_otherwise);
    if otherwise {
        out.push_str("otherwise ");
    }
    let first = condition_first(st) || would_join_back(st, prev) || own_clause(st, prev);
    if let Some(c) = st.condition.as_ref().filter(|_| first) {
        out.push_str(&lower_first(&c.text));
        out.push_str(", ");
    }
    for (i, s) in st.steps.iter().enumerate() {
        // "move up in support of the 1st Division" (rule `verb.in-support-of`) reads on
        // without "and", as written.
        if i > 0 && s.verb == "in support of" {
            out.push(' ');
        } else if i > 0 {
            out.push_str(" and ");
        }
        out.push_str(&step_text(s));
    }
    if let Some(c) = st.condition.as_ref().filter(|_| !otherwise && !first) {
        out.push(' ');
        out.push_str(&lower_first(&c.text));
    }
    for s in &st.steps {
        if let Some(p) = &s.purpose {
            out.push_str(" in order to ");
            out.push_str(p);
        }
    }
    out
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(f) => f.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Rule `readback.condition-first`: a condition written before a stage that refers back to it
/// ("should the enemy abandon Hall, occupy it") is read back first too, so "it" still follows
/// the place it stands for.
fn condition_first(st: &Stage) -> bool {
    let Some(c) = &st.condition else { return false };
    let before = st.steps.first().is_some_and(|x| c.span.0 < x.span.0);
    // The stage names no place before its pronoun, so "it" can only mean the condition's.
    let refers_back = st
        .steps
        .iter()
        .flat_map(|x| &x.objectives)
        .next()
        .is_some_and(|o| o.form == Form::Pronoun);
    before && refers_back && !c.is_otherwise()
}

/// Rule `readback.condition-first` (joined stages): "occupy Hall if C and support the bridge and
/// occupy 16.10 if C" would read back with its second stage's first step joined to the first
/// stage (a step without a condition of its own joins the stage before it). A conditioned stage
/// of several steps after a conditioned stage of the same posture, linked by "and", reads its
/// condition first — "…and if C, support the bridge and occupy 16.10" — which reads back the
/// same.
fn would_join_back(st: &Stage, prev: Option<&Stage>) -> bool {
    let Some(prev) = prev else { return false };
    st.condition.is_some()
        && prev.condition.is_some()
        && st.link == Link::And
        && st.posture == prev.posture
        && st.steps.len() > 1
}

/// Rule `cond.own-clause`: "march to Kümla; if the enemy appears, halt" — a condition written
/// before a stage joined to the one before governs only that stage; it is read back before it
/// ("… and if the enemy appears, halt"), or it would be read again as governing the first.
fn own_clause(st: &Stage, prev: Option<&Stage>) -> bool {
    let (Some(c), Some(_)) = (&st.condition, prev) else {
        return false;
    };
    st.link == Link::And
        && st.steps.first().is_some_and(|x| c.span.0 < x.span.0)
        && !c.is_otherwise()
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Rule `neg.condition`: a conditional prohibition reads back as a sentence of its own, its
/// condition first ("If I cannot, General Hill is not to wait for me.").
fn conditional_prohibition(p: &Prohibition, who: Option<&str>, link: &str) -> Option<String> {
    let c = p.condition.as_ref()?;
    let intro = who.map_or(String::new(), |w| format!("{w} "));
    let what = if p.avoid {
        format!("{intro}is to avoid {}", p.text)
    } else {
        format!("{intro}{link} {}", p.text)
    };
    Some(capitalise(&format!("{c}, {what}")))
}

fn subject_link(name: &str) -> &'static str {
    // The head noun is the last word before "of": "Division of United Grenadiers" is one.
    let head = name.split(" of ").next().unwrap_or(name);
    let last = head.rsplit(' ').next().unwrap_or("");
    // A man by his title and name ("Marshal Lannes", "General Reynaud") is one (reader21).
    let titled = name.split_whitespace().next().is_some_and(|w| {
        super::lexicon::get().is_title(&crate::text::fold(w)) && !w.ends_with('s')
    });
    // Several recipients (rule `lead.several`) are plural.
    if name.contains(" and ")
        || !titled
            && last.ends_with('s')
            && !last.ends_with("ss")
            && !last.eq_ignore_ascii_case("corps")
    {
        "are to"
    } else {
        "is to"
    }
}

/// Rule `readback.colon`: a recipient whose name holds a word the reader takes for a verb or
/// keyword ("I Corps reserve battery", "the advanced guard") is read back behind a colon
/// ("I Corps reserve battery: unlimber …"), where a name runs to the colon; before "is to"
/// it would be cut at that word.
/// `at` is where the recipient stands, read back after its name ("The artillery on the Cerro
/// is to …", rule `lead.subject-where`); the link is the name's.
fn lead(name: &str, at: Option<&str>) -> String {
    let lex = super::lexicon::get();
    // "The officer commanding at Castello Branco is to …" reads again as the same lead (rule
    // `lead.commanding`); a colon would cut it at "commanding".
    // "Everything that belongs to your staff is to …" reads again so too (rule
    // `lead.everything-subject`).
    let everything = {
        let low = name.lower();
        low.starts_with("everything that ") || low.starts_with("all that ")
    };
    let commanding = super::subjects::by_command(name).is_some() || everything;
    let split = !commanding
        && name.split_whitespace().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            let low = w.lower();
            // "and" joins several recipients (rule `lead.several`), read again as such.
            low != "and"
                && !super::names::is_link(&low)
                && (super::lower::is_keyword(w) || lex.is_verb_word(&low))
        });
    if split {
        // A colon lead takes every word before it: the place would join the name.
        format!("{name}: ")
    } else if let Some(a) = at.filter(|_| !commanding) {
        format!("{name} {a} {} ", subject_link(name))
    } else {
        format!("{name} {} ", subject_link(name))
    }
}

fn not_link(link: &str) -> &'static str {
    if link == "are to" {
        "are not to"
    } else {
        "is not to"
    }
}

/// Render an order. `who` is the recipient's display name (resolved name, else as written).
pub(crate) fn render(
    who: Option<&str>,
    at: Option<&str>,
    preset: bool,
    independent: bool,
    stages: &[Stage],
    prohibitions: &[Prohibition],
    order_type: Option<OrderType>,
) -> String {
    let mut sentences: Vec<String> = Vec::new();
    // Rule `readback.or-after-condition`: a condition read back after its stage runs to the
    // next action when read again, taking an "or" with it; "; or" ends it first.
    let trailing_condition = |i: usize| {
        i.checked_sub(1).is_some_and(|p| {
            let prev = &stages[p];
            prev.condition.as_ref().is_some_and(|c| {
                !c.is_otherwise()
                    && !condition_first(prev)
                    && !would_join_back(prev, p.checked_sub(1).map(|q| &stages[q]))
                    && !own_clause(prev, p.checked_sub(1).map(|q| &stages[q]))
            })
        })
    };
    for (i, st) in stages.iter().enumerate() {
        let body = stage_text_after(st, i.checked_sub(1).map(|p| &stages[p]));
        // "You will attack …" restates the recipient: no subject of its own.
        let subject = st
            .subject
            .as_ref()
            .map(|s| s.phrase.clone())
            .filter(|s| !s.eq_ignore_ascii_case("you"));
        if i == 0 {
            let intro = if let Some(s) = subject {
                // "To General Thomières: the brigade will hold …": the recipient stays named.
                match who {
                    Some(w) if !w.eq_ignore_ascii_case(&s) => {
                        format!("{w}: {s} {} ", subject_link(&s))
                    }
                    _ => format!("{s} {} ", subject_link(&s)),
                }
            } else if preset {
                if independent {
                    "Has an Independent Order to ".to_string()
                } else {
                    "Has orders to ".to_string()
                }
            } else if let Some(w) = who {
                // After a condition read first, the recipient leads with a colon, as written.
                if condition_first(st) {
                    format!("{w}: ")
                } else {
                    lead(w, at)
                }
            } else {
                String::new()
            };
            sentences.push(capitalise(&format!("{intro}{body}")));
            continue;
        }
        match (st.link, subject) {
            (_, None) if body.starts_with("otherwise ") => {
                if let Some(last) = sentences.last_mut() {
                    last.push_str("; ");
                    last.push_str(&body);
                }
            }
            (Link::And, None) => {
                if let Some(last) = sentences.last_mut() {
                    last.push_str(" and ");
                    last.push_str(&body);
                }
            }
            (Link::Or, None) => {
                let or = if trailing_condition(i) {
                    "; or "
                } else {
                    " or "
                };
                if let Some(last) = sentences.last_mut() {
                    last.push_str(or);
                    last.push_str(&body);
                }
            }
            (Link::Then, None) => {
                if let Some(last) = sentences.last_mut() {
                    last.push_str(" and then ");
                    last.push_str(&body);
                }
            }
            (_, Some(s)) => sentences.push(capitalise(&format!("{s} {} {body}", subject_link(&s)))),
            _ => sentences.push(capitalise(&body)),
        }
    }
    // Rule `neg.prohibition`: what is forbidden is read back as forbidden, after the stages
    // ("… and is not to pursue beyond the stream"), never as an action.
    for p in prohibitions {
        let link = who.map_or("are not to", |w| not_link(subject_link(w)));
        if let Some(c) = conditional_prohibition(p, who, link) {
            sentences.push(c);
            continue;
        }
        match sentences.last_mut() {
            // Rule `neg.avoid`: "avoid a general action", "avoid engaging the enemy".
            Some(last) if p.avoid => last.push_str(&format!(", and avoid {}", p.text)),
            Some(last) => {
                last.push_str(&format!(", and {link} {}", p.text));
            }
            None if p.avoid => {
                let intro = who.map_or(String::new(), |w| format!("{w}: "));
                sentences.push(capitalise(&format!("{intro}avoid {}", p.text)));
            }
            None => {
                let intro = who.map_or(String::new(), |w| format!("{w} "));
                sentences.push(capitalise(&format!("{intro}{link} {}", p.text)));
            }
        }
    }
    let mut out = sentences
        .into_iter()
        .map(|s| {
            // "by 10.30 a.m." would not end the sentence when read again ("a.m." is an
            // abbreviation): "10.30 am." reads as the same time and ends it.
            let lower = s.lower();
            if lower.ends_with(" a.m.") || lower.ends_with(" p.m.") {
                let cut = s.len() - 4;
                format!("{}{}m.", &s[..cut], &s[cut..cut + 1])
            } else if s.ends_with('.') {
                s
            } else {
                format!("{s}.")
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    if independent && !preset {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str("Independent Order.");
    }
    if let Some(t) = order_type {
        let label = match t {
            OrderType::Engage => "Engage order.",
            OrderType::General => "General order.",
            OrderType::Complex => "Complex order.",
        };
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(label);
    }
    out
}
