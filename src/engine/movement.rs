//! Moving combat units in the Movement Phase (8, 12; chart p2): the engine's side of
//! [`crate::movement`]. Owns who the mover is now (class, allowance, MP already spent,
//! formation), who stands where, formation changes and their cost (8.2, 8.3, 8.4), the Square's
//! Morale Check (8.3.2), the minimum move's −1 Morale State (12.1.5) and the scenario limits
//! (Vimeiro V2.8). Commanders and HQs move by `command_system::move_piece` (6.4.7, 6.10).
//!
//! Must not: do IO or read anything but the state and the scenario. Every refusal names the
//! rule and the hex; the umpire may still put a piece anywhere with `override place`.

use super::Ctx;
use super::Refusal;
use super::event::EventKind;
use super::special_rules::has;
use crate::combat::MoraleState;
use crate::hex::Hex;
use crate::movement::facing::{self, Corner, Corners};
use crate::movement::path::{self, Illegal, Mover, Occupancy, Ruling};
use crate::movement::tables::show_halves;
use crate::rules::dice::Purpose;
use crate::scenario::{Scenario, Unit, UnitFormation, UnitKind};

const OVERRIDE_HINT: &str = "; the umpire may place it anyway with `override place` and a reason";

fn refusal(e: Illegal) -> Refusal {
    let at = e.hex.map(|h| format!(" [hex {h}]")).unwrap_or_default();
    Refusal::new(
        e.code,
        e.rule,
        format!("{}{at}", e.message),
        format!("{}{OVERRIDE_HINT}", e.help),
    )
}

/// Does this side's infantry use Combat Columns (8.4)? Only where a scenario rule grants it;
/// all others use March Columns.
pub(crate) fn uses_combat_column(s: &Scenario, side: &str) -> bool {
    let has = |id: &str| s.special_rules.iter().any(|r| r.id == id);
    match side {
        // Talavera T2 (Infantry Training), Vimeiro V3.2: all French may use Combat Column.
        "french" => has("talavera-infantry-training") || has("vimeiro-french-combat-columns"),
        _ => false,
    }
}

/// A unit's formation as the game stands: its last change, else its set-up formation read
/// for its type (a battery set up without one is Limbered, cavalry Ready, Skirmishers in
/// Skirmish order).
pub(crate) fn formation_now(s: &Scenario, state: &super::GameState, u: &Unit) -> UnitFormation {
    if let Some(f) = state.movement.get(&u.id).and_then(|x| x.formation) {
        return f;
    }
    match (u.kind, u.formation) {
        (k, UnitFormation::Unlimbered | UnitFormation::Limbered) if k.is_artillery() => u.formation,
        (k, _) if k.is_artillery() => UnitFormation::Limbered,
        (k, UnitFormation::Blown) if k.is_cavalry() => UnitFormation::Blown,
        (k, _) if k.is_cavalry() => UnitFormation::Ready,
        (UnitKind::Skirmisher, _) => UnitFormation::Skirmish,
        (UnitKind::Infantry, UnitFormation::Column | UnitFormation::MarchColumn) => {
            column_for(s, &u.side)
        }
        _ => u.formation,
    }
}

/// The column a side uses (8.4.1: a unit in Column is in its nation's type of Column).
fn column_for(s: &Scenario, side: &str) -> UnitFormation {
    if uses_combat_column(s, side) {
        UnitFormation::Column
    } else {
        UnitFormation::MarchColumn
    }
}

/// The mover as the Movement Table sees it: class, allowance, MP spent (12.1.3, 12.1.4).
pub(crate) fn mover(ctx: &Ctx, u: &Unit, formation: UnitFormation) -> Result<Mover, Refusal> {
    let t = ctx.eng.movement;
    let st = ctx.state.units.get(&u.id).cloned().unwrap_or_default();
    let routed = st.morale == MoraleState::Routed || formation == UnitFormation::Routed;
    // 9.2: "Routed units may move one hex" to break up an over-stacked hex.
    let breaking_up = routed
        && ctx
            .state
            .positions
            .get(&u.id)
            .is_some_and(|at| super::zones::over_stacked(ctx, &u.side, *at));
    if routed && !breaking_up {
        return Err(Refusal::new(
            "routed",
            "12.3.6",
            format!("`{}` is Routed: its Movement Allowance is zero", u.id),
            "Routed units move only by retreating (21.4: `move --retreat-from CAUSE`, six hexes); rally it first (21.5)",
        ));
    }
    let (class, allowance): (&'static str, &str) = match (u.kind, formation) {
        (UnitKind::Skirmisher, _) => ("skirmish", "skirmish"),
        (k, UnitFormation::Unlimbered) if k.is_artillery() => {
            return Err(Refusal::new(
                "unlimbered",
                "12.3.5",
                format!("`{}` is Unlimbered and cannot move", u.id),
                "limber it first: `move … --formation limbered` (8.2)",
            ));
        }
        (UnitKind::ArtilleryLightHorse | UnitKind::ArtilleryHeavyHorse, _) => {
            ("artillery", "artillery-horse")
        }
        (k, _) if k.is_artillery() => ("artillery", "artillery-foot"),
        (k, _) if k.is_cavalry() && (st.blown || formation == UnitFormation::Blown) => {
            ("cavalry", "cavalry-blown")
        }
        (UnitKind::CavalryHeavy, _) => ("cavalry", "cavalry-heavy"),
        (UnitKind::CavalryLancer, _) => ("cavalry", "cavalry-lancer"),
        (UnitKind::CavalryLight, _) => ("cavalry", "cavalry-light"),
        (UnitKind::Train, _) => ("train", "train"),
        (_, UnitFormation::Column) => ("column", "column"),
        (_, UnitFormation::MarchColumn) => ("column", "march-column"),
        (_, UnitFormation::Skirmish) => ("skirmish", "skirmish"),
        _ => ("line", "line"),
    };
    if u.kind == UnitKind::Train && u.side == "british" && has(ctx, "vimeiro-lack-of-horses") {
        return Err(Refusal::new(
            "immobile",
            "V2.8",
            format!(
                "`{}` is a British wagon at Vimeiro: it may not move at all",
                u.id
            ),
            "Lack of Horses (V2.8)",
        ));
    }
    let spent = ctx
        .state
        .movement
        .get(&u.id)
        .cloned()
        .unwrap_or_default()
        .spent_in(ctx.state.turn, ctx.state.player);
    let halved = ctx
        .state
        .movement
        .get(&u.id)
        .is_some_and(|x| x.halved_in == Some(ctx.state.turn));
    let full = t.allowance_halves(allowance);
    let full = if halved { full / 2 } else { full };
    // 21.1: a Disorganized unit's Movement Allowance is halved, rounded down in half-points —
    // unless it became DG while moving this phase and already lost half of what it had left
    // (12.1.2).
    let dg = st.morale == MoraleState::Disorganized && !spent.dg_halved;
    let mut m = Mover {
        class,
        // Ruffin's Attack: halved this turn by the scenario's roll.
        allowance: if dg { full / 2 } else { full },
        spent: spent.halves,
        // 12.5: infantry uses Road Movement only in Column.
        road_movement: !matches!(class, "line") && formation != UnitFormation::Square,
        square: formation == UnitFormation::Square,
        // V2.8: British artillery moves no more than three hexes a turn.
        max_hexes: (u.kind.is_artillery()
            && u.side == "british"
            && has(ctx, "vimeiro-lack-of-horses"))
        .then_some(3),
        hexes_moved: spent.hexes,
        facing: facing_now(&ctx.state, u, formation),
        town_all_around: u.kind == UnitKind::Infantry && formation == UnitFormation::Line,
        face: None,
        road_only: false,
        column: 0,
        morale: st.morale as u8,
    };
    m.column = column_cost(ctx, u, &m);
    m.spent += m.column;
    if breaking_up {
        // One hex, whatever it costs (not into Prohibited terrain); Routed units face
        // all-around (10.0 sidebar).
        m.allowance = m.spent + m.allowance.max(1) * 4;
        m.max_hexes = Some(m.hexes_moved + 1);
        m.facing = None;
        m.road_movement = false;
    }
    Ok(m)
}

/// 12.6.1: a reinforcement still in its arriving column has fewer MP the further back it is —
/// the k-th unit to leave the Entry Hex this phase pays k + 1 hexes of the column (the Entry
/// Hex's cost; decision 0085). Half-points; 0 for a unit not in a column.
fn column_cost(ctx: &Ctx, u: &Unit, m: &Mover) -> u32 {
    let Some(entry) = ctx.state.movement.get(&u.id).and_then(|x| x.entering) else {
        return 0;
    };
    if ctx.state.positions.get(&u.id) != Some(&entry) {
        return 0;
    }
    let here = (ctx.state.turn, ctx.state.player, entry);
    let ahead = ctx
        .state
        .movement
        .values()
        .filter(|x| x.left_column == Some(here))
        .count() as u32;
    (ahead + 1) * path::entry_cost(&ctx.eng.move_map, ctx.eng.movement, m, entry)
}

