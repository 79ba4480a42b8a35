//! Game state: the fold of all events (`state = fold(evolve, events)`).
//!
//! Every map is a `BTreeMap` so iteration order, serialisation and hashes are deterministic.
//! Owns the shape of the state and read-only queries over it; changes happen only in
//! `evolve.rs`.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::hex::Hex;
use crate::rules::dice::Purpose;
use crate::rules::{Method, OrderType, Posture};

/// Where the game is in the sequence of play (5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    /// The Order Issue and Local Initiative segments of the phasing player's Command Phase
    /// (6.4, 6.6): orders, initiative rolls, Default Defense and Emergency Withdrawal declarations.
    Command,
    /// Fire, Movement, Close Combat and Rally phases (5.1 steps 2–6): moves, combats, reinforcements.
    Operations,
    /// The last turn has been played.
    GameOver,
}

/// A command's order status (6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommandStatus {
    /// No Orders Status (6.3.4).
    NoOrders,
    /// Executing an accepted order (`current_order`).
    Ordered,
    /// Default Defense: defend in place, hub frozen (6.6.2).
    DefaultDefense,
    /// Executing an Emergency Withdrawal this turn (6.6.3); No Orders afterwards.
    Withdrawing,
    /// Executing the opponent's one-turn Loose Cannon order (6.6.1.6); No Orders afterwards.
    LooseCannon,
}

/// Where an order came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OrderOrigin {
    /// Sent by the army commander (aide or in person, 6.4).
    Sent,
    /// Written after a successful Initiative roll (6.6.1.4).
    Initiative,
    /// Written by the opponent after a Loose Cannon (6.6.1.6).
    LooseCannon,
    /// A scenario pre-set order (6.2.2).
    Preset,
    /// Imposed by a scenario rule (Talavera 5.4b: Cuesta's divisions act on their own).
    Imposed,
}

/// Life of an order (6.4–6.6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "state")]
pub enum OrderStatus {
    /// Riding with an aide; arrives on `arrival_turn`.
    InTransit,
    /// Arrived, waiting for the New Order Acceptance segment (initiative orders wait here too).
    Arrived,
    /// Delayed: `needs` or more on one die each turn to accept (6.5.2).
    Delayed { needs: u8 },
    /// Accepted, but a corps order waits for its commander to reach the HQ (6.5.1).
    AwaitingCommander,
    /// Accepted and implemented: the command executes it (6.2.1).
    Accepted,
    /// Distorted or lost (6.5.3).
    Distorted,
    /// Discarded by a later event (arrival of another order, initiative, DD, EW, …).
    Discarded { reason: String },
    /// Replaced by a later accepted order, or completed.
    Superseded,
    /// Accepted by the commander who relays it (Talavera T4.2b: Jourdan), who has still to
    /// carry it to its recipient and re-issue it.
    WithRelay,
}

impl OrderStatus {
    /// The status as a short kebab-case label (`in-transit`, `delayed D5`, `discarded`), as the
    /// Order Log and the conformance cases write it.
    pub fn label(&self) -> String {
        match self {
            OrderStatus::InTransit => "in-transit".into(),
            OrderStatus::Arrived => "arrived".into(),
            OrderStatus::Delayed { needs } => format!("delayed D{needs}"),
            OrderStatus::AwaitingCommander => "awaiting-commander".into(),
            OrderStatus::Accepted => "accepted".into(),
            OrderStatus::Distorted => "distorted".into(),
            OrderStatus::Discarded { .. } => "discarded".into(),
            OrderStatus::Superseded => "superseded".into(),
            OrderStatus::WithRelay => "with-relay".into(),
        }
    }

    /// Still pending (could yet be accepted).
    pub fn is_pending(&self) -> bool {
        matches!(
            self,
            OrderStatus::InTransit
                | OrderStatus::Arrived
                | OrderStatus::Delayed { .. }
                | OrderStatus::WithRelay
        )
    }
}

