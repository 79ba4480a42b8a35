//! Combat resolution for NBS v3.0 (rules 7, 14–27): close combat, cavalry charges, artillery
//! and skirmisher fire, village fighting, losses, morale, wrecked brigades and divisions,
//! commander loss — plus exact odds by enumerating every die.
//!
//! Owns: the combat tables as data ([`tables`], `tables/nbs-3.0/combat.toml`, a provenance on
//! every cell), the pure resolvers ([`close`], [`charge`], [`fire`], [`morale`]) and exact
//! odds ([`odds`]).
//!
//! Must not: do IO (other than parsing a table text handed in), read a clock, use floating
//! point, iterate hash containers, print, or hold game state. Every die comes through
//! `&mut dyn Dice` and is returned in the result. Decisions a player makes (which unit leads,
//! form square, follow on) are explicit input fields; movement (where a retreat goes) is not
//! done here — a result states the retreat requirement as data.

pub mod charge;
pub mod close;
pub mod fire;
pub mod morale;
pub mod odds;
pub mod tables;

use serde::{Deserialize, Serialize};

use crate::rules::dice::{DiceExhausted, Die};
pub use crate::units::{MoraleRating, Strength, UnitFormation, UnitKind};
pub use tables::{CellRef, CombatTables, TableError};

/// Strength level of a stack for size comparison (7.1, 7.4), in units of C:
/// C=1, B=2, A=4, AB=6, AA=8, AAB=10, AAA=12. The scenario model's [`Strength`] has no AB or
/// AAB; combat needs them (the Charge Successful column "AB–A").
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
pub enum Size {
    #[default]
    C,
    B,
    A,
    AB,
    AA,
    AAB,
    AAA,
}

impl Size {
    pub const ALL: [Size; 7] = [
        Size::C,
        Size::B,
        Size::A,
        Size::AB,
        Size::AA,
        Size::AAB,
        Size::AAA,
    ];

    /// Size in units of C (7.1.1: A = 2B = 4C).
    pub fn units(self) -> u8 {
        match self {
            Size::C => 1,
            Size::B => 2,
            Size::A => 4,
            Size::AB => 6,
            Size::AA => 8,
            Size::AAB => 10,
            Size::AAA => 12,
        }
    }

    /// The largest defined level not above `units` (7.1.1: B + C = B). 0 gives C.
    pub fn from_units(units: u32) -> Size {
        Size::ALL
            .iter()
            .rev()
            .copied()
            .find(|s| u32::from(s.units()) <= units)
            .unwrap_or(Size::C)
    }

    /// Total size of a stack (7.1.1): sum the levels, floor to a defined level.
    pub fn stack(sizes: &[Size]) -> Size {
        Size::from_units(sizes.iter().map(|s| u32::from(s.units())).sum())
    }

    /// AA or bigger (15.3.4 and the "Size AA+" modifiers).
    pub fn is_aa_plus(self) -> bool {
        self >= Size::AA
    }

    /// B or C (15.3.6 halving).
    pub fn is_b_or_c(self) -> bool {
        self <= Size::B
    }

    /// `self` is at least twice the size of `other` (7.4; chart "Opponent stack twice the size").
    pub fn at_least_twice(self, other: Size) -> bool {
        self.units() >= 2 * other.units()
    }

    pub fn parse(s: &str) -> Option<Size> {
        Some(match s.trim().to_ascii_uppercase().as_str() {
            "C" => Size::C,
            "B" => Size::B,
            "A" => Size::A,
            "AB" => Size::AB,
            "AA" => Size::AA,
            "AAB" => Size::AAB,
            "AAA" => Size::AAA,
            _ => return None,
        })
    }
}

impl From<Strength> for Size {
    fn from(s: Strength) -> Size {
        match s {
            Strength::C => Size::C,
            Strength::B => Size::B,
            Strength::A => Size::A,
            Strength::AA => Size::AA,
            Strength::AAA => Size::AAA,
        }
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

/// Morale states (21.1), worst first so that `Ord` means "better".
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "kebab-case")]
pub enum MoraleState {
    Routed,
    Disorganized,
    Shaken,
    #[default]
    Normal,
    BloodLust,
}

