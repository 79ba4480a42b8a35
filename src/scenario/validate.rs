//! Validation of a scenario file: every cross-reference, id, hex and rating is checked, and
//! every problem is reported at once with its file, line and field.
//!
//! Problems are placed by the spans of a span-preserving TOML parse ([`toml::de::DeTable`]), so
//! a field is found wherever it is written: in a `[[table]]`, a sub-table, an inline table
//! (`points = [{ side = "x", … }]`) or one element of a multi-line array. A file that is not valid
//! TOML gets every syntax error the parser can recover from; a file of the wrong shape (unknown
//! field, wrong type) gets the deserialiser's error placed at its field.
//!
//! Owns: the rules a scenario file must satisfy and how a problem is located in the text.
//! Must not: change the scenario or print.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Serialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::model::*;
use crate::hex::Hex;

/// One thing wrong with a scenario file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub file: String,
    /// 1-based line, when the problem can be placed.
    pub line: Option<usize>,
    /// Field path, e.g. `units[3].parent` or `reinforcements[0].arrives[2]`.
    pub field: String,
    pub message: String,
    pub help: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}: {}", self.file, l, self.field, self.message)?,
            None => write!(f, "{}: {}: {}", self.file, self.field, self.message)?,
        }
        if !self.help.is_empty() {
            write!(f, "\n  help: {}", self.help)?;
        }
        Ok(())
    }
}

/// Why a scenario could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read (missing, unreadable).
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
    /// The file was read but is not a valid scenario; every problem found is listed.
    #[error("{}", display_problems(.0))]
    Invalid(Vec<Problem>),
}

fn display_problems(ps: &[Problem]) -> String {
    ps.iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

impl Problem {
    /// A TOML shape error (unknown field, wrong type, missing field), placed by the
    /// deserialiser's byte span and, where the span falls inside a field, named by its path.
    pub fn from_toml(file: &str, parsed: &Parsed, e: &toml::de::Error) -> Problem {
        let line = e.span().map(|s| line_of(parsed.text, s.start));
        let field = e
            .span()
            .and_then(|s| Locator::new(parsed).path_at(s.start))
            .unwrap_or_else(|| String::from("(top level)"));
        let message = e.message().trim().to_string();
        Problem {
            file: file.to_string(),
            line,
            field,
            help: "fix the TOML at that line; docs/scenario-format.md lists every field".into(),
            message,
        }
    }
}

/// A scenario's text parsed once, span-preserving and recovering after syntax errors: the
/// syntax problems, the string checks (`text_checks`), the typed parse and every problem's line
/// all read this one tree.
pub struct Parsed<'a> {
    pub text: &'a str,
    pub root: Spanned<DeTable<'a>>,
    /// The syntax errors the parser recovered from.
    pub errors: Vec<toml::de::Error>,
}

impl<'a> Parsed<'a> {
    pub fn new(text: &'a str) -> Self {
        let (root, errors) = DeTable::parse_recoverable(text);
        Parsed { text, root, errors }
    }
}

/// Every syntax error of the text (the parser recovers and goes on), or an empty list.
pub fn syntax_problems(file: &str, parsed: &Parsed) -> Vec<Problem> {
    let text = parsed.text;
    parsed
        .errors
        .iter()
        .take(50)
        .map(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            Problem {
                file: file.to_string(),
                line,
                field: line
                    .and_then(|l| field_at_line(text, l))
                    .map_or_else(|| String::from("(syntax)"), |f| format!("{f} (syntax)")),
                message: e.message().trim().to_string(),
                help: "this is not valid TOML; see https://toml.io and docs/scenario-format.md"
                    .into(),
            }
        })
        .collect()
}

/// The field written on 1-based `line`, judged from the text alone (for syntax errors, when no
/// parse tree can be trusted): the last table header above it and the key on the line, e.g.
/// `commanders[1].rating`.
fn field_at_line(text: &str, line: usize) -> Option<String> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut table = String::new();
    let mut key = None;
    for (i, raw) in text.lines().enumerate().take(line) {
        let l = raw.trim();
        if let Some(name) = l.strip_prefix("[[").and_then(|r| r.split("]]").next()) {
            let name = name.trim().to_string();
            let n = counts.entry(name.clone()).or_insert(0);
            table = format!("{name}[{n}]");
            *n += 1;
        } else if let Some(name) = l.strip_prefix('[').and_then(|r| r.split(']').next()) {
            table = name.trim().to_string();
        } else if i + 1 == line
            && let Some((k, _)) = l.split_once('=')
        {
            let k = k.trim();
            if !k.is_empty()
                && k.chars()
                    .all(|c| c.is_alphanumeric() || "_-.\"".contains(c))
            {
                key = Some(k.trim_matches('"').to_string());
            }
        }
    }
    match (table.is_empty(), key) {
        (true, None) => None,
        (true, Some(k)) => Some(k),
        (false, None) => Some(table),
        (false, Some(k)) => Some(format!("{table}.{k}")),
    }
}

fn line_of(text: &str, byte: usize) -> usize {
    let end = byte.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// One step of a field path: a table key or an array index.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

fn path_string(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => {
                s.push_str(&format!("[{i}]"));
            }
        }
    }
    s
}

/// Finds where a field is written, from a span-preserving parse of the text.
struct Locator<'a> {
    text: &'a str,
    root: &'a DeTable<'a>,
}

impl<'a> Locator<'a> {
    fn new(parsed: &'a Parsed<'a>) -> Self {
        Locator {
            text: parsed.text,
            root: parsed.root.get_ref(),
        }
    }

    /// Line of the deepest part of `path` that is written in the file: the value of the field,
    /// or the key or table that would hold it when the field itself is absent.
    fn line(&self, path: &[Seg]) -> Option<usize> {
        let mut best: Option<usize> = None;
        let mut table: Option<&DeTable> = Some(self.root);
        let mut value: Option<&DeValue> = None;
        for seg in path {
            let next: Option<&Spanned<DeValue>> = match (seg, table, value) {
                (Seg::Key(k), Some(t), _) => {
                    // Prefer the key's own position: for `[[units]]` elements the value span of
                    // a table starts at its header.
                    if let Some((key, v)) = t.iter().find(|(key, _)| key.get_ref() == k) {
                        best = Some(self.span_start(key.span(), v.span()));
                        Some(v)
                    } else {
                        None
                    }
                }
                (Seg::Index(i), _, Some(DeValue::Array(a))) => {
                    let v = a.get(*i);
                    if let Some(v) = v {
                        best = Some(v.span().start);
                    }
                    v
                }
                _ => None,
            };
            let Some(next) = next else { break };
            value = Some(next.get_ref());
            table = next.get_ref().as_table();
        }
        best.map(|b| line_of(self.text, b))
    }