/// One entry of the Order Log (6.4.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderRecord {
    /// Order number, 1-based across the game.
    pub number: u32,
    pub side: String,
    /// Commander id of the writer (the army commander, or the commander who took the initiative).
    pub sender: String,
    /// Command (formation or unit id) the order is for.
    pub recipient: String,
    pub text: String,
    pub readback: String,
    /// Delivery method; `None` for initiative, loose cannon and pre-set orders.
    pub method: Option<Method>,
    pub order_type: OrderType,
    /// Posture of each stage, in order (6.3.3).
    pub stages: Vec<Posture>,
    /// The order grants Independent Orders (6.8).
    pub independent: bool,
    /// Canonical key for "the same order" (6.5.2, 6.6.1.5).
    pub key: String,
    /// A sub-unit transfer: the formation the recipient is to join (6.9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joins: Option<String>,
    /// Sub-units attached to the recipient by the order ("with Beamont-I attached", 6.9).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attaches: Vec<String>,
    /// Command points paid (6.4.1).
    pub cost: u8,
    pub sent_turn: u32,
    pub arrival_turn: u32,
    pub origin: OrderOrigin,
    pub status: OrderStatus,
    /// Turn the status last changed.
    pub status_turn: u32,
    /// Talavera T2.4: an order borrowing a Spanish division; Cuesta rolls as well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<Release>,
    /// Talavera T4.2b: the commander who relays the order (accepts it, carries it, re-issues it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay: Option<Relay>,
}

/// The second acceptance roll of a borrowing order (Talavera T2.4): the corps commander's,
/// "as if the order were sent to him as well".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Release {
    /// The corps the division is borrowed from.
    pub corps: String,
    /// How the corps commander counts the order: in person when the sender stood with him.
    pub method: Method,
}

/// A relayed order (Talavera T4.2b).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Relay {
    /// The relaying commander (`jourdan`).
    pub by: String,
    /// Re-issued to the recipient: the acceptance roll is now the recipient's, with the
    /// relaying commander's rating as the sender's.
    pub delivered: bool,
}

/// Where a borrowed division stands (Talavera T2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Loan {
    /// On loan to the army commander: his orders need no release roll.
    Borrowed,
    /// Returned wrecked: its borrowing still counts against later ones.
    ReturnedWrecked,
    /// The corps commander threw an order away: the army commander may never order it again.
    Barred,
}

/// How an order travels: everything in its log entry that the order text does not give.
pub struct Routing {
    pub side: String,
    pub sender: String,
    pub recipient: String,
    pub method: Option<Method>,
    pub cost: u8,
    pub sent_turn: u32,
    pub arrival_turn: u32,
    pub origin: OrderOrigin,
    pub status: OrderStatus,
}

impl OrderRecord {
    /// A log entry for a typed order.
    pub fn new(number: u32, order: &super::command::TypedOrder, r: Routing) -> Self {
        OrderRecord {
            number,
            side: r.side,
            sender: r.sender,
            recipient: r.recipient,
            text: order.text.clone(),
            readback: order.readback.clone(),
            method: r.method,
            order_type: order.order_type,
            stages: order.stages.clone(),
            independent: order.independent,
            key: order.key.clone(),
            joins: order.joins.clone(),
            attaches: order.attaches.clone(),
            cost: r.cost,
            sent_turn: r.sent_turn,
            arrival_turn: r.arrival_turn,
            origin: r.origin,
            status_turn: r.sent_turn,
            status: r.status,
            release: None,
            relay: None,
        }
    }
}