impl MoraleState {
    const ORDER: [MoraleState; 5] = [
        MoraleState::Routed,
        MoraleState::Disorganized,
        MoraleState::Shaken,
        MoraleState::Normal,
        MoraleState::BloodLust,
    ];

    /// Apply a Morale Change M±n, capped at Routed and Blood Lust (21.3.1).
    pub fn shift(self, change: i8) -> MoraleState {
        let i = (self as i16 + i16::from(change)).clamp(0, 4);
        Self::ORDER[i as usize]
    }

    pub fn short(self) -> &'static str {
        match self {
            MoraleState::Routed => "R",
            MoraleState::Disorganized => "DG",
            MoraleState::Shaken => "Sh",
            MoraleState::Normal => "Normal",
            MoraleState::BloodLust => "BL",
        }
    }
}

/// Index of a morale rating into the A..E columns.
pub fn morale_index(m: MoraleRating) -> usize {
    match m {
        MoraleRating::A => 0,
        MoraleRating::B => 1,
        MoraleRating::C => 2,
        MoraleRating::D => 3,
        MoraleRating::E => 4,
    }
}

/// Column label of a morale rating.
pub fn morale_label(m: MoraleRating) -> &'static str {
    ["A", "B", "C", "D", "E"][morale_index(m)]
}

/// Parse a morale rating letter.
pub fn parse_morale(s: &str) -> Option<MoraleRating> {
    Some(match s.trim().to_ascii_uppercase().as_str() {
        "A" => MoraleRating::A,
        "B" => MoraleRating::B,
        "C" => MoraleRating::C,
        "D" => MoraleRating::D,
        "E" => MoraleRating::E,
        _ => return None,
    })
}

/// A combat table result as printed (14.3): Permanent Casualties, (Stragglers), Morale Change.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
pub struct Loss {
    pub permanent: u8,
    pub stragglers: u8,
    pub morale_change: i8,
}

impl Loss {
    pub const NONE: Loss = Loss {
        permanent: 0,
        stragglers: 0,
        morale_change: 0,
    };

    pub fn new(permanent: u8, stragglers: u8, morale_change: i8) -> Loss {
        Loss {
            permanent,
            stragglers,
            morale_change,
        }
    }

    /// P + S.
    pub fn total(self) -> u8 {
        self.permanent.saturating_add(self.stragglers)
    }

    /// Any P or S (triggers a Commander Loss Check, 20.1.1).
    pub fn has_casualties(self) -> bool {
        self.total() > 0
    }

    /// Sum two results (Cannister, Grand Batteries add losses).
    pub fn plus(self, o: Loss) -> Loss {
        Loss {
            permanent: self.permanent.saturating_add(o.permanent),
            stragglers: self.stragglers.saturating_add(o.stragglers),
            morale_change: self.morale_change.saturating_add(o.morale_change),
        }
    }
}

impl std::fmt::Display for Loss {
    /// The chart notation: `1(3)M-1`, `0`, `M-1`, `2`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = self.morale_change;
        if self.permanent == 0 && self.stragglers == 0 && m != 0 {
            return write!(f, "M{m:+}");
        }
        write!(f, "{}", self.permanent)?;
        if self.stragglers > 0 {
            write!(f, "({})", self.stragglers)?;
        }
        if m != 0 {
            write!(f, "M{m:+}")?;
        }
        Ok(())
    }
}

/// A Commander present in a stack, for Commander Advantage, Blood Lust, morale checks and the
/// Commander Loss Check (25).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommanderIn {
    /// Scenario id, echoed in the loss check.
    pub id: String,
    /// Printed Command Rating 0..=4.
    pub rating: u8,
    /// An "F" Fighter: +2 (max 4) for combat and morale purposes (25.5, chart p6).
    #[serde(default)]
    pub fighter: bool,
}

