//! TEMPORARY stand-in for the command tables (replaced by the rules branch on merge).
use super::*;
use crate::provenance::Provenance;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Cell<T> {
    pub value: T,
    pub provenance: Provenance,
}

#[derive(Debug)]
pub struct CommandTables;

impl CommandTables {
    pub fn nbs() -> &'static CommandTables {
        &CommandTables
    }
    pub fn command_points(&self, r: u8) -> u8 {
        [7, 10, 13, 15, 16][usize::from(r.min(4))]
    }
    pub fn order_cost(&self, m: Method, t: OrderType) -> u8 {
        (match m {
            Method::Written => 5,
            _ => 2,
        }) + match t {
            OrderType::General => 1,
            _ => 5,
        }
    }
    pub fn acceptance_number(
        &self,
        s: i32,
        r: i32,
        m: Method,
        t: OrderType,
        c: CurrentOrder,
    ) -> i32 {
        s + r
            + match m {
                Method::InPerson => 2,
                Method::Oral => -1,
                Method::Written => 0,
            }
            + match t {
                OrderType::General => 0,
                _ => -2,
            }
            + match c {
                CurrentOrder::Engage => -1,
                CurrentOrder::General => 0,
                CurrentOrder::None => 1,
            }
    }
    pub fn acceptance(&self, n: i32, roll: u8) -> Cell<AcceptanceResult> {
        let idx = (roll / 10 - 1) * 6 + (roll % 10 - 1);
        let n = n.clamp(-3, 10);
        let dt = [14, 11, 8, 5, 3, 2, 2, 1, 1, 0, 0, -1, -1, -1][(n + 3) as usize] + 1;
        let v = if i32::from(idx) < dt {
            AcceptanceResult::Dt
        } else if i32::from(idx) < dt + 6 {
            AcceptanceResult::D6
        } else if i32::from(idx) < dt + 10 {
            AcceptanceResult::D5
        } else if i32::from(idx) < 30 - n {
            AcceptanceResult::D4
        } else {
            AcceptanceResult::A
        };
        Cell {
            value: v,
            provenance: Provenance::Assumed,
        }
    }
    pub fn initiative(&self, col: i32, roll: u8) -> Cell<InitiativeResult> {
        let col = col.clamp(0, 5) as usize;
        let lc = [14, 13, 13, 12, 12, 11][col];
        let ini = [66, 65, 64, 62, 54, 52][col];
        let v = if roll <= lc {
            InitiativeResult::LooseCannon
        } else if roll >= ini {
            InitiativeResult::Initiative
        } else {
            InitiativeResult::NoEffect
        };
        Cell {
            value: v,
            provenance: Provenance::Seed,
        }
    }
    pub fn stoppage_result(&self, sub: u32, wrecked: u32) -> Cell<u8> {
        let v = if wrecked == 0 {
            1
        } else if sub > 3 {
            1 + (wrecked * 3 / sub.max(1)) as u8
        } else {
            2 + (wrecked - 1).min(2) as u8
        };
        Cell {
            value: v.min(4),
            provenance: Provenance::Assumed,
        }
    }
    pub fn stoppage_needed(&self, result: u8, rating: u8) -> Cell<u8> {
        let col = match rating {
            0 => 0,
            1 | 2 => 1,
            _ => 2,
        };
        let t = [[4, 3, 3], [7, 6, 5], [10, 9, 8], [12, 11, 10]];
        Cell {
            value: t[usize::from(result.clamp(1, 4) - 1)][col],
            provenance: Provenance::Seed,
        }
    }
    pub fn night_stoppage_modifier(&self) -> i32 {
        -3
    }
    pub fn from_toml_str(_o: &str, _t: &str) -> Result<CommandTables, String> {
        Ok(CommandTables)
    }
    pub fn hash(&self) -> String {
        "stub".into()
    }
}