/// State of one command (corps, division or brigade that acts on its own orders, 6.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandState {
    pub side: String,
    /// The formation this command belongs to in the order of battle.
    pub parent: Option<String>,
    /// A sub-unit that has no orders of its own and acts on its parent's (6.1); cleared when it
    /// gets orders of its own or uses local initiative.
    pub follows_parent: bool,
    pub status: CommandStatus,
    /// The accepted, implemented order being executed.
    pub current_order: Option<u32>,
    /// Index of the stage being executed (6.3.3).
    pub stage: usize,
    /// A distorted order not yet discovered: no new order may be sent (6.5.3).
    pub distortion_unnoticed: bool,
    /// On Independent Orders (6.8).
    pub independent: bool,
    /// Wrecked (21.6): counted by attack stoppage (6.7).
    pub wrecked: bool,
    /// The original commander is lost (6.7: counts as one more wrecked sub-unit).
    pub commander_lost: bool,
    /// Turn of the last local initiative of any kind (6.6: one per command per turn).
    pub local_initiative_turn: Option<u32>,
    /// Turn of the last Initiative roll made for this command (6.6.1.2).
    pub initiative_roll_turn: Option<u32>,
    /// Withdrawal or loose cannon ends after this turn's operations, then No Orders.
    pub one_turn_until: Option<u32>,
    /// Its HQ was overrun: an Emergency Withdrawal is forced in its next Command Phase (6.10.2).
    #[serde(default)]
    pub overrun: bool,
    /// An army whose HQ was overrun in this hex: the HQ must withdraw at least 6 hexes from it
    /// (6.10.2); cleared when the HQ moves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hq_withdraw_from: Option<crate::hex::Hex>,
    /// The command's original commander was lost at some time in the game. A corps counts him
    /// as one more wrecked sub-unit for the rest of the game (6.9 box "Sub-Unit Definitions");
    /// `commander_lost` is the division's "for that order only".
    #[serde(default)]
    pub original_commander_lost: bool,
    /// A temporary division that has ceased to exist (Vimeiro V2.3).
    #[serde(default)]
    pub dissolved: bool,
    /// Borrowed from its corps by the army commander (Talavera T2.4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loan: Option<Loan>,
}

/// A unit's combat state: its loss chart (20.4), morale state (21) and whether it is Blown (22).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct UnitState {
    pub track: crate::combat::LossTrack,
    pub morale: crate::combat::MoraleState,
    pub blown: bool,
    /// The turn it last fought or was fired on (no straggler recovery then, chart p6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_combat_turn: Option<u32>,
    /// The `<n>` of a pre-scenario loss entry (Talavera 7.1, `P (S) <n>`), undefined in the
    /// seed and read as skirmisher losses (decision 0025). Recorded and shown; no rule uses it
    /// yet, because the combat model has no skirmisher boxes on a brigade's chart.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skirmisher_losses: u8,
}

/// Movement Points and hexes a unit has spent in one Movement Phase (12.1.4: they are not
/// saved for later, so a new phase starts from nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PhaseMove {
    pub turn: u32,
    pub player: usize,
    /// Half-points spent.
    pub halves: u32,
    /// Hexes entered.
    pub hexes: u32,
    /// It became Disorganized while moving in this phase and lost half its remaining MP for it
    /// (12.1.2), so its allowance is not halved again (21.1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dg_halved: bool,
    /// It initiated a Close Combat into this hex in this phase, which ends its movement (15.1.5)
    /// but for advancing into that hex after winning (and on from it, 19.5.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attacked: Option<crate::hex::Hex>,
}

impl PhaseMove {
    /// The spending `last` records if it is of the phase of `turn` and `player`, else nothing
    /// spent yet (12.1.4: a new phase starts from nothing).
    pub fn in_phase(last: Option<PhaseMove>, turn: u32, player: usize) -> PhaseMove {
        match last {
            Some(m) if m.turn == turn && m.player == player => m,
            _ => PhaseMove {
                turn,
                player,
                ..PhaseMove::default()
            },
        }
    }
}

