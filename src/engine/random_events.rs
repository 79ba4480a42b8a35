//! The optional Random Events rule (29), in play when the scenario variant `random-events` is
//! chosen: at the start of each Player Turn the phasing player rolls one die; on a 1 he rolls 2d6
//! on the Standard Random Events Table (`rules::random_events`, 29.0), and a "Game Table" result
//! rolls one die on the scenario's own table (`[[random_events]]`, e.g. Vimeiro V5.5).
//!
//! Owns: the check, the choice of "a random" command, order, commander or battery, and applying
//! each event (29.1) through the engine's existing mechanisms — Loose Cannon (6.6.1.6, with
//! `command_system`'s discarding), Order Lost (a distortion to be discovered, 6.5.3), Commander
//! Loss (replacement, 25), Delay and Advance Reinforcements (the schedule `sequence` reads
//! through [`time_reached`] and [`arrival_rolls`]; a group due this turn Force Marching without
//! Straggler rolls, which `movement` reads through [`free_forced_march`], decision 0200),
//! Cavalry Recovery (a flag the Rally Phase
//! reads through [`cavalry_recovers`]) and the game-table effects that map onto them. What the
//! engine cannot apply (an Artillery Accident, most game-table events) is recorded as an
//! `umpire` outcome naming the event and its text (decision 0045).
//!
//! "A random X" is chosen with one die of as many faces as there are candidates, rolled over the
//! candidates sorted by id (orders by number): face k picks the k-th. One candidate needs no die;
//! none means the event does not apply (29.0: No Event). Every die is `random-event` and is
//! stored in the one `RandomEventChecked` event of the check, which only the phasing side (and
//! the umpire) sees.
//!
//! Must not: do IO, use ambient randomness, iterate hash containers, use floating point, or
//! change rules that belong elsewhere (it emits their events; `evolve` applies them).

use super::event::{EventKind, GameTableRoll, RandomEventOutcome, ReinforcementTiming};
use super::oob;
use super::state::{CommandStatus, OrderOrigin, OrderRecord, OrderStatus};
use super::{Ctx, Refusal};
use crate::provenance::Provenance;
use crate::rules::dice::{Die, Purpose};
use crate::rules::random_events::{Effect, RandomEventTable, SeriesEvent};
use crate::scenario::{Echelon, Reinforcement};

/// The scenario variant that puts the rule in play.
pub(super) const VARIANT: &str = "random-events";

/// A check being decided: everything the `RandomEventChecked` event will record.
struct Check {
    side: String,
    dice: Vec<Die>,
    outcome: RandomEventOutcome,
    event: Option<SeriesEvent>,
    provenance: Option<Provenance>,
    game_table: Option<GameTableRoll>,
    effect: Option<Effect>,
    candidates: Vec<String>,
    chosen: Option<String>,
    reinforcements: Vec<ReinforcementTiming>,
    command_points: Option<u8>,
    text: String,
}

/// What an applied event does through other rules' events, emitted after the check's event.
enum FollowUp {
    /// 29.1 Loose Cannon on this command.
    LooseCannon(String),
    /// 29.1 Order Lost: this order.
    OrderLost(u32),
    /// 29.1 Commander Loss: the formations this commander commands.
    CommanderLost(Vec<String>),
}

