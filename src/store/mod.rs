//! The game file: one SQLite database per game holding the scenario as loaded, the seed, the
//! versions and tables in force, every command, and an append-only, hash-chained event log.
//!
//! `store` is the only module that touches SQLite. Every command is appended with its events in
//! one `IMMEDIATE` transaction, so a crash or a kill never leaves half a command. Owns the schema,
//! its migrations (`PRAGMA user_version`), the hash chain and read-only SQL views; must not
//! decide anything about the game.

use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::engine::{Command, Event};

/// Schema version written by this build. Older files are migrated; newer ones are refused.
pub const SCHEMA_VERSION: i64 = 2;

/// Identifies a staffwork game file (SQLite `application_id`, "SWRK").
const APPLICATION_ID: i64 = 0x5357_524B;

const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_init.sql"),
    include_str!("migrations/0003_web_seats.sql"),
];

/// The hash before the first event.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What a game file records about itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameMeta {
    pub scenario_id: String,
    /// The scenario TOML exactly as loaded, so a game never depends on the file again.
    pub scenario_toml: String,
    /// The seed of the game's dice from its first command on.
    pub seed: u64,
    /// For a branch with new dice: `(first command, seed)` spans, in order. The seed for a
    /// command is that of the last span starting at or before it; empty means `seed` throughout.
    #[serde(default)]
    pub seed_spans: Vec<(i64, u64)>,
    pub ruleset: String,
    /// staffwork version that created the game.
    pub engine_version: String,
    /// The command tables in force (TOML) and their digest.
    pub tables_toml: String,
    pub tables_hash: String,
    /// The user's combat table overrides (TOML), empty for the built-in tables.
    #[serde(default)]
    pub combat_tables_toml: String,
    /// Dice algorithm, part of the re-simulation contract.
    pub rng: String,
    /// Wall-clock creation time (metadata only; the engine never reads it).
    pub created_at: String,
    /// The game this one was branched from, if any.
    pub branched_from: Option<String>,
}

impl GameMeta {
    /// The dice seed in force for a command.
    pub fn seed_for(&self, command_seq: i64) -> u64 {
        self.seed_spans
            .iter()
            .rev()
            .find(|(from, _)| *from <= command_seq)
            .map_or(self.seed, |(_, s)| *s)
    }
}

/// One stored event with its place in the chain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredEvent {
    pub seq: i64,
    pub command_seq: i64,
    pub event: Event,
    /// The payload exactly as stored (canonical JSON).
    pub payload: String,
    pub hash: String,
}

/// One stored command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoredCommand {
    pub seq: i64,
    pub command: Command,
    /// Who gave it (side id, or `umpire`).
    pub actor: String,
}

/// Why the store refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// `staffwork new --db game.db` where game.db already exists.
    #[error("{0} already exists; choose another --db path or delete it")]
    Exists(String),
    /// `--db missing.db` for a command that needs an existing game.
    #[error("no game file at {0}; create one with `staffwork new --scenario FILE --db {0}`")]
    Missing(String),
    /// A file that is not a staffwork game (a text file, another SQLite database).
    #[error("{path} is not a staffwork game file ({why})")]
    Foreign { path: String, why: String },
    /// A game written by a newer staffwork.
    #[error(
        "{path} was written by a newer staffwork (schema {found}, this build reads up to {SCHEMA_VERSION}); upgrade staffwork to open it"
    )]
    TooNew { path: String, found: i64 },
    /// A stored payload this build cannot read.
    #[error("event {seq} cannot be read: {why}")]
    Unreadable { seq: i64, why: String },
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
}

/// A game file open for reading and appending.
pub struct Store {
    conn: Connection,
    meta: GameMeta,
}

/// Canonical JSON of an event: serde's field order is the struct order and every map in the
/// engine is a `BTreeMap`, so equal events give equal bytes.
pub fn canonical(event: &Event) -> String {
    serde_json::to_string(event).unwrap_or_default()
}

