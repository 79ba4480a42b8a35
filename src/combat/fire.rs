//! Artillery fire (rule 17: Fire Values, results, modifiers, the 17.1.7 morale bonus, Grand
//! Batteries, Opportunity Fire and Cannister) and Skirmisher fire (rule 18).
//!
//! Owns: one fire combat from "these guns fire at that stack" to "results applied". Must not:
//! decide whether fire is allowed by position (range, LOS, arcs, Grand Battery nationality —
//! the engine decides; 17.3 grouping of the guns that do fire is done here), or keep state.
//!
//! Dice order: for each fire group (Light groups, then Heavy, 5 GP at a time, 17.3.6) one roll,
//! two for Cannister (17.4.9), all on [`Purpose::Fire`]; then Commander Loss Checks.

use serde::{Deserialize, Serialize};

use super::morale::{Apply, apply, high_morale};
use super::tables::{CombatTables, FvAboveMax};
use super::{CombatError, Combatant, Loss, MoraleState, Retreat, SideResult, Trace};
use crate::provenance::Provenance;
use crate::rules::dice::{Dice, Purpose};
use crate::units::{UnitFormation, UnitKind};

/// Guns that fire: one battery, or one of several in a Grand Battery (17.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Battery {
    pub gun_points: u8,
    pub heavy: bool,
    /// Range in hexes, 1..=9.
    pub range: u8,
}

/// An artillery fire combat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtilleryFireInput {
    pub batteries: Vec<Battery>,
    /// The target stack; its Lead Unit (14.2) or the battery targeted selectively (14.2.4).
    pub target: Combatant,
    /// Target in a Town/Village or Fortified hex (−1; not for Cannister).
    #[serde(default)]
    pub target_in_cover: bool,
    /// Fire enters a target Line from its flank hex (17.1.6; not through the front/flank
    /// intersection, v3.0 errata).
    #[serde(default)]
    pub flanked_line: bool,
    /// Cannister: Opportunity Fire at units entering the artillery's hex (17.4.9).
    #[serde(default)]
    pub cannister: bool,
    /// The target entered Close Combat through the firer's flank hexside (Cannister −1).
    #[serde(default)]
    pub flank_entry: bool,
    /// Vimeiro British Case Shot: +1 against artillery (scenario rule).
    #[serde(default)]
    pub case_shot_vs_artillery: bool,
    /// Targeted artillery stacked with unwrecked A/B (or C + Commander 1+) units keeps their
    /// morale bonus (17.1.7).
    #[serde(default)]
    pub stacked_with_high_morale: bool,
    #[serde(default)]
    pub night: bool,
    #[serde(default)]
    pub skip_commander_loss: bool,
}

/// One roll of one fire group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FireRoll {
    pub roll: u8,
    /// The table cell.
    pub table: Loss,
    /// After the 17.1.7 morale bonus.
    pub adjusted: Loss,
}

/// One fire group (17.3.6: per type, at most 5 GP).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FireGroup {
    pub gun_points: u8,
    pub heavy: bool,
    pub range: u8,
    /// From the Fire Values table; `None` = cannot fire (17.2).
    pub fire_value: Option<u8>,
    pub modifiers: Vec<(String, i8)>,
    pub modified_fire_value: i8,
    pub rolls: Vec<FireRoll>,
    /// Sum of this group's rolls (Cannister adds morale too).
    pub loss: Loss,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtilleryFireResult {
    pub groups: Vec<FireGroup>,
    pub target: SideResult,
    pub notes: Vec<String>,
    pub trace: Trace,
}

fn range_column(range: u8) -> Option<usize> {
    match range {
        1 => Some(0),
        2 => Some(1),
        3 => Some(2),
        4 => Some(3),
        5..=7 => Some(4),
        8 | 9 => Some(5),
        _ => None,
    }
}