impl CommanderIn {
    pub fn new(id: impl Into<String>, rating: u8, fighter: bool) -> Self {
        CommanderIn {
            id: id.into(),
            rating,
            fighter,
        }
    }

    /// Rating for combat and morale purposes: Fighters +2, never above 4 (25.5).
    pub fn combat_rating(&self) -> u8 {
        if self.fighter {
            (self.rating + 2).min(4)
        } else {
            self.rating.min(4)
        }
    }
}

/// Best combat rating among commanders, if any.
pub fn best_rating(cmds: &[CommanderIn]) -> Option<u8> {
    cmds.iter().map(CommanderIn::combat_rating).max()
}

/// The outcome of one Commander Loss Check (20.1.1, 25.4): 2d6, lost on 11 or 12.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommanderLossCheck {
    pub commander: String,
    pub roll: u8,
    pub lost: bool,
}

/// A brigade's Loss Chart row (20.4, 21.6) as far as combat needs it. The charts are not in the
/// seed; `wreck_at` comes from the scenario or from the configurable assumption in the tables
/// (`[wrecked]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct LossTrack {
    /// Boxes at full strength.
    pub boxes: u8,
    /// Boxes marked X (Permanent Casualties).
    pub permanent: u8,
    /// Boxes marked / (Stragglers).
    pub stragglers: u8,
    /// The brigade is Wrecked once P + S reach this (boxes left of the "Wrecked" mark).
    pub wreck_at: u8,
}

impl LossTrack {
    pub fn remaining(&self) -> u8 {
        self.boxes
            .saturating_sub(self.permanent.saturating_add(self.stragglers))
    }
    pub fn wrecked_by_losses(&self) -> bool {
        self.wreck_at > 0 && self.permanent.saturating_add(self.stragglers) >= self.wreck_at
    }
    /// "Permanently wrecked": wrecked by Permanent Casualties alone (DERIVED, 8.2 item 19).
    pub fn wrecked_by_permanent(&self) -> bool {
        self.wreck_at > 0 && self.permanent >= self.wreck_at
    }
}

/// A division's Wrecked boxes (21.6.2, 21.6.4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct DivisionTrack {
    pub id: String,
    /// Brigades now in the division (after detachments/attachments, 21.6.4).
    pub brigades: u8,
    /// Brigades now Wrecked.
    pub wrecked_brigades: u8,
    /// Wrecked brigades needed to wreck the division; `None` uses the tables' assumption.
    #[serde(default)]
    pub wreck_at: Option<u8>,
}

/// What the loser must do after combat, as data (movement belongs to the engine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Retreat {
    #[default]
    None,
    /// 15.3.8: one hex. An attacker goes back into the hex it came from; a defender not to or
    /// adjacent to that hex. 15.4.8 if the origin hex is now enemy-occupied.
    OneHex,
    /// 21.4: Routed — six hexes away from the nearest enemy, ignoring Command Range.
    Rout,
    /// 16.2.8, 16.4.3, 22.1: cavalry retreats 6–12 hexes (owner's choice; 6 if Routed).
    Cavalry { min: u8, max: u8 },
    /// v3.0 errata 15.4.8: the attacker's origin hex is now enemy-occupied — infantry and
    /// artillery displace into an adjacent hex free of enemy units (owner's choice);
    /// Skirmishers retreat as in 15.1.7.
    Displace,
}

/// Wreck and commander bookkeeping for one side after its losses were applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Aftermath {
    /// The brigade's loss track after this combat (if one was given).
    pub track: Option<LossTrack>,
    /// The lead brigade is Wrecked now (by losses, or while Routed, 21.6.1).
    pub brigade_wrecked: bool,
    /// It became Wrecked in this combat (takes the extra M-1, 21.3.2).
    pub brigade_became_wrecked: bool,
    /// Division id and whether it became Wrecked now (21.6.2).
    pub division_wrecked: bool,
    pub division_became_wrecked: bool,
    /// Commander Loss Checks rolled for this side (20.1.1, 25.4).
    pub commander_checks: Vec<CommanderLossCheck>,
    /// Ids of commanders lost (each costs the stack M-1, 25.4).
    pub commanders_lost: Vec<String>,
    /// Gun points lost on the Gun Loss Table (23.1.1), `Some(255)` = all.
    pub gun_loss: Option<GunLoss>,
    /// Permanent Casualties a Skirmisher of the stack took instead of the Lead Unit (20.2);
    /// they are not in `track`.
    #[serde(default)]
    pub skirmisher_absorbed: u8,
}

