//! `evolve(state, event) -> state`: applying one recorded event. Pure, never rolls, never fails
//! on an event `decide` produced. Playback of a stored game is a fold of this function.

use super::event::{Event, EventKind};
use super::state::*;

/// Apply one event to the state.
pub fn evolve(state: &mut GameState, event: &Event) {
    apply(state, event);
    // 13.3.1: a Routed unit's Line Extensions collapse into its hex, whatever routed it.
    let units = &state.units;
    for (id, m) in state.movement.iter_mut() {
        if !m.extensions.is_empty()
            && units
                .get(id)
                .is_some_and(|u| u.morale == crate::combat::MoraleState::Routed)
        {
            m.extensions.clear();
            m.extension_parts.clear();
        }
    }
}

/// One event folded into the state. One flat match with an arm per event kind, so it runs past
/// 150 lines by design; the compiler holds it exhaustive, and each arm is the one place its
/// event changes the state.
fn apply(state: &mut GameState, event: &Event) {
    state.events += 1;
    for d in event.dice() {
        let c = state.dice.entry(d.purpose).or_insert(0);
        *c = (*c).max(d.index + 1);
    }
    let turn = event.turn;
    match &event.kind {
        // Decision 0124: back to the state before the retracted commands; the event count and
        // the dice positions only ever grow, so they are kept.
        EventKind::StateRestored { state: text, .. } => {
            // `decide` checked the text is a state; a record that says otherwise is refused by
            // the store's read-back before it is folded.
            let Ok(restored) = serde_json::from_str::<GameState>(text) else {
                return;
            };
            let events = state.events;
            let dice = std::mem::take(&mut state.dice);
            *state = restored;
            state.events = events;
            for (purpose, n) in dice {
                let c = state.dice.entry(purpose).or_insert(0);
                *c = (*c).max(n);
            }
        }
        EventKind::Retracted { .. } => {}
        EventKind::GameStarted {
            scenario_id,
            side_order,
            armies,
            commands,
            positions,
            variants,
            units,
            commanders: formation_commanders,
        } => {
            state.commanders = formation_commanders.iter().cloned().collect();
            state.variants = variants.iter().cloned().collect();
            state.units = units.iter().cloned().collect();
            state.scenario_id.clone_from(scenario_id);
            state.side_order.clone_from(side_order);
            state.turn = 1;
            state.player = 0;
            for (side, commander, hq) in armies {
                let s = SideState {
                    army_commander: commander.clone(),
                    army_hq: hq.clone(),
                    ..SideState::default()
                };
                state.sides.insert(side.clone(), s);
            }
            for ci in commands {
                state.commands.insert(
                    ci.id.clone(),
                    CommandState {
                        side: ci.side.clone(),
                        parent: ci.parent.clone(),
                        follows_parent: ci.parent.is_some() && !ci.independent,
                        status: CommandStatus::NoOrders,
                        current_order: None,
                        stage: 0,
                        distortion_unnoticed: false,
                        independent: ci.independent,
                        wrecked: false,
                        commander_lost: false,
                        local_initiative_turn: None,
                        initiative_roll_turn: None,
                        one_turn_until: None,
                        dissolved: ci.unformed,
                        overrun: false,
                        hq_withdraw_from: None,
                        original_commander_lost: false,
                        loan: ci.borrowed.then_some(Loan::Borrowed),
                    },
                );
            }
            for (piece, hex) in positions {
                state.positions.insert(piece.clone(), *hex);
            }
            // A brigade whose pre-scenario losses (Talavera 7.1) reach its Wrecked mark starts
            // Wrecked (21.6).
            for (id, u) in units {
                if u.track.wrecked_by_losses()
                    && let Some(c) = state.commands.get_mut(id)
                {
                    c.wrecked = true;
                }
            }
        }
        EventKind::PresetOrder { order } => {
            let n = order.number;
            let recipient = order.recipient.clone();
            let accepted = order.status == OrderStatus::Accepted;
            state.orders.insert(n, order.clone());
            if accepted {
                implement(state, n, &recipient, turn);
            }
        }
        EventKind::CommandPhaseBegan {
            side,
            command_points,
            commander_with_hq,
        } => {
            let s = state.sides.entry(side.clone()).or_default();
            s.command_points = *command_points;
            s.commander_with_hq_at_start = *commander_with_hq;
            s.initiative_begun = false;
            state.step = Step::Command;
        }
        EventKind::StepBegan { side, step } => {
            state.step = *step;
            if let Some(i) = state.side_order.iter().position(|s| s == side) {
                state.player = i;
            }
        }
        EventKind::TurnBegan { new_turn, .. } => {
            state.turn = *new_turn;
            state.player = 0;
        }
        EventKind::GameEnded { .. } => state.step = Step::GameOver,
        EventKind::OrderIssued { order } => {
            if let Some(s) = state.sides.get_mut(&order.side) {
                s.command_points = s.command_points.saturating_sub(order.cost);
                if order.method == Some(crate::rules::Method::InPerson) {
                    s.in_person_since_hq = true;
                }
            }
            match order.origin {
                OrderOrigin::Initiative | OrderOrigin::LooseCannon => {
                    if let Some(c) = state.commands.get_mut(&order.recipient) {
                        c.local_initiative_turn = Some(turn);
                    }
                }
                _ => {}
            }
            state.orders.insert(order.number, order.clone());
        }
        EventKind::OrderArrived { order } => {
            // A distortion set aside by the umpire is no longer waiting to be discovered.
            let distorted = state
                .orders
                .get(order)
                .is_some_and(|o| o.status == OrderStatus::Distorted);
            let recipient = state.orders.get(order).map(|o| o.recipient.clone());
            if distorted && let Some(c) = recipient.and_then(|r| state.commands.get_mut(&r)) {
                c.distortion_unnoticed = false;
            }
            set_status(state, *order, OrderStatus::Arrived, turn);
        }
        EventKind::AcceptanceRolled { .. } => {}
        EventKind::OrderDelayed { order, needs } => {
            set_status(state, *order, OrderStatus::Delayed { needs: *needs }, turn);
        }
        EventKind::OrderAccepted { order, implemented } => {
            if *implemented {
                let r = state.orders.get(order).map(|o| o.recipient.clone());
                if let Some(r) = r {
                    implement(state, *order, &r, turn);
                }
            } else {
                set_status(state, *order, OrderStatus::AwaitingCommander, turn);
            }
        }
        EventKind::OrderImplemented { order } => {
            let r = state.orders.get(order).map(|o| o.recipient.clone());
            if let Some(r) = r {
                implement(state, *order, &r, turn);
            }
        }
        EventKind::DelayRolled { .. } => {}
        EventKind::OrderDistorted { order } => {
            set_status(state, *order, OrderStatus::Distorted, turn);
            let r = state.orders.get(order).map(|o| o.recipient.clone());
            if let Some(c) = r.and_then(|r| state.commands.get_mut(&r)) {
                c.distortion_unnoticed = true;
            }
        }
        EventKind::DistortionDiscoveryRolled {
            command,
            discovered,
            ..
        } => {
            if *discovered && let Some(c) = state.commands.get_mut(command) {
                c.distortion_unnoticed = false;
            }
        }
        EventKind::OrderDiscarded { order, reason } => {
            set_status(
                state,
                *order,
                OrderStatus::Discarded {
                    reason: reason.clone(),
                },
                turn,
            );
        }
        EventKind::InitiativeRolled { command, .. } => {
            if let Some(c) = state.commands.get_mut(command) {
                c.initiative_roll_turn = Some(turn);
                c.local_initiative_turn = Some(turn);
            }
            mark_initiative_begun(state, command);
        }
        EventKind::DefaultDefenseDeclared { command } => {
            mark_initiative_begun(state, command);
            if let Some(c) = state.commands.get_mut(command) {
                c.status = CommandStatus::DefaultDefense;
                c.follows_parent = false;
                c.local_initiative_turn = Some(turn);
                c.stage = 0;
            }
            supersede_current(state, command, turn);
        }
        EventKind::WithdrawalBegan { command, .. } => {
            if let Some(c) = state.commands.get_mut(command) {
                c.overrun = false;
            }
            mark_initiative_begun(state, command);
            supersede_current(state, command, turn);
            if let Some(c) = state.commands.get_mut(command) {
                c.status = CommandStatus::Withdrawing;
                c.follows_parent = false;
                c.local_initiative_turn = Some(turn);
                c.one_turn_until = Some(turn);
                c.stage = 0;
            }
        }
        EventKind::StragglerCheck {
            unit, straggler, ..
        } => {
            // 6.6.3.6: a failed check costs one Straggler on the unit's Loss Chart.
            if *straggler && let Some(u) = state.units.get_mut(unit) {
                u.track.stragglers = u.track.stragglers.saturating_add(1);
            }
        }
        EventKind::StoppageChecked { .. } => {}
        EventKind::StatusChanged {
            command, status, ..
        } => {
            if matches!(status, CommandStatus::NoOrders | CommandStatus::LooseCannon) {
                supersede_current(state, command, turn);
            }
            if let Some(c) = state.commands.get_mut(command) {
                c.status = *status;
                c.follows_parent = false;
                c.one_turn_until = match status {
                    CommandStatus::Withdrawing | CommandStatus::LooseCannon => Some(turn),
                    _ => None,
                };
                if matches!(status, CommandStatus::NoOrders | CommandStatus::LooseCannon) {
                    c.current_order = None;
                    c.stage = 0;
                }
            }
        }
        EventKind::StageAdvanced { command, stage } => {
            if let Some(c) = state.commands.get_mut(command) {
                c.stage = *stage;
            }
        }
        EventKind::PieceMoved {
            piece,
            to,
            path,
            half_mp,
            left,
            facings,
            ..
        } => {
            state.positions.insert(piece.clone(), *to);
            // 6.10.2: the overrun Army HQ has withdrawn.
            if let Some(c) = piece
                .strip_prefix("hq:")
                .and_then(|f| state.commands.get_mut(f))
            {
                c.hq_withdraw_from = None;
            }
            let (turn, player) = (state.turn, state.player);
            let entered = state
                .movement
                .get_mut(piece)
                .and_then(|u| u.entering.take());
            // 10.1.3: a piece displaced without spending MP (retreat, charge, Close Combat,
            // the umpire's placement) may face as it likes; a move of its own ends that.
            let free = half_mp.is_none();
            if free || state.movement.contains_key(piece) {
                let u = state.movement.entry(piece.clone()).or_default();
                u.reface_free = free;
                // 21.4: a required retreat is made by the unit's next move (the retreat itself,
                // or the umpire's placement; decision 0147).
                u.retreat_due = None;
            }
            // 16.5: a retreat (no MP spent along a path) may still be Reaction Charged.
            if half_mp.is_none() && !path.is_empty() && state.movement.contains_key(piece) {
                let u = state.movement.entry(piece.clone()).or_default();
                u.last_retreat = Some((turn, player, path.clone()));
            }
            if let Some(mp) = half_mp {
                let u = state.movement.entry(piece.clone()).or_default();
                if let Some(hex) = entered {
                    u.left_column = Some((turn, player, hex));
                }
                u.last_path.clone_from(path);
                u.last_path_in = Some((turn, player));
                u.last_left.clone_from(left);
                u.last_facings.clone_from(facings);
                // 12.1.2: each move of the phase with its figures (decision 0193).
                u.phase_moves
                    .retain(|l| (l.turn, l.player) == (turn, player));
                if left.len() == path.len() && !path.is_empty() {
                    let spent_before = u.spent_in(turn, player).halves;
                    u.phase_moves.push(super::state::PhaseLeg {
                        turn,
                        player,
                        path: path.clone(),
                        left: left.clone(),
                        facings: facings.clone(),
                        spent_before,
                    });
                } else {
                    u.phase_moves.clear();
                }
                let mut m = u.spent_in(turn, player);
                m.halves += mp;
                m.hexes += path.len().saturating_sub(1) as u32;
                u.moved = Some(m);
            }
        }
        EventKind::FormationChanged {
            unit,
            to,
            half_mp,
            rule,
            extension: Some(hex),
            ..
        } => {
            // 13.2.1, 8.3: a Line Extension's Square is its own, and so are the MP it spends
            // leaving it (13.1.2, 8.3.3); its parent keeps its formation (decision 0198).
            let (turn, player) = (state.turn, state.player);
            if let Some(p) = state
                .movement
                .get_mut(unit)
                .and_then(|m| m.extension_parts.iter_mut().find(|p| p.hex == *hex))
            {
                p.square =
                    (*to == crate::scenario::UnitFormation::Square).then_some((turn, player));
                // 8.2.1, 17.4 trigger 3: its own change back into Line is a trigger; a Square
                // broken by a failed check (8.3.2) or Close Combat (8.3.4) is none (decision 0205).
                if rule == "8.3.3" {
                    p.left_square = Some((turn, player, *hex));
                }
                if *half_mp > 0 {
                    let mut spent = p.spent_in(turn, player);
                    spent.halves += half_mp;
                    p.moved = Some(spent);
                }
            }
        }
        EventKind::FormationChanged {
            unit,
            from,
            to,
            half_mp,
            rule,
            extension: None,
        } => {
            let (turn, player) = (state.turn, state.player);
            let at = state.positions.get(unit).copied();
            let u = state.movement.entry(unit.clone()).or_default();
            u.formation = Some(*to);
            // 17.4 trigger 3; a required retreat's limbering (21.4.6) never triggers (17.4.5),
            // nor does a Square undone because the unit was Disorganized first (17.4.6), nor a
            // change beyond where a halving stopped it, which it never made (12.1.2, 0193).
            let never_made = super::event::never_made(rule);
            let undone = rule == "17.4.6" || never_made;
            if never_made
                && let Some(i) = u.formation_changed_at.iter().rposition(|c| {
                    (c.turn, c.player) == (turn, player) && (c.from, c.to) == (*to, *from)
                })
            {
                u.formation_changed_at.remove(i);
            }
            // 8.3.1.2: nor a Square broken by a Rout (decision 0199), nor one attacked in Close
            // Combat (8.2.1, 8.3.4; decision 0198).
            let forced = rule == "21.4.6"
                || rule == super::retreat::ROUTED_SQUARE
                || rule == super::combat_system::SQUARE_IN_CLOSE_COMBAT;
            if let (Some(at), false) = (at, forced || undone) {
                u.formation_changed_at
                    .retain(|c| (c.turn, c.player) == (turn, player));
                let moves_before = u
                    .phase_moves
                    .iter()
                    .filter(|l| (l.turn, l.player) == (turn, player))
                    .count() as u32;
                u.formation_changed_at.push(FormationChangeAt {
                    turn,
                    player,
                    hex: at,
                    from: *from,
                    to: *to,
                    moves_before,
                    in_charge: rule == "16.2.1",
                });
            }
            // 8.2.2: leaving all-around facing (a Square), it chooses any facing.
            if *from == crate::scenario::UnitFormation::Square && !undone {
                u.reface_free = true;
            }
            let mut m = u.spent_in(turn, player);
            m.halves += half_mp;
            u.moved = Some(m);
        }
        EventKind::FacingChanged {
            unit, to, half_mp, ..
        } => {
            let (turn, player) = (state.turn, state.player);
            let u = state.movement.entry(unit.clone()).or_default();
            u.facing = Some(*to);
            u.reface_free = false;
            if *half_mp > 0 {
                let mut m = u.spent_in(turn, player);
                m.halves += half_mp;
                u.moved = Some(m);
            }
        }
        EventKind::LineExtended {
            unit,
            hex,
            half_mp,
            extension_half_mp,
        } => {
            let (turn, player) = (state.turn, state.player);
            let morale = state.units.get(unit).map(|u| u.morale).unwrap_or_default();
            let u = state.movement.entry(unit.clone()).or_default();
            u.extensions.push(*hex);
            let mut m = u.spent_in(turn, player);
            // 13.1.2: the extension starts with its parent's Morale State, facing and remaining
            // MP, and pays its own 1 MP + hex (13.1.3).
            let mut own = m;
            own.halves += extension_half_mp;
            u.extension_parts.retain(|p| p.hex != *hex);
            u.extension_parts.push(ExtensionPart {
                hex: *hex,
                morale,
                facing: u.facing,
                moved: Some(own),
                // 17.4.2: it appears in its hex (13.1.3), a target there of its own ("This is
                // considered movement by the Line Extension for all purposes (such as … Reaction
                // Charges …)").
                last_path: vec![*hex],
                last_path_in: Some((turn, player)),
                last_facings: Vec::new(),
                last_left: Vec::new(),
                square: None,
                left_square: None,
            });
            m.halves += half_mp;
            u.moved = Some(m);
        }
        EventKind::ExtensionMoved {
            unit,
            from,
            to,
            path,
            half_mp,
            facing,
            facings,
            left,
            ..
        } => {
            let (turn, player) = (state.turn, state.player);
            if let Some(m) = state.movement.get_mut(unit) {
                for h in m.extensions.iter_mut().filter(|h| **h == *from) {
                    *h = *to;
                }
                if let Some(p) = m.extension_parts.iter_mut().find(|p| p.hex == *from) {
                    p.hex = *to;
                    let mut spent = p.spent_in(turn, player);
                    spent.halves += half_mp;
                    spent.hexes += path.len().saturating_sub(1) as u32;
                    p.moved = Some(spent);
                    // 17.4.8, 16.5.9: a turn in place (10.1; or the free facing leaving its
                    // Square, 8.2.2) is no move: the path it moved along stays (decision 0212).
                    // A Square's failed move (8.3.2) keeps no facing and counts (17.4.7, 16.5.8).
                    let turned = from == to && path.len() <= 1 && facing.is_some();
                    if !turned {
                        p.last_path.clone_from(path);
                        p.last_facings.clone_from(facings);
                        p.last_left.clone_from(left);
                        p.last_path_in = Some((turn, player));
                    }
                    if facing.is_some() {
                        p.facing = *facing;
                    }
                }
            }
        }
        EventKind::LineRetracted {
            unit,
            hexes,
            half_mp,
            eliminated,
        } => {
            let (turn, player) = (state.turn, state.player);
            let u = state.movement.entry(unit.clone()).or_default();
            u.extensions.retain(|h| !hexes.contains(h));
            let mut m = u.spent_in(turn, player);
            let (back, kept): (Vec<ExtensionPart>, Vec<ExtensionPart>) = u
                .extension_parts
                .drain(..)
                .partition(|p| hexes.contains(&p.hex));
            u.extension_parts = kept;
            let mut worst = None;
            if !eliminated {
                // 13.3.1: rejoining, "the stack adopts the worst Morale State and fewest
                // Movement Points remaining"; 13.1.4: the extension's MP if fewer.
                for p in &back {
                    m.halves = m.halves.max(p.spent_in(turn, player).halves);
                    worst = Some(
                        worst.map_or(p.morale, |w: crate::combat::MoraleState| w.min(p.morale)),
                    );
                }
            }
            m.halves += half_mp;
            u.moved = Some(m);
            if let Some(w) = worst {
                let st = state.units.entry(unit.clone()).or_default();
                st.morale = st.morale.min(w);
            }
        }
        EventKind::AllowanceHalved { unit, halved, .. } => {
            if *halved {
                let turn = state.turn;
                state.movement.entry(unit.clone()).or_default().halved_in = Some(turn);
            }
        }
        EventKind::MoveStopped {
            unit,
            at,
            unspent_half_mp,
            extension: Some(from),
            ..
        } => {
            // 12.1.2 with 13.1.1: the Line Extension in `from` stops at `at`, a hex of its own
            // path; the rest was not travelled, nor its MP spent (decision 0192).
            let (turn, player) = (state.turn, state.player);
            if let Some(m) = state.movement.get_mut(unit) {
                for h in m.extensions.iter_mut().filter(|h| **h == *from) {
                    *h = *at;
                }
                if let Some(p) = m.extension_parts.iter_mut().find(|p| p.hex == *from) {
                    p.hex = *at;
                    if let Some(i) = p.last_path.iter().position(|h| h == at) {
                        let dropped = p.last_path.len().saturating_sub(i + 1) as u32;
                        p.last_path.truncate(i + 1);
                        p.last_left.truncate(i + 1);
                        p.last_facings.truncate(i + 1);
                        if let Some(c) = p.last_facings.get(i) {
                            p.facing = Some(*c);
                        }
                        let mut spent = p.spent_in(turn, player);
                        spent.halves = spent.halves.saturating_sub(*unspent_half_mp);
                        spent.hexes = spent.hexes.saturating_sub(dropped);
                        p.moved = Some(spent);
                    }
                }
            }
        }
        EventKind::MoveStopped {
            unit,
            at,
            unspent_half_mp,
            phase_move: Some(j),
            ..
        } => {
            // 12.1.2: it stopped in an earlier move of the phase; the later ones were never
            // made, and that move's path ends at `at` (decision 0193).
            state.positions.insert(unit.clone(), *at);
            let (turn, player) = (state.turn, state.player);
            let j = *j as usize;
            if let Some(u) = state.movement.get_mut(unit)
                && let Some(leg) = u.phase_moves.get(j).cloned()
                && let Some(i) = leg.path.iter().position(|h| h == at)
            {
                let later: usize = u.phase_moves[j + 1..]
                    .iter()
                    .map(|l| l.path.len().saturating_sub(1))
                    .sum();
                let dropped = (later + leg.path.len().saturating_sub(i + 1)) as u32;
                u.phase_moves.truncate(j + 1);
                let l = &mut u.phase_moves[j];
                l.path.truncate(i + 1);
                l.left.truncate(i + 1);
                l.facings.truncate(i + 1);
                u.last_path.clone_from(&l.path);
                u.last_left.clone_from(&l.left);
                u.last_facings.clone_from(&l.facings);
                if let Some(c) = l.facings.get(i) {
                    u.facing = Some(*c);
                }
                let mut m = PhaseMove::in_phase(u.moved, turn, player);
                m.halves = m.halves.saturating_sub(*unspent_half_mp);
                m.hexes = m.hexes.saturating_sub(dropped);
                u.moved = Some(m);
            }
        }
        EventKind::MoveStopped {
            unit,
            at,
            unspent_half_mp,
            ..
        } => {
            // 17.4 with 11.3.2, 12.1.2: it stands where it stopped; the path beyond was not
            // travelled, so no Opportunity Fire is offered there, and its MP were not spent.
            state.positions.insert(unit.clone(), *at);
            let (turn, player) = (state.turn, state.player);
            if let Some(u) = state.movement.get_mut(unit)
                && let Some(i) = u.last_path.iter().position(|h| h == at)
            {
                // The phase's last move ends there too (decision 0193).
                if let Some(l) = u.phase_moves.last_mut().filter(|l| l.path == u.last_path) {
                    l.path.truncate(i + 1);
                    l.left.truncate(i + 1);
                    l.facings.truncate(i + 1);
                }
                let dropped = u.last_path.len().saturating_sub(i + 1) as u32;
                u.last_path.truncate(i + 1);
                u.last_left.truncate(i + 1);
                u.last_facings.truncate(i + 1);
                // 10.0: it faces as it did on entering that hex (decision 0183).
                if let Some(c) = u.last_facings.get(i) {
                    u.facing = Some(*c);
                }
                if *unspent_half_mp > 0 {
                    let mut m = PhaseMove::in_phase(u.moved, turn, player);
                    m.halves = m.halves.saturating_sub(*unspent_half_mp);
                    m.hexes = m.hexes.saturating_sub(dropped);
                    u.moved = Some(m);
                }
            }
            // 16.5: a retreat Reaction Charged and stopped (decision 0156).
            if let Some((_, _, path)) = state
                .movement
                .get_mut(unit)
                .and_then(|u| u.last_retreat.as_mut())
                && let Some(i) = path.iter().position(|h| h == at)
            {
                path.truncate(i + 1);
            }
        }
        EventKind::MovementPointsLost {
            unit,
            half_mp,
            extension,
            ..
        } => {
            let (turn, player) = (state.turn, state.player);
            let u = state.movement.entry(unit.clone()).or_default();
            // 13.1.2: an extension keeps its own MP.
            let spend = |m: &mut Option<PhaseMove>| {
                let mut now = PhaseMove::in_phase(*m, turn, player);
                now.halves += half_mp;
                now.dg_halved = true;
                *m = Some(now);
            };
            match extension.and_then(|h| u.extension_parts.iter_mut().find(|p| p.hex == h)) {
                Some(p) => spend(&mut p.moved),
                None => spend(&mut u.moved),
            }
        }
        EventKind::MoraleDegraded {
            unit,
            morale,
            extension,
            rule,
            ..
        } => {
            // 13.3.1: an extension's Morale State is its own unless it Routs; then the whole
            // unit is Routed and its extensions collapse (in `evolve`).
            let part = extension
                .filter(|_| *morale != crate::combat::MoraleState::Routed)
                .and_then(|h| {
                    state
                        .movement
                        .get_mut(unit)?
                        .extension_parts
                        .iter_mut()
                        .find(|p| p.hex == h)
                });
            match part {
                Some(p) => p.morale = *morale,
                None => state.units.entry(unit.clone()).or_default().morale = *morale,
            }
            // 9.2: an over-stacked hex is discovered; its side breaks it up in its next
            // Movement Phase. Checks older than the last turn no longer bind anyone.
            if rule == "9.2"
                && let Some(hex) = state.positions.get(unit).copied()
            {
                let (turn, player) = (state.turn, state.player);
                state.over_stacked.retain(|o| o.turn + 1 >= turn);
                state.over_stacked.push(OverStack {
                    unit: unit.clone(),
                    hex,
                    turn,
                    player,
                });
            }
        }
        EventKind::ReinforcementRolled { group, arrives, .. } => {
            if *arrives {
                state.due.insert(group.clone());
            }
        }
        EventKind::ReinforcementArrived {
            group, hex, pieces, ..
        } => {
            state.due.remove(group);
            state.arrived.insert(group.clone());
            for p in pieces {
                state.positions.insert(p.clone(), *hex);
                // 12.6.1: it waits in the column off the map until it moves (commanders and
                // HQs too; only units read it).
                state.movement.entry(p.clone()).or_default().entering = Some(*hex);
            }
        }
        EventKind::WreckedChanged { command, wrecked } => {
            if let Some(c) = state.commands.get_mut(command) {
                c.wrecked = *wrecked;
            }
        }
        EventKind::CommanderReplaced { command, old, new } => {
            state.commanders.insert(command.clone(), new.clone());
            if let Some(h) = state.positions.remove(old)
                && !state.positions.contains_key(new)
            {
                state.positions.insert(new.clone(), h);
            }
            for s in state.sides.values_mut() {
                if s.army_commander == *old {
                    s.army_commander.clone_from(new);
                }
            }
        }
        EventKind::CommanderLost { command, lost } => {
            if let Some(c) = state.commands.get_mut(command) {
                c.commander_lost = *lost;
                c.original_commander_lost = *lost;
            }
        }
        EventKind::UnitLossesTaken { unit, losses } => {
            // 13.3.1: a Morale Change taken by a Line Extension is its own, unless it Routs
            // (then the whole unit is Routed and collapses, below in `evolve`).
            let part = losses
                .extension
                .filter(|_| losses.morale_after != crate::combat::MoraleState::Routed)
                .and_then(|h| {
                    state
                        .movement
                        .get_mut(unit)?
                        .extension_parts
                        .iter_mut()
                        .find(|p| p.hex == h)
                });
            let own = match part {
                Some(p) => {
                    p.morale = losses.morale_after;
                    false
                }
                None => true,
            };
            let u = state.units.entry(unit.clone()).or_default();
            u.track = losses.track;
            if own {
                u.morale = losses.morale_after;
            }
            u.blown = losses.blown;
            u.last_combat_turn = Some(turn);
            eliminate_if_spent(state, unit);
        }
        EventKind::UnitStateSet {
            unit,
            track,
            morale,
            blown,
        } => {
            let u = state.units.entry(unit.clone()).or_default();
            u.track = *track;
            u.morale = *morale;
            u.blown = *blown;
            eliminate_if_spent(state, unit);
        }
        EventKind::UnitRallied {
            extension: Some(h),
            unit,
            morale_after,
            ..
        } => {
            if let Some(p) = state
                .movement
                .get_mut(unit)
                .and_then(|m| m.extension_parts.iter_mut().find(|p| p.hex == *h))
            {
                p.morale = *morale_after;
            }
        }
        EventKind::UnitRallied {
            unit,
            stragglers_recovered,
            morale_after,
            blown,
            ..
        } => {
            let u = state.units.entry(unit.clone()).or_default();
            u.track.stragglers = u.track.stragglers.saturating_sub(*stragglers_recovered);
            u.morale = *morale_after;
            u.blown = *blown;
        }
        // 21.5 F: owed until the unit next moves, as a combat's retreat (0147, 0164).
        EventKind::RoutRetreatRequired { retreat, .. } => {
            state
                .movement
                .entry(retreat.unit.clone())
                .or_default()
                .retreat_due = Some(retreat.clone());
        }
        // 21.4.2: the retreat it could not make is no longer owed (0169).
        EventKind::RetreatBlocked { unit, no_chart, .. } => {
            if let Some(m) = state.movement.get_mut(unit) {
                m.retreat_due = None;
            }
            // 21.4.2: a unit with no Loss Chart to mark off is removed here (0169).
            if *no_chart {
                state.positions.remove(unit);
            }
        }
        // 20.3.2: a pass puts it back in play at the hex tried, in Normal morale (0163).
        EventKind::EliminatedUnitRecovery {
            unit,
            at,
            stragglers_recovered,
            ..
        } if *stragglers_recovered > 0 => {
            let u = state.units.entry(unit.clone()).or_default();
            u.track.stragglers = u.track.stragglers.saturating_sub(*stragglers_recovered);
            u.morale = crate::combat::MoraleState::Normal;
            u.blown = false;
            state.eliminated.remove(unit);
            state.positions.insert(unit.clone(), *at);
        }
        EventKind::EliminatedUnitRecovery { .. } => {}
        EventKind::SubUnitTransferred { command, to, .. } => {
            if let Some(c) = state.commands.get_mut(command) {
                c.parent = Some(to.clone());
                c.independent = false;
                c.follows_parent = true;
                c.status = CommandStatus::NoOrders;
                c.current_order = None;
                c.stage = 0;
            }
        }
        EventKind::TemporaryDivisionFormed {
            division,
            members,
            order,
            ..
        } => {
            for m in members {
                if let Some(c) = state.commands.get_mut(m) {
                    c.parent = Some(division.clone());
                    c.independent = false;
                    c.follows_parent = true;
                    c.status = CommandStatus::NoOrders;
                    c.current_order = None;
                    c.stage = 0;
                }
            }
            if let Some(c) = state.commands.get_mut(division) {
                c.dissolved = false;
                c.status = CommandStatus::Ordered;
                c.current_order = Some(*order);
                c.stage = 0;
                c.follows_parent = false;
                c.commander_lost = false;
            }
        }
        EventKind::TemporaryDivisionDissolved { division, .. } => {
            let parent = state.commands.get(division).and_then(|c| c.parent.clone());
            for c in state.commands.values_mut() {
                if c.parent.as_deref() == Some(division.as_str()) {
                    c.parent.clone_from(&parent);
                }
            }
            if let Some(c) = state.commands.get_mut(division) {
                c.status = CommandStatus::NoOrders;
                c.current_order = None;
                c.dissolved = true;
                c.follows_parent = false;
            }
        }
        EventKind::ArmyCommanderReplaced {
            side,
            old,
            new,
            removed,
            ..
        } => {
            if let Some(s) = state.sides.get_mut(side) {
                s.army_commander.clone_from(new);
                s.in_person_since_hq = false;
            }
            // V2.5: the old commander leaves the map and the army he commanded is the new
            // commander's (issue 17: Wellesley was still listed as commanding).
            if *removed {
                state.positions.remove(old);
                if let Some(army) = state
                    .sides
                    .get(side)
                    .and_then(|s| s.army_hq.strip_prefix("hq:").map(str::to_string))
                    && state.commanders.get(&army) == Some(old)
                {
                    state.commanders.insert(army, new.clone());
                }
            }
        }
        EventKind::HqOverrun { formation, hex, .. } => {
            // 6.10.2: a corps withdraws in its next Command Phase; an Army HQ must withdraw at
            // least 6 hexes from where it was overrun.
            if let Some(c) = state.commands.get_mut(formation) {
                if c.parent.is_some() {
                    c.overrun = true;
                } else {
                    c.hq_withdraw_from = Some(*hex);
                }
            }
        }
        EventKind::SpecialRuleRolled { .. }
        | EventKind::ReleaseRolled { .. }
        | EventKind::MovementCheck { .. } => {}
        EventKind::ReactionChecked {
            cavalry,
            target,
            at,
            passed,
            extension,
            ..
        } => {
            // 16.5.5: a failed check "still counts as a Reaction Charge for 16.5.3" (a passed
            // one is followed by the charge, which records itself).
            if !passed {
                reaction_against(state, target, cavalry, *at, *extension);
            }
        }
        EventKind::DivisionBorrowed { division, .. } => {
            if let Some(c) = state.commands.get_mut(division) {
                c.loan = Some(Loan::Borrowed);
                c.independent = true;
            }
        }
        EventKind::DivisionBarred { division, .. } => {
            if let Some(c) = state.commands.get_mut(division) {
                c.loan = Some(Loan::Barred);
            }
        }
        EventKind::DivisionReturned { division, wrecked } => {
            if let Some(c) = state.commands.get_mut(division) {
                c.loan = wrecked.then_some(Loan::ReturnedWrecked);
            }
        }
        EventKind::RelayAccepted { order, .. } => {
            set_status(state, *order, OrderStatus::WithRelay, turn);
        }
        EventKind::OrderRelayed { order, .. } => {
            if let Some(r) = state.orders.get_mut(order).and_then(|o| o.relay.as_mut()) {
                r.delivered = true;
            }
            set_status(state, *order, OrderStatus::Arrived, turn);
        }
        EventKind::RandomEventChecked {
            side,
            outcome: super::event::RandomEventOutcome::Applied,
            effect: Some(effect),
            chosen,
            reinforcements,
            command_points,
            ..
        } => random_effect(
            state,
            turn,
            side,
            *effect,
            chosen.as_deref(),
            reinforcements,
            *command_points,
        ),
        EventKind::RandomEventChecked { .. } => {}
        EventKind::CombatResolved {
            combat,
            attackers,
            defenders,
            reface,
            retreats,
            close_combat_half_mp,
            moves_on,
            attacker_at,
            opportunity_at,
            opportunity_formation,
            opportunity_extension,
            charge_at,
            defender_at,
            ..
        } => {
            // 16.5.3: who charged where, and who was Reaction Charged, in this phase; a Line
            // Extension charged in its own hex is the charge's target hex (decision 0211).
            if let super::command::CombatKind::Charge { reaction, .. } = combat
                && let Some(target_hex) = charge_at.or(*defender_at).or_else(|| {
                    defenders
                        .first()
                        .and_then(|d| state.positions.get(d).copied())
                })
            {
                let charged = Charged {
                    target_hex,
                    reaction: *reaction,
                    extension: *defender_at,
                };
                record_charge(state, attackers, defenders, charged);
            }
            // 17.4.1: each battery fires at a given unit once each Movement Phase, Cannister
            // included (17.4.9), and a unit is fired at by one firer per trigger.
            let a_hexes: Vec<crate::hex::Hex> = attackers
                .iter()
                .filter_map(|a| state.positions.get(a).copied())
                .collect();
            let options = super::command::CombatOptions {
                opportunity_at: *opportunity_at,
                opportunity_formation: *opportunity_formation,
                ..Default::default()
            };
            if let Some(trigger) =
                super::combat_system::opportunity_trigger(combat, &a_hexes, &options)
            {
                let (turn, player) = (state.turn, state.player);
                let targets = if opportunity_at.is_some() {
                    &defenders[..defenders.len().min(1)]
                } else {
                    &defenders[..]
                };
                for target in targets {
                    let key = super::opportunity::target_key(target, *opportunity_extension);
                    for b in attackers {
                        let m = state.movement.entry(b.clone()).or_default();
                        m.opportunity_fired
                            .retain(|(t, p, _)| (*t, *p) == (turn, player));
                        m.opportunity_fired.push((turn, player, key.clone()));
                    }
                    let m = state.movement.entry(target.clone()).or_default();
                    m.fired_on.retain(|f| (f.turn, f.player) == (turn, player));
                    m.fired_on.push(super::state::FiredOn {
                        turn,
                        player,
                        trigger,
                        by: attackers.clone(),
                        extension: *opportunity_extension,
                    });
                }
            }
            // 10.1.3: free to face any corner until it next moves or turns.
            for u in reface {
                let m = state.movement.entry(u.clone()).or_default();
                m.reface_free = true;
                // Its Line Extensions too (13.1.1): they face as it may, for nothing.
                for p in &mut m.extension_parts {
                    p.facing = None;
                }
            }
            // 21.4: owed until the unit next moves (its retreat, or the umpire's placement).
            for r in retreats {
                state
                    .movement
                    .entry(r.unit.clone())
                    .or_default()
                    .retreat_due = Some(r.clone());
            }
            // 15.1.5: "Initiating Close Combat ends a stack's movement."
            let into = defenders
                .first()
                .and_then(|d| state.positions.get(d).copied());
            if let (super::command::CombatKind::CloseCombat { .. }, Some(into)) = (combat, into) {
                let (turn, player) = (state.turn, state.player);
                for u in attackers {
                    let m = state.movement.entry(u.clone()).or_default();
                    // 13.1.2: a Line Extension attacking on its own spends its own MP.
                    if let Some(p) =
                        attacker_at.and_then(|h| m.extension_parts.iter_mut().find(|p| p.hex == h))
                    {
                        let mut spent = p.spent_in(turn, player);
                        if !moves_on {
                            spent.attacked = Some(into);
                        }
                        spent.halves += close_combat_half_mp.get(u).copied().unwrap_or(0);
                        p.moved = Some(spent);
                        continue;
                    }
                    let mut p = m.spent_in(turn, player);
                    // 15.1.7, 15.1.8: when the defenders left first, the attackers move on.
                    if !moves_on {
                        p.attacked = Some(into);
                    }
                    // 15.1.4: the MP it spent to initiate it.
                    p.halves += close_combat_half_mp.get(u).copied().unwrap_or(0);
                    m.moved = Some(p);
                }
            }
        }
        EventKind::CombatDice { .. }
        | EventKind::MoveHalted { .. }
        | EventKind::CommandRangeChecked { .. }
        | EventKind::Override { .. }
        | EventKind::MessageSent { .. } => {}
    }
    touch_base(state);
}

