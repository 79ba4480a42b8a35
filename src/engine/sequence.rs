//! The sequence of play (5.1): starting the game, and the automatic segments run between the
//! windows where a person acts.
//!
//! Per player turn: Command Phase begins (command points 6.4.1, the optional Random Events check
//! 29.0, arrivals 6.4.7, discovery of distorted orders 6.5.3, reinforcement rolls) → **Command window** (Order Issue 6.4, Local
//! Initiative 6.6) → Attack Stoppage (6.7), Delay Reduction (6.5.2), New Order Acceptance (6.5),
//! reinforcements enter (12.6) → **Operations window** (fire, movement, close combat, rally) →
//! end of player turn (Emergency Withdrawals completed 6.6.3.6–7, Loose Cannons end 6.6.1.6,
//! command range 6.11) → next player, or the next game turn (27.1.1).

use super::command::TypedOrder;
use super::command_system::{acceptance_segment, delay_reduction_segment, stoppage_segment};
use super::event::{EventKind, Visibility};
use super::oob;
use super::state::*;
use super::{Ctx, Refusal};
use crate::hex::Hex;
use crate::rules::AcceptanceResult;
use crate::rules::dice::Purpose;
use crate::scenario::PresetStatus;

/// Place the scenario's forces and pre-set orders, and open the first Command Phase.
pub(super) fn start(
    ctx: &mut Ctx,
    presets: &[(String, TypedOrder)],
    variants: &[String],
) -> Result<(), Refusal> {
    if ctx.state.turn != 0 {
        return Err(Refusal::new(
            "already-started",
            "",
            "the game has already started",
            "branch it instead",
        ));
    }
    let s = ctx.scenario();
    if let Some(v) = variants
        .iter()
        .find(|v| !s.variants.iter().any(|x| &x.id == *v))
    {
        let known: Vec<&str> = s.variants.iter().map(|x| x.id.as_str()).collect();
        return Err(Refusal::new(
            "unknown-variant",
            "",
            format!("`{v}` is not a variant of this scenario"),
            format!(
                "variants: {}",
                if known.is_empty() {
                    "none".into()
                } else {
                    known.join(", ")
                }
            ),
        ));
    }
    let first = s.clock.first_player.clone();
    let mut side_order = vec![first.clone()];
    side_order.extend(s.sides.iter().map(|x| x.id.clone()).filter(|x| *x != first));
    let mut armies = Vec::new();
    for side in &side_order {
        let army = s.side(side).map(|x| x.army.clone()).unwrap_or_default();
        let commander = s
            .formation(&army)
            .and_then(|f| f.commander.clone())
            .unwrap_or_default();
        armies.push((side.clone(), commander, oob::hq_piece(&army)));
    }
    let mut positions: Vec<(String, Hex)> = Vec::new();
    for c in &s.commanders {
        if let Some(p) = &c.position {
            positions.push((c.id.clone(), p.hex));
        }
    }
    for f in &s.formations {
        if let Some(p) = &f.hq {
            positions.push((oob::hq_piece(&f.id), p.hex));
        }
    }
    for u in &s.units {
        if let Some(p) = &u.position {
            positions.push((u.id.clone(), p.hex));
        }
    }
    let commands = oob::commands(s);
    let scenario_id = s.meta.id.clone();
    ctx.emit(
        // The start places every piece of both sides: the umpire's alone (4.0).
        Visibility::Umpire,
        EventKind::GameStarted {
            scenario_id,
            side_order,
            armies,
            commands,
            positions,
            variants: variants.to_vec(),
            units: super::combat_system::initial_units(s, ctx.eng.combat),
            commanders: s
                .formations
                .iter()
                .filter_map(|f| f.commander.clone().map(|c| (f.id.clone(), c)))
                .collect(),
        },
    );

    // 6.2.2: pre-set orders are in force before the game begins, some in delay.
    for p in &ctx.eng.scenario.preset_orders {
        let Some((_, typed)) = presets.iter().find(|(id, _)| *id == p.id) else {
            return Err(Refusal::new(
                "preset-not-typed",
                "6.2.2",
                format!("pre-set order `{}` was not given to the engine", p.id),
                "type every pre-set order with the order language before starting",
            ));
        };
        let result = match p.status {
            PresetStatus::Accepted => AcceptanceResult::A,
            PresetStatus::D4 => AcceptanceResult::D4,
            PresetStatus::D5 => AcceptanceResult::D5,
            PresetStatus::D6 => AcceptanceResult::D6,
        };
        let status = super::command_system::initial_status(ctx.eng.tables, result);
        let order = OrderRecord::new(
            ctx.state.next_order_number(),
            typed,
            Routing {
                side: p.side.clone(),
                sender: String::from("scenario"),
                recipient: p.to.clone(),
                method: None,
                cost: 0,
                sent_turn: 0,
                arrival_turn: 0,
                origin: OrderOrigin::Preset,
                status,
            },
        );
        ctx.emit_side(&p.side, EventKind::PresetOrder { order });
    }
    super::special_rules::game_start(ctx);
    let first = ctx.state.side_order[0].clone();
    begin_command_phase(ctx, &first)
}