/// A Gun Loss Table result (23.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "gp")]
pub enum GunLoss {
    Points(u8),
    All,
}

/// One side's result: the table line, the loss after adjustments, the morale states and what
/// follows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SideResult {
    /// Die for the loss table, unmodified, if rolled.
    pub loss_roll: Option<u8>,
    /// Modifier applied to the loss roll (after its cap).
    pub loss_modifier: i8,
    /// The cell read, as printed.
    pub table_result: Option<Loss>,
    /// After every adjustment (15.3.1–15.3.7, 17.1.7 …): what the engine applies.
    pub loss: Loss,
    /// Blood Lust replaced the printed Morale Change (21.3.3).
    pub blood_lust: bool,
    pub morale_before: MoraleState,
    pub morale_after: MoraleState,
    pub retreat: Retreat,
    /// Cavalry becomes Blown (16.2.8, 16.4.3, 22.2).
    pub blown: bool,
    pub aftermath: Aftermath,
    /// Adjustments applied, with rule numbers, for read-back.
    pub notes: Vec<String>,
}

/// Errors from combat resolution. Each names the input that triggers it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CombatError {
    /// A scripted or exhausted dice source could not give a die.
    #[error(transparent)]
    Dice(#[from] DiceExhausted),
    /// The attacker may not start this combat (e.g. cavalry or artillery attacking in Close
    /// Combat, 15.1; a Routed, Blown, Wrecked or Shaken cavalry stack charging, 16.1.1; a
    /// charge at night, 27.1.3). The text says which rule.
    #[error("illegal attack: {0}")]
    Illegal(String),
    /// An input field is out of range (gun points 0 or over 5, range 0 or over 9, …).
    #[error("invalid input {field}: {reason}")]
    Invalid { field: String, reason: String },
    /// A table lookup failed (a user override table missing a row/column).
    #[error(transparent)]
    Table(#[from] TableError),
}

/// Every die rolled, in order, plus the non-seed table cells used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Trace {
    pub dice: Vec<Die>,
    /// Table cells read whose provenance is not `seed` (a game records them).
    pub cells: Vec<CellRef>,
}

/// How many of `permanent` casualties a Skirmisher in the stack may absorb: only the even
/// ones, the 2nd, 4th, … (20.2, 24.3). Which are taken is the owner's decision.
pub fn skirmisher_may_absorb(permanent: u8) -> u8 {
    permanent / 2
}

