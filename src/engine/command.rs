//! Commands: what a player or the umpire asks the engine to do.
//!
//! Commands are recorded by the store and re-run on re-simulation, so their serialised form is
//! part of the replay contract. An order arrives here already typed (the order language parsed
//! and classified it), which keeps the engine free of parsing and makes re-simulation
//! independent of grammar changes.

use serde::{Deserialize, Serialize};

use crate::hex::Hex;
use crate::rules::{Method, OrderType, Posture};

/// An order as the order language understood it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypedOrder {
    pub text: String,
    pub readback: String,
    pub order_type: OrderType,
    /// Posture of each stage, in order (6.3.3).
    pub stages: Vec<Posture>,
    pub independent: bool,
    /// Canonical key for "the same order" (6.5.2, 6.6.1.5).
    pub key: String,
    /// A sub-unit transfer: the formation the recipient is to join (6.9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joins: Option<String>,
    /// Sub-units attached to the recipient ("with Beamont-I attached", 6.9).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attaches: Vec<String>,
}

/// Something a player or the umpire does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Command {
    /// Begin the game: place the scenario's forces and pre-set orders, open turn 1.
    Start {
        /// Pre-set orders, typed by the order language, by pre-set order id.
        presets: Vec<(String, TypedOrder)>,
        /// Scenario variants in play (ids from the scenario's `variants`).
        #[serde(default)]
        variants: Vec<String>,
    },
    /// The army commander sends an order (6.4).
    IssueOrder {
        side: String,
        /// Sending commander; the side's army commander.
        from: String,
        /// Recipient command (formation or unit id).
        to: String,
        method: Method,
        order: TypedOrder,
    },
    /// The army commander hands an order in person to the commander who relays it (Talavera
    /// T4.2b: Joseph to Jourdan); `to` is the order's final recipient.
    IssueRelayedOrder {
        side: String,
        from: String,
        via: String,
        to: String,
        /// In person, always (T4.2b); anything else is refused.
        method: Method,
        order: TypedOrder,
    },
    /// The relaying commander, stacked with the recipient, re-issues the order he accepted
    /// (T4.2b).
    DeliverRelayedOrder { order: u32 },
    /// Run the automatic steps up to the next one that needs a person (5.1).
    Advance,
    /// Roll for Initiative (6.6.1); `order` is written if it succeeds.
    RollInitiative {
        /// Commander making the roll.
        commander: String,
        /// Command (or sub-unit) the order is for.
        command: String,
        order: TypedOrder,
    },
    /// The opponent writes the one-turn order of a command that suffered a Loose Cannon (6.6.1.6).
    LooseCannonOrder { command: String, order: TypedOrder },
    /// Adopt Default Defense (6.6.2).
    DefaultDefense { command: String },
    /// Execute a voluntary Emergency Withdrawal (6.6.3).
    Withdraw { command: String },
    /// Move a commander, HQ (`hq:<formation>`) or unit to a hex: along `path` (the hexes
    /// entered, in order) if given, else the cheapest legal path (12). A unit may first change
    /// formation (8.2); with `to` its own hex, it only changes formation.
    Move {
        piece: String,
        to: Hex,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        path: Vec<Hex>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        formation: Option<crate::scenario::UnitFormation>,
        /// The hex corner to face at the end (10.1); turning in place when `to` is its hex.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        face: Option<crate::movement::facing::Corner>,
        /// Sets of three extra MP by Forced March (12.5.6: 0–2, a Morale Check each).
        #[serde(default, skip_serializing_if = "is_zero_u8")]
        forced_march: u8,
        /// Line Extensions to generate into these adjacent hexes (13.1.3), in place.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        extend: Vec<Hex>,
        /// Line Extensions in these hexes to remove (13.1.4), in place.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        retract: Vec<Hex>,
        /// Move the unit's Line Extension in this hex on its own, not the unit (13.1.1, 13.1.2).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        extension: Option<Hex>,
        /// Line Backstep (12.4.1): one hex in any direction, keeping its facing, for its whole
        /// Movement Allowance.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        backstep: bool,
        /// A retreat (21.4) away from this hex, the cause: hexes, not MP, in either player's
        /// turn, with the retreat's own checks and Morale Degradation (11.3.1, 21.4.4).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retreat_from: Option<Hex>,
        /// Asked by the side itself, which plans against what it sees (4.0, decision 0181): the
        /// path is found or checked without the enemy it does not see, then walked against
        /// the whole game, halting at the last legal hex before an unseen enemy stops it. The
        /// umpire's moves (false) plan with everything.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        as_seen: bool,
    },
    /// The command has finished the stage it was executing (6.3.3); after the last stage the
    /// order is complete and the command enters No Orders (6.3.4.1 case 5).
    StageComplete { command: String },
    /// Resolve a combat the phasing player starts (15, 16, 17): the first unit of each list
    /// leads (14.2).
    Combat {
        kind: CombatKind,
        attackers: Vec<String>,
        defenders: Vec<String>,
        /// Facts the scenario does not hold and the owners' decisions (skirmisher quality,
        /// Skirmishers absorbing casualties); absent in commands recorded before they existed.
        #[serde(default, skip_serializing_if = "CombatOptions::is_default")]
        options: CombatOptions,
    },
    /// An umpire override, recorded with its reason.
    Override {
        reason: String,
        action: OverrideAction,
    },
    /// A message between one side and the umpire (a Kriegsspiel table runs on them): `from` is
    /// the side's id or `umpire`. Seen by that side and the umpire only (4.0), never the other
    /// side; it changes nothing in the game.
    Message {
        side: String,
        from: String,
        text: String,
    },
    /// The umpire takes back the last commands, which no side could yet have seen (issue 17,
    /// decision 0124): recorded, replayed and verified like any command, never a delete. The
    /// application layer plays the record back to just before them (`restore`); the engine
    /// refuses if the record has moved on since (`at_events`).
    Retract {
        /// The retracted commands' sequence numbers in the record.
        commands: Vec<i64>,
        reason: String,
        /// The state before the first retracted command, as JSON text (a state's integer-keyed
        /// maps do not survive the record's canonical JSON as a nested value).
        restore: String,
        /// The number of events the state had when the retraction was planned.
        at_events: u64,
        /// What each retracted command did, in words (its first event's description), for the
        /// umpire.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        taken_back: Vec<String>,
    },
}

