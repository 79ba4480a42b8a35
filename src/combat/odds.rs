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
        self.counts.iter().filter(|(k, _)| f(k)).map(|(_, c)| c).sum()
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
