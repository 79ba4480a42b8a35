//! The order language: written orders in, typed, resolved, classified, critiqued and read-back
//! orders out (NBS 6.2–6.4, 6.8, 6.9, 30.0; docs/order-language.md).
//!
//! The pipeline is `source` (split into orders and sentences) → `grammar`/`lower` (pest; the
//! only place pest types exist) → `build` (tokens → steps and stages) → resolution against an
//! optional scenario (`resolve`) → classification and critique (`critique`) → `readback`.
//!
//! Owns: the order AST ([`ast`]), the JSON contract of `staffwork check`, the diagnostic
//! codes. Must not: print, touch game state, or roll dice. Never panics on any input; time is
//! linear in the input's length (sentences are parsed one at a time and capped in length).

pub mod ast;
mod build;
mod critique;
mod grammar;
mod kinds;
mod lexicon;
mod lower;
mod names;
mod readback;
mod registers;
pub(crate) mod resolve;
mod source;
mod subjects;

pub use ast::*;
pub use source::MAX_ORDER_CHARS;

use std::collections::BTreeSet;

use chrono::NaiveTime;

use crate::hex::Hex;
use crate::rules::{OrderType, Posture};
use crate::scenario::{Echelon, Scenario};
use crate::text::Lower;
use critique::diag;
use resolve::{Arm, Index, Match};

/// Options of a check beyond the scenario and side.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options<'a> {
    pub scenario: Option<&'a Scenario>,
    /// The writer's side id; recipients must belong to it.
    pub side: Option<&'a str>,
    /// The present game time, for "a time already past". Defaults to the scenario's first
    /// turn when a scenario is given.
    pub now: Option<NaiveTime>,
    /// Keep every token with its tag in [`CheckedOrder::tags`] (`check --explain`); left
    /// empty otherwise, since only the explanation shows them.
    pub explain: bool,
}

/// Check every order in `text` (orders are separated by blank lines).
pub fn check(text: &str, scenario: Option<&Scenario>, side: Option<&str>) -> CheckReport {
    check_with(
        text,
        Options {
            scenario,
            side,
            now: None,
            explain: false,
        },
    )
}

/// [`check`] with all options.
pub fn check_with(text: &str, opts: Options<'_>) -> CheckReport {
    let orders: Vec<CheckedOrder> = check_each(text, opts).collect();
    let mut summary = Summary {
        orders: orders.len(),
        ..Summary::default()
    };
    for o in &orders {
        summary.errors += o.count(Severity::Error);
        summary.warnings += o.count(Severity::Warning);
        summary.notes += o.count(Severity::Note);
    }
    CheckReport { orders, summary }
}

/// The orders of `text` checked one at a time, in order: a report can be written as it goes,
/// so memory stays bounded by the largest order, not the input (issue 11: 10 MB of orders).
/// The scenario's name indexes are built once.
pub fn check_each<'t>(text: &'t str, opts: Options<'t>) -> impl Iterator<Item = CheckedOrder> + 't {
    let index = opts.scenario.map(Index::new);
    let now = now_of(&opts);
    source::split_orders(text)
        .into_iter()
        .map(move |span| check_span(text, span, index.as_ref(), opts.side, now, opts.explain))
}

/// A checker bound to a scenario and side, for checking many orders one at a time (the
/// engine's use): the scenario's name indexes are built once.
pub struct Checker<'a> {
    index: Option<Index<'a>>,
    side: Option<&'a str>,
    now: Option<NaiveTime>,
    explain: bool,
}

impl<'a> Checker<'a> {
    pub fn new(opts: Options<'a>) -> Self {
        Checker {
            index: opts.scenario.map(Index::new),
            side: opts.side,
            now: now_of(&opts),
            explain: opts.explain,
        }
    }

    /// Check `text` as one order.
    pub fn check_one(&self, text: &str) -> CheckedOrder {
        let lead = text.len() - text.trim_start().len();
        let span = (lead, lead + text.trim().len());
        check_span(
            text,
            span,
            self.index.as_ref(),
            self.side,
            self.now,
            self.explain,
        )
    }
}

/// Check `text` as one order (blank lines included).
pub fn check_one(text: &str, scenario: Option<&Scenario>, side: Option<&str>) -> CheckedOrder {
    let opts = Options {
        scenario,
        side,
        now: None,
        explain: false,
    };
    let index = scenario.map(Index::new);
    let lead = text.len() - text.trim_start().len();
    let span = (lead, lead + text.trim().len());
    check_span(text, span, index.as_ref(), side, now_of(&opts), false)
}

fn now_of(opts: &Options<'_>) -> Option<NaiveTime> {
    opts.now
        .or_else(|| opts.scenario.map(|s| s.clock.first_turn.time()))
}

type Table = rustc_hash::FxHashMap<Span, (Form, Option<Resolved>)>;

/// Look a reference's resolution up by span in the table built from the place list.
fn fill(r: &mut Reference, table: &Table) {
    if r.parts.is_empty()
        && let Some((form, res)) = table.get(&r.span)
    {
        r.resolved = res.clone();
        // Troops found by name; a definite description pointing back (rule `place.definite`),
        // read as "that village" is.
        if matches!(*form, Form::Unit | Form::Pronoun) {
            r.form = *form;
        }
    }
    for p in &mut r.parts {
        fill(p, table);
    }
}

fn fill_dir(d: &mut Option<Direction>, table: &Table) {
    if let Some(p) = d.as_mut().and_then(|d| d.place.as_mut()) {
        fill(p, table);
    }
}

/// The word starting at `pos` (at least one character), for underlining.
fn word_span(text: &str, pos: usize) -> Span {
    let Some(rest) = text.get(pos..) else {
        return (pos.min(text.len()), pos.min(text.len()));
    };
    let first = rest.chars().next().map_or(0, char::len_utf8);
    let len = rest
        .char_indices()
        .find(|(_, c)| c.is_whitespace())
        .map_or(rest.len(), |(i, _)| i)
        .max(first);
    (pos, pos + len)
}

/// Rule `order.length` (decision 0176): an order of more than [`MAX_ORDER_CHARS`] characters
/// is not read; it is an error that says so, whatever else it holds.
fn over_length(text: &str, span: Span) -> Option<CheckedOrder> {
    let order = &text[span.0..span.1];
    // Bytes bound characters from above: most orders are never counted.
    if order.len() <= MAX_ORDER_CHARS {
        return None;
    }
    let n = order.chars().count();
    if n <= MAX_ORDER_CHARS {
        return None;
    }
    // The error points at the first character over the limit, not at the whole text.
    let over = order
        .char_indices()
        .nth(MAX_ORDER_CHARS)
        .map_or(span.1, |(i, _)| span.0 + i);
    let next = text[over..]
        .chars()
        .next()
        .map_or(over, |c| over + c.len_utf8());
    Some(CheckedOrder {
        text: order.to_string(),
        span,
        diagnostics: vec![Diagnostic {
            severity: Severity::Error,
            code: "order-length",
            message: format!(
                "an order has at most {MAX_ORDER_CHARS} characters; this one has {n}, so it was not read"
            ),
            span: (over, next),
            help: "6.4: split it into several orders, one per recipient, or shorten it; orders \
                   are separated by a blank line"
                .into(),
        }],
        ..CheckedOrder::default()
    })
}

