//! Combat as game commands: close combat (15, 19), cavalry charges (16) and artillery fire (17)
//! resolved by the combat core against the game's units, with the dice recorded, losses kept per
//! unit, and the link to command: brigades and divisions wrecked by losses (21.6) and lost
//! commanders (25) are counted by Attack Stoppage (6.7).
//!
//! Owns: building combatants from the game state, the events a combat produces and who may see
//! them (4.0: a side never sees the other's losses or stragglers). Must not: move units (a
//! retreat is a requirement the umpire carries out with `move`), decide combat rules (that is
//! `crate::combat`).

use serde::{Deserialize, Serialize};

use super::command::CombatKind;
use super::event::{EventKind, Visibility};
use super::oob;
use super::state::{CommandStatus, Step, UnitState};
use super::{Ctx, Refusal};
use crate::combat::charge::{ChargeDecisions, ChargeInput, resolve_charge};
use crate::combat::close::{CloseCombatInput, Elevation, Terrain, resolve_close_combat};
use crate::combat::fire::{ArtilleryFireInput, Battery, resolve_artillery_fire};
use crate::combat::{Combatant, CommanderIn, DivisionTrack, LossTrack, SideResult, Size};
use crate::hex::Hex;
use crate::scenario::{Scenario, UnitKind};

/// A unit's losses as the umpire and its owner see them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitLosses {
    pub permanent: u8,
    pub stragglers: u8,
    pub morale_change: i8,
    pub morale_after: crate::combat::MoraleState,
    pub retreat: crate::combat::Retreat,
    pub blown: bool,
    pub track: LossTrack,
}

/// The starting loss track of every brigade and battery (20.4; boxes from strength, an assumed
/// chart, `tables/nbs-3.0/combat.toml` `[wrecked]`), with the losses suffered before the
/// scenario (Talavera 7.1, `scenario::losses`) already marked. A validated scenario's losses
/// fit the built-in charts; with other charts (`--combat-tables`) the game start checks them
/// first ([`pre_scenario_losses`]), and here they are clamped to the chart, never past it.
pub fn initial_units(s: &Scenario, t: &crate::combat::CombatTables) -> Vec<(String, UnitState)> {
    let (losses, _) = crate::scenario::losses::distribute(s, |u| t.wrecked.unit_boxes(u));
    s.units
        .iter()
        .filter_map(|u| {
            let boxes = t.wrecked.unit_boxes(u)?;
            let pre = losses.get(&u.id).copied().unwrap_or_default();
            let permanent = pre.permanent.min(boxes);
            let stragglers = pre.stragglers.min(boxes - permanent);
            let track = LossTrack {
                boxes,
                permanent,
                stragglers,
                wreck_at: t.wrecked.brigade_wreck_at(boxes),
            };
            Some((
                u.id.clone(),
                UnitState {
                    track,
                    skirmisher_losses: pre.skirmishers,
                    ..UnitState::default()
                },
            ))
        })
        .collect()
}

/// The losses suffered before the scenario (Talavera 7.1) dealt out to every unit, or why they
/// do not fit the loss charts `t` (a game with its own combat tables checks this before it
/// starts).
pub fn pre_scenario_losses(
    s: &Scenario,
    t: &crate::combat::CombatTables,
) -> Result<std::collections::BTreeMap<String, crate::scenario::LossCounts>, Refusal> {
    let (losses, problems) = crate::scenario::losses::distribute(s, |u| t.wrecked.unit_boxes(u));
    match problems.first() {
        None => Ok(losses),
        Some(p) => Err(Refusal::new(
            "losses-beyond-chart",
            "7.1",
            format!(
                "the scenario's pre-scenario losses do not fit these loss charts: {}",
                p.describe(s)
            ),
            "use charts with more boxes per strength level, or change the scenario's `losses`",
        )),
    }
}

/// Current strength level of a unit from the boxes it has left (7.1, 20.4).
fn current_size(t: &crate::combat::CombatTables, track: &LossTrack) -> Size {
    crate::combat::morale::size_from_boxes(t, track.remaining()).unwrap_or(Size::C)
}

fn pos(ctx: &Ctx, piece: &str) -> Option<Hex> {
    ctx.state.positions.get(piece).copied()
}

