//! Classification and critique: the order's type (NBS 6.3, 6.4.2), its diagnostics and its
//! anatomy (6.7 sidebar), and the same-order key (6.5.2, 6.6.1.5).
//!
//! Owns: every diagnostic code except those of resolution (which [`super`] emits while
//! resolving) and the classification rules. Must not: parse, resolve or print.

use super::ast::*;
use crate::rules::{OrderType, Posture};
use crate::text::fold;
use chrono::NaiveTime;

pub(crate) fn diag(
    severity: Severity,
    code: &'static str,
    message: impl Into<String>,
    span: Span,
    help: impl Into<String>,
) -> Diagnostic {
    Diagnostic {
        severity,
        code,
        message: message.into(),
        span,
        help: help.into(),
    }
}

/// Order type (6.3.3): Complex when there is more than one stage, a condition, an
/// alternative, or a start time (30.0: "attack at 10:00" is a conditional order); otherwise
/// the posture of its one stage. `None` when no stage could be read.
pub(crate) fn order_type(stages: &[Stage]) -> Option<OrderType> {
    let first = stages.first()?;
    // Stages of other commands side by side ("Ventosa will be occupied by Brennier's brigade
    // and the Ridge by Thomières'") are no sequence when they share one posture.
    let parallel = stages
        .iter()
        .skip(1)
        .all(|s| s.subject.is_some() && s.link != Link::Then && s.posture == first.posture);
    let complex = (stages.len() > 1 && !parallel)
        || stages.iter().any(|s| {
            s.condition.is_some()
                || s.alternatives
                || s.steps
                    .iter()
                    .any(|st| st.timing.as_ref().is_some_and(Timing::is_start))
        });
    Some(if complex {
        OrderType::Complex
    } else {
        match first.posture {
            Posture::Engage => OrderType::Engage,
            Posture::General => OrderType::General,
        }
    })
}

/// Type for cost (6.4.2): Engage if any part is Engage, else General.
pub(crate) fn cost_type(stages: &[Stage]) -> Option<OrderType> {
    if stages.is_empty() {
        None
    } else if stages.iter().any(|s| s.posture == Posture::Engage) {
        Some(OrderType::Engage)
    } else {
        Some(OrderType::General)
    }
}

/// 6.4.4 (rule `limit.troops`): a description that says only whose troops ("the English",
/// "the enemy") or nothing in particular ("everything in sight") is no limit; a place, a hex,
/// a named command or a particular body ("the Austrian line") is.
fn limits(r: &Reference) -> bool {
    if matches!(r.form, Form::Vague) {
        return false;
    }
    if r.form == Form::Unit && r.resolved.is_none() {
        let lex = super::lexicon::get();
        let f = crate::text::fold(&r.text);
        let generic = f
            .split(' ')
            .all(|w| matches!(w, "the" | "all" | "any") || lex.is_nation(w));
        if generic {
            return false;
        }
    }
    r.is_limit()
}