#[allow(clippy::too_many_lines)]
fn check_span(
    text: &str,
    span: Span,
    index: Option<&Index<'_>>,
    side: Option<&str>,
    now: Option<NaiveTime>,
    explain: bool,
) -> CheckedOrder {
    if let Some(o) = over_length(text, span) {
        return o;
    }
    resolve::forget_troops();
    let draft = build::build(text, span, index, explain);
    let mut diags: Vec<Diagnostic> = Vec::new();
    let build::Draft {
        header,
        courtesies,
        mut recipient,
        preset,
        independent,
        independent_span,
        stated_type,
        steps,
        mut attached,
        lead_attached,
        intent,
        remarks,
        too_long,
        refs,
        unreadable,
        body_start,
        addressed_you,
        prohibitions,
        mut also,
        stands,
        rules,
        tags,
        ..
    } = draft;
    let mut rules: Vec<String> = rules.into_iter().map(str::to_string).collect();
    resolve_also(&mut also, index, side, &mut diags);
    let mut stages = build::stages(steps);
    // Rule `lead.no-action`: no action, but written as English prose (a finite verb): a report,
    // the sender's intention or an exhortation, not gibberish.
    let no_action = unreadable.is_some() && lexicon::get().reads_as_prose(&text[span.0..span.1]);
    if no_action {
        rules.push("lead.no-action".into());
    }
    // --- the recipient
    let (recipient_side, recipient_ref) = check_recipient(
        text,
        index,
        side,
        &mut recipient,
        &stages,
        (preset, addressed_you, no_action, body_start),
        &mut diags,
    );
    // --- places, hexes and troops
    // The writer's side: given, or the recipient's (a sender orders his own commands).
    let own_side: Option<String> = side.map(str::to_string).or(recipient_side.clone());
    let own = own_side.as_deref();
    let (places, table) = resolve_refs(text, refs, index, own, &stages, &mut diags, &mut rules);
    fill_stages(&mut stages, &table, index, own);
    let forms_division = forms_division(&stages);
    resolve_members(
        &mut attached,
        &table,
        index,
        own,
        forms_division,
        &mut diags,
    );

    antecedents(&mut stages, &places, index.is_some(), &mut rules);
    // --- posture from the map (6.3.1)
    let own = side.or(recipient_side.as_deref());
    postures(&mut stages, index, own, prohibitions.is_empty(), &mut rules);
    // --- classification (6.3, 6.4.2)
    // Rule `neg.general`: an order that only forbids ("do not engage") orders no offensive
    // movement; it is General (6.3.2).
    let order_type = critique::order_type(&stages)
        .or_else(|| (!prohibitions.is_empty()).then_some(OrderType::General));
    let cost_type = critique::cost_type(&stages);
    // --- critique
    if let Some(t) = cheaper_wording(&stages) {
        rules.push("posture.cheaper".into());
        diags.push(critique::cheaper_note(t, span));
    }
    let at = unreadable
        .as_ref()
        .map(|u| (word_span(text, u.pos), u.expected.as_slice()));
    critique::reading(
        no_action,
        word_span(text, body_start),
        at,
        &too_long,
        &remarks,
        &mut diags,
    );
    critique::content(&stages, span, &mut diags);
    critique::contradictions(&stages, &prohibitions, &mut diags);
    if let Some(now) = now {
        critique::times_past(&stages, now, &mut diags);
    }
    if independent {
        let at = independent_span.unwrap_or(span);
        diags.extend(independent_check(recipient_ref.as_ref(), index, at));
    }
    if let (Some((stated, s)), Some(t)) = (stated_type, order_type)
        && stated != t
    {
        diags.push(critique::type_mismatch(stated, t, s));
    }
    let intent_text = (!intent.is_empty()).then(|| intent.join("; "));
    let anatomy = critique::anatomy(
        recipient.is_some() || preset,
        &stages,
        intent_text.is_some(),
        places.len(),
    );
    diags.sort_by_key(|d| (d.span.0, d.severity));
    diags.push(critique::anatomy_note(anatomy, span));

    let mut o = CheckedOrder {
        text: crate::text::nfc(&text[span.0..span.1]),
        span,
        header,
        courtesies,
        recipient,
        also,
        preset,
        order_type,
        cost_type,
        stated_type: stated_type.map(|(t, _)| t),
        stages,
        prohibitions,
        places,
        independent,
        attached,
        intent: intent_text,
        remarks,
        anatomy,
        readback: String::new(),
        key: String::new(),
        diagnostics: diags,
        rules,
        tags,
    };
    // Rule `lead.subject-where`: "The artillery on the Cerro is to …", read back as written.
    let at = stands
        .filter(|_| o.also.is_empty())
        .map(|r| format!("{} {}", r.relation.as_deref().unwrap_or("at"), r.phrase));
    read_back(&mut o, index, &lead_attached, at.as_deref(), forms_division);
    o
}

/// The recipient (6.4): resolved against the scenario's order of battle, with its side and
/// (id, kind) for 6.8.1, and the diagnostics of a missing, unknown or foreign recipient.
/// `lead` is (pre-set, addressed to "you", no action, where the body starts).
fn check_recipient(
    text: &str,
    index: Option<&Index<'_>>,
    side: Option<&str>,
    recipient: &mut Option<Reference>,
    stages: &[Stage],
    lead: (bool, bool, bool, usize),
    diags: &mut Vec<Diagnostic>,
) -> (Option<String>, Option<(String, String)>) {
    let (preset, addressed_you, no_action, body_start) = lead;
    // Rule `pronoun.addressee`: "Him: hold Hall.", "The officer addressed is to hold Hall." —
    // the read-back of "Tell him to hold Hall" read again is the same unnamed man, no command
    // of the order of battle (decision 0202).
    if let Some(r) = recipient.as_mut()
        && r.form != Form::Pronoun
        && r.resolved.is_none()
        && is_addressee(&r.text)
    {
        r.form = Form::Pronoun;
    }
    let (recipient_side, recipient_ref) = match (recipient.as_mut(), index) {
        // Rule `pronoun.recipient`: "Tell him to …" with nobody named before: the man the
        // bearer is sent to, not a name of the order of battle.
        (Some(r), _) if r.form == Form::Pronoun => {
            diags.push(diag(
                Severity::Warning,
                "implicit-recipient",
                format!(
                    "the order is addressed to \"{}\", named nowhere in it",
                    r.phrase
                ),
                r.span,
                "name the recipient (\"Tell General Hill to …\") so the order can be checked",
            ));
            (None, None)
        }
        (Some(r), Some(ix)) => check_addressee(r, ix, side, diags),
        _ => (None, None),
    };
    match (&*recipient, preset || addressed_you) {
        (None, true) if addressed_you && !preset => diags.push(diag(
            Severity::Warning,
            "implicit-recipient",
            "the order is addressed to \"you\"; its recipient is whoever receives the letter",
            (body_start, body_start),
            "name the recipient (\"My dear Morvan,\", \"To General Morvan:\") so the order can be checked",
        )),
        (None, true) => diags.push(diag(
            Severity::Warning,
            "implicit-recipient",
            "a pre-set order names no recipient; it belongs to the command that holds it",
            (body_start, body_start),
            "6.2.2: pre-set orders are attached to a command by the scenario",
        )),
        // Rule `lead.no-action`: a report or an exhortation gives nothing to anybody.
        (None, false) if no_action => {}
        (None, false) => {
            let at = stages.first().map_or_else(|| word_span(text, body_start), |s| s.span);
            // Rule `lead.letter`: with no scenario there is no order of battle to check, and
            // a letter's addressee is named on its cover, not in its text: a warning.
            let severity = if index.is_some() {
                Severity::Error
            } else {
                Severity::Warning
            };
            diags.push(diag(
                severity,
                "no-recipient",
                "the order does not say who is to carry it out",
                (at.0, at.0),
                "start with the recipient: \"2nd Div: …\", \"To General Hill: …\" or \"The Duke will …\"",
            ));
        }
        _ => {}
    }
    (recipient_side, recipient_ref)
}

