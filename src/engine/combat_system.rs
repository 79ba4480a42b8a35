//! Combat as game commands: close combat (15, 19), cavalry charges (16) and artillery fire (17)
//! resolved by the combat core against the game's units, with the dice recorded, losses kept per
//! unit, and the link to command: brigades and divisions wrecked by losses (21.6) and lost
//! commanders (25) are counted by Attack Stoppage (6.7).
//!
//! Owns: building combatants from the game state, the events a combat produces and who may see
//! them (4.0: a side never sees the other's losses or stragglers). Must not: move units (a
//! retreat is a requirement carried out with `move --retreat-from`), decide combat rules (that is
//! `crate::combat`).

use serde::{Deserialize, Serialize};

use super::command::{CombatKind, CombatOptions};
use super::event::{EventKind, Visibility};
use super::oob;
use super::state::{CommandStatus, Step, UnitState};
use super::{Ctx, Refusal};
use crate::combat::charge::{CavalryNation, ChargeDecisions, ChargeInput, resolve_charge};
use crate::combat::close::StandCheck;
use crate::combat::close::{CloseCombatInput, Elevation, Terrain, resolve_close_combat};
use crate::combat::fire::{
    ArtilleryFireInput, Battery, FireGroup, SkirmisherFirer, SkirmisherQuality,
    resolve_artillery_fire, skirmisher_fv_halves,
};
use crate::combat::morale::MoraleCheck;
use crate::combat::{
    Combatant, CommanderIn, CommanderLossCheck, DivisionTrack, GunLoss, LossTrack, MoraleState,
    SideResult, Size,
};
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
    /// The unit fought as its Line Extension in this hex: the Morale Change is the
    /// extension's alone (13.3.1) unless it Routs; the losses are the unit's (13.3.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension: Option<Hex>,
}

/// What the combat core decided, step by step, as the umpire reads it back (and conformance
/// cases check it): the Checks to Stand with their modifiers, the cavalry's Breakoff check,
/// fire values, each side's loss roll and table result. Losses are in chart notation (14.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct CombatReadback {
    /// Checks to Stand in the order rolled (15.2.1, 16.2.2, 16.4.1.1; 19.5: attacker only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<StandCheck>,
    /// The charging cavalry's Morale Check to Breakoff (16.2.4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breakoff_check: Option<MoraleCheck>,
    /// The defender's odd/even roll after a Breakoff or Repulse (16.2.5, 16.2.6: odd = M-1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defender_odd_roll: Option<u8>,
    /// The target formed Square (16.2.1).
    #[serde(default)]
    pub formed_square: bool,
    /// Artillery in the target hex may now fire Cannister (16.2.3.1, 16.2.5 "OF", 16.2.6).
    #[serde(default)]
    pub opportunity_fire: bool,
    /// Follow-on Charges against the same target (16.2.7.2): roll, modifier, loss.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub follow_ons: Vec<FollowOnReadback>,
    /// More Follow-on Charges are allowed (against a new target, 16.2.7.3).
    #[serde(default)]
    pub may_follow_on: bool,
    /// A winning Column in a Town/Village may rush on (19.5.1).
    #[serde(default)]
    pub may_rush: bool,
    /// Artillery fire groups (17.3.6): gun points, range, Fire Value, modifiers, rolls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fire_groups: Vec<FireGroup>,
    /// Skirmisher fire (18.2, 18.3): the net Fire Value after modifiers (`None`: ½ or less,
    /// no roll), its modifiers and the roll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skirmisher_fire_value: Option<i8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skirmisher_modifiers: Vec<(String, i8)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skirmisher_roll: Option<u8>,
    /// Which way the attack came (10.0): the arc of the defender (of the battery, for
    /// Cannister) it came through, per attacking hex, read from facing or ruled by the umpire.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aspects: Vec<super::aspect::AspectReadback>,
    /// The side that takes losses (for fire, the target is the defender).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attacker: Option<SideReadback>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defender: Option<SideReadback>,
}

/// One Follow-on Charge against the same target, in chart notation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FollowOnReadback {
    pub roll: u8,
    pub modifier: i8,
    pub loss: String,
}

/// One side's losses as the combat core worked them out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SideReadback {
    /// The loss die, unmodified, and the modifier applied (after its cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_roll: Option<u8>,
    #[serde(default)]
    pub loss_modifier: i8,
    /// The table cell read, e.g. `2(7)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_result: Option<String>,
    /// After every adjustment (halving 15.3.6, AA+ 15.3.4, morale bonus 17.1.7, …), e.g. `1`.
    pub loss: String,
    /// An unmodified 1 gave Blood Lust (21.3.3).
    #[serde(default)]
    pub blood_lust: bool,
    pub morale_before: MoraleState,
    pub morale_after: MoraleState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gun_loss: Option<GunLoss>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commander_checks: Vec<CommanderLossCheck>,
    /// Permanent Casualties a Skirmisher took instead of the Lead Unit (20.2).
    #[serde(default)]
    pub skirmisher_absorbed: u8,
    /// Every adjustment applied, with its rule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl SideReadback {
    fn of(r: &SideResult) -> Self {
        SideReadback {
            loss_roll: r.loss_roll,
            loss_modifier: r.loss_modifier,
            table_result: r.table_result.map(|l| l.to_string()),
            loss: r.loss.to_string(),
            blood_lust: r.blood_lust,
            morale_before: r.morale_before,
            morale_after: r.morale_after,
            gun_loss: r.aftermath.gun_loss,
            commander_checks: r.aftermath.commander_checks.clone(),
            skirmisher_absorbed: r.aftermath.skirmisher_absorbed,
            notes: r.notes.clone(),
        }
    }
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

/// The side's commanders standing in a hex, as the Rally Phase rolls take them (20.3.2).
fn commanders_at(ctx: &Ctx, side: &str, hex: Hex) -> Vec<CommanderIn> {
    ctx.eng
        .scenario
        .commanders
        .iter()
        .filter(|k| k.side == side && pos(ctx, &k.id) == Some(hex))
        .map(|k| CommanderIn::new(k.id.clone(), k.rating, k.fighter))
        .collect()
}

/// The side of a unit and its hex, or a refusal naming the unit.
fn unit_on_map(ctx: &Ctx, id: &str) -> Result<(String, Hex), Refusal> {
    let u = ctx
        .eng
        .scenario
        .unit(id)
        .ok_or_else(|| super::command_system::unknown_unit(id))?;
    let h = pos(ctx, id)
        .ok_or_else(|| Refusal::new("not-on-map", "", format!("`{id}` is not on the map"), ""))?;
    Ok((u.side.clone(), h))
}

/// All units of a stack: one side, one hex.
fn stack(ctx: &Ctx, ids: &[String], role: &str, at: Option<Hex>) -> Result<(String, Hex), Refusal> {
    if let Some(h) = at {
        return super::extensions::fighting_at(&ctx.state, ctx.eng.scenario, ids, role, h);
    }
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
/// the worst morale state, the commanders in the hex, and its Skirmishers' Fire Value (the
/// Skirmishers are of `quality`, 15.2.2 box, 18.3).
fn combatant(ctx: &Ctx, ids: &[String], hex: Hex, quality: SkirmisherQuality) -> Combatant {
    let s = ctx.eng.scenario;
    let t = ctx.eng.combat;
    let lead = s.unit(&ids[0]).expect("checked by stack()");
    let state_of = |id: &str| ctx.state.units.get(id).cloned().unwrap_or_default();
    // 7.4: artillery of any size and Skirmishers count as size C.
    let sizes: Vec<Size> = ids
        .iter()
        .map(|id| match s.unit(id) {
            Some(u) if u.kind.is_artillery() || u.kind == UnitKind::Skirmisher => Size::C,
            // 13.2: an extended unit's strength levels are split among its hexes.
            _ => super::extensions::size_in(
                &ctx.state,
                id,
                pos(ctx, id) != Some(hex),
                current_size(t, &state_of(id).track),
            ),
        })
        .collect();
    let lead_state = state_of(&lead.id);
    let mut c = Combatant::new(
        lead.kind,
        Size::stack(&sizes),
        lead.morale.unwrap_or(crate::scenario::MoraleRating::C),
    );
    // 13.3.1: a Line Extension fighting in its own hex has its own Morale State.
    c.morale_state = ids
        .iter()
        .map(|id| {
            super::extensions::part(&ctx.state, id, hex).map_or(state_of(id).morale, |p| p.morale)
        })
        .min()
        .unwrap_or_default();
    // Its formation now: the last change recorded by movement (8), else its set-up; a Line
    // Extension fighting in its own hex is in Line or in the Square it formed (13.2.1,
    // decision 0198).
    c.formation = match super::extensions::part(&ctx.state, &lead.id, hex) {
        Some(p) => p.formation(),
        None => ctx
            .state
            .movement
            .get(&lead.id)
            .and_then(|m| m.formation)
            .unwrap_or(lead.formation),
    };
    c.blown = lead_state.blown;
    c.track = Some(lead_state.track);
    // 15.4.5: the Lead Unit has or is a Line Extension.
    c.line_extension = !super::extensions::of(&ctx.state, &lead.id).is_empty();
    c.wrecked = ctx.state.commands.get(&lead.id).is_some_and(|x| x.wrecked);
    let has = |f: fn(UnitKind) -> bool| ids.iter().any(|id| s.unit(id).is_some_and(|u| f(u.kind)));
    c.stack = crate::combat::StackMix {
        infantry: has(UnitKind::is_infantry),
        cavalry: has(UnitKind::is_cavalry),
        artillery: has(UnitKind::is_artillery),
        // Gun Loss Table −1 when every battery of the stack is Horse Artillery (chart p3).
        all_artillery_horse: has(UnitKind::is_artillery)
            && ids.iter().all(|id| {
                s.unit(id).is_none_or(|u| {
                    !u.kind.is_artillery()
                        || matches!(
                            u.kind,
                            UnitKind::ArtilleryLightHorse | UnitKind::ArtilleryHeavyHorse
                        )
                })
            }),
        skirmishers: has(|k| k == UnitKind::Skirmisher),
    };
    // 15.2.2 box, 18.3: the Skirmishers' Fire Values, DG and Routed ones counting 0; a full
    // Skirmisher has lost no step (20.2.1).
    let full = |id: &str| {
        let tr = state_of(id).track;
        tr.remaining() == tr.boxes
    };
    c.skirmisher_fv_halves = ids
        .iter()
        .filter(|id| s.unit(id).is_some_and(|u| u.kind == UnitKind::Skirmisher))
        .filter(|id| state_of(id).morale > MoraleState::Disorganized)
        .map(|id| {
            skirmisher_fv_halves(
                t,
                SkirmisherFirer {
                    quality,
                    full: full(id),
                },
            )
        })
        .fold(0u8, u8::saturating_add);
    c.skirmisher_full = full(&lead.id);
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
        let (brigades, wrecked) = division_count(ctx, &div);
        c.division = Some(DivisionTrack {
            id: div.clone(),
            brigades,
            wrecked_brigades: wrecked,
            wreck_at: Some(division_wreck_at(s, t, &div, brigades)),
        });
    }
    c
}

/// A division's brigades now and how many of them are Wrecked (21.6.2, 21.6.4).
fn division_count(ctx: &Ctx, div: &str) -> (u8, u8) {
    let brigades = oob::sub_units(ctx.eng.scenario, &ctx.state, div);
    let wrecked = brigades
        .iter()
        .filter(|b| ctx.state.commands.get(*b).is_some_and(|x| x.wrecked))
        .count();
    (brigades.len() as u8, wrecked as u8)
}

/// Wrecked brigades that wreck a division of `brigades` (21.6.2; the assumed threshold of
/// `[wrecked]`).
/// What the Lead Unit takes of a result — Permanent Casualties first, then Stragglers, up to
/// its boxes left — and what it has no room for (14.3).
fn lead_takes(track: LossTrack, permanent: u8, stragglers: u8) -> (u8, u8, (u8, u8)) {
    if track.boxes == 0 {
        return (permanent, stragglers, (0, 0));
    }
    let room = track.remaining();
    let p = permanent.min(room);
    let s = stragglers.min(room - p);
    (p, s, (permanent - p, stragglers - s))
}

/// 14.3: casualties the Lead Unit could not take go to the next brigades of the stack, in the
/// order named (Permanent Casualties first); a Skirmisher takes only what it chose to absorb
/// (20.2) and batteries count gun points, so neither takes the rest. What no unit can take is lost.
fn pass_on_losses(
    ctx: &mut Ctx,
    side: &str,
    units: &[String],
    skirmisher: Option<&(String, u8)>,
    r: &SideResult,
    morale_after: MoraleState,
    overflow: (u8, u8),
) {
    let (mut p_rest, mut s_rest) = overflow;
    let s = ctx.eng.scenario;
    for id in units.iter().skip(1) {
        if p_rest == 0 && s_rest == 0 {
            break;
        }
        let brigade = s.unit(id).is_some_and(|u| oob::is_brigade(u.kind));
        if !brigade || skirmisher.is_some_and(|(sk, _)| sk == id) {
            continue;
        }
        let mut track = ctx.state.units.get(id).map(|u| u.track).unwrap_or_default();
        let (p, st, rest) = lead_takes(track, p_rest, s_rest);
        (p_rest, s_rest) = rest;
        if p == 0 && st == 0 {
            continue;
        }
        track.permanent = track.permanent.saturating_add(p);
        track.stragglers = track.stragglers.saturating_add(st);
        ctx.emit_side(
            side,
            EventKind::UnitLossesTaken {
                unit: id.clone(),
                losses: UnitLosses {
                    permanent: p,
                    stragglers: st,
                    morale_change: r.loss.morale_change,
                    // 21.1: a Morale Change affects the whole stack.
                    morale_after,
                    retreat: r.retreat,
                    blown: false,
                    track,
                    extension: None,
                },
            },
        );
        // 21.6: the losses passed on may wreck it too.
        if track.wrecked_by_losses() && ctx.state.commands.get(id).is_some_and(|c| !c.wrecked) {
            ctx.emit_side(
                side,
                EventKind::WreckedChanged {
                    command: id.clone(),
                    wrecked: true,
                },
            );
        }
    }
}