/// Rule `diag.contradiction`: one stage both holds or advances on a place and withdraws from
/// it ("hold Hall and withdraw from Hall"), or the order forbids what it orders.
pub(crate) fn contradictions(
    stages: &[Stage],
    prohibitions: &[super::ast::Prohibition],
    out: &mut Vec<Diagnostic>,
) {
    fn key(r: &Reference) -> String {
        r.resolved
            .as_ref()
            .map_or_else(|| fold(&r.text), |x| format!("#{}", x.id))
    }
    let places = |s: &super::ast::Step| -> Vec<String> {
        let mut v: Vec<String> = s.objectives.iter().map(key).collect();
        if let Some(p) = s.direction.as_ref().and_then(|d| d.place.as_ref()) {
            v.push(key(p));
        }
        v
    };
    // What a withdrawal leaves: "from X", or the object of "abandon X", "evacuate X". "Retire
    // to X", "fall back behind X" name where it goes, which a later "re-form" may well hold.
    let left = |s: &super::ast::Step| -> Vec<String> {
        let mut v: Vec<String> = s
            .direction
            .iter()
            .filter(|d| d.from)
            .filter_map(|d| d.place.as_ref().map(key))
            .collect();
        let quits = ["abandon", "evacuate", "quit", "leave", "give up"]
            .iter()
            .any(|q| s.verb.starts_with(q));
        if quits || s.action == Action::LeaveMap {
            v.extend(s.objectives.iter().map(key));
        }
        v
    };
    let away = |a: Action| matches!(a, Action::Withdraw | Action::LeaveMap);
    for st in stages {
        let mut stay: Vec<String> = Vec::new();
        let mut leave: Vec<String> = Vec::new();
        for s in &st.steps {
            if away(s.action) {
                leave.extend(left(s));
            } else {
                stay.extend(places(s));
            }
        }
        if let Some(p) = stay.iter().find(|p| leave.contains(p)) {
            out.push(diag(
                Severity::Warning,
                "contradiction",
                format!("this stage both goes to or holds and leaves the same place ({p})"),
                st.span,
                "say which comes first (\"hold Hall until 14:00, then withdraw\") or drop one",
            ));
        }
        for s in &st.steps {
            for o in &s.objectives {
                let done = fold(&format!("{} {}", s.verb, o.text));
                if let Some(p) = prohibitions
                    .iter()
                    .find(|p| fold(&p.text).starts_with(&done))
                {
                    out.push(diag(
                        Severity::Warning,
                        "contradiction",
                        format!("the order both forbids and orders \"{}\"", p.text),
                        p.span,
                        "an order must not forbid what it commands; drop one of the two",
                    ));
                }
            }
        }
    }
}