/// One addressee of an order (the recipient, or another of rule `lead.several`) resolved
/// against the order of battle: its side and (id, kind), with the diagnostics of a near miss,
/// an ambiguous, unknown or foreign name (6.4).
fn check_addressee(
    r: &mut Reference,
    ix: &Index<'_>,
    side: Option<&str>,
    diags: &mut Vec<Diagnostic>,
) -> (Option<String>, Option<(String, String)>) {
    // Rule `lead.commanding`: "the officer commanding at X", "the officer commanding the
    // cavalry": the command at that place or of that arm, when the scenario has one.
    if let Some((at, what)) = subjects::by_command(&r.text) {
        return match commanding(ix, at, what, side) {
            Ok(resolved) => {
                let out = (
                    side.map(str::to_string),
                    Some((resolved.id.clone(), resolved.kind.clone())),
                );
                r.resolved = Some(resolved);
                out
            }
            Err(candidates) => {
                diags.push(unfitted(r, &candidates, side));
                (None, None)
            }
        };
    }
    let found = ix.unit_of(&r.text, true, side);
    // Rule `name.arm`: own troops by their arm when no name of the order of battle (or only a
    // near miss, or only the enemy's) is meant.
    let arm = match (&found, side) {
        (Match::Missing { .. }, Some(own)) => ix.by_arm(&r.text, own),
        (Match::Found { near, side: s, .. }, Some(own))
            if near.is_some() || s.as_deref().is_some_and(|s| s != own) =>
        {
            ix.by_arm(&r.text, own)
        }
        _ => None,
    };
    match arm {
        Some(Arm::One(resolved)) => {
            let out = (
                side.map(str::to_string),
                Some((resolved.id.clone(), resolved.kind.clone())),
            );
            r.resolved = Some(resolved);
            return out;
        }
        Some(Arm::Several(candidates)) => {
            diags.push(unfitted(r, &candidates, side));
            return (None, None);
        }
        None => {}
    }
    let (resolved, recipient_side, near, others) = match found {
        Match::Found {
            resolved,
            side,
            near,
            others,
            ..
        } => (resolved, side, near, others),
        Match::Missing { suggestions } => {
            diags.push(diag(
                Severity::Error,
                "unknown-recipient",
                format!("no command called \"{}\" in this scenario", r.text),
                r.span,
                suggest(
                    &suggestions,
                    "name a formation, unit or commander of the order of battle",
                ),
            ));
            return (None, None);
        }
    };
    if let Some(d) = near {
        diags.push(diag(
            Severity::Warning,
            "near-miss",
            format!(
                "recipient \"{}\" taken for {} (edit distance {d})",
                r.text, resolved.name
            ),
            r.span,
            format!("write \"{}\" if that is meant", resolved.name),
        ));
    }
    if !others.is_empty() {
        diags.push(diag(
            Severity::Warning,
            "ambiguous-name",
            format!(
                "recipient \"{}\" could be {} or {}",
                r.text,
                resolved.name,
                others.join(" or ")
            ),
            r.span,
            "use the formation's full name or counter id",
        ));
    }
    if let (Some(want), Some(got)) = (side, &recipient_side)
        && want != got
    {
        diags.push(diag(
            Severity::Error,
            "recipient-not-own-side",
            format!("{} belongs to the {got} side, not to {want}", r.text),
            r.span,
            "6.4: the Army Commander orders only his own commands",
        ));
    }
    let recipient_ref = Some((resolved.id.clone(), resolved.kind.clone()));
    r.resolved = Some(resolved);
    (recipient_side, recipient_ref)
}

/// The command of side `own` meant by "the officer commanding at X" (`at`, the units set up
/// at place X) or "commanding the cavalry" / "the 4th Division" (its arm or name); `Err` with
/// the own units that could be meant when not exactly one fits (rule `lead.commanding`).
fn commanding(
    ix: &Index<'_>,
    at: bool,
    what: &str,
    own: Option<&str>,
) -> Result<Resolved, Vec<String>> {
    let Some(own) = own else {
        return Err(Vec::new());
    };
    if at {
        if let Match::Found { resolved, .. } = ix.place(what)
            && let Some(p) = ix.scenario.places.iter().find(|p| p.id == resolved.id)
        {
            let here: Vec<&crate::scenario::Unit> = ix
                .scenario
                .units
                .iter()
                .filter(|u| {
                    u.side == own
                        && u.position
                            .as_ref()
                            .is_some_and(|x| p.hexes.contains(&x.hex))
                })
                .collect();
            return match here.as_slice() {
                [u] => Ok(Resolved {
                    id: u.id.clone(),
                    name: u.name.clone(),
                    kind: "unit".into(),
                }),
                _ => Err(here.iter().map(|u| u.name.clone()).collect()),
            };
        }
        return Err(Vec::new());
    }
    // A name of the order of battle first ("the 4th Division", "the cavalry division"), then
    // the arm ("the light cavalry").
    if let Match::Found {
        resolved,
        side: Some(s),
        near: None,
        ..
    } = ix.unit_of(what, false, Some(own))
        && s == own
    {
        return Ok(resolved);
    }
    match ix.by_arm(what, own) {
        Some(Arm::One(r)) => Ok(r),
        Some(Arm::Several(c)) => Err(c),
        None => Err(Vec::new()),
    }
}

/// The warning for own troops described (by their arm, or as "the officer commanding …")
/// that no one command of the writer's side fits: the candidates named, the recipient left
/// unresolved (rules `name.arm`, `lead.commanding`).
fn unfitted(r: &Reference, candidates: &[String], own: Option<&str>) -> Diagnostic {
    const SHOWN: usize = 6;
    if candidates.is_empty() {
        return diag(
            Severity::Warning,
            "implicit-recipient",
            format!(
                "\"{}\" is no one command of {} in this scenario; the recipient is left to the umpire",
                r.text,
                own.map_or_else(|| "either side".to_string(), |s| format!("the {s} side"))
            ),
            r.span,
            "name the formation or unit meant",
        );
    }
    let mut names: Vec<String> = candidates.iter().take(SHOWN).cloned().collect();
    if candidates.len() > SHOWN {
        names.push(format!("{} more", candidates.len() - SHOWN));
    }
    diag(
        Severity::Warning,
        "ambiguous-name",
        format!(
            "recipient \"{}\" could be any of {} of the {} side: {}; taken for none",
            r.text,
            candidates.len(),
            own.unwrap_or_default(),
            names.join(", ")
        ),
        r.span,
        "name the formation or unit meant",
    )
}

