//! What a seat may see: the one allow-list between the game record and anything shown to a side,
//! an observer or the umpire (NBS 4.0; decision 0051).
//!
//! Owns the seats (`Viewer`), which events a seat sees, per-seat numbering of those events, and
//! the per-seat documents the CLI prints (`status`, `log`). Every per-side output goes through
//! here; nothing here prints or writes. Must not reimplement where pieces can be seen: that is
//! `game::visible_positions` (line of sight belongs to movement).

use crate::engine::Visibility;

/// Who is looking: the umpire (everything), one side (its own and what 4.0 reveals), or an
/// observer (public events only while the game runs; everything once it is over — decision
/// 0051).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Viewer {
    Umpire,
    Side(String),
    Observer,
}

impl Viewer {
    /// May this viewer see an event with this visibility?
    pub fn sees(&self, v: &Visibility) -> bool {
        match (self, v) {
            (Viewer::Umpire, _) => true,
            (_, Visibility::Public) => true,
            (Viewer::Side(s), Visibility::Side(t)) => s == t,
            (Viewer::Side(_), Visibility::Umpire) => false,
            (Viewer::Observer, _) => false,
        }
    }

    /// The seat's name in documents: `umpire`, `observer` or the side's id.
    pub fn name(&self) -> &str {
        match self {
            Viewer::Umpire => "umpire",
            Viewer::Observer => "observer",
            Viewer::Side(s) => s,
        }
    }
}

use serde_json::{Value, json};

use crate::engine::{CommandStatus, GameState, OrderRecord, Refusal, Step};
use crate::game::Game;
use crate::store::StoredEvent;

/// The seat asked for on a command line: `--side S` (checked against the scenario's sides,
/// exactly as spelled there), `--observer`, or the umpire. An unknown side is an error listing
/// the sides; `umpire` is not a side.
pub fn seat(
    scenario: &crate::scenario::Scenario,
    side: Option<&str>,
    observer: bool,
) -> Result<Viewer, String> {
    let Some(side) = side else {
        return Ok(if observer {
            Viewer::Observer
        } else {
            Viewer::Umpire
        });
    };
    if scenario.sides.iter().any(|s| s.id == side) {
        return Ok(Viewer::Side(side.to_string()));
    }
    let sides: Vec<&str> = scenario.sides.iter().map(|s| s.id.as_str()).collect();
    let hint = if side.eq_ignore_ascii_case("umpire") {
        " (the umpire is not a side: leave out --side, or pass --umpire)".to_string()
    } else if let Some(s) = sides.iter().find(|s| s.eq_ignore_ascii_case(side)) {
        format!(" (did you mean `{s}`? sides are spelled exactly)")
    } else {
        String::new()
    };
    Err(format!(
        "unknown side `{}`{hint}; this game's sides are: {}",
        crate::text::visible(side),
        sides.join(", ")
    ))
}

/// The seat a viewer has in this state of the game: an observer sees everything once the game
/// is over (decision 0051).
pub fn effective(viewer: &Viewer, state: &GameState) -> Viewer {
    match viewer {
        Viewer::Observer if state.step == Step::GameOver => Viewer::Umpire,
        v => v.clone(),
    }
}

/// Events a viewer may see (4.0: a side never sees the other's orders, dice, losses or the
/// umpire's overrides).
pub fn visible<'a>(events: &'a [StoredEvent], viewer: &Viewer) -> Vec<&'a StoredEvent> {
    events
        .iter()
        .filter(|e| viewer.sees(&e.event.visibility))
        .collect()
}

/// One event as a seat sees it. `number` counts only the events this seat sees (1, 2, 3 …), so
/// the gaps between them reveal nothing; the umpire also gets the file's sequence number and
/// hash, which are computed over hidden events and so are never shown to a side.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SeenEvent<'a> {
    pub number: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<&'a str>,
    pub event: &'a crate::engine::Event,
}

/// The events a seat sees, numbered for that seat.
pub fn seen_events<'a>(events: &'a [StoredEvent], viewer: &Viewer) -> Vec<SeenEvent<'a>> {
    let umpire = *viewer == Viewer::Umpire;
    visible(events, viewer)
        .into_iter()
        .enumerate()
        .map(|(i, e)| SeenEvent {
            number: i + 1,
            seq: umpire.then_some(e.seq),
            hash: umpire.then_some(e.hash.as_str()),
            event: &e.event,
        })
        .collect()
}

/// Orders a viewer may see: the umpire all, a side its own, an observer none.
pub fn orders<'a>(state: &'a GameState, viewer: &Viewer) -> Vec<&'a OrderRecord> {
    state
        .orders
        .values()
        .filter(|o| match viewer {
            Viewer::Umpire => true,
            Viewer::Side(s) => &o.side == s,
            Viewer::Observer => false,
        })
        .collect()
}

/// Does this seat see everything belonging to `side` (its commands, points, loss charts)?
fn owns(viewer: &Viewer, side: &str) -> bool {
    match viewer {
        Viewer::Umpire => true,
        Viewer::Side(s) => s == side,
        Viewer::Observer => false,
    }
}