/// The chained hash of a payload: SHA-256 of the previous hash and the payload.
pub fn chain_hash(prev: &str, payload: &str) -> String {
    let mut h = Sha256::new();
    h.update(prev.as_bytes());
    h.update(b"\n");
    h.update(payload.as_bytes());
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(64);
    for b in h.finalize() {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0x0f)]));
    }
    out
}

/// The `kind` of an event, read from its canonical payload (the tag of its flattened
/// `EventKind`): the same string as [`Event::kind_name`] without serialising the event a second
/// time into a `serde_json::Value`.
fn kind_of(payload: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Kind<'a> {
        #[serde(borrow)]
        kind: std::borrow::Cow<'a, str>,
    }
    serde_json::from_str::<Kind>(payload)
        .ok()
        .map(|k| k.kind.into_owned())
}

fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let app: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    if version == SCHEMA_VERSION && app == APPLICATION_ID {
        // Nothing to do: opening a current file must not write (a write transaction here cost a
        // WAL commit with its fsync, and a checkpoint on close, on every open).
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    tx.commit()?;
    Ok(())
}

fn configure(conn: &Connection) -> Result<(), StoreError> {
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(())
}

impl Store {
    /// Create a new game file. Refuses to overwrite an existing file.
    pub fn create(path: &Path, meta: &GameMeta) -> Result<Store, StoreError> {
        if path.exists() {
            return Err(StoreError::Exists(path.display().to_string()));
        }
        let mut conn = Connection::open(path)?;
        configure(&conn)?;
        migrate(&mut conn)?;
        let json = serde_json::to_string(meta).unwrap_or_default();
        conn.execute("INSERT INTO game (id, meta) VALUES (1, ?1)", params![json])?;
        Ok(Store {
            conn,
            meta: meta.clone(),
        })
    }

