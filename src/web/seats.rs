//! Seats and join links: who sits at the web table and how they prove it.
//!
//! A join link carries a random 128-bit token from the operating system's RNG (the web is not
//! the engine, so this randomness never touches the game's dice). Only the token's SHA-256 is
//! kept, in the game file, through `store` (see [`super::backend::Backend::set_seat_token`]).
//! Visiting the link sets an HttpOnly, SameSite=Strict cookie holding the token and redirects
//! to a URL without it. Owns: seat names, token making and hashing, the cookie, the
//! per-seat CSRF token. Must not: decide what a seat sees (that is `crate::view`, asked through `app` by `backend`).

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use crate::text::hex;

/// A place at the table.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Seat {
    Umpire,
    Side(String),
    Observer,
}

/// The cookie that carries a seat's token.
pub const COOKIE: &str = "staffwork_seat";

impl Seat {
    /// The seat's key in the game file: `umpire`, `observer` or `side:<id>`.
    pub fn key(&self) -> String {
        match self {
            Seat::Umpire => "umpire".into(),
            Seat::Observer => "observer".into(),
            Seat::Side(s) => format!("side:{s}"),
        }
    }

    /// The seat a key names (`None` for anything else).
    pub fn from_key(key: &str) -> Option<Seat> {
        match key {
            "umpire" => Some(Seat::Umpire),
            "observer" => Some(Seat::Observer),
            _ => key
                .strip_prefix("side:")
                .filter(|s| !s.is_empty())
                .map(|s| Seat::Side(s.to_string())),
        }
    }

    /// The seat's home page.
    pub fn home(&self) -> &'static str {
        match self {
            Seat::Umpire => "/umpire",
            Seat::Side(_) => "/play",
            Seat::Observer => "/observe",
        }
    }
}

/// A new random 128-bit token, as 32 lowercase hex digits, from the OS RNG.
pub fn new_token() -> Result<String, String> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| format!("the operating system's RNG failed: {e}"))?;
    Ok(hex(&b))
}

/// The SHA-256 of a token, in hex: what the game file keeps.
pub fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// The CSRF token of a seat's session: derived from its secret token, so it needs no storage,
/// changes when the link is reissued, and cannot be guessed by another site.
pub fn csrf_token(token: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"staffwork-csrf\n");
    h.update(token.as_bytes());
    hex(&h.finalize()[..16])
}

/// Is this a well-formed token (32 lowercase hex digits)?
pub fn well_formed(token: &str) -> bool {
    token.len() == 32
        && token
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The seats of a game by token hash.
#[derive(Default, Debug)]
pub struct SeatTable {
    by_hash: BTreeMap<String, Seat>,
}

impl SeatTable {
    /// Build from the stored (seat key, hash) rows; unknown keys are ignored.
    pub fn from_rows(rows: &[(String, String)]) -> SeatTable {
        let mut by_hash = BTreeMap::new();
        for (key, hash) in rows {
            if let Some(seat) = Seat::from_key(key) {
                by_hash.insert(hash.clone(), seat);
            }
        }
        SeatTable { by_hash }
    }

    /// The seat a token opens, if any.
    pub fn seat(&self, token: &str) -> Option<Seat> {
        if !well_formed(token) {
            return None;
        }
        self.by_hash.get(&token_hash(token)).cloned()
    }

    /// Does this seat have a link?
    pub fn has(&self, seat: &Seat) -> bool {
        self.by_hash.values().any(|s| s == seat)
    }

    /// Replace a seat's link (the old one stops working).
    pub fn set(&mut self, seat: &Seat, hash: String) {
        self.by_hash.retain(|_, s| s != seat);
        self.by_hash.insert(hash, seat.clone());
    }
}

/// The token in a request's `Cookie` header, if any.
pub fn token_from_cookies(header: &str) -> Option<&str> {
    header
        .split(';')
        .map(str::trim)
        .find_map(|kv| kv.strip_prefix(COOKIE)?.strip_prefix('='))
}

/// The `Set-Cookie` value for a seat's token.
pub fn set_cookie(token: &str) -> String {
    format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_keys_round_trip_and_reject_junk() {
        for s in [Seat::Umpire, Seat::Observer, Seat::Side("french".into())] {
            assert_eq!(Seat::from_key(&s.key()), Some(s));
        }
        assert_eq!(Seat::from_key("side:"), None);
        assert_eq!(Seat::from_key("admin"), None);
    }

    #[test]
    fn tokens_are_128_bit_hex_and_only_their_hash_opens_a_seat() {
        let t = new_token().unwrap();
        assert!(well_formed(&t));
        assert_ne!(t, new_token().unwrap());
        let mut table = SeatTable::default();
        table.set(&Seat::Umpire, token_hash(&t));
        assert_eq!(table.seat(&t), Some(Seat::Umpire));
        assert_eq!(table.seat(&token_hash(&t)), None, "the hash is not a key");
        // Reissue: the old token stops working.
        let t2 = new_token().unwrap();
        table.set(&Seat::Umpire, token_hash(&t2));
        assert_eq!(table.seat(&t), None);
        assert_eq!(table.seat(&t2), Some(Seat::Umpire));
    }

    #[test]
    fn cookie_is_found_among_others() {
        assert_eq!(
            token_from_cookies("a=1; staffwork_seat=abc; b=2"),
            Some("abc")
        );
        assert_eq!(token_from_cookies("staffwork_seatx=abc"), None);
        assert!(set_cookie("t").contains("HttpOnly; SameSite=Strict"));
    }
}
