//! Typed responses and the per-seat views the application layer computes: where the game
//! stands, the status, the Order Log and events, replay and branch reports. Serialised, they are
//! the JSON every front end shows; the CLI renders the same structs as text. A side's view holds
//! only what rule 4.0 lets that side see: every filter is `crate::view`'s allow-list (which
//! seat owns what, which events it sees, its own numbering); this file only shapes documents.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::engine::{CommandStatus, Event, OrderOrigin, OrderStatus, Step, state::Loan};
use crate::game::{Game, Verification};
use crate::hex::Hex;
use crate::rules::{Method, OrderType};
use crate::view::{Viewer, effective, owns};

/// What a command changed: its events and where the game now stands.
#[derive(Clone, Debug, Serialize)]
pub struct Applied {
    pub events: Vec<Event>,
    pub turn: u32,
    pub step: Step,
    /// The warnings the order language found in an accepted order (issue 17).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<crate::order::Diagnostic>,
    /// The Opportunity Fire a move offers the enemy's batteries (17.4), for the umpire and the
    /// batteries' side; nothing is rolled until one fires (`combat fire --opportunity-at`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub opportunity_fire: Vec<crate::engine::opportunity::OpportunityOffer>,
    /// The Reaction Charges a move offers the enemy's cavalry (16.5), seen as the Opportunity
    /// Fire is; nothing is rolled until one charges (`combat charge --reaction`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reaction_charges: Vec<crate::engine::opportunity::ReactionOffer>,
}

/// Where the game stands: turn, time, phasing side, window (5.1).
#[derive(Clone, Debug, Serialize)]
pub struct Where {
    pub turn: u32,
    /// The turn's time of day, `HH:MM` (empty past the last turn).
    pub time: String,
    pub phasing: String,
    pub step: Step,
    /// The phasing side's command points; only for the umpire and the phasing side (4.0).
    pub command_points: Option<u8>,
}

/// One order as the Order Log of rule 6.4.5 shows it.
#[derive(Clone, Debug, Serialize)]
pub struct OrderEntry {
    pub number: u32,
    pub side: String,
    pub time_sent: String,
    pub sent_turn: u32,
    pub arrival_time: String,
    pub arrival_turn: u32,
    pub sender: String,
    pub receiver: String,
    pub text: String,
    pub readback: String,
    pub method: Option<Method>,
    #[serde(rename = "type")]
    pub order_type: OrderType,
    pub origin: OrderOrigin,
    pub cost: u8,
    pub status: OrderStatus,
}

/// One command in a status view.
#[derive(Clone, Debug, Serialize)]
pub struct CommandEntry {
    pub command: String,
    pub side: String,
    pub status: CommandStatus,
    /// The parent whose orders it follows (a No Orders sub-command following its parent).
    pub follows: Option<String>,
    pub order: Option<u32>,
    pub stage: usize,
    pub independent: bool,
    pub wrecked: bool,
    pub distortion_unnoticed: bool,
    pub loan: Option<Loan>,
}

/// A side's command points.
#[derive(Clone, Debug, Serialize)]
pub struct SideEntry {
    pub side: String,
    pub command_points: u8,
}

/// A unit's Loss Chart row and state (20.4, 21.1, 22.2).
#[derive(Clone, Debug, Serialize)]
pub struct UnitEntry {
    pub unit: String,
    pub side: String,
    pub permanent: u8,
    pub stragglers: u8,
    pub skirmisher_losses: u8,
    pub boxes: u8,
    pub remaining: u8,
    pub morale: crate::combat::MoraleState,
    pub blown: bool,
    pub wrecked: bool,
}

impl UnitEntry {
    /// Has anything happened to the unit worth showing?
    pub fn hurt(&self) -> bool {
        self.permanent != 0
            || self.stragglers != 0
            || self.skirmisher_losses != 0
            || self.morale != crate::combat::MoraleState::Normal
            || self.blown
    }
}

/// A unit's formation and facing, and the MP it has spent this phase (8, 10, 12).
#[derive(Clone, Debug, Serialize)]
pub struct FormationEntry {
    pub unit: String,
    pub formation: crate::scenario::UnitFormation,
    /// The corners it faces, or `all-around`.
    pub facing: String,
    pub facing_corners: Option<Vec<crate::movement::facing::Corner>>,
    /// MP spent this phase, e.g. `2½`.
    pub mp_spent: String,
    /// Hexes its Line Extensions hold (13).
    pub extensions: Vec<crate::hex::Hex>,
    /// Each Line Extension's own Morale State, facing and MP spent this phase (13.1.2,
    /// decision 0153).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extension_parts: Vec<ExtensionEntry>,
}