/// Wrecked brigades that wreck a division (21.6.4): the scenario's threshold if it sets one
/// (Talavera scenario 4: the reinforced 1-I at three, the reduced 3-I at two), else the chart's.
fn division_wreck_at(s: &Scenario, t: &crate::combat::CombatTables, div: &str, brigades: u8) -> u8 {
    s.formation(div)
        .and_then(|f| f.wreck_at)
        .unwrap_or_else(|| brigades.saturating_sub(t.wrecked.division_less).max(1))
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

/// Units that fire together at one target: one side, each on the map, possibly in several
/// hexes (a Grand Battery, 17.3; Skirmishers firing together, 18). Returns the side and each
/// firer's hex.
fn firers(ctx: &Ctx, ids: &[String]) -> Result<(String, Vec<Hex>), Refusal> {
    let first = ids
        .first()
        .ok_or_else(|| Refusal::new("no-units", "14.2", "name at least one firing unit", ""))?;
    let (side, _) = unit_on_map(ctx, first)?;
    let mut hexes = Vec::new();
    for id in ids {
        let (s, h) = unit_on_map(ctx, id)?;
        if s != side {
            return Err(Refusal::new(
                "not-one-side",
                "17.3, 18",
                format!("the firing units must be of one side; `{id}` is not with `{first}`"),
                "name one side's batteries or Skirmishers",
            ));
        }
        hexes.push(h);
    }
    Ok((side, hexes))
}

/// The Skirmishers that take their stack's even Permanent Casualties (20.2): each must be a
/// Skirmisher named in one of the two stacks and not its Lead Unit. Returns, per side
/// (attacker, defender), the skirmisher and how many casualties it may take (capped at its
/// steps left).
fn absorbing_skirmishers(
    ctx: &Ctx,
    options: &CombatOptions,
    attackers: &[String],
    defenders: &[String],
) -> Result<[Option<(String, u8)>; 2], Refusal> {
    let s = ctx.eng.scenario;
    let mut out: [Option<(String, u8)>; 2] = [None, None];
    for a in &options.skirmisher_absorbs {
        let is_skirmisher = s
            .unit(&a.unit)
            .is_some_and(|u| u.kind == UnitKind::Skirmisher);
        if !is_skirmisher {
            return Err(Refusal::new(
                "not-skirmisher",
                "20.2",
                format!("--skirmisher-absorbs: `{}` is not a Skirmisher", a.unit),
                "only a Skirmisher may take the even Permanent Casualties of its stack",
            ));
        }
        let slot = if attackers[1..].contains(&a.unit) {
            0
        } else if defenders[1..].contains(&a.unit) {
            1
        } else {
            return Err(Refusal::new(
                "not-in-stack",
                "20.2",
                format!(
                    "--skirmisher-absorbs: `{}` is not a unit (other than the Lead Unit) of either stack",
                    a.unit
                ),
                "name the Skirmisher with --attacker or --defender after the Lead Unit",
            ));
        };
        if out[slot].is_some() {
            return Err(Refusal::new(
                "one-skirmisher-per-stack",
                "20.2",
                "--skirmisher-absorbs: name one Skirmisher per stack",
                "",
            ));
        }
        let left = ctx
            .state
            .units
            .get(&a.unit)
            .map_or(0, |u| u.track.remaining());
        out[slot] = Some((a.unit.clone(), a.at_most.unwrap_or(u8::MAX).min(left)));
    }
    Ok(out)
}

/// What one kind of combat hands back to [`resolve`]: the outcome's label, each side's result,
/// the dice and cells, and the notes.
struct Resolved {
    label: String,
    attacker: SideResult,
    defender: SideResult,
    trace: crate::combat::Trace,
    notes: Vec<String>,
    /// 16.4.2.1: beaten defending cavalry's non-cavalry stack-mates Rout.
    others_rout: bool,
    /// 15.1.7, 15.1.8: the defenders left before the combat; nothing was fought.
    moves_on: bool,
    /// 16.5.6 with 13.1.1: the defending Line Extension, met by a Reaction Charge at an earlier
    /// hex of its own move, formed Square and stopped there before the melee: the hex it now
    /// stands in, where the rest of the combat finds it (decision 0211).
    extension_stopped_at: Option<Hex>,
}

impl Resolved {
    fn new(
        label: String,
        attacker: SideResult,
        defender: SideResult,
        trace: crate::combat::Trace,
        notes: Vec<String>,
    ) -> Self {
        Resolved {
            label,
            attacker,
            defender,
            trace,
            notes,
            others_rout: false,
            moves_on: false,
            extension_stopped_at: None,
        }
    }
}

/// The two stacks of a combat as [`resolve`] checked them.
struct Engagement<'u> {
    attackers: &'u [String],
    defenders: &'u [String],
    /// Each attacker's hex (firers may stand in several, 17.3, 18).
    a_hexes: Vec<Hex>,
    d_hex: Hex,
    attacker: Combatant,
    defender: Combatant,
    /// The attacking command is in No Orders Status (6.3.4).
    no_orders: bool,
    night: bool,
    /// The umpire's ruling on the attack's arc (decision 0140).
    aspect: Option<&'u super::aspect::AspectRuling>,
    /// The umpire's reason for letting a Close Combat enter across a hexside that is not
    /// frontal (12.1.1, decision 0151).
    entry_ruling: Option<&'u str>,
    /// A lone Skirmisher's choice in Hindering terrain: stand or retreat (15.1.7).
    skirmisher_stands: Option<bool>,
}

fn combat_error(e: crate::combat::CombatError) -> Refusal {
    match e {
        crate::combat::CombatError::Dice(d) => Refusal::from(d),
        other => Refusal::new("illegal-combat", "14–17", other.to_string(), ""),
    }
}

/// The attacking and defending sides, the engagement and each side's absorbing Skirmisher.
type Engaged<'u> = (String, String, Engagement<'u>, [Option<(String, u8)>; 2]);

/// What every combat checks first and the two stacks as the combat core sees them: the sides,
/// the Skirmishers absorbing losses (20.2), the combatants, No Orders Status (6.3.4), night.
fn engage<'u>(
    ctx: &Ctx,
    kind: &CombatKind,
    attackers: &'u [String],
    defenders: &'u [String],
    options: &'u CombatOptions,
) -> Result<Engaged<'u>, Refusal> {
    let (a_side, a_hexes, d_side, d_hex) = sides(ctx, kind, attackers, defenders, options)?;
    check_fit(ctx, attackers, defenders)?;
    let absorbing = absorbing_skirmishers(ctx, options, attackers, defenders)?;
    let s = ctx.eng.scenario;
    let mut attacker = combatant(ctx, attackers, a_hexes[0], options.attacker_quality);
    let mut defender = combatant(ctx, defenders, d_hex, options.defender_quality);
    // 13.1.2, 13.3.1: a Line Extension charged or fired on at an earlier hex of its own path is
    // read as itself there: its own Morale State and the formation it had there (decision 0211).
    if let (Some(ext), [target]) = (options.defender_at, defenders)
        && ext != d_hex
        && let Some(p) = super::extensions::part(&ctx.state, target, ext)
    {
        defender.morale_state = p.morale;
        if let Some(f) = super::opportunity::extension_formation_at(&ctx.state, target, ext, d_hex)
        {
            defender.formation = f;
        }
    }
    // 17.4 trigger 3: fired on at its formation change, in the formation the firer chooses.
    if let (true, Some(at), [target]) = (
        options.opportunity_formation,
        options.opportunity_at,
        defenders,
    ) {
        let f = match options.defender_at {
            // A Line Extension's change out of Square (8.3.3; decision 0205).
            Some(ext) => super::opportunity::extension_fired_on_as(&ctx.state, target, ext, at),
            None => super::opportunity::fired_on_as(&ctx.state, target, at),
        };
        if let Some(f) = f {
            defender.formation = f;
        }
    }
    // 16.5, 17.4: charged or fired on at a hex of its path, in the formation it had there
    // (decision 0156).
    // A Line Extension's own path is read above, not its parent's (decision 0211).
    let path_hex = options
        .reaction_at
        .or(options
            .opportunity_at
            .filter(|_| !options.opportunity_formation))
        .filter(|_| options.defender_at.is_none());
    if let (Some(at), [target]) = (path_hex, defenders)
        && let Some(f) = super::opportunity::formation_at(&ctx.state, target, at)
    {
        defender.formation = f;
    }
    if let Some((_, n)) = &absorbing[0] {
        attacker.skirmisher_absorbs = *n;
    }
    if let Some((_, n)) = &absorbing[1] {
        defender.skirmisher_absorbs = *n;
    }
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
    let e = Engagement {
        attackers,
        defenders,
        a_hexes,
        d_hex,
        attacker,
        defender,
        no_orders,
        night: ctx.night(),
        aspect: options.aspect.as_ref(),
        entry_ruling: options.entry_ruling.as_deref(),
        skirmisher_stands: options.skirmisher_stands,
    };
    Ok((a_side, d_side, e, absorbing))
}

/// What a combat between these pieces puts to the combat core, built as [`resolve`] builds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CombatInput {
    CloseCombat(CloseCombatInput),
    Charge(ChargeInput),
    ArtilleryFire(ArtilleryFireInput),
}

/// A combat as the game would resolve it now, nothing rolled or recorded: its input to the
/// combat core and the arcs read from facing (10.0, decision 0140). For exact odds from a game
/// (`staffwork odds … --db`, decision 0166).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CombatPreview {
    pub input: CombatInput,
    pub aspects: Vec<super::aspect::AspectReadback>,
}

impl super::Engine<'_> {
    /// The combat `resolve` would fight between these pieces in `state`, with the same checks
    /// (a refusal is the combat's), combatants and arcs; no die is rolled (T2.2a's Morale Check
    /// of Spanish cavalry before a charge is not asked).
    pub fn combat_preview(
        &self,
        state: &super::GameState,
        kind: &CombatKind,
        attackers: &[String],
        defenders: &[String],
        options: &CombatOptions,
    ) -> Result<CombatPreview, Refusal> {
        let mut dice = crate::rules::dice::ScriptedDice::new();
        let mut ctx = Ctx::preview(self, state, &mut dice);
        let (_, _, e, _) = engage(&ctx, kind, attackers, defenders, options)?;
        let mut readback = CombatReadback::default();
        let input = match kind {
            CombatKind::CloseCombat { fortified } => {
                match close_combat_input(&ctx, e, *fortified, &mut readback)? {
                    CloseCombatSetup::Fight(input, _) => CombatInput::CloseCombat(input),
                    CloseCombatSetup::Left(_) => {
                        return Err(Refusal::new(
                            "no-odds",
                            "15.1.7",
                            "the defender leaves before the Close Combat (15.1.7, 15.1.8): no die is rolled",
                            "",
                        ));
                    }
                }
            }
            CombatKind::Charge { .. } => {
                let mut input = charge_input(&ctx, e, kind, &mut readback)?;
                // As `charge` fights it: the target forms Square first, in the scratch game,
                // and the charge is priced against the Square with the Morale State 11.3.1 may
                // have cost it (decision 0195). The fire of `--square-fire` rolls dice: its
                // odds are not folded in.
                if squares_unfired(options, &input) {
                    let mut charge = ChargeUnderWay {
                        kind,
                        chargers: attackers,
                        targets: defenders,
                        options: options.clone(),
                        input: &mut input,
                        readback: &mut readback,
                    };
                    square_first(&mut ctx, &mut charge)?;
                }
                CombatInput::Charge(input)
            }
            CombatKind::ArtilleryFire { cannister } => CombatInput::ArtilleryFire(
                artillery_fire_input(&ctx, &e, *cannister, &mut readback)?,
            ),
            CombatKind::SkirmisherFire { .. } => {
                return Err(Refusal::new(
                    "no-odds",
                    "18",
                    "exact odds are computed for Close Combat, charges and artillery fire, not Skirmisher fire",
                    "",
                ));
            }
        };
        Ok(CombatPreview {
            input,
            aspects: readback.aspects,
        })
    }
}

