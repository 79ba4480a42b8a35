//! The umpire's workbench views (issue 17): one unit at a glance (`show`, decision 0121) and
//! what a seat learned in one game turn (`report`, decision 0122).
//!
//! Owns the shape of these two documents. Every filter is `crate::view`'s allow-list (which
//! seat owns what, which events it sees, which pieces it sees on the map); this file adds none
//! of its own and must not print or decide rules.

use serde::Serialize;

use crate::engine::{CommandStatus, EventKind, OrderOrigin};
use crate::game::Game;
use crate::hex::Hex;
use crate::view::{Viewer, effective, owns};

use super::AppError;

/// The order a unit acts on, as its own side knows it (6.3, 6.4.5).
#[derive(Clone, Debug, Serialize)]
pub struct ActingOrder {
    pub number: u32,
    pub readback: String,
    /// The order's status in the Order Log (`accepted`, `delayed D5`, …).
    pub status: String,
    /// Who wrote it: `sent`, `initiative`, `loose-cannon`, `preset`, or `umpire` for an order the
    /// umpire imposed.
    pub origin: String,
    /// The stage being executed (1-based) and how many there are (6.3.3).
    pub stage: usize,
    pub stages: usize,
}

/// The command a unit acts under and its state (6.1, 6.3).
#[derive(Clone, Debug, Serialize)]
pub struct ActingCommand {
    pub command: String,
    pub name: String,
    pub status: CommandStatus,
    /// The commander of that command as the game stands (25), if it has one.
    pub commander: Option<String>,
    /// The order it acts on (accepted and implemented) or, failing that, the newest one still
    /// pending for it.
    pub order: Option<ActingOrder>,
    pub wrecked: bool,
}

/// A unit's loss chart (20.4).
#[derive(Clone, Debug, Serialize)]
pub struct Losses {
    pub permanent: u8,
    pub stragglers: u8,
    pub boxes: u8,
    pub remaining: u8,
}

/// `show`: one unit as the asking seat may see it. An enemy unit in sight shows only what can
/// be seen on the map (where it stands, its formation and facing); its losses, morale and
/// orders are its own side's (4.0).
#[derive(Clone, Debug, Serialize)]
pub struct UnitView {
    pub viewer: String,
    pub unit: String,
    pub name: String,
    pub side: String,
    /// The unit belongs to the other side from the seat asking.
    pub enemy: bool,
    pub kind: crate::scenario::UnitKind,
    /// `None`: not on the map (not yet arrived, or gone).
    pub position: Option<Hex>,
    pub formation: Option<crate::scenario::UnitFormation>,
    pub facing: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strength: Option<crate::units::Strength>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gun_points: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub losses: Option<Losses>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub morale_rating: Option<crate::units::MoraleRating>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub morale: Option<crate::combat::MoraleState>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blown: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<ActingCommand>,
}

/// The command a unit acts under: its own if it is a command with orders of its own, else the
/// formation whose orders it follows (6.1: a sub-unit with No Orders follows its parent).
fn acting_command(game: &Game, unit: &crate::scenario::Unit) -> Option<String> {
    let state = &game.state;
    let mut cur = if state.commands.contains_key(&unit.id) {
        unit.id.clone()
    } else {
        crate::engine::oob::unit_parent(&game.scenario, unit)
    };
    // A temporary division that has ceased to exist hands its members back (V2.3).
    while let Some(c) = state.commands.get(&cur) {
        let follows = (c.follows_parent && c.status == CommandStatus::NoOrders) || c.dissolved;
        match (follows, c.parent.clone()) {
            (true, Some(p)) if p != cur => cur = p,
            _ => break,
        }
    }
    Some(cur)
}

fn origin_word(o: &crate::engine::OrderRecord) -> String {
    if o.sender == "umpire" {
        return "umpire".into();
    }
    match o.origin {
        OrderOrigin::Sent => "sent",
        OrderOrigin::Initiative => "initiative",
        OrderOrigin::LooseCannon => "loose-cannon",
        OrderOrigin::Preset => "preset",
        OrderOrigin::Imposed => "imposed",
    }
    .into()
}