/// The Fire Value for `gp` gun points at `range` (17.2; chart p3). `None` = no fire.
pub fn fire_value(
    t: &CombatTables,
    gp: u8,
    heavy: bool,
    range: u8,
    cells: &mut Vec<super::CellRef>,
) -> Result<Option<u8>, CombatError> {
    let col = range_column(range).ok_or_else(|| CombatError::Invalid {
        field: "range".into(),
        reason: format!("{range} is outside 1..=9 (17.2)"),
    })?;
    if !(1..=5).contains(&gp) {
        return Err(CombatError::Invalid {
            field: "gun_points".into(),
            reason: format!("{gp} is outside 1..=5 per fire (17.2)"),
        });
    }
    let table = if heavy {
        &t.fire_values_heavy
    } else {
        &t.fire_values_light
    };
    let (v, cell) = table.lookup(i32::from(gp), col)?;
    if cell.provenance != Provenance::Seed {
        cells.push(cell);
    }
    Ok(v.filter(|v| *v > 0))
}

/// Rule 17.0's procedure, which the Artillery Fire Results Table expresses: roll > FV nothing;
/// = FV 1 P; < FV the difference, half S and half P, odd point to P; odd roll M-2 with
/// losses, M-1 without.
pub fn fire_result_by_procedure(fv: i8, roll: u8) -> Loss {
    let r = roll as i8;
    let (p, s) = if r > fv {
        (0, 0)
    } else if r == fv {
        (1, 0)
    } else {
        let d = (fv - r) as u8;
        (d - d / 2, d / 2)
    };
    let m = if roll % 2 == 1 {
        if p + s > 0 { -2 } else { -1 }
    } else {
        0
    };
    Loss::new(p, s, m)
}

fn result_cell(
    t: &CombatTables,
    fv: i8,
    roll: u8,
    cells: &mut Vec<super::CellRef>,
) -> Result<Loss, CombatError> {
    if fv > 6 && t.artillery.fv_above_max == FvAboveMax::Extend {
        return Ok(fire_result_by_procedure(fv, roll));
    }
    let col = usize::try_from(fv.clamp(0, 6)).unwrap_or(0);
    let (v, cell) = t.fire_results.lookup(i32::from(roll), col)?;
    if cell.provenance != Provenance::Seed {
        cells.push(cell);
    }
    Ok(v.loss)
}

/// Group the firing guns per 17.3.6: Light and Heavy apart, summed, longest range per type,
/// split into fires of 5 GP plus a remainder.
pub fn group_batteries(batteries: &[Battery]) -> Vec<(u8, bool, u8)> {
    let mut out = Vec::new();
    for heavy in [false, true] {
        let of: Vec<&Battery> = batteries.iter().filter(|b| b.heavy == heavy).collect();
        let mut gp: u32 = of.iter().map(|b| u32::from(b.gun_points)).sum();
        let range = of.iter().map(|b| b.range).max().unwrap_or(0);
        while gp > 0 {
            let n = gp.min(5) as u8;
            out.push((n, heavy, range));
            gp -= u32::from(n);
        }
    }
    out
}