/// A unit's movement bookkeeping (8, 12), apart from its combat state so that a unit without a
/// loss chart (a train, a Skirmisher) gains no combat state by moving.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct UnitMovement {
    /// Its tactical formation now (8), once it has changed from the scenario's set-up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formation: Option<crate::scenario::UnitFormation>,
    /// What it has spent in the current Movement Phase (12.1.4), if it moved in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<PhaseMove>,
    /// The corner it faces (10.0), once it has moved or turned; before that the scenario's
    /// set-up facing stands (decision 0083).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facing: Option<crate::movement::facing::Corner>,
    /// Arrived as a reinforcement at this Entry Hex and not moved since: still in the column
    /// extending off the map from it (12.6.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entering: Option<crate::hex::Hex>,
    /// The phase (turn, player) and Entry Hex in which it left its arriving column (12.6.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_column: Option<(u32, usize, crate::hex::Hex)>,
    /// The turn in which a scenario rule halved its Movement Allowance (Ruffin's Attack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub halved_in: Option<u32>,
    /// Hexes of its Line Extensions (13), at most two.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<crate::hex::Hex>,
    /// What each Line Extension keeps for itself once created (13.1.2: "After their creation,
    /// however, they keep track of these independently"): its Morale State, facing and MP spent
    /// this phase. Decision 0153.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extension_parts: Vec<ExtensionPart>,
    /// It may face any corner for nothing: it was displaced (a retreat, a charge or Close
    /// Combat, the umpire's placement; 10.1.3) or left a Square (8.2.2), and has not moved or
    /// turned since.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reface_free: bool,
    /// The hexes of its last move that spent MP, from where it started (12.0), so Skirmishers
    /// may tag along a Column (24.2, 12.5.6.4).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last_path: Vec<crate::hex::Hex>,
    /// The phase (turn, player) of `last_path`: a formation change in a later phase spends MP
    /// without moving, and must not make the old path look like this phase's (17.4, 16.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_path_in: Option<(u32, usize)>,
    /// Half-points it had left on reaching each hex of `last_path` (12.1.2; decision 0182).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last_left: Vec<u32>,
    /// The corner it faced at each hex of `last_path` (10.0; decision 0183); empty when
    /// not recorded (older files, all-around frontal facing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last_facings: Vec<crate::movement::facing::Corner>,
    /// Each move of the current Movement Phase that recorded its figures (`piece-moved`'s `left`),
    /// in order, the last one `last_path`'s: fire at a formation change made before an earlier
    /// one halves what it had there and may cut a later one (12.1.2; decision 0193).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phase_moves: Vec<PhaseLeg>,
    /// The units it fired Opportunity Fire at, each with the phase (turn, player), this phase
    /// only (17.4.1: once each Movement Phase).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opportunity_fired: Vec<(u32, usize, String)>,
    /// The Opportunity Fire triggers it was fired on at in the current phase, and by whom
    /// (17.4.1: "A single unit may only be fired at by one unit (or stack …) per trigger").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fired_on: Vec<FiredOn>,
    /// Its last retreat (a move that spent no MP along a path, 21.4) with its phase (turn,
    /// player): it triggers no Opportunity Fire (17.4.5) but may be Reaction Charged (16.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_retreat: Option<(u32, usize, Vec<crate::hex::Hex>)>,
    /// The hexes where it changed formation in the current phase (17.4 trigger 3), with the
    /// phase (turn, player).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub formation_changed_at: Vec<FormationChangeAt>,
    /// The retreat a combat required of it and it has not yet made (21.4, decision 0147).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retreat_due: Option<RetreatDue>,
    /// The charges it made in the current phase (16.1), regular or Reaction: 16.5.3's limits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub charges: Vec<ChargeMade>,
    /// The Reaction Charges made against it in the current phase, a failed 16.5.5 Morale Check
    /// included (16.5.3: "one Reaction Charge made against it during its charge").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reaction_charged: Vec<ReactionAgainst>,
}

/// A charge a cavalry unit made (16.1) and its target hex, with the phase (turn, player).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChargeMade {
    pub turn: u32,
    pub player: usize,
    pub target_hex: Hex,
    /// A Reaction Charge (16.5).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reaction: bool,
    /// The unit it charged (its Lead Unit): a Reaction Charge triggered by cavalry may not be
    /// answered by another (16.5.3).
    pub target: String,
}

/// A Reaction Charge made (or attempted, 16.5.5) against a unit, with the phase (16.5.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReactionAgainst {
    pub turn: u32,
    pub player: usize,
    pub by: String,
    pub at: Hex,
    /// Made against the unit's Line Extension, standing in this hex after it (13.1.1: a target
    /// of its own, as 17.4.2 makes it for Opportunity Fire; decision 0211). Absent for the unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension: Option<Hex>,
}