/// The corners a unit may be facing now (10.0): the corner it turned to last, else the
/// scenario's set-up facing read as decision 0083 reads it (either corner beside the hexside,
/// any corner when none is given). `None` for all-around frontal facing (10.0 sidebar:
/// Skirmishers and Squares).
pub(crate) fn facing_now(
    state: &super::GameState,
    u: &Unit,
    formation: UnitFormation,
) -> Option<Corners> {
    if u.kind == UnitKind::Skirmisher
        || matches!(formation, UnitFormation::Square | UnitFormation::Skirmish)
    {
        return None;
    }
    let m = state.movement.get(&u.id);
    if m.is_some_and(|m| m.reface_free) {
        return Some(facing::ANY_CORNER); // 10.1.3, 8.2.2
    }
    match m.and_then(|m| m.facing) {
        Some(c) => Some(1 << c.index()),
        None => Some(facing::corners_of(u.facing)),
    }
}

/// Who stands where, for a mover of `side` (12.3.1, 12.5).
fn occupancy(ctx: &Ctx, side: &str, mover: &str) -> Occupancy {
    let s = ctx.eng.scenario;
    let mut occ = Occupancy {
        zoi: super::zones::enemy_zoi(ctx, side),
        ..Occupancy::default()
    };
    // 13.1.1: a Line Extension is a unit in its hex.
    for (p, at) in super::extensions::all(ctx, None) {
        if s.unit(&p).is_some_and(|u| u.side != side) {
            occ.enemy.insert(at);
        } else {
            occ.road_blocked.insert(at);
        }
    }
    for (p, at) in &ctx.state.positions {
        let Some(u) = s.unit(p) else { continue };
        if u.side != side {
            occ.enemy.insert(*at);
        } else if p != mover && u.kind != UnitKind::Skirmisher {
            occ.road_blocked.insert(*at);
        }
    }
    occ
}

/// The cost and the rule of changing `from` into `to`, or why it cannot (8.2–8.4).
fn formation_change(
    ctx: &Ctx,
    u: &Unit,
    from: UnitFormation,
    to: UnitFormation,
) -> Result<(UnitFormation, u32, &'static str), Refusal> {
    let t = ctx.eng.movement;
    let morale = ctx
        .state
        .units
        .get(&u.id)
        .map(|x| x.morale)
        .unwrap_or_default();
    let no = |why: String, help: &str| Err(Refusal::new("formation", "8.1", why, help.to_string()));
    match u.kind {
        UnitKind::Infantry => {
            let to = match to {
                // 8.4: a nation uses one kind of Column, never both.
                UnitFormation::Column | UnitFormation::MarchColumn => {
                    column_for(ctx.scenario(), &u.side)
                }
                UnitFormation::Line | UnitFormation::Square => to,
                other => {
                    return no(
                        format!("infantry cannot form {other:?}"),
                        "infantry forms Line, Column or Square (8.1)",
                    );
                }
            };
            if to == UnitFormation::Square
                && matches!(morale, MoraleState::Disorganized | MoraleState::Routed)
            {
                return Err(Refusal::new(
                    "square-dg",
                    "8.3.1.2",
                    format!(
                        "`{}` is {}: DG and Routed units cannot form Square",
                        u.id,
                        morale.short()
                    ),
                    "rally it first (21.5)",
                ));
            }
            Ok((to, t.cost("formation_change"), "8.2"))
        }
        k if k.is_artillery() => match to {
            UnitFormation::Limbered | UnitFormation::Unlimbered => {
                Ok((to, t.cost("limber"), "8.2.2"))
            }
            other => no(
                format!("artillery cannot be {other:?}"),
                "artillery is Limbered or Unlimbered (8.1)",
            ),
        },
        k if k.is_cavalry() => no(
            format!(
                "cavalry is Ready or Blown; `{}` cannot change to {to:?} by moving",
                u.id
            ),
            "Blown cavalry recovers to Ready in the Rally Phase (22)",
        ),
        _ => no(
            format!(
                "`{}` ({:?}) has one formation only (from {from:?})",
                u.id, u.kind
            ),
            "Skirmishers are always in Skirmish order; trains have no formations (8.1)",
        ),
    }
}

/// What a `move` asks for besides the path.
#[derive(Clone, Copy, Debug, Default)]
pub struct MoveOpts<'a> {
    /// Change formation first (8.2).
    pub formation: Option<UnitFormation>,
    /// Face this corner at the end (10.1).
    pub face: Option<Corner>,
    /// Sets of three extra MP by Forced March (12.5.6).
    pub forced_march: u8,
    /// Generate Line Extensions into these hexes (13.1.3).
    pub extend: &'a [Hex],
    /// Remove the Line Extensions in these hexes (13.1.4).
    pub retract: &'a [Hex],
    /// Move the Line Extension in this hex on its own, not the unit (13.1.1, 13.1.2).
    pub extension: Option<Hex>,
    /// Line Backstep (12.4.1).
    pub backstep: bool,
    /// The side plans against what it sees (4.0, decision 0181; `judge_path`).
    pub as_seen: bool,
}

impl MoveOpts<'_> {
    /// Forced March, a Backstep, or extensions generated or retracted: more than a plain move,
    /// which a Line Extension moving on its own (13.1) or in Square (8.3.2, 13.2.1) may not ask.
    fn asks_more_than_a_move(&self) -> bool {
        self.forced_march > 0
            || self.backstep
            || !self.extend.is_empty()
            || !self.retract.is_empty()
    }
}

/// Move a unit (and change its formation first if asked), checking the path by the Movement
/// Table and its facing (10, 12.1.1); emits the formation change, any Morale Check, the move,
/// the facing it ends with and any morale loss. With `to` its own hex it changes formation
/// and/or turns in place.
pub(super) fn move_unit(
    ctx: &mut Ctx,
    side: &str,
    u: &Unit,
    from: Hex,
    to: Hex,
    given: &[Hex],
    opts: MoveOpts<'_>,
) -> Result<(), Refusal> {
    retreat_owed(ctx, u, from)?;
    if let Some(at) = opts.extension {
        return move_extension(ctx, side, u, from, at, to, given, &opts);
    }
    if !opts.extend.is_empty() || !opts.retract.is_empty() {
        return extensions_in_place(ctx, side, u, from, to, given, opts);
    }
    let MoveOpts {
        formation,
        face,
        forced_march,
        backstep,
        ..
    } = opts;
    attack_ended_move(ctx, u, from, to, given)?;
    let before = formation_now(ctx.eng.scenario, &ctx.state, u);
    let change = planned_change(ctx, u, from, before, formation)?;
    let now = change.map_or(before, |(f, _, _)| f);
    if from == to && given.len() <= 1 {
        return change_in_place(ctx, side, u, from, before, change, face);
    }
    // 13.0: the extensions move on their own and must end each phase next to their parent;
    // the parent may move too, ending next to each of them (decision 0153).
    super::extensions::refuse_if_apart(&ctx.state, u, to)?;
    let mut m = mover(ctx, u, now)?;
    // 12.3.3: a unit joining a stack faces as the stack faces, and pays for it.
    m.face = face.or_else(|| stack_facing(ctx, side, u, to));
    if let Some((_, cost, _)) = change {
        m.spent += cost;
    }
    // 24.2, 12.5.6.4: a Skirmisher tagging along a Column follows its path whatever its own
    // allowance.
    let tag_path = if u.kind == UnitKind::Skirmisher {
        tag_along(ctx, side, from, to, given, m.spent)
    } else {
        None
    };
    let tagging = tag_path.is_some();
    if forced_march > 0 && u.kind == UnitKind::Skirmisher && !tagging {
        return Err(Refusal::new(
            "forced-march",
            "12.5.6.4",
            format!(
                "`{}` may go beyond its allowance only tagging along infantry in Column of its side that moved from {from} to {to} this phase, hex for hex, and only if it has not moved yet [hex {from}]",
                u.id
            ),
            format!(
                "move the Column first (with --forced-march if it Force Marches), then the Skirmisher to the same hex{OVERRIDE_HINT}"
            ),
        ));
    }
    let given = match &tag_path {
        Some(p) => {
            m.allowance = u32::MAX / 4; // no allowance limits it; the path is the Column's
            &p[..]
        }
        None => given,
    };
    if forced_march > 0 && !tagging {
        forced_march_allowed(ctx, u, now, forced_march, from)?;
        // 12.5.6.2–3: three extra MP a set, on the road only.
        m.allowance += u32::from(forced_march) * ctx.eng.movement.cost("forced_march_step");
        m.road_only = true;
    }
    if face.is_some() && m.facing.is_none() {
        return Err(all_around(u, from));
    }
    if backstep {
        backstep_allowed(
            u,
            now,
            &m,
            from,
            formation.is_some() || face.is_some() || forced_march > 0,
        )?;
        if !from.is_adjacent(to) || given.iter().filter(|h| **h != from).count() > 1 {
            return Err(Refusal::new(
                "backstep",
                "12.4.1",
                format!("a Backstep is one hex into an adjacent hex; {to} is not next to {from}"),
                format!("backstep to a hex next to `{}`{OVERRIDE_HINT}", u.id),
            ));
        }
        // 12.4.1: one hex any way, keeping its facing.
        m.facing = None;
        m.max_hexes = Some(m.hexes_moved + 1);
    }
    let mut ruling = judge_path(ctx, side, u, &m, from, to, given, opts.as_seen)?;
    if backstep {
        if ruling.minimum_move {
            return Err(Refusal::new(
                "backstep",
                "12.4.1",
                format!("{to} costs more than `{}`'s whole Movement Allowance", u.id),
                format!(
                    "a Backstep cannot be combined with the one-hex minimum move (12.1.5){OVERRIDE_HINT}"
                ),
            ));
        }
        // It spends its entire Movement Allowance (so halving what is left takes nothing).
        ruling.charged = ruling.remaining;
        ruling.halved = 0;
    }
    let mut column = m.column;
    if let Some((to_f, cost, rule)) = change {
        ctx.emit_side(side, formation_event(u, before, to_f, cost, rule));
        // 11.3.1: changing formation in an enemy ZoI; the path was judged at the old morale,
        // so judge it again if the change cost a Morale State.
        if !super::zones::formation_change_in_zoi(ctx, side, &u.id, from, m.left()) {
            return Ok(());
        }
        let morale_now = ctx
            .state
            .units
            .get(&u.id)
            .map(|x| x.morale)
            .unwrap_or_default();
        if morale_now as u8 != m.morale {
            let mut m2 = mover(ctx, u, now)?;
            m2.face = m.face;
            m2.allowance = m.allowance;
            m2.road_only = m.road_only;
            let p = ruling.path.clone();
            // Where it halted, if an unseen enemy stopped it (decision 0181).
            let end = p.last().copied().unwrap_or(to);
            ruling = judge_path(ctx, side, u, &m2, from, end, &p, opts.as_seen)?;
            column = m2.column;
        }
    }
    if ruling.square_move && !square_check(ctx, side, u, from)? {
        return Ok(());
    }
    // 12.5.6.4: "The Skirmisher does not suffer any penalties for tagging along".
    for _ in 0..if tagging { 0 } else { forced_march } {
        straggler_check(ctx, side, u, from)?;
    }
    emit_move(ctx, side, u, &ruling, column, m.class);
    if let Some(h) = &ruling.halt {
        halted(ctx, side, u, &ruling, h);
    }
    Ok(())
}