fn command_view(
    game: &Game,
    id: &str,
    numbers: &crate::view::OrderNumbers,
) -> Option<ActingCommand> {
    let state = &game.state;
    let c = state.commands.get(id)?;
    let name = game
        .scenario
        .command(id)
        .map_or_else(|| id.to_string(), |r| r.name().to_string());
    let order_no = c.current_order.or_else(|| {
        state
            .orders
            .values()
            .rev()
            .find(|o| o.recipient == id && o.status.is_pending())
            .map(|o| o.number)
    });
    let order = order_no.and_then(|n| state.orders.get(&n)).map(|o| {
        let current = c.current_order == Some(o.number);
        ActingOrder {
            number: numbers.shown(o.number),
            readback: o.readback.clone(),
            status: crate::engine::describe::status_text(&o.status),
            origin: origin_word(o),
            stage: if current { c.stage + 1 } else { 0 },
            stages: o.stages.len(),
        }
    });
    Some(ActingCommand {
        command: id.to_string(),
        name,
        status: c.status,
        commander: crate::engine::oob::commander_of(&game.scenario, state, id)
            .map(|x| x.name.clone()),
        order,
        wrecked: c.wrecked,
    })
}

/// `show UNIT` for a seat. A side asking about an enemy unit it cannot see now is refused with
/// the same words whether the unit exists or not (`view::not_seen`, 4.0).
pub fn show(game: &Game, seat: &Viewer, unit: &str) -> Result<UnitView, AppError> {
    let seat = &effective(seat, &game.state);
    let u = game
        .scenario
        .unit(unit)
        .ok_or_else(|| AppError::BadRequest(format!("`{unit}` is not a unit of this game")))?;
    let own = owns(seat, &u.side);
    let seen = crate::view::visible_positions(&game.state, &game.scenario, seat);
    if !own && !seen.contains_key(&u.id) {
        return Err(AppError::Refused(crate::view::not_seen(unit, seat.name())));
    }
    let position = seen.get(&u.id).copied();
    let (formation, facing) = match position {
        Some(_) => {
            let f = crate::engine::movement::formation_now(&game.scenario, &game.state, u);
            let set = crate::engine::movement::facing_now(&game.state, u, f);
            (
                Some(f),
                Some(set.map_or("all-around".to_string(), crate::movement::facing::show_set)),
            )
        }
        None => (None, None),
    };
    let state = game.state.units.get(&u.id);
    let numbers = crate::view::OrderNumbers::for_seat(&game.state, seat);
    fn mine<T>(own: bool, x: Option<T>) -> Option<T> {
        x.filter(|_| own)
    }
    Ok(UnitView {
        viewer: seat.name().to_string(),
        unit: u.id.clone(),
        name: u.name.clone(),
        side: u.side.clone(),
        enemy: matches!(seat, Viewer::Side(s) if *s != u.side),
        kind: u.kind,
        position,
        formation,
        facing,
        strength: mine(own, u.strength),
        gun_points: mine(own, u.gun_points),
        losses: mine(
            own,
            state.map(|s| Losses {
                permanent: s.track.permanent,
                stragglers: s.track.stragglers,
                boxes: s.track.boxes,
                remaining: s.track.remaining(),
            }),
        ),
        morale_rating: mine(own, u.morale),
        morale: mine(own, state.map(|s| s.morale)),
        blown: mine(own, state.map(|s| s.blown)),
        command: mine(
            own,
            acting_command(game, u).and_then(|c| command_view(game, &c, &numbers)),
        ),
    })
}

/// One piece of a formation as `show FORMATION` lists it.
#[derive(Clone, Debug, Serialize)]
pub struct Member {
    pub piece: String,
    pub name: String,
    /// `unit`, `commander` or `hq`.
    pub role: &'static str,
    /// `None`: not on the map.
    pub position: Option<Hex>,
}

