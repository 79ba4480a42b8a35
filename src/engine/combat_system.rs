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

use super::command::{CombatKind, CombatOptions};
use super::event::{EventKind, Visibility};
use super::oob;
use super::state::{CommandStatus, Step, UnitState};
use super::{Ctx, Refusal};
use crate::combat::charge::{ChargeDecisions, ChargeInput, resolve_charge};
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
            _ => current_size(t, &state_of(id).track),
        })
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

/// Resolve a combat (15, 16, 17, 18): started by the phasing player, or Opportunity Fire with
/// Cannister by either side (17.4, 17.4.9).
pub(super) fn resolve(
    ctx: &mut Ctx,
    kind: &CombatKind,
    attackers: &[String],
    defenders: &[String],
    options: &CombatOptions,
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
    let fire = matches!(
        kind,
        CombatKind::ArtilleryFire { .. } | CombatKind::SkirmisherFire { .. }
    );
    let (a_side, a_hexes) = if fire {
        firers(ctx, attackers)?
    } else {
        let (side, hex) = stack(ctx, attackers, "attacking")?;
        (side, vec![hex; attackers.len()])
    };
    let a_hex = a_hexes[0];
    let (d_side, d_hex) = stack(ctx, defenders, "defending")?;
    // 17.4, 17.4.9: Cannister is Opportunity Fire at units entering the battery's hex; either
    // side's artillery fires it, in the other player's turn too.
    let opportunity = matches!(kind, CombatKind::ArtilleryFire { cannister: true });
    if a_side != ctx.state.phasing() && !opportunity {
        return Err(Refusal::new(
            "not-phasing",
            "5.1",
            format!(
                "{what} is started by the phasing player ({})",
                ctx.state.phasing()
            ),
            "the other side fires only Opportunity Fire with Cannister (--cannister, 17.4.9)",
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
    let absorbing = absorbing_skirmishers(ctx, options, attackers, defenders)?;
    let s = ctx.eng.scenario;
    let night = ctx.night();
    let distance = a_hex.distance(d_hex);
    let mut attacker = combatant(ctx, attackers, a_hex, options.attacker_quality);
    let mut defender = combatant(ctx, defenders, d_hex, options.defender_quality);
    if let Some((_, n)) = &absorbing[0] {
        attacker.skirmisher_absorbs = *n;
    }
    if let Some((_, n)) = &absorbing[1] {
        defender.skirmisher_absorbs = *n;
    }
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
    let mut readback = CombatReadback::default();
    let (label, a_res, d_res, trace, notes) = match kind {
        // T2.2a: Spanish cavalry must pass a Morale Check to charge cavalry; failing, it stays.
        CombatKind::Charge { .. }
            if super::special_rules::spanish_cavalry_balks(
                ctx, &attacker, attackers, defenders,
            )? =>
        {
            return Ok(());
        }
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
            readback.checks = r.checks.clone();
            readback.may_rush = r.may_rush;
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
                    "27.1.3",
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
            // 16.4 box, 16.4.3.2: charged cavalry that does not charge itself is stationary (a
            // Reaction Charge is its own command, with the roles reversed, 16.4.1.2); a charging
            // stack met by a Reaction Charge is not.
            defender.stationary = defender.kind.is_cavalry() && !*reaction;
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
            readback.checks = r.checks.clone();
            readback.breakoff_check = r.breakoff_check.clone();
            readback.defender_odd_roll = r.defender_odd_roll;
            readback.formed_square = r.formed_square;
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
                flanked_line: false,
                cannister: *cannister,
                flank_entry: false,
                case_shot_vs_artillery: false,
                stacked_with_high_morale: false,
                night,
                skip_commander_loss: false,
            };
            let r = resolve_artillery_fire(tables, &input, ctx.dice).map_err(combat_error)?;
            readback.fire_groups = r.groups.clone();
            (
                String::from("fire"),
                SideResult::default(),
                r.target,
                r.trace,
                r.notes,
            )
        }
    };
    if !fire {
        readback.attacker = Some(SideReadback::of(&a_res));
    }
    readback.defender = Some(SideReadback::of(&d_res));
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
            readback: Some(Box::new(readback)),
        },
    );
    if !fire {
        apply(ctx, &a_side, attackers, &a_res, absorbing[0].as_ref());
    }
    apply(ctx, &d_side, defenders, &d_res, absorbing[1].as_ref());
    Ok(())
}