/// What an applied random event leaves in force (29.1); its other effects are events of their
/// own (a Loose Cannon's status change, a lost order, a lost commander).
fn random_effect(
    state: &mut GameState,
    turn: u32,
    side: &str,
    effect: crate::rules::random_events::Effect,
    chosen: Option<&str>,
    reinforcements: &[super::event::ReinforcementTiming],
    command_points: Option<u8>,
) {
    use crate::rules::random_events::Effect;
    let r = &mut state.random_events;
    match effect {
        // 29.1: "It may not use Local Initiative this turn."
        Effect::LooseCannon => {
            if let Some(c) = chosen.and_then(|c| state.commands.get_mut(c)) {
                c.local_initiative_turn = Some(turn);
            }
        }
        Effect::CavalryRecovery => {
            r.cavalry_recovery.insert(side.to_string(), turn);
        }
        Effect::DelayReinforcements | Effect::AdvanceReinforcements => {
            for t in reinforcements {
                if t.shift != 0 {
                    *r.reinforcement_shift.entry(t.group.clone()).or_insert(0) += t.shift;
                }
                if let Some(n) = t.rolls {
                    r.arrival_rolls.insert(t.group.clone(), (turn, n));
                }
                if t.forced_march {
                    r.free_forced_march.insert(t.group.clone(), turn);
                }
            }
        }
        Effect::VimeiroJunotWakesUp => {
            r.lasting.insert(effect.name().to_string());
            r.orders_as_rating.insert(side.to_string(), (turn, 4));
            if let (Some(p), Some(s)) = (command_points, state.sides.get_mut(side)) {
                s.command_points = p;
            }
        }
        Effect::NoEvent | Effect::OrderLost | Effect::CommanderLoss | Effect::ArtilleryAccident => {
        }
    }
}

