//! The typed order: what an order says once it has been read (NBS 6.2), with no trace of the
//! parser. These types are also the JSON contract of `staffwork check --format json`
//! (docs/order-language.md), so field names and enum spellings are stable.
//!
//! Owns: the order AST and diagnostic types and their serialisation. Must not: parse, resolve,
//! print or know about pest.

use serde::Serialize;

use crate::hex::Hex;
use crate::rules::{OrderType, Posture};

/// Byte offsets `[start, end)` into the input exactly as given to [`super::check`].
pub type Span = (usize, usize);

/// What a stage (or one step of it) tells the command to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// march, move, proceed, advance, push forward, manoeuvre.
    Move,
    /// attack, assault, capture, take, seize, carry, drive off, fall on, surround, engage.
    Attack,
    /// defend, hold, occupy, protect.
    Defend,
    /// withdraw, retire, fall back.
    Withdraw,
    /// cross a stream or river.
    Cross,
    /// deploy, form line, take up position.
    Deploy,
    /// support another command.
    Support,
    /// take up position as reserve.
    Reserve,
    /// join or attach to another command (sub-unit transfer, 6.9).
    Join,
    /// form a temporary division (Vimeiro V2.3).
    FormDivision,
    /// await orders, halt, stop (enters No Orders Status when done, 6.3.4.1).
    Halt,
    /// pursue.
    Pursue,
    /// reconnoitre, scout, observe.
    Reconnoitre,
    /// leave the map, move off the play area.
    LeaveMap,
}

impl Action {
    /// The posture of a stage doing this (6.3.1 Engage: offensive movement and combat; 6.3.2
    /// General: everything else).
    pub fn posture(self) -> Posture {
        match self {
            Action::Attack | Action::Pursue => Posture::Engage,
            _ => Posture::General,
        }
    }

    /// The kebab-case name used in JSON and in same-order keys.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Move => "move",
            Action::Attack => "attack",
            Action::Defend => "defend",
            Action::Withdraw => "withdraw",
            Action::Cross => "cross",
            Action::Deploy => "deploy",
            Action::Support => "support",
            Action::Reserve => "reserve",
            Action::Join => "join",
            Action::FormDivision => "form-division",
            Action::Halt => "halt",
            Action::Pursue => "pursue",
            Action::Reconnoitre => "reconnoitre",
            Action::LeaveMap => "leave-map",
        }
    }
}

/// The shape of a reference in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    /// A named place: "Hall", "the south slope of Cerro de Medellin".
    Name,
    /// One hex: "29.17".
    Hex,
    /// "w/i 3 of 20.22" (`within` and one part).
    Within,
    /// A hex list: "18.25, 19.25 & 20.25".
    Hexes,
    /// "between 24.12 and 24.20" (two parts).
    Between,
    /// Troops, friendly or enemy: "4th Division", "the British", "2-I".
    Unit,
    /// Something of the writer's or recipient's own: "your location", "my butt".
    Own,
    /// "it", "them", "there".
    Pronoun,
    /// "whatever that is".
    Vague,
    /// A compass point used as a target: "facing west".
    Compass,
}

/// Something the order forbids: a negated verb phrase ("do not pursue beyond the stream").
/// It is never an action and is read back as "is not to …" (rule `neg.prohibition`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Prohibition {
    /// The verb phrase as written, without the negator ("pursue beyond the stream").
    pub text: String,
    pub span: Span,
    /// What is forbidden is an -ing form or a noun phrase after "avoid", "refrain from",
    /// "without" ("engaging the enemy", "a general action"): read back as "avoid …" (rule
    /// `neg.avoid`). Absent from the JSON when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub avoid: bool,
    /// The condition written before it, as written ("if I cannot" in "if I cannot, do not wait
    /// for me"): the prohibition holds only then (rule `neg.condition`, 30.0). Absent from the
    /// JSON when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

/// One token of an order with its tag, for `check --explain`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Tag {
    /// "verb:attack", "place:name", "negate", "courtesy", "word" …
    pub tag: String,
    pub text: String,
    pub span: Span,
}

/// What a reference was resolved to in the scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Resolved {
    /// Place, formation or unit id (for a hex, the hex itself).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Place kind (`village`, `road`, …), `formation`, `unit` or `hex`.
    pub kind: String,
}

/// A reference to a place, a hex or troops, as written.
#[derive(Clone, Debug, Serialize)]
pub struct Reference {
    /// The name or hex as written (NFC), without a leading article.
    pub text: String,
    pub span: Span,
    pub form: Form,
    /// A relation to the named thing: "behind", "north of", "to its front".
    pub relation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within: Option<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hexes: Vec<Hex>,
    /// The pieces of a compound reference (the hex of a `within`, the two ends of `between`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Reference>,
    pub resolved: Option<Resolved>,
    /// The whole phrase as written (NFC), article included; used by the read-back.
    #[serde(skip)]
    pub phrase: String,
}