/// A formation change in a phase and where (17.4 trigger 3: "the firer gets to choose which of
/// the two formations the unit is considered in").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormationChangeAt {
    pub turn: u32,
    pub player: usize,
    pub hex: Hex,
    pub from: crate::scenario::UnitFormation,
    pub to: crate::scenario::UnitFormation,
    /// How many of the phase's moves (`UnitMovement::phase_moves`) came before it: it was made
    /// before move number `moves_before` (0 first), or after the last (decision 0193).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub moves_before: u32,
    /// The Square formed against a charge (16.2.1): its Opportunity Fire is fired inside the
    /// charge (17.4.6, `--square-fire`), so it is offered to nobody afterwards (decision 0195).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_charge: bool,
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

/// One move of a Movement Phase with its figures (12.1.2; decision 0193): the path, the
/// half-points left on reaching each hex, the corner faced at each, and the half-points the
/// unit had spent in the phase before it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseLeg {
    pub turn: u32,
    pub player: usize,
    pub path: Vec<Hex>,
    pub left: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facings: Vec<crate::movement::facing::Corner>,
    pub spent_before: u32,
}

/// One Opportunity Fire at a unit (17.4.1): the phase, the trigger and the batteries that fired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FiredOn {
    pub turn: u32,
    pub player: usize,
    pub trigger: super::opportunity::Trigger,
    pub by: Vec<String>,
    /// The fire was at the unit's Line Extension in this hex, a target of its own (17.4.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension: Option<Hex>,
}

/// One Line Extension's own state (13.1.2): created with its parent's Morale State, facing and
/// remaining MP, then kept apart (decision 0153).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtensionPart {
    pub hex: Hex,
    /// Its Morale State: a morale result it takes is its own (13.3.1).
    pub morale: crate::combat::MoraleState,
    /// The corner it faces; `None` while its parent's set-up facing is still open (decision 0083).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facing: Option<crate::movement::facing::Corner>,
    /// What it has spent in the current Movement Phase (from its parent's spending when created,
    /// 13.1.2, plus its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<PhaseMove>,
    /// The hexes of its last move of its own (its generation, 13.1.3, or moving on its own,
    /// 13.1.1), from where it started, so Opportunity Fire is offered along it (17.4.2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last_path: Vec<Hex>,
    /// The phase (turn, player) of `last_path`: a turn in place (10.1, 8.2.2) or a formation
    /// change (8.3.3) in a later phase spends MP without moving and must not make the old path
    /// look like this phase's (17.4.8, 16.5.9; as `UnitMovement::last_path_in`, decision 0212).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_path_in: Option<(u32, usize)>,
    /// The corner it faced at each hex of `last_path` (`extension-moved`'s `facings`), so fire
    /// at an earlier hex of it reads the facing it had there (10.0; decision 0189).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last_facings: Vec<crate::movement::facing::Corner>,
    /// Half-points it had left on reaching each hex of `last_path` (`extension-moved`'s `left`),
    /// so fire that Disorganizes it at an earlier hex halves what it had there (12.1.2;
    /// decision 0192).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub last_left: Vec<u32>,
    /// It stands in Square, formed against a charge (13.2.1: "Line Extensions CAN form Square as
    /// a reaction to Cavalry Charges"; 8.3: "independently of their parent") in the phase (turn,
    /// player) given, which ended its move (8.3.1.1); otherwise it is in Line, as its parent
    /// (13.2). Decision 0198.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub square: Option<(u32, usize)>,
    /// Where and in which phase (turn, player) it last left its Square by a Formation Change of
    /// its own (8.3.3): 8.2.1 makes that change in an enemy's zone an Opportunity Fire trigger
    /// (17.4 trigger 3), fired on with `--defender-at HEX --opportunity-at HEX
    /// --formation-change`. Decision 0205.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_square: Option<(u32, usize, Hex)>,
}