/// The side of a unit and its hex, or a refusal naming the unit.
fn unit_on_map(ctx: &Ctx, id: &str) -> Result<(String, Hex), Refusal> {
    let u = ctx.eng.scenario.unit(id).ok_or_else(|| {
        Refusal::new(
            "unknown-unit",
            "",
            format!("`{id}` is not a unit of this scenario"),
            "use a unit id from `staffwork scenario show`",
        )
    })?;
    let h = pos(ctx, id)
        .ok_or_else(|| Refusal::new("not-on-map", "", format!("`{id}` is not on the map"), ""))?;
    Ok((u.side.clone(), h))
}

/// All units of a stack: one side, one hex.
fn stack(ctx: &Ctx, ids: &[String], role: &str) -> Result<(String, Hex), Refusal> {
    let first = ids.first().ok_or_else(|| {
        Refusal::new(
            "no-units",
            "14.2",
            format!("name at least one {role} unit"),
            "",
        )
    })?;
    let (side, hex) = unit_on_map(ctx, first)?;
    for id in &ids[1..] {
        let (s, h) = unit_on_map(ctx, id)?;
        if s != side || h != hex {
            return Err(Refusal::new(
                "not-one-stack",
                "14.2",
                format!(
                    "the {role} units must be one side's stack in one hex; `{id}` is not with `{first}`"
                ),
                "combat is between stacks; name units in the same hex",
            ));
        }
    }
    Ok((side, hex))
}

/// A stack as the combat core sees it: its Lead Unit (the first named, 14.2), the stack's size,
/// the worst morale state, and the commanders in the hex.
fn combatant(ctx: &Ctx, ids: &[String], hex: Hex) -> Combatant {
    let s = ctx.eng.scenario;
    let lead = s.unit(&ids[0]).expect("checked by stack()");
    let state_of = |id: &str| ctx.state.units.get(id).cloned().unwrap_or_default();
    let sizes: Vec<Size> = ids
        .iter()
        .map(|id| current_size(ctx.eng.combat, &state_of(id).track))
        .collect();
    let lead_state = state_of(&lead.id);
    let mut c = Combatant::new(
        lead.kind,
        Size::stack(&sizes),
        lead.morale.unwrap_or(crate::scenario::MoraleRating::C),
    );
    c.morale_state = ids
        .iter()
        .map(|id| state_of(id).morale)
        .min()
        .unwrap_or_default();
    c.formation = lead.formation;
    c.blown = lead_state.blown;
    c.track = Some(lead_state.track);
    c.wrecked = ctx.state.commands.get(&lead.id).is_some_and(|x| x.wrecked);
    c.stack = crate::combat::StackMix {
        infantry: ids
            .iter()
            .any(|id| s.unit(id).is_some_and(|u| u.kind.is_infantry())),
        cavalry: ids
            .iter()
            .any(|id| s.unit(id).is_some_and(|u| u.kind.is_cavalry())),
        artillery: ids
            .iter()
            .any(|id| s.unit(id).is_some_and(|u| u.kind.is_artillery())),
        all_artillery_horse: false,
        skirmishers: ids
            .iter()
            .any(|id| s.unit(id).is_some_and(|u| u.kind == UnitKind::Skirmisher)),
    };
    c.commanders = s
        .commanders
        .iter()
        .filter(|k| k.side == lead.side && pos(ctx, &k.id) == Some(hex))
        .map(|k| CommanderIn::new(k.id.clone(), k.rating, k.fighter))
        .collect();
    // Only a brigade counts towards its division's wreck (artillery never counts, 6.9 box).
    let division = oob::parent(&ctx.state, &lead.id)
        .filter(|p| oob::echelon(s, p) == Some(crate::scenario::Echelon::Division));
    if let Some(div) = division.filter(|_| oob::is_brigade(lead.kind)) {
        let brigades = oob::sub_units(s, &ctx.state, &div);
        let wrecked = brigades
            .iter()
            .filter(|b| ctx.state.commands.get(*b).is_some_and(|x| x.wrecked))
            .count();
        let t = ctx.eng.combat;
        c.division = Some(DivisionTrack {
            id: div.clone(),
            brigades: brigades.len() as u8,
            wrecked_brigades: wrecked as u8,
            // A scenario may set the threshold (Talavera scenario 4: 1-I at three, 3-I at two).
            wreck_at: Some(
                s.formation(&div)
                    .and_then(|f| f.wreck_at)
                    .unwrap_or_else(|| {
                        (brigades.len() as u8)
                            .saturating_sub(t.wrecked.division_less)
                            .max(1)
                    }),
            ),
        });
    }
    c
}