/// Run the automatic segments from the current window to the next one.
pub(super) fn advance(ctx: &mut Ctx) -> Result<(), Refusal> {
    let side = ctx.state.phasing().to_string();
    match ctx.state.step {
        Step::Command => {
            stoppage_segment(ctx, &side)?;
            delay_reduction_segment(ctx, &side)?;
            acceptance_segment(ctx, &side)?;
            ctx.emit(
                Visibility::Public,
                EventKind::StepBegan {
                    side: side.clone(),
                    step: Step::Operations,
                },
            );
            reinforcements_enter(ctx, &side);
            super::movement::ruffin_night_attack(ctx, &side)
        }
        Step::Operations => {
            // 9.2: the phase cannot end with a stack found over-stacked not broken up.
            super::zones::must_break_up(ctx, &side)?;
            // 22.1: nor with a Cavalry Withdrawal owed (decision 0157).
            super::opportunity::must_withdraw(ctx)?;
            end_player_turn(ctx, &side)?;
            let next = ctx.state.player + 1;
            if next < ctx.state.side_order.len() {
                let side = ctx.state.side_order[next].clone();
                begin_command_phase(ctx, &side)
            } else {
                let last = ctx.eng.turns.len() as u32;
                if ctx.state.turn >= last {
                    let turn = ctx.state.turn;
                    ctx.emit(Visibility::Public, EventKind::GameEnded { last_turn: turn });
                    return Ok(());
                }
                let turn = ctx.state.turn + 1;
                let time = ctx
                    .eng
                    .turn_info(turn)
                    .map(|t| t.time.format("%Y-%m-%d %H:%M").to_string())
                    .unwrap_or_default();
                ctx.emit(
                    Visibility::Public,
                    EventKind::TurnBegan {
                        new_turn: turn,
                        time,
                    },
                );
                let first = ctx.state.side_order[0].clone();
                begin_command_phase(ctx, &first)
            }
        }
        Step::GameOver => Err(Refusal::new("game-over", "", "the game is over", "")),
    }
}