impl ExtensionPart {
    /// Its formation: Line, or Square formed against a charge (13.2.1; decision 0198).
    pub fn formation(&self) -> crate::scenario::UnitFormation {
        if self.square.is_some() {
            crate::scenario::UnitFormation::Square
        } else {
            crate::scenario::UnitFormation::Line
        }
    }

    /// What it has spent in the phase of `turn` and `player`.
    pub fn spent_in(&self, turn: u32, player: usize) -> PhaseMove {
        PhaseMove::in_phase(self.moved, turn, player)
    }
}

/// One unit of a stack found over the stacking limits (9.1) at an end-of-phase check (9.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverStack {
    pub unit: String,
    pub hex: Hex,
    pub turn: u32,
    pub player: usize,
}

/// A retreat a combat (21.4, 15.3.8, 16.x; decision 0147) or the Rally Phase (21.5 F; decision
/// 0164) requires of one unit: from which hex and how many hexes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetreatDue {
    pub unit: String,
    /// The cause of the retreat (21.4.1): the enemy's hex in Close Combat or a charge, the
    /// battery's or Skirmishers' for fire.
    pub cause: Hex,
    /// Fewest and most hexes the path given to `move --retreat-from` may take.
    pub min: u8,
    pub max: u8,
    /// The attacker of a Close Combat: the hex it came from, where it still stands, counts as
    /// the retreat's first hex (21.4.1, 15.3.8), so `min`/`max` are the hexes beyond it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub came_from: Option<Hex>,
    /// A Routed stack at the end of its Rally Phase (21.5 F): it retreats "until it is 6 hexes
    /// away from the closest enemy unit" — its last hex this far from every enemy combat unit,
    /// no hex before it (decision 0164). Absent for a combat's retreat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear_of: Option<u8>,
}

impl UnitMovement {
    /// What it has spent in the phase of `turn` and `player` (nothing if it last moved in
    /// another phase).
    pub fn spent_in(&self, turn: u32, player: usize) -> PhaseMove {
        PhaseMove::in_phase(self.moved, turn, player)
    }
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// Per-side state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SideState {
    /// The army commander's id (the sender of aide and in-person orders).
    pub army_commander: String,
    /// The Army HQ piece (`hq:<army formation>`).
    pub army_hq: String,
    /// Command points left this Command Phase (6.4.1: not saved).
    pub command_points: u8,
    /// The army commander started this Command Phase stacked with the Army HQ (6.4.6).
    pub commander_with_hq_at_start: bool,
    /// An in-person order was given since the army commander last touched base at the HQ (6.4.6).
    pub in_person_since_hq: bool,
    /// The side has begun Local Initiative this Command Phase: Order Issue is over (5.1).
    pub initiative_begun: bool,
}

/// What the Random Events (29, optional) leave in force after the event that set them
/// (`engine::random_events`, decision 0045).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RandomEffects {
    /// Turns added to a reinforcement group's schedule: +1 by Delay, −1 by Advance
    /// Reinforcements (29.1).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reinforcement_shift: BTreeMap<String, i32>,
    /// Arrival rolls of a variable reinforcement group in one turn, when not one: group →
    /// (turn, rolls). Delay Reinforcements: 0 ("not rolled for this turn"); Advance: 2 ("roll
    /// twice") (29.1).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub arrival_rolls: BTreeMap<String, (u32, u8)>,
    /// Reinforcement group → the turn its units may Force March (12.5.6) without rolling for
    /// Straggler losses (29.1 Advance Reinforcements for a group due that turn; decision 0200).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub free_forced_march: BTreeMap<String, u32>,
    /// Side → the turn its cavalry rolls for Straggler Recovery as if it were infantry (29.1
    /// Cavalry Recovery; the Rally Phase reads it).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cavalry_recovery: BTreeMap<String, u32>,
    /// Side → (turn, rating): that turn its army commander issues orders as a leader of that
    /// rating (Vimeiro V5.5 Junot Wakes Up: "one round of orders as a level 4 leader").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub orders_as_rating: BTreeMap<String, (u32, u8)>,
    /// Game-table effects in force for the rest of the game, by effect id
    /// (`vimeiro-junot-wakes-up`: the V3.1 initiative −1 is ignored).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub lasting: BTreeSet<String>,
}