/// 6.4.6: an army commander in the Army HQ hex has touched base and may again give an
/// in-person order.
fn touch_base(state: &mut GameState) {
    for s in state.sides.values_mut() {
        if s.in_person_since_hq {
            let at = |p: &str| state.positions.get(p).copied();
            if at(&s.army_commander).is_some() && at(&s.army_commander) == at(&s.army_hq) {
                s.in_person_since_hq = false;
            }
        }
    }
}

fn mark_initiative_begun(state: &mut GameState, command: &str) {
    let side = state.commands.get(command).map(|c| c.side.clone());
    if let Some(s) = side.and_then(|s| state.sides.get_mut(&s)) {
        s.initiative_begun = true;
    }
}

fn set_status(state: &mut GameState, order: u32, status: OrderStatus, turn: u32) {
    if let Some(o) = state.orders.get_mut(&order) {
        o.status = status;
        o.status_turn = turn;
    }
}

/// The command's current order is no longer executed.
fn supersede_current(state: &mut GameState, command: &str, turn: u32) {
    let cur = state.commands.get(command).and_then(|c| c.current_order);
    if let Some(n) = cur
        && state
            .orders
            .get(&n)
            .is_some_and(|o| o.status == OrderStatus::Accepted)
    {
        set_status(state, n, OrderStatus::Superseded, turn);
    }
}

