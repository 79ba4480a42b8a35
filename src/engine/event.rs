//! Events: what happened, with every die that decided it, and who may see it.
//!
//! Events are the source of truth; their serialised form is part of the replay contract. Never
//! change the meaning of a stored variant: add a new one instead. Owns the event vocabulary and
//! visibility; must not apply events (see `evolve.rs`).

use serde::{Deserialize, Serialize};

use super::state::{CommandStatus, OrderRecord, Step};
use crate::hex::Hex;
use crate::provenance::Provenance;
use crate::rules::dice::Die;
use crate::rules::{AcceptanceResult, InitiativeResult};

/// Who may see an event (DESIGN: secrets stay secret; NBS 4.0).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "to", content = "side")]
pub enum Visibility {
    /// Everyone: the clock, the phases.
    Public,
    /// One side (and the umpire).
    Side(String),
    /// The umpire only (overrides and their reasons).
    Umpire,
}

/// One recorded event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Game turn the event happened in.
    pub turn: u32,
    pub visibility: Visibility,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// A command as the game starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandInit {
    pub id: String,
    pub side: String,
    pub parent: Option<String>,
    pub independent: bool,
    /// On loan to the army commander at the start (Talavera T2.4).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub borrowed: bool,
    /// A temporary division not yet formed (Vimeiro V2.3: no members at the start).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unformed: bool,
}

/// Why an Emergency Withdrawal happens (6.6.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WithdrawalCause {
    /// Declared by the owning player (6.6.3).
    Voluntary,
    /// Forced by a failed Attack Stoppage check (6.6.3.9).
    Stoppage,
    /// Forced by an overrun corps HQ (6.6.3.10, 6.10.2).
    HqOverrun,
    /// Forced by the umpire.
    Umpire,
}

/// How a Random Events check ended (29.0, 29.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RandomEventOutcome {
    /// The check die did not show the table's number: no random event this turn.
    Nothing,
    /// An event was rolled but does not apply, or the game table says No Event (29.0: "treat it
    /// as No Event").
    NoEvent,
    /// The engine applied it (the events that follow carry its effects).
    Applied,
    /// The engine cannot apply it: the umpire applies the `text` (decision 0045).
    Umpire,
}

/// The scenario's game-table entry a "Game Table" result rolled (29.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameTableRoll {
    /// The one die rolled on the table.
    pub roll: u8,
    /// The entry's name; "No Event" when no entry has that roll.
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rule: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
}

/// A reinforcement group moved by Delay or Advance Reinforcements (29.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReinforcementTiming {
    pub group: String,
    /// Turns later (+1, Delay) or earlier (−1, Advance); 0 when only this turn's rolls change.
    pub shift: i32,
    /// This turn's arrival rolls of a variable group already rolling: 0 (Delay: "not rolled for
    /// this turn") or 2 (Advance: "roll twice").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolls: Option<u8>,
    /// Advance Reinforcements for a group due this turn, which cannot come earlier: "the
    /// reinforcements may force march without rolling for Straggler Losses this turn" (29.1).
    /// Its units' Forced March (12.5.6) this turn rolls no Morale Check (decision 0200).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forced_march: bool,
}