/// Start of the phasing player's Command Phase: command points, arrivals, discovery rolls,
/// reinforcement rolls.
fn begin_command_phase(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
    let side = side.to_string();
    let s = ctx.eng.scenario;
    ctx.emit(
        Visibility::Public,
        EventKind::StepBegan {
            side: side.clone(),
            step: Step::Command,
        },
    );
    // Burrard may land first (V2.5); the command points are those of whoever commands then.
    super::special_rules::command_phase_start(ctx, &side)?;
    let commander = ctx
        .state
        .sides
        .get(&side)
        .map(|x| x.army_commander.clone())
        .unwrap_or_default();
    let rating = oob::rating(s, &ctx.state, &commander);
    let command_points = ctx.eng.tables.command_points(rating);
    let ss = ctx.state.sides.get(&side).cloned().unwrap_or_default();
    let at = |p: &str| ctx.state.positions.get(p).copied();
    let commander_with_hq =
        at(&ss.army_commander).is_some() && at(&ss.army_commander) == at(&ss.army_hq);
    ctx.emit_side(
        &side,
        EventKind::CommandPhaseBegan {
            side: side.clone(),
            command_points,
            commander_with_hq,
        },
    );

    // 29.0: the Random Events check opens the Player Turn (optional: variant `random-events`).
    super::random_events::check(ctx, &side)?;

    // 6.10.2, 6.6.3.10: a corps whose HQ was overrun withdraws now.
    let overrun: Vec<String> = ctx
        .state
        .commands
        .iter()
        .filter(|(_, c)| c.side == side && c.overrun)
        .map(|(id, _)| id.clone())
        .collect();
    for command in overrun {
        super::command_system::begin_withdrawal(
            ctx,
            &command,
            super::event::WithdrawalCause::HqOverrun,
        );
    }

    if ctx
        .eng
        .turn_info(ctx.state.turn)
        .is_some_and(|t| t.last_dusk)
    {
        last_dusk_rewrite(ctx, &side);
    }

    // 6.5.3: roll to discover each distorted order, at the start of each following Command Phase.
    let unnoticed: Vec<String> = ctx
        .state
        .commands
        .iter()
        .filter(|(_, c)| c.side == side && c.distortion_unnoticed)
        .map(|(id, _)| id.clone())
        .collect();
    for command in unnoticed {
        let distorted_this_turn = ctx.state.orders.values().any(|o| {
            o.recipient == command
                && o.status == OrderStatus::Distorted
                && o.status_turn == ctx.state.turn
        });
        if distorted_this_turn {
            continue;
        }
        let die = ctx.dice.roll(Purpose::Discovery, 6)?;
        // 6.5.3: 5 or more on one die discovers it (from the tables in force).
        let discovered = die.value >= ctx.eng.tables.discovery_needs().value;
        ctx.emit_side(
            &side,
            EventKind::DistortionDiscoveryRolled {
                command,
                dice: vec![die],
                discovered,
            },
        );
    }

    // 6.4.7: orders arriving this turn reach their recipients; pending delayed orders are discarded.
    let arriving: Vec<u32> = ctx
        .state
        .orders
        .values()
        .filter(|o| {
            o.side == side && o.status == OrderStatus::InTransit && o.arrival_turn <= ctx.state.turn
        })
        .map(|o| o.number)
        .collect();
    for n in arriving {
        super::command_system::arrive(ctx, n);
    }

    // 12.6 and scenario rules: arrival rolls for conditional reinforcements (a random event may
    // have moved their time or changed this turn's rolls, 29.1).
    let due: Vec<(String, u8, u8)> = s
        .reinforcements
        .iter()
        .filter(|r| variant_allows(&ctx.state, r))
        .filter(|r| {
            r.side == side
                && !ctx.state.arrived.contains(&r.id)
                && !ctx.state.due.contains(&r.id)
                && super::random_events::time_reached(ctx, r)
        })
        .filter_map(|r| r.condition.as_ref().map(|c| (r.id.clone(), c.sides, c.min)))
        .collect();
    for (group, sides, min) in due {
        let rolls = super::random_events::arrival_rolls(ctx, &group);
        if rolls == 0 {
            continue;
        }
        let mut dice = Vec::new();
        for _ in 0..rolls {
            dice.push(ctx.dice.roll(Purpose::Reinforcement, sides)?);
        }
        let arrives = dice.iter().any(|d| d.value >= min);
        ctx.emit_side(
            &side,
            EventKind::ReinforcementRolled {
                group,
                dice,
                arrives,
            },
        );
    }
    Ok(())
}

