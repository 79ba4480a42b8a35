//! How a seat numbers orders (issue 15, decision 0160): the engine numbers orders across both
//! sides (`GameState::next_order_number`), so a side shown its own orders 1, 2, 5 would learn
//! that the enemy wrote 3 and 4. A side's seat therefore sees and types its own orders as 1, 2,
//! 3 … in the order they were written; an order that is not its own (a Loose Cannon order it
//! wrote for the enemy, 6.6.1.6) is shown without a number. The umpire, and an observer once the
//! game is over, see the engine's numbers.
//!
//! Owns the mapping both ways (engine number ↔ the seat's number) and rewriting an event, or an
//! engine-written sentence, into the seat's numbers. Must not print, read files or decide
//! rules; the record keeps the engine's numbers (replay and old games are unchanged).

use crate::engine::{Event, GameState};

use super::{Viewer, effective};

/// The number shown for an order that is not the seat's own: no number at all (0 in JSON,
/// "an order" in words).
pub const HIDDEN: u32 = 0;

/// A seat's order numbers.
#[derive(Clone, Debug)]
pub struct OrderNumbers {
    /// `None`: the engine's numbers (the umpire). `Some(side, own)`: the side's own orders'
    /// engine numbers, ascending; the seat's number of `own[i]` is `i + 1`. An observer while
    /// the game runs owns none.
    own: Option<(String, Vec<u32>)>,
}

impl OrderNumbers {
    /// The numbering a seat uses in this state of the game.
    pub fn for_seat(state: &GameState, viewer: &Viewer) -> Self {
        let side = match effective(viewer, state) {
            Viewer::Umpire => return OrderNumbers { own: None },
            Viewer::Side(s) => s,
            Viewer::Observer => String::new(),
        };
        let own = state
            .orders
            .values()
            .filter(|o| o.side == side)
            .map(|o| o.number)
            .collect();
        OrderNumbers {
            own: Some((side, own)),
        }
    }

    /// The engine's own numbers (the umpire's seat).
    pub fn is_engine(&self) -> bool {
        self.own.is_none()
    }

    /// Take in orders these events record that the state does not hold yet (a previewed order
    /// gets the number it would have).
    pub fn learn(&mut self, events: &[Event]) {
        let Some((side, own)) = &mut self.own else {
            return;
        };
        for e in events {
            if let crate::engine::EventKind::OrderIssued { order }
            | crate::engine::EventKind::PresetOrder { order } = &e.kind
                && order.side == *side
                && own.last().is_none_or(|l| *l < order.number)
            {
                own.push(order.number);
            }
        }
    }

    /// The number the seat sees for an engine number: its own order's place among its orders,
    /// or [`HIDDEN`] for an order that is not its own.
    pub fn shown(&self, engine: u32) -> u32 {
        match &self.own {
            None => engine,
            Some((_, own)) => own
                .binary_search(&engine)
                .map_or(HIDDEN, |i| u32::try_from(i + 1).unwrap_or(HIDDEN)),
        }
    }

    /// The engine number of the order the seat calls `shown`; `None` when the seat has no such
    /// order (the same answer for an enemy order and for none at all).
    pub fn engine(&self, shown: u32) -> Option<u32> {
        match &self.own {
            None => Some(shown),
            Some((_, own)) => (shown as usize)
                .checked_sub(1)
                .and_then(|i| own.get(i))
                .copied(),
        }
    }

    /// An event in the seat's numbers. Every order number in the event vocabulary is a field
    /// named `order` (a number, or the record whose `number` it is), so the serialised form is
    /// walked rather than matched: a variant added later cannot slip through with the engine's
    /// number. Sentences the engine wrote into the event (`reason`, a random event's `text`,
    /// its `candidates` and `chosen`) are renumbered too; orders' and messages' own text, which
    /// people wrote, is not. A retraction's count of commands no side saw is not shown.
    pub fn event(&self, e: &Event) -> Event {
        if self.is_engine() {
            return e.clone();
        }
        let Ok(mut v) = serde_json::to_value(e) else {
            return e.clone();
        };
        self.walk(&mut v);
        if let Some(o) = v.as_object_mut()
            && o.get("kind").and_then(|k| k.as_str()) == Some("retracted")
        {
            o.insert("commands".into(), 0.into());
        }
        serde_json::from_value(v).unwrap_or_else(|_| e.clone())
    }

