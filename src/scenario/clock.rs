//! The game clock derived from a scenario (NBS 3.1, 27.1.1): turn numbers, their times, and
//! whether each is a day, dawn, dusk or night turn.
//!
//! Turn 1 is the scenario's first turn. Day, dawn and dusk turns last 30 minutes; night turns
//! last 60. Owns the turn ↔ time mapping; must not read the wall clock.

use chrono::{NaiveDateTime, NaiveTime, TimeDelta};
use serde::Serialize;

use super::model::Clock;

/// Light conditions of a turn (27.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Light {
    Day,
    Dawn,
    Dusk,
    Night,
}

/// One game turn of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TurnInfo {
    /// 1-based turn number.
    pub number: u32,
    pub time: NaiveDateTime,
    pub light: Light,
    /// Length in minutes: 30 by day, 60 at night (27.1.1).
    pub minutes: u32,
    /// The last dusk turn of the day (27.2.3).
    pub last_dusk: bool,
}

impl Clock {
    /// Is this time of day within the night period?
    pub fn is_night(&self, t: NaiveTime) -> bool {
        match (self.night_starts, self.night_ends) {
            (Some(s), Some(e)) if s > e => t >= s || t < e,
            (Some(s), Some(e)) => t >= s && t < e,
            _ => false,
        }
    }

    /// Every turn from the first to the last, in order.
    pub fn turns(&self) -> Vec<TurnInfo> {
        let mut out = Vec::new();
        let mut t = self.first_turn;
        let mut n = 1;
        // A generous bound keeps a malformed clock from looping for ever.
        while t <= self.last_turn && n <= 10_000 {
            let tod = t.time();
            let light = if self.is_night(tod) {
                Light::Night
            } else if self.dawn.contains(&tod) {
                Light::Dawn
            } else if self.dusk.contains(&tod) {
                Light::Dusk
            } else {
                Light::Day
            };
            let minutes = if light == Light::Night { 60 } else { 30 };
            let last_dusk = light == Light::Dusk && self.dusk.iter().max() == Some(&tod);
            out.push(TurnInfo {
                number: n,
                time: t,
                light,
                minutes,
                last_dusk,
            });
            t += TimeDelta::minutes(i64::from(minutes));
            n += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(first: &str, last: &str) -> Clock {
        Clock {
            first_turn: first.parse().unwrap(),
            last_turn: last.parse().unwrap(),
            first_player: "french".into(),
            night_starts: Some("21:00:00".parse().unwrap()),
            night_ends: Some("05:00:00".parse().unwrap()),
            dawn: vec!["05:00:00".parse().unwrap()],
            dusk: vec!["20:00:00".parse().unwrap(), "20:30:00".parse().unwrap()],
            visibility: Default::default(),
        }
    }

    #[test]
    fn vimeiro_day_has_21_half_hour_turns() {
        // Vimeiro: 8:00 am to 6:00 pm, all daylight = 21 turns (V1).
        let turns = clock("1808-08-21T08:00:00", "1808-08-21T18:00:00").turns();
        assert_eq!(turns.len(), 21);
        assert!(
            turns
                .iter()
                .all(|t| t.minutes == 30 && t.light == Light::Day)
        );
    }

    #[test]
    fn night_turns_last_an_hour_27_1_1() {
        let turns = clock("1809-07-27T20:00:00", "1809-07-28T06:00:00").turns();
        let labels: Vec<_> = turns
            .iter()
            .map(|t| (t.time.time().to_string(), t.light))
            .collect();
        assert_eq!(labels[0], ("20:00:00".to_string(), Light::Dusk));
        assert!(turns[1].last_dusk);
        assert_eq!(labels[2], ("21:00:00".to_string(), Light::Night));
        assert_eq!(turns[2].minutes, 60);
        // 21,22,23,0,1,2,3,4 are night; 5:00 is dawn.
        assert_eq!(labels[10], ("05:00:00".to_string(), Light::Dawn));
    }
}
