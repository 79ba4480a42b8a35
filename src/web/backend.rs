//! The web table's one door into the game: every read and every command the pages make goes
//! through here, and here alone is decided what a seat may see (the allow-list, [`sight`]).
//!
//! Owns: the single writer (one `Mutex<Game>`: decide and append in one transaction per
//! command, issue 9), the seat → viewer mapping, the filtered [`View`] every page, fragment, JSON
//! and live update is built from, the order check as you type, and the "last seen" ghosts.
//! Must not: render HTML, touch SQLite (that is `store`), or decide rules (that is `engine`).
//! When the application layer (`src/app/`, issue 14) and the seat allow-list (`src/view/`,
//! issue 12) land, this file is the only one to rewire.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use serde::Serialize;

use crate::engine::{Command, EventKind, OrderStatus, Step, Visibility};
use crate::game::{Game, GameError, Viewer};
use crate::hex::Hex;
use crate::rules::Method;
use crate::store::StoredEvent;

use super::seats::Seat;

/// What a seat may see of the game: the one allow-list decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sight {
    /// Everything (the umpire; the observer once the game is over — the full reveal).
    All,
    /// One side's view (4.0): public events and its own, enemy pieces only where seen.
    Side(String),
    /// Public events only, no pieces (the observer while the game runs).
    Public,
}

impl Sight {
    fn viewer(&self) -> Option<Viewer> {
        match self {
            Sight::All => Some(Viewer::Umpire),
            Sight::Side(s) => Some(Viewer::Side(s.clone())),
            Sight::Public => None,
        }
    }

    fn sees(&self, v: &Visibility) -> bool {
        match self.viewer() {
            Some(viewer) => viewer.sees(v),
            None => *v == Visibility::Public,
        }
    }
}

/// The allow-list: what `seat` may see now. `as_side` is the umpire's "view as side X" and is
/// ignored for every other seat.
pub fn sight(seat: &Seat, game_over: bool, as_side: Option<&str>) -> Sight {
    match seat {
        Seat::Umpire => match as_side {
            Some(s) => Sight::Side(s.to_string()),
            None => Sight::All,
        },
        Seat::Side(s) => Sight::Side(s.clone()),
        Seat::Observer if game_over => Sight::All,
        Seat::Observer => Sight::Public,
    }
}

/// A refused request: what was wrong, where, and what to do.
#[derive(Clone, Debug, Serialize)]
pub struct WebRefusal {
    /// Stable code (the engine's refusal code, or one of ours).
    pub code: String,
    /// Rule number, when the engine gave one.
    pub rule: String,
    pub message: String,
    pub help: String,
}

impl WebRefusal {
    pub fn new(code: &str, message: impl Into<String>, help: impl Into<String>) -> Self {
        WebRefusal {
            code: code.into(),
            rule: String::new(),
            message: message.into(),
            help: help.into(),
        }
    }
}

impl From<GameError> for WebRefusal {
    fn from(e: GameError) -> Self {
        match e {
            GameError::Refused(r) => WebRefusal {
                code: r.code.to_string(),
                rule: r.rule.to_string(),
                message: r.message.clone(),
                help: r.help.clone(),
            },
            other => WebRefusal::new(
                "game-file",
                other.to_string(),
                "the game file could not be written; check the disk and restart the server",
            ),
        }
    }
}

/// One piece on a seat's map.
#[derive(Clone, Debug, Serialize)]
pub struct PieceView {
    pub id: String,
    pub name: String,
    pub side: String,
    /// `unit`, `commander` or `hq`.
    pub role: &'static str,
    /// For units: `infantry`, `cavalry-light`, … (empty for commanders and HQs).
    pub kind: String,
    pub hex: Hex,
    /// Strength, formation, facing and state: only for the seat's own pieces (or the umpire).
    pub detail: Option<PieceDetail>,
}

/// What only the owner (and the umpire) knows of a unit.
#[derive(Clone, Debug, Serialize)]
pub struct PieceDetail {
    pub strength: String,
    pub formation: String,
    pub facing: String,
    /// Morale state, Blown, losses as `P/S of boxes`.
    pub state: String,
}

