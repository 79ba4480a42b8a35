//! Requests → engine commands: the one place that turns what a front end asks into an
//! [`engine::Command`](crate::engine::Command) and the actor recorded with it. Order texts are
//! typed by the order language here; an order with errors is refused with its diagnostics.

use crate::engine::command::{CombatOptions, LossMarks, SkirmisherAbsorbs};
use crate::engine::{CombatKind, Command, CommandStatus, OverrideAction, TypedOrder};
use crate::game::Game;
use crate::hex::Hex;

use super::AppError;
use super::request::{
    CombatRequest, InitiativeRequest, LooseCannonRequest, OrderRequest, OverrideRequest,
    ProcedureArg,
};

/// The actor recorded with a command and the command itself.
pub(crate) type Built = (String, Command);

/// The longest order text any front end may hand the order reader, in characters (decision
/// 0176; the reader's own limit): short enough that reading it under the game's lock does not
/// stall the other seats of a web table.
pub const ORDER_MAX_CHARS: usize = crate::order::MAX_ORDER_CHARS;

/// Refuse an order text longer than [`ORDER_MAX_CHARS`] before it is read (decision 0176).
pub fn order_text_fits(text: &str) -> Result<(), AppError> {
    // Bytes bound characters from above: most texts never need counting.
    if text.len() <= ORDER_MAX_CHARS {
        return Ok(());
    }
    let n = text.chars().count();
    if n <= ORDER_MAX_CHARS {
        return Ok(());
    }
    Err(AppError::Refused(crate::engine::Refusal::new(
        "order-length",
        "6.4",
        format!("an order has at most {ORDER_MAX_CHARS} characters; this one has {n}"),
        "split it into several orders, one per recipient, or shorten it",
    )))
}

/// Read an order with the order language against the game's scenario. A recipient given
/// outside the text (`order --to`, `override --impose-order`) supplies the WHO: the text then
/// need not name one, so `no-recipient` is not raised against it (issue 17). A text over
/// [`ORDER_MAX_CHARS`] is refused unread.
pub(crate) fn read_order(
    text: &str,
    game: &Game,
    side: &str,
    to: Option<&str>,
) -> Result<crate::order::CheckedOrder, AppError> {
    order_text_fits(text)?;
    let mut checked = crate::order::check_one(text, Some(&game.scenario), Some(side));
    crate::game::refuse_off_map_hexes(&mut checked, &game.scenario);
    if to.is_some() {
        checked.diagnostics.retain(|d| d.code != "no-recipient");
    }
    Ok(checked)
}

/// Type an order with the order language; errors refuse it. Returns the recipients the text
/// names that the scenario knows: the first, then the others of rule `lead.several`.
fn type_order(
    text: &str,
    game: &Game,
    side: &str,
    to: Option<&str>,
) -> Result<(TypedOrder, Vec<String>), AppError> {
    let checked = read_order(text, game, side, to)?;
    if checked.has_errors() {
        return Err(AppError::Order(Box::new(checked)));
    }
    let mut recipients: Vec<String> = Vec::new();
    for r in checked.recipient.iter().chain(&checked.also) {
        if let Some(id) = r.resolved.as_ref().map(|r| r.id.clone())
            && !recipients.contains(&id)
        {
            recipients.push(id);
        }
    }
    Ok((crate::game::typed_order(&checked), recipients))
}

/// The side a command (formation or brigade) belongs to, if the game knows it.
pub(crate) fn side_of_command(game: &Game, command: &str) -> Option<String> {
    game.state.commands.get(command).map(|c| c.side.clone())
}

/// The side a piece (commander, `hq:<formation>` or unit) belongs to.
pub(crate) fn side_of_piece(game: &Game, piece: &str) -> Option<String> {
    let s = &game.scenario;
    if let Some(f) = piece.strip_prefix("hq:").and_then(|id| s.formation(id)) {
        return Some(f.side.clone());
    }
    s.commander(piece)
        .map(|c| c.side.clone())
        .or_else(|| s.unit(piece).map(|u| u.side.clone()))
}