/// 4.0 with decision 0181: tell the side where its planned move halted and what it met, in
/// words it may read — an enemy's hex only when the side now sees an enemy there (the move is
/// made, so by ordinary sight), never which enemy.
fn halted(ctx: &mut Ctx, side: &str, u: &Unit, r: &Ruling, h: &path::Halt) {
    let at = r.path.last().copied().unwrap_or(h.short_of);
    let seen = super::sighted::seen_state(&ctx.state, ctx.eng.scenario, side);
    let s = ctx.eng.scenario;
    let enemy_seen_at = |hex: Hex| {
        seen.positions
            .iter()
            .any(|(p, x)| *x == hex && s.unit(p).is_some_and(|e| e.side != side))
    };
    let met = match (h.code, h.hex) {
        ("enemy-hex", Some(hex)) if enemy_seen_at(hex) => format!("enemy troops at {hex}"),
        ("enemy-hex", _) => "enemy troops".to_string(),
        _ => "what it could not see from where it planned".to_string(),
    };
    ctx.emit_side(
        side,
        EventKind::MoveHalted {
            unit: u.id.clone(),
            at,
            short_of: h.short_of,
            met,
            rule: h.rule.to_string(),
        },
    );
}

/// 12.4.1: only infantry in Line that has spent nothing this phase may backstep, alone.
fn backstep_allowed(
    u: &Unit,
    formation: UnitFormation,
    m: &Mover,
    at: Hex,
    with_other: bool,
) -> Result<(), Refusal> {
    let why = if u.kind != UnitKind::Infantry || formation != UnitFormation::Line {
        Some(format!("`{}` is not infantry in Line", u.id))
    } else if m.spent > 0 {
        Some(format!(
            "`{}` has spent {} MP this phase: a Backstep takes the whole Movement Allowance",
            u.id,
            show_halves(m.spent)
        ))
    } else if with_other {
        Some(
            "a Backstep keeps formation and facing (no --formation, --face or --forced-march)"
                .into(),
        )
    } else {
        None
    };
    match why {
        Some(w) => Err(Refusal::new(
            "backstep",
            "12.4.1",
            format!("{w} [hex {at}]"),
            format!("move normally, turning to face the hex first (10.1){OVERRIDE_HINT}"),
        )),
        None => Ok(()),
    }
}

/// 13.1.2: a Line Extension moves as a Line with its own MP spent this phase, facing and Morale
/// State (decision 0153): its allowance a Line's, halved while it is Disorganized (21.1) unless
/// halved on the way (12.1.2), and by a scenario's halving of its unit (Ruffin's Attack).
pub(super) fn extension_mover(
    ctx: &Ctx,
    u: &Unit,
    part: &super::state::ExtensionPart,
) -> Result<Mover, Refusal> {
    let (turn, player) = (ctx.state.turn, ctx.state.player);
    let spent = part.spent_in(turn, player);
    let mut m = mover(ctx, u, UnitFormation::Line)?;
    let t = ctx.eng.movement;
    let mut full = t.allowance_halves("line");
    if ctx
        .state
        .movement
        .get(&u.id)
        .is_some_and(|x| x.halved_in == Some(turn))
    {
        full /= 2;
    }
    m.allowance = if part.morale == MoraleState::Disorganized && !spent.dg_halved {
        full / 2
    } else {
        full
    };
    m.spent = spent.halves;
    m.hexes_moved = spent.hexes;
    m.column = 0;
    m.morale = part.morale as u8;
    m.facing = Some(part.facing.map_or_else(
        || facing_now(&ctx.state, u, UnitFormation::Line).unwrap_or(facing::ANY_CORNER),
        |c| 1 << c.index(),
    ));
    Ok(m)
}

/// 13.1.1, 13.1.2: a Line Extension moves on its own, as a Line with its own MP spent this
/// phase, facing and Morale State (decision 0153), by the same path rules as any unit. It ends
/// next to its parent (13.0: "at the end of every phase they must be adjacent to their parent";
/// checked at the end of its move), never with another Line Extension (13.2), never in its
/// parent's hex (that is rejoining, `--retract`, 13.1.4). What the path does to its Morale State
/// and MP on the way (12.1.5, 11.3.1, 12.2.5, 12.1.2) is its own (13.1.2).
#[allow(clippy::too_many_arguments)]
fn move_extension(
    ctx: &mut Ctx,
    side: &str,
    u: &Unit,
    parent_at: Hex,
    at: Hex,
    to: Hex,
    given: &[Hex],
    opts: &MoveOpts<'_>,
) -> Result<(), Refusal> {
    let no = |code: &'static str, rule: &'static str, msg: String, help: &str| {
        Refusal::new(code, rule, msg, format!("{help}{OVERRIDE_HINT}"))
    };
    // 13.2.1, 8.3.3: a Line Extension in the Square it formed against a charge goes back into
    // Line in place (decision 0198), or moves one hex in Square (8.3.2, decision 0205).
    let in_square =
        super::extensions::part(&ctx.state, &u.id, at).is_some_and(|p| p.square.is_some());
    if in_square {
        extension_square_may_move(ctx, u, at, to, given, opts)?;
        if to == at && given.len() <= 1 {
            return extension_leaves_square(ctx, side, u, at, opts);
        }
    }
    if opts.formation.is_some() || opts.asks_more_than_a_move() {
        return Err(no(
            "extension-alone",
            "13.2.1",
            format!(
                "`{}`'s Line Extension at {at} moves as a Line: no formation change, Forced March, Backstep or other extensions with --extension [hex {at}]",
                u.id
            ),
            "move the extension alone with --extension HEX --to HEX [--path …] [--face CORNER]",
        ));
    }
    let Some(part) = super::extensions::part(&ctx.state, &u.id, at).cloned() else {
        return Err(no(
            "not-an-extension",
            "13.0",
            format!("`{}` has no Line Extension in {at} [hex {at}]", u.id),
            "name the hex of one of its extensions",
        ));
    };
    if to == parent_at {
        return Err(no(
            "extension-rejoin",
            "13.1.4",
            format!(
                "moving the Line Extension at {at} into its parent's hex {to} is rejoining it [hex {to}]"
            ),
            &format!(
                "take it back with `move --piece {} --to {parent_at} --retract {at}`",
                u.id
            ),
        ));
    }
    if !to.is_adjacent(parent_at) {
        return Err(no(
            "extension-apart",
            "13.0",
            format!(
                "a Line Extension ends next to its parent; {to} is not next to `{}` at {parent_at} [hex {to}]",
                u.id
            ),
            "end the extension's move in a hex adjacent to its parent (13.0)",
        ));
    }
    if super::extensions::all(ctx, Some(side))
        .iter()
        .any(|(p, h)| *h == to && !(p == &u.id && *h == at))
    {
        return Err(no(
            "extension-stack",
            "13.2",
            format!("{to} already holds a Line Extension [hex {to}]"),
            "Line Extensions never stack with other Line Extensions (13.2)",
        ));
    }
    let mut m = extension_mover(ctx, u, &part)?;
    m.face = opts.face;
    if in_square {
        // 8.3.2: a Square moves one clear hex, all its MP, by no road; it faces every way (10.0).
        m.square = true;
        m.facing = None;
        m.road_movement = false;
        m.town_all_around = false;
    }
    // 15.1.5: its own Close Combat ended its movement, but for advancing into that hex.
    if let Some(into) = part.spent_in(ctx.state.turn, ctx.state.player).attacked {
        let first = given.iter().find(|h| **h != at).copied().unwrap_or(to);
        if first != into && at != into {
            return Err(no(
                "attacked",
                "15.1.5",
                format!(
                    "`{}`'s Line Extension at {at} initiated a Close Combat into {into} this phase: \"Initiating Close Combat ends a stack's movement\" [hex {at}]",
                    u.id
                ),
                &format!("it may only advance into {into}"),
            ));
        }
    }
    if to == at && given.len() <= 1 {
        return turn_extension(ctx, side, u, at, &m, opts.face);
    }
    let r = judge_path(ctx, side, u, &m, at, to, given, opts.as_seen)?;
    // 8.3.2: the Square moves only after passing a Morale Check, its own (13.1.2).
    if r.square_move && !extension_square_check(ctx, side, u, at, &m)? {
        return Ok(());
    }
    // 11.3.2: a Rout on the way stops it where the ruling's path ends; the whole unit then
    // Routs and its extensions collapse into the parent's hex (13.3.1).
    let end = r.path.last().copied().unwrap_or(to);
    ctx.emit_side(
        side,
        EventKind::ExtensionMoved {
            unit: u.id.clone(),
            from: at,
            to: end,
            path: r.path.clone(),
            half_mp: r.charged,
            facing: r.facing,
            // 13.1.1, 13.1.2: its own MP and facing along its own path, as any unit's.
            left: r.left_at_each_hex(),
            facings: r.facing_at_each_hex(),
        },
    );
    // 13.1.1, 13.1.2: the path's Morale Degradation (11.3.1), minimum move (12.1.5), terrain
    // (12.2.5) and DG halving (12.1.2) are the extension's own, by the same function as any
    // unit's; a Rout is the whole unit's (13.3.1).
    emit_move_effects(ctx, side, u, Some(end), &r, m.class);
    Ok(())
}