/// 29.0: the Random Events check at the start of `side`'s Player Turn.
pub(super) fn check(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
    if !ctx.state.variants.contains(VARIANT) {
        return Ok(());
    }
    let table = RandomEventTable::nbs();
    let occurs = table.occurs_on();
    let gate = ctx.dice.roll(Purpose::RandomEvent, 6)?;
    let mut c = Check {
        side: side.to_string(),
        dice: vec![gate],
        outcome: RandomEventOutcome::Nothing,
        event: None,
        provenance: None,
        game_table: None,
        effect: None,
        candidates: Vec::new(),
        chosen: None,
        reinforcements: Vec::new(),
        command_points: None,
        text: format!(
            "Random Events (29.0): no event this turn (one occurs on a {})",
            occurs.value
        ),
    };
    if gate.value != occurs.value {
        emit(ctx, c);
        return Ok(());
    }
    let (roll, two) = ctx.dice.roll_2d6(Purpose::RandomEvent)?;
    c.dice.extend(two);
    let cell = table.event(roll);
    c.event = Some(cell.value);
    c.provenance = Some(cell.provenance.max(occurs.provenance));
    let title = cell.value.title();
    let effect = match cell.value.effect() {
        Some(e) => Some(e),
        None => game_table(ctx, &mut c)?,
    };
    let follow = match effect {
        Some(e) => {
            let name = c
                .game_table
                .as_ref()
                .map_or_else(|| title.to_string(), |g| format!("Game Table: {}", g.name));
            apply(ctx, &mut c, e, &name)?
        }
        None => None,
    };
    emit(ctx, c);
    match follow {
        Some(FollowUp::LooseCannon(command)) => {
            // 6.6.1.6 with 29.1: orders due this turn are lost; the opponent writes a one-turn
            // order (`staffwork loose-cannon`), after which the command enters No Orders.
            super::command_system::discard_pending(
                ctx,
                &command,
                "lost to a Loose Cannon random event (29.1)",
            );
            ctx.emit_side(
                side,
                EventKind::StatusChanged {
                    command,
                    status: CommandStatus::LooseCannon,
                    reason: "Loose Cannon random event: the opponent writes a one-turn order (29.1, 6.6.1.6)"
                        .into(),
                },
            );
        }
        // 29.1 Order Lost: "discovered" on 5–6 just as if the order had been Distorted (6.5.3),
        // from the next Command Phase on.
        Some(FollowUp::OrderLost(order)) => {
            ctx.emit_side(side, EventKind::OrderDistorted { order })
        }
        // 29.1 Commander Loss: a casualty; the successor takes over (25) or a Vimeiro temporary
        // division ceases to exist (V2.3), as for a loss in combat.
        Some(FollowUp::CommanderLost(formations)) => {
            for command in formations {
                ctx.emit_side(
                    side,
                    EventKind::CommanderLost {
                        command,
                        lost: true,
                    },
                );
            }
        }
        None => {}
    }
    Ok(())
}

fn emit(ctx: &mut Ctx, c: Check) {
    let side = c.side.clone();
    ctx.emit_side(
        &side,
        EventKind::RandomEventChecked {
            side: c.side,
            dice: c.dice,
            outcome: c.outcome,
            event: c.event,
            provenance: c.provenance,
            game_table: c.game_table,
            effect: c.effect,
            candidates: c.candidates,
            chosen: c.chosen,
            reinforcements: c.reinforcements,
            command_points: c.command_points,
            text: c.text,
        },
    );
}

/// 29.1 Game Table: one die on the scenario's table for the side. Returns the entry's effect, or
/// `None` when the check is settled here (No Event, or the umpire applies the entry's text).
fn game_table(ctx: &mut Ctx, c: &mut Check) -> Result<Option<Effect>, Refusal> {
    let s = ctx.eng.scenario;
    let entries: Vec<&crate::scenario::RandomEventEntry> = s
        .random_events
        .iter()
        .filter(|e| e.side == c.side)
        .collect();
    if entries.is_empty() {
        c.outcome = RandomEventOutcome::NoEvent;
        c.text = format!(
            "Game Table (29.1): the scenario has no random events table for {}: No Event (29.0)",
            c.side
        );
        return Ok(None);
    }
    let die = ctx.dice.roll(Purpose::RandomEvent, 6)?;
    c.dice.push(die);
    let Some(e) = entries.iter().find(|e| e.roll.contains(&die.value)) else {
        c.game_table = Some(GameTableRoll {
            roll: die.value,
            name: "No Event".into(),
            rule: String::new(),
            text: String::new(),
        });
        c.outcome = RandomEventOutcome::NoEvent;
        c.text = format!(
            "Game Table (29.1): rolled {}, which the {} table does not list: No Event",
            die.value, c.side
        );
        return Ok(None);
    };
    c.game_table = Some(GameTableRoll {
        roll: die.value,
        name: e.name.clone(),
        rule: e.rule.clone(),
        text: e.text.clone(),
    });
    let rule = if e.rule.is_empty() {
        String::new()
    } else {
        format!(" ({})", e.rule)
    };
    match e.effect.as_deref().and_then(Effect::from_name) {
        Some(effect) => Ok(Some(effect)),
        None => {
            // Decision 0045: what the engine cannot apply is the umpire's, with the rule's text.
            c.outcome = RandomEventOutcome::Umpire;
            c.text = format!(
                "Game Table: rolled {}, {}{rule}, for the umpire to apply: {}",
                die.value, e.name, e.text
            );
            Ok(None)
        }
    }
}