/// Resolve a combat (15, 16, 17, 18): started by the phasing player, or Opportunity Fire with
/// Cannister (17.4, 17.4.9) and Reaction Charges (16.5.2: in any phase) by either side. Checks
/// what every combat shares, then hands over to one function per kind.
pub(super) fn resolve(
    ctx: &mut Ctx,
    kind: &CombatKind,
    attackers: &[String],
    defenders: &[String],
    options: &CombatOptions,
) -> Result<(), Refusal> {
    let fire = matches!(
        kind,
        CombatKind::ArtilleryFire { .. } | CombatKind::SkirmisherFire { .. }
    );
    let fire_ruling = fire_ruling_note(ctx, kind, attackers, defenders, options);
    let (a_side, d_side, e, absorbing) = engage(ctx, kind, attackers, defenders, options)?;
    let (a_first, d_hex) = (e.a_hexes[0], e.d_hex);
    let mut readback = CombatReadback::default();
    let r = match kind {
        // T2.2a: Spanish cavalry must pass a Morale Check to charge cavalry; failing, it stays.
        CombatKind::Charge { .. }
            if super::special_rules::spanish_cavalry_balks(
                ctx,
                &e.attacker,
                attackers,
                defenders,
            )? =>
        {
            return Ok(());
        }
        CombatKind::CloseCombat { fortified } => close_combat(ctx, e, *fortified, &mut readback)?,
        CombatKind::Charge { .. } => match charge(ctx, e, kind, options, &mut readback)? {
            Some(r) => r,
            // 16.5.5: the cavalry failed its Morale Check and does not charge.
            None => return Ok(()),
        },
        CombatKind::SkirmisherFire { quality } => skirmisher_fire(ctx, e, *quality, &mut readback)?,
        CombatKind::ArtilleryFire { cannister } => {
            artillery_fire(ctx, e, *cannister, &mut readback)?
        }
    };
    if r.moves_on {
        left_before(ctx, kind, attackers, defenders, a_first, d_hex, &r)?;
        return Ok(());
    }
    // 16.5.6 with 13.1.1: a Line Extension stopped where the Reaction Charge met it stands there
    // for the rest of the combat (decision 0211).
    let stopped;
    let options = match r.extension_stopped_at {
        Some(h) => {
            stopped = CombatOptions {
                defender_at: Some(h),
                ..options.clone()
            };
            &stopped
        }
        None => options,
    };
    if !fire {
        readback.attacker = Some(SideReadback::of(&r.attacker));
    }
    readback.defender = Some(SideReadback::of(&r.defender));
    let cells: Vec<String> = r.trace.cells.iter().map(|c| format!("{c:?}")).collect();
    let formed_square = readback.formed_square;
    // 15.1.4: the MP to initiate Close Combat come off each attacker's allowance (decision 0148).
    let close_combat_half_mp = match kind {
        CombatKind::CloseCombat { .. } => {
            super::movement::close_combat_cost(ctx, attackers, a_first, d_hex)?
                .into_iter()
                .filter(|(_, h)| *h > 0)
                .collect()
        }
        _ => std::collections::BTreeMap::new(),
    };
    // Everyone learns that the combat happened and how it ended; the dice and the tables'
    // cells are the umpire's (4.0).
    ctx.emit(
        Visibility::Public,
        EventKind::CombatResolved {
            combat: kind.clone(),
            attackers: attackers.to_vec(),
            defenders: defenders.to_vec(),
            outcome: r.label.clone(),
            attacker_retreat: r.attacker.retreat,
            defender_retreat: r.defender.retreat,
            reface: free_reface(ctx, kind, attackers, defenders, d_hex),
            close_combat_half_mp,
            attacker_at: extension_attacking(ctx, attackers, a_first),
            retreats: retreats_due(
                ctx,
                kind,
                attackers,
                defenders,
                [r.attacker.retreat, r.defender.retreat],
                // 16.5, 13.1.1: the enemy's hex is where the charge met it, or its Line
                // Extension's (decision 0211).
                options.reaction_at.or(options.defender_at),
            ),
            moves_on: false,
            opportunity_at: options.opportunity_at,
            opportunity_formation: options.opportunity_formation,
            opportunity_extension: options.opportunity_at.and(options.defender_at),
            charge_at: options.reaction_at,
            defender_at: options.defender_at,
        },
    );
    ctx.emit(
        Visibility::Umpire,
        EventKind::CombatDice {
            dice: r.trace.dice.clone(),
            cells,
            notes: r.notes.iter().cloned().chain(fire_ruling).collect(),
            readback: Some(Box::new(readback)),
        },
    );
    if !fire {
        apply(
            ctx,
            &a_side,
            attackers,
            &r.attacker,
            absorbing[0].as_ref(),
            false,
            options.attacker_at,
        );
    }
    apply_defender(ctx, &d_side, defenders, &r, absorbing[1].as_ref(), options);
    // 16.5.6, 16.5.7: a Reaction Charge that Routs the mover, makes it form Square or sends it
    // back stops its move where the charge met it. A Line Extension's stop is made before its
    // Square (`square_first`), its Rout collapses it into its parent (13.3.1); stopped apart
    // from a parent that has moved, it is placed next to it (13.3.3; decision 0211).
    match (options.reaction_at, defenders, options.defender_at) {
        (Some(at), [target], None) => {
            let retreats = r.defender.retreat != crate::combat::Retreat::None;
            super::opportunity::stop_reacted(ctx, &d_side, target, at, formed_square, retreats);
        }
        (Some(at), [target], Some(_)) if r.extension_stopped_at.is_some() => {
            super::opportunity::placed_beside_moved_parent(ctx, &d_side, target, at);
        }
        _ => {}
    }
    // 8.3.1.2: a Square the combat Routs enters Routed formation (decision 0199).
    for id in attackers.iter().chain(defenders) {
        super::retreat::routed_square_breaks(ctx, id);
    }
    for (side, ids) in [(&a_side, attackers), (&d_side, defenders)] {
        for id in ids {
            let size = current_size(
                ctx.eng.combat,
                &ctx.state.units.get(id).cloned().unwrap_or_default().track,
            );
            super::extensions::unsupported(ctx, side, id, size);
        }
    }
    // 21.4.2: a unit that owes a retreat it cannot make is removed (decision 0169).
    for id in attackers.iter().chain(defenders) {
        super::retreat::remove_if_trapped(ctx, id);
    }
    Ok(())
}

/// The hex of the Line Extension attacking on its own (13.1.1), if the one attacker is one.
fn extension_attacking(ctx: &Ctx, attackers: &[String], from: Hex) -> Option<Hex> {
    match attackers {
        [one] => super::extensions::part(&ctx.state, one, from).map(|_| from),
        _ => None,
    }
}

/// 15.1.7, 15.1.8: the defenders left before the Close Combat. Everyone learns it; the
/// attackers spend the +2 MP to initiate it ("still spent"), not the hex they did not enter, and
/// are not stopped (15.1.5's exceptions); the defenders owe the retreat (decision 0147). Nothing
/// is rolled and nobody refaces (10.1.3 is for units "executing" a Close Combat). Decision 0152.
fn left_before(
    ctx: &mut Ctx,
    kind: &CombatKind,
    attackers: &[String],
    defenders: &[String],
    from: Hex,
    into: Hex,
    r: &Resolved,
) -> Result<(), Refusal> {
    let initiate = ctx.eng.movement.cost("close_combat");
    // What `close_combat_cost` charges is the hex + 2, or all that is left under 12.1.5: the
    // +2 of it is the lesser of 2 MP and that.
    let close_combat_half_mp = super::movement::close_combat_cost(ctx, attackers, from, into)?
        .into_iter()
        .map(|(id, h)| (id, h.min(initiate)))
        .filter(|(_, h)| *h > 0)
        .collect();
    ctx.emit(
        Visibility::Public,
        EventKind::CombatResolved {
            combat: kind.clone(),
            attackers: attackers.to_vec(),
            defenders: defenders.to_vec(),
            outcome: r.label.clone(),
            attacker_retreat: r.attacker.retreat,
            defender_retreat: r.defender.retreat,
            reface: Vec::new(),
            close_combat_half_mp,
            attacker_at: extension_attacking(ctx, attackers, from),
            retreats: retreats_due(
                ctx,
                kind,
                attackers,
                defenders,
                [r.attacker.retreat, r.defender.retreat],
                None,
            ),
            moves_on: true,
            opportunity_at: None,
            opportunity_formation: false,
            opportunity_extension: None,
            charge_at: None,
            defender_at: None,
        },
    );
    Ok(())
}

/// Whether a Close Combat is fought (with a note saying why a lone Skirmisher stands) or the
/// defenders left before it (15.1.7, 15.1.8).
enum Before {
    Fight(Option<String>),
    Left(Box<Resolved>),
}

/// What happens before a Close Combat is fought: a lone Skirmisher not attacked by Skirmishers
/// only retreats one hex (15.1.7 and the v3.0 errata "Infantry vs. Skirmisher [15.1.7]": "there is
/// no combat; the Skirmisher automatically retreats one hex") — it must, unless in Hindering
/// terrain (3.7.1; a Town/Village is Hindering, 19.1), where its player chooses; never to or next
/// to the attacker's hex, never into an enemy stack (21.4.1, 21.4.2 check the path). Cavalry
/// withdraws 6–12 hexes (15.1.8, 22.1.2; Limbered Horse Artillery counts as cavalry, 22.1.3).
fn before_close_combat(ctx: &Ctx, e: &Engagement) -> Result<Before, Refusal> {
    use crate::combat::Retreat;
    let s = ctx.eng.scenario;
    let (a_hex, d_hex) = (e.a_hexes[0], e.d_hex);
    let defenders: Vec<(&crate::scenario::Unit, crate::scenario::UnitFormation)> = e
        .defenders
        .iter()
        .filter_map(|id| s.unit(id))
        .map(|u| (u, super::movement::formation_now(s, &ctx.state, u)))
        .collect();
    let lone_skirmishers = !defenders.is_empty()
        && defenders
            .iter()
            .all(|(u, _)| u.kind == UnitKind::Skirmisher);
    let by_skirmishers_only = e
        .attackers
        .iter()
        .filter_map(|id| s.unit(id))
        .all(|u| u.kind == UnitKind::Skirmisher);
    let cavalry = !defenders.is_empty()
        && defenders.iter().all(|(u, f)| {
            u.kind.is_cavalry()
                || (matches!(
                    u.kind,
                    UnitKind::ArtilleryLightHorse | UnitKind::ArtilleryHeavyHorse
                ) && *f == crate::scenario::UnitFormation::Limbered)
        });
    let skirmisher_may_leave = lone_skirmishers && !by_skirmishers_only;
    if e.skirmisher_stands.is_some() && !skirmisher_may_leave {
        return Err(Refusal::new(
            "no-skirmisher-choice",
            "15.1.7",
            format!(
                "the defenders at {d_hex} are not Skirmishers alone attacked by more than Skirmishers: there is no choice to stand or retreat [hex {d_hex}]"
            ),
            "drop --skirmisher-stands / --skirmisher-retreats",
        ));
    }
    let left = |label: &str, retreat: Retreat, note: String| {
        let mut r = Resolved::new(
            label.to_string(),
            SideResult::default(),
            SideResult {
                retreat,
                ..SideResult::default()
            },
            crate::combat::Trace::default(),
            vec![note],
        );
        r.moves_on = true;
        Before::Left(Box::new(r))
    };
    if cavalry {
        return Ok(left(
            "cavalry-withdraws",
            Retreat::Cavalry { min: 6, max: 12 },
            "cavalry attacked in Close Combat withdraws 6–12 hexes (15.1.8, 22.1.2)".into(),
        ));
    }
    if !skirmisher_may_leave {
        return Ok(Before::Fight(None));
    }
    let row = ctx
        .eng
        .movement
        .terrain_row(ctx.eng.move_map.terrain(d_hex))
        .0;
    let hindering = row.hindering || row.town;
    let who = &e.defenders[0];
    match (hindering, e.skirmisher_stands) {
        (false, Some(true)) => {
            return Err(Refusal::new(
                "skirmisher-must-retreat",
                "15.1.7",
                format!(
                    "`{who}` is a lone Skirmisher outside Hindering terrain: it must retreat before the Close Combat, it may not stand (15.1.7) [hex {d_hex}]"
                ),
                "drop --skirmisher-stands: only in Hindering terrain may it stand",
            ));
        }
        (true, None) => {
            return Err(Refusal::new(
                "skirmisher-undecided",
                "15.1.7",
                format!(
                    "`{who}` is a lone Skirmisher in Hindering terrain: its player chooses whether it retreats before the Close Combat or stands and fights (15.1.7) [hex {d_hex}]"
                ),
                "give --skirmisher-retreats or --skirmisher-stands (the defending player's choice)",
            ));
        }
        (true, Some(true)) => {
            return Ok(Before::Fight(Some(
                "the lone Skirmisher in Hindering terrain stands: C-size infantry (15.1.7, 15.4.4)"
                    .into(),
            )));
        }
        _ => {}
    }
    if skirmisher_room(ctx, &defenders[0].0.side, a_hex, d_hex).is_empty() {
        return Ok(Before::Fight(Some(format!(
            "the lone Skirmisher has no hex to retreat to, none next to {d_hex} being two hexes from {a_hex}, free of enemy units and enterable: it stands (15.1.7)"
        ))));
    }
    Ok(left(
        "skirmisher-retreats",
        Retreat::OneHex,
        format!(
            "the lone Skirmisher retreats one hex before the Close Combat, not to or next to {a_hex} (15.1.7, errata)"
        ),
    ))
}

/// The hexes a lone Skirmisher at `at` may retreat into before a Close Combat from `attacker`
/// (15.1.7): next to it, not to or next to the attacker's hex, on the map, enterable, free of
/// enemy units and Line Extensions.
fn skirmisher_room(ctx: &Ctx, side: &str, attacker: Hex, at: Hex) -> Vec<Hex> {
    let s = ctx.eng.scenario;
    let extensions = super::extensions::all(ctx, None);
    at.neighbours()
        .into_iter()
        .filter(|h| h.distance(attacker) >= 2)
        .filter(|h| crate::space::Space::contains(&ctx.eng.space, *h))
        .filter(|h| {
            crate::movement::path::step_cost(
                &ctx.eng.move_map,
                ctx.eng.movement,
                "skirmish",
                at,
                *h,
                false,
            )
            .is_ok()
        })
        .filter(|h| {
            let enemy = |p: &String| s.unit(p).is_some_and(|u| u.side != side);
            !ctx.state.positions.iter().any(|(p, x)| x == h && enemy(p))
                && !extensions.iter().any(|(p, x)| x == h && enemy(p))
        })
        .collect()
}