/// 8.3.2 for a Line Extension in Square (13.2.1): it may move one hex, but not in the phase it
/// formed the Square (8.3.1.1: forming it in the charge ended its move), and with no formation
/// change, Forced March, Backstep or other extensions (a Square may not Force March, 12.5.6; it
/// goes back into Line, 8.3.3, in place). Decision 0205.
fn extension_square_may_move(
    ctx: &Ctx,
    u: &Unit,
    at: Hex,
    to: Hex,
    given: &[Hex],
    opts: &MoveOpts<'_>,
) -> Result<(), Refusal> {
    if to == at && given.len() <= 1 {
        return Ok(());
    }
    if opts.formation.is_some() || opts.asks_more_than_a_move() {
        return Err(Refusal::new(
            "extension-in-square",
            "8.3.2",
            format!(
                "`{}`'s Line Extension at {at} is in Square (13.2.1): it moves a single hex as it is, or changes formation in place first [hex {at}]",
                u.id
            ),
            format!(
                "move it one hex with `move --piece {} --extension {at} --to HEX`, or take it back into Line first: `move --piece {} --extension {at} --to {at} --formation line` (8.3.3){OVERRIDE_HINT}",
                u.id, u.id
            ),
        ));
    }
    if super::extensions::part(&ctx.state, &u.id, at)
        .is_some_and(|p| p.square == Some((ctx.state.turn, ctx.state.player)))
    {
        return Err(Refusal::new(
            "move-ended",
            "8.3.1.1",
            format!(
                "`{}`'s Line Extension at {at} formed Square against a charge in this phase, which ended its move [hex {at}]",
                u.id
            ),
            format!("move it in its next Movement Phase{OVERRIDE_HINT}"),
        ));
    }
    Ok(())
}

/// 8.3.2: "Units in Square may move a single hex per Movement Phase, but only after passing a
/// Morale Check. If the Morale Check is failed, the unit becomes DG, changes into Column and has
/// spent all its MP." For a Line Extension in Square (13.2.1) the check is the unit's number
/// (21.2) and the result the extension's own (13.3.1): failing, it becomes DG and goes into
/// **Line**, not Column — a Line Extension is never in Column (13.2.1; as 8.3.4 sends "a unit
/// with Line Extensions" to Line) — having spent all its MP; it still counts as moving (17.4.7,
/// 16.5.8: a move of no hexes, as a unit's, decision 0159). Returns whether it may move.
/// Decision 0205.
fn extension_square_check(
    ctx: &mut Ctx,
    side: &str,
    u: &Unit,
    at: Hex,
    m: &Mover,
) -> Result<bool, Refusal> {
    if square_move_roll(ctx, side, u, at)? {
        return Ok(true);
    }
    extension_in_place(ctx, side, u, at, 0, None);
    ctx.emit_side(
        side,
        EventKind::FormationChanged {
            unit: u.id.clone(),
            from: UnitFormation::Square,
            to: UnitFormation::Line,
            half_mp: m.left(),
            rule: "8.3.2".into(),
            extension: Some(at),
        },
    );
    let morale = super::extensions::part(&ctx.state, &u.id, at).map(|p| p.morale);
    if morale.is_some_and(|x| x > MoraleState::Disorganized) {
        ctx.emit_side(
            side,
            EventKind::MoraleDegraded {
                unit: u.id.clone(),
                morale: MoraleState::Disorganized,
                rule: "8.3.2".into(),
                reason: "failed the Square's Morale Check to move".into(),
                extension: Some(at),
            },
        );
    }
    Ok(false)
}

/// 8.3.3: "Units can voluntarily exit Square formation during movement by making a normal
/// Formation Change": a Line Extension in the Square it formed against a charge (13.2.1) goes
/// back into Line in its hex (`--extension HEX --to HEX --formation line`), for a Formation
/// Change's MP of its own (13.1.2), and may then face any corner for nothing (8.2.2). In an
/// enemy Zone of Influence the change costs it a Morale State (11.3.1). Decision 0198; its
/// one-hex move in Square (8.3.2) is `extension_square_check` (decision 0205).
fn extension_leaves_square(
    ctx: &mut Ctx,
    side: &str,
    u: &Unit,
    at: Hex,
    opts: &MoveOpts<'_>,
) -> Result<(), Refusal> {
    let back = format!(
        "take it back into Line: `move --piece {} --extension {at} --to {at} --formation line` (8.3.3); or move it one hex as a Square (8.3.2), or retract it (13.1.4)",
        u.id
    );
    if opts.formation != Some(UnitFormation::Line) || opts.asks_more_than_a_move() {
        return Err(Refusal::new(
            "extension-in-square",
            "13.2.1",
            format!(
                "`{}`'s Line Extension at {at} is in Square: in its hex it may only go back into Line (a Line Extension is never in Column, 13.2.1) [hex {at}]",
                u.id
            ),
            format!("{back}{OVERRIDE_HINT}"),
        ));
    }
    let Some(part) = super::extensions::part(&ctx.state, &u.id, at).cloned() else {
        return Ok(());
    };
    // 8.3.1.1: "Units forming Square in a Cavalry Charge do so automatically, without spending
    // any MP, but this ends the units move."
    if part.square == Some((ctx.state.turn, ctx.state.player)) {
        return Err(Refusal::new(
            "move-ended",
            "8.3.1.1",
            format!(
                "`{}`'s Line Extension at {at} formed Square against a charge in this phase, which ended its move [hex {at}]",
                u.id
            ),
            format!("change it back into Line in its next Movement Phase{OVERRIDE_HINT}"),
        ));
    }
    let m = extension_mover(ctx, u, &part)?;
    let cost = ctx.eng.movement.cost("formation_change");
    if cost > m.left() {
        return Err(Refusal::new(
            "not-enough-mp",
            "8.3.3",
            format!(
                "the Line Extension at {at} leaving Square costs {} MP; it has {} left [hex {at}]",
                show_halves(cost),
                show_halves(m.left())
            ),
            format!("change formation next Movement Phase{OVERRIDE_HINT}"),
        ));
    }
    ctx.emit_side(
        side,
        EventKind::FormationChanged {
            unit: u.id.clone(),
            from: UnitFormation::Square,
            to: UnitFormation::Line,
            half_mp: cost,
            rule: "8.3.3".into(),
            extension: Some(at),
        },
    );
    // 8.2.2: leaving all-around frontal facing, it may face any corner.
    if let Some(face) = opts.face {
        extension_in_place(ctx, side, u, at, 0, Some(face));
    }
    // 11.3.1: a formation change in an enemy Zone of Influence; 11.3.2: Disorganized, what it
    // has left is halved.
    if super::zones::enemy_zoi(ctx, side).contains(&at) {
        super::zones::degrade_part(
            ctx,
            side,
            &u.id,
            Some(at),
            "11.3.1",
            format!("changed formation in an enemy Zone of Influence at {at}"),
            m.left() - cost,
        );
    }
    Ok(())
}

/// A Line Extension turning in its hex (10.1.1, 10.1.2; 10.1.4: free in a Town/Village), with
/// its own MP (13.1.2).
fn turn_extension(
    ctx: &mut Ctx,
    side: &str,
    u: &Unit,
    at: Hex,
    m: &Mover,
    face: Option<Corner>,
) -> Result<(), Refusal> {
    let Some(want) = face else {
        return Err(Refusal::new(
            "empty-path",
            "12.0",
            format!("the Line Extension is already at {at} [hex {at}]"),
            "give --to another hex next to its parent, or --face CORNER to turn it",
        ));
    };
    let t = ctx.eng.movement;
    let free = t.terrain_row(ctx.eng.move_map.terrain(at)).0.town;
    let cost = facing::members(m.facing.unwrap_or(facing::ANY_CORNER))
        .map(|c| {
            if free {
                0
            } else {
                facing::turn_cost(t, c, want)
            }
        })
        .min()
        .unwrap_or(0);
    if cost > m.left() {
        return Err(Refusal::new(
            "not-enough-mp",
            "10.1",
            format!(
                "turning the Line Extension at {at} to {want} costs {} MP; it has {} left [hex {at}]",
                show_halves(cost),
                show_halves(m.left())
            ),
            format!("turn next Movement Phase{OVERRIDE_HINT}"),
        ));
    }
    extension_in_place(ctx, side, u, at, cost, Some(want));
    Ok(())
}