    /// The start of a key=value pair: the key when it is on the value's line, else the value.
    fn span_start(&self, key: std::ops::Range<usize>, value: std::ops::Range<usize>) -> usize {
        match self.text.get(key.start..value.start) {
            Some(between) if key.start <= value.start && !between.contains('\n') => key.start,
            _ => value.start,
        }
    }

    /// The path of the deepest field whose key or value contains byte `at` (for parser errors).
    /// Tables of `[[arrays]]` are spanned by their header only, so the whole tree is searched.
    fn path_at(&self, at: usize) -> Option<String> {
        fn search(v: &DeValue, at: usize, out: &mut Vec<String>) -> bool {
            match v {
                DeValue::Table(t) => {
                    for (k, v) in t.iter() {
                        out.push(format!(".{}", k.get_ref()));
                        let hit = k.span().contains(&at) || v.span().contains(&at);
                        if search(v.get_ref(), at, out) || hit {
                            return true;
                        }
                        out.pop();
                    }
                    false
                }
                DeValue::Array(a) => {
                    for (i, v) in a.iter().enumerate() {
                        out.push(format!("[{i}]"));
                        if search(v.get_ref(), at, out) || v.span().contains(&at) {
                            return true;
                        }
                        out.pop();
                    }
                    false
                }
                _ => false,
            }
        }
        let mut out = Vec::new();
        for (k, v) in self.root.iter() {
            out.push(format!(".{}", k.get_ref()));
            let hit = k.span().contains(&at) || v.span().contains(&at);
            if search(v.get_ref(), at, &mut out) || hit {
                break;
            }
            out.pop();
        }
        let s = out.concat();
        let s = s.strip_prefix('.').unwrap_or(&s).to_string();
        (!s.is_empty()).then_some(s)
    }
}

struct Checker<'a> {
    file: &'a str,
    loc: Locator<'a>,
    problems: Vec<Problem>,
}

impl Checker<'_> {
    fn push_at(&mut self, path: &[Seg], message: String, help: &str) {
        let line = self.loc.line(path);
        self.problems.push(Problem {
            file: self.file.to_string(),
            line,
            field: path_string(path),
            message,
            help: help.to_string(),
        });
    }

    fn push(&mut self, array: &str, index: usize, field: &str, message: String, help: &str) {
        self.push_at(
            &[Seg::Key(array), Seg::Index(index), Seg::Key(field)],
            message,
            help,
        );
    }

    /// A problem with one element of an array field, e.g. `reinforcements[0].arrives[2]`.
    fn push_elem(
        &mut self,
        array: &str,
        index: usize,
        field: &str,
        elem: usize,
        message: String,
        help: &str,
    ) {
        self.push_at(
            &[
                Seg::Key(array),
                Seg::Index(index),
                Seg::Key(field),
                Seg::Index(elem),
            ],
            message,
            help,
        );
    }

    /// A problem with a dotted top-level field such as `clock.first_player`.
    fn push_top(&mut self, field: &str, message: String, help: &str) {
        let segs: Vec<Seg> = field.split('.').map(Seg::Key).collect();
        self.push_at(&segs, message, help);
    }
}

/// Field names a serialised entity has, to check `assumed = [...]` lists.
fn field_names<T: Serialize>(x: &T) -> BTreeSet<String> {
    match serde_json::to_value(x) {
        Ok(serde_json::Value::Object(m)) => m.keys().cloned().collect(),
        _ => BTreeSet::new(),
    }
}

/// Check every rule a scenario must satisfy; an empty list means it is valid.
pub fn validate(file: &str, parsed: &Parsed, s: &Scenario) -> Vec<Problem> {
    let mut c = Checker {
        file,
        loc: Locator::new(parsed),
        problems: Vec::new(),
    };
    let v = Refs {
        s,
        sides: s.sides.iter().map(|x| x.id.as_str()).collect(),
        variants: s.variants.iter().map(|x| x.id.as_str()).collect(),
    };
    check_ids(&mut c, s);
    check_clock(&mut c, s, &v.sides);
    check_sides(&mut c, &v);
    check_commanders(&mut c, &v);
    check_formations(&mut c, &v);
    check_units(&mut c, &v);
    check_places(&mut c, &v);
    check_preset_orders(&mut c, &v);
    check_reinforcements(&mut c, &v);
    check_victory_rules_variants(&mut c, &v);
    check_random_events(&mut c, s, &v.sides);
    check_losses(&mut c, s);
    check_map(&mut c, s);
    c.problems
}

/// What the checks of one scenario share: the scenario, its side ids and variant ids.
struct Refs<'s> {
    s: &'s Scenario,
    sides: BTreeSet<&'s str>,
    variants: BTreeSet<&'s str>,
}

impl Refs<'_> {
    /// `side` names a side of the scenario.
    fn known_side(&self, c: &mut Checker, array: &str, i: usize, side: &str) {
        if !self.sides.contains(side) {
            c.push(
                array,
                i,
                "side",
                format!("unknown side `{side}`"),
                "use one of the ids in [[sides]]",
            );
        }
    }

    /// A position (and its Line Extensions) is on the map and on land.
    fn on_map(&self, c: &mut Checker, array: &str, i: usize, field: &str, p: &Position) {
        let map = &self.s.map;
        for h in std::iter::once(&p.hex).chain(&p.extensions) {
            if !map.contains(*h) {
                c.push(
                    array,
                    i,
                    field,
                    off_map_message(*h, map),
                    "use a hex inside the map's first/last column and row",
                );
            } else if map.terrain_at(*h).is_some_and(is_prohibited_name) {
                c.push(
                    array,
                    i,
                    field,
                    format!("hex {h} is {}", map.terrain_at(*h).unwrap_or("prohibited")),
                    "set up on land",
                );
            }
        }
    }
}

/// Sides (5.0): at least one, each with its own army.
fn check_sides(c: &mut Checker, v: &Refs) {
    let s = v.s;
    if s.sides.is_empty() {
        c.push_top(
            "sides",
            "the scenario has no sides".into(),
            "add two [[sides]] tables",
        );
    }
    for (i, x) in s.sides.iter().enumerate() {
        match s.formation(&x.army) {
            Some(f) if f.echelon != Echelon::Army => c.push(
                "sides",
                i,
                "army",
                format!("`{}` is not an army formation", x.army),
                "point `army` at the formation with echelon = \"army\"",
            ),
            Some(f) if f.side != x.id => c.push(
                "sides",
                i,
                "army",
                format!("army `{}` belongs to side `{}`", x.army, f.side),
                "a side's army must be on that side",
            ),
            Some(_) => {}
            None => c.push(
                "sides",
                i,
                "army",
                format!("unknown formation `{}`", x.army),
                "point `army` at a formation id",
            ),
        }
    }
}