/// Losses, wrecks and lost commanders of one side, seen by that side only (4.0). A Skirmisher
/// that took some of the Permanent Casualties (20.2) has its own losses.
fn apply(
    ctx: &mut Ctx,
    side: &str,
    units: &[String],
    r: &SideResult,
    skirmisher: Option<&(String, u8)>,
) {
    let lead = units[0].as_str();
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
    // 21.4.6, 23.1.1: one Gun Loss roll for the stack; the gun points go from its batteries in
    // the order named (all of them on an "All").
    let s = ctx.eng.scenario;
    let mut gun_losses: Vec<(String, u8)> = Vec::new();
    if let Some(g) = r.aftermath.gun_loss {
        let mut left = match g {
            GunLoss::All => u8::MAX,
            GunLoss::Points(n) => n,
        };
        for id in units
            .iter()
            .filter(|id| s.unit(id).is_some_and(|u| u.kind.is_artillery()))
        {
            let remaining = if id == lead {
                track.remaining()
            } else {
                ctx.state.units.get(id).map_or(0, |u| u.track.remaining())
            };
            let lost = left.min(remaining);
            left -= lost;
            if lost > 0 {
                gun_losses.push((id.clone(), lost));
            }
        }
    }
    // 14.3: what the Lead Unit has no boxes for passes to the next units of the stack.
    let before = ctx
        .state
        .units
        .get(lead)
        .map(|u| u.track)
        .unwrap_or_default();
    let (mut permanent, stragglers, overflow) = lead_takes(
        before,
        r.loss.permanent - r.aftermath.skirmisher_absorbed,
        r.loss.stragglers,
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
    };
    ctx.emit_side(
        side,
        EventKind::UnitLossesTaken {
            unit: lead.to_string(),
            losses,
        },
    );
    pass_on_losses(ctx, side, units, skirmisher, r, morale_after, overflow);
    if let Some((sk, _)) = skirmisher.filter(|_| r.aftermath.skirmisher_absorbed > 0) {
        let now = ctx.state.units.get(sk).cloned().unwrap_or_default();
        let mut track = now.track;
        track.permanent = track
            .permanent
            .saturating_add(r.aftermath.skirmisher_absorbed.min(track.remaining()));
        ctx.emit_side(
            side,
            EventKind::UnitLossesTaken {
                unit: sk.clone(),
                losses: UnitLosses {
                    permanent: r.aftermath.skirmisher_absorbed,
                    stragglers: 0,
                    morale_change: r.loss.morale_change,
                    // 21.1: a Morale Change affects the whole stack.
                    morale_after,
                    retreat: r.retreat,
                    blown: false,
                    track,
                },
            },
        );
    }
    for (id, lost) in gun_losses.iter().filter(|(id, _)| id != lead) {
        let mut track = ctx.state.units.get(id).map(|u| u.track).unwrap_or_default();
        track.permanent = track.permanent.saturating_add(*lost);
        ctx.emit_side(
            side,
            EventKind::UnitLossesTaken {
                unit: id.clone(),
                losses: UnitLosses {
                    permanent: *lost,
                    stragglers: 0,
                    morale_change: r.loss.morale_change,
                    // 21.1: a Morale Change affects the whole stack.
                    morale_after,
                    retreat: r.retreat,
                    blown: false,
                    track,
                },
            },
        );
    }
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
    let zoi = super::zones::enemy_zoi(ctx, side);
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
        // 20.3: cavalry takes no Stragglers, and recovers none unless the Cavalry Recovery
        // random event lets it roll as if it were infantry this turn (29.1).
        let may_recover = !u.kind.is_cavalry() || super::random_events::cavalry_recovers(ctx, side);
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
    Ok(())
}