/// The commands of an order request, one per recipient. An order the text addresses to
/// several commands ("2nd and 3rd Div: attack Hall", rule `lead.several`) is a copy to each,
/// every copy an order of its own with its cost, courier and acceptance (6.4; decision 0184).
/// `--to` names the one recipient and wins over the text; a relayed order has one recipient.
pub(crate) fn orders(game: &Game, a: &OrderRequest) -> Result<Vec<Built>, AppError> {
    let (typed, named) = type_order(&a.text, game, &a.side, a.to.as_deref())?;
    let recipients = match &a.to {
        Some(to) => vec![to.clone()],
        None if named.is_empty() => {
            return Err(AppError::BadRequest(
                "the order names no recipient the scenario knows; add `--to COMMAND`".into(),
            ));
        }
        None => named,
    };
    if a.via.is_some() && recipients.len() > 1 {
        return Err(AppError::BadRequest(format!(
            "a relayed order goes to one recipient, and this one names {}; add `--to COMMAND` or send one order to each",
            recipients.join(", ")
        )));
    }
    recipients
        .into_iter()
        .map(|to| one_order(game, a, typed.clone(), to))
        .collect()
}

fn one_order(
    game: &Game,
    a: &OrderRequest,
    typed: TypedOrder,
    to: String,
) -> Result<Built, AppError> {
    // The army commander as the game stands (a successor, Burrard, Jourdan under 5.3b).
    let from = match &a.from {
        Some(f) => f.clone(),
        None => game
            .state
            .sides
            .get(&a.side)
            .map(|s| s.army_commander.clone())
            .ok_or_else(|| AppError::BadRequest(format!("unknown side `{}`", a.side)))?,
    };
    let side = a.side.clone();
    let cmd = match &a.via {
        Some(via) => Command::IssueRelayedOrder {
            side: side.clone(),
            from,
            via: via.clone(),
            to,
            method: a.method.into(),
            order: typed,
        },
        None => Command::IssueOrder {
            side: side.clone(),
            from,
            to,
            method: a.method.into(),
            order: typed,
        },
    };
    Ok((side, cmd))
}

pub(crate) fn loose_cannon(game: &Game, a: &LooseCannonRequest) -> Result<Built, AppError> {
    // 6.6.1.6: the order is written in the language of the command's own side.
    let side = side_of_command(game, &a.command).unwrap_or_default();
    let (order, _) = type_order(&a.text, game, &side, None)?;
    Ok((
        "opponent".into(),
        Command::LooseCannonOrder {
            command: a.command.clone(),
            order,
        },
    ))
}

pub(crate) fn initiative(game: &Game, a: &InitiativeRequest) -> Result<Built, AppError> {
    let command = match &a.command {
        Some(c) => c.clone(),
        None => game
            .scenario
            .formation_of_commander(&a.commander)
            .map(|f| f.id.clone())
            .unwrap_or_else(|| a.commander.clone()),
    };
    let side = side_of_command(game, &command).unwrap_or_default();
    let (order, _) = type_order(&a.text, game, &side, None)?;
    Ok((
        side,
        Command::RollInitiative {
            commander: a.commander.clone(),
            command,
            order,
        },
    ))
}

/// `default-defense`, `withdraw`, `stage`: the actor is the command's side.
pub(crate) fn on_command(
    game: &Game,
    command: &str,
    make: impl FnOnce(String) -> Command,
) -> Result<Built, AppError> {
    // The engine names an unknown command in its refusal; keep its words (no side = "").
    let side = side_of_command(game, command).unwrap_or_default();
    Ok((side, make(command.to_string())))
}

pub(crate) fn relay(game: &Game, order: u32) -> Built {
    (
        game.state
            .orders
            .get(&order)
            .map_or_else(|| "player".to_string(), |o| o.side.clone()),
        Command::DeliverRelayedOrder { order },
    )
}