/// Commanders (3.1, 25).
fn check_commanders(c: &mut Checker, v: &Refs) {
    let s = v.s;
    for (i, x) in s.commanders.iter().enumerate() {
        v.known_side(c, "commanders", i, &x.side);
        if x.rating > 4 {
            c.push(
                "commanders",
                i,
                "rating",
                format!("command rating {} is out of range", x.rating),
                "NBS command ratings run from 0 to 4 (chart p1)",
            );
        }
        if let Some(p) = &x.position {
            v.on_map(c, "commanders", i, "position", p);
        }
        if let Some(b) = &x.brigade {
            match s.unit(b) {
                None => c.push(
                    "commanders",
                    i,
                    "brigade",
                    format!("unknown unit `{b}`"),
                    "name the id of the brigade he leads",
                ),
                Some(u) if u.side != x.side => c.push(
                    "commanders",
                    i,
                    "brigade",
                    format!("brigade `{b}` is on another side"),
                    "a commander leads a brigade of his own side",
                ),
                Some(u) if !u.kind.counts_as_sub_unit() => c.push(
                    "commanders",
                    i,
                    "brigade",
                    format!("`{b}` is not a brigade (it is {:?})", u.kind),
                    "name an infantry or cavalry brigade (3.1)",
                ),
                Some(_) => {}
            }
        }
        let commands = s
            .formations
            .iter()
            .any(|f| f.commander.as_deref() == Some(&x.id))
            || s.formations.iter().any(|f| f.succession.contains(&x.id))
            || s.formations.iter().any(|f| f.relieved_by.contains(&x.id))
            || x.brigade.is_some();
        if !commands {
            c.push(
                "commanders",
                i,
                "id",
                format!("commander `{}` commands nothing", x.id),
                "name him as the `commander`, in the `succession` or `relieved_by` of a formation, give him a `brigade`, or remove him",
            );
        }
        let led: Vec<&Formation> = s
            .formations
            .iter()
            .filter(|f| f.commander.as_deref() == Some(&x.id))
            .collect();
        // A corps or army commander may also lead a division of his own directly below it
        // (Talavera T4.4: Joseph and the Royal Guard; T4.5: Sebastiani and 1-IV).
        let own_division = led.len() == 2
            && led.iter().any(|d| {
                d.echelon == Echelon::Division
                    && led
                        .iter()
                        .any(|p| d.parent.as_deref() == Some(p.id.as_str()))
            });
        let led: Vec<&str> = led.iter().map(|f| f.id.as_str()).collect();
        if led.len() > 1 && !own_division {
            c.push(
                "commanders",
                i,
                "id",
                format!(
                    "commander `{}` commands {} formations ({})",
                    x.id,
                    led.len(),
                    led.join(", ")
                ),
                "a commander counter commands one formation (6.1), or an army or corps and one division directly below it (Talavera T4.4, T4.5)",
            );
        }
        check_assumed(c, "commanders", i, &x.assumed, x);
    }
}

/// No formation is its own ancestor (6.1).
fn check_formation_cycles(c: &mut Checker, s: &Scenario) {
    for (i, f) in s.formations.iter().enumerate() {
        let mut cur = f.parent.as_deref();
        let mut steps = 0;
        while let Some(p) = cur {
            if p == f.id {
                c.push(
                    "formations",
                    i,
                    "parent",
                    format!(
                        "`{}` is its own ancestor (a cycle in the order of battle)",
                        f.id
                    ),
                    "break the cycle: a formation's parent chain must end at an army",
                );
                break;
            }
            steps += 1;
            if steps > s.formations.len() {
                break;
            }
            cur = s.formation(p).and_then(|x| x.parent.as_deref());
        }
    }
}

/// Formations (6.1, 6.10).
fn check_formations(c: &mut Checker, v: &Refs) {
    let s = v.s;
    for (i, f) in s.formations.iter().enumerate() {
        v.known_side(c, "formations", i, &f.side);
        match (&f.parent, f.echelon) {
            (None, Echelon::Army) => {}
            (None, _) => c.push(
                "formations",
                i,
                "parent",
                format!("{} `{}` has no parent", f.echelon, f.id),
                "every corps and division belongs to an army or corps",
            ),
            (Some(_), Echelon::Army) => c.push(
                "formations",
                i,
                "parent",
                format!("army `{}` has a parent", f.id),
                "an army is the top of its side's order of battle; remove `parent`",
            ),
            (Some(p), _) => match s.formation(p) {
                None => c.push(
                    "formations",
                    i,
                    "parent",
                    format!("unknown formation `{p}`"),
                    "use the id of an army, corps or division",
                ),
                Some(pf) if pf.side != f.side => c.push(
                    "formations",
                    i,
                    "parent",
                    format!("`{p}` belongs to another side"),
                    "a formation's parent must be on its own side",
                ),
                Some(pf) if pf.echelon >= f.echelon && pf.id != f.id => c.push(
                    "formations",
                    i,
                    "parent",
                    format!(
                        "{} `{}` cannot belong to {} `{p}`",
                        f.echelon, f.id, pf.echelon
                    ),
                    "a parent is a higher echelon: army > corps > division (6.1)",
                ),
                Some(_) => {}
            },
        }
        if let Some(cmd) = &f.commander {
            match s.commander(cmd) {
                None => c.push(
                    "formations",
                    i,
                    "commander",
                    format!("unknown commander `{cmd}`"),
                    "use a commander id from [[commanders]]",
                ),
                Some(k) if k.side != f.side => c.push(
                    "formations",
                    i,
                    "commander",
                    format!("commander `{cmd}` is on another side"),
                    "a formation is commanded by its own side",
                ),
                Some(_) => {}
            }
        }
        for (field, list) in [
            ("succession", &f.succession),
            ("relieved_by", &f.relieved_by),
        ] {
            for (j, succ) in list.iter().enumerate() {
                match s.commander(succ) {
                    None => c.push_elem(
                        "formations",
                        i,
                        field,
                        j,
                        format!("unknown commander `{succ}`"),
                        "use commander ids from [[commanders]]",
                    ),
                    Some(k) if k.side != f.side => c.push_elem(
                        "formations",
                        i,
                        field,
                        j,
                        format!("commander `{succ}` is on another side"),
                        "only a commander of the same side can take over",
                    ),
                    Some(_) => {}
                }
            }
        }
        if let Some(p) = &f.hq {
            v.on_map(c, "formations", i, "hq", p);
        }
        if f.hq.is_some() && f.echelon == Echelon::Division {
            c.push(
                "formations",
                i,
                "hq",
                "divisions have no HQ (6.10)".into(),
                "remove `hq`; give the division commander a position instead",
            );
        }
        if let Some(n) = f.wreck_at {
            if f.echelon != Echelon::Division {
                c.push(
                    "formations",
                    i,
                    "wreck_at",
                    format!("{} `{}` is not a division", f.echelon, f.id),
                    "only a division has a Wrecked threshold (21.6.2); remove `wreck_at`",
                );
            } else if n == 0 {
                c.push(
                    "formations",
                    i,
                    "wreck_at",
                    "a division cannot be Wrecked by 0 wrecked brigades".into(),
                    "give the number of wrecked brigades that wreck it, 1 or more (21.6.2)",
                );
            }
        }
        check_temporary(c, s, i, f);
        check_assumed(c, "formations", i, &f.assumed, f);
    }
    check_formation_cycles(c, s);
}