/// Everything that can happen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum EventKind {
    /// The game begins: the scenario's commands, positions and pre-set orders (6.2.2).
    GameStarted {
        scenario_id: String,
        side_order: Vec<String>,
        /// Side → (army commander id, Army HQ piece id).
        armies: Vec<(String, String, String)>,
        commands: Vec<CommandInit>,
        /// Scenario variants in play.
        #[serde(default)]
        variants: Vec<String>,
        /// Formation → its commander at the start.
        #[serde(default)]
        commanders: Vec<(String, String)>,
        /// Every brigade's and battery's starting loss chart (20.4).
        #[serde(default)]
        units: Vec<(String, super::state::UnitState)>,
        positions: Vec<(String, Hex)>,
    },
    /// A pre-set order in force at the start (6.2.2), possibly in delay.
    PresetOrder { order: OrderRecord },
    /// A player turn's Command Phase begins; command points are set (6.4.1, not saved).
    CommandPhaseBegan {
        side: String,
        command_points: u8,
        /// The army commander is stacked with the Army HQ (6.4.6).
        commander_with_hq: bool,
    },
    /// The sequence moved on to another step (5.1).
    StepBegan { side: String, step: Step },
    /// A new game turn (the clock advanced, 27.1.1).
    TurnBegan { new_turn: u32, time: String },
    /// The last turn is over.
    GameEnded { last_turn: u32 },
    /// An order was written and logged (6.4.5).
    OrderIssued { order: OrderRecord },
    /// An order reached its recipient (6.4.7).
    OrderArrived { order: u32 },
    /// The acceptance roll (6.5): number, column, 11..66 roll and result.
    AcceptanceRolled {
        order: u32,
        number: i32,
        column: i32,
        roll: u8,
        dice: Vec<Die>,
        result: AcceptanceResult,
        provenance: Provenance,
    },
    /// An order was accepted (6.5.1); `implemented` is false while a corps commander is away
    /// from his HQ.
    OrderAccepted { order: u32, implemented: bool },
    /// An order was delayed: `needs` or more on one die each later turn accepts it (6.5.2).
    OrderDelayed { order: u32, needs: u8 },
    /// A corps order was implemented when its commander reached the HQ (6.5.1).
    OrderImplemented { order: u32 },
    /// A delayed order's reduction die (6.5.2).
    DelayRolled {
        order: u32,
        needs: u8,
        dice: Vec<Die>,
        accepted: bool,
    },
    /// An order was distorted or lost (6.5.3).
    OrderDistorted { order: u32 },
    /// The army commander's discovery roll for a distorted order (6.5.3): 5–6 discovers.
    DistortionDiscoveryRolled {
        command: String,
        dice: Vec<Die>,
        discovered: bool,
    },
    /// An order was discarded (6.4.7 arrival of another order, 6.6 local initiative, 6.6.3.7).
    OrderDiscarded { order: u32, reason: String },
    /// An Initiative roll (6.6.1.3).
    InitiativeRolled {
        command: String,
        commander: String,
        rating: u8,
        column: i32,
        roll: u8,
        dice: Vec<Die>,
        result: InitiativeResult,
        provenance: Provenance,
    },
    /// Default Defense declared (6.6.2).
    DefaultDefenseDeclared { command: String },
    /// Emergency Withdrawal begun (6.6.3).
    WithdrawalBegan {
        command: String,
        cause: WithdrawalCause,
    },
    /// A Morale Check for stragglers after an Emergency Withdrawal (6.6.3.6, 21.2).
    StragglerCheck {
        unit: String,
        needs: u8,
        dice: Vec<Die>,
        straggler: bool,
        /// The rule that waives the check (no die rolled, no Straggler): `29.1`, a Forced March
        /// of reinforcements due in the turn of Advance Reinforcements (decision 0200).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        waived: Option<String>,
    },
    /// Attack Stoppage check (6.7).
    StoppageChecked {
        command: String,
        sub_units: u32,
        wrecked: u32,
        commander_lost: bool,
        result: u8,
        rating: u8,
        needed: u8,
        night: bool,
        roll: u8,
        dice: Vec<Die>,
        passed: bool,
        provenance: Provenance,
    },
    /// A command's order status changed (6.3).
    StatusChanged {
        command: String,
        status: CommandStatus,
        reason: String,
    },
    /// A command moved on to the next stage of its order (6.3.3), or completed it.
    StageAdvanced { command: String, stage: usize },
    /// A commander, HQ or unit moved.
    PieceMoved {
        piece: String,
        from: Option<Hex>,
        to: Hex,
        /// The hexes it moved through, from `from` to `to` (12.0), so Opportunity Fire and
        /// Reaction Charges can be offered along it. Empty for placements and displacements.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        path: Vec<Hex>,
        /// Movement Points charged, in half-points (12.1.2: 3 = 1½ MP), for a unit's move.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        half_mp: Option<u32>,
        /// Half-points it had left on reaching each hex of `path` (the start first), so that
        /// becoming Disorganized there halves what it had left there (12.1.2; decision 0182).
        /// Empty in older files and for moves without MP.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        left: Vec<u32>,
        /// The corner it faced at each hex of `path` (10.0; the start first, then on entering
        /// each), so fire or a charge at an earlier hex reads its flank and rear from it (10,
        /// 16.5.2; decision 0183). Empty in older files and for all-around frontal facing.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        facings: Vec<crate::movement::facing::Corner>,
    },
    /// A unit's move stopped short of where it went: Routed by Opportunity Fire at `at`, a hex
    /// of its path (17.4 with 11.3.2, decision 0154), or its MP halved there short of the rest
    /// of the path (12.1.2, decision 0182); it stands at `at` and the rest of the path was not
    /// travelled. The move's own event is not rewritten. With `extension`, the unit's Line
    /// Extension stopped, or (rule 13.3.3) was placed next to its parent (decision 0192).
    MoveStopped {
        unit: String,
        at: Hex,
        rule: String,
        reason: String,
        /// Half-points of the move's charge given back: the part of the path beyond `at` it
        /// never travelled (decision 0182). Absent in older files.
        #[serde(default, skip_serializing_if = "is_zero")]
        unspent_half_mp: u32,
        /// The unit's Line Extension standing in this hex stopped, not the unit: 12.1.2 with
        /// 13.1.1, 13.1.3 (decision 0192). Absent for the unit itself and in older files.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        extension: Option<Hex>,
        /// It stopped in an earlier move of the phase than its last, this one (0 first): the
        /// later moves were never made (12.1.2; decision 0193). Absent for the last move.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        phase_move: Option<u32>,
    },
    /// A side's move, planned against what it sees, halted against the truth before what it met
    /// (4.0, 12.3.1; decision 0181): it stands at `at`, short of `short_of`, the destination it
    /// planned. `met` says what it met in words the side may read (no enemy named, and a hex
    /// only when the side now sees an enemy there). Seen by the moving side and the umpire.
    MoveHalted {
        unit: String,
        at: Hex,
        short_of: Hex,
        met: String,
        rule: String,
    },
    /// A unit changed formation (8.2) and paid for it. With a stop's rule (`never_made`), a
    /// change farther along its path than where it stopped, undone: it was never made.
    FormationChanged {
        unit: String,
        from: crate::scenario::UnitFormation,
        to: crate::scenario::UnitFormation,
        /// Half-points spent.
        half_mp: u32,
        rule: String,
        /// The unit's Line Extension in this hex changed formation, not the unit: it formed
        /// Square against a charge (13.2.1, 8.3) or left it (8.3.3, 8.3.4, 8.3.1.2); decision
        /// 0198.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        extension: Option<Hex>,
    },
    /// A unit now faces another hex corner (10.1): by turning in place, or at the end of a
    /// move (whose turns the move's `half_mp` already paid; then `half_mp` is 0).
    FacingChanged {
        unit: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<crate::movement::facing::Corner>,
        to: crate::movement::facing::Corner,
        /// Half-points spent turning in place.
        half_mp: u32,
        rule: String,
    },
    /// A moving unit lost Movement Points it had left (12.1.2, 11.3.2: remaining MP halved on
    /// becoming Disorganized).
    MovementPointsLost {
        unit: String,
        /// Half-points lost.
        half_mp: u32,
        rule: String,
        reason: String,
        /// The unit's Line Extension in this hex lost them, not the unit (13.1.2).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        extension: Option<Hex>,
    },
    /// A Line generated a Line Extension into an adjacent hex (13.1.3): `half_mp` for the
    /// parent (1 MP), `extension_half_mp` what the extension spent (1 MP + the hex).
    LineExtended {
        unit: String,
        hex: Hex,
        half_mp: u32,
        extension_half_mp: u32,
    },
    /// Line Extensions rejoined their parent (13.1.4), for `half_mp` (the parent's hex + 1 MP).
    /// A unit's Line Extension moved on its own (13.1.1, 13.1.2), from `from` along `path`,
    /// spending its own MP and ending facing `facing` (decision 0153).
    ExtensionMoved {
        unit: String,
        from: Hex,
        to: Hex,
        path: Vec<Hex>,
        half_mp: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        facing: Option<crate::movement::facing::Corner>,
        /// Half-points it had left on reaching each hex of `path` (the start first), as
        /// `piece-moved` records them (13.1.2, 12.1.2; decisions 0182, 0189). Empty in older
        /// files and for a turn in place.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        left: Vec<u32>,
        /// The corner it faced at each hex of `path` (the start first, then on entering each),
        /// as `piece-moved` records them (10.0; decisions 0183, 0189). Empty in older files and
        /// for a turn in place.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        facings: Vec<crate::movement::facing::Corner>,
    },
    LineRetracted {
        unit: String,
        hexes: Vec<Hex>,
        half_mp: u32,
        /// Eliminated for want of strength (13.3.2), not rejoining: the unit does not take
        /// their Morale State or MP (13.3.1, 13.1.4).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        eliminated: bool,
    },
    /// A scenario rule's roll that may halve a unit's Movement Allowance for this turn
    /// (Talavera scenario 2, Ruffin's Attack: halved on 4–6).
    AllowanceHalved {
        unit: String,
        rule: String,
        dice: Vec<Die>,
        halved: bool,
    },
    /// A Morale Check a move asked for (8.3.2 Square movement, 12.5.6 Forced March).
    MovementCheck {
        unit: String,
        rule: String,
        need: u8,
        dice: Vec<Die>,
        passed: bool,
    },
    /// The Morale Check a cavalry unit makes to Reaction Charge a trigger outside its frontal
    /// arc (16.5.5): failed, it does not charge and keeps its facing, and it still counts as a
    /// Reaction Charge against `target` (16.5.3).
    ReactionChecked {
        cavalry: String,
        target: String,
        /// The hex of the target's path the charge was aimed at.
        at: Hex,
        need: u8,
        dice: Vec<Die>,
        passed: bool,
        /// The target was `target`'s Line Extension standing in this hex, a triggering unit of
        /// its own (13.1.1; decision 0211). Absent for the unit and in older files.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        extension: Option<Hex>,
    },
    /// A unit's Morale State fell by a movement rule (12.1.5, 11.3, 9.2, 8.3.2).
    MoraleDegraded {
        unit: String,
        morale: crate::combat::MoraleState,
        rule: String,
        reason: String,
        /// The unit's Line Extension in this hex fell, not the unit (13.1.2, 13.3.1); a Routed
        /// extension Routs the whole unit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        extension: Option<Hex>,
    },
    /// A reinforcement arrival roll (12.6 and scenario rules).
    ReinforcementRolled {
        group: String,
        dice: Vec<Die>,
        arrives: bool,
    },
    /// A reinforcement group entered the map (12.6).
    ReinforcementArrived {
        group: String,
        hex: Hex,
        pieces: Vec<String>,
        /// The scheduled Entry Hex, when enemy units blocked it and the group entered at `hex`
        /// instead (12.6.2).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blocked: Option<Hex>,
    },
    /// A command's wrecked flag changed (21.6).
    WreckedChanged { command: String, wrecked: bool },
    /// A formation's lost commander was replaced by his successor (25), who takes his place.
    CommanderReplaced {
        command: String,
        old: String,
        new: String,
    },
    /// A command lost its original commander (25; 6.7 counts it as one more wrecked).
    CommanderLost { command: String, lost: bool },
    /// A combat was resolved: what everyone learns (the outcome and the retreats required).
    CombatResolved {
        combat: super::command::CombatKind,
        attackers: Vec<String>,
        defenders: Vec<String>,
        outcome: String,
        attacker_retreat: crate::combat::Retreat,
        defender_retreat: crate::combat::Retreat,
        /// The units that may now face as they like, for nothing (10.1.3: "Units of both
        /// players executing a Close Combat or a Cavalry Charge can change facing freely at the
        /// end of that action"; 19.5: not the attacker of a Town/Village).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        reface: Vec<String>,
        /// Each unit that must now retreat, from where and how far (21.4; decision 0147);
        /// `move --retreat-from` is checked against it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        retreats: Vec<super::state::RetreatDue>,
        /// Half-MP each attacker of a Close Combat spent to initiate it (15.1.4: the hex's cost
        /// + 2; decision 0148).
        #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
        close_combat_half_mp: std::collections::BTreeMap<String, u32>,
        /// The attacker was its Line Extension in this hex (13.1.1): the MP it spent and the
        /// end of its movement (15.1.4, 15.1.5) are the extension's, not its parent's (13.1.2).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attacker_at: Option<crate::hex::Hex>,
        /// The defenders left before the combat — a lone Skirmisher retreating (15.1.7) or
        /// cavalry withdrawing (15.1.8, 22.1.2) — so nothing was fought and the attackers'
        /// movement is not ended (decision 0152).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        moves_on: bool,
        /// Opportunity Fire at the defender in this hex of its path (17.4, decision 0167).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        opportunity_at: Option<Hex>,
        /// The Opportunity Fire was at its formation change in that hex (17.4 trigger 3).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        opportunity_formation: bool,
        /// Opportunity Fire at the defender's Line Extension in this hex (13.1.1), a target of
        /// its own (17.4.2).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        opportunity_extension: Option<crate::hex::Hex>,
        /// A charge's target hex (16.1): for a Reaction Charge at a hex of the target's path
        /// (16.5), that hex. Read by 16.5.3's limits.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        charge_at: Option<crate::hex::Hex>,
        /// The defender was its Line Extension standing in this hex after the combat (13.1.1,
        /// `--defender-at`): a charge's target hex, and a Reaction Charge made against it,
        /// are the extension's (16.5.3, 16.5.5; decision 0211). Absent otherwise and in older
        /// files.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        defender_at: Option<crate::hex::Hex>,
    },
    /// The dice of a combat and the non-seed table cells it used (umpire only).
    CombatDice {
        dice: Vec<Die>,
        cells: Vec<String>,
        notes: Vec<String>,
        /// What the combat core decided step by step: checks to stand with their modifiers,
        /// fire values, loss rolls and table results (absent in events recorded before it
        /// existed).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        readback: Option<Box<super::combat_system::CombatReadback>>,
    },
    /// A unit's losses from a combat (its own side only, 4.0).
    UnitLossesTaken {
        unit: String,
        losses: super::combat_system::UnitLosses,
    },
    /// An HQ alone in a hex was overrun by an enemy unit (6.10.2); a corps must withdraw in its
    /// next Command Phase (6.6.3.10).
    HqOverrun {
        hq: String,
        formation: String,
        by: String,
        hex: Hex,
    },
    /// The Rally Phase for one unit (20.3.2, 21.5, 22.2.3): stragglers recovered, its morale
    /// state and Blown status after, and the dice.
    UnitRallied {
        unit: String,
        stragglers_recovered: u8,
        morale_after: crate::combat::MoraleState,
        blown: bool,
        dice: Vec<Die>,
        /// The unit's Line Extension in this hex rallied, not the unit: its Morale State is its
        /// own (13.1.2, 13.3.1; decision 0209). Absent for the unit itself and in older files.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        extension: Option<Hex>,
    },
    /// A retreat a rout requires outside combat (decision 0164): a Routed stack fewer than 6
    /// hexes from the enemy at the end of its Rally Phase retreats until it is 6 hexes from the
    /// closest enemy unit (21.5 F, `clear_of`); a unit that has just Routed by a Morale
    /// Degradation retreats 6 hexes from it (21.4). Owed until its next move, as a combat's
    /// (decision 0147).
    RoutRetreatRequired {
        retreat: super::state::RetreatDue,
        /// Hexes to the closest enemy combat unit as the Rally Phase ended.
        nearest: u32,
    },
    /// A unit could not retreat as it had to (21.4.2, decision 0169): no legal path exists, so
    /// it is removed; the `unit-losses-taken` after it marks its remaining strength off, as
    /// Stragglers when `stragglers` (infantry that could trace a path through Prohibited
    /// terrain), else as Permanent Casualties.
    RetreatBlocked {
        unit: String,
        cause: Hex,
        hexes: u8,
        stragglers: bool,
        /// A unit without a Loss Chart (a train): nothing to mark off; it leaves the map with
        /// this event (21.4.2 "it is removed", decision 0169).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        no_chart: bool,
    },
    /// An eliminated infantry unit's Straggler Recovery off the map (20.3.2, decision 0163):
    /// tried at `at`, its formation's hub; a pass returns it to play there with the Stragglers
    /// recovered.
    EliminatedUnitRecovery {
        unit: String,
        at: Hex,
        stragglers_recovered: u8,
        dice: Vec<Die>,
    },
    /// A sub-unit joined another formation by an implemented order (6.9).
    SubUnitTransferred {
        command: String,
        to: String,
        order: u32,
    },
    /// A temporary division was formed by an accepted order (Vimeiro V2.3): its commander's
    /// brigade and the units the order named (brigades and at most one battery).
    TemporaryDivisionFormed {
        division: String,
        commander: String,
        members: Vec<String>,
        order: u32,
    },
    /// A temporary division ceased to exist (Vimeiro V2.3): its brigades revert to the army.
    TemporaryDivisionDissolved { division: String, reason: String },
    /// The army commander was replaced (Vimeiro V2.5 Burrard; 25 succession).
    ArmyCommanderReplaced {
        side: String,
        old: String,
        new: String,
        reason: String,
        /// The old commander leaves the map (V2.5: "Wellesley is removed from the map").
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        removed: bool,
    },
    /// A scenario special rule's die (e.g. Burrard's landing roll, V2.5).
    SpecialRuleRolled {
        rule: String,
        dice: Vec<Die>,
        happens: bool,
    },
    /// The corps commander's release roll for a borrowing order (Talavera T2.4): as if the order
    /// were sent to him too, with −1 for each division already borrowed (`penalty`).
    ReleaseRolled {
        order: u32,
        corps: String,
        commander: String,
        number: i32,
        penalty: i32,
        column: i32,
        roll: u8,
        dice: Vec<Die>,
        result: AcceptanceResult,
        provenance: Provenance,
    },
    /// A division accepted a borrowing order and its corps commander released it (T2.4).
    DivisionBorrowed { division: String, order: u32 },
    /// The corps commander threw a borrowing order away: the army commander may never order
    /// that division again (T2.4).
    DivisionBarred { division: String, order: u32 },
    /// A borrowed division went back to its corps (T2.4); `wrecked` keeps its borrowing counted.
    DivisionReturned { division: String, wrecked: bool },
    /// The relaying commander accepted the order himself (T4.2b) and now carries it.
    RelayAccepted { order: u32, by: String },
    /// The relaying commander re-issued the order in person to its recipient (T4.2b).
    OrderRelayed { order: u32, by: String },
    /// The Random Events check at the start of a Player Turn (29.0, optional: variant
    /// `random-events`) and the event it gave (29.1), with every die it used: the one-die check,
    /// the 2d6 on the Standard Random Events Table, the die on the scenario's game table, and
    /// the die choosing "a random" command, order, commander or battery among `candidates`
    /// (sorted; die face k picks the k-th). Seen by the phasing side (and the umpire).
    RandomEventChecked {
        side: String,
        dice: Vec<Die>,
        outcome: RandomEventOutcome,
        /// The Standard Random Events Table's result (29.0); absent when nothing occurred.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        event: Option<crate::rules::random_events::SeriesEvent>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provenance: Option<Provenance>,
        /// The game-table entry rolled on a "Game Table" result.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        game_table: Option<GameTableRoll>,
        /// What the engine applies: the series event's, or the game-table entry's `effect`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        effect: Option<crate::rules::random_events::Effect>,
        /// What "a random X" was chosen among, in the order the die counts them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        candidates: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        chosen: Option<String>,
        /// Delay or Advance Reinforcements: the groups moved.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        reinforcements: Vec<ReinforcementTiming>,
        /// The phasing side's command points for the rest of this Command Phase, when the event
        /// sets them (Vimeiro Junot Wakes Up: as a rating-4 leader).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        command_points: Option<u8>,
        /// What happened, in words; for an `umpire` outcome, what the umpire applies.
        text: String,
    },
    /// Command range check at the end of movement (6.11).
    CommandRangeChecked { out_of_command: Vec<String> },
    /// An umpire override, with its reason (umpire only).
    Override { reason: String, action: String },
    /// The umpire took back the last commands (decision 0124): what every side is told — how
    /// many, and why — without what they were.
    Retracted { commands: usize, reason: String },
    /// The state as it was before the retracted commands (umpire only: it holds everything).
    /// `state` is the `GameState` as JSON text (see `Command::Retract`).
    StateRestored {
        state: String,
        /// What the retracted commands did, in words.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        taken_back: Vec<String>,
    },
    /// The umpire set a unit's combat state (an override, umpire only): its Loss Chart row
    /// (20.4), Morale State (21.1) and Blown status (22.2) as they are now.
    UnitStateSet {
        unit: String,
        track: crate::combat::LossTrack,
        morale: crate::combat::MoraleState,
        blown: bool,
    },
    /// A message between a side and the umpire (visibility: that side).
    MessageSent {
        side: String,
        from: String,
        text: String,
    },
}

