//! The typed requests of the application layer: one struct per game action, in the library's
//! terms. They derive clap's `Args` (so the CLI and a conformance case parse the same words) and
//! serde (so a web front end can send them as JSON). None of them names a game file, an output
//! format or a source of text: those belong to the front end.

use clap::{Args, ValueEnum};
use serde::{Deserialize, Serialize};

use crate::hex::Hex;

/// How the order is delivered (6.4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MethodArg {
    InPerson,
    Oral,
    Written,
}

impl From<MethodArg> for crate::rules::Method {
    fn from(m: MethodArg) -> Self {
        use crate::rules::Method;
        match m {
            MethodArg::InPerson => Method::InPerson,
            MethodArg::Oral => Method::Oral,
            MethodArg::Written => Method::Written,
        }
    }
}

/// `order`: send an order (6.4).
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct OrderRequest {
    /// The writing side.
    #[arg(long)]
    pub side: String,
    /// The sending commander (default: the side's army commander).
    #[arg(long)]
    pub from: Option<String>,
    /// Recipient command id, when the order text does not name it.
    #[arg(long)]
    pub to: Option<String>,
    /// How the order travels: written (a courier rides), oral (an aide) or in person (6.4.2).
    #[arg(long, value_enum)]
    pub method: MethodArg,
    /// Hand the order in person to the commander who relays it (Talavera T4.2b: `--via
    /// jourdan`); he accepts it, rides to the recipient and re-issues it (`staffwork relay`).
    #[arg(long, value_name = "COMMANDER")]
    pub via: Option<String>,
    /// The order text, or `@FILE` to read it from a file, or `-` for standard input.
    pub text: String,
}

/// `message`: a message between one side's table and the umpire (a Kriegsspiel table runs on
/// them). Recorded for that side and the umpire only, never the other side; it changes nothing
/// in the game.
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct MessageRequest {
    /// The side whose table the message is for (the writer, or the side the umpire answers).
    #[arg(long)]
    pub side: String,
    /// Who writes: the side itself or `umpire`.
    #[arg(long)]
    pub from: String,
    /// The message.
    pub text: String,
}

/// `relay`: re-issue a relayed order in person (Talavera T4.2b).
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct RelayRequest {
    /// The order the relaying commander carries (its number in the Order Log).
    #[arg(long, value_name = "N")]
    pub order: u32,
}

/// `turn`: run the automatic steps (5.1).
#[derive(Args, Clone, Debug, Default, Serialize, Deserialize)]
pub struct TurnRequest {
    /// Keep going until the first Command Phase of this game turn (each step is recorded on its own).
    #[arg(long, value_name = "TURN", conflicts_with = "until_end")]
    pub until_turn: Option<u32>,
    /// Keep going until the game is over.
    #[arg(long)]
    #[serde(default)]
    pub until_end: bool,
}

impl TurnRequest {
    /// How far this `turn` goes.
    pub fn until(&self) -> crate::game::Until {
        use crate::game::Until;
        match (self.until_turn, self.until_end) {
            (Some(t), _) => Until::Turn(t),
            (None, true) => Until::End,
            (None, false) => Until::Once,
        }
    }
}

/// `initiative`: roll for Initiative (6.6.1).
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct InitiativeRequest {
    /// The commander rolling (or a cavalry/independent brigade's own id).
    #[arg(long)]
    pub commander: String,
    /// The command the order is for (default: the commander's own command).
    #[arg(long)]
    pub command: Option<String>,
    /// The order written if the roll gives Initiative.
    pub text: String,
}

/// `default-defense`, `withdraw`, `stage`: an action on one command.
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct CommandRequest {
    /// The command (formation or brigade id).
    #[arg(long)]
    pub command: String,
}

/// `loose-cannon`: the opponent writes a Loose Cannon's order (6.6.1.6).
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct LooseCannonRequest {
    /// The command that became a Loose Cannon (formation or brigade id).
    #[arg(long)]
    pub command: String,
    /// The one-turn order the opponent writes.
    pub text: String,
}