/// Apply an effect (29.1): choose what it strikes, record what it leaves in force, and say which
/// other rules' events follow. One flat match with an arm per effect of the table, so it runs
/// past 150 lines by design; the compiler holds it exhaustive.
fn apply(
    ctx: &mut Ctx,
    c: &mut Check,
    effect: Effect,
    name: &str,
) -> Result<Option<FollowUp>, Refusal> {
    let s = ctx.eng.scenario;
    let side = c.side.clone();
    c.effect = Some(effect);
    c.outcome = RandomEventOutcome::Applied;
    let not_applicable = |c: &mut Check, why: String| {
        c.outcome = RandomEventOutcome::NoEvent;
        c.text = format!("{name} (29.1): {why}: No Event (29.0)");
        Ok(None)
    };
    match effect {
        Effect::NoEvent => {
            c.outcome = RandomEventOutcome::NoEvent;
            c.text = match &c.game_table {
                Some(g) => format!("Game Table: rolled {}, {}: nothing happens", g.roll, g.name),
                None => format!("{name}: nothing happens"),
            };
            Ok(None)
        }
        Effect::LooseCannon => {
            let commands = own_order_commands(ctx, &side);
            let Some(command) = choose(ctx, c, commands)? else {
                return not_applicable(c, format!("{side} has no command on the map"));
            };
            c.text = format!(
                "{name} (29.1): {command} suffers a Loose Cannon: the opponent writes its one-turn order (6.6.1.6); it may not use Local Initiative this turn and its orders due this turn are lost"
            );
            Ok(Some(FollowUp::LooseCannon(command)))
        }
        Effect::OrderLost => {
            let in_transit: Vec<String> = ctx
                .state
                .orders
                .values()
                .filter(|o| o.side == side && o.status == OrderStatus::InTransit)
                .map(|o| o.number.to_string())
                .collect();
            let Some(order) = choose(ctx, c, in_transit)? else {
                return not_applicable(c, format!("{side} has no order in transit"));
            };
            let n: u32 = order.parse().unwrap_or_default();
            let to = ctx
                .state
                .orders
                .get(&n)
                .map(|o| o.recipient.clone())
                .unwrap_or_default();
            c.text = format!(
                "{name} (29.1): order {n} to {to} is lost and will not arrive; the army commander discovers it on a 5 or 6 from his next Command Phase, as a distorted order (6.5.3)"
            );
            Ok(Some(FollowUp::OrderLost(n)))
        }
        Effect::DelayReinforcements | Effect::AdvanceReinforcements => {
            let advance = effect == Effect::AdvanceReinforcements;
            let (timings, due_now) = reinforcement_timings(ctx, &side, advance);
            if timings.is_empty() && due_now.is_empty() {
                return not_applicable(c, format!("{side} awaits no reinforcements"));
            }
            let mut parts: Vec<String> = timings
                .iter()
                .map(|t| match (t.shift, t.rolls) {
                    (_, Some(0)) => format!("{} is not rolled for this turn", t.group),
                    (_, Some(n)) => format!("{} rolls {n} times this turn", t.group),
                    (1, None) => format!("{} comes one turn later", t.group),
                    (_, None) => format!("{} comes one turn earlier", t.group),
                })
                .collect();
            if !due_now.is_empty() {
                // 12.5.6 with 29.1: its units' Forced March this turn rolls no Morale Check
                // (`move --forced-march N`; decision 0200).
                parts.push(format!(
                    "{} is due this turn and may force-march without rolling for Straggler losses this turn (12.5.6: `move --forced-march`)",
                    due_now.join(", ")
                ));
            }
            let mut timings = timings;
            timings.extend(due_now.into_iter().map(|group| ReinforcementTiming {
                group,
                shift: 0,
                rolls: None,
                forced_march: true,
            }));
            c.reinforcements = timings;
            c.text = format!("{name} (29.1): {}", parts.join("; "));
            Ok(None)
        }
        Effect::CavalryRecovery => {
            let cavalry = s.units.iter().any(|u| {
                u.side == side && u.kind.is_cavalry() && ctx.state.positions.contains_key(&u.id)
            });
            if !cavalry {
                return not_applicable(c, format!("{side} has no cavalry on the map"));
            }
            c.text = format!(
                "{name} (29.1): this turn the {side} cavalry, Blown or not, that qualifies for Straggler Recovery rolls as if it were infantry (20.3.2)"
            );
            Ok(None)
        }
        Effect::CommanderLoss => {
            let mut commanders: Vec<(String, String)> = ctx
                .state
                .commanders
                .iter()
                .filter(|(f, k)| {
                    s.formation(f).is_some_and(|x| x.side == side)
                        && !ctx.state.commands.get(*f).is_some_and(|x| x.dissolved)
                        && ctx.state.positions.contains_key(*k)
                })
                .map(|(f, k)| (k.clone(), f.clone()))
                .collect();
            commanders.sort();
            let mut ids: Vec<String> = commanders.iter().map(|(k, _)| k.clone()).collect();
            ids.dedup();
            let Some(k) = choose(ctx, c, ids)? else {
                return not_applicable(c, format!("{side} has no commander on the map"));
            };
            let formations: Vec<String> = commanders
                .iter()
                .filter(|(x, _)| *x == k)
                .map(|(_, f)| f.clone())
                .collect();
            c.text = format!(
                "{name} (29.1): {k} ({}) becomes a casualty; no victory points are awarded or lost",
                formations.join(", ")
            );
            Ok(Some(FollowUp::CommanderLost(formations)))
        }
        Effect::ArtilleryAccident => {
            let mut batteries: Vec<&crate::scenario::Unit> = s
                .units
                .iter()
                .filter(|u| {
                    u.side == side
                        && u.kind.is_artillery()
                        && ctx.state.positions.contains_key(&u.id)
                        && !ctx
                            .state
                            .units
                            .get(&u.id)
                            .is_some_and(|x| x.track.boxes > 0 && x.track.remaining() == 0)
                })
                .collect();
            batteries.sort_by(|a, b| a.id.cmp(&b.id));
            let ids: Vec<String> = batteries.iter().map(|u| u.id.clone()).collect();
            let Some(b) = choose(ctx, c, ids)? else {
                return not_applicable(c, format!("{side} has no battery on the map"));
            };
            let set_up = batteries
                .iter()
                .find(|u| u.id == b)
                .map(|u| format!("{:?}", u.formation).to_lowercase())
                .unwrap_or_default();
            // Decision 0045: the game state does not track a battery's formation, and no
            // override sets a unit's losses, so the umpire applies the accident.
            c.outcome = RandomEventOutcome::Umpire;
            c.text = format!(
                "{name} (29.1): battery {b} (set up {set_up}), for the umpire to apply: if Limbered it is Disorganized and loses one gun point; if Unlimbered it fires Cannister at its own hex, which suffers the Morale Change and every other effect"
            );
            Ok(None)
        }
        Effect::VimeiroJunotWakesUp => {
            let now = ctx.state.sides.get(&side).map_or(0, |x| x.command_points);
            let points = ctx.eng.tables.command_points(4).max(now);
            c.command_points = Some(points);
            c.text = format!(
                "{name}: the army commander issues this turn's orders as a level-4 leader ({points} command points, sender rating 4); the French initiative −1 (V3.1) is ignored for the rest of the game"
            );
            Ok(None)
        }
    }
}

