//! Order-of-battle questions the command rules ask: who commands a command, where its hub
//! stands, what rating receives its orders, which sub-units it counts (6.1, 6.4 box, 6.7, 6.9
//! box). Pure reads over the scenario and the state.

use crate::engine::event::CommandInit;
use crate::engine::state::{CommandState, GameState};
use crate::scenario::{Echelon, OobRef, Scenario, UnitKind};

/// The piece id of a formation's HQ (6.10).
pub fn hq_piece(formation: &str) -> String {
    format!("hq:{formation}")
}

/// Units that act as commands of their own: infantry and cavalry brigades (6.1). Batteries,
/// skirmishers and trains follow their parent and never count as sub-units (6.9 box).
pub fn is_brigade(kind: UnitKind) -> bool {
    kind.counts_as_sub_unit()
}

/// Every command of the scenario (formations, then brigades).
pub fn commands(s: &Scenario) -> Vec<CommandInit> {
    let f = s.formations.iter().map(|f| CommandInit {
        id: f.id.clone(),
        side: f.side.clone(),
        parent: f.parent.clone(),
        independent: f.independent || f.borrowed,
        borrowed: f.borrowed,
        unformed: f.temporary && f.members.is_empty() && s.child_units(&f.id).next().is_none(),
    });
    let u = s
        .units
        .iter()
        .filter(|u| is_brigade(u.kind))
        .map(|u| CommandInit {
            id: u.id.clone(),
            side: u.side.clone(),
            parent: Some(unit_parent(s, u)),
            independent: u.independent || u.borrowed,
            borrowed: u.borrowed,
            unformed: false,
        });
    f.chain(u).collect()
}

/// The piece that receives a command's orders and anchors its command range: the HQ of an army
/// or corps, the commander of a division, the brigade itself (6.4 box).
pub fn hub_piece(s: &Scenario, state: &GameState, command: &str) -> Option<String> {
    match s.command(command)? {
        OobRef::Formation(f) => match f.echelon {
            Echelon::Army | Echelon::Corps => Some(hq_piece(&f.id)),
            Echelon::Division => state.commanders.get(&f.id).cloned(),
        },
        OobRef::Unit(u) => Some(u.id.clone()),
    }
}

/// The commander of a formation as the game stands (a successor after a loss, 25; none for a
/// brigade).
pub fn commander_of<'a>(
    s: &'a Scenario,
    state: &GameState,
    command: &str,
) -> Option<&'a crate::scenario::Commander> {
    s.commander(state.commanders.get(command)?)
}

/// The formation a commander commands as the game stands. A commander who leads an army or
/// corps and a division of his own below it (Talavera T4.4 Joseph, T4.5 Sebastiani) answers
/// for the higher one: the formation whose parent he does not also command.
pub fn formation_of<'a>(state: &'a GameState, commander: &str) -> Option<&'a str> {
    let led = || {
        state
            .commanders
            .iter()
            .filter(move |(_, c)| *c == commander)
            .map(|(f, _)| f.as_str())
    };
    led()
        .find(|f| {
            parent(state, f)
                .is_none_or(|p| state.commanders.get(&p).map(String::as_str) != Some(commander))
        })
        .or_else(|| led().next())
}

/// A commander's rating as the game stands: the scenario's, unless a variant in play changes
/// it (Talavera 5.3b, 5.4a). Unknown commanders rate 0.
pub fn rating(s: &Scenario, state: &GameState, commander: &str) -> u8 {
    super::special_rules::variant_rating(&state.variants, commander)
        .or_else(|| s.commander(commander).map(|c| c.rating))
        .unwrap_or(0)
}

/// Receiver rating for acceptance (6.4 box): Army HQ 3; corps and division their commander's
/// rating; a brigade 2.
pub fn receiver_rating(s: &Scenario, state: &GameState, command: &str) -> Option<i32> {
    match s.command(command)? {
        OobRef::Formation(f) if f.echelon == Echelon::Army => Some(3),
        OobRef::Formation(_) => {
            commander_of(s, state, command).map(|c| i32::from(rating(s, state, &c.id)))
        }
        OobRef::Unit(_) => Some(2),
    }
}

/// Rating used for Attack Stoppage step 2 and Initiative: the commander's, or 2 for a brigade
/// (6.6.1.3, 6.7.2).
pub fn command_rating(s: &Scenario, state: &GameState, command: &str) -> u8 {
    commander_of(s, state, command).map_or(2, |c| rating(s, state, &c.id))
}

/// Echelon of a command; brigades are `None`.
pub fn echelon(s: &Scenario, command: &str) -> Option<Echelon> {
    match s.command(command)? {
        OobRef::Formation(f) => Some(f.echelon),
        OobRef::Unit(_) => None,
    }
}