/// What an umpire override does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum OverrideAction {
    /// Mark a command wrecked or not (21.6).
    SetWrecked { command: String, wrecked: bool },
    /// Mark a command's original commander lost or restored (6.7, 25).
    SetCommanderLost { command: String, lost: bool },
    /// Put a piece on a hex (a courier, a commander, a unit), ignoring movement rules.
    Place { piece: String, to: Hex },
    /// Re-roll nothing but record the umpire's ruling, e.g. a reinterpretation of an order.
    Ruling { text: String },
    /// Discard an order (e.g. a courier captured).
    DiscardOrder { order: u32 },
    /// Force a command's status (e.g. No Orders after a ruling).
    SetStatus {
        command: String,
        status: super::state::CommandStatus,
    },
    /// Roll an order's acceptance again (6.5): the umpire sets aside a delay or a distortion,
    /// e.g. when the courier's garbling is ruled not to have happened.
    Reroll { order: u32 },
    /// Put an order in force for a command, accepted or in delay (a ruling, or setting up a
    /// situation as a scenario's pre-set orders do, 6.2.2).
    ImposeOrder {
        command: String,
        order: TypedOrder,
        status: ImposedStatus,
    },
    /// Set a unit's combat state: its Loss Chart (20.4), Morale State (21.1) and Blown status
    /// (22.2) — to correct a unit, or to set up a situation (a worked example's starting point).
    /// `None` leaves that part as it is. Wrecked status is set separately (`SetWrecked`).
    SetUnit {
        unit: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        losses: Option<LossMarks>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        morale: Option<crate::combat::MoraleState>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blown: Option<bool>,
    },
}

/// The marks on a unit's Loss Chart row (20.4): Permanent Casualties (X) and Stragglers (/);
/// for a battery, gun points lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LossMarks {
    pub permanent: u8,
    pub stragglers: u8,
}

impl LossMarks {
    /// Read `P (S)`, `P(S)` or `P` (the chart notation of 14.3 without a Morale Change).
    pub fn parse(text: &str) -> Option<LossMarks> {
        let t = text.trim();
        let (p, s) = match t.split_once('(') {
            Some((p, rest)) => (p.trim(), rest.trim().strip_suffix(')')?.trim()),
            None => (t, "0"),
        };
        Some(LossMarks {
            permanent: p.parse().ok()?,
            stragglers: s.parse().ok()?,
        })
    }
}

/// Status of an imposed order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImposedStatus {
    Accepted,
    D4,
    D5,
    D6,
}