/// Diagnostics about the order's content (6.4.4, 30.0).
pub(crate) fn content(stages: &[Stage], order_span: Span, out: &mut Vec<Diagnostic>) {
    // An earlier stage that moves along a route, in a direction, or across an obstacle gives
    // the axis of a later attack ("march over Hinzeberg … cross the stream and capture Hall").
    let mut axis_given = false;
    let mut limit_given = false;
    for st in stages {
        let this_axis = !st.route.is_empty() || st.direction.is_some();
        let earlier_axis = axis_given;
        axis_given |= this_axis
            || st
                .steps
                .iter()
                .any(|s| matches!(s.action, Action::Move | Action::Cross));
        if st.posture != Posture::Engage {
            continue;
        }
        // Rule `limit.step` (decision 0201): the attack's own target limits the stage it was
        // merged into ("march north and fall upon the English left", `posture.approach`): a
        // particular body or flank ("the English left", "the enemy's right") is the limit
        // 6.4.4 asks for, a compass point is not.
        let has_limit = st.objectives.iter().any(limits)
            || st.steps.iter().any(|s| s.objectives.iter().any(limits))
            || st.route.iter().any(limits)
            || st
                .direction
                .as_ref()
                .and_then(|d| d.place.as_ref())
                .is_some_and(Reference::is_place)
            || st.steps.iter().any(|s| s.purpose.is_some())
            // Rule `limit.condition`: "charge only if the enemy's infantry is disordered" — a
            // conditional attack whose target is named only in its condition is limited by it
            // (6.4.4): the command attacks what the condition names, when it is met (30.0).
            || st
                .condition
                .as_ref()
                .is_some_and(|c| c.references.iter().any(limits));
        let has_axis = this_axis || earlier_axis;
        // "Loison: carry Vimeiro Hill. Kellerman's grenadiers will follow in support." — a
        // stage that supports an earlier limited one (its own subject, "in support", or a
        // support verb) is limited by it (6.4.4; rule `limit.in-support`).
        let supports = st.subject.is_some()
            && st.steps.iter().all(|s| {
                matches!(s.action, Action::Support | Action::Pursue)
                    || s.manner
                        .iter()
                        .any(|m| m.eq_ignore_ascii_case("in support"))
            })
            && st.objectives.is_empty();
        // Rule `limit.awaits-order` (decision 0207): "charge only on my order" — an attack
        // released only by the sender's own order or signal is not launched by this order;
        // the word that releases it gives 6.4.4's direction and limit, and until then the
        // command holds. Not open-ended, no route asked; a note says so.
        if let Some(c) = st
            .condition
            .as_ref()
            .filter(|c| super::lexicon::get().awaits_order(&c.text))
        {
            if !has_limit || !has_axis {
                out.push(diag(
                    Severity::Note,
                    "awaits-order",
                    format!(
                        "this Engage stage (\"{}\") waits for your word (\"{}\")",
                        st.steps.first().map_or("", |s| s.verb.as_str()),
                        c.text
                    ),
                    st.span,
                    "6.4.4: the order or signal that releases it must give the attack's \
                     direction and limit; until it arrives the command keeps its other stages.",
                ));
            }
            limit_given |= has_limit;
            continue;
        }
        let earlier_limit = limit_given;
        limit_given |= has_limit;
        if !has_limit && supports && earlier_limit {
            continue;
        }
        // A conditional attack on troops named only in the condition ("attack if the enemy
        // falls back") attacks them when it is met: open-ended still, but only a warning.
        let cond_troops = st.condition.as_ref().is_some_and(|c| {
            c.references
                .iter()
                .any(|r| r.form == Form::Unit || super::resolve::looks_like_troops(&r.text))
        });
        if !has_limit {
            out.push(diag(
                if cond_troops {
                    Severity::Warning
                } else {
                    Severity::Error
                },
                "open-ended",
                format!(
                    "this Engage stage (\"{}\") has no objective and no limit",
                    st.steps.first().map_or("", |s| s.verb.as_str())
                ),
                st.span,
                "6.4.4: an Engage order needs a reasonable limit; open-ended orders such as \
                 \"Attack west!\" are not allowed. Name an objective: \"attack west and capture Hall\".",
            ));
        } else if !has_axis {
            out.push(diag(
                Severity::Warning,
                "no-route",
                "this Engage stage gives no route or direction",
                st.span,
                "6.4.4: Engage orders also require a general movement direction or path, e.g. \
                 \"up the Säter road\" or \"from the direction of Säter\". Without one the \
                 umpire will take the direct way to the objective.",
            ));
        }
    }
    // "…; otherwise stay at Kümla": an order that says what to do when its condition fails has
    // the alternative this warning asks for, and its "otherwise" cannot fail to be met.
    let has_alternative = stages
        .iter()
        .any(|st| st.condition.as_ref().is_some_and(Condition::is_otherwise));
    for st in stages {
        // A condition that waits for the sender's own word cannot fail unless he never sends
        // it (decision 0207).
        if let Some(c) = &st.condition
            && !has_alternative
            && !super::lexicon::get().awaits_order(&c.text)
        {
            out.push(diag(
                Severity::Warning,
                "condition-may-fail",
                format!("the condition \"{}\" may never be met", c.text),
                c.span,
                "30.0: conditions may never happen; while the condition is unmet the command \
                 defends in place. Consider a time limit or an alternative.",
            ));
        }
    }
    let _ = order_span;
}

/// Which of WHO, WHAT, WHERE, WHEN and WHY the order answers (6.7 sidebar).
pub(crate) fn anatomy(recipient: bool, stages: &[Stage], intent: bool, places: usize) -> Anatomy {
    Anatomy {
        who: recipient,
        what: !stages.is_empty(),
        where_: places > 0
            || stages
                .iter()
                .any(|s| !s.objectives.is_empty() || !s.route.is_empty() || s.direction.is_some()),
        when: stages
            .iter()
            .any(|s| s.condition.is_some() || s.steps.iter().any(|st| st.timing.is_some())),
        why: intent,
    }
}