/// 10.1.3: the units of both sides of a Close Combat or a Cavalry Charge may face freely at its
/// end — not the attacker of a Close Combat into a Town/Village (19.5: "Unlike regular Close
/// Combat, the attacker can not change facing after combat"). Fire turns nobody.
fn free_reface(
    ctx: &Ctx,
    kind: &CombatKind,
    attackers: &[String],
    defenders: &[String],
    d_hex: Hex,
) -> Vec<String> {
    let village = terrain_at(ctx.eng.scenario, d_hex) == Terrain::Village;
    let who: Vec<&String> = match kind {
        CombatKind::CloseCombat { .. } if village => defenders.iter().collect(),
        CombatKind::CloseCombat { .. } | CombatKind::Charge { .. } => {
            attackers.iter().chain(defenders).collect()
        }
        _ => Vec::new(),
    };
    who.into_iter().cloned().collect()
}

/// The two sides of a combat and their hexes: in the operations window, one side's stack (or
/// firers) against the other's, started by the phasing player unless it is Opportunity Fire
/// with Cannister or a Reaction Charge.
/// The retreats a combat requires (21.4, 15.3.8, 16.x; decision 0147): each unit of a side
/// whose result says it retreats, away from the enemy's hex — the attackers from the defender's
/// hex, the defenders from the (first) attacker's — for as many hexes as the result says (a
/// Routed result 6, 21.4). The attacker of a Close Combat never leaves the hex it came from
/// here, so that hex is its retreat's first (21.4.1): a one-hex retreat is made at once and
/// nothing is owed; a longer one owes the hexes beyond it.
fn retreats_due(
    ctx: &Ctx,
    kind: &CombatKind,
    attackers: &[String],
    defenders: &[String],
    [a_retreat, d_retreat]: [crate::combat::Retreat; 2],
    met_at: Option<Hex>,
) -> Vec<super::state::RetreatDue> {
    use crate::combat::Retreat;
    let close = matches!(kind, CombatKind::CloseCombat { .. });
    let at = |id: &String| ctx.state.positions.get(id).copied();
    // 16.5: a Reaction Charge met the defender at a hex of its path; the cavalry retreats
    // away from there; from a Line Extension's hex if it was one (13.1.1; decision 0211).
    let d_hex = met_at.or_else(|| defenders.iter().find_map(at));
    let (Some(a_hex), Some(d_hex)) = (attackers.iter().find_map(at), d_hex) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (units, retreat, cause, back) in [
        (attackers, a_retreat, d_hex, close),
        (defenders, d_retreat, a_hex, false),
    ] {
        let (min, max) = match retreat {
            Retreat::None => continue,
            Retreat::OneHex | Retreat::Displace => (1, 1),
            Retreat::Rout => (6, 6),
            Retreat::Cavalry { min, max } => (min, max),
        };
        for id in units {
            let (Some(_), Some(hex)) = (ctx.eng.scenario.unit(id), at(id)) else {
                continue;
            };
            let (min, max, came_from) = if back {
                (min.saturating_sub(1), max.saturating_sub(1), Some(hex))
            } else {
                (min, max, None)
            };
            if max == 0 {
                continue;
            }
            out.push(super::state::RetreatDue {
                unit: id.clone(),
                cause,
                min,
                max,
                came_from,
                clear_of: None,
            });
        }
    }
    out
}

