//! Exact odds by enumeration, not sampling: run a resolver once for every possible sequence of
//! dice and count outcomes as integers over a common denominator.
//!
//! Owns: the enumerating dice source ([`enumerate`]), the [`Distribution`] type and the
//! ready-made odds for close combat, charges and fire. Must not: use floating point (the CLI
//! turns counts into percentages), or sample.
//!
//! How it works: a path is the list of faces rolled so far. The resolver is run with a dice
//! source that replays the path and answers 1 past its end while recording the number of
//! sides; then the path is advanced like an odometer (last die not at its top face goes up,
//! everything after it is dropped). Each complete run is one leaf with probability
//! 1/(product of sides); counts are scaled to the least common multiple of those products.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::CombatError;
use crate::rules::dice::{Dice, DiceExhausted, Die, Purpose};

/// Integer counts per outcome over `denominator`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distribution<K: Ord> {
    pub denominator: u64,
    pub counts: BTreeMap<K, u64>,
}

impl<K: Ord + Clone> Distribution<K> {
    /// Re-key (and merge) the outcomes.
    pub fn map<J: Ord>(&self, f: impl Fn(&K) -> J) -> Distribution<J> {
        let mut counts = BTreeMap::new();
        for (k, c) in &self.counts {
            *counts.entry(f(k)).or_insert(0) += c;
        }
        Distribution {
            denominator: self.denominator,
            counts,
        }
    }

    pub fn count(&self, k: &K) -> u64 {
        self.counts.get(k).copied().unwrap_or(0)
    }

    /// Sum of counts where `f` holds.
    pub fn count_where(&self, f: impl Fn(&K) -> bool) -> u64 {
        self.counts
            .iter()
            .filter(|(k, _)| f(k))
            .map(|(_, c)| c)
            .sum()
    }
}

/// A count as a percentage with one decimal, by integer arithmetic ("33.3").
pub fn percent(count: u64, denominator: u64) -> String {
    if denominator == 0 {
        return "0.0".into();
    }
    let tenths = (u128::from(count) * 1000 + u128::from(denominator) / 2) / u128::from(denominator);
    format!("{}.{}", tenths / 10, tenths % 10)
}

struct PathDice {
    path: Vec<(u8, u8)>,
    pos: usize,
    max_depth: usize,
}