/// 12.6: reinforcements enter at their entry area in the Movement Phase. A group with a die
/// condition enters in the turn its roll (made at the start of the Command Phase) succeeded.
fn reinforcements_enter(ctx: &mut Ctx, side: &str) {
    let s = ctx.eng.scenario;
    for r in &s.reinforcements {
        if r.side != side
            || ctx.state.arrived.contains(&r.id)
            || !super::random_events::time_reached(ctx, r)
        {
            continue;
        }
        if r.condition.is_some() && !ctx.state.due.contains(&r.id) {
            continue;
        }
        if !variant_allows(&ctx.state, r) {
            continue;
        }
        let hex = s
            .place(&r.entry)
            .and_then(|p| p.hexes.first().copied())
            .or_else(|| r.entry.parse::<Hex>().ok());
        let Some(scheduled) = hex else { continue };
        // 12.6.2: "If enemy units block a specified Entry Hex, that unit is free to enter at any
        // hex free of enemy units at or within 10 hexes of the scheduled Entry Hex along any map
        // edge." The nearest such hex (decision 0142); none free: it waits.
        let blocked = enemy_in(ctx, side, scheduled);
        let hex = if blocked {
            match free_edge_hex(ctx, side, scheduled) {
                Some(h) => h,
                None => continue,
            }
        } else {
            scheduled
        };
        let mut pieces = Vec::new();
        for id in &r.arrives {
            match s.formation(id) {
                // An army or corps brings its HQ and commander; its units are listed separately.
                Some(f) if f.echelon != crate::scenario::Echelon::Division => {
                    pieces.push(oob::hq_piece(&f.id));
                    pieces.extend(f.commander.iter().cloned());
                }
                // A division brings its commander and its units.
                Some(f) => {
                    pieces.extend(f.commander.iter().cloned());
                    pieces.extend(oob::member_units(s, &ctx.state, id));
                }
                None => pieces.push(id.clone()),
            }
        }
        pieces.sort();
        pieces.dedup();
        // A piece already on the map does not enter twice.
        pieces.retain(|p| !ctx.state.positions.contains_key(p));
        ctx.emit_side(
            side,
            EventKind::ReinforcementArrived {
                group: r.id.clone(),
                hex,
                pieces,
                blocked: blocked.then_some(scheduled),
            },
        );
    }
}

/// Units (or Line Extensions, 13.1.1) of `side`'s enemies stand in `hex`.
fn enemy_in(ctx: &Ctx, side: &str, hex: Hex) -> bool {
    let s = ctx.eng.scenario;
    ctx.state
        .positions
        .iter()
        .any(|(p, h)| *h == hex && s.unit(p).is_some_and(|u| u.side != side))
        || super::extensions::all(ctx, None)
            .iter()
            .any(|(p, h)| *h == hex && s.unit(p).is_some_and(|u| u.side != side))
}

/// 12.6.2: the map-edge hex free of enemy units nearest the blocked Entry Hex, within 10 hexes;
/// on equal distance the lowest hex number (decision 0142).
fn free_edge_hex(ctx: &Ctx, side: &str, entry: Hex) -> Option<Hex> {
    let m = &ctx.eng.scenario.map;
    let mut best: Option<(u32, Hex)> = None;
    for col in m.first_col..=m.last_col {
        for row in m.first_row..=m.last_row {
            let edge =
                col == m.first_col || col == m.last_col || row == m.first_row || row == m.last_row;
            let h = Hex::new(col, row);
            let d = h.distance(entry);
            if !edge || d > 10 || h == entry || enemy_in(ctx, side, h) {
                continue;
            }
            if best.is_none_or(|b| (d, h) < b) {
                best = Some((d, h));
            }
        }
    }
    best.map(|(_, h)| h)
}