pub(crate) fn combat(game: &Game, a: &CombatRequest) -> Result<Built, AppError> {
    let kind = match a.procedure {
        ProcedureArg::CloseCombat => CombatKind::CloseCombat {
            fortified: a.fortified,
        },
        ProcedureArg::Charge => CombatKind::Charge {
            form_square: a.form_square,
            follow_ons: a.follow_ons,
            reaction: a.reaction,
            follow_on: a.follow_on,
            square_undecided: !a.form_square && !a.no_square,
        },
        ProcedureArg::SkirmisherFire => CombatKind::SkirmisherFire {
            quality: a.quality.into(),
        },
        ProcedureArg::Fire => CombatKind::ArtilleryFire {
            cannister: a.cannister,
        },
    };
    let lead = a
        .attackers
        .first()
        .ok_or_else(|| AppError::BadRequest("name at least one attacker (14.2)".into()))?;
    if a.defenders.is_empty() {
        return Err(AppError::BadRequest(
            "name at least one defender (14.2)".into(),
        ));
    }
    let actor = game
        .scenario
        .unit(lead)
        .map_or_else(|| "player".to_string(), |u| u.side.clone());
    let mut absorbs = Vec::new();
    for x in &a.skirmisher_absorbs {
        let (unit, at_most) = match x.split_once('=') {
            Some((u, n)) => (
                u,
                Some(n.trim().parse::<u8>().map_err(|_| {
                    AppError::BadRequest(format!(
                        "--skirmisher-absorbs takes UNIT or UNIT=N (N a number of casualties), not `{x}`"
                    ))
                })?),
            ),
            None => (x.as_str(), None),
        };
        absorbs.push(SkirmisherAbsorbs {
            unit: unit.trim().to_string(),
            at_most,
        });
    }
    Ok((
        actor,
        Command::Combat {
            kind,
            attackers: a.attackers.clone(),
            defenders: a.defenders.clone(),
            options: CombatOptions {
                attacker_quality: a.quality.into(),
                defender_quality: a.defender_quality.into(),
                skirmisher_absorbs: absorbs,
                aspect: aspect_ruling(a)?,
                skirmisher_stands: match (a.skirmisher_stands, a.skirmisher_retreats) {
                    (true, _) => Some(true),
                    (_, true) => Some(false),
                    _ => None,
                },
                entry_ruling: a
                    .allow_entry
                    .then(|| a.ruling.as_deref().unwrap_or_default().trim().to_string()),
                attacker_at: a.attacker_at,
                defender_at: a.defender_at,
                opportunity_at: a.opportunity_at,
                opportunity_formation: a.formation_change,
                fire_ruling: a
                    .allow_fire
                    .then(|| a.ruling.as_deref().unwrap_or_default().trim().to_string()),
                reaction_at: a.reaction_at,
                reaction_ruling: a
                    .allow_reaction
                    .then(|| a.ruling.as_deref().unwrap_or_default().trim().to_string()),
                square_fire: a.square_fire.clone(),
            },
        },
    ))
}

/// The umpire's ruling on the attack's arc or a Line's flanks (10.0, decision 0140).
fn aspect_ruling(
    a: &CombatRequest,
) -> Result<Option<crate::engine::aspect::AspectRuling>, AppError> {
    let Some(reason) = &a.ruling else {
        return Ok(None);
    };
    if a.attack_arc.is_none()
        && a.flanks.is_none()
        && !a.allow_entry
        && !a.allow_fire
        && !a.allow_reaction
    {
        return Err(AppError::BadRequest(
            "--ruling gives the reason for --attack-arc, --flanks, --allow-entry, --allow-fire or --allow-reaction; give one of them".into(),
        ));
    }
    if reason.trim().is_empty() {
        return Err(AppError::BadRequest(
            "--ruling needs a reason: it is recorded with the combat".into(),
        ));
    }
    if a.attack_arc.is_none() && a.flanks.is_none() {
        return Ok(None);
    }
    Ok(Some(crate::engine::aspect::AspectRuling {
        arc: a.attack_arc.map(Into::into),
        flanks_secure: a
            .flanks
            .map(|f| f == crate::app::request::FlanksArg::Secure),
        reason: reason.trim().to_string(),
    }))
}

