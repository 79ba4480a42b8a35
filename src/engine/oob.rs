//! Order-of-battle questions the command rules ask: who commands a command, where its hub
//! stands, what rating receives its orders, which sub-units it counts (6.1, 6.4 box, 6.7, 6.9
//! box). Pure reads over the scenario and the state.

use crate::engine::event::CommandInit;
use crate::engine::state::GameState;
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
        independent: f.independent,
    });
    let u = s
        .units
        .iter()
        .filter(|u| is_brigade(u.kind))
        .map(|u| CommandInit {
            id: u.id.clone(),
            side: u.side.clone(),
            parent: Some(u.parent.clone()),
            independent: u.independent,
        });
    f.chain(u).collect()
}

/// The piece that receives a command's orders and anchors its command range: the HQ of an army
/// or corps, the commander of a division, the brigade itself (6.4 box).
pub fn hub_piece(s: &Scenario, command: &str) -> Option<String> {
    match s.command(command)? {
        OobRef::Formation(f) => match f.echelon {
            Echelon::Army | Echelon::Corps => Some(hq_piece(&f.id)),
            Echelon::Division => f.commander.clone(),
        },
        OobRef::Unit(u) => Some(u.id.clone()),
    }
}

/// The commander of a formation (none for a brigade).
pub fn commander_of<'a>(s: &'a Scenario, command: &str) -> Option<&'a crate::scenario::Commander> {
    match s.command(command)? {
        OobRef::Formation(f) => s.commander(f.commander.as_deref()?),
        OobRef::Unit(_) => None,
    }
}

/// Receiver rating for acceptance (6.4 box): Army HQ 3; corps and division their commander's
/// rating; a brigade 2.
pub fn receiver_rating(s: &Scenario, command: &str) -> Option<i32> {
    match s.command(command)? {
        OobRef::Formation(f) if f.echelon == Echelon::Army => Some(3),
        OobRef::Formation(_) => commander_of(s, command).map(|c| i32::from(c.rating)),
        OobRef::Unit(_) => Some(2),
    }
}

/// Rating used for Attack Stoppage step 2 and Initiative: the commander's, or 2 for a brigade
/// (6.6.1.3, 6.7.2).
pub fn command_rating(s: &Scenario, command: &str) -> u8 {
    commander_of(s, command).map_or(2, |c| c.rating)
}

/// Echelon of a command; brigades are `None`.
pub fn echelon(s: &Scenario, command: &str) -> Option<Echelon> {
    match s.command(command)? {
        OobRef::Formation(f) => Some(f.echelon),
        OobRef::Unit(_) => None,
    }
}

/// Parent formation id of a command.
pub fn parent(s: &Scenario, command: &str) -> Option<String> {
    match s.command(command)? {
        OobRef::Formation(f) => f.parent.clone(),
        OobRef::Unit(u) => Some(u.parent.clone()),
    }
}

/// Is `ancestor` above `command` in the tree?
pub fn is_ancestor(s: &Scenario, ancestor: &str, command: &str) -> bool {
    let mut cur = parent(s, command);
    let mut guard = 0;
    while let Some(p) = cur {
        if p == ancestor {
            return true;
        }
        guard += 1;
        if guard > 64 {
            return false;
        }
        cur = parent(s, &p);
    }
    false
}

/// Direct sub-units of a command for Attack Stoppage (6.7.2, 6.9 box): for a corps its
/// divisions and the brigades not in a division; for a division its brigades; a brigade is one
/// of itself. Independent sub-units do not count; artillery never counts. Only sub-units on the
/// map count (6.7.3).
pub fn sub_units(s: &Scenario, state: &GameState, command: &str) -> Vec<String> {
    let independent = |id: &str| state.commands.get(id).is_some_and(|c| c.independent);
    let on_map = |id: &str| hub_piece(s, id).is_some_and(|p| state.positions.contains_key(&p));
    match s.command(command) {
        Some(OobRef::Unit(u)) if on_map(&u.id) => vec![u.id.clone()],
        Some(OobRef::Unit(_)) => Vec::new(),
        Some(OobRef::Formation(f)) => {
            let divisions = s
                .child_formations(&f.id)
                .filter(|d| d.echelon == Echelon::Division)
                .map(|d| d.id.clone());
            let brigades = s
                .child_units(&f.id)
                .filter(|u| is_brigade(u.kind))
                .map(|u| u.id.clone());
            divisions
                .chain(brigades)
                .filter(|id| !independent(id) && on_map(id))
                .collect()
        }
        None => Vec::new(),
    }
}

/// Units that belong to a command and move with it (brigades, batteries, skirmishers), through
/// non-independent sub-formations.
pub fn member_units(s: &Scenario, state: &GameState, command: &str) -> Vec<String> {
    match s.command(command) {
        Some(OobRef::Unit(u)) => vec![u.id.clone()],
        Some(OobRef::Formation(f)) => {
            let mut out: Vec<String> = s
                .child_units(&f.id)
                .filter(|u| !state.commands.get(&u.id).is_some_and(|c| c.independent))
                .map(|u| u.id.clone())
                .collect();
            for d in s.child_formations(&f.id) {
                if !state.commands.get(&d.id).is_some_and(|c| c.independent) {
                    out.extend(member_units(s, state, &d.id));
                }
            }
            out
        }
        None => Vec::new(),
    }
}

/// May this command receive an Independent Order (6.8.1)? Divisions of a corps, brigades that
/// do not belong to a division, and cavalry brigades even if they do.
pub fn may_be_independent(s: &Scenario, command: &str) -> bool {
    match s.command(command) {
        Some(OobRef::Formation(f)) => {
            f.echelon == Echelon::Division
                && f.parent
                    .as_deref()
                    .and_then(|p| s.formation(p))
                    .is_some_and(|p| p.echelon == Echelon::Corps)
        }
        Some(OobRef::Unit(u)) => {
            u.kind.is_cavalry()
                || s.formation(&u.parent)
                    .is_some_and(|p| p.echelon != Echelon::Division)
        }
        None => false,
    }
}