/// Units (3.1, 7.0).
fn check_units(c: &mut Checker, v: &Refs) {
    let s = v.s;
    for (i, u) in s.units.iter().enumerate() {
        v.known_side(c, "units", i, &u.side);
        match s.formation(&u.parent) {
            None => c.push(
                "units",
                i,
                "parent",
                format!("unknown formation `{}`", u.parent),
                "a unit belongs to an army, corps or division id",
            ),
            Some(pf) if pf.side != u.side => c.push(
                "units",
                i,
                "parent",
                format!("`{}` belongs to another side", u.parent),
                "a unit's parent must be on its own side",
            ),
            Some(_) => {}
        }
        if let Some(p) = &u.position {
            v.on_map(c, "units", i, "position", p);
        }
        if u.kind.is_artillery() {
            if u.gun_points.is_some_and(|g| g == 0 || g > 10) {
                c.push(
                    "units",
                    i,
                    "gun_points",
                    "gun points must be 1 to 10".into(),
                    "NBS batteries have 1–10 GP (default 5, 3.3(7)); a hex holds at most 10 GP",
                );
            }
            if u.strength.is_some() {
                c.push(
                    "units",
                    i,
                    "strength",
                    "a battery has gun points, not a strength level".into(),
                    "use `gun_points` (3.3(7))",
                );
            }
        } else if u.gun_points.is_some() {
            c.push(
                "units",
                i,
                "gun_points",
                "only artillery has gun points".into(),
                "use `strength` for foot and horse",
            );
        }
        if u.kind == UnitKind::Train && u.strength.is_some() {
            c.push(
                "units",
                i,
                "strength",
                "a train unit has no strength level".into(),
                "remove `strength`",
            );
        }
        check_assumed(c, "units", i, &u.assumed, u);
    }
}

/// Places.
fn check_places(c: &mut Checker, v: &Refs) {
    let s = v.s;
    for (i, p) in s.places.iter().enumerate() {
        for (j, h) in p.hexes.iter().enumerate() {
            if !s.map.contains(*h) {
                c.push_elem(
                    "places",
                    i,
                    "hexes",
                    j,
                    off_map_message(*h, &s.map),
                    "use hexes inside the map",
                );
            }
        }
        if p.kind == PlaceKind::Road {
            for (j, w) in p.hexes.windows(2).enumerate() {
                if !w[0].is_adjacent(w[1]) {
                    c.push_elem(
                        "places",
                        i,
                        "hexes",
                        j + 1,
                        format!("road hexes {} and {} are not adjacent", w[0], w[1]),
                        "list a road's hexes in order along the road, each next to the one before",
                    );
                }
            }
        }
        for (j, hs) in p.hexsides.iter().enumerate() {
            if !hs.0.is_adjacent(hs.1) {
                c.push_elem(
                    "places",
                    i,
                    "hexsides",
                    j,
                    format!("{hs} is not a hexside: the hexes are not adjacent"),
                    "name two adjacent hexes",
                );
            } else if !s.map.contains(hs.0) && !s.map.contains(hs.1) {
                c.push_elem(
                    "places",
                    i,
                    "hexsides",
                    j,
                    format!("hexside {hs} is off the map"),
                    "name a hexside with at least one hex on the map",
                );
            }
        }
    }
}

/// Pre-set orders (6.2.2).
fn check_preset_orders(c: &mut Checker, v: &Refs) {
    let s = v.s;
    let mut order_ids: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, o) in s.preset_orders.iter().enumerate() {
        v.known_side(c, "preset_orders", i, &o.side);
        if order_ids.insert(o.id.as_str(), i).is_some() {
            c.push(
                "preset_orders",
                i,
                "id",
                format!("duplicate pre-set order id `{}`", o.id),
                "pre-set order ids must be unique",
            );
        }
        match s.command(&o.to) {
            None => c.push(
                "preset_orders",
                i,
                "to",
                format!("unknown command `{}`", o.to),
                "use a formation or unit id",
            ),
            Some(cmd) if cmd.side() != o.side => c.push(
                "preset_orders",
                i,
                "to",
                format!(
                    "`{}` is on side `{}`, the order on side `{}`",
                    o.to,
                    cmd.side(),
                    o.side
                ),
                "a side can only give orders to its own commands",
            ),
            Some(_) => {}
        }
        if o.text.trim().is_empty() {
            c.push(
                "preset_orders",
                i,
                "text",
                "empty order text".into(),
                "write the order as the scenario gives it",
            );
        }
    }
}