/// Every place, hex and troop reference resolved once (by span), with the diagnostics of
/// resolution; the places of the order (`places`) and the table stages are filled from.
fn resolve_refs(
    text: &str,
    refs: Vec<Reference>,
    index: Option<&Index<'_>>,
    own: Option<&str>,
    stages: &[Stage],
    diags: &mut Vec<Diagnostic>,
    rules: &mut Vec<String>,
) -> (Vec<Reference>, Table) {
    let slots = slot_spans(stages);
    let mut places: Vec<Reference> = Vec::new();
    let mut table = Table::default();
    let next_spans: Vec<Option<Span>> = (0..refs.len())
        .map(|i| refs.get(i + 1).map(|n| n.span))
        .collect();
    for (i, mut r) in refs.into_iter().enumerate() {
        if table.contains_key(&r.span) {
            continue;
        }
        // Rule `place.anchored`: a known feature described, not a vague place of its own (no
        // place, no `vague-place` warning).
        if r.form == Form::Name
            && !index.is_some_and(|ix| ix.is_exact_name(&r.text))
            && anchored(text, &r, next_spans[i])
        {
            table.insert(r.span, (r.form, None));
            continue;
        }
        // Rule `place.definite`: "the village" points back to the last place of its kind, like
        // "that village" (decision 0214): no place of its own.
        if r.form == Form::Name
            && let Some(back) = kinds::definite(text, &r, &places, index, stages)
        {
            rules.push("place.definite".into());
            table.insert(r.span, (Form::Pronoun, back));
            continue;
        }
        let mut res: Option<Resolved> = None;
        if r.form == Form::Hex && r.hexes.is_empty() && r.text.parse::<Hex>().is_err() {
            // 2.1.1: hex numbers are unsigned; "-5.-5" is refused, never read as 5.5.
            diags.push(diag(
                Severity::Error,
                "not-a-hex",
                format!("\"{}\" is not a hex number", r.text),
                r.span,
                "a hex is written column.row with no sign, e.g. 29.17",
            ));
            table.insert(r.span, (r.form, None));
            continue;
        }
        match (r.form, index) {
            (Form::Hex, Some(ix)) => {
                if let Some(h) = r
                    .hexes
                    .first()
                    .copied()
                    .or_else(|| r.text.parse::<Hex>().ok())
                {
                    res = ix.hex(h);
                    if res.is_none() {
                        let m = &ix.scenario.map;
                        diags.push(diag(
                            Severity::Error,
                            "hex-off-map",
                            format!("hex {h} is not on the map"),
                            r.span,
                            format!(
                                "this map runs from column {} to {} and row {} to {}",
                                m.first_col, m.last_col, m.first_row, m.last_row
                            ),
                        ));
                    }
                }
            }
            (Form::Name, Some(ix)) => {
                res = resolve_name(ix, &mut r, own, stages.is_empty(), &slots, diags);
            }
            (Form::Name, None) if slots.contains(&r.span) && vague(&r.text) => {
                unresolved(&r, true, Vec::new, diags);
            }
            (Form::Unit, Some(ix)) => {
                if let Match::Found { resolved, .. } = ix.unit_of(&r.text, false, own) {
                    res = Some(resolved);
                }
            }
            _ => {}
        }
        table.insert(r.span, (r.form, res.clone()));
        r.resolved = res;
        // Rule `place.name-like`: an unresolved lower-case word is text, not a place, unless
        // it describes terrain ("the heights").
        if r.is_place()
            && (r.form != Form::Name
                || r.resolved.is_some()
                || name_like(&r.text)
                || (vague(&r.text) && slots.contains(&r.span)))
        {
            places.push(r);
        }
    }
    (places, table)
}