/// An `extension-moved` of no hexes at `at`, the extension's hex: a failed Square move that
/// still counts as moving (17.4.7), a free facing on leaving Square (8.2.2) or a turn in place
/// (10) — `half_mp` spent, `facing` taken.
fn extension_in_place(
    ctx: &mut Ctx,
    side: &str,
    u: &Unit,
    at: Hex,
    half_mp: u32,
    facing: Option<crate::movement::facing::Corner>,
) {
    ctx.emit_side(
        side,
        EventKind::ExtensionMoved {
            unit: u.id.clone(),
            from: at,
            to: at,
            path: vec![at],
            half_mp,
            facing,
            left: Vec::new(),
            facings: Vec::new(),
        },
    );
}

/// 13.1.3, 13.1.4: Line Extensions generated or removed in place, then any turn asked for.
fn extensions_in_place(
    ctx: &mut Ctx,
    side: &str,
    u: &Unit,
    from: Hex,
    to: Hex,
    given: &[Hex],
    opts: MoveOpts<'_>,
) -> Result<(), Refusal> {
    if from != to || given.len() > 1 || opts.formation.is_some() || opts.forced_march > 0 {
        return Err(Refusal::new(
            "extension-alone",
            "13.1",
            format!(
                "`{}`: generate or remove Line Extensions in place (--to {from}), apart from moving or changing formation",
                u.id
            ),
            "one `move` for the extensions, another for the rest",
        ));
    }
    if !opts.retract.is_empty() {
        super::extensions::retract(ctx, side, u, from, opts.retract)?;
    }
    if !opts.extend.is_empty() {
        super::extensions::extend(ctx, side, u, from, opts.extend)?;
    }
    if let Some(w) = opts.face {
        let f = formation_now(ctx.eng.scenario, &ctx.state, u);
        let ev = turn_in_place(ctx, u, f, from, w, 0, false)?;
        ctx.emit_side(side, ev);
    }
    Ok(())
}

/// The formation change asked for, its cost and rule, if it changes anything and the unit
/// can pay for it (8.2–8.4; 8.2.3 no Column while extended).
fn planned_change(
    ctx: &Ctx,
    u: &Unit,
    from: Hex,
    before: UnitFormation,
    formation: Option<UnitFormation>,
) -> Result<Option<(UnitFormation, u32, &'static str)>, Refusal> {
    let Some(want) = formation else {
        return Ok(None);
    };
    let (to_f, cost, rule) = formation_change(ctx, u, before, want)?;
    if matches!(to_f, UnitFormation::Column | UnitFormation::MarchColumn) {
        // 8.2.3, 13.2.1: a Line with extensions takes them back before forming Column.
        super::extensions::refuse_if_extended(&ctx.state, u, from, "form Column", "8.2.3")?;
    }
    if to_f == before {
        return Ok(None);
    }
    let left = mover_or_unlimbered(ctx, u, to_f)?.left();
    if cost > left {
        return Err(Refusal::new(
            "not-enough-mp",
            "8.2",
            format!(
                "changing to {to_f:?} costs {} MP; `{}` has {} MP left [hex {from}]",
                show_halves(cost),
                u.id,
                show_halves(left)
            ),
            format!("change formation next Movement Phase{OVERRIDE_HINT}"),
        ));
    }
    Ok(Some((to_f, cost, rule)))
}