/// The units a reinforcement brings (12.6): known, on its side, not on the map at the start and
/// not arriving twice.
fn check_arrivals<'s>(
    c: &mut Checker,
    s: &'s Scenario,
    i: usize,
    r: &'s Reinforcement,
    arrived: &mut BTreeMap<&'s str, usize>,
) {
    for (j, a) in r.arrives.iter().enumerate() {
        let side = s
            .command(a)
            .map(|x| x.side())
            .or_else(|| s.commander(a).map(|k| k.side.as_str()));
        match side {
            None => c.push_elem(
                "reinforcements",
                i,
                "arrives",
                j,
                format!("unknown unit, formation or commander `{a}`"),
                "list ids from the order of battle",
            ),
            Some(sd) if sd != r.side => c.push_elem(
                "reinforcements",
                i,
                "arrives",
                j,
                format!("`{a}` is on side `{sd}`, the reinforcement on `{}`", r.side),
                "a side's reinforcements are its own troops",
            ),
            Some(_) => {
                let placed = s.unit(a).and_then(|u| u.position.as_ref()).is_some()
                    || s.commander(a).and_then(|k| k.position.as_ref()).is_some()
                    || s.formation(a).and_then(|f| f.hq.as_ref()).is_some();
                if placed {
                    c.push_elem(
                        "reinforcements",
                        i,
                        "arrives",
                        j,
                        format!("`{a}` already starts on the map"),
                        "remove its `position` (or `hq`), or drop it from the reinforcement",
                    );
                }
            }
        }
        if let Some(prev) = arrived.insert(a.as_str(), i) {
            let exclusive = |x: &Reinforcement, y: &Reinforcement| {
                x.variant
                    .as_deref()
                    .is_some_and(|v| y.unless_variants.iter().any(|u| u == v))
                    || y.variant
                        .as_deref()
                        .is_some_and(|v| x.unless_variants.iter().any(|u| u == v))
            };
            if !exclusive(&s.reinforcements[prev], r) {
                c.push_elem(
                    "reinforcements",
                    i,
                    "arrives",
                    j,
                    format!("`{a}` already arrives with `{}`", s.reinforcements[prev].id),
                    "list each arriving unit, formation or commander once",
                );
            }
        }
    }
}

/// Reinforcements (12.6).
fn check_reinforcements(c: &mut Checker, v: &Refs) {
    let s = v.s;
    let mut reinf_ids = BTreeSet::new();
    let mut arrived: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, r) in s.reinforcements.iter().enumerate() {
        v.known_side(c, "reinforcements", i, &r.side);
        if !reinf_ids.insert(r.id.as_str()) {
            c.push(
                "reinforcements",
                i,
                "id",
                format!("duplicate reinforcement id `{}`", r.id),
                "reinforcement ids must be unique",
            );
        }
        let entry_ok = match s.place(&r.entry) {
            Some(p) => !p.hexes.is_empty(),
            None => r.entry.parse::<Hex>().is_ok_and(|h| s.map.contains(h)),
        };
        if !entry_ok {
            c.push(
                "reinforcements",
                i,
                "entry",
                format!("unknown entry `{}`", r.entry),
                "use a place id with hexes (kind = \"entry\") or a hex on the map",
            );
        }
        if r.time < s.clock.first_turn || r.time > s.clock.last_turn {
            c.push(
                "reinforcements",
                i,
                "time",
                format!(
                    "{} is outside the game ({} to {})",
                    r.time, s.clock.first_turn, s.clock.last_turn
                ),
                "arrivals must fall on a turn of the game",
            );
        }
        check_arrivals(c, s, i, r, &mut arrived);
        if r.arrives.is_empty() {
            c.push(
                "reinforcements",
                i,
                "arrives",
                "nothing arrives".into(),
                "list the ids of the units, formations and commanders that arrive",
            );
        }
        for (j, o) in r.orders.iter().enumerate() {
            match s.preset_orders.iter().find(|p| &p.id == o) {
                None => c.push_elem(
                    "reinforcements",
                    i,
                    "orders",
                    j,
                    format!("unknown pre-set order `{o}`"),
                    "list ids from [[preset_orders]]",
                ),
                Some(p) if p.side != r.side => c.push_elem(
                    "reinforcements",
                    i,
                    "orders",
                    j,
                    format!("pre-set order `{o}` belongs to side `{}`", p.side),
                    "arriving troops carry their own side's orders",
                ),
                Some(_) => {}
            }
        }
        if let Some(roll) = &r.condition
            && (roll.sides < 2 || roll.min == 0 || roll.min > roll.sides)
        {
            c.push(
                "reinforcements",
                i,
                "condition",
                format!(
                    "arrival on {}+ with a d{} cannot work",
                    roll.min, roll.sides
                ),
                "write e.g. { sides = 6, min = 6 } for 'on a six'",
            );
        }
        if let Some(id) = &r.variant
            && !v.variants.contains(id.as_str())
        {
            c.push(
                "reinforcements",
                i,
                "variant",
                format!("unknown variant `{id}`"),
                "use an id from [[variants]]",
            );
        }
        for (j, id) in r.unless_variants.iter().enumerate() {
            if !v.variants.contains(id.as_str()) {
                c.push_elem(
                    "reinforcements",
                    i,
                    "unless_variants",
                    j,
                    format!("unknown variant `{id}`"),
                    "use ids from [[variants]]",
                );
            }
        }
    }
}

/// Victory, rules, variants.
fn check_victory_rules_variants(c: &mut Checker, v: &Refs) {
    let s = v.s;
    for (i, p) in s.victory.points.iter().enumerate() {
        if !v.sides.contains(p.side.as_str()) {
            c.push_at(
                &[
                    Seg::Key("victory"),
                    Seg::Key("points"),
                    Seg::Index(i),
                    Seg::Key("side"),
                ],
                format!("unknown side `{}`", p.side),
                "use one of the ids in [[sides]]",
            );
        }
    }
    for (i, l) in s.victory.levels.iter().enumerate() {
        if let (Some(a), Some(b)) = (l.min, l.max)
            && a > b
        {
            c.push_at(
                &[
                    Seg::Key("victory"),
                    Seg::Key("levels"),
                    Seg::Index(i),
                    Seg::Key("min"),
                ],
                format!("min {a} is above max {b}"),
                "a level covers margins from min to max",
            );
        }
    }
    let mut rule_ids = BTreeSet::new();
    for (i, r) in s.special_rules.iter().enumerate() {
        if !rule_ids.insert(r.id.as_str()) {
            c.push(
                "special_rules",
                i,
                "id",
                format!("duplicate special rule id `{}`", r.id),
                "the engine looks special rules up by id; make each unique",
            );
        }
    }
    let mut var_seen = BTreeSet::new();
    for (i, v) in s.variants.iter().enumerate() {
        if !var_seen.insert(v.id.as_str()) {
            c.push(
                "variants",
                i,
                "id",
                format!("duplicate variant id `{}`", v.id),
                "make each variant id unique",
            );
        }
    }
}