/// A name: a place of the gazetteer (with the warnings of a near or partial match), else
/// troops of the order of battle, else unresolved (an error only in an objective or route).
fn resolve_name(
    ix: &Index<'_>,
    r: &mut Reference,
    own: Option<&str>,
    no_stages: bool,
    slots: &BTreeSet<Span>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Resolved> {
    match ix.place(&r.text) {
        Match::Found {
            resolved,
            variant,
            near,
            others,
            partial,
            ..
        } => {
            if partial {
                diags.push(diag(
                    Severity::Warning,
                    "near-miss",
                    format!(
                        "\"{}\" is not on the map; only part of it names {}, taken for it",
                        r.text, resolved.name
                    ),
                    r.span,
                    format!("write \"{}\" if that is meant", resolved.name),
                ));
            }
            if let Some(v) = variant {
                diags.push(diag(
                    Severity::Warning,
                    "spelling-variant",
                    format!(
                        "\"{}\" taken for {} (a variant spelling, \"{v}\")",
                        r.text, resolved.name
                    ),
                    r.span,
                    format!("write \"{}\" to be certain", resolved.name),
                ));
            }
            if let Some(d) = near {
                diags.push(diag(
                    Severity::Warning,
                    "near-miss",
                    format!(
                        "\"{}\" is not on the map; taken for {} (edit distance {d})",
                        r.text, resolved.name
                    ),
                    r.span,
                    format!("write \"{}\" if that is meant", resolved.name),
                ));
            }
            if !others.is_empty() {
                diags.push(diag(
                    Severity::Warning,
                    "ambiguous-name",
                    format!(
                        "\"{}\" could be {} or {}; taken for {}",
                        r.text,
                        resolved.name,
                        others.join(" or "),
                        resolved.name
                    ),
                    r.span,
                    "use the full name of the place",
                ));
            }
            Some(resolved)
        }
        Match::Missing { .. } => match ix.unit_of(&r.text, false, own) {
            Match::Found { resolved, .. } => {
                r.form = Form::Unit;
                Some(resolved)
            }
            Match::Missing { .. } if no_stages => None,
            Match::Missing { .. } => {
                // Rule `name.shared-word`: "the Cerro" in Talavera is either hill — say which
                // could be meant, and take neither.
                let sharing = ix.places_sharing(&r.text);
                if let [first, rest @ ..] = sharing.as_slice() {
                    diags.push(diag(
                        Severity::Warning,
                        "ambiguous-name",
                        format!(
                            "\"{}\" could be {first} or {}; taken for neither",
                            r.text,
                            rest.join(" or ")
                        ),
                        r.span,
                        "use the full name of the place",
                    ));
                    return None;
                }
                let slot = slots.contains(&r.span);
                let before = diags.len();
                unresolved(r, slot, || ix.place_suggestions(&r.text), diags);
                // Decision 0215: a vague "the heights" names the map's places of its kind.
                if let Some(d) = diags.get_mut(before..).and_then(|d| d.first_mut())
                    && d.code == "vague-place"
                    && let Some(help) = kinds::vague_help(ix, r)
                {
                    d.help = help;
                }
                None
            }
        },
    }
}

/// The stages' references filled from the resolution table; a stage's own subject resolved.
fn fill_stages(stages: &mut [Stage], table: &Table, index: Option<&Index<'_>>, own: Option<&str>) {
    for st in stages.iter_mut() {
        for r in st.objectives.iter_mut().chain(st.route.iter_mut()) {
            fill(r, table);
        }
        fill_dir(&mut st.direction, table);
        fill_dir(&mut st.facing, table);
        fill_dir(&mut st.against, table);
        if let Some(c) = &mut st.condition {
            for r in &mut c.references {
                fill(r, table);
            }
        }
        if let Some(s) = &mut st.subject
            && let Some(ix) = index
        {
            match ix.unit_of(&s.text, true, own) {
                // Rule `name.arm`: "…, and that the horse artillery will follow" — the writer's
                // one unit of that arm when no name of his side is meant.
                Match::Found { side, near, .. }
                    if own.is_some_and(|o| near.is_some() || side.as_deref() != Some(o))
                        && let Some(Arm::One(r)) = own.and_then(|o| ix.by_arm(&s.text, o)) =>
                {
                    s.resolved = Some(r);
                }
                Match::Found { resolved, .. } => s.resolved = Some(resolved),
                Match::Missing { .. } => {
                    if let Some(Arm::One(r)) = own.and_then(|o| ix.by_arm(&s.text, o)) {
                        s.resolved = Some(r);
                    }
                }
            }
        }
        for step in &mut st.steps {
            for r in step
                .objectives
                .iter_mut()
                .chain(step.route.iter_mut())
                .chain(step.forces.iter_mut())
            {
                fill(r, table);
            }
            fill_dir(&mut step.direction, table);
            fill_dir(&mut step.facing, table);
            fill_dir(&mut step.against, table);
        }
    }
}

/// Attached units and the members of a temporary division, resolved (rule
/// `division.members`: a member that names nothing is an error, never dropped).
fn resolve_members(
    attached: &mut [Reference],
    table: &Table,
    index: Option<&Index<'_>>,
    own: Option<&str>,
    forms_division: bool,
    diags: &mut Vec<Diagnostic>,
) {
    for a in attached.iter_mut() {
        fill(a, table);
        if let (None, Some(ix)) = (&a.resolved, index) {
            let found = match ix.unit_of(&a.text, true, own) {
                Match::Found { resolved, .. } => Ok(resolved),
                Match::Missing { suggestions } => {
                    ix.unit_at(&a.text, &a.hexes, own).ok_or(suggestions)
                }
            };
            match found {
                Ok(resolved) => a.resolved = Some(resolved),
                // Rule `division.members`: a member that names nothing is an error, never
                // dropped (the division would form without it; issue 17).
                Err(suggestions) if forms_division => diags.push(diag(
                    Severity::Error,
                    "unknown-member",
                    format!(
                        "\"{}\" is not a brigade or battery of this scenario",
                        a.phrase
                    ),
                    a.span,
                    suggest(
                        &suggestions,
                        "V2.3: name each member by its name, short name or commander, or \"the battery at CC.RR\"",
                    ),
                )),
                Err(suggestions) => diags.push(diag(
                    Severity::Warning,
                    "unknown-unit",
                    format!("\"{}\" is not a unit of this scenario", a.text),
                    a.span,
                    suggest(
                        &suggestions,
                        "6.9: a transfer names the unit and the command it joins",
                    ),
                )),
            }
        }
    }
}

/// Rule `pronoun.antecedent`: "it", "there" and "them" as an objective stand for the last
/// resolved place written before them ("march upon Hall and carry it").
fn antecedents(
    stages: &mut [Stage],
    places: &[Reference],
    scenario: bool,
    rules: &mut Vec<String>,
) {
    // A definite description already pointed back ("the village", rule `place.definite`: one
    // terrain noun, where a pronoun is "it" and a demonstrative "that village") is left as it is.
    let open = |r: &Reference| {
        r.form == Form::Pronoun
            && r.resolved.is_none()
            && !lexicon::get().is_terrain(&r.text.lower())
    };
    // Rule `pronoun.kind`: "that village", "those heights" — the last place of that kind (the
    // gazetteer's, else read from the order's words; not the place the step moves from).
    let by_kind: Vec<(Span, Option<Resolved>)> = stages
        .iter()
        .flat_map(|st| st.steps.iter().flat_map(|x| &x.objectives))
        .filter(|r| open(r))
        .filter_map(|r| {
            let noun = r.text.rsplit(' ').next().unwrap_or("").lower();
            kinds::demonstrative(&noun, r.span, places, scenario, stages).map(|x| (r.span, x))
        })
        .collect();
    for st in stages.iter_mut() {
        for step in &mut st.steps {
            for r in &mut step.objectives {
                if open(r) {
                    let before = || {
                        places
                            .iter()
                            .rev()
                            .filter(|p| p.span.0 < r.span.0 && p.resolved.is_some())
                    };
                    let of_kind = by_kind.iter().find(|(at, _)| *at == r.span);
                    rules.push(
                        if of_kind.is_some() {
                            "pronoun.kind"
                        } else {
                            "pronoun.antecedent"
                        }
                        .into(),
                    );
                    r.resolved = match of_kind {
                        Some((_, x)) => x.clone(),
                        None => before().next().and_then(|p| p.resolved.clone()),
                    };
                }
            }
        }
        let all: Vec<Reference> = st.steps.iter().flat_map(|x| x.objectives.clone()).collect();
        for r in &mut st.objectives {
            if r.form == Form::Pronoun
                && let Some(x) = all.iter().find(|x| x.span == r.span)
            {
                r.resolved = x.resolved.clone();
            }
        }
    }
}

/// A recipient that is the unnamed man the order is sent to: "him", "her", "them", or "the
/// officer addressed", its read-back (rule `pronoun.addressee`).
pub(crate) fn is_addressee(text: &str) -> bool {
    matches!(
        crate::text::fold(text).as_str(),
        "him" | "her" | "them" | "officer addressed" | "the officer addressed"
    )
}

/// The recipient's name in the read-back: the order of battle's name when it reads back to the
/// same command; otherwise the recipient as written ("Milhaud"), which does.
fn display_name(r: &Reference, index: Option<&Index<'_>>, lead_attached: &[Reference]) -> String {
    let name = match (&r.resolved, index) {
        // "Tell him to hold Hall" → "The officer addressed is to hold Hall" (rule
        // `pronoun.addressee`), never "Him: …".
        (None, _) if r.form == Form::Pronoun => "The officer addressed".to_string(),
        (Some(x), Some(ix))
            if matches!(ix.unit(&x.name, false), Match::Found { ref resolved, .. } if resolved.id == x.id)
                && !x.name.contains('(')
                && !x
                    .name
                    .split_whitespace()
                    .any(|w| !names::is_link(&w.lower()) && lower::is_keyword(w)) =>
        {
            x.name.clone()
        }
        (Some(x), None) => x.name.clone(),
        _ => r.phrase.clone(),
    };
    if lead_attached.is_empty() {
        name
    } else {
        let a: Vec<&str> = lead_attached.iter().map(|a| a.phrase.as_str()).collect();
        format!("{name} with {} attached", a.join(" and "))
    }
}

/// Rule `division.members`: the read-back names the members of a temporary division.
fn name_members(stages: &mut [Stage], attached: &[Reference]) {
    if !attached.is_empty() {
        let names: Vec<&str> = attached.iter().map(|a| a.phrase.as_str()).collect();
        let list = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.join(""),
        };
        for st in stages.iter_mut() {
            for x in &mut st.steps {
                if x.action == Action::FormDivision && x.parts.len() <= 1 {
                    x.parts.push(format!("with {list}"));
                }
            }
        }
    }
}