/// The Order Log of rule 6.4.5 as a viewer may see it.
pub fn order_log(game: &Game, viewer: &Viewer) -> Vec<Value> {
    let turn_time = |t: u32| {
        game.engine()
            .turn_info(t)
            .map(|i| i.time.format("%H:%M").to_string())
            .unwrap_or_else(|| "start".into())
    };
    orders(&game.state, viewer)
        .into_iter()
        .map(|o| {
            json!({
                "number": o.number,
                "side": o.side,
                "time_sent": turn_time(o.sent_turn),
                "sent_turn": o.sent_turn,
                "arrival_time": turn_time(o.arrival_turn),
                "arrival_turn": o.arrival_turn,
                "sender": o.sender,
                "receiver": o.recipient,
                "text": o.text,
                "readback": o.readback,
                "method": o.method,
                "type": o.order_type,
                "origin": o.origin,
                "cost": o.cost,
                "status": o.status,
            })
        })
        .collect()
}

/// The `status` document for a seat: where the game stands, the seat's sides, commands and loss
/// charts, the pieces it can see, its Order Log.
pub fn status(game: &Game, viewer: &Viewer) -> Value {
    let viewer = &effective(viewer, &game.state);
    let state = &game.state;
    let positions = crate::game::visible_positions(state, &game.scenario, viewer);
    let commands: Vec<Value> = state
        .commands
        .iter()
        .filter(|(_, c)| owns(viewer, &c.side))
        .map(|(id, c)| {
            let follows = if c.follows_parent && c.status == CommandStatus::NoOrders {
                c.parent.clone()
            } else {
                None
            };
            json!({"command": id, "side": c.side, "status": c.status, "follows": follows, "order": c.current_order, "stage": c.stage, "independent": c.independent, "wrecked": c.wrecked, "distortion_unnoticed": c.distortion_unnoticed, "loan": c.loan})
        })
        .collect();
    let sides: Vec<Value> = state
        .sides
        .iter()
        .filter(|(s, _)| owns(viewer, s))
        .map(|(s, x)| json!({"side": s, "command_points": x.command_points}))
        .collect();
    // Loss charts (20.4), starting with the losses suffered before the scenario (Talavera 7.1):
    // a side sees only its own (4.0).
    let units: Vec<Value> = state
        .units
        .iter()
        .filter_map(|(id, u)| {
            let side = game.scenario.unit(id)?.side.as_str();
            if !owns(viewer, side) {
                return None;
            }
            // Only a brigade is Wrecked (21.6); a battery's chart counts gun points.
            let wrecked = state.commands.get(id).is_some_and(|c| c.wrecked);
            Some(json!({
                "unit": id, "side": side,
                "permanent": u.track.permanent, "stragglers": u.track.stragglers,
                "skirmisher_losses": u.skirmisher_losses,
                "boxes": u.track.boxes, "remaining": u.track.remaining(),
                "morale": u.morale, "blown": u.blown, "wrecked": wrecked,
            }))
        })
        .collect();
    json!({
        "viewer": viewer.name(),
        "turn": state.turn, "phasing": state.phasing(), "step": state.step,
        "sides": sides, "commands": commands, "positions": positions, "units": units,
        "orders": order_log(game, viewer),
    })
}

/// The phasing side's command points, shown only to the umpire and that side.
pub fn phasing_points(state: &GameState, viewer: &Viewer) -> Option<u32> {
    let side = state.phasing();
    if !owns(&effective(viewer, state), side) {
        return None;
    }
    state.sides.get(side).map(|s| u32::from(s.command_points))
}

/// The refusal a side is shown (issue 12): if its command names an enemy piece the side cannot
/// see on the map, the engine's refusal (which may name hexes, ranges or states of that piece) is
/// replaced by the same words whether the piece exists or not — a side's refusal must not
/// depend on, or mention, what it cannot see. A legal command goes through (its result is
/// public), and the umpire's refusals are not changed.
pub fn refusal_for(
    game: &Game,
    actor: &str,
    cmd: &crate::engine::Command,
    refusal: Refusal,
) -> Refusal {
    let crate::engine::Command::Combat {
        attackers,
        defenders,
        ..
    } = cmd
    else {
        return refusal;
    };
    if !game.scenario.sides.iter().any(|s| s.id == actor) {
        return refusal;
    }
    let viewer = Viewer::Side(actor.to_string());
    let seen = crate::game::visible_positions(&game.state, &game.scenario, &viewer);
    let own = |id: &str| game.scenario.unit(id).is_some_and(|u| u.side == actor);
    match attackers
        .iter()
        .chain(defenders)
        .find(|id| !own(id) && !seen.contains_key(id.as_str()))
    {
        Some(id) => Refusal {
            code: "not-seen",
            rule: "4.0",
            message: format!(
                "`{}` is not a unit {actor} can see",
                crate::text::visible(id)
            ),
            help: format!("`staffwork status --side {actor}` lists the pieces you can see"),
        },
        None => refusal,
    }
}