/// `show FORMATION`: a formation at a glance, for its own side or the umpire (decision 0162):
/// its commander, its pieces and where they stand, its order and status.
#[derive(Clone, Debug, Serialize)]
pub struct FormationView {
    pub viewer: String,
    pub formation: String,
    pub name: String,
    pub side: String,
    pub echelon: crate::scenario::Echelon,
    pub commander: Option<String>,
    pub members: Vec<Member>,
    /// The command it acts under (its own, or its parent's when it follows them), its status
    /// and order in the seat's order numbers.
    pub command: Option<ActingCommand>,
}

/// `show FORMATION` for a seat. A side is shown only its own formations; an enemy formation is
/// refused in the words of a unit it cannot see (4.0): its members, order and status are the
/// enemy's.
pub fn show_formation(
    game: &Game,
    seat: &Viewer,
    formation: &str,
) -> Result<FormationView, AppError> {
    let seat = &effective(seat, &game.state);
    let (s, state) = (&game.scenario, &game.state);
    let f = s.formation(formation).ok_or_else(|| {
        AppError::BadRequest(format!("`{formation}` is not a formation of this game"))
    })?;
    if !owns(seat, &f.side) {
        return Err(AppError::Refused(crate::view::not_seen(
            formation,
            seat.name(),
        )));
    }
    let numbers = crate::view::OrderNumbers::for_seat(state, seat);
    let mut pieces = crate::engine::oob::member_units(s, state, &f.id);
    pieces.extend(state.commanders.get(&f.id).cloned());
    pieces.push(crate::engine::oob::hq_piece(&f.id));
    pieces.extend(crate::engine::oob::formation_pieces(s, state, &f.id));
    pieces.sort();
    pieces.dedup();
    let members = pieces
        .into_iter()
        .filter(|p| {
            s.unit(p).is_some() || s.commander(p).is_some() || state.positions.contains_key(p)
        })
        .map(|p| Member {
            name: piece_name(game, &p),
            role: if s.unit(&p).is_some() {
                "unit"
            } else if s.commander(&p).is_some() {
                "commander"
            } else {
                "hq"
            },
            position: state.positions.get(&p).copied(),
            piece: p,
        })
        .collect();
    let acting = state.commands.get(&f.id).map(|c| {
        let follows = (c.follows_parent && c.status == CommandStatus::NoOrders) || c.dissolved;
        match (follows, c.parent.clone()) {
            (true, Some(p)) => p,
            _ => f.id.clone(),
        }
    });
    Ok(FormationView {
        viewer: seat.name().to_string(),
        formation: f.id.clone(),
        name: f.name.clone(),
        side: f.side.clone(),
        echelon: f.echelon,
        commander: crate::engine::oob::commander_of(s, state, &f.id).map(|c| c.name.clone()),
        members,
        command: acting.and_then(|c| command_view(game, &c, &numbers)),
    })
}

/// One line of a turn report.
#[derive(Clone, Debug, Serialize)]
pub struct ReportLine {
    /// `arrivals`, `orders`, `combat`, `losses` or `messages`.
    pub section: &'static str,
    pub text: String,
}

/// A piece seen on the map at the end of the turn.
#[derive(Clone, Debug, Serialize)]
pub struct SeenPiece {
    pub piece: String,
    pub name: String,
    pub hex: Hex,
    pub enemy: bool,
}

/// `report --turn N`: what a seat learned in one game turn, ready to send to a player.
#[derive(Clone, Debug, Serialize)]
pub struct TurnReport {
    pub viewer: String,
    pub turn: u32,
    /// The turn's time of day, `HH:MM`.
    pub time: String,
    pub lines: Vec<ReportLine>,
    /// Enemy pieces the seat saw on the map at the end of the turn (4.0, 14.1), marked enemy.
    pub enemy_seen: Vec<SeenPiece>,
    /// Hexes where it saw an enemy stack it could not examine (4.0, decision 0161).
    pub enemy_stacks: Vec<Hex>,
}