/// A formation change and/or a turn without leaving the hex (8.2, 10.1).
fn change_in_place(
    ctx: &mut Ctx,
    side: &str,
    u: &Unit,
    at: Hex,
    before: UnitFormation,
    change: Option<(UnitFormation, u32, &'static str)>,
    face: Option<Corner>,
) -> Result<(), Refusal> {
    if change.is_none() && face.is_none() {
        return Err(Refusal::new(
            "already-there",
            "12.0",
            format!("`{}` is already at {at}", u.id),
            "name another hex, --formation to change formation or --face to turn in place",
        ));
    }
    let now = change.map_or(before, |(f, _, _)| f);
    let paid = change.map_or(0, |(_, c, _)| c);
    // 8.2.2: limbering or unlimbering may turn 180° for nothing; a Square changing formation
    // chooses any facing.
    let about_free = change.is_some() && u.kind.is_artillery();
    let turn = match face {
        Some(w) if change.is_some() && before == UnitFormation::Square => {
            Some(EventKind::FacingChanged {
                unit: u.id.clone(),
                from: None,
                to: w,
                half_mp: 0,
                rule: "8.2.2".into(),
            })
        }
        Some(w) => Some(turn_in_place(ctx, u, now, at, w, paid, about_free)?),
        None => None,
    };
    if let Some((to_f, cost, rule)) = change {
        ctx.emit_side(side, formation_event(u, before, to_f, cost, rule));
        let left = mover_or_unlimbered(ctx, u, to_f).map_or(0, |m| m.left());
        if !super::zones::formation_change_in_zoi(ctx, side, &u.id, at, left) {
            return Ok(());
        }
    }
    if let Some(ev) = turn {
        ctx.emit_side(side, ev);
    }
    Ok(())
}

/// The ruling on a move: the given path checked (it must end at `to`), else the cheapest.
/// `as_seen`: the side plans against what it sees (4.0, decision 0181) — the path is found or
/// checked on `sighted::seen_state`, then walked against the whole game; if an enemy it did not
/// see stops it (its hex entered, or a Zone of Influence or other rule it could not know), it
/// halts at the last hex of the path it may legally reach.
#[allow(clippy::too_many_arguments)]
fn judge_path(
    ctx: &Ctx,
    side: &str,
    u: &Unit,
    m: &Mover,
    from: Hex,
    to: Hex,
    given: &[Hex],
    as_seen: bool,
) -> Result<Ruling, Refusal> {
    if !as_seen {
        return plan_path(ctx, side, u, m, from, to, given);
    }
    let seen = super::sighted::seen_state(&ctx.state, ctx.eng.scenario, side);
    let mut dice = crate::rules::dice::ScriptedDice::new();
    let planned = plan_path(
        &Ctx::preview(ctx.eng, &seen, &mut dice),
        side,
        u,
        m,
        from,
        to,
        given,
    )?;
    let occ = occupancy(ctx, side, &u.id);
    let (map, t) = (&ctx.eng.move_map, ctx.eng.movement);
    // 12.1.2 with 11.3.2: a plan cut short by its own Disorganization on the way (decision
    // 0182) is walked to where it stops, facing as it entered that hex; the cut is kept, so
    // the side is told where it stopped and what it was going to.
    let cut = planned.halted_short_of;
    let mut walked = m.clone();
    if cut.is_some() {
        walked.face = planned.facing;
    }
    let truth = path::check_path(map, t, &walked, &occ, &planned.path).map(|mut r| {
        r.halted_short_of = cut.or(r.halted_short_of);
        r
    });
    if truth.is_ok() || planned.path.len() < 3 {
        return truth.map_err(refusal);
    }
    // Halted: the longest start of the path it may legally take, facing as a stack there
    // faces (12.3.3); the facing asked for was for the destination.
    let why = truth.as_ref().err();
    for end in (1..planned.path.len() - 1).rev() {
        let mut short = m.clone();
        short.face = stack_facing(ctx, side, u, planned.path[end]);
        if let Ok(mut r) = path::check_path(map, t, &short, &occ, &planned.path[..=end]) {
            r.halt = why.map(|e| path::Halt {
                short_of: planned.path[planned.path.len() - 1],
                code: e.code,
                rule: e.rule,
                hex: e.hex,
            });
            return Ok(r);
        }
    }
    truth.map_err(refusal)
}

/// The ruling on a move against `ctx`'s state: the given path checked (it must end at `to`),
/// else the cheapest.
fn plan_path(
    ctx: &Ctx,
    side: &str,
    u: &Unit,
    m: &Mover,
    from: Hex,
    to: Hex,
    given: &[Hex],
) -> Result<Ruling, Refusal> {
    let occ = occupancy(ctx, side, &u.id);
    let map = &ctx.eng.move_map;
    let t = ctx.eng.movement;
    if given.is_empty() {
        return path::cheapest(map, t, m, &occ, from, to).map_err(refusal);
    }
    let mut p: Vec<Hex> = given.to_vec();
    if p.first() != Some(&from) {
        p.insert(0, from);
    }
    if p.last() != Some(&to) {
        return Err(Refusal::new(
            "path-end",
            "12.0",
            format!(
                "the path ends at {} but the move is to {to}",
                p.last().copied().unwrap_or(from)
            ),
            "end the path at the destination",
        ));
    }
    path::check_path(map, t, m, &occ, &p).map_err(refusal)
}

/// 15.1.5: "Initiating Close Combat ends a stack's movement." A unit that attacked a hex this
/// phase may still advance into it (the attacker entered it to fight; it is free once the
/// defender has gone) and, once there, go on as 19.5.1's rush allows (the umpire judges it);
/// nothing else (decision 0146).
fn attack_ended_move(
    ctx: &Ctx,
    u: &Unit,
    from: Hex,
    to: Hex,
    given: &[Hex],
) -> Result<(), Refusal> {
    let phase = ctx
        .state
        .movement
        .get(&u.id)
        .map(|m| m.spent_in(ctx.state.turn, ctx.state.player))
        .unwrap_or_default();
    let Some(into) = phase.attacked else {
        return Ok(());
    };
    let first = given.iter().find(|h| **h != from).copied().unwrap_or(to);
    if from == into || first == into {
        return Ok(());
    }
    Err(Refusal::new(
        "attacked",
        "15.1.5",
        format!(
            "`{}` initiated a Close Combat into {into} this phase: \"Initiating Close Combat ends a stack's movement\" [hex {from}]",
            u.id
        ),
        format!(
            "it may only advance into {into}; a retreat the combat requires is `move --retreat-from`{OVERRIDE_HINT}"
        ),
    ))
}

/// 21.4: a unit a combat required to retreat makes that retreat before anything else
/// (decision 0147); the umpire may place it instead.
fn retreat_owed(ctx: &Ctx, u: &Unit, from: Hex) -> Result<(), Refusal> {
    let Some(d) = ctx
        .state
        .movement
        .get(&u.id)
        .and_then(|m| m.retreat_due.as_ref())
    else {
        return Ok(());
    };
    let hexes = if d.min == d.max {
        format!("{}", d.min)
    } else {
        format!("{}-{}", d.min, d.max)
    };
    Err(Refusal::new(
        "retreat-pending",
        "21.4",
        format!(
            "`{}` must first retreat {hexes} hexes from {}, as its combat required (21.4) [hex {from}]",
            u.id, d.cause
        ),
        format!(
            "retreat with `move --piece {} --retreat-from {} --to HEX --path …`{OVERRIDE_HINT}",
            u.id, d.cause
        ),
    ))
}

/// 15.1.4: "The movement cost to initiate Close Combat is the cost of movement into the hex plus
/// an additional 2 MP. The Road rate can not be used to enter Close Combat. A unit that has
/// insufficient MPs to Close Combat a hex it starts adjacent to can still do so per 12.1.5, as
/// long as it is not entering and/or crossing a Prohibited terrain feature." Checked for each
/// attacking unit that moves (a battery that cannot is left out); 15.1.5's end of its movement
/// is recorded by the combat (`combat-resolved`). Returns the half-MP each spends (decision
/// 0148).
pub(crate) fn close_combat_cost(
    ctx: &Ctx,
    attackers: &[String],
    from: Hex,
    into: Hex,
) -> Result<Vec<(String, u32)>, Refusal> {
    let s = ctx.eng.scenario;
    let mut spent = Vec::new();
    for id in attackers {
        let Some(u) = s.unit(id) else { continue };
        // 13.1.2: a Line Extension attacking from its own hex spends its own MP (decision
        // 0153); otherwise the unit's.
        let m = match super::extensions::part(&ctx.state, id, from) {
            Some(part) => extension_mover(ctx, u, part),
            None => mover(ctx, u, formation_now(s, &ctx.state, u)),
        };
        let Ok(m) = m else { continue };
        let step = path::step_cost(
            &ctx.eng.move_map,
            ctx.eng.movement,
            m.class,
            from,
            into,
            false,
        )
        .map_err(|e| {
            Refusal::new(
                "prohibited",
                "15.1.4",
                format!("`{id}` cannot enter {into} to attack: {}", e.message),
                "Close Combat is movement into the defender's hex (15.1.4, 12.2.2)",
            )
        })?;
        let need = step.cost + ctx.eng.movement.cost("close_combat");
        let left = m.allowance.saturating_sub(m.spent);
        let fresh = m.spent == m.column && m.hexes_moved == 0;
        if need > left && !fresh {
            return Err(Refusal::new(
                "not-enough-mp",
                "15.1.4",
                format!(
                    "`{id}` needs {} MP to Close Combat into {into} ({} for the hex + {} to initiate) and has {} left [hex {into}]",
                    show_halves(need),
                    show_halves(step.cost),
                    show_halves(ctx.eng.movement.cost("close_combat")),
                    show_halves(left)
                ),
                format!(
                    "only a unit that has not moved this phase may attack with too few MP (12.1.5){OVERRIDE_HINT}"
                ),
            ));
        }
        // 12.1.5: a unit with too few MP that had not moved spends all it has.
        spent.push((id.clone(), need.min(left)));
    }
    Ok(spent)
}

/// 12.1.1 with 15.1.4 and 10.0: Close Combat is movement into the defender's hex, so each
/// attacker with standard facing must have the hexside it crosses in front. Skirmishers, Squares
/// and a Line in a Town/Village face every way (10.0 sidebar, 10.1.4); commanders have no
/// facing; an Unlimbered battery cannot move (its joining is the umpire's, decision 0146). A
/// facing the set-up left open counts if any of its corners fronts the hexside (decision 0083).
/// The attacker turns first with a move (10.1, 1 MP a corner); the umpire may allow the entry
/// with a reason (`--allow-entry --ruling`). Decision 0151.
pub(crate) fn close_combat_entry(
    ctx: &Ctx,
    attackers: &[String],
    from: Hex,
    into: Hex,
) -> Result<(), Refusal> {
    const SIDES: [&str; 6] = ["N", "NE", "SE", "S", "SW", "NW"];
    let Some(d) = facing::direction(from, into) else {
        return Ok(());
    };
    let s = ctx.eng.scenario;
    let town = ctx
        .eng
        .movement
        .terrain_row(ctx.eng.move_map.terrain(from))
        .0
        .town;
    for id in attackers {
        let Some(u) = s.unit(id) else { continue };
        let f = formation_now(s, &ctx.state, u);
        if f == UnitFormation::Unlimbered
            || (town && u.kind == UnitKind::Infantry && f == UnitFormation::Line)
        {
            continue;
        }
        // 13.1.2: an extension attacking from its hex faces as it does (decision 0153).
        let own = super::extensions::part(&ctx.state, id, from).and_then(|p| p.facing);
        let Some(set) = own
            .map(|c| 1 << c.index())
            .or_else(|| facing_now(&ctx.state, u, f))
        else {
            continue;
        };
        if facing::members(set).any(|c| c.arc(d) == facing::Arc::Front) {
            continue;
        }
        // The cheapest corner that puts the hexside in front, for the help.
        let turn = facing::members(set)
            .flat_map(|c| {
                Corner::fronting(d).map(|w| (facing::turn_cost(ctx.eng.movement, c, w), w))
            })
            .min()
            .map(|(_, w)| w)
            .unwrap_or(Corner::fronting(d)[0]);
        let arc = if facing::members(set).any(|c| c.arc(d) == facing::Arc::Flank) {
            "flank"
        } else {
            "rear"
        };
        return Err(Refusal::new(
            "not-frontal",
            "12.1.1",
            format!(
                "`{id}` faces {}: its {} hexside toward {into} is in its {arc}, and a Close Combat enters the defender's hex across a frontal hexside (12.1.1, 15.1.4, 10.0) [hex {into}]",
                facing::show_set(set),
                SIDES[d]
            ),
            format!(
                "turn first: `move --piece {id} --to {from} --face {turn}` (10.1: 1 MP a corner); the umpire may allow it with `--allow-entry --ruling REASON`"
            ),
        ));
    }
    Ok(())
}

/// 24.2: Skirmishers "may exceed this MA if they move the entire phase stacked with an infantry
/// unit in Column, 'tagging along'"; 12.5.6.4: also along a Forced March, "without penalties". A
/// Skirmisher that has not moved this phase may follow, hex for hex, the path of an infantry unit
/// of its side, now in Column, that moved from its hex to `to` this phase (moved first). Returns
/// that path.
fn tag_along(
    ctx: &Ctx,
    side: &str,
    from: Hex,
    to: Hex,
    given: &[Hex],
    spent: u32,
) -> Option<Vec<Hex>> {
    if spent > 0 {
        return None;
    }
    let phase = (ctx.state.turn, ctx.state.player);
    let s = ctx.eng.scenario;
    let mut wanted: Vec<Hex> = given.to_vec();
    if !wanted.is_empty() && wanted.first() != Some(&from) {
        wanted.insert(0, from);
    }
    ctx.state
        .movement
        .iter()
        .find(|(id, m)| {
            s.unit(id).is_some_and(|x| {
                x.side == side
                    && x.kind == UnitKind::Infantry
                    && matches!(
                        formation_now(s, &ctx.state, x),
                        UnitFormation::Column | UnitFormation::MarchColumn
                    )
            }) && m.moved.is_some_and(|p| (p.turn, p.player) == phase)
                && m.last_path.len() > 1
                && m.last_path.first() == Some(&from)
                && m.last_path.last() == Some(&to)
                && (wanted.is_empty() || wanted == m.last_path)
        })
        .map(|(_, m)| m.last_path.clone())
}

/// 12.5.6.1: only infantry in Column, not Disorganized, may Force March; at most two sets.
fn forced_march_allowed(
    ctx: &Ctx,
    u: &Unit,
    formation: UnitFormation,
    sets: u8,
    at: Hex,
) -> Result<(), Refusal> {
    let t = ctx.eng.movement;
    let max = t.cost("forced_march_max") / t.cost("forced_march_step").max(1);
    let morale = ctx
        .state
        .units
        .get(&u.id)
        .map(|x| x.morale)
        .unwrap_or_default();
    let why = if u.kind != UnitKind::Infantry {
        Some(format!("`{}` is not infantry", u.id))
    } else if !matches!(
        formation,
        UnitFormation::Column | UnitFormation::MarchColumn
    ) {
        Some(format!("`{}` is in {formation:?}, not Column", u.id))
    } else if morale <= MoraleState::Disorganized {
        Some(format!("`{}` is {}", u.id, morale.short()))
    } else if u32::from(sets) > max {
        Some(format!(
            "{sets} sets asked; at most {max} ({} MP)",
            show_halves(t.cost("forced_march_max"))
        ))
    } else {
        None
    };
    match why {
        Some(w) => Err(Refusal::new(
            "forced-march",
            "12.5.6.1",
            format!(
                "{w}: only infantry in Column and not Disorganized may Force March, at most twice [hex {at}]"
            ),
            format!(
                "change to Column first (`--formation column`), or move without --forced-march{OVERRIDE_HINT}"
            ),
        )),
        None => Ok(()),
    }
}

/// 12.5.6.2: a Morale Check (21.2) for each set of Forced March MP; a failure costs a
/// Straggler.
///
/// 29.1 Advance Reinforcements: reinforcements due in the turn of the event "may force march
/// without rolling for Straggler Losses this turn": no die, the waiver logged (decision 0200).
fn straggler_check(ctx: &mut Ctx, side: &str, u: &Unit, at: Hex) -> Result<(), Refusal> {
    let (need, bonus) = morale_check_need(ctx, side, u, at);
    if super::random_events::free_forced_march(ctx, &u.id).is_some() {
        ctx.emit_side(
            side,
            EventKind::StragglerCheck {
                unit: u.id.clone(),
                needs: need,
                dice: Vec::new(),
                straggler: false,
                waived: Some("29.1".into()),
            },
        );
        return Ok(());
    }
    let die = ctx.dice.roll(Purpose::Morale, 6)?;
    let straggler = i16::from(die.value) + i16::from(bonus) < i16::from(need);
    ctx.emit_side(
        side,
        EventKind::StragglerCheck {
            unit: u.id.clone(),
            needs: need,
            dice: vec![die],
            straggler,
            waived: None,
        },
    );
    Ok(())
}

/// The Morale Check number (21.2) of a unit and the bonus of a Commander rated 2+ with it.
fn morale_check_need(ctx: &Ctx, side: &str, u: &Unit, at: Hex) -> (u8, i8) {
    let cfg = &ctx.eng.combat.morale_check;
    let rating = u.morale.unwrap_or(crate::scenario::MoraleRating::C);
    let need = cfg.need[crate::combat::morale_index(rating)];
    let s = ctx.eng.scenario;
    let with_commander = s.commanders.iter().any(|c| {
        c.side == side
            && ctx.state.positions.get(&c.id) == Some(&at)
            && super::oob::rating(s, &ctx.state, &c.id) >= cfg.commander_min_rating
    });
    (
        need,
        if with_commander {
            cfg.commander_bonus
        } else {
            0
        },
    )
}

/// 12.3.3: the corner the units already at `to` face, if they face one (units with all-around
/// frontal facing, or still free to face as they like, are ignored).
fn stack_facing(ctx: &Ctx, side: &str, u: &Unit, to: Hex) -> Option<Corner> {
    let s = ctx.eng.scenario;
    let town = ctx
        .eng
        .movement
        .terrain_row(ctx.eng.move_map.terrain(to))
        .0
        .town;
    ctx.state
        .positions
        .iter()
        .filter(|(p, h)| **h == to && p.as_str() != u.id)
        .filter_map(|(p, _)| s.unit(p).filter(|o| o.side == side))
        .filter_map(|o| {
            let f = formation_now(s, &ctx.state, o);
            if town && o.kind == UnitKind::Infantry && f == UnitFormation::Line {
                return None; // 10.1.4: all-around in a Town/Village
            }
            let set = facing_now(&ctx.state, o, f)?;
            (set.count_ones() == 1).then(|| facing::members(set).next())?
        })
        .min()
}

/// The unit's allowance as it would be in `f`; an Unlimbered battery cannot move but may
/// still pay to limber or turn (12.3.5).
pub(crate) fn mover_or_unlimbered(ctx: &Ctx, u: &Unit, f: UnitFormation) -> Result<Mover, Refusal> {
    mover(ctx, u, f).or_else(|e| {
        if e.code == "unlimbered" {
            Ok(unlimbered_mover(ctx, u))
        } else {
            Err(e)
        }
    })
}

fn all_around(u: &Unit, at: Hex) -> Refusal {
    Refusal::new(
        "all-around",
        "10.1.4",
        format!(
            "`{}` has all-around frontal facing and never turns [hex {at}]",
            u.id
        ),
        "drop --face (10.0 sidebar: Skirmishers and Squares face every way)",
    )
}

/// Turning in place to `want` (10.1.1, 10.1.2; 12.3.5 for an Unlimbered battery), after
/// `paid` half-points of formation change: the event, or why not.
fn turn_in_place(
    ctx: &Ctx,
    u: &Unit,
    formation: UnitFormation,
    at: Hex,
    want: Corner,
    paid: u32,
    about_free: bool,
) -> Result<EventKind, Refusal> {
    let m = mover_or_unlimbered(ctx, u, formation)?;
    let Some(set) = m.facing else {
        return Err(all_around(u, at));
    };
    let t = ctx.eng.movement;
    // 10.1.4: a Line in a Town/Village has all-around frontal facing: turning is free.
    let free = m.town_all_around && t.terrain_row(ctx.eng.move_map.terrain(at)).0.town;
    let (from, cost) = facing::members(set)
        .map(|c| {
            let about = about_free && c.index().abs_diff(want.index()) == 3;
            (
                c,
                if free || about {
                    0
                } else {
                    facing::turn_cost(t, c, want)
                },
            )
        })
        .min_by_key(|(c, cost)| (*cost, *c))
        .unwrap_or((want, 0));
    let left = m.left().saturating_sub(paid);
    if cost > left {
        return Err(Refusal::new(
            "not-enough-mp",
            "10.1.1",
            format!(
                "turning `{}` from {from} to {want} costs {} MP; it has {} MP left [hex {at}]",
                u.id,
                show_halves(cost),
                show_halves(left)
            ),
            format!("turn next Movement Phase{OVERRIDE_HINT}"),
        ));
    }
    let known = ctx.state.movement.get(&u.id).and_then(|x| x.facing);
    Ok(EventKind::FacingChanged {
        unit: u.id.clone(),
        from: known.or((set.count_ones() == 1).then_some(from)),
        to: want,
        half_mp: cost,
        rule: if cost == t.cost("about_face") && from.index().abs_diff(want.index()) == 3 {
            "10.1.2".into()
        } else {
            "10.1.1".into()
        },
    })
}

fn formation_event(
    u: &Unit,
    from: UnitFormation,
    to: UnitFormation,
    mp: u32,
    rule: &str,
) -> EventKind {
    EventKind::FormationChanged {
        unit: u.id.clone(),
        from,
        to,
        half_mp: mp,
        rule: rule.to_string(),
        extension: None,
    }
}

/// An Unlimbered battery's allowance, for paying to limber or turn (12.3.5).
fn unlimbered_mover(ctx: &Ctx, u: &Unit) -> Mover {
    let key = if matches!(
        u.kind,
        UnitKind::ArtilleryLightHorse | UnitKind::ArtilleryHeavyHorse
    ) {
        "artillery-horse"
    } else {
        "artillery-foot"
    };
    let spent = ctx
        .state
        .movement
        .get(&u.id)
        .map(|x| x.spent_in(ctx.state.turn, ctx.state.player))
        .unwrap_or_default();
    Mover {
        class: "artillery",
        allowance: ctx.eng.movement.allowance_halves(key),
        spent: spent.halves,
        road_movement: false,
        square: false,
        max_hexes: None,
        hexes_moved: spent.hexes,
        facing: facing_now(&ctx.state, u, UnitFormation::Unlimbered),
        town_all_around: false,
        face: None,
        road_only: false,
        column: 0,
        morale: ctx
            .state
            .units
            .get(&u.id)
            .map(|x| x.morale)
            .unwrap_or_default() as u8,
    }
}

/// 8.3.2: the Morale Check a Square (a unit's or a Line Extension's) passes to move, logged as
/// a `movement-check`; 21.2: +1 with a Commander rated 2+ in the hex. Returns whether it passed.
fn square_move_roll(ctx: &mut Ctx, side: &str, u: &Unit, at: Hex) -> Result<bool, Refusal> {
    let (need, bonus) = morale_check_need(ctx, side, u, at);
    let die = ctx.dice.roll(Purpose::Morale, 6)?;
    let passed = i16::from(die.value) + i16::from(bonus) >= i16::from(need);
    ctx.emit_side(
        side,
        EventKind::MovementCheck {
            unit: u.id.clone(),
            rule: "8.3.2 Square movement".into(),
            need,
            dice: vec![die],
            passed,
        },
    );
    Ok(passed)
}

/// 8.3.2: a Square moves only after passing a Morale Check; failing, it becomes DG and
/// Column and has spent all its MP. Returns whether it may move.
fn square_check(ctx: &mut Ctx, side: &str, u: &Unit, at: Hex) -> Result<bool, Refusal> {
    if square_move_roll(ctx, side, u, at)? {
        return Ok(true);
    }
    let st = ctx.state.units.get(&u.id).cloned().unwrap_or_default();
    let spent = ctx
        .state
        .movement
        .get(&u.id)
        .map(|x| x.spent_in(ctx.state.turn, ctx.state.player).halves)
        .unwrap_or_default();
    let left = ctx
        .eng
        .movement
        .allowance_halves("line")
        .saturating_sub(spent);
    // 17.4.7, 16.5.8: "A Square that attempts to move but fails its Morale Check still counts
    // as moving": a move of no hexes from where it stands, so Opportunity Fire and Reaction
    // Charges are offered at its hex (decision 0159).
    ctx.emit_side(
        side,
        EventKind::PieceMoved {
            piece: u.id.clone(),
            from: Some(at),
            to: at,
            path: vec![at],
            half_mp: Some(0),
            left: Vec::new(),
            facings: Vec::new(),
        },
    );
    ctx.emit_side(
        side,
        formation_event(
            u,
            UnitFormation::Square,
            column_for(ctx.eng.scenario, side),
            left,
            "8.3.2",
        ),
    );
    if st.morale > MoraleState::Disorganized {
        ctx.emit_side(
            side,
            EventKind::MoraleDegraded {
                unit: u.id.clone(),
                morale: MoraleState::Disorganized,
                rule: "8.3.2".into(),
                reason: "failed the Square's Morale Check to move".into(),
                extension: None,
            },
        );
    }
    Ok(false)
}

/// `column`: half-points its place in an arriving column cost before it moved (12.6.1),
/// charged with the move.
fn emit_move(ctx: &mut Ctx, side: &str, u: &Unit, r: &Ruling, column: u32, class: &str) {
    let (from, to) = (r.path[0], r.path[r.path.len() - 1]);
    ctx.emit_side(
        side,
        EventKind::PieceMoved {
            piece: u.id.clone(),
            from: Some(from),
            to,
            path: r.path.clone(),
            half_mp: Some(r.charged + column),
            left: r.left_at_each_hex(),
            facings: r.facing_at_each_hex(),
        },
    );
    emit_move_effects(ctx, side, u, None, r, class);
    let known = ctx.state.movement.get(&u.id).and_then(|x| x.facing);
    if let Some(f) = r.facing
        && known != Some(f)
    {
        // 10.0: the corner it ends facing; its turns are in the move's cost.
        ctx.emit_side(
            side,
            EventKind::FacingChanged {
                unit: u.id.clone(),
                from: known,
                to: f,
                half_mp: 0,
                rule: "10.1".into(),
            },
        );
    }
}

/// What a move's path did to the mover's Morale State and MP, for a unit or (with `extension`,
/// its hex at the end of the move) its Line Extension, which takes them as any unit does
/// (13.1.1, 13.1.2). Step by step: 11.3.1's Morale Degradation, then (12.1.5) the one-hex move's, then
// (12.2.5: "implement the Morale Degradation first") the terrain's Sh/DG. The MP the unit
// loses for them are in the ruling (`halved`), so none are halved here.
fn emit_move_effects(
    ctx: &mut Ctx,
    side: &str,
    u: &Unit,
    extension: Option<Hex>,
    r: &Ruling,
    class: &str,
) {
    let mut zoi = r.zoi_degradations.iter().peekable();
    let mut entered = r.entry_effects.iter().peekable();
    for s in &r.steps {
        if zoi.next_if(|h| **h == s.to).is_some() {
            super::zones::degrade_part(
                ctx,
                side,
                &u.id,
                extension,
                "11.3.1",
                format!(
                    "moved directly from one enemy Zone of Influence hex into another at {}",
                    s.to
                ),
                0,
            );
        }
        if r.minimum_move {
            // 12.1.5: the one-hex move costs a Morale State.
            super::zones::degrade_part(
                ctx,
                side,
                &u.id,
                extension,
                "12.1.5",
                format!(
                    "moved one hex with {} MP left for a {} MP step",
                    show_halves(r.remaining),
                    show_halves(r.cost)
                ),
                0,
            );
        }
        if entered.next_if(|h| **h == s.to).is_some() {
            super::zones::terrain_entry(ctx, side, &u.id, extension, class, s.from, s.to, "12.2.5");
        }
    }
    if r.halved > 0 {
        let mut reason = String::from("became Disorganized while moving: remaining MP halved");
        // 12.1.2 with 11.3.2: what it kept does not pay for the rest of the path.
        if let (Some(short), Some(end)) = (r.halted_short_of, r.path.last()) {
            reason.push_str(&format!(
                "; what it kept pays for the path only as far as {end}: it stops there, short of {short}"
            ));
        }
        ctx.emit_side(
            side,
            EventKind::MovementPointsLost {
                unit: u.id.clone(),
                half_mp: r.halved,
                rule: "12.1.2".into(),
                reason,
                extension,
            },
        );
    }
}

/// What a move would be, without making it (`staffwork path`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Explained {
    pub piece: String,
    pub formation: UnitFormation,
    pub mover: Mover,
    pub ruling: Ruling,
}