/// Halve a loss figure for B/C stacks: round down, never below 1 unless it was 0 (15.3.6).
pub(crate) fn halve(n: u8) -> u8 {
    if n == 0 { 0 } else { (n / 2).max(1) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_compare_by_level_7_4() {
        assert_eq!(Size::stack(&[Size::B, Size::C]), Size::B);
        assert_eq!(Size::stack(&[Size::B, Size::B]), Size::A);
        assert_eq!(Size::stack(&[Size::A, Size::B]), Size::AB);
        assert!(Size::B.at_least_twice(Size::C));
        assert!(Size::A.at_least_twice(Size::B));
        assert!(Size::AA.at_least_twice(Size::A));
        assert!(!Size::AB.at_least_twice(Size::A));
        assert!(Size::AAA.at_least_twice(Size::AB));
        assert!(!Size::AAB.at_least_twice(Size::AB));
    }

    #[test]
    fn morale_shift_caps_21_3_1() {
        assert_eq!(MoraleState::Normal.shift(-5), MoraleState::Routed);
        assert_eq!(MoraleState::Shaken.shift(2), MoraleState::BloodLust);
        assert_eq!(MoraleState::BloodLust.shift(1), MoraleState::BloodLust);
    }

    #[test]
    fn loss_notation_14_3() {
        assert_eq!(Loss::new(1, 3, -1).to_string(), "1(3)M-1");
        assert_eq!(Loss::new(0, 0, -1).to_string(), "M-1");
        assert_eq!(Loss::new(0, 1, 1).to_string(), "0(1)M+1");
        assert_eq!(Loss::NONE.to_string(), "0");
    }

    #[test]
    fn halving_15_3_6_example() {
        // "A B-sized unit suffers a 1(3) result … 1(1)".
        assert_eq!((halve(1), halve(3)), (1, 1));
        assert_eq!(halve(0), 0);
    }

    /// 20.2 sidebar: a Skirmisher and an infantry unit suffer 3 P: all to the infantry, or 1
    /// (the 2nd) to the Skirmisher and the rest to the infantry.
    #[test]
    fn worked_example_20_2_skirmisher_absorbs_even_casualties() {
        assert_eq!(skirmisher_may_absorb(3), 1);
        assert_eq!(skirmisher_may_absorb(1), 0);
        assert_eq!(skirmisher_may_absorb(4), 2);
    }

    #[test]
    fn fighter_rating_25_5() {
        assert_eq!(CommanderIn::new("x", 3, true).combat_rating(), 4);
        assert_eq!(CommanderIn::new("x", 1, true).combat_rating(), 3);
        assert_eq!(CommanderIn::new("x", 1, false).combat_rating(), 1);
    }
}

/// Which side of a combat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    Attacker,
    Defender,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Attacker => Side::Defender,
            Side::Defender => Side::Attacker,
        }
    }
}

/// What else is in a stack besides its Lead Unit (7.4, 15.4.3, 15.4.4, 20.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct StackMix {
    pub infantry: bool,
    pub cavalry: bool,
    pub artillery: bool,
    /// Every artillery unit in the stack is Horse Artillery (Gun Loss Table −1).
    pub all_artillery_horse: bool,
    pub skirmishers: bool,
}

/// One side of a combat: its Lead Unit (14.2) and the stack facts the modifiers need. The
/// caller chooses the Lead Unit (a player decision) and fills this in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Combatant {
    /// The Lead Unit's kind.
    pub kind: UnitKind,
    /// Whole-stack size (7.4). Stacks of only artillery and/or skirmishers count as C anyway.
    pub size: Size,
    /// The Lead Unit's Morale Rating.
    pub morale_rating: MoraleRating,
    /// The stack's Morale State (21.1).
    #[serde(default)]
    pub morale_state: MoraleState,
    /// The Lead Unit's formation (Limbered/Unlimbered for artillery).
    #[serde(default)]
    pub formation: UnitFormation,
    /// The Lead Unit's brigade is Wrecked (21.6).
    #[serde(default)]
    pub wrecked: bool,
    /// What the stack holds (the lead's own kind is added automatically).
    #[serde(default)]
    pub stack: StackMix,
    /// Sum of the stack's Skirmisher Fire Values in halves, DG ones counting 0 (15.2.2 box).
    #[serde(default)]
    pub skirmisher_fv_halves: u8,
    /// A full (not reduced) Skirmisher, when the Lead Unit is one (15.4.4.1 size).
    #[serde(default)]
    pub skirmisher_full: bool,
    #[serde(default)]
    pub commanders: Vec<CommanderIn>,
    /// Attacked through its rear (chart p4/p5 −2).
    #[serde(default)]
    pub attacked_in_rear: bool,
    /// The Lead Unit has or is a Line Extension (15.4.5: a Square becomes Line, not Column).
    #[serde(default)]
    pub line_extension: bool,
    /// Both flank hexes hold friendly infantry in Line or Hindering terrain (chart p4 note 1).
    #[serde(default)]
    pub line_flanks_secure: bool,
    /// Cavalry that is neither moving nor charging (16.4 box).
    #[serde(default)]
    pub stationary: bool,
    /// Cavalry is Blown (22.2).
    #[serde(default)]
    pub blown: bool,
    /// The Lead Unit's brigade Loss Chart row, if the engine tracks it (21.6 wreck checks).
    #[serde(default)]
    pub track: Option<LossTrack>,
    /// The brigade's division, for division wreck checks (21.6.2).
    #[serde(default)]
    pub division: Option<DivisionTrack>,
    /// At most this many of the stack's Permanent Casualties go to a Skirmisher in the stack
    /// instead of the Lead Unit — only even ones, the 2nd, 4th, … of each result (20.2, 24.3).
    /// The owner's decision; the engine caps it at the Skirmisher's steps left.
    #[serde(default)]
    pub skirmisher_absorbs: u8,
}