/// One Line Extension as `status` shows it (13.1.2: its own Morale State, facing and MP).
#[derive(Clone, Debug, Serialize)]
pub struct ExtensionEntry {
    pub hex: crate::hex::Hex,
    pub morale: crate::combat::MoraleState,
    /// Line, or the Square it formed against a charge (13.2.1, decision 0198).
    pub formation: crate::scenario::UnitFormation,
    /// The corner it faces, or its parent's facing while that is still open (decision 0083).
    pub facing: String,
    /// MP spent this phase, e.g. `3`.
    pub mp_spent: String,
}

/// `status`: the game as a seat may see it.
#[derive(Clone, Debug, Serialize)]
pub struct StatusView {
    /// `umpire`, `observer` or the side's id.
    pub viewer: String,
    pub turn: u32,
    pub phasing: String,
    pub step: Step,
    pub sides: Vec<SideEntry>,
    pub commands: Vec<CommandEntry>,
    pub positions: BTreeMap<String, Hex>,
    pub units: Vec<UnitEntry>,
    pub orders: Vec<OrderEntry>,
    /// Hexes where the side sees an enemy stack it may not examine: no Commander of its own
    /// within 12 hexes with line of sight (4.0, decision 0161). Not which pieces, nor how many.
    pub enemy_stacks: Vec<Hex>,
    /// Enemy pieces out of sight now: where and when this side last saw them (4.0).
    pub last_seen: BTreeMap<String, crate::view::LastSeen>,
    /// Formation and facing of the seat's own units on the map (8, 10).
    pub formations: Vec<FormationEntry>,
    /// Opportunity Fire open in this Movement Phase (17.4): the batteries that may fire at a
    /// unit that moved, and where; the umpire's pending items, a side's own batteries' offers.
    pub opportunity_fire: Vec<crate::engine::opportunity::OpportunityOffer>,
    /// Reaction Charges open in this phase (16.5): the cavalry that may charge a unit that
    /// moved, changed formation or retreated in its Reaction Zone, and where.
    pub reaction_charges: Vec<crate::engine::opportunity::ReactionOffer>,
    /// Cavalry Withdrawals owed in this phase (22.1): cavalry an enemy infantry or artillery
    /// unit moved next to, which must Reaction Charge it or withdraw 6–12 hexes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cavalry_withdrawals: Vec<crate::engine::opportunity::WithdrawalOwed>,
    /// Where the game stands, for the seat (shown as the heading of the text view).
    #[serde(skip)]
    pub at: Where,
}

/// One recorded event a seat may see. `number` counts only the events this seat sees (1, 2, 3
/// …), so the gaps reveal nothing; the umpire also gets the file's sequence number and hash,
/// which are computed over hidden events and so are never shown to a side (decision 0051).
#[derive(Clone, Debug, Serialize)]
pub struct LoggedEvent {
    pub number: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    pub event: Event,
}

/// `log`: the Order Log and the events as a seat may see them.
#[derive(Clone, Debug, Serialize)]
pub struct LogView {
    /// `umpire`, `observer` or the side's id.
    pub viewer: String,
    pub orders: Vec<OrderEntry>,
    pub events: Vec<LoggedEvent>,
}

/// `replay`: the playback and, if asked, the verification. A side is told the turn and its own
/// orders only; the event count, the verification and the receipt check are the umpire's.
#[derive(Clone, Debug, Serialize)]
pub struct Replayed {
    pub viewer: String,
    pub turn: u32,
    pub orders: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification: Option<Verification>,
    pub chain_only: bool,
    /// `Ok(events covered)` or why the file no longer holds the receipt's record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<ReceiptCheck>,
    pub ok: bool,
}

/// What a receipt check found.
#[derive(Clone, Debug, Serialize)]
pub struct ReceiptCheck {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// A receipt: a keyed digest of the record's head that a player or the umpire keeps, so that a
/// file later cut back or rewritten before that point is evident (decision 0050). A side's
/// receipt holds no count and no hash: only the digest, which cannot be tested against guesses
/// without the file's key.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Receipt {
    pub staffwork_receipt: u32,
    pub scenario: String,
    pub seat: String,
    pub turn: u32,
    pub digest: String,
    /// Umpire's receipts only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_hash: Option<String>,
}