    /// A game held in memory only (conformance cases, what-if runs): same schema and chain.
    pub fn in_memory(meta: &GameMeta) -> Result<Store, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        migrate(&mut conn)?;
        let json = serde_json::to_string(meta).unwrap_or_default();
        conn.execute("INSERT INTO game (id, meta) VALUES (1, ?1)", params![json])?;
        Ok(Store {
            conn,
            meta: meta.clone(),
        })
    }

    /// Open an existing game file, migrating an older schema; refuses foreign or newer files.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let p = path.display().to_string();
        if !path.exists() {
            return Err(StoreError::Missing(p));
        }
        let foreign = |why: &str| StoreError::Foreign {
            path: p.clone(),
            why: why.to_string(),
        };
        let mut conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
            .map_err(|e| foreign(&e.to_string()))?;
        let app: i64 = conn
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .map_err(|_| foreign("not an SQLite database"))?;
        if app != APPLICATION_ID {
            return Err(foreign("its application id is not staffwork's"));
        }
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::TooNew {
                path: p,
                found: version,
            });
        }
        configure(&conn)?;
        migrate(&mut conn)?;
        let json: Option<String> = conn
            .query_row("SELECT meta FROM game WHERE id = 1", [], |r| r.get(0))
            .optional()?;
        let meta = json
            .and_then(|j| serde_json::from_str(&j).ok())
            .ok_or_else(|| foreign("it has no readable game record"))?;
        Ok(Store { conn, meta })
    }

    pub fn meta(&self) -> &GameMeta {
        &self.meta
    }

    /// Number of events and the last hash.
    pub fn head(&self) -> Result<(i64, String), StoreError> {
        let row: Option<(i64, String)> = self
            .conn
            .query_row(
                "SELECT seq, hash FROM event ORDER BY seq DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        Ok(row.unwrap_or((0, GENESIS.to_string())))
    }

    /// Append one command and its events in one transaction, extending the hash chain.
    pub fn append(
        &mut self,
        actor: &str,
        command: &Command,
        events: &[Event],
    ) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (mut seq, mut prev): (i64, String) = tx
            .query_row(
                "SELECT seq, hash FROM event ORDER BY seq DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?
            .unwrap_or((0, GENESIS.to_string()));
        let command_seq: i64 =
            tx.query_row("SELECT COALESCE(MAX(seq), 0) + 1 FROM command", [], |r| {
                r.get(0)
            })?;
        let cjson = serde_json::to_string(command).unwrap_or_default();
        tx.execute(
            "INSERT INTO command (seq, actor, payload) VALUES (?1, ?2, ?3)",
            params![command_seq, actor, cjson],
        )?;
        {
            let mut ins = tx.prepare_cached(
                "INSERT INTO event (seq, command_seq, turn, kind, visibility, payload, hash) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for e in events {
                seq += 1;
                let payload = canonical(e);
                let hash = chain_hash(&prev, &payload);
                let vis = match &e.visibility {
                    crate::engine::Visibility::Public => "public".to_string(),
                    crate::engine::Visibility::Umpire => "umpire".to_string(),
                    crate::engine::Visibility::Side(s) => format!("side:{s}"),
                };
                let kind = kind_of(&payload).unwrap_or_else(|| e.kind_name());
                ins.execute(params![
                    seq,
                    command_seq,
                    i64::from(e.turn),
                    kind,
                    vis,
                    payload,
                    hash
                ])?;
                prev = hash;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The sequence number the next command will get.
    pub fn next_command_seq(&self) -> Result<i64, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT COALESCE(MAX(seq), 0) + 1 FROM command", [], |r| {
                r.get(0)
            })?)
    }

    /// Every command, in order.
    pub fn commands(&self) -> Result<Vec<StoredCommand>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT seq, actor, payload FROM command ORDER BY seq")?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, actor, payload) = row?;
            let command = serde_json::from_str(&payload).map_err(|e| StoreError::Unreadable {
                seq,
                why: format!("command: {e}"),
            })?;
            out.push(StoredCommand {
                seq,
                command,
                actor,
            });
        }
        Ok(out)
    }

    /// Every event, in order, as stored (payload and hash included).
    pub fn events(&self) -> Result<Vec<StoredEvent>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT seq, command_seq, payload, hash FROM event ORDER BY seq")?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (seq, command_seq, payload, hash) = row?;
            let event = serde_json::from_str(&payload).map_err(|e| StoreError::Unreadable {
                seq,
                why: e.to_string(),
            })?;
            out.push(StoredEvent {
                seq,
                command_seq,
                event,
                payload,
                hash,
            });
        }
        Ok(out)
    }

    /// Check the hash chain; returns the first event whose hash does not follow, if any.
    pub fn verify_chain(&self) -> Result<Option<i64>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT seq, payload, hash FROM event ORDER BY seq")?;
        let mut rows = st.query([])?;
        let mut prev = GENESIS.to_string();
        let mut expect = 1;
        while let Some(r) = rows.next()? {
            let seq: i64 = r.get(0)?;
            let payload: String = r.get(1)?;
            let hash: String = r.get(2)?;
            if seq != expect || chain_hash(&prev, &payload) != hash {
                return Ok(Some(seq));
            }
            prev = hash;
            expect += 1;
        }
        Ok(None)
    }

    /// The web table's seats and the SHA-256 of each seat's join token (`seat`, `hash`), in
    /// seat order. A branch starts with none: a new game gets new links.
    pub fn seat_tokens(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT seat, token_sha256 FROM web_seat ORDER BY seat")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Set (issue or reissue) a seat's token hash in one transaction; the old link stops working.
    pub fn set_seat_token(
        &mut self,
        seat: &str,
        token_sha256: &str,
        issued_at: &str,
    ) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO web_seat (seat, token_sha256, issued_at) VALUES (?1, ?2, ?3) \
             ON CONFLICT(seat) DO UPDATE SET token_sha256 = excluded.token_sha256, \
             issued_at = excluded.issued_at",
            params![seat, token_sha256, issued_at],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Copy this game's record and its commands (with their events) up to and including
    /// `last_command` into a new file, with new metadata.
    pub fn branch(
        &self,
        out: &Path,
        meta: &GameMeta,
        last_command: i64,
    ) -> Result<Store, StoreError> {
        let mut new = Store::create(out, meta)?;
        let commands = self.commands()?;
        let events = self.events()?;
        for c in commands.iter().filter(|c| c.seq <= last_command) {
            let evs: Vec<Event> = events
                .iter()
                .filter(|e| e.command_seq == c.seq)
                .map(|e| e.event.clone())
                .collect();
            new.append(&c.actor, &c.command, &evs)?;
        }
        Ok(new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chain is part of every stored game: pin it against an independent SHA-256
    /// (Python's hashlib) so a faster hex encoding can never change a hash.
    #[test]
    fn chain_hash_matches_an_independent_sha256() {
        let h1 = chain_hash(GENESIS, r#"{"turn":1}"#);
        assert_eq!(
            h1,
            "02219dda651ed76d57c5fd5ee8fa14bf47d3bb9e9a45b95d4104d767e8313133"
        );
        assert_eq!(
            chain_hash(&h1, "payload"),
            "b945b6634a47671827a8bd96a708185caeaabcb267d55afb18efa1e9b2ca5604"
        );
    }

    /// The `kind` column is `Event::kind_name` for every event of a played game.
    #[test]
    fn kind_column_is_the_events_kind_name() {
        use crate::engine::Command;
        let (_, text) = crate::scenario::bundled_text("tutorial-hall").unwrap();
        let scenario = crate::scenario::bundled("tutorial-hall").unwrap();
        let new = crate::game::NewGame::on(text.to_string(), scenario, 183).unwrap();
        let mut game = crate::game::Game::in_memory(new).unwrap();
        let text = "2nd Div: attack up the Säter road and capture Hall.";
        let checked = crate::order::check_one(text, Some(&game.scenario), Some("imperial"));
        let order = Command::IssueOrder {
            side: "imperial".into(),
            from: "davrange".into(),
            to: "div-2".into(),
            method: crate::rules::Method::Written,
            order: crate::game::typed_order(&checked),
        };
        game.execute("imperial", &order).unwrap();
        for _ in 0..12 {
            game.execute("umpire", &Command::Advance).unwrap();
        }
        let mut st = game
            .store
            .conn
            .prepare("SELECT kind, payload FROM event ORDER BY seq")
            .unwrap();
        let rows: Vec<(String, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let kinds: std::collections::BTreeSet<&str> =
            rows.iter().map(|(k, _)| k.as_str()).collect();
        assert!(kinds.len() >= 8, "a varied game: {kinds:?}");
        for (kind, payload) in &rows {
            let event: Event = serde_json::from_str(payload).unwrap();
            assert_eq!(kind, &event.kind_name(), "{payload}");
        }
    }

    fn meta() -> GameMeta {
        GameMeta {
            scenario_id: "t".into(),
            scenario_toml: String::new(),
            seed: 1,
            seed_spans: Vec::new(),
            ruleset: "nbs-3.0".into(),
            engine_version: "0".into(),
            tables_toml: String::new(),
            tables_hash: String::new(),
            combat_tables_toml: String::new(),
            rng: String::new(),
            created_at: String::new(),
            branched_from: None,
        }
    }

    /// Opening a current game file writes nothing, so it needs no write lock: it succeeds while
    /// another connection holds one (a reader never waits for a writer in WAL mode).
    #[test]
    fn opening_a_current_file_takes_no_write_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.db");
        drop(Store::create(&path, &meta()).unwrap());
        let writer = Connection::open(&path).unwrap();
        writer.execute_batch("BEGIN IMMEDIATE").unwrap();
        let store = Store::open(&path).expect("opens while another connection writes");
        assert_eq!(store.meta(), &meta());
        writer.execute_batch("ROLLBACK").unwrap();
    }
}
