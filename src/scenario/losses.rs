//! Losses suffered before a scenario starts (Talavera 7.1): the seed writes them
//! `Unit: P (S) <n>` — Permanent Casualties, (Stragglers) and an undefined `<n>` that we read
//! as skirmisher losses (decision 0025) — for a unit or for a whole division, whose losses "are
//! distributed as the owning player sees fit".
//!
//! Owns: reading the notation, and dealing a formation's losses out to its brigades (one box at a
//! time, in order-of-battle order). Must not: know the loss charts — the caller says how many
//! boxes each unit has (`boxes`), so validation can use the built-in charts and a game the charts
//! it plays with.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::model::{Scenario, Unit};

/// A pre-scenario loss entry as written in the file, `"2 (4) <1>"`. Kept as text so a malformed
/// entry is reported by validation with every other problem (not by the parser, which stops at
/// the first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LossEntry(pub String);

/// The three numbers of a loss entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub struct LossCounts {
    /// Permanent Casualties: boxes marked X (20.4).
    pub permanent: u8,
    /// Stragglers: boxes marked / (20.4).
    pub stragglers: u8,
    /// The `<n>` of the notation, undefined in the seed (8.2 item 20); read as skirmisher losses.
    pub skirmishers: u8,
}

impl LossCounts {
    /// Boxes of the loss chart the entry fills (P + S).
    pub fn boxes(self) -> u32 {
        u32::from(self.permanent) + u32::from(self.stragglers)
    }
    pub fn is_zero(self) -> bool {
        self == LossCounts::default()
    }
    fn plus(self, o: LossCounts) -> LossCounts {
        LossCounts {
            permanent: self.permanent.saturating_add(o.permanent),
            stragglers: self.stragglers.saturating_add(o.stragglers),
            skirmishers: self.skirmishers.saturating_add(o.skirmishers),
        }
    }
}

impl fmt::Display for LossCounts {
    /// The seed's notation: `2 (4) <1>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}) <{}>",
            self.permanent, self.stragglers, self.skirmishers
        )
    }
}

impl LossEntry {
    /// Read `P (S) <n>`. Spaces are free (`0 (1) <0 >` as the seed prints it); `<n>` may be left
    /// out (0); `(S)` may not.
    pub fn counts(&self) -> Result<LossCounts, String> {
        parse(&self.0)
    }
}

