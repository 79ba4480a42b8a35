//! What a seat may see: the one allow-list between the game record and anything shown to a side,
//! an observer or the umpire (NBS 4.0; decision 0051).
//!
//! Owns the seats (`Viewer`), which events a seat sees, per-seat numbering of those events, and
//! what each seat owns; `app::view` shapes the per-seat documents (`status`, `log`) from these. Every per-side output goes through
//! here, including where a seat sees pieces on the map (`visible_positions`); nothing here prints
//! or writes. Must not depend on front ends; `game` does not depend on this module.

mod numbers;

pub use numbers::{HIDDEN, OrderNumbers};

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

use crate::engine::{GameState, OrderRecord, Refusal, Step};
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
/// hash, which are computed over hidden events and so are never shown to a side. The orders
/// the event names carry the seat's numbers (`OrderNumbers`, decision 0160).
#[derive(Clone, Debug, serde::Serialize)]
pub struct SeenEvent<'a> {
    pub number: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<&'a str>,
    pub event: crate::engine::Event,
}

/// The events a seat sees, numbered for that seat, with the orders they name in the seat's
/// numbers for the game as it stands (`state`).
pub fn seen_events<'a>(
    events: &'a [StoredEvent],
    viewer: &Viewer,
    state: &GameState,
) -> Vec<SeenEvent<'a>> {
    let umpire = *viewer == Viewer::Umpire;
    let numbers = OrderNumbers::for_seat(state, viewer);
    visible(events, viewer)
        .into_iter()
        .enumerate()
        .map(|(i, e)| SeenEvent {
            number: i + 1,
            seq: umpire.then_some(e.seq),
            hash: umpire.then_some(e.hash.as_str()),
            event: numbers.event(&e.event),
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
pub fn owns(viewer: &Viewer, side: &str) -> bool {
    match viewer {
        Viewer::Umpire => true,
        Viewer::Side(s) => s == side,
        Viewer::Observer => false,
    }
}

/// The Opportunity Fire offers (17.4) a seat may see: the umpire all, a side those of its own
/// batteries (each names only hexes its battery sees, 14.1), an observer none. The moving side
/// is not told which enemy batteries could fire (4.0).
pub fn opportunity_for(
    viewer: &Viewer,
    offers: Vec<crate::engine::opportunity::OpportunityOffer>,
) -> Vec<crate::engine::opportunity::OpportunityOffer> {
    offers
        .into_iter()
        .filter(|o| owns(viewer, &o.side))
        .collect()
}

/// The Reaction Charge offers (16.5) a seat may see: as [`opportunity_for`], the umpire all, a
/// side those of its own cavalry, the moving side none (4.0).
pub fn reactions_for(
    viewer: &Viewer,
    offers: Vec<crate::engine::opportunity::ReactionOffer>,
) -> Vec<crate::engine::opportunity::ReactionOffer> {
    offers
        .into_iter()
        .filter(|o| owns(viewer, &o.side))
        .collect()
}

/// The Cavalry Withdrawals owed (22.1) a seat is shown: the umpire all, a side its own
/// cavalry's (4.0: the mover's side sees the cavalry go, not what it owed).
pub fn withdrawals_for(
    viewer: &Viewer,
    owed: Vec<crate::engine::opportunity::WithdrawalOwed>,
) -> Vec<crate::engine::opportunity::WithdrawalOwed> {
    owed.into_iter().filter(|o| owns(viewer, &o.side)).collect()
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
    let seen = visible_positions(&game.state, &game.scenario, &viewer);
    let own = |id: &str| game.scenario.unit(id).is_some_and(|u| u.side == actor);
    match attackers
        .iter()
        .chain(defenders)
        .find(|id| !own(id) && !seen.contains_key(id.as_str()))
    {
        Some(id) => not_seen(id, actor),
        None => refusal,
    }
}

/// The one refusal a side gets for a unit it names but cannot see, whether the unit exists or
/// not (4.0).
pub fn not_seen(named: &str, side: &str) -> Refusal {
    Refusal {
        code: "not-seen",
        rule: "4.0",
        message: format!(
            "`{}` is not a unit {side} can see",
            crate::text::visible(named)
        ),
        help: format!("`staffwork status --side {side}` lists the pieces you can see"),
    }
}

/// Pieces a viewer may see on the map and name (4.0): all for the umpire; for a side its own
/// pieces and the enemy pieces it may examine — in the line of sight (14.1) of one of its units,
/// commanders or HQs within this turn's visibility (14.1.5; decision 0081), and at or within 12
/// hexes of one of its Commanders and in that Commander's line of sight (4.0; decision 0161).
/// An enemy piece seen but not examinable is not here: the side knows only that a stack stands
/// in its hex (`enemy_stacks`). Uses the built-in Movement Table's Blocking terrain. An observer
/// sees no piece while the game runs and every piece once it is over (decision 0051).
pub fn visible_positions(
    state: &GameState,
    scenario: &crate::scenario::Scenario,
    viewer: &Viewer,
) -> std::collections::BTreeMap<String, crate::hex::Hex> {
    sighting(state, scenario, viewer).named
}

/// Hexes where a side sees an enemy stack it may not examine (4.0: no Commander of its own
/// within 12 hexes with line of sight): the side is told "an enemy stack" there, never which
/// pieces, how many or how strong (decision 0161). Empty for the umpire and an observer.
pub fn enemy_stacks(
    state: &GameState,
    scenario: &crate::scenario::Scenario,
    viewer: &Viewer,
) -> std::collections::BTreeSet<crate::hex::Hex> {
    sighting(state, scenario, viewer).stacks
}

/// What a seat sees on the map: the pieces it may name, and the hexes of enemy stacks it sees
/// but may not examine.
#[derive(Clone, Debug, Default)]
pub struct Sighting {
    pub named: std::collections::BTreeMap<String, crate::hex::Hex>,
    pub stacks: std::collections::BTreeSet<crate::hex::Hex>,
}

pub use crate::engine::sighted::EXAMINE_RANGE;

/// [`visible_positions`] and [`enemy_stacks`] at once.
pub fn sighting(
    state: &GameState,
    scenario: &crate::scenario::Scenario,
    viewer: &Viewer,
) -> Sighting {
    let all = || Sighting {
        named: state.positions.clone(),
        stacks: Default::default(),
    };
    let side = match viewer {
        Viewer::Umpire => return all(),
        Viewer::Observer if state.step == Step::GameOver => return all(),
        Viewer::Observer => return Sighting::default(),
        Viewer::Side(side) => side,
    };
    let map = crate::movement::MoveMap::new(scenario);
    let sight = Sight::new(state, scenario, &map);
    let mut out = Sighting::default();
    // Whether a hex may be examined is asked once per hex: a stack is examined whole (4.0).
    let mut examined: std::collections::BTreeMap<crate::hex::Hex, bool> = Default::default();
    for (piece, hex) in &state.positions {
        if side_of_piece(scenario, piece).as_deref() == Some(side.as_str()) {
            out.named.insert(piece.clone(), *hex);
        } else if sight.seen_by(side, *hex) {
            if *examined
                .entry(*hex)
                .or_insert_with(|| sight.examined_by(side, *hex))
            {
                out.named.insert(piece.clone(), *hex);
            } else {
                out.stacks.insert(*hex);
            }
        }
    }
    out
}

/// Where a side last saw an enemy piece it cannot see now (4.0).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LastSeen {
    pub hex: crate::hex::Hex,
    pub turn: u32,
    /// The turn's clock time, `HH:MM`.
    pub time: String,
}

/// Enemy pieces a side saw at some turn's end but cannot see now: "last seen at HH:MM" (4.0).
/// Looks at the position at the end of each turn's events (and at the start), with the line of
/// sight of that moment.
pub fn last_seen(
    events: &[crate::engine::Event],
    scenario: &crate::scenario::Scenario,
    side: &str,
) -> std::collections::BTreeMap<String, LastSeen> {
    use std::collections::BTreeMap;
    let tables = crate::rules::tables::CommandTables::nbs();
    let engine = crate::engine::Engine::new(scenario, tables);
    let turns = scenario.clock.turns();
    let viewer = Viewer::Side(side.to_string());
    let mut state = engine.initial_state();
    let mut seen: BTreeMap<String, LastSeen> = BTreeMap::new();
    let look = |state: &GameState, seen: &mut BTreeMap<String, LastSeen>| {
        let time = turns
            .get(state.turn.saturating_sub(1) as usize)
            .map(|t| t.time.format("%H:%M").to_string())
            .unwrap_or_default();
        for (p, h) in visible_positions(state, scenario, &viewer) {
            if side_of_piece(scenario, &p).as_deref() != Some(side) {
                seen.insert(
                    p,
                    LastSeen {
                        hex: h,
                        turn: state.turn,
                        time: time.clone(),
                    },
                );
            }
        }
    };
    for (i, e) in events.iter().enumerate() {
        crate::engine::evolve(&mut state, e);
        let turn_ends = events.get(i + 1).is_none_or(|n| n.turn != e.turn);
        if turn_ends {
            look(&state, &mut seen);
        }
    }
    let now = visible_positions(&state, scenario, &viewer);
    // A piece gone from the map (eliminated, 20.3; a commander lost, 25) while out of sight
    // keeps its ghost: dropping it would tell the side of a loss it may not know (4.0 keeps
    // casualties secret).
    seen.retain(|p, _| !now.contains_key(p));
    seen
}

use crate::engine::sighted::{Sight, side_of_piece};