fn sides(
    ctx: &Ctx,
    kind: &CombatKind,
    attackers: &[String],
    defenders: &[String],
    options: &CombatOptions,
) -> Result<(String, Vec<Hex>, String, Hex), Refusal> {
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
    // A unit counts once in a combat: named twice (or on both sides) it would add its strength
    // twice and change the result (15.1, issue 12).
    let mut named = std::collections::BTreeSet::new();
    if let Some(twice) = attackers
        .iter()
        .chain(defenders)
        .find(|id| !named.insert(id.as_str()))
    {
        return Err(Refusal::new(
            "duplicate-unit",
            "15.1",
            format!("`{twice}` is named more than once among the attackers and defenders"),
            "name each unit once with --attacker or --defender",
        ));
    }
    let fire = matches!(
        kind,
        CombatKind::ArtilleryFire { .. } | CombatKind::SkirmisherFire { .. }
    );
    let (a_side, a_hexes) = if fire {
        firers(ctx, attackers)?
    } else {
        let (side, hex) = stack(ctx, attackers, "attacking", options.attacker_at)?;
        (side, vec![hex; attackers.len()])
    };
    let (d_side, mut d_hex) = stack(ctx, defenders, "defending", options.defender_at)?;
    // 17.4: Opportunity Fire at the defender in a hex of the path it moved along this phase.
    if let Some(h) = options.opportunity_at {
        d_hex = opportunity_hex(ctx, kind, attackers, &a_hexes, defenders, h, options)?;
    }
    // 16.5: a Reaction Charge at the defender in a hex of its move, formation change or retreat
    // in this phase, one the cavalry was offered (decision 0156).
    if let Some(h) = options.reaction_at {
        let (CombatKind::Charge { reaction: true, .. }, [cavalry], [target]) =
            (kind, attackers, defenders)
        else {
            return Err(Refusal::new(
                "not-reaction-charge",
                "16.5",
                "--at is the hex of a Reaction Charge (`combat charge --reaction`) by one cavalry unit at the one unit that moved",
                "name the cavalry with --attacker and the unit that moved with --defender",
            ));
        };
        // 13.1.1: with --defender-at, at a hex of the Line Extension's own move (decision 0211).
        super::opportunity::reaction_hex(ctx, cavalry, target, options.defender_at, h)?;
        d_hex = h;
    }
    // 17.4.1, 17.4.9: once at a unit each Movement Phase, one firer per trigger, unless the
    // umpire allows it (the ruling is noted with the combat, `fire_ruling_note`).
    if let Some(trigger) = opportunity_trigger(kind, &a_hexes, options)
        && options.fire_ruling.is_none()
    {
        super::opportunity::once_per_trigger(
            &ctx.state,
            attackers,
            defenders,
            options.defender_at,
            trigger,
        )?;
    }
    // 17.4, 17.4.9: Cannister is Opportunity Fire at units entering the battery's hex; either
    // side's artillery fires it, in the other player's turn too. 16.5, 16.5.2: a Reaction Charge
    // answers enemy movement in the cavalry's Reaction Zone and "can occur in any phase".
    let opportunity = matches!(kind, CombatKind::ArtilleryFire { cannister: true })
        || matches!(kind, CombatKind::Charge { reaction: true, .. })
        || options.opportunity_at.is_some();
    if a_side != ctx.state.phasing() && !opportunity {
        return Err(Refusal::new(
            "not-phasing",
            "5.1",
            format!(
                "{what} is started by the phasing player ({})",
                ctx.state.phasing()
            ),
            "the other side fires only Opportunity Fire (--opportunity-at HEX, 17.4; --cannister, 17.4.9) and charges only Reaction Charges (--reaction, 16.5)",
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
    Ok((a_side, a_hexes, d_side, d_hex))
}

/// The trigger an Opportunity Fire answers (17.4): the hex of the path or of the formation
/// change it names, or, for Cannister (17.4.9), the battery's hex the target enters.
pub(super) fn opportunity_trigger(
    kind: &CombatKind,
    a_hexes: &[Hex],
    options: &CombatOptions,
) -> Option<super::opportunity::Trigger> {
    use super::opportunity::{Trigger, TriggerKind};
    match (kind, options.opportunity_at) {
        (_, Some(hex)) => Some(Trigger {
            hex,
            kind: if options.opportunity_formation {
                TriggerKind::FormationChange
            } else {
                TriggerKind::Move
            },
        }),
        (CombatKind::ArtilleryFire { cannister: true }, None) => a_hexes.first().map(|h| Trigger {
            hex: *h,
            kind: TriggerKind::Cannister,
        }),
        _ => None,
    }
}

/// The umpire's ruling letting a fire through 17.4.1 (`--allow-fire --ruling`), noted with the
/// combat when the rule would have refused it; `None` when nothing was overruled.
fn fire_ruling_note(
    ctx: &Ctx,
    kind: &CombatKind,
    attackers: &[String],
    defenders: &[String],
    options: &CombatOptions,
) -> Option<String> {
    let reason = options.fire_ruling.as_deref()?;
    let a_hexes: Vec<Hex> = attackers
        .iter()
        .filter_map(|a| ctx.state.positions.get(a).copied())
        .collect();
    let trigger = opportunity_trigger(kind, &a_hexes, options)?;
    let r = super::opportunity::once_per_trigger(
        &ctx.state,
        attackers,
        defenders,
        options.defender_at,
        trigger,
    )
    .err()?;
    Some(format!(
        "{} ({}): allowed by the umpire: {reason}",
        r.message, r.rule
    ))
}

/// 17.4: the hex of the defender's path this phase (or of its formation change, trigger 3)
/// that the batteries Opportunity Fire at, checked to be in every battery's Opportunity Fire
/// Zone (decision 0167).
fn opportunity_hex(
    ctx: &Ctx,
    kind: &CombatKind,
    attackers: &[String],
    a_hexes: &[Hex],
    defenders: &[String],
    at: Hex,
    options: &CombatOptions,
) -> Result<Hex, Refusal> {
    if !matches!(kind, CombatKind::ArtilleryFire { cannister: false }) {
        return Err(Refusal::new(
            "not-opportunity-fire",
            "17.4",
            "--opportunity-at is artillery fire (`combat fire`), without --cannister",
            "",
        ));
    }
    let [target] = defenders else {
        return Err(Refusal::new(
            "one-target",
            "17.4.1",
            "Opportunity Fire is at the one unit that moved: name it alone with --defender",
            "",
        ));
    };
    // 17.4 trigger 3: a formation change in the zone (a Line Extension's Square against a
    // charge is none, decision 0198; its change back into Line, 8.3.3, is one, 8.2.1 and
    // 17.4.2, decision 0205).
    if options.opportunity_formation {
        let changes = match options.defender_at {
            Some(ext) => super::opportunity::extension_fireable_changes(&ctx.state, target, ext),
            None => super::opportunity::formation_changes_this_phase(&ctx.state, target),
        };
        if !changes.contains(&at) {
            let hexes: Vec<String> = changes.iter().map(ToString::to_string).collect();
            return Err(Refusal::new(
                "no-formation-change",
                "17.4",
                if hexes.is_empty() {
                    format!("`{target}` has not changed formation in this Movement Phase")
                } else {
                    format!(
                        "`{target}` changed formation at {} in this Movement Phase, not at {at}",
                        hexes.join(" ")
                    )
                },
                "Opportunity Fire at a formation change names the hex where it changed formation",
            ));
        }
        for (b, h) in attackers.iter().zip(a_hexes) {
            super::opportunity::zone_range(ctx, b, *h, target, at)?;
        }
        return Ok(at);
    }
    // 17.4.2: a Line Extension fired on in its own hex is fired on along its own path.
    let path = match options.defender_at {
        Some(ext) => super::opportunity::extension_path_this_phase(&ctx.state, target, ext),
        None => super::opportunity::path_this_phase(&ctx.state, target).unwrap_or_default(),
    };
    let target = &super::opportunity::target_key(target, options.defender_at);
    if !path.contains(&at) {
        let moved = if path.is_empty() {
            "has not moved in this Movement Phase".to_string()
        } else {
            let hexes: Vec<String> = path.iter().map(ToString::to_string).collect();
            format!("moved through {} in this Movement Phase", hexes.join(" "))
        };
        return Err(Refusal::new(
            "not-on-path",
            "17.4",
            format!("`{target}` {moved}, not through {at}"),
            "Opportunity Fire is at units moving in the zone: name a hex of the path",
        ));
    }
    for (b, h) in attackers.iter().zip(a_hexes) {
        super::opportunity::zone_range(ctx, b, *h, target, at)?;
    }
    Ok(at)
}

/// No eliminated unit fights (20.4) and no Routed unit attacks (21).
fn check_fit(ctx: &Ctx, attackers: &[String], defenders: &[String]) -> Result<(), Refusal> {
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
            .is_some_and(|u| u.morale == MoraleState::Routed)
        {
            return Err(Refusal::new(
                "routed-attacker",
                "21",
                format!("`{id}` is Routed and may not attack"),
                "rally it first (21.5)",
            ));
        }
    }
    Ok(())
}

/// Close Combat (15, 19).
fn close_combat(
    ctx: &mut Ctx,
    e: Engagement,
    fortified: bool,
    readback: &mut CombatReadback,
) -> Result<Resolved, Refusal> {
    let (defenders, d_hex) = (e.defenders, e.d_hex);
    let (input, extra_notes) = match close_combat_input(ctx, e, fortified, readback)? {
        CloseCombatSetup::Left(r) => return Ok(*r),
        CloseCombatSetup::Fight(input, notes) => (input, notes),
    };
    squares_attacked(ctx, defenders, d_hex);
    let r = resolve_close_combat(ctx.eng.combat, &input, ctx.dice).map_err(combat_error)?;
    readback.checks = r.checks.clone();
    readback.may_rush = r.may_rush;
    let mut notes = r.notes;
    notes.extend(extra_notes);
    Ok(Resolved::new(
        r.outcome.to_string(),
        r.attacker,
        r.defender,
        r.trace,
        notes,
    ))
}

/// 8.3.4: "A unit in Square that is attacked in Close Combat automatically changes formation to
/// Column (or Line in the case of a unit with Line Extensions) and has its Morale State reduced
/// 1 level" (15.4.5). The combat core reads the Square and applies the change and the Morale
/// State inside the combat; the game records the formation: `formation-changed` Square → Column
/// (Line for a unit with Line Extensions, or a Line Extension in its own Square, 13.2.1), 0 MP,
/// rule 8.3.4, before the result — no Opportunity Fire trigger (8.2.1). Decision 0198.
fn squares_attacked(ctx: &mut Ctx, defenders: &[String], d_hex: Hex) {
    use crate::scenario::UnitFormation;
    let s = ctx.eng.scenario;
    for id in defenders {
        let Some(u) = s.unit(id) else { continue };
        let extension = super::extensions::part(&ctx.state, id, d_hex).map(|p| p.formation());
        let (now, at) = match extension {
            Some(f) => (f, Some(d_hex)),
            None => (super::movement::formation_now(s, &ctx.state, u), None),
        };
        if now != UnitFormation::Square {
            continue;
        }
        let to = if at.is_some() || !super::extensions::of(&ctx.state, id).is_empty() {
            UnitFormation::Line
        } else {
            UnitFormation::Column
        };
        let side = u.side.clone();
        ctx.emit_side(
            &side,
            EventKind::FormationChanged {
                unit: id.clone(),
                from: UnitFormation::Square,
                to,
                half_mp: 0,
                rule: SQUARE_IN_CLOSE_COMBAT.into(),
                extension: at,
            },
        );
    }
}

/// The rule of a Square's change in Close Combat (8.3.4; 8.2.1: no Opportunity Fire).
pub(crate) const SQUARE_IN_CLOSE_COMBAT: &str = "8.3.4";

/// A Close Combat before any die: the defender left first (15.1.7, 15.1.8), or the combat
/// core's input with the notes (the umpire's entry ruling, a Skirmisher standing) to add.
enum CloseCombatSetup {
    Left(Box<Resolved>),
    Fight(CloseCombatInput, Vec<String>),
}

/// A Close Combat's checks and its input to the combat core, the arc read from facing (10.0).
fn close_combat_input(
    ctx: &Ctx,
    e: Engagement,
    fortified: bool,
    readback: &mut CombatReadback,
) -> Result<CloseCombatSetup, Refusal> {
    let s = ctx.eng.scenario;
    let a_hex = e.a_hexes[0];
    let d_hex = e.d_hex;
    if a_hex.distance(d_hex) > 1 {
        return Err(Refusal::new(
            "not-adjacent",
            "15.1",
            format!("{a_hex} is not adjacent to {d_hex}"),
            "close combat is started by entering an adjacent enemy hex",
        ));
    }
    if e.no_orders {
        return Err(Refusal::new(
            "no-orders-no-attack",
            "6.3.4",
            "a command in No Orders Status may not start Close Combat",
            "",
        ));
    }
    super::movement::close_combat_cost(ctx, e.attackers, a_hex, d_hex)?;
    // 12.1.1, 15.1.4: the attackers enter across a frontal hexside, unless the umpire rules.
    let mut entry_note = None;
    match e.entry_ruling {
        None => super::movement::close_combat_entry(ctx, e.attackers, a_hex, d_hex)?,
        Some(reason) => {
            if super::movement::close_combat_entry(ctx, e.attackers, a_hex, d_hex).is_err() {
                entry_note = Some(format!(
                    "entered across a hexside that is not frontal (12.1.1), allowed by the umpire: {reason}"
                ));
            }
        }
    }
    // 15.1.7, 15.1.8: a lone Skirmisher or cavalry may leave before the combat.
    let before_note = match before_close_combat(ctx, &e)? {
        Before::Left(r) => return Ok(CloseCombatSetup::Left(r)),
        Before::Fight(note) => note,
    };
    // 10.0, chart p4/p5: "Attacked in rear" −2, read from the defender's facing.
    let mut defender = e.defender;
    let (arc, _, aspect) = super::aspect::read(ctx, &e.defenders[0], d_hex, a_hex, false, e.aspect);
    defender.attacked_in_rear = arc == crate::movement::facing::Arc::Rear;
    readback.aspects.push(aspect);
    let input = CloseCombatInput {
        attacker: e.attacker,
        defender,
        terrain: if fortified {
            Terrain::Fortified
        } else {
            terrain_at(s, d_hex)
        },
        elevation: elevation(s, a_hex, d_hex),
        night: e.night,
        origin_hex_enemy_occupied: false,
        skip_commander_loss: false,
    };
    Ok(CloseCombatSetup::Fight(
        input,
        entry_note.into_iter().chain(before_note).collect(),
    ))
}

/// A unit's nation for the national rules (26): its own, else its formations', else its side's.
pub(crate) fn nation_of(s: &Scenario, unit: &str) -> Option<String> {
    let u = s.unit(unit)?;
    if let Some(n) = &u.nation {
        return Some(n.clone());
    }
    let mut f = s.formation(&u.parent);
    while let Some(x) = f {
        if let Some(n) = &x.nation {
            return Some(n.clone());
        }
        f = x.parent.as_deref().and_then(|p| s.formation(p));
    }
    s.sides
        .iter()
        .find(|x| x.id == u.side)
        .and_then(|x| x.nation.clone())
}

/// The national cavalry rules a charging stack's Lead Unit follows (26.4 British, 26.6 Cossack).
fn cavalry_nation(s: &Scenario, unit: &str) -> CavalryNation {
    if s.unit(unit).is_some_and(|u| u.cossack) {
        CavalryNation::Cossack
    } else if nation_of(s, unit).as_deref() == Some("british") {
        CavalryNation::British
    } else {
        CavalryNation::Standard
    }
}

/// A cavalry charge (16), regular or Reaction (16.5); `None` when a Reaction Charge's cavalry
/// failed its 16.5.5 Morale Check and did not charge.
fn charge(
    ctx: &mut Ctx,
    e: Engagement,
    kind: &CombatKind,
    options: &CombatOptions,
    readback: &mut CombatReadback,
) -> Result<Option<Resolved>, Refusal> {
    let reaction = matches!(kind, CombatKind::Charge { reaction: true, .. });
    let (cavalry, targets, d_hex, a_hex) = (
        e.attackers[0].clone(),
        e.defenders.to_vec(),
        e.d_hex,
        e.a_hexes[0],
    );
    let rating = e.attacker.clone();
    let chargers = e.attackers.to_vec();
    let mut input = charge_input(ctx, e, kind, readback)?;
    let mut overruled = None;
    if reaction {
        // 16.5.3 (and 16.5.5's "cannot Reaction Charge the triggering unit"), unless the umpire
        // rules otherwise: the rule set aside is noted with the combat.
        let limits =
            super::opportunity::reaction_limits(ctx, &cavalry, &targets, d_hex).and_then(|()| {
                match options.reaction_at {
                    Some(_) => super::opportunity::not_again(
                        ctx,
                        &cavalry,
                        &targets[0],
                        options.defender_at,
                        d_hex,
                    ),
                    None => Ok(()),
                }
            });
        match (limits, options.reaction_ruling.as_deref()) {
            (Err(r), None) => return Err(r),
            (Err(r), Some(why)) => {
                overruled = Some(format!(
                    "{} ({}): allowed by the umpire: {why}",
                    r.message, r.rule
                ));
            }
            (Ok(()), _) => {}
        }
        let aim = Aim {
            target: &targets[0],
            extension: options.defender_at,
            a_hex,
            at: d_hex,
        };
        if options.reaction_at.is_some() && !reaction_morale_check(ctx, &cavalry, &aim, &rating)? {
            return Ok(None);
        }
    }
    // 16.2.1: the target forms Square before the melee, in the game (decision 0195); 17.4.6:
    // the charge is interrupted for the fire at it, if a battery fires (decision 0194).
    let fired = !options.square_fire.is_empty();
    let mut extension_stopped_at = None;
    let formed_first = if fired || squares_unfired(options, &input) {
        let mut charge = ChargeUnderWay {
            kind,
            chargers: &chargers,
            targets: &targets,
            options: options.clone(),
            input: &mut input,
            readback: &mut *readback,
        };
        let formed = if fired {
            square_fire_first(ctx, &mut charge)?
        } else {
            square_first(ctx, &mut charge)?
        };
        if charge.options.defender_at != options.defender_at {
            extension_stopped_at = charge.options.defender_at;
        }
        formed
    } else {
        false
    };
    let r = resolve_charge(ctx.eng.combat, &input, ctx.dice).map_err(combat_error)?;
    readback.checks = r.checks.clone();
    readback.breakoff_check = r.breakoff_check.clone();
    readback.defender_odd_roll = r.defender_odd_roll;
    readback.formed_square = r.formed_square || formed_first;
    readback.opportunity_fire = r.opportunity_fire;
    readback.may_follow_on = r.may_follow_on;
    readback.follow_ons = r
        .follow_ons
        .iter()
        .map(|f| FollowOnReadback {
            roll: f.roll,
            modifier: f.modifier,
            loss: f.loss.to_string(),
        })
        .collect();
    let mut out = Resolved::new(
        format!("{:?}", r.outcome),
        r.attacker,
        r.defender,
        r.trace,
        r.notes,
    );
    out.others_rout = r.defender_hex_others_rout;
    out.extension_stopped_at = extension_stopped_at;
    out.notes.extend(overruled);
    Ok(Some(out))
}

/// What a Reaction Charge is aimed at: the unit that moved (its Line Extension now in
/// `extension`, 13.1.1), met at `at`, from the cavalry's hex `a_hex` (16.5; decision 0211).
#[derive(Clone, Copy)]
struct Aim<'a> {
    target: &'a str,
    extension: Option<Hex>,
    a_hex: Hex,
    at: Hex,
}

/// 16.5.5: "If the triggering unit started outside the frontal arc of the unit wanting to
/// Reaction Charge, it must pass a Morale Check (21.2). If the reacting cavalry passes the
/// check, reface the unit so that the target hex is in its frontal arc and execute the charge.
/// If the unit fails the check, it keeps its original facing and cannot Reaction Charge". The
/// die is logged (`reaction-checked`); `false` when it failed.
fn reaction_morale_check(
    ctx: &mut Ctx,
    cavalry: &str,
    aim: &Aim,
    c: &Combatant,
) -> Result<bool, Refusal> {
    let Aim {
        target,
        extension,
        a_hex,
        at,
    } = *aim;
    let z = super::opportunity::reaction_hex(ctx, cavalry, target, extension, at)?;
    if !z.morale_check {
        return Ok(true);
    }
    let (check, trace) =
        crate::combat::charge::reaction_check(ctx.eng.combat, c, ctx.dice).map_err(combat_error)?;
    let side = side_of(ctx, cavalry);
    ctx.emit(
        Visibility::Public,
        EventKind::ReactionChecked {
            cavalry: cavalry.to_string(),
            target: target.to_string(),
            at,
            need: check.need,
            dice: trace.dice,
            passed: check.passed,
            extension,
        },
    );
    if check.passed {
        use crate::movement::facing::{Arc, Corner};
        let from = ctx.state.movement.get(cavalry).and_then(|m| m.facing);
        // The hexsides of its hex the target hex lies through; a corner fronting them all.
        let sides = super::aspect::entry_sides(at, a_hex);
        let corner = (0..6)
            .map(Corner::from_index)
            .find(|c| sides.iter().all(|s| c.arc(*s) == Arc::Front))
            .or_else(|| sides.first().map(|s| Corner::from_index(*s)));
        if let Some(to) = corner {
            ctx.emit_side(
                &side,
                EventKind::FacingChanged {
                    unit: cavalry.to_string(),
                    from,
                    to,
                    half_mp: 0,
                    rule: "16.5.5".into(),
                },
            );
        }
    }
    Ok(check.passed)
}

/// The defender's losses applied, then what Opportunity Fire does to a mover beyond them: a
/// Rout stops its move (17.4 with 11.3.2), Disorganized it forms no Square after (17.4.6) and
/// its MP left at the hex fired on are halved, which may stop it short (12.1.2); the same for a
/// Line Extension's own path (13.1.3; decisions 0154, 0159, 0182, 0188, 0192, 0193).
fn apply_defender(
    ctx: &mut Ctx,
    d_side: &str,
    defenders: &[String],
    r: &Resolved,
    absorbing: Option<&(String, u8)>,
    options: &CombatOptions,
) {
    let was = defenders
        .first()
        .and_then(|d| ctx.state.units.get(d))
        .map(|u| u.morale)
        .unwrap_or_default();
    // 13.1.2: a Line Extension's Morale State is its own.
    let ext_was = options
        .defender_at
        .zip(defenders.first())
        .and_then(|(h, d)| super::extensions::part(&ctx.state, d, h))
        .map(|p| p.morale);
    apply(
        ctx,
        d_side,
        defenders,
        &r.defender,
        absorbing,
        r.others_rout,
        options.defender_at,
    );
    // 17.4 with 11.3.2: Opportunity Fire that Routs the mover stops its move where it was hit;
    // one that Disorganizes it halves what it had left there (12.1.2), which may stop it short.
    if let (Some(at), [target], None) = (options.opportunity_at, defenders, options.defender_at) {
        super::opportunity::stop_move(ctx, d_side, target, at);
        // 17.4.6: a unit Disorganized by Opportunity Fire does not form Square (judged on the
        // whole path, before a halt cuts it).
        super::opportunity::undo_square(
            ctx,
            d_side,
            target,
            at,
            options.opportunity_formation,
            was,
        );
        if options.opportunity_formation {
            super::opportunity::halve_at_formation_change(ctx, d_side, target, at, was);
        } else {
            super::opportunity::halve_at(ctx, d_side, target, at, was);
        }
    }
    // 12.1.2 with 13.1.3: fire at an earlier hex of a Line Extension's own path that leaves
    // it Disorganized halves what it had there, which may stop it short (decision 0192).
    if let (Some(at), [target], Some(ext)) =
        (options.opportunity_at, defenders, options.defender_at)
    {
        // 17.4.6 with 13.2.1: an extension Disorganized by the fire at the Square it formed
        // against a charge does not form it (decision 0205).
        if options.opportunity_formation {
            super::opportunity::undo_extension_square(ctx, d_side, target, ext, at, ext_was);
        }
        super::opportunity::halve_extension_at(ctx, d_side, target, ext, at, ext_was);
    }
}

/// 17.4.6: "Entering Square formation during a Cavalry Charge or Reaction Charge will generate
/// Opportunity Fire. If this occurs, momentarily interrupt the charge sequence, execute the
/// Opportunity Fire, then follow through with the charge's completion. A unit Disorganized by
/// Opportunity Fire does not form Square." The target forms Square (`formation-changed`, rule
/// 16.2.1, 0 MP: forming Square against a charge is automatic, 16.2.1), the batteries of
/// `options.square_fire` fire at that formation change (17.4 trigger 3, with every check of
/// `combat fire --opportunity-at HEX --formation-change`), and a target the fire Disorganizes
/// has its Square undone (decision 0159). The charge's `input` is then read again from the game
/// as the fire left the target, the Square already formed or not. Returns whether it stands in
/// Square. Decision 0194.
fn square_fire_first(ctx: &mut Ctx, c: &mut ChargeUnderWay) -> Result<bool, Refusal> {
    use crate::scenario::UnitFormation;
    let mut options = c.options.clone();
    let targets = c.targets;
    let target = &targets[0];
    let stands = ctx.state.positions.get(target).copied();
    let refuse = |code: &'static str, msg: String, help: &str| {
        Err(Refusal::new(code, "17.4.6", msg, help.to_string()))
    };
    let Some(stands) = stands else {
        return refuse(
            "square-fire",
            format!("`{target}` is not on the map"),
            "repeat without --square-fire",
        );
    };
    // 13.2.1 with 17.4.2 and 17.4.6: a Line Extension charged in its own hex forms its own
    // Square, and "Movement or Formation Change activities of a unit and its Line Extensions
    // generate Opportunity Fire separately": the fire is at the extension (decision 0205).
    let mut at = options.defender_at.unwrap_or(stands);
    // 16.5.6 with 13.1.1: a Line Extension met at an earlier hex of its own move stops there
    // and forms its Square there, fired on there (no `override --place` moves an extension;
    // decision 0211).
    let extension_met_earlier = options
        .reaction_at
        .filter(|h| options.defender_at.is_some() && *h != at);
    if let Some(h) = options
        .reaction_at
        .filter(|h| *h != at && extension_met_earlier.is_none())
    {
        return refuse(
            "square-fire-earlier-hex",
            format!(
                "`{target}` is met at {h}, an earlier hex of its move, but stands at {at}: its Square would be formed at {h} [hex {h}]"
            ),
            &format!(
                "forming Square ends its move where the charge met it (16.5.6): place it there first (`override --place {target}={h}` with a reason), then repeat"
            ),
        );
    }
    if !forms_square(c.input) {
        return refuse(
            "no-square-to-fire-at",
            format!(
                "`{target}` does not form Square against this charge (not infantry, Disorganized or Routed, already in Square, or forbidden: 8.3.1.2, 16.5.11): there is no formation change to fire at [hex {at}]"
            ),
            "repeat without --square-fire",
        );
    }
    if let (Some(h), Some(ext)) = (extension_met_earlier, options.defender_at) {
        let side = side_of(ctx, target);
        super::opportunity::extension_stopped_by_reaction(ctx, &side, target, ext, h);
        options.defender_at = Some(h);
        c.options.defender_at = Some(h);
        at = h;
    }
    form_square_against_charge(ctx, target, options.defender_at, c.input.defender.formation);
    let fire = CombatOptions {
        opportunity_at: Some(at),
        opportunity_formation: true,
        defender_at: options.defender_at,
        fire_ruling: options.fire_ruling.clone(),
        ..CombatOptions::default()
    };
    resolve(
        ctx,
        &CombatKind::ArtilleryFire { cannister: false },
        &options.square_fire,
        std::slice::from_ref(target),
        &fire,
    )?;
    // The charge goes on against the target as the fire left it: its Square formed (or
    // undone), its Morale State and losses.
    read_again(ctx, c)?;
    Ok(match options.defender_at {
        Some(ext) => super::extensions::part(&ctx.state, target, ext)
            .is_some_and(|p| p.formation() == UnitFormation::Square),
        None => {
            ctx.state.movement.get(target).and_then(|m| m.formation) == Some(UnitFormation::Square)
        }
    })
}