/// Resolve artillery fire (17).
pub fn resolve_artillery_fire(
    t: &CombatTables,
    i: &ArtilleryFireInput,
    dice: &mut dyn Dice,
) -> Result<ArtilleryFireResult, CombatError> {
    check_artillery_input(i)?;
    let tg = &i.target;
    let mut trace = Trace::default();
    let mut notes = Vec::new();
    let bonus = high_morale(tg.morale_rating, tg.is_wrecked(), &tg.commanders)
        || (tg.kind.is_artillery() && i.stacked_with_high_morale);
    let batteries: Vec<Battery> = if i.cannister {
        i.batteries
            .iter()
            .map(|b| Battery { range: 1, ..*b })
            .collect()
    } else {
        i.batteries.clone()
    };
    let mut groups = Vec::new();
    for (gp, heavy, range) in group_batteries(&batteries) {
        let base = fire_value(t, gp, heavy, range, &mut trace.cells)?;
        let mods = fire_modifiers(t, i);
        let mut g = FireGroup {
            gun_points: gp,
            heavy,
            range,
            fire_value: base,
            modifiers: mods.clone(),
            modified_fire_value: 0,
            rolls: vec![],
            loss: Loss::NONE,
        };
        let Some(fv) = base else {
            notes.push(format!(
                "{gp} {} GP at range {range}: no Fire Value, cannot fire (17.2)",
                if heavy { "Heavy" } else { "Light" }
            ));
            groups.push(g);
            continue;
        };
        let mfv = fv as i8 + mods.iter().map(|(_, v)| *v).sum::<i8>();
        g.modified_fire_value = mfv;
        let n = if i.cannister { 2 } else { 1 };
        for _ in 0..n {
            let d = dice.roll(Purpose::Fire, 6)?;
            trace.dice.push(d);
            let table = result_cell(t, mfv, d.value, &mut trace.cells)?;
            let mut adjusted = table;
            if bonus && adjusted.morale_change < 0 {
                adjusted.morale_change += 1;
            }
            g.loss = g.loss.plus(adjusted);
            g.rolls.push(FireRoll {
                roll: d.value,
                table,
                adjusted,
            });
        }
        groups.push(g);
    }
    if bonus {
        notes.push("morale bonus: each Morale Change reduced by 1 (17.1.7)".into());
    }
    // 17.3.6: add the losses, apply only the worst Morale Change (Cannister adds, 17.4.9).
    let mut total = Loss::NONE;
    let mut worst = 0i8;
    for g in &groups {
        total.permanent = total.permanent.saturating_add(g.loss.permanent);
        total.stragglers = total.stragglers.saturating_add(g.loss.stragglers);
        worst = worst.min(g.loss.morale_change);
    }
    total.morale_change = worst;
    let mut sr = SideResult {
        morale_before: tg.morale_state,
        table_result: Some(total),
        ..Default::default()
    };
    if !tg.mix().infantry && total.stragglers > 0 {
        total.stragglers = 0;
        sr.notes
            .push("no infantry in the stack: Stragglers ignored (20.3)".into());
    }
    sr.loss = total;
    let (st, after) = apply(
        t,
        Apply::to(tg, total, !i.skip_commander_loss),
        &mut *dice,
        &mut trace,
        &mut sr.notes,
    )?;
    sr.morale_after = st;
    sr.aftermath = after;
    if st == MoraleState::Routed && tg.morale_state != MoraleState::Routed {
        sr.retreat = Retreat::Rout;
    }
    Ok(ArtilleryFireResult {
        groups,
        target: sr,
        notes,
        trace,
    })
}

/// The batteries are real and the fire allowed (17.2, 7.2; 27.1.4 at night).
fn check_artillery_input(i: &ArtilleryFireInput) -> Result<(), CombatError> {
    if i.batteries.is_empty() {
        return Err(CombatError::Invalid {
            field: "batteries".into(),
            reason: "no guns fire".into(),
        });
    }
    if i.night && !i.cannister {
        return Err(CombatError::Illegal(
            "no artillery fire at night except Cannister Opportunity Fire in Close Combat (27.1.4)"
                .into(),
        ));
    }
    for b in &i.batteries {
        if b.gun_points == 0 || b.gun_points > 5 || b.range == 0 || b.range > 9 {
            return Err(CombatError::Invalid {
                field: "batteries".into(),
                reason: format!(
                    "{} GP at range {}: a battery has 1..=5 gun points (7.2) and range is 1..=9 (17.2)",
                    b.gun_points, b.range
                ),
            });
        }
    }
    Ok(())
}

/// The Fire Value modifiers against the target (17.1.x, chart p3), named.
/// A formation artillery fire counts as vulnerable whatever the range (+1, chart p5): a
/// Column or March Column, a Square, Limbered artillery. (Cannister ignores the Column's,
/// 17.4.9.1; a Line only when flanked, 17.1.6.)
pub fn vulnerable_formation(f: UnitFormation) -> bool {
    matches!(
        f,
        UnitFormation::Column
            | UnitFormation::MarchColumn
            | UnitFormation::Square
            | UnitFormation::Limbered
    )
}