impl super::Engine<'_> {
    /// The ruling on moving unit `piece` to `to` (along `given`, else the cheapest path) as the
    /// game stands: its class, allowance, MP already spent, and each step's cost and rule.
    pub fn explain_move(
        &self,
        state: &super::GameState,
        piece: &str,
        to: Hex,
        given: &[Hex],
    ) -> Result<Explained, Refusal> {
        self.explain_move_with(state, piece, to, given, None, 0)
    }

    /// [`Self::explain_move`] with the end facing asked for (10.1) and Forced March sets
    /// (12.5.6; no die is rolled: the ruling shows the MP it would have).
    pub fn explain_move_with(
        &self,
        state: &super::GameState,
        piece: &str,
        to: Hex,
        given: &[Hex],
        face: Option<Corner>,
        forced_march: u8,
    ) -> Result<Explained, Refusal> {
        let mut dice = crate::rules::dice::ScriptedDice::new();
        let ctx = Ctx::preview(self, state, &mut dice);
        let s = self.scenario;
        let u = s.unit(piece).ok_or_else(|| {
            Refusal::new(
                "unknown-unit",
                "12.0",
                format!("`{piece}` is not a unit of this scenario"),
                "see `staffwork scenario show` for unit ids (commanders move by their own costs, 6.4.7)",
            )
        })?;
        let from = state.positions.get(piece).copied().ok_or_else(|| {
            Refusal::new(
                "not-on-map",
                "12.6",
                format!("`{piece}` is not on the map yet"),
                "it enters as a reinforcement",
            )
        })?;
        let formation = formation_now(s, &ctx.state, u);
        let mut m = mover(&ctx, u, formation)?;
        super::extensions::refuse_if_apart(&ctx.state, u, to)?;
        m.face = face.or_else(|| stack_facing(&ctx, &u.side, u, to));
        if face.is_some() && m.facing.is_none() {
            return Err(all_around(u, from));
        }
        if forced_march > 0 {
            forced_march_allowed(&ctx, u, formation, forced_march, from)?;
            m.allowance += u32::from(forced_march) * self.movement.cost("forced_march_step");
            m.road_only = true;
        }
        let occ = occupancy(&ctx, &u.side, &u.id);
        let ruling = if given.is_empty() {
            path::cheapest(&self.move_map, self.movement, &m, &occ, from, to)
        } else {
            let mut p = given.to_vec();
            if p.first() != Some(&from) {
                p.insert(0, from);
            }
            if p.last() != Some(&to) {
                p.push(to);
            }
            path::check_path(&self.move_map, self.movement, &m, &occ, &p)
        }
        .map_err(refusal)?;
        Ok(Explained {
            piece: piece.to_string(),
            formation,
            mover: m,
            ruling,
        })
    }
}