/// "A random X" (29.1): one die with as many faces as there are `candidates` (already in their
/// stable sorted order), face k picks the k-th. One candidate needs no die; none gives `None`.
/// A die has at most 255 faces: beyond that only the first 255 are candidates (no NBS side has
/// that many commands, orders, commanders or batteries).
fn choose(
    ctx: &mut Ctx,
    c: &mut Check,
    mut candidates: Vec<String>,
) -> Result<Option<String>, Refusal> {
    candidates.truncate(usize::from(u8::MAX));
    let chosen = match candidates.len() {
        0 => None,
        1 => candidates.first().cloned(),
        n => {
            let die = ctx
                .dice
                .roll(Purpose::RandomEvent, u8::try_from(n).unwrap_or(u8::MAX))?;
            c.dice.push(die);
            candidates
                .get(usize::from(die.value.max(1)) - 1)
                .or(candidates.last())
                .cloned()
        }
    };
    c.candidates = candidates;
    c.chosen.clone_from(&chosen);
    Ok(chosen)
}

/// The side's commands the Loose Cannon may strike: those acting on their own orders from the
/// army commander — the corps, divisions and brigades directly under the army, and any command on
/// Independent Orders (6.1, 6.8) — that exist and stand on the map, by id.
fn own_order_commands(ctx: &Ctx, side: &str) -> Vec<String> {
    let s = ctx.eng.scenario;
    let army = s.side(side).map(|x| x.army.as_str()).unwrap_or_default();
    ctx.state
        .commands
        .iter()
        .filter(|(id, c)| {
            c.side == side
                && !c.dissolved
                && oob::echelon(s, id) != Some(Echelon::Army)
                && (c.independent || c.parent.as_deref() == Some(army))
        })
        .filter(|(id, _)| {
            oob::hub_piece(s, &ctx.state, id).is_some_and(|p| ctx.state.positions.contains_key(&p))
        })
        .map(|(id, _)| id.clone())
        .collect()
}