/// `move`: move a piece.
#[derive(Args, Clone, Debug, Default, Serialize, Deserialize)]
pub struct MoveRequest {
    /// The piece: a commander, `hq:<formation>` or a unit, by id or name. Repeat it to move
    /// several pieces in one line (`--piece Loison --piece Solignac`), each to --to, or each to
    /// its own hex with `PIECE=HEX` (`--piece solignac=32.09 --piece charlot=32.10`). They are
    /// checked together first, then moved one after another, each a move of its own.
    #[arg(long, required_unless_present = "whole", value_name = "PIECE[=HEX]")]
    #[serde(default, deserialize_with = "one_or_many")]
    pub piece: Vec<String>,
    /// Move a whole formation as one (a division, a brigade, a corps; by id, name or its
    /// commander's name): its units, commanders and HQs on the map keep their places relative
    /// to each other, and its commander (the HQ of a corps or army) goes to --to. Each member's
    /// path is checked by the movement rules; if one is refused, nothing moves (decision 0162).
    #[arg(long, value_name = "FORMATION", conflicts_with_all = ["piece", "path", "formation", "face", "extend", "retract", "backstep"], requires = "to")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whole: Option<String>,
    /// Destination hex, e.g. 12.15. Without --path a unit takes the cheapest legal path
    /// (see it first with `staffwork path`). Needed unless every --piece says PIECE=HEX.
    #[arg(long)]
    #[serde(default)]
    pub to: Option<Hex>,
    /// The hexes to move through, in order, ending at --to (12.0), e.g. `--path 5.06,5.07`.
    /// Each step is checked against the Movement Table (chart p2).
    #[arg(long, value_delimiter = ',', num_args = 1..)]
    #[serde(default)]
    pub path: Vec<Hex>,
    /// Change formation first, paying its cost (8.2): line, column, march-column, square,
    /// limbered, unlimbered. With --to the unit's own hex it only changes formation.
    #[arg(long, value_parser = crate::units::parse_formation)]
    #[serde(default)]
    pub formation: Option<crate::scenario::UnitFormation>,
    /// Face this hex corner at the end (10.1): NNE, E, SSE, SSW, W, NNW. Turning costs 1 MP a
    /// corner (1 for 180°); with --to the unit's own hex it only turns.
    #[arg(long)]
    #[serde(default)]
    pub face: Option<crate::movement::facing::Corner>,
    /// Forced March (12.5.6): 1 or 2 sets of +3 MP, a Morale Check for Stragglers each;
    /// infantry in Column, not DG, on the road all the way.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=2))]
    #[serde(default)]
    pub forced_march: u8,
    /// Generate Line Extensions into these adjacent hexes (13.1.3), with --to the unit's own
    /// hex: `--extend 5.06,6.05`. Infantry in Line of B strength or more; two for A or more.
    #[arg(long, value_delimiter = ',')]
    #[serde(default)]
    pub extend: Vec<Hex>,
    /// Remove the Line Extensions in these hexes (13.1.4), with --to the unit's own hex.
    #[arg(long, value_delimiter = ',')]
    #[serde(default)]
    pub retract: Vec<Hex>,
    /// Move the unit's Line Extension in this hex on its own (13.1.1, 13.1.2), with its own MP
    /// and facing, to --to: a hex next to the unit (13.0).
    #[arg(long, value_name = "HEX")]
    #[serde(default)]
    pub extension: Option<Hex>,
    /// Line Backstep (12.4.1): a Line steps one hex in any direction keeping its facing, for
    /// its whole Movement Allowance.
    #[arg(long)]
    #[serde(default)]
    pub backstep: bool,
    /// A retreat (21.4) away from this hex — the cause: the attacker's hex, the firing battery's.
    /// Hexes, not MP, in either player's turn: one hex for a beaten unit, six for a Routed one,
    /// never closer to the enemy (21.4.1); a step from one enemy ZoI hex into another lowers its
    /// Morale State (11.3.1). Give every hex with --path (a one-hex retreat needs only --to).
    #[arg(long, value_name = "HEX")]
    #[serde(default)]
    pub retreat_from: Option<Hex>,
}

/// Skirmisher quality (18, 26.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QualityArg {
    Elite,
    Regular,
    Rifles,
}

impl From<QualityArg> for crate::combat::fire::SkirmisherQuality {
    fn from(q: QualityArg) -> Self {
        use crate::combat::fire::SkirmisherQuality as Q;
        match q {
            QualityArg::Elite => Q::Elite,
            QualityArg::Regular => Q::Regular,
            QualityArg::Rifles => Q::Rifles,
        }
    }
}