impl Reference {
    /// True when the reference is a place on the map (names and hex forms, not troops).
    pub fn is_place(&self) -> bool {
        matches!(
            self.form,
            Form::Name | Form::Hex | Form::Within | Form::Hexes | Form::Between
        )
    }
    /// True when it bounds an operation (6.4.4 "a reasonable limit").
    pub fn is_limit(&self) -> bool {
        !matches!(self.form, Form::Compass)
    }
}

/// A direction, facing or threat axis.
#[derive(Clone, Debug, Serialize)]
pub struct Direction {
    pub text: String,
    pub span: Span,
    /// A compass point ("west", "north-east", "back") when given.
    pub compass: Option<String>,
    /// A place or unit the direction points at or comes from.
    pub place: Option<Reference>,
    /// True for "from the direction of X", "attacks from the north".
    pub from: bool,
}

/// When a stage is to be carried out.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    pub text: String,
    pub span: Span,
    /// `at`, `from`, `after` (a start time: makes the order conditional, 30.0), `before`,
    /// `by`, `until` (a limit), or `immediate` ("on receipt", "at once").
    pub kind: String,
    /// The time, `HH:MM` for clock times, or a named time (`dawn`); `None` for `immediate`.
    pub time: Option<String>,
}

impl Timing {
    /// A start time delays execution and so is a condition (30.0 "attack at 10:00").
    pub fn is_start(&self) -> bool {
        matches!(
            self.kind.as_str(),
            "at" | "from" | "after" | "around" | "about"
        )
    }
}

/// A condition (if…then, when…then; 6.3.3, 6.5, 30.0).
#[derive(Clone, Debug, Serialize)]
pub struct Condition {
    /// The whole condition as written, starter included.
    pub text: String,
    pub span: Span,
    /// The starter, lower case: `if`, `when`, `as soon as`, `the instant`, `the turn after`, ….
    pub kind: String,
    /// Places and troops named in it.
    pub references: Vec<Reference>,
}

impl Condition {
    /// "…; otherwise stay at Kümla": the branch taken when the condition before it fails.
    pub fn is_otherwise(&self) -> bool {
        self.text.trim().eq_ignore_ascii_case("otherwise")
    }
}

/// How a stage follows the one before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Link {
    /// The first stage.
    First,
    /// Joined by "and", but of the other posture ("cross Viskan and capture Hall").
    And,
    /// "and then", "then", "afterwards".
    Then,
    /// A new sentence.
    Sentence,
    /// "or": an alternative.
    Or,
}

/// One verb of a stage with what belongs to it.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    pub action: Action,
    /// The verb as written, lower case ("capture", "push forward").
    pub verb: String,
    pub posture: Posture,
    pub span: Span,
    pub objectives: Vec<Reference>,
    pub route: Vec<Reference>,
    pub direction: Option<Direction>,
    pub facing: Option<Direction>,
    /// Threat axis: "against attacks from the east".
    pub against: Option<Direction>,
    pub timing: Option<Timing>,
    /// Troops that carry it out: "with his three divisions", "your cavalry".
    pub forces: Vec<Reference>,
    pub manner: Vec<String>,
    /// "if possible".
    pub if_possible: bool,
    /// Objectives given as alternatives ("either … or …").
    pub alternatives: bool,
    /// The read-back of this step (canonical words, the writer's names).
    #[serde(skip)]
    pub(crate) parts: Vec<String>,
    #[serde(skip)]
    pub(crate) own_objectives: usize,
    /// The purpose written after this step (read back after the stage).
    #[serde(skip)]
    pub(crate) purpose: Option<String>,
}

/// A stage: one or more steps of one posture carried out together (6.3.3).
#[derive(Clone, Debug, Serialize)]
pub struct Stage {
    /// The action of the first step.
    pub action: Action,
    pub posture: Posture,
    pub link: Link,
    /// A third-person subject other than the recipient ("All other formations are to …").
    pub subject: Option<Reference>,
    pub objectives: Vec<Reference>,
    pub route: Vec<Reference>,
    pub direction: Option<Direction>,
    pub facing: Option<Direction>,
    pub against: Option<Direction>,
    pub timing: Option<Timing>,
    pub condition: Option<Condition>,
    pub if_possible: bool,
    pub alternatives: bool,
    pub span: Span,
    pub steps: Vec<Step>,
}

/// Text kept verbatim because the grammar could not give it a structure.
#[derive(Clone, Debug, Serialize)]
pub struct Remark {
    pub text: String,
    pub span: Span,
}

/// Severity of a diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        })
    }
}

/// One finding about an order. `code` is stable (docs/order-language.md lists every code).
#[derive(Clone, Debug, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    pub help: String,
}