/// The one action of an override; exactly one must be given.
pub(crate) fn override_(game: &Game, a: &OverrideRequest) -> Result<Built, AppError> {
    let mut actions = Vec::new();
    if let Some(c) = &a.wreck {
        actions.push(OverrideAction::SetWrecked {
            command: c.clone(),
            wrecked: true,
        });
    }
    if let Some(c) = &a.unwreck {
        actions.push(OverrideAction::SetWrecked {
            command: c.clone(),
            wrecked: false,
        });
    }
    if let Some(c) = &a.commander_lost {
        actions.push(OverrideAction::SetCommanderLost {
            command: c.clone(),
            lost: true,
        });
    }
    if let Some(p) = &a.place {
        let (piece, hex) = p
            .split_once('=')
            .ok_or_else(|| AppError::BadRequest(format!("--place takes PIECE=HEX, not `{p}`")))?;
        let to: Hex = hex
            .parse()
            .map_err(|e: crate::hex::HexParseError| AppError::BadRequest(e.to_string()))?;
        actions.push(OverrideAction::Place {
            piece: piece.to_string(),
            to,
        });
    }
    if let Some(n) = a.discard_order {
        actions.push(OverrideAction::DiscardOrder { order: n });
    }
    if let Some(c) = &a.no_orders {
        actions.push(OverrideAction::SetStatus {
            command: c.clone(),
            status: CommandStatus::NoOrders,
        });
    }
    if let Some(t) = &a.ruling {
        actions.push(OverrideAction::Ruling { text: t.clone() });
    }
    if let Some(n) = a.reroll {
        actions.push(OverrideAction::Reroll { order: n });
    }
    if let Some(c) = &a.impose_order {
        let text = a
            .text
            .clone()
            .ok_or_else(|| AppError::BadRequest("--impose-order needs --text \"ORDER\"".into()))?;
        let side = side_of_command(game, c).unwrap_or_default();
        let (order, _) = type_order(&text, game, &side, Some(c))?;
        actions.push(OverrideAction::ImposeOrder {
            command: c.clone(),
            order,
            status: a.status.into(),
        });
    }
    if let Some(unit) = &a.set_unit {
        actions.push(set_unit(unit, a)?);
    }
    if actions.len() != 1 {
        return Err(AppError::BadRequest(
            "give exactly one of --wreck, --unwreck, --commander-lost, --place, --discard-order, --no-orders, --ruling, --reroll, --impose-order, --set-unit".into(),
        ));
    }
    Ok((
        "umpire".into(),
        Command::Override {
            reason: a.reason.clone(),
            action: actions.remove(0),
        },
    ))
}

/// `override --set-unit UNIT` with what to set (20.4, 21.1, 22.2).
fn set_unit(unit: &str, a: &OverrideRequest) -> Result<OverrideAction, AppError> {
    let losses = match &a.losses {
        Some(text) => Some(LossMarks::parse(text).ok_or_else(|| {
            AppError::BadRequest(format!(
                "--losses: `{text}` is not \"P (S)\"; write the Permanent Casualties, then the Stragglers in brackets, e.g. --losses \"2 (1)\" (20.4)"
            ))
        })?),
        None => None,
    };
    let blown = match (a.blown, a.not_blown) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    };
    if losses.is_none() && a.morale_state.is_none() && blown.is_none() {
        return Err(AppError::BadRequest(format!(
            "--set-unit {unit}: say what to set with --losses \"P (S)\", --morale-state STATE, --blown or --not-blown"
        )));
    }
    Ok(OverrideAction::SetUnit {
        unit: unit.to_string(),
        losses,
        morale: a.morale_state.map(Into::into),
        blown,
    })
}

/// `undo`: the umpire's retraction of the last `n` commands (decision 0124). Refused when a side
/// could have seen their effect: once the sequence of play moved on (`turn`: a step ended and
/// the players were told where the game stands), or when a command rolled dice a side sees (a
/// roll seen cannot be taken back: that would be a second throw). The game start and an
/// earlier retraction are never taken back. The state to restore is the record played back to
/// just before the first retracted command.
pub(crate) fn undo(game: &Game, a: &super::request::UndoRequest) -> Result<Built, AppError> {
    use crate::engine::{Refusal, Visibility};
    let refuse = |message: String, help: &str| {
        AppError::Refused(Refusal::new("not-retractable", "", message, help))
    };
    let err = |e: crate::store::StoreError| AppError::Game(e.into());
    let commands = game.store.commands().map_err(err)?;
    let events = game.store.events().map_err(err)?;
    let n = a.commands;
    if n == 0 || n >= commands.len() {
        return Err(AppError::BadRequest(format!(
            "--commands {n}: give 1 to {} (the commands after the game's start)",
            commands.len().saturating_sub(1)
        )));
    }
    let last = &commands[commands.len() - n..];
    for c in last {
        let what = format!("command {} ({})", c.seq, c.actor);
        match &c.command {
            Command::Start { .. } => {
                return Err(refuse(
                    format!("{what} started the game"),
                    "branch the game instead",
                ));
            }
            Command::Retract { .. } => {
                return Err(refuse(
                    format!("{what} is itself an undo; an undo is not taken back"),
                    "override the state (`staffwork override`) or branch the game",
                ));
            }
            Command::Advance => {
                return Err(refuse(
                    format!(
                        "{what} ran the sequence of play (`turn`): the sides have been told where the game stands since"
                    ),
                    "correct it with `staffwork override`, recorded with its reason",
                ));
            }
            _ => {}
        }
        if let Some(e) = events.iter().find(|e| {
            e.command_seq == c.seq
                && !e.event.dice().is_empty()
                && e.event.visibility != Visibility::Umpire
        }) {
            return Err(refuse(
                format!(
                    "{what} rolled dice a side has seen ({}); taking it back would be a second throw",
                    e.event.describe()
                ),
                "correct it with `staffwork override`, recorded with its reason",
            ));
        }
    }
    let first = last[0].seq;
    let taken_back = last
        .iter()
        .map(|c| {
            events
                .iter()
                .find(|e| e.command_seq == c.seq)
                .map_or_else(|| format!("command {}", c.seq), |e| e.event.describe())
        })
        .collect();
    let restore = crate::game::playback(
        &game.engine(),
        events
            .iter()
            .filter(|e| e.command_seq < first)
            .map(|e| &e.event),
    );
    Ok((
        "umpire".into(),
        Command::Retract {
            commands: last.iter().map(|c| c.seq).collect(),
            reason: a.reason.clone(),
            restore: serde_json::to_string(&restore).map_err(|e| {
                AppError::BadRequest(format!("cannot record the state to restore: {e}"))
            })?,
            at_events: game.state.events,
            taken_back,
        },
    ))
}