/// Combat procedures a player starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProcedureArg {
    /// Close Combat (15, 19).
    CloseCombat,
    /// A cavalry charge (16).
    Charge,
    /// Artillery fire (17): the attackers are batteries.
    Fire,
    /// Skirmisher fire (18): the attackers are skirmishers.
    SkirmisherFire,
}

/// `combat PROCEDURE`: resolve a combat (14–19).
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct CombatRequest {
    /// Which procedure.
    #[arg(value_enum)]
    pub procedure: ProcedureArg,
    /// Attacking unit (repeat for a stack; the first leads, 14.2). Batteries for `fire`.
    #[arg(long = "attacker", required = true)]
    pub attackers: Vec<String>,
    /// Defending unit (repeat for a stack; the first leads, 14.2).
    #[arg(long = "defender", required = true)]
    pub defenders: Vec<String>,
    /// The defender is behind fortified terrain (15.2.1).
    #[arg(long)]
    #[serde(default)]
    pub fortified: bool,
    /// Charge: the target forms Square (16.2.1). The defender's player decides: when the target
    /// may form Square, one of --form-square or --no-square is required.
    #[arg(long, conflicts_with = "no_square")]
    #[serde(default)]
    pub form_square: bool,
    /// Charge: the target does not form Square (16.2.1; see --form-square).
    #[arg(long)]
    #[serde(default)]
    pub no_square: bool,
    /// Charge: Follow-on Charges against the same target after a success (0–3, 16.2.7.2).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=3))]
    #[serde(default)]
    pub follow_ons: u8,
    /// Charge: a Reaction Charge (16.5), allowed without orders, with no Follow-ons.
    #[arg(long)]
    #[serde(default)]
    pub reaction: bool,
    /// Charge: a Follow-on Charge against a new target (16.2.7.3).
    #[arg(long)]
    #[serde(default)]
    pub follow_on: bool,
    /// The attacking Skirmishers' quality: their Fire Value in skirmisher fire (18) and for
    /// Skirmisher Disadvantage in close combat (15.2.2 box). Elite for British and French,
    /// rifles 26.3.
    #[arg(long, value_enum, default_value_t = QualityArg::Elite)]
    pub quality: QualityArg,
    /// The defending stack's Skirmishers' quality: their Fire Value is deducted from the firers'
    /// (18.3) and counts for Skirmisher Disadvantage in close combat (15.2.2 box).
    #[arg(long, value_enum, default_value_t = QualityArg::Elite)]
    pub defender_quality: QualityArg,
    /// A Skirmisher named in a stack (not its Lead Unit) takes the stack's even Permanent
    /// Casualties, the 2nd, 4th, … (20.2), at most N of them and never more than its steps
    /// left: `UNIT` or `UNIT=N`. The owner's choice.
    #[arg(long, value_name = "UNIT[=N]")]
    #[serde(default)]
    pub skirmisher_absorbs: Vec<String>,
    /// Fire: Cannister (17.4.9), Opportunity Fire at units entering the battery's hex, so at
    /// range 1; either side fires it, also in the other player's turn (17.4).
    #[arg(long)]
    #[serde(default)]
    pub cannister: bool,
    /// The umpire rules the arc the attack comes through (10.0) instead of the one read from
    /// the defender's facing (for --cannister, the battery's): front, flank or rear. With
    /// --ruling.
    #[arg(long, value_enum, requires = "ruling")]
    #[serde(default)]
    pub attack_arc: Option<ArcArg>,
    /// The umpire rules a charged Line's flanks (chart p4 note 1): secure or open. With --ruling.
    #[arg(long, value_enum, requires = "ruling")]
    #[serde(default)]
    pub flanks: Option<FlanksArg>,
    /// Close Combat: a lone Skirmisher attacked in Hindering terrain stands and fights as C-size
    /// infantry (15.1.7, the defender's player's choice; elsewhere it must retreat).
    #[arg(long, conflicts_with = "skirmisher_retreats")]
    #[serde(default)]
    pub skirmisher_stands: bool,
    /// Close Combat: a lone Skirmisher attacked in Hindering terrain retreats one hex before the
    /// combat (15.1.7, the defender's player's choice).
    #[arg(long)]
    #[serde(default)]
    pub skirmisher_retreats: bool,
    /// Close Combat: the umpire lets the attackers enter the defender's hex across a hexside
    /// that is not frontal (12.1.1, 15.1.4). With --ruling.
    #[arg(long, requires = "ruling")]
    #[serde(default)]
    pub allow_entry: bool,
    /// Why the umpire rules the arc, the flanks or the entry; recorded with the combat (umpire
    /// only).
    #[arg(long, value_name = "REASON")]
    #[serde(default)]
    pub ruling: Option<String>,
    /// The attacker is the Line Extension of the one unit named, in this hex (13.1.1).
    #[arg(long, value_name = "HEX")]
    #[serde(default)]
    pub attacker_at: Option<Hex>,
    /// The defender is the Line Extension of the one unit named, in this hex (13.1.1).
    #[arg(long, value_name = "HEX")]
    #[serde(default)]
    pub defender_at: Option<Hex>,
    /// Fire: Opportunity Fire (17.4) at the defender in this hex of the path it moved along in
    /// this Movement Phase; the batteries' side fires it in the other player's turn. The hex
    /// must be in each battery's Opportunity Fire Zone (3 hexes, fire arc, line of sight).
    #[arg(long, value_name = "HEX", conflicts_with = "cannister")]
    #[serde(default)]
    pub opportunity_at: Option<Hex>,
    /// Fire: the Opportunity Fire at --opportunity-at answers the defender's formation change
    /// in that hex (17.4 trigger 3), not its move.
    #[arg(long, requires = "opportunity_at")]
    #[serde(default)]
    pub formation_change: bool,
    /// Fire: the umpire lets the batteries fire though 17.4.1 refuses it (a battery fires at a
    /// given unit once each Movement Phase, Cannister included; one firer per trigger). With
    /// --ruling.
    #[arg(long, requires = "ruling")]
    #[serde(default)]
    pub allow_fire: bool,
    /// Charge: the Reaction Charge (16.5) meets the defender at this hex of its move, formation
    /// change or retreat in this phase, one of the hexes offered; a Rout, a Square or a retreat
    /// stops its move there. A Morale Check is rolled when the hex is outside the cavalry's
    /// frontal arc (16.5.5).
    #[arg(long = "at", value_name = "HEX", requires = "reaction")]
    #[serde(default)]
    pub reaction_at: Option<Hex>,
    /// Charge: the umpire lets a Reaction Charge through 16.5.3 (one per Cavalry Charge, none
    /// against a reaction triggered by cavalry, none into a charge's target hex). With --ruling.
    #[arg(long, requires = "ruling", requires = "reaction")]
    #[serde(default)]
    pub allow_reaction: bool,
    /// Charge: 17.4.6, a battery that Opportunity Fires at the target as it forms Square (17.4
    /// trigger 3; repeat for batteries firing together): the charge is interrupted, the fire
    /// resolved first, and a target it Disorganizes does not form Square; then the charge goes
    /// on. The battery's side decides to fire; the target must be in its Opportunity Fire Zone.
    /// With --form-square.
    #[arg(long = "square-fire", value_name = "BATTERY", requires = "form_square")]
    #[serde(default)]
    pub square_fire: Vec<String>,
}