/// Implement an accepted order: it replaces the command's current order (6.2.1, 6.4.7).
fn implement(state: &mut GameState, order: u32, recipient: &str, turn: u32) {
    supersede_current(state, recipient, turn);
    let origin = state.orders.get(&order).map(|o| o.origin);
    set_status(state, order, OrderStatus::Accepted, turn);
    let independent = state.orders.get(&order).is_some_and(|o| o.independent);
    if let Some(c) = state.commands.get_mut(recipient) {
        c.current_order = Some(order);
        c.stage = 0;
        c.follows_parent = false;
        // 6.9 box: with a new order the replacement becomes the "original" commander.
        c.commander_lost = false;
        c.status = if origin == Some(OrderOrigin::LooseCannon) {
            CommandStatus::LooseCannon
        } else {
            CommandStatus::Ordered
        };
        if independent {
            c.independent = true;
        }
    }
}

/// 20.2, 20.4: a unit whose every box is marked (P and S; a battery's gun points all lost) is
/// eliminated and leaves the map (issue 17: "0 of 2 boxes left" stayed on the map). 20.3.2: if
/// part of it was lost as Stragglers (only infantry takes them), it goes 5 turns ahead on the
/// Turn Record Track, from where it may try Straggler Recovery to return (decision 0163).
fn eliminate_if_spent(state: &mut GameState, unit: &str) {
    let Some(u) = state.units.get(unit) else {
        return;
    };
    if u.track.boxes > 0 && u.track.remaining() == 0 {
        let stragglers = u.track.stragglers;
        if state.positions.remove(unit).is_some() && stragglers > 0 {
            state.eliminated.insert(unit.to_string(), state.turn + 5);
        }
    }
}