fn terrain_at(s: &Scenario, hex: Hex) -> Terrain {
    match s.map.terrain_at(hex) {
        Some("village" | "town") => Terrain::Village,
        Some("fortified" | "redoubt") => Terrain::Fortified,
        _ => Terrain::Clear,
    }
}

fn elevation(s: &Scenario, from: Hex, at: Hex) -> Elevation {
    let (a, d) = (s.map.elevation_at(from), s.map.elevation_at(at));
    match a.cmp(&d) {
        std::cmp::Ordering::Greater => Elevation::AttackerHigher,
        std::cmp::Ordering::Less => Elevation::AttackerLower,
        std::cmp::Ordering::Equal => Elevation::Level,
    }
}

/// Resolve a combat the phasing player starts (15, 16, 17).
pub(super) fn resolve(
    ctx: &mut Ctx,
    kind: &CombatKind,
    attackers: &[String],
    defenders: &[String],
) -> Result<(), Refusal> {
    let what = match kind {
        CombatKind::CloseCombat { .. } => "Close combat",
        CombatKind::Charge { .. } => "A cavalry charge",
        CombatKind::ArtilleryFire { .. } => "Artillery fire",
        CombatKind::SkirmisherFire { .. } => "Skirmisher fire",
    };
    if ctx.state.step != Step::Operations {
        return Err(Refusal::new(
            "wrong-step",
            "5.1",
            format!("{what} is resolved in the operations window"),
            "run `staffwork turn` to close the Command Phase",
        ));
    }
    let (a_side, a_hex) = stack(ctx, attackers, "attacking")?;
    let (d_side, d_hex) = stack(ctx, defenders, "defending")?;
    if a_side != ctx.state.phasing() {
        return Err(Refusal::new(
            "not-phasing",
            "5.1",
            format!(
                "{what} is started by the phasing player ({})",
                ctx.state.phasing()
            ),
            "",
        ));
    }
    if a_side == d_side {
        return Err(Refusal::new(
            "same-side",
            "15.1",
            "attacker and defender are on the same side",
            "",
        ));
    }
    for id in attackers.iter().chain(defenders) {
        let u = ctx.state.units.get(id).cloned().unwrap_or_default();
        if u.track.boxes > 0 && u.track.remaining() == 0 {
            return Err(Refusal::new(
                "eliminated",
                "20.4",
                format!("`{id}` has no boxes left: it is eliminated"),
                "remove it from the map with an override",
            ));
        }
    }
    for id in attackers {
        if ctx
            .state
            .units
            .get(id)
            .is_some_and(|u| u.morale == crate::combat::MoraleState::Routed)
        {
            return Err(Refusal::new(
                "routed-attacker",
                "21",
                format!("`{id}` is Routed and may not attack"),
                "rally it first (21.5)",
            ));
        }
    }
    let s = ctx.eng.scenario;
    let night = ctx.night();
    let distance = a_hex.distance(d_hex);
    let attacker = combatant(ctx, attackers, a_hex);
    let defender = combatant(ctx, defenders, d_hex);
    let tables = ctx.eng.combat;
    // No-orders commands may not start close combat or charges (6.3.4).
    let attacker_command = s
        .unit(&attackers[0])
        .map(|u| u.id.clone())
        .unwrap_or_default();
    let no_orders = ctx.state.current_posture(&attacker_command).is_none()
        && ctx
            .state
            .commands
            .get(&attacker_command)
            .is_some_and(|c| c.status == CommandStatus::NoOrders);
    let combat_error = |e: crate::combat::CombatError| match e {
        crate::combat::CombatError::Dice(d) => Refusal::from(d),
        other => Refusal::new("illegal-combat", "14–17", other.to_string(), ""),
    };
    let (label, a_res, d_res, trace, notes) = match kind {
        CombatKind::CloseCombat { fortified } => {
            if distance > 1 {
                return Err(Refusal::new(
                    "not-adjacent",
                    "15.1",
                    format!("{a_hex} is not adjacent to {d_hex}"),
                    "close combat is started by entering an adjacent enemy hex",
                ));
            }
            if no_orders {
                return Err(Refusal::new(
                    "no-orders-no-attack",
                    "6.3.4",
                    "a command in No Orders Status may not start Close Combat",
                    "",
                ));
            }
            let input = CloseCombatInput {
                attacker,
                defender,
                terrain: if *fortified {
                    Terrain::Fortified
                } else {
                    terrain_at(s, d_hex)
                },
                elevation: elevation(s, a_hex, d_hex),
                night,
                origin_hex_enemy_occupied: false,
                skip_commander_loss: false,
            };
            let r = resolve_close_combat(tables, &input, ctx.dice).map_err(combat_error)?;
            (
                r.outcome.to_string(),
                r.attacker,
                r.defender,
                r.trace,
                r.notes,
            )
        }
        CombatKind::Charge {
            form_square,
            follow_ons,
            reaction,
            follow_on,
        } => {
            if night {
                return Err(Refusal::new(
                    "night-no-charge",
                    "27.1.4",
                    "there are no cavalry charges at night",
                    "",
                ));
            }
            if no_orders && !reaction {
                return Err(Refusal::new(
                    "no-orders-no-attack",
                    "6.3.4",
                    "a command in No Orders Status may not start a charge",
                    "only Reaction Charges (--reaction)",
                ));
            }
            let input = ChargeInput {
                attacker,
                defender,
                attacker_nation: Default::default(),
                defender_cossack: false,
                night,
                follow_on: *follow_on,
                reaction: *reaction,
                square_forbidden: false,
                defender_was_charging: false,
                decisions: ChargeDecisions {
                    form_square: *form_square,
                    // 16.5.4: no Follow-on Charges after a Reaction Charge.
                    follow_ons_same_target: if *reaction { 0 } else { *follow_ons },
                    defender_checks_second: false,
                },
                skip_commander_loss: false,
            };
            let r = resolve_charge(tables, &input, ctx.dice).map_err(combat_error)?;
            (
                format!("{:?}", r.outcome),
                r.attacker,
                r.defender,
                r.trace,
                r.notes,
            )
        }
        CombatKind::SkirmisherFire { quality } => {
            if night {
                return Err(Refusal::new(
                    "night-no-fire",
                    "27.1.4",
                    "no Skirmisher fire at night",
                    "",
                ));
            }
            let mut firers = Vec::new();
            for id in attackers {
                let u = s.unit(id).expect("checked by stack()");
                if u.kind != UnitKind::Skirmisher {
                    return Err(Refusal::new(
                        "not-skirmisher",
                        "18",
                        format!("`{id}` is not a skirmisher"),
                        "only skirmishers make skirmisher fire",
                    ));
                }
                let full = ctx
                    .state
                    .units
                    .get(id)
                    .is_none_or(|x| x.track.remaining() == x.track.boxes);
                firers.push(crate::combat::fire::SkirmisherFirer {
                    quality: *quality,
                    full,
                });
            }
            if distance > 1 {
                return Err(Refusal::new(
                    "out-of-range",
                    "18",
                    format!("{a_hex} is not adjacent to {d_hex}"),
                    "skirmishers fire at adjacent hexes",
                ));
            }
            let input = crate::combat::fire::SkirmisherFireInput {
                firers,
                target_skirmishers_halves: 0,
                target: defender,
                target_in_cover: terrain_at(s, d_hex) != Terrain::Clear,
                night,
                skip_commander_loss: false,
            };
            let r = crate::combat::fire::resolve_skirmisher_fire(tables, &input, ctx.dice)
                .map_err(combat_error)?;
            (
                String::from(if r.hit { "hit" } else { "miss" }),
                SideResult::default(),
                r.target,
                r.trace,
                Vec::new(),
            )
        }
        CombatKind::ArtilleryFire { cannister } => {
            if night && !cannister {
                return Err(Refusal::new(
                    "night-no-fire",
                    "27.1.4",
                    "no artillery fire at night except Cannister",
                    "",
                ));
            }
            let mut batteries = Vec::new();
            for id in attackers {
                let u = s.unit(id).expect("checked by stack()");
                if !u.kind.is_artillery() {
                    return Err(Refusal::new(
                        "not-artillery",
                        "17",
                        format!("`{id}` is not artillery"),
                        "only batteries fire",
                    ));
                }
                let gp = ctx
                    .state
                    .units
                    .get(id)
                    .map_or(u.gun_points.unwrap_or(5), |x| x.track.remaining());
                batteries.push(Battery {
                    gun_points: gp,
                    heavy: matches!(
                        u.kind,
                        UnitKind::ArtilleryHeavyFoot | UnitKind::ArtilleryHeavyHorse
                    ),
                    range: u8::try_from(distance).unwrap_or(u8::MAX),
                });
            }
            let input = ArtilleryFireInput {
                batteries,
                target: defender,
                target_in_cover: terrain_at(s, d_hex) != Terrain::Clear,
                flanked_line: false,
                cannister: *cannister,
                flank_entry: false,
                case_shot_vs_artillery: false,
                stacked_with_high_morale: false,
                night,
                skip_commander_loss: false,
            };
            let r = resolve_artillery_fire(tables, &input, ctx.dice).map_err(combat_error)?;
            (
                String::from("fire"),
                SideResult::default(),
                r.target,
                r.trace,
                r.notes,
            )
        }
    };
    let cells: Vec<String> = trace.cells.iter().map(|c| format!("{c:?}")).collect();
    // Everyone learns that the combat happened and how it ended; the dice and the tables'
    // cells are the umpire's (4.0).
    ctx.emit(
        Visibility::Public,
        EventKind::CombatResolved {
            combat: kind.clone(),
            attackers: attackers.to_vec(),
            defenders: defenders.to_vec(),
            outcome: label,
            attacker_retreat: a_res.retreat,
            defender_retreat: d_res.retreat,
        },
    );
    ctx.emit(
        Visibility::Umpire,
        EventKind::CombatDice {
            dice: trace.dice.clone(),
            cells,
            notes,
        },
    );
    let fire_only = matches!(
        kind,
        CombatKind::ArtilleryFire { .. } | CombatKind::SkirmisherFire { .. }
    );
    if !fire_only {
        apply(ctx, &a_side, &attackers[0], &a_res);
    }
    apply(ctx, &d_side, &defenders[0], &d_res);
    Ok(())
}