impl CombatRequest {
    /// A combat between these pieces with every option at the command line's default (Elite
    /// Skirmishers, nothing ruled, no Follow-ons): callers set only what they ask for.
    pub fn between(
        procedure: ProcedureArg,
        attackers: Vec<String>,
        defenders: Vec<String>,
    ) -> Self {
        CombatRequest {
            procedure,
            attackers,
            defenders,
            fortified: false,
            form_square: false,
            no_square: false,
            follow_ons: 0,
            reaction: false,
            follow_on: false,
            quality: QualityArg::Elite,
            defender_quality: QualityArg::Elite,
            skirmisher_absorbs: Vec::new(),
            cannister: false,
            attack_arc: None,
            flanks: None,
            skirmisher_stands: false,
            skirmisher_retreats: false,
            allow_entry: false,
            ruling: None,
            attacker_at: None,
            defender_at: None,
            opportunity_at: None,
            formation_change: false,
            allow_fire: false,
            reaction_at: None,
            allow_reaction: false,
            square_fire: Vec::new(),
        }
    }
}

/// An arc of a unit (10.0 box), as the umpire rules it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArcArg {
    Front,
    Flank,
    Rear,
}

impl From<ArcArg> for crate::movement::facing::Arc {
    fn from(a: ArcArg) -> Self {
        use crate::movement::facing::Arc;
        match a {
            ArcArg::Front => Arc::Front,
            ArcArg::Flank => Arc::Flank,
            ArcArg::Rear => Arc::Rear,
        }
    }
}