fn fire_modifiers(t: &CombatTables, i: &ArtilleryFireInput) -> Vec<(String, i8)> {
    let tg = &i.target;
    let fr = &t.fire_results;
    let mut mods: Vec<(String, i8)> = Vec::new();
    let column_like = matches!(
        tg.formation,
        UnitFormation::Column | UnitFormation::MarchColumn
    );
    let vulnerable = tg.kind.is_cavalry()
        || (vulnerable_formation(tg.formation) && !(i.cannister && column_like))
        || i.flanked_line && tg.formation == UnitFormation::Line
        || (!i.cannister && tg.effective_size().is_aa_plus());
    if vulnerable {
        mods.push(("target_vulnerable".into(), fr.modifier("target_vulnerable")));
    }
    if i.target_in_cover && !i.cannister {
        mods.push(("target_in_cover".into(), fr.modifier("target_in_cover")));
    }
    if i.cannister && i.flank_entry {
        mods.push((
            "flank_entry_cannister".into(),
            fr.modifier("flank_entry_cannister"),
        ));
    }
    if tg.kind == UnitKind::Skirmisher {
        mods.push(("target_skirmisher".into(), fr.modifier("target_skirmisher")));
    }
    if i.case_shot_vs_artillery && tg.kind.is_artillery() {
        mods.push((
            "case_shot_vs_artillery".into(),
            fr.modifier("case_shot_vs_artillery"),
        ));
    }
    mods
}

/// Skirmisher quality (24.0; chart p3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SkirmisherQuality {
    /// All British and French unless noted: 2 full / 1 reduced.
    #[default]
    Elite,
    /// 1 full / ½ reduced.
    Regular,
    /// Elite values, +1 when firing (26.3).
    Rifles,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkirmisherFirer {
    pub quality: SkirmisherQuality,
    pub full: bool,
}

/// A Skirmisher fire combat (18).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkirmisherFireInput {
    pub firers: Vec<SkirmisherFirer>,
    /// Fire Values of non-DG, non-Routed Skirmishers in the target hex, in halves (18.3).
    #[serde(default)]
    pub target_skirmishers_halves: u8,
    pub target: Combatant,
    #[serde(default)]
    pub target_in_cover: bool,
    #[serde(default)]
    pub night: bool,
    #[serde(default)]
    pub skip_commander_loss: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkirmisherFireResult {
    /// `None` when the net Fire Value is ½ or less: no roll (18.2).
    pub fire_value: Option<i8>,
    pub modifiers: Vec<(String, i8)>,
    pub roll: Option<u8>,
    pub hit: bool,
    pub target: SideResult,
    pub trace: Trace,
}

/// Skirmisher Fire Value of one firer in halves.
pub fn skirmisher_fv_halves(t: &CombatTables, f: SkirmisherFirer) -> u8 {
    let c = &t.skirmisher_fire;
    match (f.quality, f.full) {
        (SkirmisherQuality::Regular, true) => c.regular_full_halves,
        (SkirmisherQuality::Regular, false) => c.regular_reduced_halves,
        (_, true) => c.elite_full_halves,
        (_, false) => c.elite_reduced_halves,
    }
}