/// 27.2.3: in the Command Phase of the last dusk turn, every corps under Engage orders has them
/// rewritten as instantly accepted Independent Orders, one per division, conforming to the old
/// order; the corps itself is left without orders.
fn last_dusk_rewrite(ctx: &mut Ctx, side: &str) {
    let s = ctx.eng.scenario;
    let corps: Vec<(String, u32)> = ctx
        .state
        .commands
        .iter()
        .filter(|(id, c)| {
            c.side == side && oob::echelon(s, id) == Some(crate::scenario::Echelon::Corps)
        })
        .filter(|(id, c)| {
            c.status == CommandStatus::Ordered
                && ctx.state.current_posture(id) == Some(crate::rules::Posture::Engage)
        })
        .filter_map(|(id, c)| c.current_order.map(|n| (id.clone(), n)))
        .collect();
    for (corps_id, n) in corps {
        let Some(old) = ctx.state.orders.get(&n).cloned() else {
            continue;
        };
        let typed = TypedOrder {
            text: old.text.clone(),
            readback: old.readback.clone(),
            order_type: old.order_type,
            stages: old.stages.clone(),
            independent: true,
            key: format!("{} (independent, 27.2.3)", old.key),
            joins: None,
            attaches: Vec::new(),
        };
        let divisions: Vec<String> = oob::sub_units(s, &ctx.state, &corps_id)
            .into_iter()
            .filter(|d| oob::echelon(s, d) == Some(crate::scenario::Echelon::Division))
            .collect();
        for d in divisions {
            let turn = ctx.state.turn;
            let order = OrderRecord::new(
                ctx.state.next_order_number(),
                &typed,
                Routing {
                    side: side.to_string(),
                    sender: String::from("27.2.3"),
                    recipient: d,
                    method: None,
                    cost: 0,
                    sent_turn: turn,
                    arrival_turn: turn,
                    origin: OrderOrigin::Preset,
                    status: OrderStatus::Accepted,
                },
            );
            ctx.emit_side(side, EventKind::PresetOrder { order });
        }
        ctx.emit_side(
            side,
            EventKind::StatusChanged {
                command: corps_id,
                status: CommandStatus::NoOrders,
                reason: "its divisions took Independent Orders at the last dusk turn (27.2.3)"
                    .into(),
            },
        );
    }
}

/// Is a reinforcement group in play under the game's variants?
pub(super) fn variant_allows(state: &GameState, r: &crate::scenario::Reinforcement) -> bool {
    let needed = r
        .variant
        .as_ref()
        .is_none_or(|v| state.variants.contains(v));
    let excluded = r.unless_variants.iter().any(|v| state.variants.contains(v));
    needed && !excluded
}

/// End of the phasing player's turn: Emergency Withdrawals end in straggler checks and No Orders
/// (6.6.3.6–7); Loose Cannons end in No Orders (6.6.1.6); command range is checked (6.11).
fn end_player_turn(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
    // 13.3.3: a Line Extension stopped apart from its parent is placed next to it.
    super::opportunity::place_extensions_apart(ctx, side);
    // 9.1: stacking limits are checked at the end of the phases in which units move or retreat.
    super::zones::stacking_check(ctx);
    let turn = ctx.state.turn;
    let ending: Vec<(String, CommandStatus)> = ctx
        .state
        .commands
        .iter()
        .filter(|(_, c)| c.side == side && c.one_turn_until.is_some_and(|t| t <= turn))
        .map(|(id, c)| (id.clone(), c.status))
        .collect();
    for (command, status) in ending {
        if status == CommandStatus::Withdrawing {
            super::command_system::straggler_checks(ctx, side, &command)?;
        }
        let reason = match status {
            CommandStatus::Withdrawing => "after an Emergency Withdrawal (6.6.3.7)",
            _ => "after a Loose Cannon turn (6.6.1.6)",
        };
        if status == CommandStatus::LooseCannon
            && super::temporary_division::dissolve_if_temporary(
                ctx,
                &command,
                "carried out a Loose Cannon (V2.3)",
            )
        {
            continue;
        }
        ctx.emit_side(
            side,
            EventKind::StatusChanged {
                command,
                status: CommandStatus::NoOrders,
                reason: reason.into(),
            },
        );
    }
    let out_of_command = super::command_system::command_range_check(ctx, side);
    super::combat_system::rally_phase(ctx, side, &out_of_command)?;
    super::combat_system::eliminated_recovery(ctx, side)?;
    Ok(())
}