/// The scenario's random events table (29.0 "Game Table"): known sides, one-die results 1..6 given
/// once per side, a name, and an effect the engine implements (or none, for the umpire).
fn check_random_events(c: &mut Checker, s: &Scenario, side_ids: &BTreeSet<&str>) {
    const ARRAY: &str = "random_events";
    // (side, roll) → index of the entry that gives it first.
    let mut given: BTreeMap<(&str, u8), usize> = BTreeMap::new();
    for (i, e) in s.random_events.iter().enumerate() {
        if !side_ids.contains(e.side.as_str()) {
            c.push(
                ARRAY,
                i,
                "side",
                format!("unknown side `{}`", e.side),
                "use one of the ids in [[sides]]: each side rolls on its own column",
            );
        }
        if e.name.trim().is_empty() {
            c.push(
                ARRAY,
                i,
                "name",
                "empty name".into(),
                "give the event's name as the game table prints it, e.g. name = \"Heat\"",
            );
        }
        if e.roll.is_empty() {
            c.push(
                ARRAY,
                i,
                "roll",
                "no die result gives this event".into(),
                "list the results of one die that give it, e.g. roll = [3, 4]",
            );
        }
        for (j, r) in e.roll.iter().enumerate() {
            if !(1..=6).contains(r) {
                c.push_elem(
                    ARRAY,
                    i,
                    "roll",
                    j,
                    format!("{r} is not a result of one die"),
                    "a game table is rolled on one die (29.1 \"Game Table\"): use 1 to 6",
                );
            } else if let Some(k) = given.get(&(e.side.as_str(), *r)) {
                c.push_elem(
                    ARRAY,
                    i,
                    "roll",
                    j,
                    format!(
                        "a roll of {r} for `{}` already gives `{}` (random_events[{k}])",
                        e.side, s.random_events[*k].name
                    ),
                    "each result of the die gives one event per side; remove one of them",
                );
            } else {
                given.insert((e.side.as_str(), *r), i);
            }
        }
        if let Some(effect) = &e.effect
            && crate::rules::random_events::Effect::from_name(effect).is_none()
        {
            c.push(
                ARRAY,
                i,
                "effect",
                format!("unknown effect `{effect}`"),
                &format!(
                    "use an effect the engine applies ({}), or leave `effect` out and the umpire applies the text",
                    crate::rules::random_events::Effect::names()
                ),
            );
        }
        check_assumed(c, ARRAY, i, &e.assumed, e);
    }
}

/// Pre-scenario losses (Talavera 7.1): readable, and within the loss charts of the built-in
/// combat tables (`[wrecked]`; a game with other charts checks again when it starts).
fn check_losses(c: &mut Checker, s: &Scenario) {
    use super::losses::LossProblem as L;
    const FORM: &str = "write `P (S) <n>` as the scenario prints it, e.g. \"2 (4) <1>\": Permanent Casualties, (Stragglers), <n> (7.1; `<n>` may be left out)";
    let t = crate::combat::tables::builtin();
    let (_, problems) = super::losses::distribute(s, |u| t.wrecked.unit_boxes(u));
    for p in problems {
        match p {
            L::Malformed {
                array,
                index,
                text,
                why,
            } => c.push(
                array,
                index,
                "losses",
                format!("`{text}` is not a loss entry: {why}"),
                FORM,
            ),
            L::BeyondUnit {
                index,
                losses,
                boxes,
            } => {
                let u = &s.units[index];
                c.push(
                    "units",
                    index,
                    "losses",
                    format!(
                        "{losses} marks {} boxes, but `{}` has {boxes} ({})",
                        losses.boxes(),
                        u.id,
                        if u.kind.is_artillery() {
                            "its gun points".to_string()
                        } else {
                            format!(
                                "strength {} on the built-in loss charts",
                                u.strength.map_or("C".into(), |x| format!("{x:?}"))
                            )
                        }
                    ),
                    &format!(
                        "lower the losses to at most {boxes} boxes in all (P + S), or raise the unit's `strength` (or `gun_points`)"
                    ),
                );
            }
            L::NoChart { index } => c.push(
                "units",
                index,
                "losses",
                format!("`{}` is a train and has no loss chart", s.units[index].id),
                "remove `losses` from the train",
            ),
            L::BeyondFormation {
                index,
                losses,
                room,
                brigades,
            } => c.push(
                "formations",
                index,
                "losses",
                format!(
                    "{losses} marks {} boxes, but the {brigades} brigade(s) of `{}` have {room} free boxes",
                    losses.boxes(),
                    s.formations[index].id
                ),
                &format!(
                    "lower the losses to at most {room} boxes (P + S), or give some of them to other units with their own `losses`"
                ),
            ),
            L::NoBrigades { index } => c.push(
                "formations",
                index,
                "losses",
                format!(
                    "`{}` has no brigade to take its losses",
                    s.formations[index].id
                ),
                "put the losses on the units themselves (`losses` on [[units]])",
            ),
        }
    }
}

/// Terrain names that no unit may enter (Vimeiro V1.2 all-ocean hexes; the Tajo at Talavera,
/// crossed only by its bridge, T1.2a).
fn is_prohibited_name(name: &str) -> bool {
    matches!(name, "ocean" | "sea" | "lake" | "river")
}

/// Ids are unique across every kind of thing an order or reference may name.
fn check_ids(c: &mut Checker, s: &Scenario) {
    let all_ids = s
        .sides
        .iter()
        .enumerate()
        .map(|(i, x)| ("sides", i, x.id.as_str()))
        .chain(
            s.commanders
                .iter()
                .enumerate()
                .map(|(i, x)| ("commanders", i, x.id.as_str())),
        )
        .chain(
            s.formations
                .iter()
                .enumerate()
                .map(|(i, x)| ("formations", i, x.id.as_str())),
        )
        .chain(
            s.units
                .iter()
                .enumerate()
                .map(|(i, x)| ("units", i, x.id.as_str())),
        )
        .chain(
            s.places
                .iter()
                .enumerate()
                .map(|(i, x)| ("places", i, x.id.as_str())),
        );
    let mut seen: BTreeMap<&str, (&str, usize)> = BTreeMap::new();
    for (array, i, id) in all_ids {
        if id.trim().is_empty() {
            c.push(
                array,
                i,
                "id",
                "empty id".into(),
                "give every entry a unique id",
            );
        } else if let Some((prev, pi)) = seen.insert(id, (array, i)) {
            let prev_line = c
                .loc
                .line(&[Seg::Key(prev), Seg::Index(pi), Seg::Key("id")]);
            let at = prev_line.map_or(String::new(), |l| format!(", line {l}"));
            c.push(
                array,
                i,
                "id",
                format!("duplicate id `{id}` (already used in `{prev}[{pi}]`{at})"),
                "ids must be unique across sides, commanders, formations, units and places",
            );
        }
    }
}

/// The longest game a scenario may ask for, in days of game time.
pub const MAX_CLOCK_DAYS: i64 = 14;