/// What a combat needs besides its procedure: facts the scenario file does not hold and the
/// owning players' decisions about their losses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct CombatOptions {
    /// Quality of the attacking stack's Skirmishers (15.2.2 box: Skirmisher Disadvantage).
    /// Skirmisher fire uses `CombatKind::SkirmisherFire::quality` for its firers.
    #[serde(default)]
    pub attacker_quality: crate::combat::fire::SkirmisherQuality,
    /// Quality of the defending stack's Skirmishers (15.2.2 box; 18.3: their Fire Value is
    /// deducted from the firers').
    #[serde(default)]
    pub defender_quality: crate::combat::fire::SkirmisherQuality,
    /// Skirmishers that take their stack's even Permanent Casualties (20.2, 24.3): the owner's
    /// choice.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skirmisher_absorbs: Vec<SkirmisherAbsorbs>,
    /// The umpire's ruling on the attack's arc and a Line's flanks, replacing what the game
    /// reads from facing (10.0, decision 0140).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aspect: Option<super::aspect::AspectRuling>,
    /// The umpire lets a Close Combat's attackers enter the defender's hex across a hexside
    /// that is not frontal (12.1.1, 15.1.4), for this reason (decision 0151).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_ruling: Option<String>,
    /// A lone Skirmisher attacked in Close Combat in Hindering terrain: its player's choice to
    /// stand (`Some(true)`) or retreat before the combat (`Some(false)`) (15.1.7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skirmisher_stands: Option<bool>,
    /// The attacking unit fights from the hex of its Line Extension (13.1.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attacker_at: Option<Hex>,
    /// The defending unit is attacked in the hex of its Line Extension (13.1.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defender_at: Option<Hex>,
    /// Opportunity Fire (17.4) at the defender as it was in this hex of its path in the
    /// current Movement Phase, by the batteries whose zone holds it (decision 0167).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opportunity_at: Option<Hex>,
    /// The Opportunity Fire at `opportunity_at` answers the defender's formation change there
    /// (17.4 trigger 3), not its move.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub opportunity_formation: bool,
    /// The umpire lets this fire through 17.4.1 (once at a unit each phase, one firer per
    /// trigger), for this reason (decision 0154).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fire_ruling: Option<String>,
    /// A Reaction Charge (16.5) at the defender as it was in this hex of its path (or of its
    /// formation change, or of its retreat) in the current phase: one of the offered hexes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reaction_at: Option<Hex>,
    /// The umpire lets this Reaction Charge through 16.5.3 (one Reaction Charge per Cavalry
    /// Charge, none against a reaction triggered by cavalry, none into a charge's target hex),
    /// for this reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reaction_ruling: Option<String>,
    /// 17.4.6: the batteries that Opportunity Fire at the charge's target as it forms Square
    /// (17.4 trigger 3), the charge "momentarily interrupted": the fire is resolved first, and
    /// a target it Disorganizes does not form Square (decision 0194). With `form_square`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub square_fire: Vec<String>,
}

impl CombatOptions {
    pub fn is_default(&self) -> bool {
        *self == CombatOptions::default()
    }
}

/// A Skirmisher of a stack that takes the stack's even Permanent Casualties (20.2: the 2nd,
/// 4th, …), at most `at_most` of them, never more than it has steps left.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkirmisherAbsorbs {
    pub unit: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_most: Option<u8>,
}

/// Which combat procedure, with the decisions the rules give the players.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "procedure", rename_all = "kebab-case")]
pub enum CombatKind {
    /// Close Combat (15); `fortified` when the defender is behind fortified terrain or a
    /// fortified hexside (15.2.1).
    CloseCombat { fortified: bool },
    /// A cavalry charge (16): does the target form Square (16.2.1), how many Follow-on Charges
    /// against the same target (16.2.7.2), is it a Reaction Charge (16.5).
    Charge {
        form_square: bool,
        follow_ons: u8,
        /// A Reaction Charge (16.5): allowed in No Orders Status, no Follow-ons.
        #[serde(default)]
        reaction: bool,
        /// A Follow-on Charge against a new target (16.2.7.3).
        #[serde(default)]
        follow_on: bool,
        /// Nobody said whether the target forms Square (16.2.1): refused while it may.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        square_undecided: bool,
    },
    /// Skirmisher fire (18) by the attacking skirmishers at the defending stack.
    SkirmisherFire {
        quality: crate::combat::fire::SkirmisherQuality,
    },
    /// Artillery fire (17); `cannister` for Opportunity Fire at units entering the hex (17.4.9).
    ArtilleryFire { cannister: bool },
}

fn is_zero_u8(n: &u8) -> bool {
    *n == 0
}