/// 16.2.1 without 17.4.6's fire (`--square-fire`): the target forms Square before the melee —
/// a Reaction Charge's target met at an earlier hex of its move stopped there first (16.5.6:
/// forming Square ends its move) — and the charge is read again against it in Square, with the
/// Morale State 11.3.1 may have cost it; a Line Extension charged in its own hex forms its own
/// (13.2.1). Decisions 0195, 0198.
fn square_first(ctx: &mut Ctx, c: &mut ChargeUnderWay) -> Result<bool, Refusal> {
    let targets = c.targets;
    let target = &targets[0];
    match (c.options.reaction_at, c.options.defender_at) {
        (Some(at), None) => {
            // A stop the result asks for afterwards finds it already made.
            let side = side_of(ctx, target);
            super::opportunity::stop_reacted(ctx, &side, target, at, true, false);
        }
        // 16.5.6 with 13.1.1: a Line Extension met at an earlier hex of its own move stops
        // there, and forms its Square there (decision 0211).
        (Some(at), Some(ext)) if at != ext => {
            let side = side_of(ctx, target);
            super::opportunity::extension_stopped_by_reaction(ctx, &side, target, ext, at);
            c.options.defender_at = Some(at);
        }
        _ => {}
    }
    form_square_against_charge(
        ctx,
        target,
        c.options.defender_at,
        c.input.defender.formation,
    );
    read_again(ctx, c)?;
    Ok(true)
}

/// The target — a unit, or a Line Extension in its own hex (13.2.1, decision 0198) — forms
/// Square against the charge with no battery firing at it inside the charge (no
/// `--square-fire`, 17.4.6): the case [`square_first`] carries out, in the game and in its odds.
fn squares_unfired(options: &CombatOptions, input: &ChargeInput) -> bool {
    options.square_fire.is_empty() && forms_square(input)
}

/// 16.2.1: whether the charge's target forms Square against it — it chose to and may: infantry,
/// not Disorganized or Routed, not already in Square, not forbidden (8.3.1.2, 16.5.11,
/// 16.2.7.4). The combat core's own test (`charge::form_square`).
fn forms_square(input: &ChargeInput) -> bool {
    let d = &input.defender;
    input.decisions.form_square
        && d.kind.is_infantry()
        && !input.square_forbidden
        && !matches!(
            d.morale_state,
            MoraleState::Disorganized | MoraleState::Routed
        )
        && d.formation != crate::scenario::UnitFormation::Square
}

/// The charge's `input` read again from the game after the target formed Square (and was fired
/// on, 17.4.6): its formation, Morale State and losses, and the arc it is charged through (a
/// Square has no flank or rear, 10.0); the target's decision to form Square spent.
fn read_again(ctx: &mut Ctx, c: &mut ChargeUnderWay) -> Result<(), Refusal> {
    let mut goes_on = c.kind.clone();
    if let CombatKind::Charge {
        form_square,
        square_undecided,
        ..
    } = &mut goes_on
    {
        *form_square = false;
        *square_undecided = false;
    }
    let (_, _, e, _) = engage(ctx, &goes_on, c.chargers, c.targets, &c.options)?;
    let decisions = c.input.decisions;
    // The arc it is charged through is read again too: a Square has no flank or rear (10.0).
    c.readback.aspects.clear();
    *c.input = charge_input(ctx, e, &goes_on, c.readback)?;
    c.input.decisions = ChargeDecisions {
        form_square: false,
        ..decisions
    };
    Ok(())
}

/// A charge under way while its target forms Square (and is fired on, 17.4.6): what
/// [`square_first`], [`square_fire_first`] and [`read_again`] read and rewrite — the charge as
/// asked, and its input to the combat core and readback so far.
struct ChargeUnderWay<'a> {
    kind: &'a CombatKind,
    chargers: &'a [String],
    targets: &'a [String],
    /// The charge's options; a Line Extension stopped where a Reaction Charge met it is then
    /// charged there (`defender_at`, decision 0211).
    options: CombatOptions,
    input: &'a mut ChargeInput,
    readback: &'a mut CombatReadback,
}

/// 16.2.1: "Square forming is automatic (see 8.3)": the target of a charge forms Square,
/// `formation-changed` to Square for 0 MP (rule 16.2.1), seen by its side. Its formation change
/// is not offered to the enemy's batteries or cavalry afterwards: the Opportunity Fire it
/// generates is fired inside the charge (17.4.6, `--square-fire`). In an enemy Zone of
/// Influence it costs a Morale State: 11.3.1 "A unit changes formation in a Zone of Influence
/// (including Square formation in reaction to a Cavalry Charge)". A Line Extension charged in
/// its own hex (`extension`) forms its own Square (13.2.1: "Line Extensions CAN form Square as a
/// reaction to Cavalry Charges"; 8.3: "independently of their parent"), and the Morale State
/// 11.3.1 costs it is its own (13.1.2, 13.3.1). Decisions 0194, 0195, 0198.
fn form_square_against_charge(
    ctx: &mut Ctx,
    target: &str,
    extension: Option<Hex>,
    from: crate::scenario::UnitFormation,
) {
    let side = side_of(ctx, target);
    ctx.emit_side(
        &side,
        EventKind::FormationChanged {
            unit: target.to_string(),
            from,
            to: crate::scenario::UnitFormation::Square,
            half_mp: 0,
            rule: "16.2.1".into(),
            extension,
        },
    );
    // Its move, if it was moving, has ended (16.5.6): nothing left to halve (11.3.2).
    let at = extension.or_else(|| ctx.state.positions.get(target).copied());
    if let Some(at) = at
        && super::zones::enemy_zoi(ctx, &side).contains(&at)
    {
        super::zones::degrade_part(
            ctx,
            &side,
            target,
            extension,
            "11.3.1",
            format!("changed formation in an enemy Zone of Influence at {at}"),
            0,
        );
    }
}

/// The side `unit` fights for ("" if the scenario has no such unit).
fn side_of(ctx: &Ctx, unit: &str) -> String {
    ctx.eng
        .scenario
        .unit(unit)
        .map(|u| u.side.clone())
        .unwrap_or_default()
}

/// A charge's checks and its input to the combat core, the arc and a Line's flanks read from
/// facing and the map (10.0, chart p4 note 1).
fn charge_input(
    ctx: &Ctx,
    e: Engagement,
    kind: &CombatKind,
    readback: &mut CombatReadback,
) -> Result<ChargeInput, Refusal> {
    let CombatKind::Charge {
        form_square,
        follow_ons,
        reaction,
        follow_on,
        square_undecided,
    } = *kind
    else {
        unreachable!("charge() is called for charges only");
    };
    if e.night {
        return Err(Refusal::new(
            "night-no-charge",
            "27.1.3",
            "there are no cavalry charges at night",
            "",
        ));
    }
    if e.no_orders && !reaction {
        return Err(Refusal::new(
            "no-orders-no-attack",
            "6.3.4",
            "a command in No Orders Status may not start a charge",
            "only Reaction Charges (--reaction)",
        ));
    }
    let s = ctx.eng.scenario;
    let mut defender = e.defender;
    // 16.4 box, 16.4.3.2: charged cavalry that does not charge itself is stationary (a
    // Reaction Charge is its own command, with the roles reversed, 16.4.1.2); a charging
    // stack met by a Reaction Charge is not.
    defender.stationary = defender.kind.is_cavalry() && !reaction;
    // 10.0, chart p4: "Attacked in rear" −2; a Line whose flanks are not secure −1 (note 1).
    let line = defender.kind == UnitKind::Infantry
        && defender.formation == crate::scenario::UnitFormation::Line;
    let (arc, secure, aspect) =
        super::aspect::read(ctx, &e.defenders[0], e.d_hex, e.a_hexes[0], line, e.aspect);
    defender.attacked_in_rear = arc == crate::movement::facing::Arc::Rear;
    defender.line_flanks_secure = secure.unwrap_or(false);
    readback.aspects.push(aspect);
    // 16.5.11, 22.1.4: infantry that triggered a Reaction Charge from adjacent cavalry "can not
    // form square as part of the following charge resolution", unless already in Square.
    let square_forbidden = reaction
        && defender.kind == UnitKind::Infantry
        && e.a_hexes[0].distance(e.d_hex) == 1
        && defender.formation != crate::scenario::UnitFormation::Square;
    if square_forbidden && form_square {
        return Err(Refusal::new(
            "no-square",
            "16.5.11",
            format!(
                "{} triggered this Reaction Charge next to the cavalry at {}: it may not form Square against it (22.1.4) [hex {}]",
                e.defenders[0], e.a_hexes[0], e.d_hex
            ),
            "repeat with --no-square",
        ));
    }
    let input = ChargeInput {
        attacker: e.attacker,
        defender,
        // 26.4, 26.6: the nations come from the scenario.
        attacker_nation: cavalry_nation(s, &e.attackers[0]),
        defender_cossack: s.unit(&e.defenders[0]).is_some_and(|u| u.cossack),
        night: e.night,
        follow_on,
        reaction,
        square_forbidden,
        defender_was_charging: false,
        decisions: ChargeDecisions {
            form_square,
            // 16.5.4: no Follow-on Charges after a Reaction Charge.
            follow_ons_same_target: if reaction { 0 } else { follow_ons },
            defender_checks_second: false,
        },
        skip_commander_loss: false,
    };
    // 16.2.1: forming Square is the defender's decision; the game asks rather than assume.
    if square_undecided
        && crate::combat::charge::decisions_needed(&input)
            .contains(&crate::combat::charge::Decision::FormSquare)
    {
        return Err(Refusal::new(
            "square-undecided",
            "16.2.1",
            format!(
                "{} may form Square against this charge, and nobody has said whether it does",
                e.defenders[0]
            ),
            "ask the defending player, then repeat with --form-square or --no-square",
        ));
    }
    Ok(input)
}