fn check_clock(c: &mut Checker, s: &Scenario, side_ids: &BTreeSet<&str>) {
    if !side_ids.contains(s.clock.first_player.as_str()) {
        c.push_top(
            "clock.first_player",
            format!("unknown side `{}`", s.clock.first_player),
            "use one of the ids in [[sides]]",
        );
    }
    if s.clock.last_turn < s.clock.first_turn {
        c.push_top(
            "clock.last_turn",
            "last turn is before the first turn".into(),
            "swap the times or fix the date",
        );
    }
    // A bound on what a scenario may ask of a game: NBS battles last one to three days; two
    // weeks is generous and keeps a game's record to a few thousand turns at most.
    let days = (s.clock.last_turn - s.clock.first_turn).num_days();
    if days > MAX_CLOCK_DAYS {
        c.push_top(
            "clock.last_turn",
            format!(
                "the clock runs {days} days; a scenario may cover at most {MAX_CLOCK_DAYS} days"
            ),
            "split a campaign into scenarios, one per battle",
        );
    }
    if s.clock.night_starts.is_some() != s.clock.night_ends.is_some() {
        c.push_top(
            "clock.night_starts",
            "night needs both `night_starts` and `night_ends`".into(),
            "give both times, or neither for an all-day game (27.1)",
        );
    }
}

/// Temporary divisions (Vimeiro V2.3): members exist, are on the division's side, belong to
/// no other temporary division, and are the commander's brigade, up to two other brigades and at
/// most one artillery unit. A temporary division without members is formed later by an order.
fn check_temporary(c: &mut Checker, s: &Scenario, i: usize, f: &Formation) {
    if !f.temporary {
        if !f.members.is_empty() {
            c.push(
                "formations",
                i,
                "members",
                format!("`{}` lists members but is not temporary", f.id),
                "only temporary divisions (temporary = true) list members; other units name their `parent`",
            );
        }
        return;
    }
    if f.echelon != Echelon::Division {
        c.push(
            "formations",
            i,
            "temporary",
            format!(
                "only a division can be temporary, `{}` is {}",
                f.id, f.echelon
            ),
            "set echelon = \"division\" (V2.3)",
        );
    }
    // No members: the division is not formed at the start; an order forms it (V2.3).
    if f.members.is_empty() && s.child_units(&f.id).next().is_none() {
        return;
    }
    let mut brigades = 0;
    let mut guns = 0;
    for (j, m) in f.members.iter().enumerate() {
        match s.unit(m) {
            None => c.push_elem(
                "formations",
                i,
                "members",
                j,
                format!("unknown unit `{m}`"),
                "list unit ids",
            ),
            Some(u) if u.side != f.side => c.push_elem(
                "formations",
                i,
                "members",
                j,
                format!("`{m}` is on side `{}`", u.side),
                "a temporary division takes units of its own side",
            ),
            Some(u) => {
                if u.kind.is_artillery() {
                    guns += 1;
                } else if u.kind.counts_as_sub_unit() {
                    brigades += 1;
                }
                if let Some(other) = s
                    .formations
                    .iter()
                    .find(|g| g.id != f.id && g.temporary && g.members.contains(m))
                {
                    c.push_elem(
                        "formations",
                        i,
                        "members",
                        j,
                        format!("`{m}` is also in temporary division `{}`", other.id),
                        "a unit belongs to one temporary division at a time",
                    );
                }
            }
        }
    }
    if brigades > 3 || guns > 1 {
        c.push(
            "formations",
            i,
            "members",
            format!(
                "{brigades} brigade(s) and {guns} battery(ies): too many for a temporary division"
            ),
            "V2.3: the commander's brigade, up to two other brigades and at most one artillery unit",
        );
    }
    if let Some(k) = f.commander.as_deref().and_then(|k| s.commander(k))
        && let Some(b) = &k.brigade
        && !f.members.contains(b)
        && s.unit(b).is_some_and(|u| u.parent != f.id)
    {
        c.push(
            "formations",
            i,
            "members",
            format!("the commander's own brigade `{b}` is not a member"),
            "V2.3: a temporary division is formed around its commander's brigade",
        );
    }
}

/// `assumed` lists name real fields of the entity.
fn check_assumed<T: Serialize>(c: &mut Checker, array: &str, i: usize, list: &[String], x: &T) {
    if list.is_empty() {
        return;
    }
    let names = field_names(x);
    for (j, a) in list.iter().enumerate() {
        if !names.contains(a) || a == "assumed" {
            c.push_elem(
                array,
                i,
                "assumed",
                j,
                format!("`{a}` is not a field of this entry"),
                "list field names, e.g. assumed = [\"rating\", \"strength\"]",
            );
        }
    }
}

fn check_map(c: &mut Checker, s: &Scenario) {
    let m = &s.map;
    if m.last_col < m.first_col || m.last_row < m.first_row {
        c.push_top(
            "map.last_col",
            format!(
                "empty map: columns {}–{}, rows {}–{}",
                m.first_col, m.last_col, m.first_row, m.last_row
            ),
            "last_col and last_row must not be below first_col and first_row",
        );
        return;
    }
    for key in m.legend.keys() {
        if key.chars().count() != 1 {
            c.push_at(
                &[Seg::Key("map"), Seg::Key("legend"), Seg::Key(key)],
                format!("legend key `{key}` is not one character"),
                "each grid character maps to a terrain name",
            );
        }
    }
    let (w, h) = m.size();
    check_grid(c, "map.terrain", &m.terrain, w, h, |ch| {
        m.legend.contains_key(ch.encode_utf8(&mut [0; 4]) as &str)
    });
    if !m.elevation.trim().is_empty() {
        check_grid(c, "map.elevation", &m.elevation, w, h, |ch| {
            ch.is_ascii_digit()
        });
    }
    let used: BTreeSet<char> = m.terrain.chars().collect();
    for (key, name) in &m.legend {
        if key.chars().count() == 1 && key.chars().all(|ch| !used.contains(&ch)) {
            c.push_at(
                &[Seg::Key("map"), Seg::Key("legend"), Seg::Key(key)],
                format!("legend `{key}` = `{name}` is never used in the terrain grid"),
                "remove it from [map.legend] or use it in the grid",
            );
        }
    }
    let names: BTreeSet<&str> = m.legend.values().map(String::as_str).collect();
    for name in &names {
        if !s.commander_costs.terrain.contains_key(*name) {
            c.push_top(
                "commander_costs.terrain",
                format!("no commander cost for terrain `{name}`"),
                "add it under [commander_costs.terrain] (6.4.7)",
            );
        }
    }
    for name in s.commander_costs.terrain.keys() {
        if !names.contains(name.as_str()) {
            c.push_at(
                &[
                    Seg::Key("commander_costs"),
                    Seg::Key("terrain"),
                    Seg::Key(name),
                ],
                format!("terrain `{name}` is not in the map legend"),
                "name terrain as [map.legend] does",
            );
        }
    }
}

