//! `staffwork los` and `staffwork path`: explain a line-of-sight or movement ruling hex by hex
//! (14.1, 12; chart p2), as text or JSON. Prints; decides nothing itself.

use crate::scenario::UnitFormation;

/// Read a formation name as the scenario format writes it (`march-column`, `limbered`, …).
pub fn parse_formation(s: &str) -> Result<UnitFormation, String> {
    serde_json::from_value(serde_json::Value::String(s.to_ascii_lowercase())).map_err(|_| {
        format!(
            "`{s}` is not a formation; expected line, column, march-column, square, skirmish, limbered or unlimbered"
        )
    })
}
