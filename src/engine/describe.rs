//! What each event says to people: one line per event kind, the one description every front
//! end (CLI, demo, web) shows. Lives next to the event kinds so a new kind cannot be added
//! without saying what it is (the match is exhaustive).
//!
//! Pure formatting: no IO, no clock, no floating point.

use super::OrderStatus;
use super::event::{Event, EventKind};

impl Event {
    /// One line describing the event for people.
    pub fn describe(&self) -> String {
        describe(self)
    }
}

/// An order's status for people: the log label, with the reason of a discard.
pub fn status_text(s: &OrderStatus) -> String {
    match s {
        OrderStatus::Discarded { reason } => format!("discarded ({reason})"),
        other => other.label().replace('-', " "),
    }
}

/// One line describing an event for people. One flat match with an arm per event kind, so it
/// runs past 150 lines by design; the compiler holds it exhaustive.
/// "order N", or "an order" for one shown without its number: a side is not told the number
/// of an order that is not its own (a Loose Cannon order it wrote for the enemy; decision 0160).
fn order_ref(n: u32) -> String {
    if n == 0 {
        "an order".into()
    } else {
        format!("order {n}")
    }
}

pub fn describe(e: &Event) -> String {
    let dice = |d: &[crate::rules::dice::Die]| {
        d.iter()
            .map(|x| x.value.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    match &e.kind {
        EventKind::GameStarted { scenario_id, .. } => format!("game started: {scenario_id}"),
        EventKind::MessageSent { side, from, text } => {
            format!("message ({side} table) from {from}: {text}")
        }
        // An order the umpire imposed (`override --impose-order`) is recorded as a pre-set
        // order sent by "umpire"; a side is told whose order it is (issue 17).
        EventKind::PresetOrder { order } => format!(
            "{} {} for {}: \"{}\" ({})",
            if order.sender == "umpire" {
                "umpire's order"
            } else {
                "pre-set order"
            },
            order.number,
            order.recipient,
            order.text,
            status_text(&order.status)
        ),
        EventKind::CommandPhaseBegan {
            side,
            command_points,
            commander_with_hq,
        } => format!(
            "{side} Command Phase: {command_points} command points (6.4.1){}",
            if *commander_with_hq {
                ""
            } else {
                "; army commander away from HQ: in-person orders only (6.4.6)"
            }
        ),
        EventKind::StepBegan { side, step } => format!("— {side}: {step:?} —"),
        EventKind::TurnBegan { new_turn, time } => format!("=== turn {new_turn}, {time} ==="),
        EventKind::GameEnded { last_turn } => format!("the game ends after turn {last_turn}"),
        // 6.6.1.6: the opponent wrote this one-turn order; both sides are told so.
        EventKind::OrderIssued { order }
            if order.origin == crate::engine::OrderOrigin::LooseCannon =>
        {
            format!(
                "Loose Cannon (6.6.1.6): {} to {}, written by the opponent ({}) for one turn: {}",
                order_ref(order.number),
                order.recipient,
                order.sender.trim_end_matches(" (Loose Cannon)"),
                order.readback
            )
        }
        EventKind::OrderIssued { order } => format!(
            "order {} to {}: {} — {:?}, cost {} CP, arrives turn {}",
            order.number,
            order.recipient,
            order.readback,
            order.order_type,
            order.cost,
            order.arrival_turn
        ),
        EventKind::OrderArrived { order } => format!("order {order} arrived"),
        EventKind::AcceptanceRolled {
            order,
            number,
            column,
            roll,
            result,
            provenance,
            ..
        } => format!(
            "order {order}: acceptance number {number} (column {column}), rolled {roll} → {result}{}",
            if *provenance == crate::provenance::Provenance::Assumed {
                " [assumed cell]"
            } else {
                ""
            }
        ),
        EventKind::OrderAccepted { order, implemented } => {
            format!(
                "{} accepted{}",
                order_ref(*order),
                if *implemented {
                    ""
                } else {
                    "; waits for the corps commander at his HQ (6.5.1)"
                }
            )
        }
        EventKind::OrderImplemented { order } => format!("order {order} implemented"),
        EventKind::OrderDelayed { order, needs } => {
            format!(
                "order {order} delayed: from next turn a {needs} or more on one die accepts it (6.5.2)"
            )
        }
        EventKind::DelayRolled {
            order,
            needs,
            dice: d,
            accepted,
        } => {
            format!(
                "order {order} in delay D{needs}: rolled {} → {}",
                dice(d),
                if *accepted {
                    "accepted"
                } else {
                    "still delayed"
                }
            )
        }
        EventKind::OrderDistorted { order } => format!("order {order} DISTORTED (6.5.3)"),
        EventKind::DistortionDiscoveryRolled {
            command,
            dice: d,
            discovered,
        } => format!(
            "discovery roll for {command}: {} → {}",
            dice(d),
            if *discovered {
                "distortion discovered; new orders may be sent"
            } else {
                "not yet noticed"
            }
        ),
        EventKind::OrderDiscarded { order, reason } => format!("order {order} discarded: {reason}"),
        EventKind::InitiativeRolled {
            command,
            commander,
            column,
            roll,
            result,
            ..
        } => {
            format!(
                "{commander} rolls for initiative for {command}: column {column}, rolled {roll} → {result:?}"
            )
        }
        EventKind::DefaultDefenseDeclared { command } => {
            format!("{command} adopts Default Defense (6.6.2)")
        }
        EventKind::WithdrawalBegan { command, cause } => {
            format!("{command} executes an Emergency Withdrawal ({cause:?}, 6.6.3)")
        }
        EventKind::StragglerCheck {
            unit,
            waived: Some(rule),
            ..
        } => {
            format!(
                "{unit} forced march: no morale check for stragglers, waived by {rule} (Advance Reinforcements)"
            )
        }
        EventKind::StragglerCheck {
            unit,
            needs,
            dice: d,
            straggler,
            waived: None,
        } => {
            format!(
                "{unit} morale check (needs {needs}): rolled {} → {}",
                dice(d),
                if *straggler { "1 straggler" } else { "passed" }
            )
        }
        EventKind::StoppageChecked {
            command,
            sub_units,
            wrecked,
            result,
            rating,
            needed,
            night,
            roll,
            passed,
            ..
        } => format!(
            "attack stoppage for {command}: {wrecked} of {sub_units} wrecked → result {result}, rating {rating} needs {needed}{}; rolled {roll} → {}",
            if *night { " (night −3)" } else { "" },
            if *passed {
                "attack continues"
            } else {
                "ATTACK STOPS"
            }
        ),
        EventKind::StatusChanged {
            command,
            status,
            reason,
        } => format!("{command} now {status:?}: {reason}"),
        EventKind::StageAdvanced { command, stage } => {
            format!("{command} moves on to stage {}", stage + 1)
        }
        EventKind::PieceMoved {
            piece,
            from,
            to,
            path,
            half_mp,
            ..
        } if path.len() == 1 && Some(*to) == *from => format!(
            "{piece} attempts to move from {to} and stays there; it counts as moving (17.4.7, 16.5.8){}",
            half_mp
                .filter(|m| *m > 0)
                .map(|m| format!(" ({} MP)", crate::movement::tables::show_halves(m)))
                .unwrap_or_default()
        ),
        EventKind::PieceMoved {
            piece,
            from,
            to,
            path,
            half_mp,
            ..
        } => {
            let via = if path.len() > 2 {
                let mid: Vec<String> = path[1..path.len() - 1]
                    .iter()
                    .map(|h| h.to_string())
                    .collect();
                format!(" via {}", mid.join(" "))
            } else {
                String::new()
            };
            let cost = half_mp
                .map(|m| format!(" ({} MP)", crate::movement::tables::show_halves(m)))
                .unwrap_or_default();
            format!(
                "{piece} moves {}→ {to}{via}{cost}",
                from.map(|f| format!("{f} ")).unwrap_or_default()
            )
        }
        EventKind::FormationChanged {
            unit,
            from,
            to,
            half_mp,
            rule,
            extension,
        } => {
            // Decision 0193: a change beyond where a halving stopped the unit was never made.
            let undone = if rule == "12.1.2" {
                ": its MP halved, it never got to where it made the change"
            } else if super::event::never_made(rule) {
                ": stopped short, it never got to where it made the change"
            } else {
                ""
            };
            // 13.2.1: a Line Extension's own Square (decision 0198).
            let unit = match extension {
                Some(h) => format!("{unit}'s Line Extension at {h}"),
                None => unit.clone(),
            };
            format!(
                "{unit} changes formation {from:?} → {to:?} ({} MP, {rule}{undone})",
                crate::movement::tables::show_halves(*half_mp)
            )
        }
        EventKind::FacingChanged {
            unit,
            from,
            to,
            half_mp,
            rule,
        } => {
            let from = from.map(|f| format!("{f} → ")).unwrap_or_default();
            let cost = if *half_mp > 0 {
                format!(" ({} MP", crate::movement::tables::show_halves(*half_mp))
            } else {
                " (paid in the move".into()
            };
            format!("{unit} faces {from}{to}{cost}, {rule})")
        }
        EventKind::MoveStopped {
            unit,
            at,
            rule,
            reason,
            unspent_half_mp,
            extension,
            ..
        } => {
            let back = if *unspent_half_mp > 0 {
                format!(
                    "; {} MP of the move not spent",
                    crate::movement::tables::show_halves(*unspent_half_mp)
                )
            } else {
                String::new()
            };
            format!(
                "{}{unit} stands at {at} ({rule}: {reason}{back})",
                extension_of(*extension)
            )
        }
        EventKind::MoveHalted {
            unit,
            at,
            short_of,
            met,
            rule,
        } => format!("{unit} halted at {at}: met {met} ({rule}); it was going to {short_of}"),
        EventKind::MovementPointsLost {
            unit,
            half_mp,
            rule,
            reason,
            extension,
        } => format!(
            "{}{unit} loses {} MP ({rule}: {reason})",
            extension_of(*extension),
            crate::movement::tables::show_halves(*half_mp)
        ),
        EventKind::AllowanceHalved {
            unit,
            rule,
            dice: d,
            halved,
        } => format!(
            "{unit}: {rule}: rolled {} → {}",
            dice(d),
            if *halved {
                "Movement Allowance halved this turn"
            } else {
                "moves normally"
            }
        ),
        EventKind::LineExtended {
            unit,
            hex,
            half_mp,
            extension_half_mp,
        } => format!(
            "{unit} extends its Line into {hex} ({} MP; the extension spends {} MP, 13.1.3)",
            crate::movement::tables::show_halves(*half_mp),
            crate::movement::tables::show_halves(*extension_half_mp)
        ),
        EventKind::ExtensionMoved {
            unit,
            from,
            to,
            half_mp,
            facing,
            ..
        } => format!(
            "{unit}'s Line Extension moves from {from} to {to} on its own ({} MP of its own{}, 13.1.2)",
            crate::movement::tables::show_halves(*half_mp),
            facing.map_or(String::new(), |f| format!("; faces {f}"))
        ),
        EventKind::LineRetracted {
            unit,
            hexes,
            half_mp,
            eliminated,
        } => {
            let list = hexes
                .iter()
                .map(|h| h.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            if *eliminated {
                format!("{unit} is too weak for its Line Extensions in {list}: eliminated (13.3.2)")
            } else {
                format!(
                    "{unit} takes back its Line Extensions from {list} ({} MP, 13.1.4)",
                    crate::movement::tables::show_halves(*half_mp)
                )
            }
        }
        EventKind::ReactionChecked {
            cavalry,
            target,
            at,
            need,
            dice: d,
            passed,
            extension,
        } => format!(
            "{cavalry}: Morale Check to Reaction Charge {target}{} at {at} (16.5.5), needs {need}: rolled {} → {}",
            extension.map_or_else(String::new, |h| format!("'s Line Extension (now {h})")),
            dice(d),
            if *passed {
                "passed: it faces the target hex and charges"
            } else {
                "failed: it keeps its facing and does not charge (still its Reaction Charge for 16.5.3)"
            }
        ),
        EventKind::MovementCheck {
            unit,
            rule,
            need,
            dice: d,
            passed,
        } => format!(
            "{unit}: Morale Check for {rule}, needs {need}: rolled {} → {}",
            dice(d),
            if *passed { "passed" } else { "failed" }
        ),
        EventKind::MoraleDegraded {
            unit,
            morale,
            rule,
            reason,
            extension,
        } => format!(
            "{}{unit} falls to {} ({rule}: {reason})",
            extension_of(*extension),
            morale.short()
        ),
        EventKind::ReinforcementRolled {
            group,
            dice: d,
            arrives,
        } => {
            format!(
                "reinforcement {group}: rolled {} → {}",
                dice(d),
                if *arrives {
                    "arrives this turn"
                } else {
                    "not yet"
                }
            )
        }
        EventKind::ReinforcementArrived {
            group,
            hex,
            pieces,
            blocked,
        } => format!(
            "reinforcement {group} enters at {hex}{}: {}",
            blocked.map_or(String::new(), |b| format!(
                " (its Entry Hex {b} is blocked by the enemy, 12.6.2)"
            )),
            pieces.join(", ")
        ),
        EventKind::WreckedChanged { command, wrecked } => format!(
            "{command} {}",
            if *wrecked {
                "is wrecked"
            } else {
                "is no longer wrecked"
            }
        ),
        EventKind::CommanderLost { command, lost } => format!(
            "{command}'s commander {}",
            if *lost { "is lost" } else { "is restored" }
        ),
        EventKind::CommandRangeChecked { out_of_command } => {
            if out_of_command.is_empty() {
                "command range: all in command (6.11)".into()
            } else {
                format!(
                    "command range: out of command: {}",
                    out_of_command.join(", ")
                )
            }
        }
        EventKind::CombatResolved {
            combat,
            attackers,
            defenders,
            outcome,
            attacker_retreat,
            defender_retreat,
            moves_on,
            ..
        } => format!(
            "{}: {} against {} → {outcome}; attacker retreat {attacker_retreat:?}, defender retreat {defender_retreat:?}{}",
            match combat {
                super::CombatKind::CloseCombat { .. } => "close combat (15)",
                super::CombatKind::Charge { .. } => "cavalry charge (16)",
                super::CombatKind::ArtilleryFire { .. } => "artillery fire (17)",
                super::CombatKind::SkirmisherFire { .. } => "skirmisher fire (18)",
            },
            attackers.join("+"),
            defenders.join("+"),
            if *moves_on {
                " — the defenders left before it: nothing fought; the attackers spent the +2 MP to initiate it and may move on (15.1.7, 15.1.8)"
            } else {
                ""
            }
        ),
        EventKind::CombatDice { dice: d, cells, .. } => format!(
            "combat dice {}{}",
            dice(d),
            if cells.is_empty() {
                String::new()
            } else {
                format!(" ({} non-seed table cells used)", cells.len())
            }
        ),
        EventKind::UnitLossesTaken { unit, losses } => format!(
            "{unit} loses {} permanent, {} stragglers, morale {:+} → {:?}; {} of {} boxes left{}",
            losses.permanent,
            losses.stragglers,
            losses.morale_change,
            losses.morale_after,
            losses.track.remaining(),
            losses.track.boxes,
            if losses.track.boxes > 0 && losses.track.remaining() == 0 {
                " — eliminated, off the map (20.2)"
            } else {
                ""
            }
        ),
        EventKind::CommanderReplaced { command, old, new } => {
            format!("{new} takes command of {command} in place of {old} (25)")
        }
        EventKind::HqOverrun { hq, by, hex, .. } => {
            format!("{hq} overrun at {hex} by {by} (6.10.2)")
        }
        EventKind::EliminatedUnitRecovery {
            unit,
            at,
            stragglers_recovered,
            dice: d,
        } => {
            if *stragglers_recovered > 0 {
                format!(
                    "{unit}, eliminated, recovers {stragglers_recovered} Straggler(s) (rolled {}) and returns to play at {at} (20.3.2)",
                    dice(d)
                )
            } else {
                format!(
                    "{unit}, eliminated, fails to recover a Straggler at {at} (rolled {}); it tries again next Rally Phase (20.3.2)",
                    dice(d)
                )
            }
        }
        EventKind::UnitRallied {
            unit,
            morale_after,
            extension: Some(h),
            ..
        } => format!("rally phase: {unit}'s Line Extension at {h} is now {morale_after:?}"),
        EventKind::UnitRallied {
            unit,
            stragglers_recovered,
            morale_after,
            blown,
            ..
        } => format!(
            "rally phase: {unit} recovers {stragglers_recovered} straggler(s), now {morale_after:?}{}",
            if *blown { ", Blown" } else { "" }
        ),
        EventKind::RoutRetreatRequired { retreat, nearest } => match retreat.clear_of {
            Some(clear) => format!(
                "rally phase: {} stays Routed {nearest} hexes from the enemy and must retreat from {} until it is {clear} hexes from the closest enemy unit ({}–{} hexes; 21.5 F)",
                retreat.unit, retreat.cause, retreat.min, retreat.max
            ),
            None => format!(
                "{} is Routed {nearest} hexes from the enemy and must retreat {} hexes away from {} (21.4)",
                retreat.unit, retreat.min, retreat.cause
            ),
        },
        EventKind::RetreatBlocked {
            unit,
            cause,
            hexes,
            no_chart: true,
            ..
        } => format!(
            "{unit} cannot retreat {hexes} hexes from {cause} and is removed: it has no Loss Chart, a wagon is destroyed (21.4.2, 26.2.3)"
        ),
        EventKind::RetreatBlocked {
            unit,
            cause,
            hexes,
            stragglers,
            ..
        } => format!(
            "{unit} cannot retreat {hexes} hexes from {cause} and is removed, its remaining strength marked off as {} (21.4.2)",
            if *stragglers {
                "Stragglers (it could go through Prohibited terrain)"
            } else {
                "Permanent Casualties"
            }
        ),
        EventKind::SubUnitTransferred { command, to, order } => {
            format!("{command} joins {to} (order {order}, 6.9)")
        }
        EventKind::TemporaryDivisionFormed {
            division,
            commander,
            members,
            order,
        } => format!(
            "{division} is formed by order {order} under {commander}: {} (V2.3)",
            members.join(", ")
        ),
        EventKind::TemporaryDivisionDissolved { division, reason } => {
            format!("{division} ceases to exist: {reason}")
        }
        EventKind::ArmyCommanderReplaced {
            old, new, reason, ..
        } => format!("{new} replaces {old} in command: {reason}"),
        EventKind::ReleaseRolled {
            order,
            commander,
            number,
            penalty,
            roll,
            result,
            ..
        } => format!(
            "order {order}: {commander}'s release roll (T2.4), number {number}{} → rolled {roll} → {result}",
            if *penalty < 0 {
                format!(" (incl. {penalty} for divisions already borrowed)")
            } else {
                String::new()
            }
        ),
        EventKind::DivisionBorrowed { division, order } => {
            format!("{division} is on loan to the army commander by order {order} (T2.4)")
        }
        EventKind::DivisionBarred { division, .. } => {
            format!("{division} may never again be ordered by the army commander (T2.4)")
        }
        EventKind::DivisionReturned { division, wrecked } => format!(
            "{division} returns to its corps{} (T2.4)",
            if *wrecked {
                " wrecked: its borrowing still counts"
            } else {
                ""
            }
        ),
        EventKind::RelayAccepted { order, by } => {
            format!("{by} accepts order {order} and carries it on (T4.2b)")
        }
        EventKind::OrderRelayed { order, by } => {
            format!("{by} re-issues order {order} in person to its recipient (T4.2b)")
        }
        EventKind::SpecialRuleRolled {
            rule,
            dice: d,
            happens,
        } => {
            format!(
                "{rule}: rolled {} → {}",
                dice(d),
                if *happens {
                    "it happens"
                } else {
                    "nothing yet"
                }
            )
        }
        EventKind::RandomEventChecked {
            dice: d,
            outcome,
            text,
            ..
        } => {
            use super::event::RandomEventOutcome as O;
            let mark = match outcome {
                O::Nothing => "",
                O::NoEvent => " [no event]",
                O::Applied => " [applied]",
                O::Umpire => " [UMPIRE: apply by hand]",
            };
            format!("random events, dice {}: {text}{mark}", dice(d))
        }
        EventKind::Override { reason, action } => {
            format!("UMPIRE OVERRIDE ({reason}): {}", override_words(action))
        }
        // A side is not told how many commands were taken back: some may be the enemy's
        // (decision 0160).
        EventKind::Retracted {
            commands: 0,
            reason,
        } => format!(
            "the umpire took back the last command(s) ({reason}); their events stay in the record, their effects are undone"
        ),
        EventKind::Retracted { commands, reason } => format!(
            "the umpire took back the last {commands} command(s) ({reason}); their events stay in the record, their effects are undone"
        ),
        EventKind::StateRestored { taken_back, .. } => {
            if taken_back.is_empty() {
                "state restored to what it was before the retracted command(s)".to_string()
            } else {
                format!("state restored to before: {}", taken_back.join("; "))
            }
        }
        EventKind::UnitStateSet {
            unit,
            track,
            morale,
            blown,
        } => format!(
            "umpire sets {unit}: {} permanent, {} stragglers ({} of {} boxes left), {morale:?}{}",
            track.permanent,
            track.stragglers,
            track.remaining(),
            track.boxes,
            if *blown { ", Blown" } else { "" }
        ),
    }
}

/// An override's action in words (issue 17: not raw JSON). The event keeps the action as its
/// JSON text; one that does not read back is shown as it is.
pub fn override_words(action: &str) -> String {
    use super::command::{ImposedStatus, OverrideAction as A};
    let Ok(a) = serde_json::from_str::<A>(action) else {
        return action.to_string();
    };
    match a {
        A::SetWrecked { command, wrecked } => format!(
            "{command} {} (21.6)",
            if wrecked {
                "marked Wrecked"
            } else {
                "no longer Wrecked"
            }
        ),
        A::SetCommanderLost { command, lost } => format!(
            "{command}'s commander {} (6.7, 25)",
            if lost { "marked lost" } else { "restored" }
        ),
        A::Place { piece, to } => format!("{piece} placed at {to}"),
        A::Ruling { text } => format!("ruling: {text}"),
        A::DiscardOrder { order } => format!("order {order} discarded"),
        A::SetStatus { command, status } => format!("{command} set to {status:?}"),
        A::Reroll { order } => format!("order {order}'s acceptance rolled again (6.5)"),
        A::ImposeOrder {
            command,
            order,
            status,
        } => format!(
            "umpire's order imposed on {command}, {}: {}",
            match status {
                ImposedStatus::Accepted => "accepted",
                ImposedStatus::D4 => "in delay D4",
                ImposedStatus::D5 => "in delay D5",
                ImposedStatus::D6 => "in delay D6",
            },
            order.readback
        ),
        A::SetUnit {
            unit,
            losses,
            morale,
            blown,
        } => {
            let mut parts = Vec::new();
            if let Some(l) = losses {
                parts.push(format!("losses {} ({})", l.permanent, l.stragglers));
            }
            if let Some(m) = morale {
                parts.push(format!("morale {m:?}"));
            }
            if let Some(b) = blown {
                parts.push(if b { "Blown" } else { "not Blown" }.to_string());
            }
            format!("{unit} set: {}", parts.join(", "))
        }
    }
}

/// The lines of a combat's readback for people (issue 17): each Check to Stand with its
/// modifiers, each fire group with its Fire Value, modifiers and table lines, and each side's
/// loss roll, modifier, table cell and result, as `odds` shows them.
pub fn combat_lines(r: &super::combat_system::CombatReadback) -> Vec<String> {
    let mods = |m: &[(String, i8)]| {
        if m.is_empty() {
            "no modifiers".to_string()
        } else {
            m.iter()
                .map(|(n, v)| format!("{n} {v:+}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let mut out: Vec<String> = r.aspects.iter().map(super::aspect::describe).collect();
    for c in &r.checks {
        let who = match c.side {
            crate::combat::Side::Attacker => "attacker",
            crate::combat::Side::Defender => "defender",
        };
        let how = match (&c.automatic, c.roll) {
            (Some(why), _) => why.clone(),
            (None, Some(roll)) => format!("rolled {roll} {:+} against {}+", c.modifier, c.need),
            (None, None) => "no roll".into(),
        };
        out.push(format!(
            "{who} Check to Stand: {how} ({}) → {}",
            mods(&c.modifiers),
            if c.stands { "stands" } else { "fails" }
        ));
    }
    if let Some(m) = &r.breakoff_check {
        out.push(format!(
            "Morale Check to Breakoff (16.2.4): rolled {} {:+} against {}+ → {}",
            m.roll,
            m.modifier,
            m.need,
            if m.passed { "passed" } else { "failed" }
        ));
    }
    if r.formed_square {
        out.push("the target formed Square (16.2.1)".into());
    }
    for g in &r.fire_groups {
        let rolls = g
            .rolls
            .iter()
            .map(|x| format!("{} → {} (table {})", x.roll, x.adjusted, x.table))
            .collect::<Vec<_>>()
            .join("; ");
        out.push(format!(
            "fire group: {} gun points{} at range {}, Fire Value {} ({}) = {}; rolls {rolls}",
            g.gun_points,
            if g.heavy { " heavy" } else { "" },
            g.range,
            g.fire_value.map_or("-".to_string(), |v| v.to_string()),
            mods(&g.modifiers),
            g.modified_fire_value
        ));
    }
    if let Some(v) = r.skirmisher_fire_value {
        out.push(format!(
            "skirmisher fire: Fire Value {v} ({}), roll {}",
            mods(&r.skirmisher_modifiers),
            r.skirmisher_roll.map_or("-".to_string(), |x| x.to_string())
        ));
    }
    for (who, side) in [("attacker", &r.attacker), ("defender", &r.defender)] {
        let Some(s) = side else { continue };
        let roll = s.loss_roll.map_or(String::new(), |x| {
            format!("loss roll {x} {:+}, ", s.loss_modifier)
        });
        let table = s
            .table_result
            .as_ref()
            .map_or(String::new(), |t| format!("table {t}, "));
        out.push(format!(
            "{who}: {roll}{table}loss {}; morale {:?} → {:?}{}",
            s.loss,
            s.morale_before,
            s.morale_after,
            if s.blood_lust {
                ", Blood Lust (21.3.3)"
            } else {
                ""
            }
        ));
        for n in &s.notes {
            out.push(format!("  {n}"));
        }
    }
    out
}

/// "the Line Extension at HEX of " before a unit's name, when an event is an extension's.
fn extension_of(extension: Option<crate::hex::Hex>) -> String {
    extension.map_or(String::new(), |h| format!("the Line Extension at {h} of "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::command::TypedOrder;
    use crate::engine::event::Visibility;
    use crate::engine::state::{OrderOrigin, OrderRecord, Routing};
    use crate::rules::{OrderType, Posture};

    fn record(sender: &str, origin: OrderOrigin) -> OrderRecord {
        let order = TypedOrder {
            text: "Fane: defend 20.10.".into(),
            readback: "Fane is to defend 20.10. General order.".into(),
            order_type: OrderType::General,
            stages: vec![Posture::General],
            independent: false,
            key: "k".into(),
            joins: None,
            attaches: vec![],
        };
        OrderRecord::new(
            14,
            &order,
            Routing {
                side: "british".into(),
                sender: sender.into(),
                recipient: "6-fane".into(),
                method: None,
                cost: 0,
                sent_turn: 3,
                arrival_turn: 3,
                origin,
                status: OrderStatus::Accepted,
            },
        )
    }

    fn event(kind: EventKind) -> Event {
        Event {
            turn: 3,
            visibility: Visibility::Public,
            kind,
        }
    }

    #[test]
    fn an_imposed_order_is_the_umpires_and_a_scenario_one_is_pre_set() {
        let imposed = event(EventKind::PresetOrder {
            order: record("umpire", OrderOrigin::Preset),
        });
        assert!(describe(&imposed).starts_with("umpire's order 14 for 6-fane"));
        let preset = event(EventKind::PresetOrder {
            order: record("wellesley", OrderOrigin::Preset),
        });
        assert!(describe(&preset).starts_with("pre-set order 14 for 6-fane"));
    }

    #[test]
    fn an_override_reads_in_words_not_json() {
        let action = r#"{"action":"place","piece":"solignac","to":"32.09"}"#;
        assert_eq!(override_words(action), "solignac placed at 32.09");
        let e = event(EventKind::Override {
            reason: "retreat".into(),
            action: r#"{"action":"set-wrecked","command":"6-fane","wrecked":true}"#.into(),
        });
        assert_eq!(
            describe(&e),
            "UMPIRE OVERRIDE (retreat): 6-fane marked Wrecked (21.6)"
        );
        assert_eq!(override_words("not json"), "not json");
    }

    #[test]
    fn a_loose_cannon_order_says_so_and_who_wrote_it() {
        // 6.6.1.6: the opponent writes the one-turn order.
        let e = event(EventKind::OrderIssued {
            order: record("french (Loose Cannon)", OrderOrigin::LooseCannon),
        });
        assert_eq!(
            describe(&e),
            "Loose Cannon (6.6.1.6): order 14 to 6-fane, written by the opponent (french) for one turn: Fane is to defend 20.10. General order."
        );
    }
}