fn number(s: &str, what: &str) -> Result<u8, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err(format!("the {what} number is missing"));
    }
    if !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{t}` is not a whole number of {what}"));
    }
    t.parse::<u8>()
        .map_err(|_| format!("{t} {what} is more than any loss chart holds"))
}

/// Parse the `P (S) <n>` notation of 7.1.
pub fn parse(text: &str) -> Result<LossCounts, String> {
    let t = text.trim();
    let (p, rest) = t
        .split_once('(')
        .ok_or("the stragglers in parentheses are missing")?;
    let (s, rest) = rest
        .split_once(')')
        .ok_or("the `)` after the stragglers is missing")?;
    let rest = rest.trim();
    let n = if rest.is_empty() {
        0
    } else {
        let inner = rest
            .strip_prefix('<')
            .and_then(|r| r.strip_suffix('>'))
            .ok_or_else(|| format!("`{rest}` after the stragglers should be `<n>`"))?;
        number(inner, "skirmisher losses")?
    };
    Ok(LossCounts {
        permanent: number(p, "permanent casualties")?,
        stragglers: number(s, "stragglers")?,
        skirmishers: n,
    })
}

/// What went wrong dealing out the losses; validation places each at its field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LossProblem {
    /// `losses` of `units[index]` or `formations[index]` cannot be read.
    Malformed {
        array: &'static str,
        index: usize,
        text: String,
        why: String,
    },
    /// A unit's own losses fill more boxes than its loss chart has.
    BeyondUnit {
        index: usize,
        losses: LossCounts,
        boxes: u8,
    },
    /// A unit with no loss chart (a train) has losses.
    NoChart { index: usize },
    /// A formation's losses do not fit in its brigades' boxes (after their own losses).
    BeyondFormation {
        index: usize,
        losses: LossCounts,
        room: u32,
        brigades: usize,
    },
    /// A formation with losses has no brigade to take them.
    NoBrigades { index: usize },
}

impl LossProblem {
    /// The problem in words, naming the unit or formation (for messages outside validation).
    pub fn describe(&self, s: &Scenario) -> String {
        let unit = |i: &usize| s.units.get(*i).map_or("?", |u| u.id.as_str());
        let formation = |i: &usize| s.formations.get(*i).map_or("?", |f| f.id.as_str());
        match self {
            LossProblem::Malformed {
                array,
                index,
                text,
                why,
            } => {
                let id = if *array == "units" {
                    unit(index)
                } else {
                    formation(index)
                };
                format!("`{id}`: `{text}` is not `P (S) <n>`: {why}")
            }
            LossProblem::BeyondUnit {
                index,
                losses,
                boxes,
            } => format!(
                "`{}`: {losses} fills {} boxes, its loss chart has {boxes}",
                unit(index),
                losses.boxes()
            ),
            LossProblem::NoChart { index } => {
                format!("`{}` has no loss chart to mark", unit(index))
            }
            LossProblem::BeyondFormation {
                index,
                losses,
                room,
                brigades,
            } => format!(
                "`{}`: {losses} fills {} boxes, its {brigades} brigade(s) have {room} free",
                formation(index),
                losses.boxes()
            ),
            LossProblem::NoBrigades { index } => {
                format!("`{}` has no brigade to take its losses", formation(index))
            }
        }
    }
}

/// Is `unit` below `formation` in the order of battle (bounded; cycles are a validation error)?
fn below(s: &Scenario, unit: &Unit, formation: &str) -> bool {
    let mut cur = Some(unit.parent.as_str());
    for _ in 0..=s.formations.len() {
        match cur {
            Some(p) if p == formation => return true,
            Some(p) => cur = s.formation(p).and_then(|f| f.parent.as_deref()),
            None => return false,
        }
    }
    false
}

/// Units that can take a formation's losses: its brigades (infantry and cavalry, 6.1; not
/// batteries, skirmishers or trains), in file order — the order of battle as printed.
fn brigades_of<'a>(s: &'a Scenario, formation: &str) -> Vec<&'a Unit> {
    s.units
        .iter()
        .filter(|u| u.kind.counts_as_sub_unit() && below(s, u, formation))
        .collect()
}

/// Every unit's starting losses: its own entry, plus its share of each formation entry above it,
/// dealt one box at a time round its brigades in order-of-battle order — Permanent Casualties
/// first, then Stragglers continuing round from the next brigade — skipping a brigade whose
/// chart is full; `<n>` is dealt the same way from the first brigade, without a limit.
/// `boxes(unit)` is the size of a unit's loss chart (`None` for a unit without one).
pub fn distribute(
    s: &Scenario,
    boxes: impl Fn(&Unit) -> Option<u8>,
) -> (BTreeMap<String, LossCounts>, Vec<LossProblem>) {
    let mut out: BTreeMap<String, LossCounts> = BTreeMap::new();
    let mut problems = Vec::new();
    for (i, u) in s.units.iter().enumerate() {
        let Some(entry) = &u.losses else { continue };
        let counts = match entry.counts() {
            Ok(c) => c,
            Err(why) => {
                problems.push(LossProblem::Malformed {
                    array: "units",
                    index: i,
                    text: entry.0.clone(),
                    why,
                });
                continue;
            }
        };
        match boxes(u) {
            None if !counts.is_zero() => problems.push(LossProblem::NoChart { index: i }),
            Some(b) if counts.boxes() > u32::from(b) => problems.push(LossProblem::BeyondUnit {
                index: i,
                losses: counts,
                boxes: b,
            }),
            _ => {
                out.insert(u.id.clone(), counts);
            }
        }
    }
    for (i, f) in s.formations.iter().enumerate() {
        let Some(entry) = &f.losses else { continue };
        let counts = match entry.counts() {
            Ok(c) => c,
            Err(why) => {
                problems.push(LossProblem::Malformed {
                    array: "formations",
                    index: i,
                    text: entry.0.clone(),
                    why,
                });
                continue;
            }
        };
        let brigades = brigades_of(s, &f.id);
        if brigades.is_empty() {
            if !counts.is_zero() {
                problems.push(LossProblem::NoBrigades { index: i });
            }
            continue;
        }
        let room = |u: &Unit, out: &BTreeMap<String, LossCounts>| {
            let used = out.get(&u.id).map_or(0, |c| c.boxes());
            u32::from(boxes(u).unwrap_or(0)).saturating_sub(used)
        };
        let total_room: u32 = brigades.iter().map(|u| room(u, &out)).sum();
        if counts.boxes() > total_room {
            problems.push(LossProblem::BeyondFormation {
                index: i,
                losses: counts,
                room: total_room,
                brigades: brigades.len(),
            });
            continue;
        }
        let n = brigades.len();
        let mut next = 0usize;
        let kinds = std::iter::repeat_n(true, usize::from(counts.permanent))
            .chain(std::iter::repeat_n(false, usize::from(counts.stragglers)));
        for permanent in kinds {
            // Room is enough in total, so some brigade within one round has a free box.
            for step in 0..n {
                let u = brigades[(next + step) % n];
                if room(u, &out) > 0 {
                    let c = out.entry(u.id.clone()).or_default();
                    let one = if permanent {
                        LossCounts {
                            permanent: 1,
                            ..LossCounts::default()
                        }
                    } else {
                        LossCounts {
                            stragglers: 1,
                            ..LossCounts::default()
                        }
                    };
                    *c = c.plus(one);
                    next = (next + step + 1) % n;
                    break;
                }
            }
        }
        for k in 0..usize::from(counts.skirmishers) {
            let u = brigades[k % n];
            let c = out.entry(u.id.clone()).or_default();
            *c = c.plus(LossCounts {
                skirmishers: 1,
                ..LossCounts::default()
            });
        }
    }
    out.retain(|_, c| !c.is_zero());
    (out, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(p: u8, s: u8, n: u8) -> LossCounts {
        LossCounts {
            permanent: p,
            stragglers: s,
            skirmishers: n,
        }
    }

    #[test]
    fn reads_the_7_1_notation() {
        assert_eq!(parse("3 (9) <1>"), Ok(c(3, 9, 1)));
        assert_eq!(parse("0 (1) <0 >"), Ok(c(0, 1, 0)));
        assert_eq!(parse("2(4)<2>"), Ok(c(2, 4, 2)));
        assert_eq!(parse(" 1 (0) "), Ok(c(1, 0, 0)));
        assert_eq!(c(2, 4, 1).to_string(), "2 (4) <1>");
    }

    #[test]
    fn refuses_what_is_not_the_notation() {
        for bad in [
            "",
            "2 4 1",
            "2 (4 <1>",
            "x (4) <1>",
            "2 () <1>",
            "2 (4) 1",
            "2 (4) <x>",
            "-1 (0) <0>",
            "300 (0) <0>",
            "2 (4) <1> (3)",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
    }
}
