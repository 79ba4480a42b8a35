//! Validation of a parsed scenario: every cross-reference, id, hex and rating is checked, and
//! every problem is reported at once with its file, line and field.
//!
//! Owns: the rules a scenario file must satisfy and how a problem is located in the text.
//! Must not: change the scenario or print.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Serialize;

use super::model::*;
use crate::hex::Hex;

/// One thing wrong with a scenario file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub file: String,
    /// 1-based line, when the problem can be placed.
    pub line: Option<usize>,
    /// Field path, e.g. `units[3].parent`.
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
    /// A TOML syntax or shape error, placed by the parser's byte span.
    pub fn from_toml(file: &str, text: &str, e: &toml::de::Error) -> Problem {
        let line = e.span().map(|s| line_of(text, s.start));
        let message = e.message().trim().to_string();
        Problem {
            file: file.to_string(),
            line,
            field: String::from("(syntax)"),
            help: "fix the TOML at that line; docs/scenario-format.md lists every field".into(),
            message,
        }
    }
}

fn line_of(text: &str, byte: usize) -> usize {
    text[..byte.min(text.len())]
        .bytes()
        .filter(|b| *b == b'\n')
        .count()
        + 1
}

/// Finds where an entity's field is written, for `[[array]]` tables in file order.
struct Locator<'a> {
    text: &'a str,
}

impl Locator<'_> {
    /// Line of `field` inside the `index`-th `[[array]]` table, or of the table header.
    fn line(&self, array: &str, index: usize, field: Option<&str>) -> Option<usize> {
        let header = format!("[[{array}]]");
        let mut seen = 0usize;
        let mut in_block = false;
        let mut block_line = None;
        for (i, raw) in self.text.lines().enumerate() {
            let l = raw.trim();
            if l.starts_with('[') {
                if in_block {
                    break;
                }
                if l == header {
                    if seen == index {
                        in_block = true;
                        block_line = Some(i + 1);
                        if field.is_none() {
                            return block_line;
                        }
                    }
                    seen += 1;
                }
                continue;
            }
            if in_block
                && let Some(f) = field
                && let Some((k, _)) = l.split_once('=')
                && k.trim() == f
            {
                return Some(i + 1);
            }
        }
        block_line
    }
}

struct Checker<'a> {
    file: &'a str,
    loc: Locator<'a>,
    problems: Vec<Problem>,
}

impl Checker<'_> {
    fn push(&mut self, array: &str, index: usize, field: &str, message: String, help: &str) {
        let line = self.loc.line(array, index, Some(field));
        self.problems.push(Problem {
            file: self.file.to_string(),
            line,
            field: format!("{array}[{index}].{field}"),
            message,
            help: help.to_string(),
        });
    }

    fn push_top(&mut self, field: &str, message: String, help: &str) {
        let key = field.rsplit('.').next().unwrap_or(field);
        let line = self
            .loc
            .text
            .lines()
            .position(|l| {
                l.trim_start().starts_with(&format!("{key} "))
                    || l.trim_start().starts_with(&format!("{key}="))
            })
            .map(|i| i + 1);
        self.problems.push(Problem {
            file: self.file.to_string(),
            line,
            field: field.to_string(),
            message,
            help: help.to_string(),
        });
    }
}