/// The posture rules: from the map (`posture.map`, 6.3.1), an approach and its attack as one
/// stage (`posture.approach`), and an order that only forbids (`neg.general`).
fn postures(
    stages: &mut Vec<Stage>,
    index: Option<&Index<'_>>,
    own: Option<&str>,
    no_prohibitions: bool,
    rules: &mut Vec<String>,
) {
    if let (Some(ix), Some(own)) = (index, own)
        && follow_own_command(ix.scenario, own, stages)
    {
        rules.push("verb.follow-own".into());
        merge_same_posture(stages);
    }
    if let (Some(ix), Some(own)) = (index, own) {
        let (fired, split) = posture_from_map(ix.scenario, own, stages);
        if split {
            rules.push("posture.map-split".into());
        }
        if fired {
            rules.push("posture.map".into());
        }
    }
    if merge_approach(stages) {
        rules.push("posture.approach".into());
    }
    if stages.is_empty() && !no_prohibitions {
        rules.push("neg.general".into());
    }
}

/// The same-order key (6.5.2, 6.6.1.5), with what the order forbids.
fn order_key(
    recipient: Option<&Reference>,
    attached: &[Reference],
    independent: bool,
    stages: &[Stage],
    intent: Option<&str>,
    prohibitions: &[Prohibition],
) -> String {
    let mut key = critique::key(recipient, attached, independent, stages, intent);
    for p in prohibitions {
        key.push_str(if p.avoid { "|avoid:" } else { "|not:" });
        key.push_str(&crate::text::fold(&p.text));
    }
    key
}

/// Rule `lead.several`: the other recipients of the order, resolved like the first.
fn resolve_also(
    also: &mut [Reference],
    index: Option<&Index<'_>>,
    side: Option<&str>,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(ix) = index else { return };
    for r in also {
        check_addressee(r, ix, side, diags);
    }
}

/// 6.8.1: an Independent Order to a command that may not normally receive one.
fn independent_check(
    recipient: Option<&(String, String)>,
    index: Option<&Index<'_>>,
    at: Span,
) -> Option<Diagnostic> {
    let ((id, kind), ix) = (recipient?, index?);
    let why = independent_refusal(ix.scenario, id, kind)?;
    let name = ix.scenario.command(id).map_or(id.as_str(), |c| c.name());
    Some(critique::independent_note(name, why, at))
}

/// The read-back (with the recipient's display name and a temporary division's members) and
/// the same-order key of a checked order.
fn read_back(
    o: &mut CheckedOrder,
    index: Option<&Index<'_>>,
    lead_attached: &[Reference],
    at: Option<&str>,
    forms_division: bool,
) {
    // Rule `lead.several`: every recipient is read back ("Morvan and Sauret are to …").
    let who = o.recipient.as_ref().map(|r| {
        let mut names = vec![display_name(r, index, lead_attached)];
        names.extend(o.also.iter().map(|a| display_name(a, index, &[])));
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.swap_remove(0),
        }
    });
    if forms_division {
        name_members(&mut o.stages, &o.attached);
    }
    o.readback = readback::render(
        who.as_deref(),
        at,
        o.preset,
        o.independent,
        &o.stages,
        &o.prohibitions,
        o.order_type,
    );
    o.key = order_key(
        o.recipient.as_ref(),
        &o.attached,
        o.independent,
        &o.stages,
        o.intent.as_deref(),
        &o.prohibitions,
    );
}

/// Some stage forms a temporary division (Vimeiro V2.3).
fn forms_division(stages: &[Stage]) -> bool {
    stages
        .iter()
        .any(|s| s.steps.iter().any(|x| x.action == Action::FormDivision))
}

/// Rule `verb.follow-own` by the scenario: "follow Charlot", where Charlot commands one of the
/// writer's own brigades, is to move behind him (General), as "follow Loison's division" is
/// (build.rs reads that one by its words); "follow Wellesley" still pursues.
fn follow_own_command(s: &Scenario, own: &str, stages: &mut [Stage]) -> bool {
    let own_command = |r: &Reference| {
        r.resolved
            .as_ref()
            .and_then(|x| s.command(&x.id))
            .is_some_and(|c| c.side() == own)
    };
    let mut fired = false;
    for st in stages.iter_mut() {
        let mut changed = false;
        for x in &mut st.steps {
            if x.action == Action::Pursue
                && x.verb == "follow"
                && !x.objectives.is_empty()
                && x.objectives.iter().all(own_command)
            {
                x.action = Action::Move;
                x.posture = Posture::General;
                changed = true;
            }
        }
        if changed && st.steps.iter().all(|x| x.posture == Posture::General) {
            st.posture = Posture::General;
            st.action = st.steps.first().map_or(st.action, |x| x.action);
        }
        fired |= changed;
    }
    fired
}

/// After `verb.follow-own` changed a stage's posture: stages joined by "and" that now share one
/// posture are one stage, as `build::stages` groups steps (6.3.3: "follow Charlot closely and
/// keep his brigade well in hand" is one General stage, not a Complex order of two). A subject
/// of its own, a second condition or one written before its step still starts a stage.
fn merge_same_posture(stages: &mut Vec<Stage>) {
    let mut i = 1;
    while i < stages.len() {
        let (a, b) = (&stages[i - 1], &stages[i]);
        let joins = b.link == Link::And
            && a.posture == b.posture
            && b.subject.is_none()
            && !(a.condition.is_some() && b.condition.is_some())
            && b.condition
                .as_ref()
                .is_none_or(|c| b.steps.first().is_none_or(|x| c.span.0 >= x.span.0));
        if !joins {
            i += 1;
            continue;
        }
        let b = stages.remove(i);
        let a = &mut stages[i - 1];
        a.condition = a.condition.take().or(b.condition);
        a.span.1 = a.span.1.max(b.span.1);
        a.objectives.extend(b.objectives);
        a.route.extend(b.route);
        a.direction = a.direction.take().or(b.direction);
        a.facing = a.facing.take().or(b.facing);
        a.against = a.against.take().or(b.against);
        a.timing = a.timing.take().or(b.timing);
        a.if_possible |= b.if_possible;
        a.alternatives |= b.alternatives;
        a.steps.extend(b.steps);
    }
}