/// An enemy piece seen before but not now.
#[derive(Clone, Debug, Serialize)]
pub struct Ghost {
    pub id: String,
    pub name: String,
    pub hex: Hex,
    /// Clock time of the last sighting (`HH:MM`).
    pub last_seen: String,
}

/// One order in an order book, as its side may know it.
#[derive(Clone, Debug, Serialize)]
pub struct OrderView {
    pub number: u32,
    pub side: String,
    pub recipient: String,
    pub text: String,
    pub readback: String,
    pub method: String,
    pub order_type: String,
    pub cost: u8,
    pub sent_turn: u32,
    pub arrival_turn: u32,
    pub status: String,
    /// Objective hexes and the recipient's hex, to draw the route.
    pub from_hex: Option<Hex>,
    pub objective: Vec<Hex>,
}

/// One event line.
#[derive(Clone, Debug, Serialize)]
pub struct EventLine {
    pub turn: u32,
    pub text: String,
    /// Dice, for the umpire's log only (empty for others).
    pub dice: String,
}

/// One message between a side and the umpire.
#[derive(Clone, Debug, Serialize)]
pub struct MessageView {
    pub turn: u32,
    pub side: String,
    pub from: String,
    pub text: String,
}

/// Everything a seat's page shows, already filtered by [`sight`].
#[derive(Clone, Debug, Serialize)]
pub struct View {
    pub title: String,
    pub turn: u32,
    pub time: String,
    pub phasing: String,
    pub step: String,
    pub game_over: bool,
    /// The seat's side (None for the umpire and observer).
    pub side: Option<String>,
    /// Command points left: the seat's own side when phasing, or every side for the umpire.
    pub command_points: Vec<(String, u8)>,
    pub sides: Vec<(String, String)>,
    pub pieces: Vec<PieceView>,
    pub ghosts: Vec<Ghost>,
    pub orders: Vec<OrderView>,
    pub events: Vec<EventLine>,
    pub messages: Vec<MessageView>,
    /// Command ranges: (centre, radius in hexes) of the seat's own commanders and HQs (6.11).
    pub ranges: Vec<(Hex, u32)>,
    /// Recipients the side may write to: (command id, name).
    pub recipients: Vec<(String, String)>,
    /// The seat's own pieces that may be moved: (piece id, name).
    pub movable: Vec<(String, String)>,
    /// The side's commanders (for an initiative roll): (id, name).
    pub commanders: Vec<(String, String)>,
}

/// The order check as you type.
#[derive(Clone, Debug, Serialize)]
pub struct CheckView {
    pub text: String,
    pub readback: String,
    pub order_type: String,
    pub recipient: Option<String>,
    pub diagnostics: Vec<DiagnosticView>,
    /// The engine's answer for the chosen method against the present state: cost and arrival,
    /// or why it would be refused.
    pub cost: Option<u8>,
    pub arrives: Option<String>,
    pub refusal: Option<WebRefusal>,
}

/// One diagnostic with the offending words located (byte offsets into `text`).
#[derive(Clone, Debug, Serialize)]
pub struct DiagnosticView {
    pub severity: String,
    pub code: String,
    pub message: String,
    pub help: String,
    pub start: usize,
    pub end: usize,
}

/// Last sightings of enemy pieces, per side: piece → (hex, turn).
type Sightings = BTreeMap<String, BTreeMap<String, (Hex, u32)>>;

struct Inner {
    game: Game,
    sightings: Sightings,
}

/// The game behind the web table: one writer, many readers.
pub struct Backend {
    inner: Mutex<Inner>,
    db: PathBuf,
}

fn word<T: Serialize>(t: &T) -> String {
    match serde_json::to_value(t) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(v) => v.to_string(),
        Err(_) => String::new(),
    }
}