/// Losses, wrecks and lost commanders of one side, seen by that side only (4.0).
fn apply(ctx: &mut Ctx, side: &str, lead: &str, r: &SideResult) {
    let track = r.aftermath.track.unwrap_or_else(|| {
        ctx.state
            .units
            .get(lead)
            .map(|u| u.track)
            .unwrap_or_default()
    });
    let losses = UnitLosses {
        permanent: r.loss.permanent,
        stragglers: r.loss.stragglers,
        morale_change: r.loss.morale_change,
        morale_after: r.morale_after,
        retreat: r.retreat,
        blown: r.blown,
        track,
    };
    ctx.emit_side(
        side,
        EventKind::UnitLossesTaken {
            unit: lead.to_string(),
            losses,
        },
    );
    let s = ctx.eng.scenario;
    // 21.6: a brigade wrecked by its losses; the division when enough of its brigades are.
    if r.aftermath.brigade_became_wrecked && ctx.state.commands.contains_key(lead) {
        ctx.emit_side(
            side,
            EventKind::WreckedChanged {
                command: lead.to_string(),
                wrecked: true,
            },
        );
    }
    if r.aftermath.division_became_wrecked
        && let Some(div) = s
            .unit(lead)
            .and_then(|_| oob::parent(&ctx.state, lead))
            .filter(|p| ctx.state.commands.contains_key(p))
    {
        ctx.emit_side(
            side,
            EventKind::WreckedChanged {
                command: div,
                wrecked: true,
            },
        );
    }
    // 25: a lost commander; 6.7 counts a lost original commander as one more wrecked sub-unit.
    for k in &r.aftermath.commanders_lost {
        if let Some(f) = oob::formation_of(&ctx.state, k).and_then(|f| s.formation(f)) {
            ctx.emit_side(
                side,
                EventKind::CommanderLost {
                    command: f.id.clone(),
                    lost: true,
                },
            );
        }
    }
}