/// The section of a turn report an event belongs to; `None` leaves it out (sequence markers).
fn section(e: &EventKind) -> Option<&'static str> {
    use EventKind as K;
    Some(match e {
        K::StepBegan { .. } | K::TurnBegan { .. } | K::GameStarted { .. } => return None,
        K::OrderArrived { .. }
        | K::ReinforcementArrived { .. }
        | K::ReinforcementRolled { .. }
        | K::EliminatedUnitRecovery { .. } => "arrivals",
        K::OrderIssued { .. }
        | K::PresetOrder { .. }
        | K::AcceptanceRolled { .. }
        | K::OrderAccepted { .. }
        | K::OrderDelayed { .. }
        | K::OrderImplemented { .. }
        | K::DelayRolled { .. }
        | K::OrderDistorted { .. }
        | K::DistortionDiscoveryRolled { .. }
        | K::OrderDiscarded { .. }
        | K::InitiativeRolled { .. }
        | K::RelayAccepted { .. }
        | K::OrderRelayed { .. }
        | K::ReleaseRolled { .. } => "orders",
        K::CombatResolved { .. } | K::CombatDice { .. } | K::HqOverrun { .. } => "combat",
        K::UnitLossesTaken { .. }
        | K::MoraleDegraded { .. }
        | K::RoutRetreatRequired { .. }
        | K::RetreatBlocked { .. }
        | K::WreckedChanged { .. }
        | K::CommanderLost { .. }
        | K::StragglerCheck { .. } => "losses",
        _ => "messages",
    })
}

/// A piece's name for people: a unit's or commander's name, an HQ's formation.
fn piece_name(game: &Game, piece: &str) -> String {
    let s = &game.scenario;
    if let Some(f) = piece.strip_prefix("hq:").and_then(|id| s.formation(id)) {
        return format!("HQ of {}", f.name);
    }
    s.unit(piece)
        .map(|u| u.name.clone())
        .or_else(|| s.commander(piece).map(|c| c.name.clone()))
        .unwrap_or_else(|| piece.to_string())
}

fn piece_side(game: &Game, piece: &str) -> Option<String> {
    let s = &game.scenario;
    if let Some(f) = piece.strip_prefix("hq:").and_then(|id| s.formation(id)) {
        return Some(f.side.clone());
    }
    s.unit(piece)
        .map(|u| u.side.clone())
        .or_else(|| s.commander(piece).map(|c| c.side.clone()))
}