/// A Line's flanks (chart p4 note 1), as the umpire rules them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlanksArg {
    Secure,
    Open,
}

/// Status of an order imposed by the umpire (`override --impose-order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImposedStatusArg {
    Accepted,
    D4,
    D5,
    D6,
}

impl From<ImposedStatusArg> for crate::engine::command::ImposedStatus {
    fn from(s: ImposedStatusArg) -> Self {
        use crate::engine::command::ImposedStatus as I;
        match s {
            ImposedStatusArg::Accepted => I::Accepted,
            ImposedStatusArg::D4 => I::D4,
            ImposedStatusArg::D5 => I::D5,
            ImposedStatusArg::D6 => I::D6,
        }
    }
}

/// Morale States (21.1), for `override --set-unit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoraleStateArg {
    BloodLust,
    Normal,
    Shaken,
    Disorganized,
    Routed,
}

impl From<MoraleStateArg> for crate::combat::MoraleState {
    fn from(m: MoraleStateArg) -> Self {
        use crate::combat::MoraleState as M;
        match m {
            MoraleStateArg::BloodLust => M::BloodLust,
            MoraleStateArg::Normal => M::Normal,
            MoraleStateArg::Shaken => M::Shaken,
            MoraleStateArg::Disorganized => M::Disorganized,
            MoraleStateArg::Routed => M::Routed,
        }
    }
}

/// `override`: an umpire's override, recorded with a reason (exactly one action).
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct OverrideRequest {
    /// Why the umpire overrides (recorded, shown only to the umpire).
    #[arg(long)]
    pub reason: String,
    /// Mark a command wrecked (21.6).
    #[arg(long, value_name = "COMMAND")]
    pub wreck: Option<String>,
    /// Clear a command's wrecked mark.
    #[arg(long, value_name = "COMMAND")]
    pub unwreck: Option<String>,
    /// Mark a command's original commander lost (6.7).
    #[arg(long, value_name = "COMMAND")]
    pub commander_lost: Option<String>,
    /// Place a piece: `PIECE=HEX` (a courier, commander, HQ or unit).
    #[arg(long, value_name = "PIECE=HEX")]
    pub place: Option<String>,
    /// Discard an order by number (e.g. a courier captured).
    #[arg(long, value_name = "N")]
    pub discard_order: Option<u32>,
    /// Put a command in No Orders Status.
    #[arg(long, value_name = "COMMAND")]
    pub no_orders: Option<String>,
    /// Record a ruling (e.g. how an order is to be read).
    #[arg(long, value_name = "TEXT")]
    pub ruling: Option<String>,
    /// Roll the acceptance of an order in delay or distorted again (6.5).
    #[arg(long, value_name = "N")]
    pub reroll: Option<u32>,
    /// Put an order in force for a command (with --text and --status), e.g. to set up a situation.
    #[arg(long, value_name = "COMMAND")]
    pub impose_order: Option<String>,
    /// The order text for --impose-order.
    #[arg(long)]
    pub text: Option<String>,
    /// Status of the imposed order.
    #[arg(long, value_enum, default_value_t = ImposedStatusArg::Accepted)]
    pub status: ImposedStatusArg,
    /// Set a unit's combat state (with --losses, --morale-state, --blown or --not-blown): to
    /// correct a unit or set up a situation. Wrecked status is set with --wreck/--unwreck.
    #[arg(long, value_name = "UNIT")]
    pub set_unit: Option<String>,
    /// With --set-unit: the marks on its Loss Chart row, "P (S)" — Permanent Casualties and
    /// Stragglers (20.4); for a battery, gun points lost.
    #[arg(long, value_name = "P (S)", requires = "set_unit")]
    pub losses: Option<String>,
    /// With --set-unit: its Morale State (21.1).
    #[arg(long, value_enum, value_name = "STATE", requires = "set_unit")]
    pub morale_state: Option<MoraleStateArg>,
    /// With --set-unit: the cavalry is Blown (22.2).
    #[arg(long, requires = "set_unit", conflicts_with = "not_blown")]
    #[serde(default)]
    pub blown: bool,
    /// With --set-unit: the cavalry is not Blown (22.2).
    #[arg(long, requires = "set_unit")]
    #[serde(default)]
    pub not_blown: bool,
}