/// Hexes from `hex` to the nearest unit of another side on the map.
fn enemy_distance(ctx: &Ctx, side: &str, hex: Hex) -> u32 {
    let s = ctx.eng.scenario;
    ctx.state
        .positions
        .iter()
        .filter(|(p, _)| s.unit(p).is_some_and(|u| u.side != side))
        .map(|(_, h)| h.distance(hex))
        .min()
        .unwrap_or(u32::MAX)
}

/// The Rally Phase of the phasing player (5.1 step 6): Straggler Recovery (20.3.2; barred under
/// Engage orders, easier in No Orders), Rally (21.5, a Routed stack always tries) and Cavalry
/// Recovery (22.2.3), for every unit on the map. `out_of_command` comes from this turn's command
/// range check.
pub(super) fn rally_phase(
    ctx: &mut Ctx,
    side: &str,
    out_of_command: &[String],
) -> Result<(), Refusal> {
    use crate::combat::morale::{
        RallyInput, StragglerRecoveryInput, cavalry_recovery, rally, straggler_recovery,
    };
    let s = ctx.eng.scenario;
    let t = ctx.eng.combat;
    let units: Vec<String> = ctx
        .state
        .units
        .keys()
        .filter(|id| {
            s.unit(id)
                .is_some_and(|u| u.side == side && !u.kind.is_artillery())
        })
        .filter(|id| ctx.state.positions.contains_key(*id))
        .cloned()
        .collect();
    let dice_error = |e: crate::combat::CombatError| match e {
        crate::combat::CombatError::Dice(d) => Refusal::from(d),
        other => Refusal::new("illegal-combat", "20–22", other.to_string(), ""),
    };
    for id in units {
        let u = s.unit(&id).expect("filtered above");
        let st = ctx.state.units[&id].clone();
        let hex = ctx.state.positions[&id];
        let commanders: Vec<CommanderIn> = s
            .commanders
            .iter()
            .filter(|k| k.side == side && pos(ctx, &k.id) == Some(hex))
            .map(|k| CommanderIn::new(k.id.clone(), k.rating, k.fighter))
            .collect();
        let command = if oob::is_brigade(u.kind) {
            Some(u.id.clone())
        } else {
            oob::parent(&ctx.state, &u.id)
        };
        let posture = command
            .as_deref()
            .and_then(|c| ctx.state.current_posture(c));
        let distance = enemy_distance(ctx, side, hex);
        let rating = u.morale.unwrap_or(crate::scenario::MoraleRating::C);
        let mut after = st.clone();
        let mut dice = Vec::new();
        let mut recovered = 0;
        if st.track.stragglers > 0 {
            let input = StragglerRecoveryInput {
                morale_rating: rating,
                morale_state: st.morale,
                stragglers: st.track.stragglers,
                enemy_distance: distance,
                night: ctx.night(),
                in_command: !out_of_command.contains(&id),
                under_engage_orders: posture == Some(crate::rules::Posture::Engage),
                no_orders: posture.is_none(),
                spent_mp: false,
                in_combat: st.last_combat_turn == Some(ctx.state.turn),
                fortified_or_village: terrain_at(s, hex) != Terrain::Clear,
                commanders: commanders.clone(),
            };
            let r = straggler_recovery(t, &input, ctx.dice).map_err(dice_error)?;
            recovered = r.recovered.min(after.track.stragglers);
            after.track.stragglers -= recovered;
            dice.extend(r.trace.dice);
        }
        if st.morale < crate::combat::MoraleState::Normal {
            let input = RallyInput {
                morale_rating: rating,
                morale_state: st.morale,
                adjacent_to_enemy: distance <= 1,
                in_enemy_zoi: distance <= 1,
                enemy_within_6: distance <= 6,
                in_village_not_line: u.kind.is_infantry()
                    && terrain_at(s, hex) == Terrain::Village
                    && u.formation != crate::scenario::UnitFormation::Line,
                attempt_rally_routed: true,
                cavalry: u.kind.is_cavalry(),
                commanders: commanders.clone(),
            };
            let r = rally(t, &input, ctx.dice).map_err(dice_error)?;
            after.morale = r.morale_after;
            after.blown |= r.becomes_blown;
            dice.extend(r.trace.dice);
        } else if st.blown && u.kind.is_cavalry() {
            let (ok, _, trace) = cavalry_recovery(t, rating, st.morale, &commanders, ctx.dice)
                .map_err(dice_error)?;
            after.blown = !ok;
            dice.extend(trace.dice);
        }
        if dice.is_empty() && after == st {
            continue;
        }
        ctx.emit_side(
            side,
            EventKind::UnitRallied {
                unit: id.clone(),
                stragglers_recovered: recovered,
                morale_after: after.morale,
                blown: after.blown,
                dice,
            },
        );
    }
    Ok(())
}