pub(crate) fn anatomy_note(a: Anatomy, span: Span) -> Diagnostic {
    let names = [
        ("WHO", a.who),
        ("WHAT", a.what),
        ("WHERE", a.where_),
        ("WHEN", a.when),
        ("WHY", a.why),
    ];
    let yes: Vec<&str> = names.iter().filter(|(_, b)| *b).map(|(n, _)| *n).collect();
    let no: Vec<&str> = names.iter().filter(|(_, b)| !*b).map(|(n, _)| *n).collect();
    let message = match (yes.is_empty(), no.is_empty()) {
        (_, true) => "the order answers WHO, WHAT, WHERE, WHEN and WHY".to_string(),
        (true, _) => "the order answers none of WHO, WHAT, WHERE, WHEN, WHY".to_string(),
        _ => format!("answers {}; not {}", yes.join(", "), no.join(", ")),
    };
    diag(
        Severity::Note,
        "anatomy",
        message,
        span,
        "6.7 sidebar: \"A good order can answer four questions. WHEN and WHERE is WHOM supposed \
         to do WHAT. If your order can answer the question WHY as well, you are pretty much in \
         business.\" An order without a WHEN is carried out on acceptance.",
    )
}

fn ref_key(r: &Reference) -> String {
    let base = match &r.resolved {
        // A pronoun keys as written: its antecedent is resolved for the engine, but the
        // read-back says "it", and "it" must read back to the same order.
        Some(_) if r.form == Form::Pronoun => fold(&r.text),
        Some(res) => format!("#{}", res.id),
        None if !r.parts.is_empty() => r.parts.iter().map(ref_key).collect::<Vec<_>>().join("+"),
        None => fold(&r.text),
    };
    let within = r.within.map(|w| format!("w{w}:")).unwrap_or_default();
    match &r.relation {
        Some(rel) => format!("{rel}:{within}{base}"),
        None => format!("{within}{base}"),
    }
}

fn dir_key(d: &Option<Direction>) -> String {
    match d {
        None => "-".into(),
        Some(d) => format!(
            "{}{}{}",
            if d.from { "<" } else { ">" },
            d.compass.as_deref().unwrap_or(""),
            d.place.as_ref().map(ref_key).unwrap_or_default()
        ),
    }
}

/// The same-order key; see [`CheckedOrder::same_order_key`].
pub(crate) fn key(
    recipient: Option<&Reference>,
    attached: &[Reference],
    independent: bool,
    stages: &[Stage],
    intent: Option<&str>,
) -> String {
    let mut k = String::new();
    k.push_str(&recipient.map_or_else(
        || "-".into(),
        |r| match &r.resolved {
            Some(res) => format!("#{}", res.id),
            // "him" and its read-back "the officer addressed" are one man (rule
            // `pronoun.addressee`).
            None if r.form == Form::Pronoun => "~addressee".into(),
            None => fold(&r.text),
        },
    ));
    for a in attached {
        k.push('+');
        k.push_str(&ref_key(a));
    }
    k.push_str(if independent { "|ind" } else { "|" });
    for st in stages {
        let acts: Vec<&str> = st.steps.iter().map(|s| s.action.as_str()).collect();
        let objs: Vec<String> = st.objectives.iter().map(ref_key).collect();
        let route: Vec<String> = st.route.iter().map(ref_key).collect();
        k.push_str(&format!(
            "|{}{:?}:{}[{}]r[{}]d{}f{}a{}t{}c{}{}",
            if st.link == Link::Or { "or:" } else { "" },
            st.posture,
            acts.join(","),
            objs.join(","),
            route.join(","),
            dir_key(&st.direction),
            dir_key(&st.facing),
            dir_key(&st.against),
            st.timing
                .as_ref()
                .map(|t| format!("{}{}", t.kind, t.time.as_deref().unwrap_or("")))
                .unwrap_or_default(),
            st.condition
                .as_ref()
                .map(|c| fold(&c.text))
                .unwrap_or_default(),
            if st.if_possible { "?" } else { "" },
        ));
    }
    if let Some(i) = intent {
        k.push_str("|why:");
        k.push_str(&fold(i));
    }
    k
}