/// `branch`: the new game file.
#[derive(Clone, Debug, Serialize)]
pub struct Branched {
    pub out: std::path::PathBuf,
    pub at_turn: u32,
    pub turn: u32,
    pub events: u64,
    /// Where the new game stands (the text view's last line).
    #[serde(skip)]
    pub at: Where,
}

/// `odds --order N`: the exact acceptance odds of a pending order in its real situation (6.5).
#[derive(Clone, Debug, Serialize)]
pub struct OrderOdds {
    pub order: u32,
    pub odds: crate::rules::odds::AcceptanceOdds,
    /// The hash of the game's command tables the odds come from.
    pub tables_hash: String,
}

/// `odds close-combat|charge|fire --db`: the exact odds of a combat between pieces of the game,
/// with what the game read for it (decision 0166).
#[derive(Clone, Debug, Serialize)]
pub struct CombatOddsView {
    pub procedure: super::request::ProcedureArg,
    pub attackers: Vec<String>,
    pub defenders: Vec<String>,
    /// The arc each attack comes through, read from facing (`ruled_by: facing`) or given
    /// (`ruled_by: umpire: REASON`; 10.0, decision 0140).
    pub aspects: Vec<crate::engine::aspect::AspectReadback>,
    /// What the combat core is given: the combatants as the game holds them.
    pub input: crate::engine::combat_system::CombatInput,
    pub odds: crate::combat::odds::CombatOdds,
}

/// `new`: the game that was created.
#[derive(Clone, Debug, Serialize)]
pub struct Created {
    pub scenario: String,
    pub title: String,
    pub seed: u64,
    pub turn: u32,
    pub phasing: String,
    #[serde(skip)]
    pub at: Where,
}

/// The time of day of a turn, `HH:MM`.
fn turn_time(game: &Game, turn: u32) -> Option<String> {
    game.engine()
        .turn_info(turn)
        .map(|t| t.time.format("%H:%M").to_string())
}

/// Where the game stands, for a seat.
pub fn where_(game: &Game, seat: &Viewer) -> Where {
    let seat = &effective(seat, &game.state);
    let phasing = game.state.phasing().to_string();
    let command_points = owns(seat, &phasing).then(|| {
        game.state
            .sides
            .get(&phasing)
            .map_or(0, |s| s.command_points)
    });
    Where {
        turn: game.state.turn,
        time: turn_time(game, game.state.turn).unwrap_or_default(),
        phasing,
        step: game.state.step,
        command_points,
    }
}

/// The Order Log of rule 6.4.5 as a seat may see it, in the seat's order numbers (a side's own
/// orders 1, 2, 3 …; decision 0160).
pub fn order_log(game: &Game, seat: &Viewer) -> Vec<OrderEntry> {
    let time = |t: u32| turn_time(game, t).unwrap_or_else(|| "start".into());
    let numbers = crate::view::OrderNumbers::for_seat(&game.state, seat);
    game.state
        .orders
        .values()
        .filter(|o| owns(seat, &o.side))
        .map(|o| OrderEntry {
            number: numbers.shown(o.number),
            side: o.side.clone(),
            time_sent: time(o.sent_turn),
            sent_turn: o.sent_turn,
            arrival_time: time(o.arrival_turn),
            arrival_turn: o.arrival_turn,
            sender: o.sender.clone(),
            receiver: o.recipient.clone(),
            text: o.text.clone(),
            readback: o.readback.clone(),
            method: o.method,
            order_type: o.order_type,
            origin: o.origin,
            cost: o.cost,
            status: o.status.clone(),
        })
        .collect()
}