impl Combatant {
    /// A stack whose Lead Unit is `kind`, everything else default (Normal, Line/Unlimbered).
    pub fn new(kind: UnitKind, size: Size, morale_rating: MoraleRating) -> Self {
        let formation = if kind.is_artillery() {
            UnitFormation::Unlimbered
        } else if kind == UnitKind::Skirmisher {
            UnitFormation::Skirmish
        } else if kind.is_cavalry() {
            UnitFormation::Ready
        } else {
            UnitFormation::Line
        };
        Combatant {
            kind,
            size,
            morale_rating,
            morale_state: MoraleState::Normal,
            formation,
            wrecked: false,
            stack: StackMix::default(),
            skirmisher_fv_halves: 0,
            skirmisher_full: true,
            commanders: Vec::new(),
            attacked_in_rear: false,
            line_extension: false,
            line_flanks_secure: false,
            stationary: false,
            blown: false,
            track: None,
            division: None,
            skirmisher_absorbs: 0,
        }
    }

    /// The stack mix with the Lead Unit included.
    pub fn mix(&self) -> StackMix {
        let mut m = self.stack;
        m.infantry |= self.kind.is_infantry();
        m.cavalry |= self.kind.is_cavalry();
        m.artillery |= self.kind.is_artillery();
        m.skirmishers |= self.kind == UnitKind::Skirmisher;
        if self.kind.is_artillery() && !self.stack.artillery {
            m.all_artillery_horse = matches!(
                self.kind,
                UnitKind::ArtilleryLightHorse | UnitKind::ArtilleryHeavyHorse
            );
        }
        m
    }

    /// Only artillery and/or Skirmishers (7.4: size C; chart −2 unless Fortified).
    pub fn only_artillery_or_skirmishers(&self) -> bool {
        let m = self.mix();
        !m.infantry && !m.cavalry && (m.artillery || m.skirmishers)
    }

    /// Size for comparisons (7.4).
    pub fn effective_size(&self) -> Size {
        if self.only_artillery_or_skirmishers() {
            Size::C
        } else {
            self.size
        }
    }

    pub fn lone_skirmisher(&self) -> bool {
        let m = self.mix();
        self.kind == UnitKind::Skirmisher && !m.infantry && !m.cavalry && !m.artillery
    }

    pub fn lone_artillery(&self) -> bool {
        let m = self.mix();
        self.kind.is_artillery() && !m.infantry && !m.cavalry && !m.skirmishers
    }

    /// Column or March Column for the "In Column" loss modifiers.
    pub fn in_column(&self) -> bool {
        matches!(
            self.formation,
            UnitFormation::Column | UnitFormation::MarchColumn
        )
    }

    pub fn routed(&self) -> bool {
        self.morale_state == MoraleState::Routed || self.formation == UnitFormation::Routed
    }

    /// Wrecked now: flagged, by its loss track, or Routed (21.6.1).
    pub fn is_wrecked(&self) -> bool {
        self.wrecked || self.routed() || self.track.is_some_and(|t| t.wrecked_by_losses())
    }
}