impl EventKind {
    /// A piece moved without spending MP (a commander riding, a placement, a rider): no MP or
    /// facing to record at each hex.
    pub fn moved_free(piece: String, from: Hex, to: Hex, path: Vec<Hex>) -> EventKind {
        EventKind::PieceMoved {
            piece,
            from: Some(from),
            to,
            path,
            half_mp: None,
            left: Vec::new(),
            facings: Vec::new(),
        }
    }
}

impl Event {
    /// The dice this event used, for the dice position and for audits.
    pub fn dice(&self) -> &[Die] {
        match &self.kind {
            EventKind::AcceptanceRolled { dice, .. }
            | EventKind::DelayRolled { dice, .. }
            | EventKind::DistortionDiscoveryRolled { dice, .. }
            | EventKind::InitiativeRolled { dice, .. }
            | EventKind::StragglerCheck { dice, .. }
            | EventKind::StoppageChecked { dice, .. }
            | EventKind::ReinforcementRolled { dice, .. }
            | EventKind::CombatDice { dice, .. }
            | EventKind::SpecialRuleRolled { dice, .. }
            | EventKind::ReleaseRolled { dice, .. }
            | EventKind::RandomEventChecked { dice, .. }
            | EventKind::UnitRallied { dice, .. }
            | EventKind::EliminatedUnitRecovery { dice, .. }
            | EventKind::MovementCheck { dice, .. }
            | EventKind::ReactionChecked { dice, .. }
            | EventKind::AllowanceHalved { dice, .. } => dice,
            // No dice: listed one by one so a new kind must say whether it rolled.
            EventKind::GameStarted { .. }
            | EventKind::PresetOrder { .. }
            | EventKind::Retracted { .. }
            | EventKind::StateRestored { .. }
            | EventKind::CommandPhaseBegan { .. }
            | EventKind::StepBegan { .. }
            | EventKind::TurnBegan { .. }
            | EventKind::GameEnded { .. }
            | EventKind::OrderIssued { .. }
            | EventKind::OrderArrived { .. }
            | EventKind::OrderAccepted { .. }
            | EventKind::OrderDelayed { .. }
            | EventKind::OrderImplemented { .. }
            | EventKind::OrderDistorted { .. }
            | EventKind::OrderDiscarded { .. }
            | EventKind::DefaultDefenseDeclared { .. }
            | EventKind::WithdrawalBegan { .. }
            | EventKind::StatusChanged { .. }
            | EventKind::StageAdvanced { .. }
            | EventKind::PieceMoved { .. }
            | EventKind::FormationChanged { .. }
            | EventKind::MoveStopped { .. }
            | EventKind::MoveHalted { .. }
            | EventKind::FacingChanged { .. }
            | EventKind::MoraleDegraded { .. }
            | EventKind::RoutRetreatRequired { .. }
            | EventKind::RetreatBlocked { .. }
            | EventKind::MovementPointsLost { .. }
            | EventKind::LineExtended { .. }
            | EventKind::LineRetracted { .. }
            | EventKind::ExtensionMoved { .. }
            | EventKind::ReinforcementArrived { .. }
            | EventKind::WreckedChanged { .. }
            | EventKind::CommanderReplaced { .. }
            | EventKind::CommanderLost { .. }
            | EventKind::CombatResolved { .. }
            | EventKind::UnitLossesTaken { .. }
            | EventKind::HqOverrun { .. }
            | EventKind::SubUnitTransferred { .. }
            | EventKind::TemporaryDivisionFormed { .. }
            | EventKind::TemporaryDivisionDissolved { .. }
            | EventKind::ArmyCommanderReplaced { .. }
            | EventKind::DivisionBorrowed { .. }
            | EventKind::DivisionBarred { .. }
            | EventKind::DivisionReturned { .. }
            | EventKind::RelayAccepted { .. }
            | EventKind::OrderRelayed { .. }
            | EventKind::CommandRangeChecked { .. }
            | EventKind::Override { .. }
            | EventKind::MessageSent { .. }
            | EventKind::UnitStateSet { .. } => &[],
        }
    }

    /// The kebab-case name of the event kind (the `kind` column of the store).
    pub fn kind_name(&self) -> String {
        serde_json::to_value(&self.kind)
            .ok()
            .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(str::to_string))
            .unwrap_or_default()
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A `formation-changed` with one of these rules undoes a change the unit made farther along its
/// path than where it was stopped — by halving (12.1.2, decision 0193), the one-hex minimum move
/// after fire (12.1.5), a Rout by Opportunity Fire (17.4) or a Reaction Charge (16.5) — a change
/// it never made (decision 0197). No other `formation-changed` carries these rules.
pub fn never_made(rule: &str) -> bool {
    matches!(rule, "12.1.2" | "12.1.5" | "16.5" | "17.4")
}