fn check_grid(c: &mut Checker, field: &str, grid: &str, w: u32, h: u32, ok: impl Fn(char) -> bool) {
    let base = c
        .loc
        .line(&field.split('.').map(Seg::Key).collect::<Vec<_>>());
    // Multi-line strings start on the line after `terrain = """`.
    let raw_lines: Vec<&str> = grid.lines().collect();
    let leading = raw_lines.iter().take_while(|l| l.trim().is_empty()).count();
    // When the string opens with `"""` and a newline, TOML drops that newline: the first row
    // is on the next line.
    let opens_alone = base
        .and_then(|b| c.loc.text.lines().nth(b - 1))
        .is_some_and(|l| l.trim_end().ends_with("\"\"\"") || l.trim_end().ends_with("'''"));
    let first = base.map(|b| b + usize::from(opens_alone));
    let row_line = |row: usize| first.map(|b| b + leading + row);
    let lines: Vec<&str> = raw_lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    let push = |c: &mut Checker, line: Option<usize>, message: String, help: &str| {
        c.problems.push(Problem {
            file: c.file.to_string(),
            line,
            field: field.to_string(),
            message,
            help: help.to_string(),
        });
    };
    if lines.len() != h as usize {
        push(
            c,
            base,
            format!("{} rows given, the map has {h}", lines.len()),
            "one line per row, top line = last_row",
        );
    }
    for (i, l) in lines.iter().enumerate() {
        if l.chars().count() != w as usize {
            push(
                c,
                row_line(i),
                format!(
                    "row {} of the grid has {} characters, the map has {w} columns",
                    i + 1,
                    l.chars().count()
                ),
                "one character per column",
            );
        }
        if let Some(bad) = l.chars().find(|ch| !ok(*ch)) {
            push(
                c,
                row_line(i),
                format!(
                    "row {} has `{bad}`, which the legend does not define",
                    i + 1
                ),
                "add it to [map.legend] or use a defined character",
            );
        }
    }
}

fn off_map_message(h: Hex, m: &Map) -> String {
    format!(
        "hex {h} is off the map (columns {}–{}, rows {}–{})",
        m.first_col, m.last_col, m.first_row, m.last_row
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_fields_in_tables_inline_tables_and_arrays() {
        let text = "[a]\nx = 1\n\n[[units]]\nid = \"u\"\n\n[[units]]\nid = \"v\"\nhexes = [\n  \"1.01\",\n  \"1.02\",\n]\n\n[victory]\npoints = [\n  { side = \"a\", points = 1 },\n  { side = \"b\", points = 2 },\n]\n";
        let parsed = Parsed::new(text);
        let loc = Locator::new(&parsed);
        assert_eq!(loc.line(&[Seg::Key("a"), Seg::Key("x")]), Some(2));
        assert_eq!(
            loc.line(&[Seg::Key("units"), Seg::Index(1), Seg::Key("id")]),
            Some(8)
        );
        assert_eq!(
            loc.line(&[
                Seg::Key("units"),
                Seg::Index(1),
                Seg::Key("hexes"),
                Seg::Index(1)
            ]),
            Some(11)
        );
        assert_eq!(
            loc.line(&[
                Seg::Key("victory"),
                Seg::Key("points"),
                Seg::Index(1),
                Seg::Key("side")
            ]),
            Some(17)
        );
        // An absent field falls back to its table.
        assert_eq!(
            loc.line(&[Seg::Key("units"), Seg::Index(0), Seg::Key("parent")]),
            Some(4).or(loc.line(&[Seg::Key("units"), Seg::Index(0)]))
        );
        assert_eq!(
            loc.path_at(text.find("1.02").unwrap()).as_deref(),
            Some("units[1].hexes[1]")
        );
    }

    fn problems_of(s: &Scenario) -> Vec<String> {
        let text = toml::to_string(s).expect("serialise");
        validate("t.toml", &Parsed::new(&text), s)
            .iter()
            .map(|p| format!("{}: {}", p.field, p.message))
            .collect()
    }

    /// T4.4/T4.5: an army or corps commander may lead one division directly below it as well;
    /// two unrelated formations stay an error (6.1).
    #[test]
    fn a_commander_may_lead_his_own_division_only() {
        let mut s = crate::scenario::bundled("vimeiro-1808").expect("bundled");
        // Junot leads the army and Loison's division (directly below it): allowed.
        for f in s.formations.iter_mut() {
            if f.id == "loison-div" {
                f.commander = Some("junot".into());
            }
        }
        s.commanders.retain(|c| c.id != "loison");
        let p = problems_of(&s);
        assert!(
            !p.iter().any(|x| x.contains("commands 2 formations")),
            "{p:?}"
        );
        // Kellerman leads two sibling divisions: refused.
        let mut s = crate::scenario::bundled("vimeiro-1808").expect("bundled");
        for f in s.formations.iter_mut() {
            if f.id == "margaron-div" {
                f.commander = Some("kellerman".into());
            }
        }
        s.commanders.retain(|c| c.id != "margaron");
        let p = problems_of(&s);
        assert!(
            p.iter().any(|x| x.contains("commands 2 formations")),
            "{p:?}"
        );
    }

    #[test]
    fn wreck_at_is_for_divisions_and_at_least_one() {
        let mut s = crate::scenario::bundled("vimeiro-1808").expect("bundled");
        for f in s.formations.iter_mut() {
            match f.id.as_str() {
                "french-army" => f.wreck_at = Some(2),
                "loison-div" => f.wreck_at = Some(0),
                "delaborde-div" => f.wreck_at = Some(2),
                _ => {}
            }
        }
        let p = problems_of(&s);
        assert!(
            p.iter()
                .any(|x| x.starts_with("formations[") && x.contains("is not a division")),
            "{p:?}"
        );
        assert!(
            p.iter().any(|x| x.contains("by 0 wrecked brigades")),
            "{p:?}"
        );
        assert_eq!(
            p.iter().filter(|x| x.contains("wreck_at")).count(),
            2,
            "{p:?}"
        );
    }

    #[test]
    fn line_of_counts_newlines_and_clamps() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 999), 3);
    }
}