/// Rule `posture.map` (6.3.1: Engage is "offensive movement"): a stage that moves to, into or
/// around a place the scenario's set-up shows under enemy control (an enemy unit stands on one
/// of its hexes) is Engage.
fn posture_from_map(s: &Scenario, own: &str, stages: &mut Vec<Stage>) -> (bool, bool) {
    let mut fired = false;
    let mut split = false;
    let enemy_held = |r: &Reference| {
        let Some(res) = &r.resolved else { return false };
        let Some(place) = s.places.iter().find(|p| p.id == res.id) else {
            return false;
        };
        // Held: an enemy unit stands on the place, or — for a hill, whose slopes its
        // defenders hold — next to one of its hexes.
        let hill = matches!(place.kind, crate::scenario::PlaceKind::Hill);
        // A bridge or ford given by hexsides stands on the hexes either side.
        let hexes: Vec<Hex> = place
            .hexes
            .iter()
            .copied()
            .chain(place.hexsides.iter().flat_map(|x| [x.0, x.1]))
            .collect();
        s.units.iter().any(|u| {
            u.side != own
                && u.position.as_ref().is_some_and(|p| {
                    hexes
                        .iter()
                        .any(|h| *h == p.hex || (hill && h.distance(p.hex) == 1))
                })
        })
    };
    // Rule `posture.map-split` (decision 0208): "hold the enclosures along the Portina and
    // send a brigade to the olive groves" — a move into enemy-held ground after a stage's
    // holding steps is a stage of its own (6.3: stages of different posture).
    let mut i = 0;
    while i < stages.len() {
        let st = &stages[i];
        let at = (1..st.steps.len()).find(|&k| {
            st.steps[k].action == Action::Move
                && st.steps[k].objectives.iter().any(enemy_held)
                // Each holding step holds a place of its own, not one the move's objectives
                // gave it.
                && st.steps[..k].iter().all(|x| {
                    matches!(x.action, Action::Defend | Action::Reserve)
                        && x.objectives.iter().any(|o| {
                            !st.steps[k..]
                                .iter()
                                .any(|y| y.objectives.iter().any(|z| z.span == o.span))
                        })
                })
        });
        if let Some(k) = at
            && st.condition.is_none()
            && !st.alternatives
        {
            let a = &mut stages[i];
            let tail: Vec<Step> = a.steps.split_off(k);
            let b = stage_of_steps(tail, a.span.1);
            a.objectives = a.steps.iter().flat_map(|x| x.objectives.clone()).collect();
            a.route = a.steps.iter().flat_map(|x| x.route.clone()).collect();
            a.span.1 = a.steps.last().map_or(a.span.1, |x| x.span.1);
            stages.insert(i + 1, b);
            split = true;
            i += 1;
        }
        i += 1;
    }
    for st in stages.iter_mut() {
        // Every step moves, and one goes to or into enemy-held ground; or a patrol goes
        // towards it ("scout towards Vimeiro Hill").
        let towards = |x: &Step| {
            x.direction
                .as_ref()
                .and_then(|d| d.place.as_ref())
                .is_some_and(|p| !d_from(x) && enemy_held(p))
        };
        // "go to the bridge at Vimeiro and hold it": holding what the move took is part of it.
        let holds_it = |x: &Step| {
            x.action == Action::Defend && x.objectives.iter().all(|o| o.form == Form::Pronoun)
        };
        let moving = st.steps.iter().all(|x| {
            matches!(x.action, Action::Move | Action::Cross | Action::Reconnoitre) || holds_it(x)
        }) && st.steps.iter().any(|x| {
            (x.action != Action::Reconnoitre && x.objectives.iter().any(enemy_held))
                || towards(x)
                // "move round the northern foot of the Cerro de Medellín" (rule
                // `route.round-place`): going around enemy-held ground (6.3.1).
                || x.route.iter().any(|r| {
                    matches!(r.relation.as_deref(), Some("round" | "around")) && enemy_held(r)
                })
        });
        if st.posture == Posture::General && moving {
            st.posture = Posture::Engage;
            for x in &mut st.steps {
                x.posture = Posture::Engage;
            }
            fired = true;
        }
    }
    (fired, split)
}

/// A stage of the given steps, joined to the one before by "and", ending at `end`.
fn stage_of_steps(steps: Vec<Step>, end: usize) -> Stage {
    let first = steps.first();
    Stage {
        action: first.map_or(Action::Move, |x| x.action),
        posture: first.map_or(Posture::General, |x| x.posture),
        link: Link::And,
        subject: None,
        objectives: steps.iter().flat_map(|x| x.objectives.clone()).collect(),
        route: steps.iter().flat_map(|x| x.route.clone()).collect(),
        direction: steps.iter().find_map(|x| x.direction.clone()),
        facing: steps.iter().find_map(|x| x.facing.clone()),
        against: steps.iter().find_map(|x| x.against.clone()),
        timing: steps.iter().find_map(|x| x.timing.clone()),
        condition: None,
        if_possible: steps.iter().any(|x| x.if_possible),
        alternatives: steps.iter().any(|x| x.alternatives),
        span: (first.map_or(end, |x| x.span.0), end),
        steps,
    }
}

/// The step's direction is "from" somewhere (not towards it).
fn d_from(x: &Step) -> bool {
    x.direction.as_ref().is_some_and(|d| d.from)
}

/// Rule `posture.approach` (6.3.3): "march upon Hall and carry it" is one Engage stage, not
/// a General stage and an Engage one: a movement joined by "and" to an attack on the same
/// objective (or on "it", "there", the enemy) is the attack's approach.
fn merge_approach(stages: &mut Vec<Stage>) -> bool {
    let mut fired = false;
    fn key(r: &Reference) -> String {
        r.resolved
            .as_ref()
            .map_or_else(|| crate::text::fold(&r.text), |x| x.id.clone())
    }
    let mut i = 1;
    while i < stages.len() {
        let (a, b) = (&stages[i - 1], &stages[i]);
        // Rule `posture.form-up` (decision 0208): "form your division in columns of attack and
        // carry Vimeiro hill" — forming up where it stands, with no place of its own, is how
        // the attack begins (a formation change, 8.2), one Engage stage with it.
        // (An objective the attack gives it, copied to it, is no place of its own.)
        let form_up = a.steps.iter().all(|x| {
            x.action == Action::Deploy
                && x.route.is_empty()
                && x.objectives
                    .iter()
                    .all(|o| b.objectives.iter().any(|y| key(y) == key(o)))
        });
        let approach = (form_up
            || a.steps
                .iter()
                .all(|x| matches!(x.action, Action::Move | Action::Cross)))
            && b.posture == Posture::Engage
            && b.link == Link::And
            && a.condition.is_none()
            && b.condition.is_none()
            // "…, Charlot to follow in support": another command's task is never an approach.
            && b.subject.is_none()
            && (
                // "march by the valley and fall upon Casa de Valdefuentes": a march along a
                // route only, or with no place at all ("move on, take those heights"), is
                // the attack's approach too.
                a.objectives.is_empty()
                    || !a.objectives.is_empty()
                        && b.objectives.iter().all(|o| {
                            matches!(o.form, Form::Pronoun | Form::Unit | Form::Vague)
                                || a.objectives.iter().any(|x| key(x) == key(o))
                        })
            );
        if approach {
            let b = stages.remove(i);
            let a = &mut stages[i - 1];
            a.posture = Posture::Engage;
            a.span.1 = a.span.1.max(b.span.1);
            a.route.extend(b.route);
            a.direction = a.direction.take().or(b.direction);
            a.timing = a.timing.take().or(b.timing);
            a.steps.extend(b.steps);
            fired = true;
        } else {
            i += 1;
        }
    }
    fired
}