impl Backend {
    /// Open a game file (and replay its history once for the sightings).
    pub fn open(db: &Path) -> Result<Backend, GameError> {
        let game = Game::open(db)?;
        let sightings = replay_sightings(&game)?;
        Ok(Backend {
            inner: Mutex::new(Inner { game, sightings }),
            db: db.to_path_buf(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave half a command: the store's transaction
        // either committed or did not, so the state is still usable.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn db(&self) -> &Path {
        &self.db
    }

    /// Side ids and names, in player order.
    pub fn sides(&self) -> Vec<(String, String)> {
        let g = self.lock();
        g.game
            .scenario
            .sides
            .iter()
            .map(|s| (s.id.clone(), s.name.clone()))
            .collect()
    }

    pub fn scenario_title(&self) -> String {
        self.lock().game.scenario.meta.title.clone()
    }

    pub fn game_over(&self) -> bool {
        self.lock().game.state.step == Step::GameOver
    }

    /// Run `f` with the scenario (the map drawing needs it; nothing in it is secret).
    pub fn with_scenario<R>(&self, f: impl FnOnce(&crate::scenario::Scenario) -> R) -> R {
        f(&self.lock().game.scenario)
    }

    /// The per-seat sequence: how many events this seat may see. It grows only when something
    /// the seat may see happens, so it tells nothing of hidden events.
    pub fn sequence(&self, seat: &Seat) -> u64 {
        let g = self.lock();
        let s = sight(seat, g.game.state.step == Step::GameOver, None);
        match g.game.store.events() {
            Ok(evs) => redact(&g.game, &evs, &s).len() as u64,
            Err(_) => 0,
        }
    }

    /// Seat tokens (hashes) stored in the game file.
    pub fn seat_tokens(&self) -> Result<Vec<(String, String)>, GameError> {
        Ok(self.lock().game.store.seat_tokens()?)
    }

    pub fn set_seat_token(&self, seat: &str, hash: &str, at: &str) -> Result<(), GameError> {
        Ok(self.lock().game.store.set_seat_token(seat, hash, at)?)
    }

    /// The view of a seat (umpire: optionally as one side).
    pub fn view(&self, seat: &Seat, as_side: Option<&str>) -> Result<View, GameError> {
        let g = self.lock();
        let s = sight(seat, g.game.state.step == Step::GameOver, as_side);
        build_view(&g, &s)
    }

    /// Read an order as the side writes it, and ask the engine what it would cost and when it
    /// would arrive now, without writing anything.
    pub fn check(&self, seat: &Seat, text: &str, to: Option<&str>, method: Method) -> CheckView {
        let g = self.lock();
        let side = match seat {
            Seat::Side(s) => Some(s.as_str()),
            _ => None,
        };
        let game = &g.game;
        let checked = crate::order::check_one(text, Some(&game.scenario), side);
        let recipient = to
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .or_else(|| {
                checked
                    .recipient
                    .as_ref()
                    .and_then(|r| r.resolved.as_ref())
                    .map(|r| r.id.clone())
            });
        let diagnostics = checked
            .diagnostics
            .iter()
            .map(|d| DiagnosticView {
                severity: d.severity.to_string(),
                code: d.code.to_string(),
                message: d.message.clone(),
                help: d.help.clone(),
                start: d.span.0.min(text.len()),
                end: d.span.1.min(text.len()),
            })
            .collect();
        let mut view = CheckView {
            text: text.to_string(),
            readback: checked.readback.clone(),
            order_type: checked.order_type.map(|t| word(&t)).unwrap_or_default(),
            recipient: recipient.clone(),
            diagnostics,
            cost: None,
            arrives: None,
            refusal: None,
        };
        let (Some(side), Some(to)) = (side, recipient) else {
            return view;
        };
        if checked.has_errors() {
            return view;
        }
        let Some(from) = game.state.sides.get(side).map(|s| s.army_commander.clone()) else {
            return view;
        };
        let cmd = Command::IssueOrder {
            side: side.to_string(),
            from,
            to,
            method,
            order: crate::game::typed_order(&checked),
        };
        // The engine is pure: deciding on the present state with throwaway dice writes
        // nothing and tells the cost and the arrival exactly as sending would.
        let mut dice = crate::rules::dice::SeededDice::new(0);
        match game.engine().decide(&game.state, &cmd, &mut dice) {
            Ok(events) => {
                for e in events {
                    if let EventKind::OrderIssued { order } = e.kind {
                        view.cost = Some(order.cost);
                        view.arrives = Some(turn_time(game, order.arrival_turn));
                    }
                }
            }
            Err(r) => view.refusal = Some(GameError::Refused(r).into()),
        }
        view
    }

    /// Send an order for a side: typed by the order language, decided and appended by the
    /// engine in one transaction; errors in the text refuse it.
    pub fn send_order(
        &self,
        seat: &Seat,
        text: &str,
        to: Option<&str>,
        method: Method,
    ) -> Result<u32, WebRefusal> {
        let Seat::Side(side) = seat else {
            return Err(WebRefusal::new(
                "not-a-side",
                "only a side's seat sends orders",
                "the umpire imposes orders with an override",
            ));
        };
        let mut g = self.lock();
        let checked = crate::order::check_one(text, Some(&g.game.scenario), Some(side));
        if checked.has_errors() {
            let first = checked
                .diagnostics
                .iter()
                .find(|d| d.severity == crate::order::Severity::Error)
                .map(|d| d.message.clone())
                .unwrap_or_default();
            return Err(WebRefusal::new(
                "order-has-errors",
                format!("the order has errors: {first}"),
                "correct the underlined words; nothing was sent",
            ));
        }
        let to = to
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .or_else(|| {
                checked
                    .recipient
                    .as_ref()
                    .and_then(|r| r.resolved.as_ref())
                    .map(|r| r.id.clone())
            })
            .ok_or_else(|| {
                WebRefusal::new(
                    "no-recipient",
                    "the order names no recipient the scenario knows",
                    "begin with the recipient (\"3rd Div: …\") or choose one in the list",
                )
            })?;
        let from = g
            .game
            .state
            .sides
            .get(side)
            .map(|s| s.army_commander.clone())
            .ok_or_else(|| WebRefusal::new("unknown-side", format!("no side `{side}`"), ""))?;
        let number = g.game.state.next_order_number();
        let cmd = Command::IssueOrder {
            side: side.clone(),
            from,
            to,
            method,
            order: crate::game::typed_order(&checked),
        };
        execute(&mut g, side, &cmd)?;
        Ok(number)
    }

    /// Move a piece. A side may move only its own pieces; the umpire may move any piece, and
    /// with a reason places it ignoring the movement rules (an override).
    pub fn move_piece(
        &self,
        seat: &Seat,
        piece: &str,
        to: Hex,
        reason: Option<&str>,
    ) -> Result<(), WebRefusal> {
        let mut g = self.lock();
        let owner = piece_side(&g.game.scenario, piece);
        match seat {
            Seat::Side(s) if owner.as_deref() != Some(s.as_str()) => {
                return Err(WebRefusal::new(
                    "not-your-piece",
                    format!("`{piece}` is not one of your pieces"),
                    "choose one of your own units, commanders or HQs",
                ));
            }
            Seat::Observer => {
                return Err(WebRefusal::new(
                    "observer",
                    "observers do not move pieces",
                    "",
                ));
            }
            _ => {}
        }
        let reason = reason.map(str::trim).filter(|r| !r.is_empty());
        let (actor, cmd) = match (seat, reason) {
            (Seat::Umpire, Some(r)) => (
                "umpire".to_string(),
                Command::Override {
                    reason: r.to_string(),
                    action: crate::engine::OverrideAction::Place {
                        piece: piece.to_string(),
                        to,
                    },
                },
            ),
            _ => (
                owner.unwrap_or_else(|| "umpire".into()),
                Command::Move {
                    piece: piece.to_string(),
                    to,
                },
            ),
        };
        execute(&mut g, &actor, &cmd)
    }

    /// A message between a side and the umpire.
    pub fn message(&self, seat: &Seat, side: &str, text: &str) -> Result<(), WebRefusal> {
        let from = match seat {
            Seat::Side(s) if s == side => s.clone(),
            Seat::Umpire => "umpire".to_string(),
            _ => {
                return Err(WebRefusal::new(
                    "not-your-table",
                    "a side writes only to the umpire, about its own table",
                    "",
                ));
            }
        };
        let mut g = self.lock();
        let cmd = Command::Message {
            side: side.to_string(),
            from: from.clone(),
            text: text.to_string(),
        };
        execute(&mut g, &from, &cmd)
    }

    /// Default Defense for a command of the side (6.6.2).
    pub fn default_defense(&self, seat: &Seat, command: &str) -> Result<(), WebRefusal> {
        let Seat::Side(side) = seat else {
            return Err(WebRefusal::new(
                "not-a-side",
                "only a side declares Default Defense",
                "",
            ));
        };
        let mut g = self.lock();
        if g.game.state.commands.get(command).map(|c| c.side.as_str()) != Some(side.as_str()) {
            return Err(WebRefusal::new(
                "not-your-command",
                format!("`{command}` is not one of your commands"),
                "",
            ));
        }
        let cmd = Command::DefaultDefense {
            command: command.to_string(),
        };
        execute(&mut g, side, &cmd)
    }

    /// A roll for Initiative (6.6.1): `commander` tries to seize the initiative for `command`;
    /// the order is written if the roll succeeds. Errors in the order text refuse it.
    pub fn initiative(
        &self,
        seat: &Seat,
        commander: &str,
        command: &str,
        text: &str,
    ) -> Result<(), WebRefusal> {
        let Seat::Side(side) = seat else {
            return Err(WebRefusal::new(
                "not-a-side",
                "only a side rolls for initiative",
                "",
            ));
        };
        let mut g = self.lock();
        if g.game
            .scenario
            .commander(commander)
            .map(|c| c.side.as_str())
            != Some(side.as_str())
        {
            return Err(WebRefusal::new(
                "not-your-piece",
                format!("`{commander}` is not one of your commanders"),
                "",
            ));
        }
        let checked = crate::order::check_one(text, Some(&g.game.scenario), Some(side));
        if checked.has_errors() {
            return Err(WebRefusal::new(
                "order-has-errors",
                "the initiative order has errors",
                "check it in the order desk first; nothing was rolled",
            ));
        }
        let cmd = Command::RollInitiative {
            commander: commander.to_string(),
            command: command.to_string(),
            order: crate::game::typed_order(&checked),
        };
        execute(&mut g, side, &cmd)
    }

    /// The umpire runs the automatic steps up to the next one that needs a person (5.1).
    pub fn advance(&self, seat: &Seat) -> Result<(), WebRefusal> {
        umpire_only(seat)?;
        let mut g = self.lock();
        execute(&mut g, "umpire", &Command::Advance)
    }

    /// An umpire override with its reason.
    pub fn override_action(
        &self,
        seat: &Seat,
        reason: &str,
        action: crate::engine::OverrideAction,
    ) -> Result<(), WebRefusal> {
        umpire_only(seat)?;
        if reason.trim().is_empty() {
            return Err(WebRefusal::new(
                "no-reason",
                "an override needs a reason",
                "write why, for the record",
            ));
        }
        let mut g = self.lock();
        let cmd = Command::Override {
            reason: reason.trim().to_string(),
            action,
        };
        execute(&mut g, "umpire", &cmd)
    }

    /// Resolve a combat (the umpire, as the CLI's `combat`).
    pub fn combat(
        &self,
        seat: &Seat,
        kind: crate::engine::CombatKind,
        attackers: Vec<String>,
        defenders: Vec<String>,
    ) -> Result<(), WebRefusal> {
        umpire_only(seat)?;
        let mut g = self.lock();
        let cmd = Command::Combat {
            kind,
            attackers,
            defenders,
            options: Default::default(),
        };
        execute(&mut g, "umpire", &cmd)
    }

    /// Branch the game into a new file next to this one, up to the end of `at_turn`.
    pub fn branch(&self, seat: &Seat, name: &str, at_turn: u32) -> Result<PathBuf, WebRefusal> {
        umpire_only(seat)?;
        let ok = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !ok {
            return Err(WebRefusal::new(
                "bad-branch-name",
                format!("`{name}` is not a file name this server writes"),
                "use 1–64 letters, digits, - or _ (the file is NAME.db next to the game)",
            ));
        }
        let dir = self.db.parent().unwrap_or(Path::new("."));
        let out = dir.join(format!("{name}.db"));
        let g = self.lock();
        g.game
            .branch(&out, at_turn, None, super::now())
            .map_err(WebRefusal::from)?;
        Ok(out)
    }

    /// Verify the game file (hash chain and re-simulation).
    pub fn verify(&self) -> Result<bool, GameError> {
        Ok(self.lock().game.verify()?.ok())
    }
}

fn umpire_only(seat: &Seat) -> Result<(), WebRefusal> {
    if *seat == Seat::Umpire {
        Ok(())
    } else {
        Err(WebRefusal::new(
            "umpire-only",
            "only the umpire may do this",
            "ask the umpire in a message",
        ))
    }
}

/// Execute one command (decide → append in one transaction → evolve) and note who saw what.
fn execute(g: &mut Inner, actor: &str, cmd: &Command) -> Result<(), WebRefusal> {
    g.game.execute(actor, cmd)?;
    let Inner { game, sightings } = g;
    note_sightings(&game.state, &game.scenario, sightings);
    Ok(())
}

fn piece_side(s: &crate::scenario::Scenario, piece: &str) -> Option<String> {
    if let Some(f) = piece.strip_prefix("hq:").and_then(|id| s.formation(id)) {
        return Some(f.side.clone());
    }
    s.commander(piece)
        .map(|c| c.side.clone())
        .or_else(|| s.unit(piece).map(|u| u.side.clone()))
}

fn turn_time(game: &Game, turn: u32) -> String {
    game.engine()
        .turn_info(turn)
        .map(|t| t.time.format("%H:%M").to_string())
        .unwrap_or_else(|| format!("turn {turn}"))
}

/// Record, for every side, the enemy pieces it sees in `state`.
fn note_sightings(
    state: &crate::engine::GameState,
    scenario: &crate::scenario::Scenario,
    out: &mut Sightings,
) {
    for side in &state.side_order {
        let seen = crate::game::visible_positions(state, scenario, &Viewer::Side(side.clone()));
        let book = out.entry(side.clone()).or_default();
        for (piece, hex) in seen {
            if piece_side(scenario, &piece).as_deref() != Some(side.as_str()) {
                book.insert(piece, (hex, state.turn));
            }
        }
    }
}

/// Sightings over the whole recorded history, command by command.
fn replay_sightings(game: &Game) -> Result<Sightings, GameError> {
    let mut state = game.engine().initial_state();
    let mut out = Sightings::new();
    let events = game.store.events()?;
    let mut i = 0;
    while i < events.len() {
        let c = events[i].command_seq;
        while i < events.len() && events[i].command_seq == c {
            crate::engine::evolve(&mut state, &events[i].event);
            i += 1;
        }
        note_sightings(&state, &game.scenario, &mut out);
    }
    Ok(out)
}

/// Is this order's distortion still unknown to its sender? (6.5.3: the sender believes the
/// order was accepted until the distortion is discovered — decision 0110.)
fn undiscovered_distortion(game: &Game, order: u32) -> bool {
    game.state.orders.get(&order).is_some_and(|o| {
        o.status == OrderStatus::Distorted
            && game
                .state
                .commands
                .get(&o.recipient)
                .is_some_and(|c| c.distortion_unnoticed)
    })
}

/// The events a sight may see, with a side's undiscovered distortions held back.
fn redact<'a>(game: &Game, events: &'a [StoredEvent], s: &Sight) -> Vec<&'a StoredEvent> {
    events
        .iter()
        .filter(|e| s.sees(&e.event.visibility))
        .filter(|e| {
            if *s == Sight::All {
                return true;
            }
            match &e.event.kind {
                EventKind::OrderDistorted { order } => !undiscovered_distortion(game, *order),
                EventKind::AcceptanceRolled { order, result, .. }
                    if *result == crate::rules::AcceptanceResult::Dt =>
                {
                    !undiscovered_distortion(game, *order)
                }
                _ => true,
            }
        })
        .collect()
}

fn status_for(game: &Game, o: &crate::engine::OrderRecord, s: &Sight) -> String {
    match &o.status {
        OrderStatus::Distorted if *s != Sight::All && undiscovered_distortion(game, o.number) => {
            "accepted (as far as you know)".into()
        }
        OrderStatus::Delayed { needs } => format!("delayed (D{needs})"),
        OrderStatus::Discarded { reason } => format!("discarded: {reason}"),
        other => other.label().replace('-', " "),
    }
}

fn build_view(g: &Inner, s: &Sight) -> Result<View, GameError> {
    let game = &g.game;
    let st = &game.state;
    let sc = &game.scenario;
    let events = game.store.events()?;
    let visible = redact(game, &events, s);
    let side = match s {
        Sight::Side(x) => Some(x.clone()),
        _ => None,
    };
    let positions = match s.viewer() {
        Some(v) => crate::game::visible_positions(st, sc, &v),
        None => BTreeMap::new(),
    };
    let own = |piece: &str| match s {
        Sight::All => true,
        Sight::Side(x) => piece_side(sc, piece).as_deref() == Some(x.as_str()),
        Sight::Public => false,
    };
    let mut pieces = Vec::new();
    for (id, hex) in &positions {
        let mine = own(id);
        let piece_owner = piece_side(sc, id).unwrap_or_default();
        let (name, role, kind, detail) = if let Some(u) = sc.unit(id) {
            let detail = mine.then(|| {
                let us = st.units.get(id).cloned().unwrap_or_default();
                PieceDetail {
                    strength: u.strength.map(|x| word(&x)).unwrap_or_else(|| {
                        u.gun_points
                            .map(|g| format!("{g} gun points"))
                            .unwrap_or_default()
                    }),
                    formation: word(&u.formation),
                    facing: u.facing.map(|f| word(&f)).unwrap_or_default(),
                    state: format!(
                        "{}{}, losses {}P/{}S of {}",
                        word(&us.morale),
                        if us.blown { ", blown" } else { "" },
                        us.track.permanent,
                        us.track.stragglers,
                        us.track.boxes
                    ),
                }
            });
            (u.name.clone(), "unit", word(&u.kind), detail)
        } else if let Some(c) = sc.commander(id) {
            (c.name.clone(), "commander", String::new(), None)
        } else if let Some(f) = id.strip_prefix("hq:").and_then(|f| sc.formation(f)) {
            (format!("HQ {}", f.name), "hq", String::new(), None)
        } else {
            (id.clone(), "unit", String::new(), None)
        };
        pieces.push(PieceView {
            id: id.clone(),
            name,
            side: piece_owner,
            role,
            kind,
            hex: *hex,
            detail,
        });
    }
    let ghosts = match &side {
        Some(x) => g
            .sightings
            .get(x)
            .map(|book| {
                book.iter()
                    .filter(|(p, _)| !positions.contains_key(*p))
                    .map(|(p, (hex, turn))| Ghost {
                        id: p.clone(),
                        name: sc
                            .unit(p)
                            .map(|u| u.name.clone())
                            .or_else(|| sc.commander(p).map(|c| c.name.clone()))
                            .unwrap_or_else(|| p.clone()),
                        hex: *hex,
                        last_seen: turn_time(game, *turn),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let orders: Vec<OrderView> = st
        .orders
        .values()
        .filter(|o| match s {
            Sight::All => true,
            Sight::Side(x) => o.side == *x,
            Sight::Public => false,
        })
        .map(|o| order_view(game, o, s))
        .collect();
    let umpire = *s == Sight::All;
    let mut lines = Vec::new();
    let mut messages = Vec::new();
    for e in &visible {
        if let EventKind::MessageSent { side, from, text } = &e.event.kind {
            messages.push(MessageView {
                turn: e.event.turn,
                side: side.clone(),
                from: from.clone(),
                text: text.clone(),
            });
            continue;
        }
        let dice = if umpire {
            e.event
                .dice()
                .iter()
                .map(|d| d.value.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            String::new()
        };
        lines.push(EventLine {
            turn: e.event.turn,
            text: crate::cli::game_cmd::describe(&e.event),
            dice,
        });
    }
    let command_points = st
        .sides
        .iter()
        .filter(|(id, _)| umpire || side.as_deref() == Some(id.as_str()))
        .map(|(id, ss)| (id.clone(), ss.command_points))
        .collect();
    let ranges = if s.viewer().is_some() {
        command_ranges(sc, st, &own)
    } else {
        Vec::new()
    };
    let recipients = match &side {
        Some(x) => st
            .commands
            .iter()
            .filter(|(_, c)| c.side == *x && !c.dissolved)
            .map(|(id, _)| {
                let name = sc
                    .formation(id)
                    .map(|f| f.name.clone())
                    .or_else(|| sc.unit(id).map(|u| u.name.clone()))
                    .unwrap_or_else(|| id.clone());
                (id.clone(), name)
            })
            .collect(),
        None => Vec::new(),
    };
    let movable = pieces
        .iter()
        .filter(|p| p.detail.is_some() || (own(&p.id) && p.role != "unit"))
        .map(|p| (p.id.clone(), p.name.clone()))
        .collect();
    let commanders = match &side {
        Some(x) => sc
            .commanders
            .iter()
            .filter(|c| c.side == *x)
            .map(|c| (c.id.clone(), c.name.clone()))
            .collect(),
        None => Vec::new(),
    };
    Ok(View {
        title: sc.meta.title.clone(),
        turn: st.turn,
        time: turn_time(game, st.turn),
        phasing: st.phasing().to_string(),
        step: match st.step {
            Step::Command => "Command Phase (orders, initiative)".into(),
            Step::Operations => "Operations (fire, movement, combat, rally)".into(),
            Step::GameOver => "game over".into(),
        },
        game_over: st.step == Step::GameOver,
        side,
        command_points,
        sides: sc
            .sides
            .iter()
            .map(|x| (x.id.clone(), x.name.clone()))
            .collect(),
        pieces,
        ghosts,
        orders,
        events: lines,
        messages,
        ranges,
        recipients,
        movable,
        commanders,
    })
}

fn order_view(game: &Game, o: &crate::engine::OrderRecord, s: &Sight) -> OrderView {
    let sc = &game.scenario;
    let hub = crate::engine::oob::hub_piece(sc, &game.state, &o.recipient);
    let from_hex = hub.and_then(|h| game.state.positions.get(&h).copied());
    // The objective: the places the order names, as the order language resolves them.
    let checked = crate::order::check_one(&o.text, Some(sc), Some(&o.side));
    let objective = checked
        .places
        .iter()
        .filter_map(|r| r.resolved.as_ref())
        .filter_map(|r| sc.place(&r.id))
        .filter_map(|p| p.hexes.first().copied())
        .collect();
    OrderView {
        number: o.number,
        side: o.side.clone(),
        recipient: sc
            .formation(&o.recipient)
            .map(|f| f.name.clone())
            .or_else(|| sc.unit(&o.recipient).map(|u| u.name.clone()))
            .unwrap_or_else(|| o.recipient.clone()),
        text: o.text.clone(),
        readback: o.readback.clone(),
        method: o
            .method
            .map(|m| word(&m))
            .unwrap_or_else(|| word(&o.origin)),
        order_type: word(&o.order_type),
        cost: o.cost,
        sent_turn: o.sent_turn,
        arrival_turn: o.arrival_turn,
        status: status_for(game, o, s),
        from_hex,
        objective,
    }
}

/// Command ranges of the seat's own leaders (6.11): a division commander reaches 4 hexes, a
/// corps HQ 8.
fn command_ranges(
    sc: &crate::scenario::Scenario,
    st: &crate::engine::GameState,
    own: &dyn Fn(&str) -> bool,
) -> Vec<(Hex, u32)> {
    use crate::scenario::model::Echelon;
    let mut out = Vec::new();
    for f in &sc.formations {
        let (piece, radius) = match f.echelon {
            Echelon::Division => match st.commanders.get(&f.id) {
                Some(c) => (c.clone(), 4),
                None => continue,
            },
            Echelon::Corps => (crate::engine::oob::hq_piece(&f.id), 8),
            Echelon::Army => continue,
        };
        if !own(&piece) {
            continue;
        }
        if let Some(h) = st.positions.get(&piece) {
            out.push((*h, radius));
        }
    }
    out
}