/// Parent formation of a command as the game stands: the scenario's order of battle, changed
/// by sub-unit transfers (6.9) and dissolved temporary divisions (Vimeiro V2.3).
pub fn parent(state: &GameState, command: &str) -> Option<String> {
    state.commands.get(command)?.parent.clone()
}

/// The formation a unit acts under at the start: a temporary division it is a member of
/// (Vimeiro V2.3), else its parent in the order of battle.
pub fn unit_parent(s: &Scenario, u: &crate::scenario::Unit) -> String {
    s.temporary_division_of(&u.id)
        .map_or_else(|| u.parent.clone(), |f| f.id.clone())
}

/// Is `ancestor` above `command` in the tree?
pub fn is_ancestor(state: &GameState, ancestor: &str, command: &str) -> bool {
    let mut cur = parent(state, command);
    let mut guard = 0;
    while let Some(p) = cur {
        if p == ancestor {
            return true;
        }
        guard += 1;
        if guard > 64 {
            return false;
        }
        cur = parent(state, &p);
    }
    false
}

/// Commands whose parent is `command`, in id order.
fn children<'a>(
    state: &'a GameState,
    command: &'a str,
) -> impl Iterator<Item = (&'a String, &'a CommandState)> + 'a {
    state
        .commands
        .iter()
        .filter(move |(_, c)| c.parent.as_deref() == Some(command))
}

/// Direct sub-units of a command for Attack Stoppage (6.7.2, 6.9 box): for a corps its
/// divisions and the brigades not in a division; for a division its brigades; a brigade is one
/// of itself. Independent sub-units do not count; artillery never counts (it is not a command).
/// Only sub-units on the map count (6.7.3).
pub fn sub_units(s: &Scenario, state: &GameState, command: &str) -> Vec<String> {
    let on_map =
        |id: &str| hub_piece(s, state, id).is_some_and(|p| state.positions.contains_key(&p));
    match s.command(command) {
        Some(OobRef::Unit(u)) if on_map(&u.id) => vec![u.id.clone()],
        Some(OobRef::Unit(_)) | None => Vec::new(),
        Some(OobRef::Formation(_)) => children(state, command)
            .filter(|(id, c)| {
                !c.independent
                    && echelon(s, id).is_none_or(|e| e == Echelon::Division)
                    && on_map(id)
            })
            .map(|(id, _)| id.clone())
            .collect(),
    }
}

/// Units that belong to a command and move with it (brigades, batteries, skirmishers), through
/// non-independent sub-formations.
pub fn member_units(s: &Scenario, state: &GameState, command: &str) -> Vec<String> {
    match s.command(command) {
        Some(OobRef::Unit(u)) => vec![u.id.clone()],
        Some(OobRef::Formation(f)) => {
            // Batteries, skirmishers and trains are not commands: they stay where the scenario puts them.
            let mut out: Vec<String> = s
                .direct_units(&f.id)
                .into_iter()
                .filter(|u| !is_brigade(u.kind))
                .map(|u| u.id.clone())
                .collect();
            for (id, c) in children(state, command) {
                if c.independent {
                    continue;
                }
                match s.command(id) {
                    Some(OobRef::Unit(_)) => out.push(id.clone()),
                    Some(OobRef::Formation(_)) => out.extend(member_units(s, state, id)),
                    None => {}
                }
            }
            out
        }
        None => Vec::new(),
    }
}

/// The pieces on the map that make up a command moving as one (decision 0162): its units
/// (`member_units`), and the commanders and HQs of it and of its sub-formations that are not
/// independent. Sorted, no duplicates.
pub fn formation_pieces(s: &Scenario, state: &GameState, command: &str) -> Vec<String> {
    let mut formations = vec![command.to_string()];
    let mut i = 0;
    while let Some(f) = formations.get(i).cloned() {
        formations.extend(
            children(state, &f)
                .filter(|(id, c)| !c.independent && s.formation(id).is_some())
                .map(|(id, _)| id.clone()),
        );
        i += 1;
    }
    let mut out: std::collections::BTreeSet<String> =
        member_units(s, state, command).into_iter().collect();
    for f in &formations {
        out.extend(state.commanders.get(f).cloned());
        out.insert(hq_piece(f));
    }
    out.retain(|p| state.positions.contains_key(p));
    out.into_iter().collect()
}

/// May this command receive an Independent Order (6.8.1)? Divisions of a corps, brigades that
/// do not belong to a division, and cavalry brigades even if they do.
pub fn may_be_independent(s: &Scenario, state: &GameState, command: &str) -> bool {
    let parent_echelon = parent(state, command).and_then(|p| echelon(s, &p));
    match s.command(command) {
        Some(OobRef::Formation(f)) => {
            f.echelon == Echelon::Division && parent_echelon == Some(Echelon::Corps)
        }
        Some(OobRef::Unit(u)) => u.kind.is_cavalry() || parent_echelon != Some(Echelon::Division),
        None => false,
    }
}