/// Skirmisher fire (18).
fn skirmisher_fire(
    ctx: &mut Ctx,
    e: Engagement,
    quality: SkirmisherQuality,
    readback: &mut CombatReadback,
) -> Result<Resolved, Refusal> {
    let s = ctx.eng.scenario;
    let (night, d_hex, defender, attackers, a_hexes) =
        (e.night, e.d_hex, e.defender, e.attackers, e.a_hexes);
    let quality = &quality;
    let tables = ctx.eng.combat;
    if night {
        return Err(Refusal::new(
            "night-no-fire",
            "27.1.4",
            "no Skirmisher fire at night",
            "",
        ));
    }
    let mut firers = Vec::new();
    for (id, hex) in attackers.iter().zip(&a_hexes) {
        let u = s.unit(id).expect("checked by firers()");
        if u.kind != UnitKind::Skirmisher {
            return Err(Refusal::new(
                "not-skirmisher",
                "18",
                format!("`{id}` is not a skirmisher"),
                "only skirmishers make skirmisher fire",
            ));
        }
        let st = ctx.state.units.get(id).cloned().unwrap_or_default();
        if st.morale <= MoraleState::Disorganized {
            return Err(Refusal::new(
                "may-not-fire",
                "18.4",
                format!("`{id}` is Disorganized or Routed and may not fire"),
                "rally it first (21.5)",
            ));
        }
        if hex.distance(d_hex) > 1 {
            return Err(Refusal::new(
                "out-of-range",
                "18.1",
                format!("`{id}` at {hex} is not adjacent to {d_hex}"),
                "skirmishers fire at adjacent hexes",
            ));
        }
        firers.push(SkirmisherFirer {
            quality: *quality,
            full: st.track.remaining() == st.track.boxes,
        });
    }
    let input = crate::combat::fire::SkirmisherFireInput {
        firers,
        // 18.3: the target hex's Skirmishers deduct their Fire Value.
        target_skirmishers_halves: defender.skirmisher_fv_halves,
        target: defender,
        target_in_cover: terrain_at(s, d_hex) != Terrain::Clear,
        night,
        skip_commander_loss: false,
    };
    let r = crate::combat::fire::resolve_skirmisher_fire(tables, &input, ctx.dice)
        .map_err(combat_error)?;
    readback.skirmisher_fire_value = r.fire_value;
    readback.skirmisher_modifiers = r.modifiers.clone();
    readback.skirmisher_roll = r.roll;
    Ok(Resolved::new(
        String::from(if r.hit { "hit" } else { "miss" }),
        SideResult::default(),
        r.target,
        r.trace,
        Vec::new(),
    ))
}

/// Artillery fire (17), and Opportunity Fire with Cannister (17.4.9).
fn artillery_fire(
    ctx: &mut Ctx,
    e: Engagement,
    cannister: bool,
    readback: &mut CombatReadback,
) -> Result<Resolved, Refusal> {
    let input = artillery_fire_input(ctx, &e, cannister, readback)?;
    let r = resolve_artillery_fire(ctx.eng.combat, &input, ctx.dice).map_err(combat_error)?;
    readback.fire_groups = r.groups.clone();
    Ok(Resolved::new(
        String::from("fire"),
        SideResult::default(),
        r.target,
        r.trace,
        r.notes,
    ))
}

/// Artillery fire's checks and its input to the combat core, each battery's arc read from
/// facing (17.1.6, 17.4.9.2).
fn artillery_fire_input(
    ctx: &Ctx,
    e: &Engagement,
    cannister: bool,
    readback: &mut CombatReadback,
) -> Result<ArtilleryFireInput, Refusal> {
    let s = ctx.eng.scenario;
    let (night, d_hex, defender, attackers, a_hexes) = (
        e.night,
        e.d_hex,
        e.defender.clone(),
        e.attackers,
        e.a_hexes.clone(),
    );
    let cannister = &cannister;
    if night && !cannister {
        return Err(Refusal::new(
            "night-no-fire",
            "27.1.4",
            "no artillery fire at night except Cannister",
            "",
        ));
    }
    let mut batteries = Vec::new();
    let target_line = defender.kind == UnitKind::Infantry
        && defender.formation == crate::scenario::UnitFormation::Line;
    let (mut all_flank, mut flank_entry) = (true, false);
    for (id, hex) in attackers.iter().zip(&a_hexes) {
        let u = s.unit(id).expect("checked by firers()");
        if !u.kind.is_artillery() {
            return Err(Refusal::new(
                "not-artillery",
                "17",
                format!("`{id}` is not artillery"),
                "only batteries fire",
            ));
        }
        let st = ctx.state.units.get(id).cloned();
        if st
            .as_ref()
            .is_some_and(|x| x.morale <= MoraleState::Disorganized)
            || u.formation == crate::scenario::UnitFormation::Limbered
        {
            return Err(Refusal::new(
                "may-not-fire",
                "17.1.1",
                format!("`{id}` is Limbered, Disorganized or Routed and may not fire"),
                "only Unlimbered artillery in a better Morale State fires",
            ));
        }
        let range = hex.distance(d_hex);
        if *cannister && range > 1 {
            return Err(Refusal::new(
                "not-entering",
                "17.4.9",
                format!("`{id}` at {hex} is not next to {d_hex}"),
                "Cannister is fired at units entering the battery's hex",
            ));
        }
        let (arc, aspect) = fire_aspect(ctx, e, id, *hex, *cannister)?;
        all_flank &= arc == crate::movement::facing::Arc::Flank;
        flank_entry |= *cannister && arc == crate::movement::facing::Arc::Flank;
        readback.aspects.push(aspect);
        batteries.push(Battery {
            gun_points: st.map_or(u.gun_points.unwrap_or(5), |x| x.track.remaining()),
            heavy: matches!(
                u.kind,
                UnitKind::ArtilleryHeavyFoot | UnitKind::ArtilleryHeavyHorse
            ),
            range: u8::try_from(range).unwrap_or(u8::MAX),
        });
    }
    let input = ArtilleryFireInput {
        batteries,
        target: defender,
        target_in_cover: terrain_at(s, d_hex) != Terrain::Clear,
        // 17.1.6: fire entering a Line from its flank hex (all batteries of the fire).
        flanked_line: !cannister && target_line && all_flank,
        cannister: *cannister,
        // 17.4.9.2: Cannister at a unit entering through the battery's flank hexside −1.
        flank_entry,
        case_shot_vs_artillery: false,
        stacked_with_high_morale: false,
        night,
        skip_commander_loss: false,
    };
    Ok(input)
}

/// Which way one battery's fire meets its target (17.1.6), or, for Cannister, through which
/// arc of the battery the target enters (17.4.9.2: from the rear, no fire at all).
fn fire_aspect(
    ctx: &Ctx,
    e: &Engagement,
    battery: &str,
    at: Hex,
    cannister: bool,
) -> Result<(crate::movement::facing::Arc, super::aspect::AspectReadback), Refusal> {
    use crate::movement::facing::Arc;
    if !cannister {
        let (arc, _, r) = super::aspect::read(ctx, &e.defenders[0], e.d_hex, at, false, e.aspect);
        return Ok((arc, r));
    }
    let (arc, _, r) = super::aspect::read(ctx, battery, at, e.d_hex, false, e.aspect);
    if arc == Arc::Rear {
        return Err(Refusal::new(
            "rear-entry",
            "17.4.9.2",
            format!(
                "`{battery}` at {at} faces {}: a unit entering from {} comes through its rear, and \
                 \"artillery can never fire against attackers entering the artillery's hex from the rear\"",
                r.facing, e.d_hex
            ),
            "the umpire may rule the arc otherwise with --attack-arc and --ruling",
        ));
    }
    Ok((arc, r))
}

/// Losses, wrecks and lost commanders of one side, seen by that side only (4.0). A Skirmisher
/// that took some of the Permanent Casualties (20.2) has its own losses; Stragglers go to the
/// top infantry unit of the stack (20.3); with `others_rout` (16.4.2.1) the stack's
/// non-cavalry units Rout.
fn apply(
    ctx: &mut Ctx,
    side: &str,
    units: &[String],
    r: &SideResult,
    skirmisher: Option<&(String, u8)>,
    others_rout: bool,
    at_extension: Option<Hex>,
) {
    let lead = units[0].as_str();
    let s = ctx.eng.scenario;
    // Talavera T2.2b: the Spanish take every Morale Change one worse once the British crack.
    let morale_after =
        super::special_rules::spanish_unease(ctx, lead, r.morale_before, r.morale_after);
    let mut track = r.aftermath.track.unwrap_or_else(|| {
        ctx.state
            .units
            .get(lead)
            .map(|u| u.track)
            .unwrap_or_default()
    });
    let gun_losses = gun_losses(ctx, units, r, track);
    // 14.3: what the Lead Unit has no boxes for passes to the next units of the stack.
    let before = ctx
        .state
        .units
        .get(lead)
        .map(|u| u.track)
        .unwrap_or_default();
    // 20.3: "Apply Straggler results to the top infantry unit of the stack, whether it was the
    // Lead Unit or not" — the first infantry unit named.
    let lead_infantry = s.unit(lead).is_some_and(|u| u.kind.is_infantry());
    let straggler_taker = if lead_infantry {
        None
    } else {
        units
            .iter()
            .skip(1)
            .find(|id| s.unit(id).is_some_and(|u| u.kind.is_infantry()))
    };
    let lead_stragglers = if lead_infantry { r.loss.stragglers } else { 0 };
    let (mut permanent, stragglers, overflow) = lead_takes(
        before,
        r.loss.permanent - r.aftermath.skirmisher_absorbed,
        lead_stragglers,
    );
    if let Some((_, lost)) = gun_losses.iter().find(|(id, _)| id == lead) {
        track.permanent = track.permanent.saturating_add(*lost);
        permanent = permanent.saturating_add(*lost);
    }
    let losses = UnitLosses {
        permanent,
        stragglers,
        morale_change: r.loss.morale_change,
        morale_after,
        retreat: r.retreat,
        blown: r.blown,
        track,
        extension: at_extension,
    };
    ctx.emit_side(
        side,
        EventKind::UnitLossesTaken {
            unit: lead.to_string(),
            losses,
        },
    );
    if let Some(id) = straggler_taker.filter(|_| r.loss.stragglers > 0) {
        let mut t = ctx.state.units.get(id).map(|u| u.track).unwrap_or_default();
        let (_, st, _) = lead_takes(t, 0, r.loss.stragglers);
        t.stragglers = t.stragglers.saturating_add(st);
        let extra = UnitLosses {
            permanent: 0,
            stragglers: st,
            morale_change: r.loss.morale_change,
            morale_after,
            retreat: r.retreat,
            blown: false,
            track: t,
            extension: None,
        };
        emit_stack_mate(ctx, side, id, extra);
    }
    pass_on_losses(ctx, side, units, skirmisher, r, morale_after, overflow);
    if let Some((sk, _)) = skirmisher.filter(|_| r.aftermath.skirmisher_absorbed > 0) {
        let mut track = ctx.state.units.get(sk).map(|u| u.track).unwrap_or_default();
        track.permanent = track
            .permanent
            .saturating_add(r.aftermath.skirmisher_absorbed.min(track.remaining()));
        let l = UnitLosses {
            permanent: r.aftermath.skirmisher_absorbed,
            stragglers: 0,
            morale_change: r.loss.morale_change,
            // 21.1: a Morale Change affects the whole stack.
            morale_after,
            retreat: r.retreat,
            blown: false,
            track,
            extension: None,
        };
        emit_stack_mate(ctx, side, sk, l);
    }
    let routs = |id: &str| others_rout && s.unit(id).is_some_and(|u| !u.kind.is_cavalry());
    for (id, lost) in gun_losses.iter().filter(|(id, _)| id != lead) {
        let mut track = ctx.state.units.get(id).map(|u| u.track).unwrap_or_default();
        track.permanent = track.permanent.saturating_add(*lost);
        let l = UnitLosses {
            permanent: *lost,
            stragglers: 0,
            morale_change: r.loss.morale_change,
            // 21.1: a Morale Change affects the whole stack; 16.4.2.1: or it Routs.
            morale_after: if routs(id) {
                MoraleState::Routed
            } else {
                morale_after
            },
            retreat: if routs(id) {
                crate::combat::Retreat::Rout
            } else {
                r.retreat
            },
            blown: false,
            track,
            extension: None,
        };
        emit_stack_mate(ctx, side, id, l);
    }
    // 16.4.2.1: "these units become Routed and retreat 6 hexes".
    for id in units.iter().skip(1) {
        if routs(id) && !gun_losses.iter().any(|(g, _)| g == id) {
            let track = ctx.state.units.get(id).map(|u| u.track).unwrap_or_default();
            let l = UnitLosses {
                permanent: 0,
                stragglers: 0,
                morale_change: 0,
                morale_after: MoraleState::Routed,
                retreat: crate::combat::Retreat::Rout,
                blown: false,
                track,
                extension: None,
            };
            emit_stack_mate(ctx, side, id, l);
        }
    }
    wrecks_and_commanders(ctx, side, lead, r);
}