/// Talavera scenario 2, Ruffin's Attack: "On the 9:00 p.m. turn each of Ruffin's brigades must
/// roll 1 die. On a roll of 4–6 the movement allowance for that unit and its skirmishers is
/// halved for that turn only." Rolled as the owner's Operations window opens, for the infantry
/// of every division Ruffin commands (our Skirmishers are not tied to a brigade: decision 0086).
pub(super) fn ruffin_night_attack(ctx: &mut Ctx, side: &str) -> Result<(), Refusal> {
    use chrono::Timelike;
    const RULE: &str = "talavera-ruffin-night-attack";
    if !has(ctx, RULE) {
        return Ok(());
    }
    let s = ctx.eng.scenario;
    let at_nine = ctx
        .eng
        .turn_info(ctx.state.turn)
        .is_some_and(|t| t.time.hour() == 21 && t.time.minute() == 0);
    if !at_nine {
        return Ok(());
    }
    let mut brigades: Vec<String> = s
        .formations
        .iter()
        .filter(|f| f.side == side && f.commander.as_deref() == Some("ruffin"))
        .flat_map(|f| super::oob::member_units(s, &ctx.state, &f.id))
        .filter(|id| {
            s.unit(id).is_some_and(|u| u.kind == UnitKind::Infantry)
                && ctx.state.positions.contains_key(id)
        })
        .collect();
    brigades.sort();
    brigades.dedup();
    for unit in brigades {
        let die = ctx.dice.roll(Purpose::Special, 6)?;
        let halved = die.value >= 4;
        ctx.emit_side(
            side,
            EventKind::AllowanceHalved {
                unit,
                rule: "Ruffin's Attack (Talavera scenario 2)".into(),
                dice: vec![die],
                halved,
            },
        );
    }
    Ok(())
}