/// Resolve Skirmisher fire (18): net FV (fractions down), roll ≤ FV hits.
pub fn resolve_skirmisher_fire(
    t: &CombatTables,
    i: &SkirmisherFireInput,
    dice: &mut dyn Dice,
) -> Result<SkirmisherFireResult, CombatError> {
    if i.night {
        return Err(CombatError::Illegal(
            "no Skirmisher fire at night (18.4, 27.1.4)".into(),
        ));
    }
    if i.target.lone_skirmisher() {
        return Err(CombatError::Illegal(
            "Skirmishers never fire at Skirmishers (18.5)".into(),
        ));
    }
    if i.firers.is_empty() {
        return Err(CombatError::Invalid {
            field: "firers".into(),
            reason: "no Skirmisher fires".into(),
        });
    }
    let c = &t.skirmisher_fire;
    let sum: i32 = i
        .firers
        .iter()
        .map(|f| i32::from(skirmisher_fv_halves(t, *f)))
        .sum::<i32>()
        - i32::from(i.target_skirmishers_halves);
    let tg = &i.target;
    let mut r = SkirmisherFireResult {
        fire_value: None,
        modifiers: vec![],
        roll: None,
        hit: false,
        target: SideResult {
            morale_before: tg.morale_state,
            morale_after: tg.morale_state,
            ..Default::default()
        },
        trace: Trace::default(),
    };
    if sum <= 1 {
        r.target
            .notes
            .push("Fire Value ½ or less: ineffective, no roll (18.2)".into());
        return Ok(r);
    }
    let mut mods = Vec::new();
    if i.target_in_cover {
        mods.push(("target_in_cover".to_string(), c.target_in_cover.value));
    }
    if matches!(
        tg.formation,
        UnitFormation::Limbered | UnitFormation::Square
    ) {
        mods.push((
            "target_limbered_or_square".to_string(),
            c.target_limbered_or_square.value,
        ));
    }
    if i.firers
        .iter()
        .any(|f| f.quality == SkirmisherQuality::Rifles)
    {
        mods.push(("rifles".to_string(), c.rifles.value));
    }
    // At most 6 is ever needed on a d6; clamp before adding the (±6-bounded) modifiers.
    let fv = (sum / 2).min(12) as i8 + mods.iter().map(|(_, v)| *v).sum::<i8>();
    r.fire_value = Some(fv);
    r.modifiers = mods;
    let d = dice.roll(Purpose::Fire, 6)?;
    r.trace.dice.push(d);
    r.roll = Some(d.value);
    r.hit = i16::from(d.value) <= i16::from(fv);
    if !r.hit {
        return Ok(r);
    }
    // 18.6: the hit depends on the Lead Unit.
    let (loss, force) = if tg.kind.is_cavalry() {
        (Loss::new(0, 0, -1), true)
    } else if tg.kind.is_artillery() {
        (Loss::new(1, 0, -1), false)
    } else {
        (Loss::new(0, 1, -1), false)
    };
    r.target.loss = loss;
    r.target.table_result = Some(loss);
    let mut notes = std::mem::take(&mut r.target.notes);
    let (st, after) = apply(
        t,
        Apply {
            force_commander_check: force,
            ..Apply::to(tg, loss, !i.skip_commander_loss)
        },
        &mut *dice,
        &mut r.trace,
        &mut notes,
    )?;
    r.target.notes = notes;
    r.target.morale_after = st;
    r.target.aftermath = after;
    if st == MoraleState::Routed && tg.morale_state != MoraleState::Routed {
        r.target.retreat = Retreat::Rout;
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::combat::tables::builtin;

    /// 17.0: the procedure reproduces the seed rows 1–3 of the results table cell for cell,
    /// and the derived rows 4–6 are exactly the procedure.
    #[test]
    fn procedure_17_0_matches_every_results_cell() {
        let t = builtin();
        for row in &t.fire_results.rows {
            for (c, cell) in row.cells.iter().enumerate() {
                let fv = c as i8; // column 0 is "<1" (use 0)
                assert_eq!(
                    fire_result_by_procedure(fv, row.key as u8),
                    cell.value.loss,
                    "row {} column {}",
                    row.key,
                    t.fire_results.columns[c]
                );
            }
        }
    }

    #[test]
    fn grand_battery_grouping_17_3_example() {
        // Two 4-GP light batteries at range 3 → a 5-GP and a 3-GP fire.
        let b = Battery {
            gun_points: 4,
            heavy: false,
            range: 3,
        };
        assert_eq!(group_batteries(&[b, b]), vec![(5, false, 3), (3, false, 3)]);
    }
}