/// `replay`: play the recorded events back, optionally verifying.
#[derive(Args, Clone, Debug, Default, Serialize, Deserialize)]
pub struct ReplayRequest {
    /// Stop the playback after this turn.
    #[arg(long)]
    pub to_turn: Option<u32>,
    /// Check the record (hash chain, every event under a recorded command, the game row's head)
    /// and re-simulate every command from the seed: exactly the stored events, no more and no
    /// fewer. A verify that cannot re-simulate fails unless `--chain-only` is given. The
    /// umpire's only: it reads every hidden event.
    #[arg(long)]
    #[serde(default)]
    pub verify: bool,
    /// With --verify: check the chain and structure only, without re-simulating (reported as
    /// "chain only, NOT re-simulated"). For files from another staffwork version.
    #[arg(long, requires = "verify")]
    #[serde(default)]
    pub chain_only: bool,
    /// With --verify: a receipt (from `staffwork receipt`) the file must still contain; a file
    /// cut back before the receipt, or rewritten, fails.
    #[arg(long, requires = "verify", value_name = "RECEIPT")]
    #[serde(default)]
    pub receipt: Option<std::path::PathBuf>,
}

/// `receipt`: a keyed digest of the record as it stands, to keep and check later with
/// `replay --verify --receipt` (decision 0050).
#[derive(Args, Clone, Debug, Default, Serialize, Deserialize)]
pub struct ReceiptRequest {
    /// Write the receipt to this file (JSON) as well as printing it.
    #[arg(long)]
    #[serde(default)]
    pub out: Option<std::path::PathBuf>,
}

/// `branch`: copy a game up to a turn into a new file.
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct BranchRequest {
    /// Keep the history up to the end of this turn.
    #[arg(long)]
    pub at_turn: u32,
    /// The new game file.
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// New dice from the branch point on.
    #[arg(long)]
    pub seed: Option<u64>,
}

/// `odds --order N`: the exact acceptance odds of a pending order (6.5).
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct OddsRequest {
    /// The order number (see `staffwork log`).
    #[arg(long)]
    pub order: u32,
}

/// `new`: start a game (the front end creates the file; see [`super::new_game`]).
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct NewRequest {
    /// Scenario file (TOML), or a bundled scenario name such as `tutorial-hall`.
    #[arg(long)]
    pub scenario: String,
    /// Seed of the game's dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Command tables to use instead of the bundled ones (see `staffwork rules show`).
    #[arg(long)]
    pub tables: Option<std::path::PathBuf>,
    /// Combat tables replacing sections of the built-in ones (see docs/combat.md); stored in the game.
    #[arg(long)]
    pub combat_tables: Option<std::path::PathBuf>,
    /// A Movement Table replacing rows of the built-in one (chart p2; see docs/rules.md and
    /// `staffwork rules show movement`); stored in the game.
    #[arg(long)]
    #[serde(default)]
    pub movement_tables: Option<std::path::PathBuf>,
    /// A scenario variant to play (repeatable; `staffwork scenario show` lists them).
    #[arg(long)]
    #[serde(default)]
    pub variant: Vec<String>,
}

/// `show`: one unit at a glance, as the asking seat may see it (issue 17, decision 0121).
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct ShowRequest {
    /// The unit: its id, name, short name or its brigadier's name (`solignac`, "Fane's
    /// brigade", `6th Brigade`).
    pub unit: String,
}

/// `report`: what a seat learned in one game turn (issue 17, decision 0122).
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct ReportRequest {
    /// The game turn to report (see `staffwork status` for the current one).
    #[arg(long, value_name = "N")]
    pub turn: u32,
}

/// `undo`: the umpire takes back the last command(s) that no side could yet have seen (decision
/// 0124). Recorded as a retraction, replayed and verified like every command; nothing is deleted.
#[derive(Args, Clone, Debug, Serialize, Deserialize)]
pub struct UndoRequest {
    /// How many of the last commands to take back.
    #[arg(long, default_value_t = 1, value_name = "N")]
    #[serde(default = "one")]
    pub commands: usize,
    /// Why (recorded, and told to every side with the count).
    #[arg(long)]
    pub reason: String,
}

fn one() -> usize {
    1
}

/// A piece list given as one string (the request's shape before several pieces) or a list.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}
