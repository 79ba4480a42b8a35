//! Phase deadlines at the web table (issue 15): the umpire sets one for the phase in play, then
//! pauses, resumes, extends or clears it; every seat sees it in its header. Wall-clock time in
//! the server's memory only: no rule reads it (the game's time is the turn), it is not recorded
//! in the game file, and a new phase starts without one. Must not touch the game.

/// The deadline of the phase in play.
#[derive(Clone, Debug, Default)]
pub struct Deadline {
    /// The phase it belongs to (`turn/phasing/step`); another phase has none.
    phase: String,
    clock: Clock,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Clock {
    #[default]
    None,
    /// Ends at this Unix time (seconds).
    Running { end: i64 },
    /// Paused with this many seconds left.
    Paused { left: i64 },
}

/// What the umpire asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// A deadline this many minutes from now.
    Set(i64),
    /// This many more minutes (running or paused).
    Extend(i64),
    Pause,
    Resume,
    Clear,
}

impl Ask {
    /// The form's action and minutes; `None` for anything else.
    pub fn parse(action: &str, minutes: &str) -> Result<Ask, String> {
        let mins = || -> Result<i64, String> {
            match minutes.trim().parse::<i64>() {
                Ok(m) if (1..=24 * 60).contains(&m) => Ok(m),
                _ => Err(format!(
                    "`{minutes}` is not a number of minutes from 1 to 1440"
                )),
            }
        };
        match action {
            "set" => mins().map(Ask::Set),
            "extend" => mins().map(Ask::Extend),
            "pause" => Ok(Ask::Pause),
            "resume" => Ok(Ask::Resume),
            "clear" => Ok(Ask::Clear),
            other => Err(format!(
                "`{other}` is not a deadline action: set, extend, pause, resume or clear"
            )),
        }
    }
}

impl Deadline {
    /// Forget a deadline of another phase.
    fn in_phase(&mut self, phase: &str) {
        if self.phase != phase {
            *self = Deadline {
                phase: phase.to_string(),
                clock: Clock::None,
            };
        }
    }

    /// Apply the umpire's ask at Unix time `now` in `phase`. Pausing or extending nothing, or
    /// resuming what is not paused, is refused with why.
    pub fn apply(&mut self, phase: &str, ask: Ask, now: i64) -> Result<(), String> {
        self.in_phase(phase);
        self.clock = match (ask, self.clock) {
            (Ask::Set(m), _) => Clock::Running { end: now + m * 60 },
            (Ask::Extend(m), Clock::Running { end }) => Clock::Running {
                end: end.max(now) + m * 60,
            },
            (Ask::Extend(m), Clock::Paused { left }) => Clock::Paused {
                left: left.max(0) + m * 60,
            },
            (Ask::Pause, Clock::Running { end }) => Clock::Paused { left: end - now },
            (Ask::Resume, Clock::Paused { left }) => Clock::Running {
                end: now + left.max(0),
            },
            (Ask::Clear, _) => Clock::None,
            (Ask::Extend(_) | Ask::Pause, Clock::None) => {
                return Err("this phase has no deadline; set one first".into());
            }
            (Ask::Pause, Clock::Paused { .. }) => {
                return Err("the deadline is already paused".into());
            }
            (Ask::Resume, _) => return Err("the deadline is not paused".into()),
        };
        Ok(())
    }

    /// The deadline of `phase` in words at Unix time `now`, if it has one.
    pub fn describe(&self, phase: &str, now: i64) -> Option<String> {
        if self.phase != phase {
            return None;
        }
        let mins = |s: i64| (s + 59) / 60;
        match self.clock {
            Clock::None => None,
            Clock::Running { end } if end > now => Some(format!(
                "deadline {} UTC ({} min left)",
                clock_time(end),
                mins(end - now)
            )),
            Clock::Running { end } => Some(format!("deadline passed at {} UTC", clock_time(end))),
            Clock::Paused { left } => {
                Some(format!("deadline paused ({} min left)", mins(left.max(0))))
            }
        }
    }
}

fn clock_time(unix: i64) -> String {
    let s = unix.rem_euclid(86_400);
    format!("{:02}:{:02}", s / 3600, s % 3600 / 60)
}

/// Unix time now (seconds). The web's wall clock; the engine never reads it.
#[allow(clippy::disallowed_methods)]
pub fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_pause_extend_resume_and_a_new_phase() {
        let mut d = Deadline::default();
        let t0 = 10 * 3600;
        d.apply("1/a/command", Ask::Set(10), t0).unwrap();
        assert_eq!(
            d.describe("1/a/command", t0).unwrap(),
            "deadline 10:10 UTC (10 min left)"
        );
        d.apply("1/a/command", Ask::Pause, t0 + 240).unwrap();
        assert_eq!(
            d.describe("1/a/command", t0 + 3000).unwrap(),
            "deadline paused (6 min left)"
        );
        d.apply("1/a/command", Ask::Extend(5), t0 + 3000).unwrap();
        d.apply("1/a/command", Ask::Resume, t0 + 3000).unwrap();
        assert_eq!(
            d.describe("1/a/command", t0 + 3000).unwrap(),
            "deadline 11:01 UTC (11 min left)"
        );
        assert_eq!(
            d.describe("1/a/command", t0 + 3000 + 660).unwrap(),
            "deadline passed at 11:01 UTC"
        );
        // The next phase starts without one, and pausing nothing says so.
        assert_eq!(d.describe("1/b/command", t0), None);
        assert!(d.apply("1/b/command", Ask::Pause, t0).is_err());
        assert!(Ask::parse("set", "0").is_err());
        assert_eq!(Ask::parse("extend", "15"), Ok(Ask::Extend(15)));
    }
}