/// Rule `posture.cheaper` (issue 17): the type the order would have if its stages were joined
/// by "and" — `Some` only when it is Complex by its wording alone (no condition, alternative or
/// start time) and one stage would do: an approach and an attack on one objective (Engage), or
/// a march and a hold of one place (General).
fn cheaper_wording(stages: &[Stage]) -> Option<OrderType> {
    if stages.len() < 2
        || stages.iter().any(|s| {
            s.condition.is_some()
                || s.alternatives
                || s.subject.is_some()
                || s.steps
                    .iter()
                    .any(|x| x.timing.as_ref().is_some_and(Timing::is_start))
        })
    {
        return None;
    }
    let mut sim: Vec<Stage> = stages.to_vec();
    for s in sim.iter_mut().skip(1) {
        if matches!(s.link, Link::Then | Link::Sentence) {
            s.link = Link::And;
        }
    }
    merge_approach(&mut sim);
    let key = |r: &Reference| {
        r.resolved
            .as_ref()
            .map_or_else(|| crate::text::fold(&r.text), |x| x.id.clone())
    };
    let mut i = 1;
    while i < sim.len() {
        let (a, b) = (&sim[i - 1], &sim[i]);
        let one_place = a.posture == Posture::General
            && b.posture == Posture::General
            && !a.objectives.is_empty()
            && a.steps.iter().all(|x| matches!(x.action, Action::Move))
            && b.steps.iter().all(|x| matches!(x.action, Action::Defend))
            && b.objectives
                .iter()
                .all(|o| o.form == Form::Pronoun || a.objectives.iter().any(|x| key(x) == key(o)));
        if one_place {
            let b = sim.remove(i);
            sim[i - 1].steps.extend(b.steps);
        } else {
            i += 1;
        }
    }
    (sim.len() == 1)
        .then(|| critique::order_type(&sim))
        .flatten()
}

/// The spans of every reference in an objective, route or direction slot of a stage.
fn slot_spans(stages: &[Stage]) -> BTreeSet<Span> {
    fn add(r: &Reference, out: &mut BTreeSet<Span>) {
        out.insert(r.span);
        for p in &r.parts {
            add(p, out);
        }
    }
    let mut out = BTreeSet::new();
    for st in stages {
        for step in &st.steps {
            for r in step.objectives.iter().chain(&step.route) {
                add(r, &mut out);
            }
            for d in [&step.direction, &step.facing].into_iter().flatten() {
                if let Some(p) = &d.place {
                    add(p, &mut out);
                }
            }
        }
    }
    out
}

/// A name is name-like when a word of it is capitalised or written in a script without case
/// ("Vimeiro", "北京"); "good defensive position" is not.
fn name_like(text: &str) -> bool {
    text.split_whitespace().any(|w| {
        w.chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || (c.is_alphabetic() && !c.is_lowercase()))
    })
}

/// The noun of a definite lower-case terrain description ("the heights", "the village"),
/// if `r` is one.
fn definite_noun(r: &Reference) -> Option<&str> {
    let rest = r.phrase.strip_prefix("the ")?;
    (vague(&r.text) && rest == r.text).then(|| r.text.rsplit(' ').next().unwrap_or(&r.text))
}

/// Rule `place.anchored`: "the heights behind Hassenhausen", "the ground south of Kümla", "the
/// stream between the Niza and the Tagus", "the ridge behind it" — a definite terrain
/// description placed by a relation to the next reference names only that one (the corpus
/// convention "the heights above Kümla" → Kümla). "a defensive position near the Mill bridge"
/// stays a place: the indefinite article asks for a position still to be chosen.
fn anchored(text: &str, r: &Reference, next: Option<Span>) -> bool {
    let (Some(_), Some(n)) = (definite_noun(r), next) else {
        return false;
    };
    let Some(gap) = text.get(r.span.1..n.0) else {
        return false;
    };
    let ws: Vec<String> = gap
        .split_whitespace()
        .map(str::to_lowercase)
        .filter(|w| w != "the")
        .collect();
    let ws: Vec<&str> = ws.iter().map(String::as_str).collect();
    let compass = |w: &str| {
        matches!(
            w,
            "north"
                | "south"
                | "east"
                | "west"
                | "north-east"
                | "north-west"
                | "south-east"
                | "south-west"
        )
    };
    match ws.as_slice() {
        [w] => matches!(
            *w,
            "behind"
                | "above"
                | "below"
                | "beyond"
                | "near"
                | "beside"
                | "opposite"
                | "overlooking"
                | "between"
                | "at"
                | "under"
                | "alongside"
                | "around"
        ),
        [c, "of"] => compass(c) || matches!(*c, "short"),
        ["in", "front" | "rear", "of"] | ["next", "to"] => true,
        _ => false,
    }
}

/// A lower-case description ending in a terrain noun of the lexicon: "the heights", "a good
/// defensive position".
fn vague(text: &str) -> bool {
    !name_like(text)
        && text
            .split_whitespace()
            .last()
            .is_some_and(|w| lexicon::get().is_terrain(&w.lower()))
}

/// The diagnostic for a name that resolves to nothing (rules `diag.unknown-place`,
/// `diag.vague-place`, `diag.unknown-word`): an error only for a name-like word in an objective
/// or route slot; a vague description there is a warning asking for a name or hex; anything
/// else is a warning, or nothing for a lower-case word outside a slot. The "did you mean" list is
/// asked for only where a diagnostic shows it (reading speed, issue 11).
fn unresolved(
    r: &Reference,
    slot: bool,
    suggestions: impl FnOnce() -> Vec<String>,
    diags: &mut Vec<Diagnostic>,
) {
    // "cover the retreat", "protect the passage": an action of the writer's own army, named by
    // its noun, is no place to look up (the lexicon's `[actions]` nouns).
    if !name_like(&r.text) && lexicon::get().is_action_noun(&r.text.lower()) {
        return;
    }
    if slot && name_like(&r.text) {
        diags.push(diag(
            Severity::Error,
            "unknown-place",
            format!("\"{}\" is not a place on this map", r.text),
            r.span,
            suggest(
                &suggestions(),
                "name a place of the scenario's gazetteer or give a hex",
            ),
        ));
    } else if slot && vague(&r.text) {
        diags.push(diag(
            Severity::Warning,
            "vague-place",
            format!("\"{}\" does not say which place", r.phrase),
            r.span,
            "name the place or give a hex (\"the heights\" → \"Hinzeberg\" or \"24.12\")",
        ));
    } else if slot || name_like(&r.text) {
        diags.push(diag(
            Severity::Warning,
            "unknown-word",
            format!("\"{}\" is neither a place nor a command of this scenario", r.text),
            r.span,
            suggest(
                &suggestions(),
                "if it is a place, use the gazetteer's name or a hex; otherwise it is only read as text",
            ),
        ));
    }
}

pub(crate) fn type_word(t: OrderType) -> &'static str {
    match t {
        OrderType::Engage => "Engage",
        OrderType::General => "General",
        OrderType::Complex => "Complex",
    }
}

fn suggest(suggestions: &[String], fallback: &str) -> String {
    if suggestions.is_empty() {
        fallback.to_string()
    } else {
        format!(
            "did you mean {}?",
            suggestions
                .iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Why a command may not receive an Independent Order (6.8.1), or `None` when it may.
fn independent_refusal(s: &Scenario, id: &str, kind: &str) -> Option<&'static str> {
    if kind == "formation" {
        let f = s.formation(id)?;
        return match f.echelon {
            Echelon::Division => {
                let parent = f.parent.as_deref().and_then(|p| s.formation(p));
                match parent.map(|p| p.echelon) {
                    Some(Echelon::Corps) | None => None,
                    _ => None,
                }
            }
            Echelon::Corps => Some("a corps is not a sub-unit"),
            Echelon::Army => Some("an army is not a sub-unit"),
        };
    }
    let u = s.unit(id)?;
    if u.kind.is_cavalry() {
        return None;
    }
    match s.formation(&u.parent).map(|p| p.echelon) {
        Some(Echelon::Division) => Some("it is a brigade of a division and not cavalry"),
        _ => None,
    }
}
