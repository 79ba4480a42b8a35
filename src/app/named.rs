//! Names in a request → the ids the engine knows, before the seat check and the command are
//! built (issue 17, decision 0120). Every field that asks for a piece, command, unit or
//! commander goes through [`crate::names::resolve`]; the engine command recorded in the game
//! carries ids only, so replay never depends on how a name was typed.

use crate::game::Game;
use crate::names::{Want, resolve};
use crate::view::Viewer;

use super::{AppError, Request};

/// Resolve the name given to the option `field` (named in the refusal).
fn one(game: &Game, field: &str, text: &str, want: Want) -> Result<String, AppError> {
    resolve(&game.scenario, &game.state, text, want).map_err(|e| {
        let mut r = e.refusal();
        r.message = format!("{field}: {}", r.message);
        AppError::Refused(r)
    })
}

fn opt(game: &Game, field: &str, text: &mut Option<String>, want: Want) -> Result<(), AppError> {
    if let Some(t) = text {
        *t = one(game, field, t, want)?;
    }
    Ok(())
}

/// A piece in `override --place PIECE=HEX`; a courier or other engine piece (`courier:12`) is
/// passed through as written.
fn placed(game: &Game, place: &mut Option<String>) -> Result<(), AppError> {
    if let Some(p) = place
        && let Some((piece, hex)) = p.split_once('=')
        && (!piece.contains(':') || piece.starts_with("hq:"))
    {
        *p = format!("{}={hex}", one(game, "--place", piece, Want::Piece)?);
    }
    Ok(())
}

/// The request with every name replaced by its id. An unknown or ambiguous name refuses the
/// request with the nearest names; nothing is written.
///
/// A side's seat naming a defender that is not a unit of the game gets the same refusal as for
/// an enemy unit it cannot see (`view::not_seen`), without suggestions: what a side may name
/// must not tell it what exists (4.0).
pub(crate) fn resolve_names(
    game: &Game,
    req: &Request,
    seat: &Viewer,
) -> Result<Request, AppError> {
    let mut req = req.clone();
    match &mut req {
        Request::Order(a) => {
            opt(game, "--to", &mut a.to, Want::Command)?;
            opt(game, "--from", &mut a.from, Want::Commander)?;
            opt(game, "--via", &mut a.via, Want::Commander)?;
        }
        Request::Initiative(a) => {
            opt(game, "--command", &mut a.command, Want::Command)?;
            // The commander rolling, or a cavalry/independent brigade's own id (6.6.1).
            a.commander = match one(game, "--commander", &a.commander, Want::Commander) {
                Ok(c) => c,
                Err(e) => one(game, "--commander", &a.commander, Want::Command).map_err(|_| e)?,
            };
        }
        Request::LooseCannon(a) => a.command = one(game, "--command", &a.command, Want::Command)?,
        Request::DefaultDefense(a) | Request::Withdraw(a) | Request::Stage(a) => {
            a.command = one(game, "--command", &a.command, Want::Command)?;
        }
        // `PIECE=HEX` gives a piece its own destination; the name is left of the `=`.
        Request::Move(a) => {
            opt(game, "--whole", &mut a.whole, Want::Command)?;
            for p in &mut a.piece {
                *p = match p.split_once('=') {
                    Some((name, hex)) => {
                        format!("{}={hex}", one(game, "--piece", name, Want::Piece)?)
                    }
                    None => one(game, "--piece", p, Want::Piece)?,
                };
            }
        }
        Request::Combat(a) | Request::CombatOdds(a) => {
            for u in &mut a.attackers {
                *u = one(game, "--attacker", u, Want::Unit)?;
            }
            for u in &mut a.square_fire {
                *u = one(game, "--square-fire", u, Want::Unit)?;
            }
            for u in &mut a.defenders {
                *u = match (one(game, "--defender", u, Want::Unit), seat) {
                    (Ok(id), _) => id,
                    (Err(_), Viewer::Side(side)) => {
                        return Err(AppError::Refused(crate::view::not_seen(u, side)));
                    }
                    (Err(e), _) => return Err(e),
                };
            }
            for x in &mut a.skirmisher_absorbs {
                let (unit, rest) = match x.split_once('=') {
                    Some((u, n)) => (u.to_string(), format!("={n}")),
                    None => (x.clone(), String::new()),
                };
                *x = format!(
                    "{}{rest}",
                    one(game, "--skirmisher-absorbs", &unit, Want::Unit)?
                );
            }
        }
        Request::Override(a) => {
            for (field, c) in [
                ("--wreck", &mut a.wreck),
                ("--unwreck", &mut a.unwreck),
                ("--commander-lost", &mut a.commander_lost),
                ("--no-orders", &mut a.no_orders),
                ("--impose-order", &mut a.impose_order),
            ] {
                opt(game, field, c, Want::Command)?;
            }
            opt(game, "--set-unit", &mut a.set_unit, Want::Unit)?;
            placed(game, &mut a.place)?;
        }
        // A side naming a unit it may not know of gets the one `not-seen` refusal, without
        // suggestions (4.0); `show` then refuses an enemy unit out of sight in the same words.
        Request::Show(a) => {
            // A formation by id, name or its commander's name (decision 0162); else a unit.
            let formation = resolve(&game.scenario, &game.state, &a.unit, Want::Command)
                .ok()
                .filter(|id| game.scenario.formation(id).is_some());
            if let Some(id) = formation {
                // An enemy formation: refused in the words typed, as a unit not seen (4.0).
                if let Viewer::Side(side) = seat
                    && game
                        .scenario
                        .formation(&id)
                        .is_some_and(|f| f.side != *side)
                {
                    return Err(AppError::Refused(crate::view::not_seen(&a.unit, side)));
                }
                a.unit = id;
                return Ok(req);
            }
            a.unit = match (one(game, "UNIT", &a.unit, Want::Unit), seat) {
                // Refused in the words typed, so the id a name resolves to is not revealed.
                (Ok(id), Viewer::Side(side))
                    if game.scenario.unit(&id).is_some_and(|u| u.side != *side)
                        && !crate::view::visible_positions(&game.state, &game.scenario, seat)
                            .contains_key(&id) =>
                {
                    return Err(AppError::Refused(crate::view::not_seen(&a.unit, side)));
                }
                (Ok(id), _) => id,
                (Err(_), Viewer::Side(side)) => {
                    return Err(AppError::Refused(crate::view::not_seen(&a.unit, side)));
                }
                (Err(e), _) => return Err(e),
            };
        }
        Request::Report(_)
        | Request::Undo(_)
        | Request::Relay(_)
        | Request::Message(_)
        | Request::Turn(_)
        | Request::Status
        | Request::Log
        | Request::Replay(_)
        | Request::Receipt(_)
        | Request::Branch(_)
        | Request::Odds(_) => {}
    }
    Ok(req)
}