    fn walk(&self, v: &mut serde_json::Value) {
        let Some(o) = v.as_object_mut() else {
            return;
        };
        // A message's text is what a person wrote, like an order's.
        let written = o.get("kind").and_then(|k| k.as_str()) == Some("message-sent");
        for (key, x) in o.iter_mut() {
            match (key.as_str(), x) {
                ("order", serde_json::Value::Number(n)) => {
                    let shown = n
                        .as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .map_or(HIDDEN, |n| self.shown(n));
                    *n = shown.into();
                }
                ("order", serde_json::Value::Object(record)) => {
                    if let Some(serde_json::Value::Number(n)) = record.get_mut("number") {
                        let shown = n
                            .as_u64()
                            .and_then(|n| u32::try_from(n).ok())
                            .map_or(HIDDEN, |n| self.shown(n));
                        *n = shown.into();
                    }
                }
                ("reason", serde_json::Value::String(s)) => *s = self.text(s),
                ("text", serde_json::Value::String(s)) if !written => *s = self.text(s),
                ("chosen", serde_json::Value::String(s)) => *s = self.bare(s),
                ("candidates", serde_json::Value::Array(a)) => {
                    for c in a.iter_mut() {
                        if let serde_json::Value::String(s) = c {
                            *s = self.bare(s);
                        }
                    }
                }
                (_, x @ serde_json::Value::Object(_)) => self.walk(x),
                (_, serde_json::Value::Array(a)) => a.iter_mut().for_each(|x| self.walk(x)),
                _ => {}
            }
        }
    }

    /// A bare order number written as text (a random event's candidate orders).
    fn bare(&self, s: &str) -> String {
        match s.parse::<u32>() {
            Ok(n) if !s.starts_with('0') => self.shown(n).to_string(),
            _ => s.to_string(),
        }
    }

    /// An engine-written sentence in the seat's numbers: every "order N" (also in
    /// "--order N") becomes the seat's number, or "an order" for one that is not its own.
    pub fn text(&self, s: &str) -> String {
        if self.is_engine() {
            return s.to_string();
        }
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(i) = find_order_word(rest) {
            let after = &rest[i + "order ".len()..];
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let boundary = after[digits..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric());
            let n = after[..digits].parse::<u32>().ok().filter(|_| boundary);
            match n {
                Some(n) => {
                    out.push_str(&rest[..i]);
                    match self.shown(n) {
                        HIDDEN => {
                            // "order N" → "an order", keeping a capital: "Order N" → "An order".
                            let cap = rest[i..].starts_with('O');
                            out.push_str(if cap { "An order" } else { "an order" });
                        }
                        m => {
                            out.push_str(&rest[i..i + "order ".len()]);
                            out.push_str(&m.to_string());
                        }
                    }
                    rest = &after[digits..];
                }
                None => {
                    out.push_str(&rest[..i + "order ".len()]);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// Where "order " (or "Order ") starts as a word of its own, not inside "border ".
fn find_order_word(s: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(j) = s[from..].find("rder ") {
        let i = from + j;
        if i >= 1 {
            let o = i - 1;
            let first = s.as_bytes()[o];
            let before = s[..o].chars().next_back();
            if (first == b'o' || first == b'O') && !before.is_some_and(char::is_alphanumeric) {
                return Some(o);
            }
        }
        from = i + "rder ".len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(own: &[u32]) -> OrderNumbers {
        OrderNumbers {
            own: Some(("british".into(), own.to_vec())),
        }
    }

    #[test]
    fn a_side_counts_only_its_own_orders() {
        let n = side(&[1, 2, 5, 9]);
        assert_eq!(
            [1, 2, 3, 4, 5, 9].map(|x| n.shown(x)),
            [1, 2, HIDDEN, HIDDEN, 3, 4]
        );
        assert_eq!(n.engine(3), Some(5));
        assert_eq!(n.engine(0), None);
        assert_eq!(n.engine(5), None);
    }

    #[test]
    fn sentences_are_renumbered_word_by_word() {
        let n = side(&[4, 7]);
        assert_eq!(
            n.text("order 7 arrived (6.4.7); see `staffwork relay --order 4`"),
            "order 2 arrived (6.4.7); see `staffwork relay --order 1`"
        );
        assert_eq!(n.text("Order 3 is lost"), "An order is lost");
        assert_eq!(
            n.text("the border 7 and order 12a"),
            "the border 7 and order 12a"
        );
        assert_eq!(OrderNumbers { own: None }.text("order 7"), "order 7");
    }
}