/// Rule `posture.cheaper`: the note of an order Complex only by its wording.
pub(crate) fn cheaper_note(t: OrderType, span: Span) -> Diagnostic {
    let (msg, help) = match t {
        OrderType::General => (
            "Complex only by its wording: written as one stage this is a General order, 1 CP instead of 5 (6.4.2 chart)",
            "join the stages with \"and\", not \"then\" or a new sentence: \"march to Kümla and hold it\"",
        ),
        _ => (
            "Complex only by its wording: written as one stage this is an Engage order — the same cost (6.4.2), but one stage carried out at once rather than stage by stage (6.3.3)",
            "join the approach and the attack with \"and\": \"march upon Hall and carry it\"",
        ),
    };
    diag(Severity::Note, "cheaper-wording", msg, span, help)
}

/// What could not be read: no action (`no-action` at `body`), an unreadable order (`at`: where
/// and what was expected), sentences too long to parse, and words kept only as remarks.
pub(crate) fn reading(
    no_action: bool,
    body: Span,
    at: Option<(Span, &[String])>,
    too_long: &[Span],
    remarks: &[Remark],
    diags: &mut Vec<Diagnostic>,
) {
    if no_action {
        diags.push(diag(
            Severity::Warning,
            "no-action",
            "no action is given to anybody here; read as a report, an intention or an exhortation",
            body,
            "an order needs an action verb for its recipient: \"2nd Div: hold Kümla.\"",
        ));
    } else if let Some((at, expected)) = at {
        diags.push(diag(
            Severity::Error,
            "unreadable",
            format!(
                "cannot read an order here; expected {}",
                expected.join(", or ")
            ),
            at,
            "an order needs an action: \"2nd Div: attack up the Säter road and capture Hall.\"",
        ));
    }
    for s in too_long {
        diags.push(diag(
            Severity::Warning,
            "too-long",
            format!(
                "a sentence of {} bytes was not read; it is kept as a remark",
                s.1 - s.0
            ),
            *s,
            format!(
                "sentences longer than {} bytes are not parsed; break it up",
                super::source::MAX_SENTENCE
            ),
        ));
    }
    for r in remarks {
        if too_long.contains(&r.span) || at.is_some() {
            continue;
        }
        diags.push(diag(
            Severity::Warning,
            "unstructured-text",
            format!(
                "\"{}\" was not understood and is kept only as a remark",
                r.text
            ),
            r.span,
            "the umpire will read it, but the order's structure ignores it; rephrase with an \
             action, a place, a route, a time or a condition",
        ));
    }
}

/// `time-past`: a clock time of a step already past at `now` (30.0).
pub(crate) fn times_past(stages: &[Stage], now: NaiveTime, diags: &mut Vec<Diagnostic>) {
    for st in stages {
        for step in &st.steps {
            let Some(t) = &step.timing else { continue };
            let Some(tm) = t
                .time
                .as_deref()
                .and_then(|x| NaiveTime::parse_from_str(x, "%H:%M").ok())
            else {
                continue;
            };
            if tm < now {
                diags.push(diag(
                    Severity::Warning,
                    "time-past",
                    format!(
                        "{} is already past (it is now {})",
                        t.text,
                        now.format("%H:%M")
                    ),
                    t.span,
                    "30.0: if the time has already passed on acceptance the order executes \
                     immediately; a deadline already past cannot be met",
                ));
            }
        }
    }
}

/// `independent-not-allowed` (6.8.1): `name` may not normally receive an Independent Order.
pub(crate) fn independent_note(name: &str, why: &str, span: Span) -> Diagnostic {
    diag(
        Severity::Warning,
        "independent-not-allowed",
        format!("{name} may not normally receive an Independent Order: {why}"),
        span,
        "6.8.1: eligible are divisions of a corps, brigades that do not belong to a \
                 division, and cavalry brigades; others only where the scenario allows",
    )
}

/// `type-mismatch`: the writer's stated type is not the order's (6.3).
pub(crate) fn type_mismatch(stated: OrderType, t: OrderType, s: Span) -> Diagnostic {
    diag(
        Severity::Warning,
        "type-mismatch",
        format!(
            "the order calls itself {} but reads as {}",
            super::type_word(stated),
            super::type_word(t)
        ),
        s,
        "6.3: the type follows from the order's stages, conditions and alternatives",
    )
}