/// The piece of a `move --piece` entry (`PIECE` or `PIECE=HEX`).
pub(crate) fn piece_name(entry: &str) -> &str {
    entry.split_once('=').map_or(entry, |(p, _)| p)
}

/// The moves a `move` asks for: one per `--piece`, to its own `=HEX` or to `--to`.
/// `move --whole FORMATION --to HEX` as a move of several pieces (decision 0162): every piece
/// of the formation on the map (`oob::formation_pieces`) to its own hex, keeping its place
/// relative to the formation's hub (its commander, or the HQ of a corps or army; `oob::hub_piece`),
/// which goes to --to. A request without --whole is returned as it is.
pub(crate) fn whole(
    game: &Game,
    a: &super::request::MoveRequest,
) -> Result<super::request::MoveRequest, AppError> {
    let Some(command) = &a.whole else {
        return Ok(a.clone());
    };
    let (s, state) = (&game.scenario, &game.state);
    let to = a.to.ok_or_else(|| {
        AppError::BadRequest(format!(
            "--whole {command}: where to? give --to HEX, where its commander goes"
        ))
    })?;
    let pieces = crate::engine::oob::formation_pieces(s, state, command);
    let Some(first) = pieces.first() else {
        return Err(AppError::BadRequest(format!(
            "--whole {command}: it has no piece on the map to move"
        )));
    };
    let hub = crate::engine::oob::hub_piece(s, state, command)
        .filter(|h| pieces.contains(h))
        .unwrap_or_else(|| first.clone());
    let from = state.positions[&hub];
    if from == to {
        return Err(AppError::BadRequest(format!(
            "--whole {command}: {hub} is already at {to}; give the hex its commander is to reach"
        )));
    }
    let mut b = a.clone();
    b.whole = None;
    b.to = None;
    b.piece = pieces
        .iter()
        .map(|p| format!("{p}={}", state.positions[p].translated(from, to)))
        .collect();
    Ok(b)
}

pub(crate) fn moves(a: &super::request::MoveRequest) -> Result<Vec<Command>, AppError> {
    if a.piece.is_empty() {
        return Err(AppError::BadRequest(
            "move what? give --piece PIECE (repeatable) or --whole FORMATION".into(),
        ));
    }
    if a.piece.len() > 1 && !a.path.is_empty() {
        return Err(AppError::BadRequest(
            "--path is one piece's path; move several pieces without --path (each takes its cheapest legal path)".into(),
        ));
    }
    a.piece
        .iter()
        .map(|entry| {
            let (piece, to) = match entry.split_once('=') {
                Some((p, h)) => (
                    p.to_string(),
                    h.parse::<Hex>().map_err(|e| {
                        AppError::BadRequest(format!("--piece {entry}: `{h}` is not a hex ({e})"))
                    })?,
                ),
                None => (
                    entry.clone(),
                    a.to.ok_or_else(|| {
                        AppError::BadRequest(format!(
                            "--piece {entry}: where to? give --to HEX, or --piece {entry}=HEX"
                        ))
                    })?,
                ),
            };
            Ok(Command::Move {
                piece,
                to,
                path: a.path.clone(),
                formation: a.formation,
                face: a.face,
                forced_march: a.forced_march,
                extend: a.extend.clone(),
                retract: a.retract.clone(),
                extension: a.extension,
                backstep: a.backstep,
                retreat_from: a.retreat_from,
                as_seen: false,
            })
        })
        .collect()
}