/// The turn a reinforcement group is scheduled for (the first turn at or after its time), moved
/// by Delay and Advance Reinforcements; `None` when its time is after the last turn.
fn scheduled_turn(ctx: &Ctx, r: &Reinforcement) -> Option<i64> {
    let base = ctx.eng.turns.iter().position(|t| t.time >= r.time)? as i64 + 1;
    let shift = ctx
        .state
        .random_events
        .reinforcement_shift
        .get(&r.id)
        .copied()
        .unwrap_or(0);
    Some(base + i64::from(shift))
}

/// 12.6 with 29.1: has a reinforcement group's (possibly delayed or advanced) time come? A fixed
/// group enters from this turn, a variable one rolls from this turn.
pub(super) fn time_reached(ctx: &Ctx, r: &Reinforcement) -> bool {
    ctx.eng.turn_info(ctx.state.turn).is_some()
        && scheduled_turn(ctx, r).is_some_and(|t| t <= i64::from(ctx.state.turn))
}

/// How many arrival rolls a variable group makes this turn: 1, or 0 / 2 after Delay / Advance
/// Reinforcements this turn (29.1).
pub(super) fn arrival_rolls(ctx: &Ctx, group: &str) -> u8 {
    match ctx.state.random_events.arrival_rolls.get(group) {
        Some(&(turn, n)) if turn == ctx.state.turn => n,
        _ => 1,
    }
}