/// The whole game state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    pub scenario_id: String,
    /// Current game turn, 1-based.
    pub turn: u32,
    /// Index into the scenario's side order of the phasing player (0 = first player).
    pub player: usize,
    /// Side ids in player order (first player first).
    pub side_order: Vec<String>,
    pub step: Step,
    pub sides: BTreeMap<String, SideState>,
    pub commands: BTreeMap<String, CommandState>,
    pub orders: BTreeMap<u32, OrderRecord>,
    /// Who commands each formation now (the scenario's commanders, then successors, 25).
    pub commanders: BTreeMap<String, String>,
    /// Combat state of every brigade and battery.
    pub units: BTreeMap<String, UnitState>,
    /// Movement bookkeeping of units that have moved or changed formation (8, 12).
    #[serde(default)]
    pub movement: BTreeMap<String, UnitMovement>,
    /// Where each commander, HQ (`hq:<formation>`) and unit stands; off-map pieces are absent.
    pub positions: BTreeMap<String, Hex>,
    /// Reinforcement groups that have arrived.
    pub arrived: BTreeSet<String>,
    /// Scenario variants in play.
    pub variants: BTreeSet<String>,
    /// Reinforcement groups whose arrival roll succeeded and that enter this turn.
    pub due: BTreeSet<String>,
    /// Rolls made per dice purpose: the position of the game's dice.
    pub dice: BTreeMap<Purpose, u64>,
    /// What the Random Events (29) leave in force.
    #[serde(default)]
    pub random_events: RandomEffects,
    /// Eliminated infantry with Stragglers on the Turn Record Track (20.3.2): unit → the turn
    /// from which it may try Straggler Recovery to return to play (decision 0163).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub eliminated: BTreeMap<String, u32>,
    /// Over-stacked hexes found at the end-of-phase checks of this turn and the last (9.2): each
    /// unit that lost a Morale State for it, where, and the phase (turn, player) of the check.
    /// Its side must break the stack up in its next Movement Phase (decision 0084).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub over_stacked: Vec<OverStack>,
    /// Number of events folded so far.
    pub events: u64,
}

impl GameState {
    /// The phasing side's id.
    pub fn phasing(&self) -> &str {
        &self.side_order[self.player]
    }

    /// Next order number.
    pub fn next_order_number(&self) -> u32 {
        self.orders.keys().next_back().map_or(1, |n| n + 1)
    }

    /// The posture the command is executing now (for acceptance, initiative and stoppage),
    /// or `None` in No Orders Status.
    pub fn current_posture(&self, command: &str) -> Option<Posture> {
        self.posture_at(command, 0)
    }

    fn posture_at(&self, command: &str, depth: u8) -> Option<Posture> {
        let c = self.commands.get(command)?;
        match c.status {
            // A sub-unit without orders of its own acts on its parent's order (6.1, 6.8 sidebar).
            CommandStatus::NoOrders if c.follows_parent && depth < 8 => {
                self.posture_at(c.parent.as_deref()?, depth + 1)
            }
            CommandStatus::NoOrders | CommandStatus::Withdrawing => None,
            CommandStatus::DefaultDefense => Some(Posture::General),
            CommandStatus::Ordered | CommandStatus::LooseCannon => {
                let o = self.orders.get(&c.current_order?)?;
                o.stages.get(c.stage).or(o.stages.last()).copied()
            }
        }
    }

    /// Orders for a recipient that are still pending, in number order.
    pub fn pending_orders<'a>(
        &'a self,
        recipient: &'a str,
    ) -> impl Iterator<Item = &'a OrderRecord> + 'a {
        self.orders
            .values()
            .filter(move |o| o.recipient == recipient && o.status.is_pending())
    }
}