/// Which of the sidebar's questions the order answers (6.7 sidebar: "WHEN and WHERE is WHOM
/// supposed to do WHAT … and WHY").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Anatomy {
    pub who: bool,
    pub what: bool,
    #[serde(rename = "where")]
    pub where_: bool,
    pub when: bool,
    pub why: bool,
}

/// One order, read, resolved, classified, critiqued and read back.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CheckedOrder {
    /// The order as written.
    pub text: String,
    pub span: Span,
    /// A header code ("W/E 10:30 —").
    pub header: Option<String>,
    /// Courtesies that carry no command ("My dear General,", a signature).
    pub courtesies: Vec<Remark>,
    pub recipient: Option<Reference>,
    /// Further recipients of the same order ("Morvan and Sauret: …"), resolved like the
    /// recipient (rule `lead.several`).
    pub also: Vec<Reference>,
    /// A scenario pre-set order ("Has orders to …", 6.2.2): its holder is the scenario's.
    pub preset: bool,
    #[serde(rename = "type")]
    pub order_type: Option<OrderType>,
    /// Type for cost (6.4.2): Engage when any part is Engage.
    pub cost_type: Option<OrderType>,
    /// The type the writer stated ("Engage order.").
    pub stated_type: Option<OrderType>,
    pub stages: Vec<Stage>,
    /// What the order forbids ("do not engage"): never a stage, read back as "is not to …".
    pub prohibitions: Vec<Prohibition>,
    /// Every place reference in the text, in order (names and hexes alike).
    pub places: Vec<Reference>,
    pub independent: bool,
    /// Sub-units attached by the order ("with Beamont-I attached", 6.9).
    pub attached: Vec<Reference>,
    /// The purpose, the order's WHY ("fall on the rear of the enemy army").
    pub intent: Option<String>,
    pub remarks: Vec<Remark>,
    pub anatomy: Anatomy,
    pub readback: String,
    /// The same-order key (6.5.2, 6.6.1.5); see [`CheckedOrder::same_order_key`].
    pub key: String,
    pub diagnostics: Vec<Diagnostic>,
    /// The meaning rules that fired, by id (docs/order-language.md §2.1).
    pub rules: Vec<String>,
    /// The tokens and their tags, kept only when `Options::explain` asks for them (`check
    /// --explain`); not part of the JSON.
    #[serde(skip)]
    pub tags: Vec<Tag>,
}

impl CheckedOrder {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// Posture of the stage executed first (6.3.3: the stage being executed governs Attack
    /// Stoppage and Initiative).
    pub fn first_posture(&self) -> Option<Posture> {
        self.stages.first().map(|s| s.posture)
    }

    /// Canonical key: two orders are "the same order" for 6.5.2 and 6.6.1.5 iff their keys are
    /// equal. It is made of the recipient (resolved id, else its folded text), independence,
    /// and per stage: link kind (sequence or alternative), posture, the actions (not the verbs:
    /// "take Hall" and "capture Hall" are the same order), objectives, route, direction,
    /// facing, threat axis, timing, condition and "if possible", each reference by resolved id
    /// or folded text; and the folded intent. Wording, courtesies, header, remarks and
    /// prepositions do not count.
    pub fn same_order_key(&self) -> String {
        self.key.clone()
    }

    /// The text read-back's stage lines (issue 17): each stage's posture and what it does
    /// ("engage: attack along the Säter road and capture Hall"), then, for a temporary
    /// division, its members by their order-of-battle names.
    pub fn stage_lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .stages
            .iter()
            .enumerate()
            .map(|(i, st)| {
                let posture = match st.posture {
                    Posture::Engage => "engage",
                    Posture::General => "general",
                };
                format!(
                    "stage {} ({posture}): {}",
                    i + 1,
                    super::readback::stage_text(st)
                )
            })
            .collect();
        let forms = self
            .stages
            .iter()
            .any(|s| s.steps.iter().any(|x| x.action == Action::FormDivision));
        if forms {
            let name = |r: &Reference| {
                r.resolved
                    .as_ref()
                    .map_or_else(|| format!("{} (not found)", r.phrase), |x| x.name.clone())
            };
            let members: Vec<String> = self
                .recipient
                .iter()
                .chain(&self.attached)
                .map(name)
                .collect();
            out.push(format!("temporary division: {}", members.join(", ")));
        }
        out
    }

    /// Diagnostics of one severity.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}

/// Totals over a report.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub orders: usize,
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
}

/// Everything `check` found in a text of one or more orders.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    pub orders: Vec<CheckedOrder>,
    pub summary: Summary,
}

impl CheckReport {
    /// True when any order has an error.
    pub fn has_errors(&self) -> bool {
        self.orders.iter().any(CheckedOrder::has_errors)
    }
}