impl Dice for PathDice {
    fn roll(&mut self, purpose: Purpose, sides: u8) -> Result<Die, DiceExhausted> {
        if self.pos >= self.max_depth || sides == 0 {
            return Err(DiceExhausted {
                purpose,
                sides,
                index: self.pos as u64,
            });
        }
        if self.pos == self.path.len() {
            self.path.push((1, sides));
        }
        let (v, s) = self.path[self.pos];
        if s != sides {
            // The resolver asked for different dice on a replayed prefix: not deterministic.
            return Err(DiceExhausted {
                purpose,
                sides,
                index: self.pos as u64,
            });
        }
        let d = Die {
            purpose,
            index: self.pos as u64,
            sides,
            value: v,
            forced: true,
        };
        self.pos += 1;
        Ok(d)
    }
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Enumerate every dice sequence `run` can ask for (at most `max_depth` dice per run) and
/// count the outcomes exactly.
pub fn enumerate<K: Ord + Clone>(
    max_depth: usize,
    mut run: impl FnMut(&mut dyn Dice) -> Result<K, CombatError>,
) -> Result<Distribution<K>, CombatError> {
    let mut leaves: Vec<(K, u128)> = Vec::new();
    let mut path: Vec<(u8, u8)> = Vec::new();
    loop {
        let mut d = PathDice {
            path: std::mem::take(&mut path),
            pos: 0,
            max_depth,
        };
        let k = run(&mut d)?;
        let used = d.pos;
        let mut p = d.path;
        p.truncate(used);
        let weight: u128 = p.iter().map(|(_, s)| u128::from(*s)).product();
        leaves.push((k, weight));
        // Advance the odometer.
        while let Some(&(v, s)) = p.last() {
            if v < s {
                let last = p.len() - 1;
                p[last].0 += 1;
                break;
            }
            p.pop();
        }
        if p.is_empty() {
            break;
        }
        path = p;
    }
    let lcm = leaves
        .iter()
        .fold(1u128, |acc, (_, w)| acc / gcd(acc, *w) * *w);
    let mut counts: BTreeMap<K, u64> = BTreeMap::new();
    for (k, w) in leaves {
        *counts.entry(k).or_insert(0) += u64::try_from(lcm / w).unwrap_or(u64::MAX);
    }
    Ok(Distribution {
        denominator: u64::try_from(lcm).unwrap_or(u64::MAX),
        counts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumerates_uneven_trees_exactly() {
        // Roll a d6; on 1–3 stop, else roll again and report the sum.
        let d = enumerate(4, |dice| {
            let a = dice.roll(Purpose::CloseCombat, 6)?.value;
            if a <= 3 {
                return Ok(0u8);
            }
            Ok(a + dice.roll(Purpose::CloseCombat, 6)?.value)
        })
        .unwrap();
        assert_eq!(d.denominator, 36);
        assert_eq!(d.count(&0), 18);
        assert_eq!(d.counts.values().sum::<u64>(), 36);
        assert_eq!(d.count(&5), 1); // 4+1
    }

    #[test]
    fn percent_is_integer_rounded() {
        assert_eq!(percent(1, 3), "33.3");
        assert_eq!(percent(2, 3), "66.7");
        assert_eq!(percent(18, 36), "50.0");
    }
}

use super::charge::{ChargeInput, ChargeResult, resolve_charge};
use super::close::{CloseCombatInput, prepare, resolve_close_combat, resolve_stand};
use super::fire::{ArtilleryFireInput, resolve_artillery_fire};
use super::tables::{CellRef, CombatTables};
use super::{GunLoss, Loss, MoraleState, Retreat, SideResult, Trace};

/// The serde name of a unit enum value ("attacker-won").
fn name<T: Serialize + std::fmt::Debug>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => format!("{v:?}"),
    }
}

fn retreat_name(r: Retreat) -> String {
    match r {
        Retreat::None => "none".into(),
        Retreat::OneHex => "one-hex".into(),
        Retreat::Rout => "rout".into(),
        Retreat::Cavalry { min, max } => format!("cavalry-{min}-{max}"),
        Retreat::Displace => "displace".into(),
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct LeafSide {
    loss: Loss,
    morale_after: MoraleState,
    retreat: String,
    gun_loss: Option<GunLoss>,
    became_wrecked: bool,
}

impl LeafSide {
    fn of(s: &SideResult) -> LeafSide {
        LeafSide {
            loss: s.loss,
            morale_after: s.morale_after,
            retreat: retreat_name(s.retreat),
            gun_loss: s.aftermath.gun_loss,
            became_wrecked: s.aftermath.brigade_became_wrecked,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Leaf {
    outcome: String,
    sides: Vec<LeafSide>,
    cells: Vec<CellRef>,
}

/// The odds for one side: integer counts over the result's denominator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SideOdds {
    /// By the adjusted result in chart notation ("1(3)M-1").
    pub losses: BTreeMap<String, u64>,
    pub permanent: BTreeMap<u8, u64>,
    pub stragglers: BTreeMap<u8, u64>,
    pub morale_after: BTreeMap<String, u64>,
    pub retreat: BTreeMap<String, u64>,
    /// Gun Loss Table results ("none" when not rolled).
    pub gun_loss: BTreeMap<String, u64>,
    pub became_wrecked: u64,
}

/// One side's Check to Stand, as it will be rolled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandInfo {
    pub side: String,
    pub need: u8,
    pub modifier: i8,
    pub modifiers: Vec<(String, i8)>,
}

/// The Check to Stand phase alone, over its own denominator (6 or 36).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandOdds {
    pub denominator: u64,
    pub first_checker: String,
    pub order_case: String,
    /// Both sides' checks in checking order (the second rolls only if the first stands).
    pub checks: Vec<StandInfo>,
    pub outcomes: BTreeMap<String, u64>,
}

/// Exact odds of a combat: counts of every outcome over one denominator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CombatOdds {
    pub denominator: u64,
    pub outcomes: BTreeMap<String, u64>,
    /// "attacker" / "defender" (or "target" for fire).
    pub sides: BTreeMap<String, SideOdds>,
    /// Count of dice sequences that read at least one non-seed table cell.
    pub using_non_seed_cells: u64,
    /// Every non-seed cell any sequence read.
    pub non_seed_cells: Vec<CellRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stand: Option<StandOdds>,
    pub notes: Vec<String>,
}

const MAX_DICE: usize = 12;

fn aggregate(d: &Distribution<Leaf>, side_names: &[&str]) -> CombatOdds {
    let mut outcomes = BTreeMap::new();
    let mut sides: BTreeMap<String, SideOdds> = side_names
        .iter()
        .map(|n| (n.to_string(), SideOdds::default()))
        .collect();
    let mut using = 0;
    let mut cells = std::collections::BTreeSet::new();
    for (leaf, c) in &d.counts {
        *outcomes.entry(leaf.outcome.clone()).or_insert(0) += c;
        if !leaf.cells.is_empty() {
            using += c;
        }
        cells.extend(leaf.cells.iter().cloned());
        for (n, s) in side_names.iter().zip(&leaf.sides) {
            let o = sides.entry(n.to_string()).or_default();
            *o.losses.entry(s.loss.to_string()).or_insert(0) += c;
            *o.permanent.entry(s.loss.permanent).or_insert(0) += c;
            *o.stragglers.entry(s.loss.stragglers).or_insert(0) += c;
            *o.morale_after.entry(name(&s.morale_after)).or_insert(0) += c;
            *o.retreat.entry(s.retreat.clone()).or_insert(0) += c;
            let g = match s.gun_loss {
                None => "none".to_string(),
                Some(GunLoss::All) => "all".to_string(),
                Some(GunLoss::Points(p)) => format!("{p}"),
            };
            *o.gun_loss.entry(g).or_insert(0) += c;
            if s.became_wrecked {
                o.became_wrecked += c;
            }
        }
    }
    CombatOdds {
        denominator: d.denominator,
        outcomes,
        sides,
        using_non_seed_cells: using,
        non_seed_cells: cells.into_iter().collect(),
        stand: None,
        notes: vec![],
    }
}

fn cells_of(t: &Trace) -> Vec<CellRef> {
    let mut c = t.cells.clone();
    c.sort();
    c.dedup();
    c
}

/// Exact odds of a Close Combat (Commander Loss Checks are left out: each Commander of a side
/// that takes P or S is lost with probability 3/36, 25.4).
pub fn close_combat_odds(
    t: &CombatTables,
    input: &CloseCombatInput,
) -> Result<CombatOdds, CombatError> {
    let mut i = input.clone();
    i.skip_commander_loss = true;
    let d = enumerate(MAX_DICE, |dice| {
        let r = resolve_close_combat(t, &i, dice)?;
        Ok(Leaf {
            outcome: name(&r.outcome),
            sides: vec![LeafSide::of(&r.attacker), LeafSide::of(&r.defender)],
            cells: cells_of(&r.trace),
        })
    })?;
    let mut odds = aggregate(&d, &["attacker", "defender"]);
    // The Check to Stand alone.
    let (p, _) = prepare(&i);
    let sd = enumerate(MAX_DICE, |dice| {
        let mut tr = Trace::default();
        Ok(name(&resolve_stand(t, &p, dice, &mut tr)?.outcome))
    })?;
    let (first, _, case) = super::close::checking_order(&p);
    let mut checks = Vec::new();
    for side in [first, first.other()] {
        let mods = super::close::stand_modifiers(t, &p, side);
        let c = match side {
            super::Side::Attacker => &p.attacker,
            super::Side::Defender => &p.defender,
        };
        checks.push(StandInfo {
            side: name(&side),
            need: super::close::stand_need(t, c),
            modifier: super::close::capped(&mods, t.stand.max_modifier),
            modifiers: mods,
        });
    }
    odds.stand = Some(StandOdds {
        denominator: sd.denominator,
        first_checker: name(&first),
        order_case: name(&case),
        checks,
        outcomes: sd.counts.clone(),
    });
    if !i.attacker.commanders.is_empty() || !i.defender.commanders.is_empty() {
        odds.notes.push(
            "Commander Loss Checks not enumerated: 3 in 36 per Commander whose stack takes P or S (25.4)"
                .into(),
        );
    }
    Ok(odds)
}

/// Exact odds of a cavalry charge (Commander Loss Checks left out, as for close combat).
pub fn charge_odds(t: &CombatTables, input: &ChargeInput) -> Result<CombatOdds, CombatError> {
    let mut i = input.clone();
    i.skip_commander_loss = true;
    let leaf = |r: &ChargeResult| Leaf {
        outcome: name(&r.outcome),
        sides: vec![LeafSide::of(&r.attacker), LeafSide::of(&r.defender)],
        cells: cells_of(&r.trace),
    };
    let d = enumerate(MAX_DICE, |dice| Ok(leaf(&resolve_charge(t, &i, dice)?)))?;
    let mut odds = aggregate(&d, &["attacker", "defender"]);
    let of = enumerate(MAX_DICE, |dice| {
        Ok(resolve_charge(t, &i, dice)?.opportunity_fire)
    })?;
    let n = of.count(&true);
    if n > 0 {
        odds.notes.push(format!(
            "artillery in the target hex may fire Opportunity Fire in {n} of {} (not included)",
            of.denominator
        ));
    }
    Ok(odds)
}

/// Exact odds of an artillery fire (Commander Loss Checks left out).
pub fn fire_odds(t: &CombatTables, input: &ArtilleryFireInput) -> Result<CombatOdds, CombatError> {
    let mut i = input.clone();
    i.skip_commander_loss = true;
    let d = enumerate(MAX_DICE, |dice| {
        let r = resolve_artillery_fire(t, &i, dice)?;
        Ok(Leaf {
            outcome: if r.target.loss == Loss::NONE {
                "no-effect".into()
            } else if r.target.loss.has_casualties() {
                "casualties".into()
            } else {
                "morale-only".into()
            },
            sides: vec![LeafSide::of(&r.target)],
            cells: cells_of(&r.trace),
        })
    })?;
    Ok(aggregate(&d, &["target"]))
}

/// The exact odds of one Morale Check (21.2): the checks of the movement rules (Forced March
/// 12.5.6.2, moving a Square 8.3.2, a Reaction Charge from outside the frontal arc 16.5.5) and
/// every other. Enumerated through [`super::morale::morale_check`] itself, so the odds are the
/// game's roll.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoraleCheckOdds {
    pub rule: String,
    /// The number 1d6 plus the modifier must reach.
    pub need: u8,
    /// The whole modifier: `extra` and +1 with a Commander rated 2+ (21.2).
    pub modifier: i8,
    /// Passing and failing faces over `denominator` (6).
    pub pass: u64,
    pub fail: u64,
    pub denominator: u64,
}

/// [`MoraleCheckOdds`] of a unit of `rating`, with the best Commander in its hex rated
/// `commander` (if any) and `extra` other modifiers.
pub fn morale_check_odds(
    t: &CombatTables,
    rating: crate::scenario::model::MoraleRating,
    commander: Option<u8>,
    extra: i8,
) -> Result<MoraleCheckOdds, CombatError> {
    let commanders: Vec<super::CommanderIn> = commander
        .map(|rating| super::CommanderIn {
            id: "commander".into(),
            rating,
            fighter: false,
        })
        .into_iter()
        .collect();
    let mut shape = None;
    let d = enumerate(1, |dice| {
        let c = super::morale::morale_check(
            t,
            rating,
            &commanders,
            true,
            extra,
            Purpose::Morale,
            dice,
            &mut Trace::default(),
        )?;
        shape = Some((c.need, c.modifier));
        Ok(c.passed)
    })?;
    let (need, modifier) = shape.unwrap_or_default();
    Ok(MoraleCheckOdds {
        rule: t.morale_check.rule.clone(),
        need,
        modifier,
        pass: d.counts.get(&true).copied().unwrap_or(0),
        fail: d.counts.get(&false).copied().unwrap_or(0),
        denominator: d.denominator,
    })
}