/// Check every rule a scenario must satisfy; an empty list means it is valid.
pub fn validate(file: &str, text: &str, s: &Scenario) -> Vec<Problem> {
    let mut c = Checker {
        file,
        loc: Locator { text },
        problems: Vec::new(),
    };
    let side_ids: BTreeSet<&str> = s.sides.iter().map(|x| x.id.as_str()).collect();

    // Ids are unique across every kind of thing an order or reference may name.
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
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for (array, i, id) in all_ids {
        if id.trim().is_empty() {
            c.push(
                array,
                i,
                "id",
                "empty id".into(),
                "give every entry a unique id",
            );
        } else if let Some(prev) = seen.insert(id, array) {
            c.push(
                array,
                i,
                "id",
                format!("duplicate id `{id}` (already used in `{prev}`)"),
                "ids must be unique across sides, commanders, formations, units and places",
            );
        }
    }

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

    let known_side = |c: &mut Checker, array: &str, i: usize, side: &str| {
        if !side_ids.contains(side) {
            c.push(
                array,
                i,
                "side",
                format!("unknown side `{side}`"),
                "use one of the ids in [[sides]]",
            );
        }
    };
    for (i, x) in s.sides.iter().enumerate() {
        match s.formation(&x.army) {
            Some(f) if f.echelon == Echelon::Army => {}
            Some(_) => c.push(
                "sides",
                i,
                "army",
                format!("`{}` is not an army formation", x.army),
                "point `army` at the formation with echelon = \"army\"",
            ),
            None => c.push(
                "sides",
                i,
                "army",
                format!("unknown formation `{}`", x.army),
                "point `army` at a formation id",
            ),
        }
    }

    let on_map = |c: &mut Checker, array: &str, i: usize, field: &str, p: &Position| {
        for h in std::iter::once(&p.hex).chain(&p.extensions) {
            if !s.map.contains(*h) {
                c.push(
                    array,
                    i,
                    field,
                    off_map_message(*h, &s.map),
                    "use a hex inside the map's first/last column and row",
                );
            }
        }
    };

    for (i, x) in s.commanders.iter().enumerate() {
        known_side(&mut c, "commanders", i, &x.side);
        if x.rating > 4 {
            c.push(
                "commanders",
                i,
                "rating",
                format!("command rating {} is out of range", x.rating),
                "NBS command ratings run from 0 to 4",
            );
        }
        if let Some(p) = &x.position {
            on_map(&mut c, "commanders", i, "position", p);
        }
        let commands = s
            .formations
            .iter()
            .any(|f| f.commander.as_deref() == Some(&x.id))
            || s.formations.iter().any(|f| f.succession.contains(&x.id));
        if !commands {
            c.push("commanders", i, "id", format!("commander `{}` commands nothing", x.id), "name him as the `commander` (or in the `succession`) of a formation, or remove him");
        }
    }

    for (i, f) in s.formations.iter().enumerate() {
        known_side(&mut c, "formations", i, &f.side);
        match (&f.parent, f.echelon) {
            (None, Echelon::Army) => {}
            (None, _) => c.push(
                "formations",
                i,
                "parent",
                format!("{} `{}` has no parent", f.echelon, f.id),
                "every corps and division belongs to an army or corps",
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
        for succ in &f.succession {
            if s.commander(succ).is_none() {
                c.push(
                    "formations",
                    i,
                    "succession",
                    format!("unknown commander `{succ}`"),
                    "use commander ids from [[commanders]]",
                );
            }
        }
        if let Some(p) = &f.hq {
            on_map(&mut c, "formations", i, "hq", p);
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
    }
    // Cycles in the formation tree.
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

    for (i, u) in s.units.iter().enumerate() {
        known_side(&mut c, "units", i, &u.side);
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
            on_map(&mut c, "units", i, "position", p);
        }
        if u.kind.is_artillery() {
            if u.gun_points.is_some_and(|g| g == 0 || g > 10) {
                c.push(
                    "units",
                    i,
                    "gun_points",
                    "gun points must be 1 to 10".into(),
                    "NBS batteries have 1–10 GP (default 5, 3.3(7))",
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
    }

    for (i, p) in s.places.iter().enumerate() {
        for h in &p.hexes {
            if !s.map.contains(*h) {
                c.push(
                    "places",
                    i,
                    "hexes",
                    off_map_message(*h, &s.map),
                    "use hexes inside the map",
                );
            }
        }
        for hs in &p.hexsides {
            if !hs.0.is_adjacent(hs.1) {
                c.push(
                    "places",
                    i,
                    "hexsides",
                    format!("{hs} is not a hexside: the hexes are not adjacent"),
                    "name two adjacent hexes",
                );
            }
        }
    }

    for (i, o) in s.preset_orders.iter().enumerate() {
        known_side(&mut c, "preset_orders", i, &o.side);
        if s.command(&o.to).is_none() {
            c.push(
                "preset_orders",
                i,
                "to",
                format!("unknown command `{}`", o.to),
                "use a formation or unit id",
            );
        }
    }
    for (i, r) in s.reinforcements.iter().enumerate() {
        known_side(&mut c, "reinforcements", i, &r.side);
        let entry_ok =
            s.place(&r.entry).is_some() || r.entry.parse::<Hex>().is_ok_and(|h| s.map.contains(h));
        if !entry_ok {
            c.push(
                "reinforcements",
                i,
                "entry",
                format!("unknown entry `{}`", r.entry),
                "use a place id (kind = \"entry\") or a hex on the map",
            );
        }
        for a in &r.arrives {
            if s.command(a).is_none() && s.commander(a).is_none() {
                c.push(
                    "reinforcements",
                    i,
                    "arrives",
                    format!("unknown unit, formation or commander `{a}`"),
                    "list ids from the order of battle",
                );
            }
        }
        for o in &r.orders {
            if !s.preset_orders.iter().any(|p| &p.id == o) {
                c.push(
                    "reinforcements",
                    i,
                    "orders",
                    format!("unknown pre-set order `{o}`"),
                    "list ids from [[preset_orders]]",
                );
            }
        }
    }

    // Map grids must match the declared size.
    let (w, h) = s.map.size();
    check_grid(&mut c, "map.terrain", &s.map.terrain, w, h, |ch| {
        s.map
            .legend
            .contains_key(ch.encode_utf8(&mut [0; 4]) as &str)
    });
    if !s.map.elevation.trim().is_empty() {
        check_grid(&mut c, "map.elevation", &s.map.elevation, w, h, |ch| {
            ch.is_ascii_digit()
        });
    }
    for name in s.map.legend.values() {
        if !s.commander_costs.terrain.contains_key(name) {
            c.push_top(
                "commander_costs.terrain",
                format!("no commander cost for terrain `{name}`"),
                "add it under [commander_costs.terrain]",
            );
        }
    }
    c.problems
}

fn check_grid(c: &mut Checker, field: &str, grid: &str, w: u32, h: u32, ok: impl Fn(char) -> bool) {
    let lines: Vec<&str> = grid
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.len() != h as usize {
        c.push_top(
            field,
            format!("{} rows given, the map has {h}", lines.len()),
            "one line per row, top line = last_row",
        );
    }
    for (i, l) in lines.iter().enumerate() {
        if l.chars().count() != w as usize {
            c.push_top(
                field,
                format!(
                    "row {} of the grid has {} characters, the map has {w} columns",
                    i + 1,
                    l.chars().count()
                ),
                "one character per column",
            );
        }
        if let Some(bad) = l.chars().find(|ch| !ok(*ch)) {
            c.push_top(
                field,
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