/// A charge's target hex, whether it was a Reaction Charge, and the defending Line Extension's
/// hex if it was at one (16.5.3, 16.5.5; decision 0211).
struct Charged {
    target_hex: crate::hex::Hex,
    reaction: bool,
    extension: Option<crate::hex::Hex>,
}

/// 16.5.3: a charge by `attackers` at the target hex in the current phase, and, for a Reaction
/// Charge, the record on each unit charged (on its Line Extension, if it was one).
fn record_charge(
    state: &mut GameState,
    attackers: &[String],
    defenders: &[String],
    Charged {
        target_hex,
        reaction,
        extension,
    }: Charged,
) {
    let (turn, player) = (state.turn, state.player);
    for a in attackers {
        let m = state.movement.entry(a.clone()).or_default();
        m.charges.retain(|c| (c.turn, c.player) == (turn, player));
        m.charges.push(ChargeMade {
            turn,
            player,
            target_hex,
            reaction,
            target: defenders.first().cloned().unwrap_or_default(),
        });
    }
    if reaction && let Some(by) = attackers.first() {
        for d in defenders {
            reaction_against(state, d, by, target_hex, extension);
        }
    }
}

/// 16.5.3: a Reaction Charge by `by` against `target` (its Line Extension now in `extension`)
/// at `at` in the current phase.
fn reaction_against(
    state: &mut GameState,
    target: &str,
    by: &str,
    at: crate::hex::Hex,
    extension: Option<crate::hex::Hex>,
) {
    let (turn, player) = (state.turn, state.player);
    let m = state.movement.entry(target.to_string()).or_default();
    m.reaction_charged
        .retain(|r| (r.turn, r.player) == (turn, player));
    m.reaction_charged.push(ReactionAgainst {
        turn,
        player,
        by: by.to_string(),
        at,
        extension,
    });
}