/// 29.1 Delay / Advance Reinforcements: the side's next reinforcements — the awaited groups with
/// the earliest scheduled turn — one turn later or earlier. A variable group already rolling is
/// not rolled for this turn (Delay) or rolls twice (Advance); a fixed group due this turn cannot
/// come earlier (returned apart: it may Force March this turn without Straggler rolls).
fn reinforcement_timings(
    ctx: &Ctx,
    side: &str,
    advance: bool,
) -> (Vec<ReinforcementTiming>, Vec<String>) {
    let s = ctx.eng.scenario;
    let now = i64::from(ctx.state.turn);
    let awaited: Vec<(&Reinforcement, i64)> = s
        .reinforcements
        .iter()
        .filter(|r| {
            r.side == side
                && !ctx.state.arrived.contains(&r.id)
                && !ctx.state.due.contains(&r.id)
                && super::sequence::variant_allows(&ctx.state, r)
        })
        .filter_map(|r| scheduled_turn(ctx, r).map(|t| (r, t)))
        .collect();
    let Some(next) = awaited.iter().map(|(_, t)| *t).min() else {
        return (Vec::new(), Vec::new());
    };
    let mut timings = Vec::new();
    let mut due_now = Vec::new();
    for (r, t) in awaited.into_iter().filter(|(_, t)| *t == next) {
        let variable = r.condition.is_some();
        let reached = t <= now;
        let timing = |shift, rolls| ReinforcementTiming {
            group: r.id.clone(),
            shift,
            rolls,
            forced_march: false,
        };
        match (advance, variable, reached) {
            (false, true, true) => timings.push(timing(0, Some(0))),
            (false, _, _) => timings.push(timing(1, None)),
            (true, true, true) => timings.push(timing(0, Some(2))),
            (true, false, true) => due_now.push(r.id.clone()),
            (true, _, false) => timings.push(timing(-1, None)),
        }
    }
    (timings, due_now)
}

/// 29.1 Advance Reinforcements: "If reinforcements are due this turn, the reinforcements may
/// force march without rolling for Straggler Losses this turn." The group `unit` arrived with
/// (named in its `arrives`, or a formation it belongs to is) when that group has this waiver
/// for the current turn (decision 0200).
pub(super) fn free_forced_march(ctx: &Ctx, unit: &str) -> Option<String> {
    let s = ctx.eng.scenario;
    let u = s.unit(unit)?;
    let turn = ctx.state.turn;
    let mut chain = vec![u.id.clone()];
    let mut f = s.formation(&u.parent);
    while let Some(x) = f {
        chain.push(x.id.clone());
        f = x.parent.as_deref().and_then(|p| s.formation(p));
    }
    ctx.state
        .random_events
        .free_forced_march
        .iter()
        .filter(|(_, t)| **t == turn)
        .find(|(g, _)| {
            s.reinforcements
                .iter()
                .any(|r| &r.id == *g && r.arrives.iter().any(|a| chain.contains(a)))
        })
        .map(|(g, _)| g.clone())
}

/// 29.1 Cavalry Recovery: does the side's cavalry roll for Straggler Recovery this turn?
pub(super) fn cavalry_recovers(ctx: &Ctx, side: &str) -> bool {
    ctx.state.random_events.cavalry_recovery.get(side) == Some(&ctx.state.turn)
}

/// Vimeiro V5.5 Junot Wakes Up: orders the army commander sent in that turn are accepted as from
/// a leader of the event's rating (6.5 sender term).
pub(super) fn sender_rating(ctx: &Ctx, o: &OrderRecord, rating: i32) -> i32 {
    match ctx.state.random_events.orders_as_rating.get(&o.side) {
        Some(&(turn, r)) if o.sent_turn == turn && o.origin == OrderOrigin::Sent => i32::from(r),
        _ => rating,
    }
}

/// A game-table effect in force for the rest of the game (e.g. `vimeiro-junot-wakes-up`; the
/// hook `special_rules` reads to lift the V3.1 initiative −1).
pub(super) fn in_force(ctx: &Ctx, effect: &str) -> bool {
    ctx.state.random_events.lasting.contains(effect)
}

/// 29.1 with 6.6.1.6: a command under a Loose Cannon this turn loses every order due this turn,
/// so an order that would arrive now (in person) is refused rather than lost.
pub(super) fn check_order_due(ctx: &Ctx, to: &str, arrival_turn: u32) -> Result<(), Refusal> {
    let turn = ctx.state.turn;
    let loose =
        ctx.state.commands.get(to).is_some_and(|c| {
            c.status == CommandStatus::LooseCannon && c.one_turn_until == Some(turn)
        });
    if loose && arrival_turn <= turn {
        return Err(Refusal::new(
            "loose-cannon-this-turn",
            "29.1",
            format!("`{to}` suffers a Loose Cannon this turn: an order arriving this turn is lost"),
            "send it by aide to arrive in a later turn, or wait until next turn",
        ));
    }
    Ok(())
}