/// 21.4.6, 23.1.1: one Gun Loss roll for the stack; the gun points go from its batteries in
/// the order named (all of them on an "All"). `lead_track`: the Lead Unit's track after the
/// combat.
fn gun_losses(
    ctx: &Ctx,
    units: &[String],
    r: &SideResult,
    lead_track: LossTrack,
) -> Vec<(String, u8)> {
    let s = ctx.eng.scenario;
    let mut out: Vec<(String, u8)> = Vec::new();
    let Some(g) = r.aftermath.gun_loss else {
        return out;
    };
    let mut left = match g {
        GunLoss::All => u8::MAX,
        GunLoss::Points(n) => n,
    };
    for id in units
        .iter()
        .filter(|id| s.unit(id).is_some_and(|u| u.kind.is_artillery()))
    {
        let remaining = if *id == units[0] {
            lead_track.remaining()
        } else {
            ctx.state.units.get(id).map_or(0, |u| u.track.remaining())
        };
        let lost = left.min(remaining);
        left -= lost;
        if lost > 0 {
            out.push((id.clone(), lost));
        }
    }
    out
}

/// The losses of a unit of the stack other than the Lead Unit, and its wreck (21.6).
fn emit_stack_mate(ctx: &mut Ctx, side: &str, id: &str, losses: UnitLosses) {
    let wrecked = losses.track.wrecked_by_losses();
    ctx.emit_side(
        side,
        EventKind::UnitLossesTaken {
            unit: id.to_string(),
            losses,
        },
    );
    // 21.6: a brigade its own losses wreck (batteries and Skirmishers are no commands).
    if wrecked && ctx.state.commands.get(id).is_some_and(|c| !c.wrecked) {
        ctx.emit_side(
            side,
            EventKind::WreckedChanged {
                command: id.to_string(),
                wrecked: true,
            },
        );
    }
}

/// A brigade wrecked by its losses, its division when enough of its brigades are (21.6), and
/// lost commanders (25).
fn wrecks_and_commanders(ctx: &mut Ctx, side: &str, lead: &str, r: &SideResult) {
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

/// The side's units on the map that may roll or change in the Rally Phase (20.3, 21.5, 22.2):
/// with Stragglers, out of Normal morale or Blown. Artillery rallies too: 21.5 rallies "friendly
/// stacks ... in any Morale State other than Normal", and batteries are Shaken, Disorganized
/// and Routed like any unit (16.4.2.1, 21.4.6; decision 0168).
fn rally_candidates(ctx: &Ctx, side: &str) -> Vec<String> {
    let s = ctx.eng.scenario;
    ctx.state
        .units
        .iter()
        // Speed (issue 16): only a unit with Stragglers, out of Normal morale or Blown can roll
        // or change below; the others are left out before the scenario lookups. Same events.
        .filter(|(_, st)| st.track.stragglers > 0 || st.morale != MoraleState::Normal || st.blown)
        .map(|(id, _)| id)
        .filter(|id| s.unit(id).is_some_and(|u| u.side == side))
        .filter(|id| ctx.state.positions.contains_key(*id))
        .cloned()
        .collect()
}

/// 20.3.2: eliminated infantry of the phasing side whose turn on the Turn Record Track has come
/// tries Straggler Recovery off the map (decision 0163). It is tried at the hex of its
/// formation's hub (its division's commander, its corps' or army's HQ), where it is In Command,
/// with chart p6's conditions and modifiers for that hex (no enemy unit within 4 hexes, 2 at
/// night; its command not under Engage Orders); if the hub is off the map or the hex fails a
/// condition, it cannot try this turn and nothing is rolled. A pass returns it there.
pub(super) fn eliminated_recovery(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
    use crate::combat::morale::{StragglerRecoveryInput, straggler_recovery};
    let s = ctx.eng.scenario;
    let due: Vec<String> = ctx
        .state
        .eliminated
        .iter()
        .filter(|(id, turn)| **turn <= ctx.state.turn && s.unit(id).is_some_and(|u| u.side == side))
        .map(|(id, _)| id.clone())
        .collect();
    for id in due {
        let Some(u) = s.unit(&id) else { continue };
        let stragglers = ctx.state.units.get(&id).map_or(0, |x| x.track.stragglers);
        let hub = oob::parent(&ctx.state, &id).and_then(|p| oob::hub_piece(s, &ctx.state, &p));
        let Some(hex) = hub.and_then(|h| pos(ctx, &h)) else {
            continue;
        };
        let posture = ctx.state.current_posture(&id);
        let commanders = commanders_at(ctx, side, hex);
        let input = StragglerRecoveryInput {
            morale_rating: u.morale.unwrap_or(crate::scenario::MoraleRating::C),
            // Five turns off the map: it tries in Normal morale (decision 0163).
            morale_state: MoraleState::Normal,
            stragglers,
            enemy_distance: enemy_distance(ctx, side, hex),
            night: ctx.night(),
            in_command: true,
            under_engage_orders: posture == Some(crate::rules::Posture::Engage),
            no_orders: posture.is_none(),
            spent_mp: false,
            in_combat: false,
            fortified_or_village: terrain_at(s, hex) != Terrain::Clear,
            commanders,
        };
        let r = straggler_recovery(ctx.eng.combat, &input, ctx.dice).map_err(|e| match e {
            crate::combat::CombatError::Dice(d) => Refusal::from(d),
            other => Refusal::new("illegal-combat", "20.3.2", other.to_string(), ""),
        })?;
        if r.check.is_none() {
            continue;
        }
        ctx.emit_side(
            side,
            EventKind::EliminatedUnitRecovery {
                unit: id.clone(),
                at: hex,
                stragglers_recovered: r.recovered.min(stragglers),
                dice: r.trace.dice,
            },
        );
    }
    Ok(())
}

/// The Rally Phase of the phasing player (5.1 step 6): Straggler Recovery (20.3.2; barred under
/// Engage orders, easier in No Orders), Rally (21.5, a Routed stack always tries) and Cavalry
/// Recovery (22.2.3), for every unit on the map; then the retreat owed by each Routed stack
/// still within 6 hexes of the enemy (21.5 F). `out_of_command` comes from this turn's command
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
    let units = rally_candidates(ctx, side);
    let dice_error = |e: crate::combat::CombatError| match e {
        crate::combat::CombatError::Dice(d) => Refusal::from(d),
        other => Refusal::new("illegal-combat", "20–22", other.to_string(), ""),
    };
    // Speed (issue 16): the enemy's Zones of Influence only when some unit may rally.
    let zoi = if units.is_empty() {
        Default::default()
    } else {
        super::zones::enemy_zoi(ctx, side)
    };
    for id in units {
        let u = s.unit(&id).expect("filtered above");
        let st = ctx.state.units[&id].clone();
        // Speed (issue 16): a unit with no Stragglers, in Normal morale and not Blown cavalry
        // rolls nothing below and is unchanged, so it is skipped before the costly lookups
        // (commanders, enemy distance). Same events as without the skip.
        if st.track.stragglers == 0
            && st.morale == MoraleState::Normal
            && !(st.blown && u.kind.is_cavalry())
        {
            continue;
        }
        let hex = ctx.state.positions[&id];
        let commanders = commanders_at(ctx, side, hex);
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
        // 20.3: cavalry takes no Stragglers, and recovers none unless the Cavalry Recovery
        // random event lets it roll as if it were infantry this turn (29.1).
        // Artillery has Gun Points, never Stragglers (20.3: "Only infantry units").
        let may_recover = !u.kind.is_artillery()
            && (!u.kind.is_cavalry() || super::random_events::cavalry_recovers(ctx, side));
        if st.track.stragglers > 0 && may_recover {
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
        // 21.5 A–F: any state but Normal rallies (Blood Lust goes away as in A and B).
        if st.morale != MoraleState::Normal {
            let input = RallyInput {
                morale_rating: rating,
                morale_state: st.morale,
                adjacent_to_enemy: distance <= 1,
                // 11.4: in an enemy Zone of Influence (11: frontal hexes of enemy infantry).
                in_enemy_zoi: zoi.contains(&hex),
                // 21.5 F (decision 0164): the same reading as the retreat recorded below.
                enemy_within_6: super::retreat::rally_rout_due(ctx, side, &id, hex).is_some(),
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
        }
        // 22.2.3: the Cavalry Recovery Segment follows the rally, so cavalry that has just
        // rallied to Normal may try at once (the 22.2 example: "recovers from being SH and can
        // then try to recover from being Blown").
        if after.blown && u.kind.is_cavalry() && after.morale >= MoraleState::Normal {
            let (ok, _, trace) = cavalry_recovery(t, rating, after.morale, &commanders, ctx.dice)
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
                extension: None,
            },
        );
        // 21.6.3: a brigade recovers from Wrecked when it rallies from Routed or recovers
        // enough Stragglers; its division too, when too few of its brigades stay Wrecked.
        let recovered_from_rout = st.morale == MoraleState::Routed && after.morale != st.morale;
        if (recovered > 0 || recovered_from_rout)
            && after.morale != MoraleState::Routed
            && !after.track.wrecked_by_losses()
            && ctx.state.commands.get(&id).is_some_and(|c| c.wrecked)
        {
            ctx.emit_side(
                side,
                EventKind::WreckedChanged {
                    command: id.clone(),
                    wrecked: false,
                },
            );
            let division = oob::parent(&ctx.state, &id)
                .filter(|p| oob::echelon(s, p) == Some(crate::scenario::Echelon::Division))
                .filter(|p| ctx.state.commands.get(p).is_some_and(|c| c.wrecked));
            if let Some(div) = division {
                let (brigades, wrecked) = division_count(ctx, &div);
                if wrecked < division_wreck_at(s, t, &div, brigades) {
                    ctx.emit_side(
                        side,
                        EventKind::WreckedChanged {
                            command: div,
                            wrecked: false,
                        },
                    );
                }
            }
        }
    }
    extensions_rally(ctx, side)?;
    // 21.5 F: the Routed stacks still near the enemy retreat (decision 0164).
    super::retreat::rally_rout_retreats(ctx, side);
    Ok(())
}

/// 21.5 for the side's Line Extensions: an extension keeps its own Morale State (13.1.2; 13.3.1
/// "Morale results affect only the parent or Line Extension actually taking the result") and has
/// its parent's "morale, rally … characteristics" (13.1.1), so one Shaken or Disorganized rolls
/// to rally like a unit, at its own hex, with its parent's Morale Rating. A Routed extension
/// does not exist (13.3.1: the whole unit collapses into the parent). Decision 0209.
fn extensions_rally(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
    use crate::combat::morale::{RallyInput, rally};
    let s = ctx.eng.scenario;
    let mut parts: Vec<(String, Hex, MoraleState)> = ctx
        .state
        .movement
        .iter()
        .filter(|(id, _)| s.unit(id).is_some_and(|u| u.side == side))
        .flat_map(|(id, m)| {
            m.extension_parts
                .iter()
                .filter(|p| !matches!(p.morale, MoraleState::Normal | MoraleState::Routed))
                .map(move |p| (id.clone(), p.hex, p.morale))
        })
        .collect();
    if parts.is_empty() {
        return Ok(());
    }
    // The state's map is ordered by unit id; the hex orders one unit's extensions.
    parts.sort_by_key(|(id, h, _)| (id.clone(), *h));
    let zoi = super::zones::enemy_zoi(ctx, side);
    for (id, hex, morale) in parts {
        let Some(u) = s.unit(&id) else { continue };
        let distance = enemy_distance(ctx, side, hex);
        let input = RallyInput {
            morale_rating: u.morale.unwrap_or(crate::scenario::MoraleRating::C),
            morale_state: morale,
            adjacent_to_enemy: distance <= 1,
            in_enemy_zoi: zoi.contains(&hex),
            enemy_within_6: false,
            // An extension stands in Line, or in the Square it formed (13.2.1).
            in_village_not_line: terrain_at(s, hex) == Terrain::Village
                && super::extensions::part(&ctx.state, &id, hex)
                    .is_some_and(|p| p.formation() != crate::scenario::UnitFormation::Line),
            attempt_rally_routed: false,
            cavalry: false,
            commanders: commanders_at(ctx, side, hex),
        };
        let r = rally(ctx.eng.combat, &input, ctx.dice).map_err(|e| match e {
            crate::combat::CombatError::Dice(d) => Refusal::from(d),
            other => Refusal::new("illegal-combat", "21.5", other.to_string(), ""),
        })?;
        if r.trace.dice.is_empty() && r.morale_after == morale {
            continue;
        }
        let blown = ctx.state.units.get(&id).is_some_and(|x| x.blown);
        ctx.emit_side(
            side,
            EventKind::UnitRallied {
                unit: id.clone(),
                stragglers_recovered: 0,
                morale_after: r.morale_after,
                blown,
                dice: r.trace.dice,
                extension: Some(hex),
            },
        );
    }
    Ok(())
}