/// `status` for a seat.
pub fn status(game: &Game, seat: &Viewer) -> StatusView {
    let seat = &effective(seat, &game.state);
    let state = &game.state;
    let numbers = crate::view::OrderNumbers::for_seat(state, seat);
    let commands = state
        .commands
        .iter()
        .filter(|(_, c)| owns(seat, &c.side))
        .map(|(id, c)| CommandEntry {
            command: id.clone(),
            side: c.side.clone(),
            status: c.status,
            follows: (c.follows_parent && c.status == CommandStatus::NoOrders)
                .then(|| c.parent.clone())
                .flatten(),
            order: c.current_order.map(|n| numbers.shown(n)),
            stage: c.stage,
            independent: c.independent,
            wrecked: c.wrecked,
            distortion_unnoticed: c.distortion_unnoticed,
            loan: c.loan,
        })
        .collect();
    let sides = state
        .sides
        .iter()
        .filter(|(s, _)| owns(seat, s))
        .map(|(s, x)| SideEntry {
            side: s.clone(),
            command_points: x.command_points,
        })
        .collect();
    // Loss charts (20.4), starting with the losses suffered before the scenario (Talavera 7.1):
    // a side sees only its own (4.0).
    let units = state
        .units
        .iter()
        .filter_map(|(id, u)| {
            let side = game.scenario.unit(id)?.side.clone();
            if !owns(seat, &side) {
                return None;
            }
            Some(UnitEntry {
                unit: id.clone(),
                side,
                permanent: u.track.permanent,
                stragglers: u.track.stragglers,
                skirmisher_losses: u.skirmisher_losses,
                boxes: u.track.boxes,
                remaining: u.track.remaining(),
                morale: u.morale,
                blown: u.blown,
                // Only a brigade is Wrecked (21.6); a battery's chart counts gun points.
                wrecked: state.commands.get(id).is_some_and(|c| c.wrecked),
            })
        })
        .collect();
    let sighting = crate::view::sighting(state, &game.scenario, seat);
    StatusView {
        viewer: seat.name().to_string(),
        turn: state.turn,
        phasing: state.phasing().to_string(),
        step: state.step,
        sides,
        commands,
        positions: sighting.named,
        enemy_stacks: sighting.stacks.into_iter().collect(),
        units,
        orders: order_log(game, seat),
        last_seen: match seat {
            Viewer::Side(side) => game
                .store
                .events()
                .map(|events| {
                    let events: Vec<Event> = events.into_iter().map(|e| e.event).collect();
                    crate::view::last_seen(&events, &game.scenario, side)
                })
                .unwrap_or_default(),
            _ => BTreeMap::new(),
        },
        formations: formations(game, seat),
        opportunity_fire: crate::view::opportunity_for(
            seat,
            game.engine().opportunity_pending(state),
        ),
        reaction_charges: crate::view::reactions_for(seat, game.engine().reaction_pending(state)),
        cavalry_withdrawals: crate::view::withdrawals_for(
            seat,
            game.engine().withdrawals_pending(state),
        ),
        at: where_(game, seat),
    }
}

/// Formation and facing of the seat's own units on the map (all for the umpire).
fn formations(game: &Game, seat: &Viewer) -> Vec<FormationEntry> {
    use crate::movement::facing;
    let s = &game.scenario;
    s.units
        .iter()
        .filter(|u| game.state.positions.contains_key(&u.id) && owns(seat, &u.side))
        .map(|u| {
            let f = crate::engine::movement::formation_now(s, &game.state, u);
            let set = crate::engine::movement::facing_now(&game.state, u, f);
            let spent = game
                .state
                .movement
                .get(&u.id)
                .map(|m| m.spent_in(game.state.turn, game.state.player).halves)
                .unwrap_or(0);
            FormationEntry {
                unit: u.id.clone(),
                formation: f,
                facing: set.map_or("all-around".to_string(), facing::show_set),
                facing_corners: set.map(|x| facing::members(x).collect()),
                mp_spent: crate::movement::tables::show_halves(spent),
                extensions: game
                    .state
                    .movement
                    .get(&u.id)
                    .map(|m| m.extensions.clone())
                    .unwrap_or_default(),
                extension_parts: game
                    .state
                    .movement
                    .get(&u.id)
                    .map(|m| {
                        m.extension_parts
                            .iter()
                            .map(|p| ExtensionEntry {
                                hex: p.hex,
                                morale: p.morale,
                                formation: p.formation(),
                                facing: p.facing.map_or_else(
                                    || set.map_or("all-around".to_string(), facing::show_set),
                                    |c| c.to_string(),
                                ),
                                mp_spent: crate::movement::tables::show_halves(
                                    p.spent_in(game.state.turn, game.state.player).halves,
                                ),
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// `log` for a seat.
pub fn log(game: &Game, seat: &Viewer) -> Result<LogView, crate::game::GameError> {
    let seat = &effective(seat, &game.state);
    let events = game.store.events()?;
    let seen = crate::view::seen_events(&events, seat, &game.state)
        .into_iter()
        .map(|e| LoggedEvent {
            number: e.number,
            seq: e.seq,
            hash: e.hash.map(str::to_string),
            event: e.event,
        })
        .collect();
    Ok(LogView {
        viewer: seat.name().to_string(),
        orders: order_log(game, seat),
        events: seen,
    })
}