/// `report --turn N` for a seat: the events of that turn it sees (`view::seen_events`), each
/// described once (`engine::describe`), and the enemy pieces it saw at the turn's end
/// (`view::visible_positions` over the state played back to that turn).
pub fn report(game: &Game, seat: &Viewer, turn: u32) -> Result<TurnReport, AppError> {
    let seat = &effective(seat, &game.state);
    if turn == 0 || turn > game.state.turn {
        return Err(AppError::BadRequest(format!(
            "--turn {turn}: the game has played turns 1 to {}; give one of those",
            game.state.turn
        )));
    }
    let events = game.store.events().map_err(|e| AppError::Game(e.into()))?;
    let lines = crate::view::seen_events(&events, seat, &game.state)
        .into_iter()
        .filter(|e| e.event.turn == turn)
        .filter_map(|e| {
            Some(ReportLine {
                section: section(&e.event.kind)?,
                text: e.event.describe(),
            })
        })
        .collect();
    let state = game.state_at(Some(turn))?;
    let sighting = crate::view::sighting(&state, &game.scenario, seat);
    let enemy_seen = match seat {
        Viewer::Side(side) => sighting
            .named
            .into_iter()
            .filter(|(p, _)| piece_side(game, p).is_some_and(|s| s != *side))
            .map(|(p, hex)| SeenPiece {
                name: piece_name(game, &p),
                piece: p,
                hex,
                enemy: true,
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok(TurnReport {
        viewer: seat.name().to_string(),
        turn,
        time: game
            .engine()
            .turn_info(turn)
            .map(|t| t.time.format("%H:%M").to_string())
            .unwrap_or_default(),
        lines,
        enemy_seen,
        enemy_stacks: sighting.stacks.into_iter().collect(),
    })
}

/// Why the engine would refuse a previewed order (its rule and help).
#[derive(Clone, Debug, Serialize)]
pub struct WouldRefuse {
    pub code: &'static str,
    pub rule: &'static str,
    pub message: String,
    pub help: String,
}

/// `check --db`: an order read and decided against the game as it stands, nothing written
/// (decision 0123).
#[derive(Clone, Debug, Serialize)]
pub struct Preview {
    /// The order as the order language reads it (read-back, type, diagnostics).
    pub order: crate::order::CheckedOrder,
    /// Would `order` with these arguments be recorded now?
    pub legal: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<WouldRefuse>,
    /// The number, cost (6.4.1), courier arrival (6.4.7) and status it would get.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recipient: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<u8>,
    /// Command points the side has before the order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points_before: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arrival_turn: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arrival_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The exact acceptance odds it would meet (6.5), for an order sent by aide or in person.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub odds: Option<crate::rules::odds::AcceptanceOdds>,
    /// The copies to the further commands the text names ("2nd and 3rd Div: …"), each an
    /// order of its own (decision 0184); the fields above are the first copy's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub copies: Vec<CopyPreview>,
}

/// One more copy of an order addressed to several commands (decision 0184).
#[derive(Clone, Debug, Serialize)]
pub struct CopyPreview {
    pub number: u32,
    pub recipient: String,
    pub cost: u8,
    pub arrival_turn: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arrival_time: Option<String>,
    pub status: String,
}

/// Read and decide an order for a seat against the game as it stands, writing nothing: the
/// same checks as `order` (names, the seat, the order language, every engine rule), with dice
/// that are not the game's (`Game::preview`).
pub fn preview(game: &Game, seat: &Viewer, req: &super::OrderRequest) -> Result<Preview, AppError> {
    let request = super::named::resolve_names(game, &super::Request::Order(req.clone()), seat)?;
    super::authorize(game, seat, &request)?;
    let super::Request::Order(req) = request else {
        return Err(AppError::BadRequest("not an order".into()));
    };
    let checked = super::build::read_order(&req.text, game, &req.side, req.to.as_deref())?;
    let mut p = Preview {
        order: checked,
        legal: false,
        refused: None,
        number: None,
        recipient: None,
        cost: None,
        points_before: game.state.sides.get(&req.side).map(|s| s.command_points),
        arrival_turn: None,
        arrival_time: None,
        status: None,
        odds: None,
        copies: Vec::new(),
    };
    if p.order.has_errors() {
        return Ok(p);
    }
    let built = super::build::orders(game, &req)?;
    // A side sees its own numbers, in the engine's words too (decision 0160).
    let mut numbers = crate::view::OrderNumbers::for_seat(&game.state, seat);
    let decided = super::check_copies(game, &built).map_err(|(e, _)| e);
    let (events, state) = match decided {
        Ok(x) => x,
        Err(crate::game::GameError::Refused(r)) => {
            p.refused = Some(WouldRefuse {
                code: r.code,
                rule: r.rule,
                message: numbers.text(&r.message),
                help: numbers.text(&r.help),
            });
            return Ok(p);
        }
        Err(e) => return Err(AppError::Game(e)),
    };
    p.legal = true;
    let mut issued = events.iter().filter_map(|e| match &e.kind {
        EventKind::OrderIssued { order } => Some(order.clone()),
        _ => None,
    });
    let first = issued.next();
    numbers.learn(&events);
    let time = |turn: u32| {
        game.engine()
            .turn_info(turn)
            .map(|t| t.time.format("%H:%M").to_string())
    };
    p.copies = issued
        .map(|o| CopyPreview {
            number: numbers.shown(o.number),
            recipient: o.recipient.clone(),
            cost: o.cost,
            arrival_turn: o.arrival_turn,
            arrival_time: time(o.arrival_turn),
            status: crate::engine::describe::status_text(&o.status),
        })
        .collect();
    if let Some(o) = first {
        p.number = Some(numbers.shown(o.number));
        p.recipient = Some(o.recipient.clone());
        p.cost = Some(o.cost);
        p.arrival_turn = Some(o.arrival_turn);
        p.arrival_time = time(o.arrival_turn);
        p.status = Some(crate::engine::describe::status_text(&o.status));
        p.odds = crate::game::acceptance_situation_in(&game.scenario, &state, o.number)
            .ok()
            .map(|q| crate::rules::odds::acceptance(&game.tables, q));
    }
    Ok(p)
}
