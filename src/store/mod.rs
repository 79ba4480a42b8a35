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
use crate::text::hex;

/// Schema version written by this build. Older files are migrated; newer ones are refused.
pub const SCHEMA_VERSION: i64 = 4;

/// Identifies a staffwork game file (SQLite `application_id`, "SWRK").
const APPLICATION_ID: i64 = 0x5357_524B;

const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_init.sql"),
    include_str!("migrations/0002_integrity.sql"),
    include_str!("migrations/0003_web_seats.sql"),
    include_str!("migrations/0004_command_chain.sql"),
];

/// How long a writer waits for another writer to finish before giving up (decision 0050). A
/// command holds the write lock for milliseconds; waiting this long means something is wrong.
pub const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// The busy wait in force: [`BUSY_WAIT`], or `STAFFWORK_BUSY_WAIT_MS` when set (tests, and
/// umpires on slow shared disks).
pub fn busy_wait() -> std::time::Duration {
    std::env::var("STAFFWORK_BUSY_WAIT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(BUSY_WAIT, std::time::Duration::from_millis)
}

/// The hash before the first link of the chain (chain 1: before the first event; chain 2: the
/// link before the game record's).
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The chain format this build writes (decision 0185): 2 = the chain starts from the game record
/// (scenario, seed, tables, versions) and links every command before its events. Files created
/// before it hold chain 1 (events alone, from [`GENESIS`]); they keep it for life.
pub const CHAIN_VERSION: u32 = 2;

/// The chain format of a game record written before the field existed.
fn legacy_chain() -> u32 {
    1
}

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
    /// The user's Movement Table overrides (TOML), empty for the built-in table.
    #[serde(default)]
    pub movement_tables_toml: String,
    /// Dice algorithm, part of the re-simulation contract.
    pub rng: String,
    /// Wall-clock creation time (metadata only; the engine never reads it).
    pub created_at: String,
    /// The game this one was branched from, if any.
    pub branched_from: Option<String>,
    /// The hash chain's format ([`CHAIN_VERSION`]); absent (1) in files created before 0185.
    #[serde(default = "legacy_chain")]
    pub chain: u32,
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
    /// The payload exactly as stored (JSON).
    #[serde(skip)]
    pub payload: String,
    /// Its link in the chain (chain 2); `None` in files of chain 1.
    #[serde(skip)]
    pub hash: Option<String>,
}

/// The head of a record: how many events and commands, and the last event's hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    pub events: i64,
    pub commands: i64,
    pub hash: String,
}

/// Where a game's hash chain starts and how it runs (decision 0185).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainStart {
    /// The chain format: 1 (events alone) or 2 (the game record, then each command before its
    /// events).
    pub version: u32,
    /// The hash before the first command: [`GENESIS`] in chain 1; in chain 2 the game record's
    /// link ([`record_link`]), so an edited scenario, seed or table breaks the chain at its
    /// start.
    pub genesis: String,
}

impl ChainStart {
    /// The start of the chain of a game whose record is `meta`, stored as `meta_text`.
    pub fn of(meta: &GameMeta, meta_text: &str) -> Result<ChainStart, String> {
        match meta.chain {
            1 => Ok(ChainStart {
                version: 1,
                genesis: GENESIS.to_string(),
            }),
            2 => Ok(ChainStart {
                version: 2,
                genesis: record_link(meta_text)?,
            }),
            n => Err(format!(
                "its hash chain has format {n}; this build knows formats 1 and {CHAIN_VERSION} (upgrade staffwork to open it)"
            )),
        }
    }

    /// The head of an empty record.
    pub fn head(&self) -> Head {
        Head {
            events: 0,
            commands: 0,
            hash: self.genesis.clone(),
        }
    }
}

/// Why the store refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// `staffwork new --db game.db` where game.db already exists.
    #[error("{0} already exists; choose another path or delete it")]
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
    /// A stored payload this build cannot read (an edited row, or a newer engine's event).
    #[error("{what} {seq} cannot be read: {why}")]
    Unreadable {
        what: &'static str,
        seq: i64,
        why: String,
    },
    /// A game file whose record does not read back cleanly: rows emptied, cut, inserted or
    /// edited, or a schema version reset (`PRAGMA user_version = 0` on a file with tables).
    #[error(
        "{path} does not read back cleanly: {why}; nothing was written (check it with `staffwork replay --db {path} --verify`, or go back to a copy)"
    )]
    Corrupt { path: String, why: String },
    /// A value that could not be encoded as JSON (never expected: every engine type serialises).
    #[error("cannot encode the {what} as JSON: {why}")]
    Encode { what: &'static str, why: String },
    /// Another writer held the game file longer than the busy wait ([`busy_wait`]).
    #[error(
        "{path} is busy: another writer has held it for over {} ms; nothing was written — try again, and check no process is stuck (STAFFWORK_BUSY_WAIT_MS sets the wait)",
        busy_wait().as_millis()
    )]
    Busy { path: String },
    /// A new game file (`new`, `branch --out`) cannot be written where it was asked for.
    #[error("cannot create {path}: {why}")]
    Create { path: String, why: String },
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
}

/// A game file open for reading and appending.
pub struct Store {
    conn: Connection,
    meta: GameMeta,
    /// Where the chain starts (from the record's stored text) and its format.
    start: ChainStart,
    /// The file's path for messages (`:memory:` for an in-memory game).
    path: String,
}

/// Canonical JSON of an event: serde's field order is the struct order and every map in the
/// engine is a `BTreeMap`, so equal events give equal bytes.
pub fn canonical(event: &Event) -> Result<String, StoreError> {
    serde_json::to_string(event).map_err(|e| StoreError::Encode {
        what: "event",
        why: e.to_string(),
    })
}

/// The chained hash of a payload: SHA-256 of the previous hash and the payload.
pub fn chain_hash(prev: &str, payload: &str) -> String {
    let mut h = Sha256::new();
    h.update(prev.as_bytes());
    h.update(b"\n");
    h.update(payload.as_bytes());
    hex(&h.finalize())
}

/// The first link of a chain-2 record: the game record as stored, less `created_at` (wall
/// clock, metadata only), so the same scenario, seed and commands give the same chain whenever
/// they are played. The record is re-encoded from its stored fields, never from `GameMeta`, so
/// a field a later build adds (with a default) does not change an older file's start.
pub fn record_link(meta_text: &str) -> Result<String, String> {
    let mut record: serde_json::Value =
        serde_json::from_str(meta_text).map_err(|e| format!("its game record is not JSON: {e}"))?;
    let Some(fields) = record.as_object_mut() else {
        return Err("its game record is not a JSON object".into());
    };
    fields.remove("created_at");
    Ok(chain_hash(GENESIS, &format!("game\n{record}")))
}

/// A command's link in the chain (chain 2): what it was, who gave it, its number, chained after
/// the link before it. The actor's length comes first so no actor can pass for part of a payload.
pub fn command_link(prev: &str, seq: i64, actor: &str, payload: &str) -> String {
    chain_hash(
        prev,
        &format!("command {seq}\n{} {actor}\n{payload}", actor.len()),
    )
}

/// HMAC-SHA-256 (RFC 2104) of `message` under `key`: the receipt digest. A keyed digest, so
/// someone holding a receipt but not the file cannot test guesses about hidden events against
/// it (decision 0050).
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> String {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    let outer = Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize();
    hex(&outer)
}

/// The receipt digest of the first `events` events ending in `hash`.
fn receipt_of(key: &str, events: i64, hash: &str) -> String {
    hmac_sha256(
        key.as_bytes(),
        format!("staffwork receipt\n{events}\n{hash}").as_bytes(),
    )
}

/// `SQLITE_BUSY` past the busy wait becomes [`StoreError::Busy`]; other errors pass through.
fn busy(path: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |e| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            StoreError::Busy {
                path: path.to_string(),
            }
        }
        _ => StoreError::Sql(e),
    }
}

fn migrate(conn: &mut Connection, path: &str) -> Result<(), StoreError> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let app: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    if version == SCHEMA_VERSION && app == APPLICATION_ID {
        // Nothing to do: opening a current file must not write (a write transaction here cost a
        // WAL commit with its fsync, and a checkpoint on close, on every open).
        return Ok(());
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(busy(path))?;
    // Another process may have migrated the file while this one waited for the lock.
    let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let tables: i64 = tx.query_row(
        "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'",
        [],
        |r| r.get(0),
    )?;
    if version == 0 && tables > 0 {
        // Schema 0 with tables in it: the version was reset by hand; migrating would fail on
        // the existing tables or, worse, half-succeed.
        return Err(StoreError::Corrupt {
            path: path.to_string(),
            why: format!(
                "its schema version (PRAGMA user_version) is 0 but it holds {tables} tables — the version was reset; this build writes schema {SCHEMA_VERSION}"
            ),
        });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    tx.commit()?;
    Ok(())
}

fn configure(conn: &Connection) -> Result<(), StoreError> {
    conn.busy_timeout(busy_wait())?;
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

fn encode<T: Serialize>(what: &'static str, value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Encode {
        what,
        why: e.to_string(),
    })
}

/// The actual head of the event and command tables: the counts and the last link's hash (chain
/// 2: the last event's if it belongs to the last command, else that command's own link).
fn read_head(conn: &Connection, start: &ChainStart) -> Result<Head, StoreError> {
    let last_event: Option<(i64, i64, String)> = conn
        .query_row(
            "SELECT seq, command_seq, hash FROM event ORDER BY seq DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let last_command: Option<(i64, Option<String>)> = conn
        .query_row(
            "SELECT seq, hash FROM command ORDER BY seq DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    Ok(head_of(
        start,
        last_event
            .as_ref()
            .map(|(seq, of, hash)| (*seq, *of, hash.as_str())),
        last_command
            .as_ref()
            .map(|(seq, hash)| (*seq, hash.as_deref())),
    ))
}

/// The head of a record from its last event (number, command, hash) and its last command
/// (number, link): in chain 2 the last link is the last event's if it belongs to the last
/// command, else that command's own.
fn head_of(
    start: &ChainStart,
    last_event: Option<(i64, i64, &str)>,
    last_command: Option<(i64, Option<&str>)>,
) -> Head {
    let hash = match (start.version, last_event, last_command) {
        (1, Some((_, _, hash)), _) => hash,
        (1, None, _) => GENESIS,
        (_, Some((_, of, hash)), Some((seq, _))) if of >= seq => hash,
        // A command row without its link (edited) leaves no head hash; the chain check names it.
        (_, _, Some((_, hash))) => hash.unwrap_or_default(),
        (_, Some((_, _, hash)), None) => hash,
        (_, None, None) => &start.genesis,
    };
    Head {
        events: last_event.map_or(0, |e| e.0),
        commands: last_command.map_or(0, |c| c.0),
        hash: hash.to_string(),
    }
}

/// Why the game row's record of the head (`record`) and the tables' head disagree, if they do:
/// rows cut off the end (or added) outside staffwork without rewriting the game row.
pub fn head_mismatch(record: &Head, head: &Head) -> Option<String> {
    (record != head).then(|| {
        format!(
            "the game record says {} events and {} commands ending in {}, the file holds {} and {} ending in {} — rows were cut or added outside staffwork",
            record.events,
            record.commands,
            short(&record.hash),
            head.events,
            head.commands,
            short(&head.hash)
        )
    })
}

/// The head the game row records (updated with every append).
fn read_record(conn: &Connection) -> Result<Head, StoreError> {
    Ok(conn.query_row(
        "SELECT head_events, head_commands, head_hash FROM game WHERE id = 1",
        [],
        |r| {
            Ok(Head {
                events: r.get(0)?,
                commands: r.get(1)?,
                hash: r.get(2)?,
            })
        },
    )?)
}

fn read_commands(conn: &Connection, after: i64) -> Result<Vec<StoredCommand>, StoreError> {
    let mut st = conn.prepare_cached(
        "SELECT seq, actor, payload, hash FROM command WHERE seq > ?1 ORDER BY seq",
    )?;
    let rows = st.query_map([after], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<String>>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (seq, actor, payload, hash) = row?;
        let command = serde_json::from_str(&payload).map_err(|e| StoreError::Unreadable {
            what: "command",
            seq,
            why: e.to_string(),
        })?;
        out.push(StoredCommand {
            seq,
            command,
            actor,
            payload,
            hash,
        });
    }
    Ok(out)
}

fn read_events(conn: &Connection, after: i64) -> Result<Vec<StoredEvent>, StoreError> {
    let mut st = conn.prepare_cached(
        "SELECT seq, command_seq, payload, hash FROM event WHERE seq > ?1 ORDER BY seq",
    )?;
    let rows = st.query_map([after], |r| {
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
            what: "event",
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

/// A command row unparsed: number, actor, payload, link.
type RawCommand = (i64, String, String, Option<String>);
/// An event row unparsed: number, command, payload, hash.
type RawEvent = (i64, i64, String, String);

/// Borrow unparsed rows as links.
fn raw_links<'a>(
    commands: &'a [RawCommand],
    events: &'a [RawEvent],
) -> (Vec<CommandLink<'a>>, Vec<EventLink<'a>>) {
    (
        commands
            .iter()
            .map(|(seq, actor, payload, hash)| CommandLink {
                seq: *seq,
                actor,
                payload,
                hash: hash.as_deref(),
            })
            .collect(),
        events
            .iter()
            .map(|(seq, command_seq, payload, hash)| EventLink {
                seq: *seq,
                command_seq: *command_seq,
                payload,
                hash,
            })
            .collect(),
    )
}

/// A command row as the chain sees it: number, actor, payload text and stored link.
struct CommandLink<'a> {
    seq: i64,
    actor: &'a str,
    payload: &'a str,
    hash: Option<&'a str>,
}

/// An event row as the chain sees it.
struct EventLink<'a> {
    seq: i64,
    command_seq: i64,
    payload: &'a str,
    hash: &'a str,
}

/// The first link whose stored hash does not follow from the link before it.
#[derive(Debug, PartialEq, Eq)]
enum ChainBreak {
    Command(i64),
    Event(i64),
}

impl ChainBreak {
    fn describe(&self) -> String {
        match self {
            ChainBreak::Command(1) => "the hash chain breaks at its start: the game record (scenario, seed, tables, versions) or command 1 was altered outside staffwork".into(),
            ChainBreak::Command(seq) => format!(
                "the hash chain breaks at command {seq} (its payload, actor or hash was altered)"
            ),
            ChainBreak::Event(seq) => format!(
                "the hash chain breaks at event {seq} (its payload or hash was altered)"
            ),
        }
    }
}

/// Walk the chain from `from` over the commands and events after it — chain 1: the events
/// alone; chain 2: each command's link before its events — calling `at(events so far, hash)`
/// after every link that follows. Events must already claim recorded commands in order.
fn walk_chain(
    version: u32,
    from: &Head,
    commands: &[CommandLink],
    events: &[EventLink],
    mut at: impl FnMut(i64, &str),
) -> Option<ChainBreak> {
    let mut prev = from.hash.clone();
    let mut pending = commands.iter().peekable();
    let mut events_so_far = from.events;
    // Each event, then (`None`) the commands after the last event.
    for e in events.iter().map(Some).chain([None]) {
        let upto = e.map_or(i64::MAX, |e| e.command_seq);
        while let Some(c) = pending.next_if(|c| version >= 2 && c.seq <= upto) {
            let hash = command_link(&prev, c.seq, c.actor, c.payload);
            if c.hash != Some(hash.as_str()) {
                return Some(ChainBreak::Command(c.seq));
            }
            at(events_so_far, &hash);
            prev = hash;
        }
        let Some(e) = e else { break };
        let hash = chain_hash(&prev, e.payload);
        if hash != e.hash {
            return Some(ChainBreak::Event(e.seq));
        }
        events_so_far = e.seq;
        at(events_so_far, &hash);
        prev = hash;
    }
    None
}

/// Why a record (or the part of it after `from`) does not read back cleanly, if it does not:
/// numbering, every event belonging to a recorded command in order, the game's first command
/// being its start, and the chain (format `version`) from `from`'s hash.
fn structure_problem(
    version: u32,
    from: &Head,
    commands: &[StoredCommand],
    events: &[StoredEvent],
) -> Option<String> {
    if from.commands == 0 {
        match commands.first() {
            None => {
                return Some(
                    "it records no commands — not even the start of the game (the tables were emptied)".into(),
                );
            }
            Some(c) if !matches!(c.command, Command::Start { .. }) => {
                return Some(format!(
                    "its first command ({}) is not the start of the game",
                    c.seq
                ));
            }
            Some(_) => {}
        }
        if events.is_empty() {
            return Some("it records no events (the event table was emptied)".into());
        }
    }
    for (i, c) in commands.iter().enumerate() {
        let expect = from.commands + 1 + i as i64;
        if c.seq != expect {
            return Some(format!(
                "command {expect} is missing (the next recorded is {})",
                c.seq
            ));
        }
    }
    let newest = from.commands + commands.len() as i64;
    let mut last_command = from.commands;
    for (i, e) in events.iter().enumerate() {
        let expect = from.events + 1 + i as i64;
        if e.seq != expect {
            return Some(format!(
                "event {expect} is missing (the next recorded is {})",
                e.seq
            ));
        }
        if e.command_seq < last_command || e.command_seq > newest || e.command_seq < 1 {
            return Some(format!(
                "event {} claims command {}, which is not a recorded command in order",
                e.seq, e.command_seq
            ));
        }
        last_command = e.command_seq;
    }
    let commands: Vec<CommandLink> = commands.iter().map(StoredCommand::link).collect();
    let events: Vec<EventLink> = events.iter().map(StoredEvent::link).collect();
    walk_chain(version, from, &commands, &events, |_, _| {}).map(|b| b.describe())
}

impl StoredCommand {
    fn link(&self) -> CommandLink<'_> {
        CommandLink {
            seq: self.seq,
            actor: &self.actor,
            payload: &self.payload,
            hash: self.hash.as_deref(),
        }
    }
}

impl StoredEvent {
    fn link(&self) -> EventLink<'_> {
        EventLink {
            seq: self.seq,
            command_seq: self.command_seq,
            payload: &self.payload,
            hash: &self.hash,
        }
    }
}

/// A write transaction (`BEGIN IMMEDIATE`) on a game file: it sees the record as it stands while
/// it holds the lock, so a command decided inside it is decided on the head it appends to.
/// Dropped without [`Writer::commit`], it writes nothing.
pub struct Writer<'a> {
    tx: rusqlite::Transaction<'a>,
    path: &'a str,
    meta: &'a GameMeta,
    start: &'a ChainStart,
}

impl Writer<'_> {
    /// The game's record (seed, versions).
    pub fn meta(&self) -> &GameMeta {
        self.meta
    }

    /// The head of the record as this transaction sees it.
    pub fn head(&self) -> Result<Head, StoreError> {
        read_head(&self.tx, self.start)
    }

    /// Commands after command `after`, in order.
    pub fn commands_after(&self, after: i64) -> Result<Vec<StoredCommand>, StoreError> {
        read_commands(&self.tx, after)
    }

    /// Events after event `after`, in order.
    pub fn events_after(&self, after: i64) -> Result<Vec<StoredEvent>, StoreError> {
        read_events(&self.tx, after)
    }

    /// Refuse to write unless the record reads back cleanly from `from` (a head this process
    /// checked) to the head this transaction sees, and the game row records that head.
    pub fn check_from(&self, from: &Head) -> Result<Head, StoreError> {
        let corrupt = |why: String| StoreError::Corrupt {
            path: self.path.to_string(),
            why,
        };
        let head = self.head()?;
        if let Some(why) = head_mismatch(&read_record(&self.tx)?, &head) {
            return Err(corrupt(why));
        }
        if head == *from {
            return Ok(head);
        }
        if head.events < from.events || head.commands < from.commands {
            return Err(corrupt(format!(
                "the record shrank from {} to {} events while in use",
                from.events, head.events
            )));
        }
        let commands =
            read_commands(&self.tx, from.commands).map_err(|e| corrupt(e.to_string()))?;
        let events = read_events(&self.tx, from.events).map_err(|e| corrupt(e.to_string()))?;
        if let Some(why) = structure_problem(self.start.version, from, &commands, &events) {
            return Err(corrupt(why));
        }
        Ok(head)
    }

    /// Append one command and its events after `head` (as returned by [`Writer::check_from`]),
    /// extending the chain and the game row's record of the head; returns the new head.
    pub fn append(
        &mut self,
        head: &Head,
        actor: &str,
        command: &Command,
        events: &[Event],
    ) -> Result<Head, StoreError> {
        let command_seq = head.commands + 1;
        let cjson = encode("command", command)?;
        // Chain 2 links the command before its events; chain 1 files go on as they began.
        let link =
            (self.start.version >= 2).then(|| command_link(&head.hash, command_seq, actor, &cjson));
        self.tx.execute(
            "INSERT INTO command (seq, actor, payload, hash) VALUES (?1, ?2, ?3, ?4)",
            params![command_seq, actor, cjson, link],
        )?;
        let mut seq = head.events;
        let mut prev = link.unwrap_or_else(|| head.hash.clone());
        {
            let mut ins = self.tx.prepare_cached(
                "INSERT INTO event (seq, command_seq, payload, hash) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for e in events {
                seq += 1;
                let payload = canonical(e)?;
                let hash = chain_hash(&prev, &payload);
                ins.execute(params![seq, command_seq, payload, hash])?;
                prev = hash;
            }
        }
        let new = Head {
            events: seq,
            commands: command_seq,
            hash: prev,
        };
        self.tx.execute(
            "UPDATE game SET head_events = ?1, head_commands = ?2, head_hash = ?3 WHERE id = 1",
            params![new.events, new.commands, new.hash],
        )?;
        Ok(new)
    }

    /// Make the appended rows durable, all together.
    pub fn commit(self) -> Result<(), StoreError> {
        self.tx.commit().map_err(busy(self.path))
    }
}

/// The first 16 hex digits of a hash, for messages.
pub fn short(hash: &str) -> &str {
    hash.get(..16).unwrap_or(hash)
}

/// A file name next to `path` for writing a new game before it is renamed into place.
fn staging_path(path: &Path) -> std::path::PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "game.db".into());
    path.with_file_name(format!(".{name}.staffwork-{}.tmp", std::process::id()))
}

/// A new game file being written under a temporary name: [`Staged::publish`] renames it into
/// place once complete, so a new game or a branch is all or nothing. Dropped unpublished (an
/// error part way), the temporary file is removed.
pub struct Staged {
    store: Option<Store>,
    tmp: std::path::PathBuf,
    path: std::path::PathBuf,
}

impl Staged {
    /// The game file being written.
    pub fn store(&mut self) -> &mut Store {
        self.store
            .as_mut()
            .expect("a staged store is present until published")
    }

    /// Close the temporary file (checkpointing its log into it) and move it to its final name;
    /// refuses if a file appeared there meanwhile. Returns the file opened at its final name.
    pub fn publish(mut self) -> Result<Store, StoreError> {
        let Some(store) = self.store.take() else {
            return Err(StoreError::Missing(self.path.display().to_string()));
        };
        store.conn.close().map_err(|(_, e)| StoreError::Sql(e))?;
        // A hard link never replaces an existing file, unlike rename; where links are not
        // supported, rename after checking.
        if let Err(e) = std::fs::hard_link(&self.tmp, &self.path) {
            if self.path.exists() {
                return Err(StoreError::Exists(self.path.display().to_string()));
            }
            std::fs::rename(&self.tmp, &self.path).map_err(|_| StoreError::Foreign {
                path: self.path.display().to_string(),
                why: format!("cannot be written: {e}"),
            })?;
        }
        let _ = std::fs::remove_file(&self.tmp);
        Store::open(&self.path)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        // After a successful publish the temporary name is already gone; this is for errors.
        drop(self.store.take());
        let _ = std::fs::remove_file(&self.tmp);
        for ext in ["-wal", "-shm"] {
            let mut p = self.tmp.clone().into_os_string();
            p.push(ext);
            let _ = std::fs::remove_file(p);
        }
    }
}

impl Store {
    /// Create a new game file. Refuses to overwrite an existing file.
    pub fn create(path: &Path, meta: &GameMeta) -> Result<Store, StoreError> {
        if path.exists() {
            return Err(StoreError::Exists(path.display().to_string()));
        }
        let conn = Connection::open(path)?;
        Store::init(conn, meta, path.display().to_string(), true)
    }

    /// Start a new game file under a temporary name next to `path`; see [`Staged`].
    pub fn create_staged(path: &Path, meta: &GameMeta) -> Result<Staged, StoreError> {
        if path.exists() {
            return Err(StoreError::Exists(path.display().to_string()));
        }
        // Said of the file asked for, not of the staging file beside it.
        let create = |why: String| StoreError::Create {
            path: path.display().to_string(),
            why,
        };
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            return Err(create(format!(
                "the folder {} does not exist; create it first or choose another path",
                folder.display()
            )));
        }
        let tmp = staging_path(path);
        let _ = std::fs::remove_file(&tmp);
        let conn = Connection::open(&tmp).map_err(|e| {
            create(format!(
                "{e} (in the folder {}; is it writable?)",
                folder.display()
            ))
        })?;
        let store = Store::init(conn, meta, path.display().to_string(), true)?;
        Ok(Staged {
            store: Some(store),
            tmp,
            path: path.to_path_buf(),
        })
    }

    /// A game held in memory only (conformance cases, what-if runs): same schema and chain.
    pub fn in_memory(meta: &GameMeta) -> Result<Store, StoreError> {
        let conn = Connection::open_in_memory()?;
        Store::init(conn, meta, ":memory:".into(), false)
    }

    fn init(
        mut conn: Connection,
        meta: &GameMeta,
        path: String,
        file: bool,
    ) -> Result<Store, StoreError> {
        if file {
            configure(&conn)?;
        }
        migrate(&mut conn, &path)?;
        let json = encode("game record", meta)?;
        let start = ChainStart::of(meta, &json).map_err(|why| StoreError::Encode {
            what: "game record",
            why,
        })?;
        conn.execute(
            "INSERT INTO game (id, meta, receipt_key) VALUES (1, ?1, lower(hex(randomblob(32))))",
            params![json],
        )?;
        Ok(Store {
            conn,
            meta: meta.clone(),
            start,
            path,
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
        migrate(&mut conn, &p)?;
        let json: Option<String> = conn
            .query_row("SELECT meta FROM game WHERE id = 1", [], |r| r.get(0))
            .optional()?;
        let (meta, text): (GameMeta, String) = json
            .and_then(|j| Some((serde_json::from_str(&j).ok()?, j)))
            .ok_or_else(|| foreign("it has no readable game record"))?;
        let start = ChainStart::of(&meta, &text).map_err(|why| StoreError::Corrupt {
            path: p.clone(),
            why,
        })?;
        Ok(Store {
            conn,
            meta,
            start,
            path: p,
        })
    }

    pub fn meta(&self) -> &GameMeta {
        &self.meta
    }

    /// The file's path, for messages.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Number of events and the last hash.
    pub fn head(&self) -> Result<(i64, String), StoreError> {
        let h = read_head(&self.conn, &self.start)?;
        Ok((h.events, h.hash))
    }

    /// The head of the record: events, commands, last hash.
    pub fn full_head(&self) -> Result<Head, StoreError> {
        read_head(&self.conn, &self.start)
    }

    /// The head of this game's empty record: where its chain starts.
    pub fn genesis_head(&self) -> Head {
        self.start.head()
    }

    /// The chain's format and start.
    pub fn chain_start(&self) -> &ChainStart {
        &self.start
    }

    /// The head the game row records, updated with every append (truncation evidence).
    pub fn recorded_head(&self) -> Result<Head, StoreError> {
        read_record(&self.conn)
    }

    /// Check that the whole record reads back cleanly (every command and event readable,
    /// numbered without gaps, chained, every event belonging to a recorded command in order, the
    /// first command the game's start, the game row recording that head); returns its head.
    pub fn check(&self) -> Result<Head, StoreError> {
        Ok(self.load_checked()?.0)
    }

    /// As [`Store::check`], returning the head, the commands and the events it read.
    #[allow(clippy::type_complexity)]
    pub fn load_checked(&self) -> Result<(Head, Vec<StoredCommand>, Vec<StoredEvent>), StoreError> {
        let corrupt = |why: String| StoreError::Corrupt {
            path: self.path.clone(),
            why,
        };
        // One read transaction, so the rows and the game row's head are of the same moment
        // while another process appends.
        let tx = self.conn.unchecked_transaction()?;
        let commands = read_commands(&tx, 0).map_err(|e| corrupt(e.to_string()))?;
        let events = read_events(&tx, 0).map_err(|e| corrupt(e.to_string()))?;
        if let Some(why) =
            structure_problem(self.start.version, &self.start.head(), &commands, &events)
        {
            return Err(corrupt(why));
        }
        let head = head_of(
            &self.start,
            events
                .last()
                .map(|e| (e.seq, e.command_seq, e.hash.as_str())),
            commands.last().map(|c| (c.seq, c.hash.as_deref())),
        );
        // Decision 0050: a record cut back (the last commands and events deleted, say to undo
        // a bad roll) is refused on opening, not only by a write or `replay --verify`.
        if let Some(why) = head_mismatch(&read_record(&tx)?, &head) {
            return Err(corrupt(why));
        }
        tx.finish()?;
        Ok((head, commands, events))
    }

    /// Why the record does not read back cleanly, if it does not (for `verify`, which reports
    /// rather than refuses).
    pub fn structure_problem(&self) -> Result<Option<String>, StoreError> {
        let commands = match read_commands(&self.conn, 0) {
            Ok(c) => c,
            Err(e) => return Ok(Some(e.to_string())),
        };
        let events = match read_events(&self.conn, 0) {
            Ok(e) => e,
            Err(e) => return Ok(Some(e.to_string())),
        };
        Ok(structure_problem(
            self.start.version,
            &self.start.head(),
            &commands,
            &events,
        ))
    }

    /// Take the write lock (`BEGIN IMMEDIATE`), waiting at most [`busy_wait`] for another writer.
    pub fn writer(&mut self) -> Result<Writer<'_>, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(busy(&self.path))?;
        Ok(Writer {
            tx,
            path: &self.path,
            meta: &self.meta,
            start: &self.start,
        })
    }

    /// Append one command and its events in one transaction, extending the hash chain (after
    /// the head the transaction sees; no check of the record — see [`Writer::check_from`]).
    pub fn append(
        &mut self,
        actor: &str,
        command: &Command,
        events: &[Event],
    ) -> Result<(), StoreError> {
        let mut w = self.writer()?;
        let head = w.head()?;
        w.append(&head, actor, command, events)?;
        w.commit()
    }

    /// The sequence number the next command will get.
    pub fn next_command_seq(&self) -> Result<i64, StoreError> {
        Ok(read_head(&self.conn, &self.start)?.commands + 1)
    }

    /// Every command, in order.
    pub fn commands(&self) -> Result<Vec<StoredCommand>, StoreError> {
        read_commands(&self.conn, 0)
    }

    /// Every event, in order, as stored (payload and hash included).
    pub fn events(&self) -> Result<Vec<StoredEvent>, StoreError> {
        read_events(&self.conn, 0)
    }

    /// Check the hash chain; returns the first event whose hash does not follow, if any (a
    /// command link that does not follow, in chain 2, is named by [`Store::structure_problem`]).
    pub fn verify_chain(&self) -> Result<Option<i64>, StoreError> {
        if self.start.version >= 2 {
            let (commands, events) = self.raw_rows()?;
            let (commands, events) = raw_links(&commands, &events);
            for (i, e) in events.iter().enumerate() {
                if e.seq != 1 + i as i64 {
                    return Ok(Some(e.seq));
                }
            }
            let from = self.start.head();
            return Ok(match walk_chain(2, &from, &commands, &events, |_, _| {}) {
                Some(ChainBreak::Event(seq)) => Some(seq),
                _ => None,
            });
        }
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

    /// Every command and event row as stored, unparsed: what the chain covers.
    #[allow(clippy::type_complexity)]
    fn raw_rows(&self) -> Result<(Vec<RawCommand>, Vec<RawEvent>), StoreError> {
        let mut st = self
            .conn
            .prepare("SELECT seq, actor, payload, hash FROM command ORDER BY seq")?;
        let commands = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<Result<_, _>>()?;
        let mut st = self
            .conn
            .prepare("SELECT seq, command_seq, payload, hash FROM event ORDER BY seq")?;
        let events = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<Result<_, _>>()?;
        Ok((commands, events))
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

    fn receipt_key(&self) -> Result<String, StoreError> {
        Ok(self
            .conn
            .query_row("SELECT receipt_key FROM game WHERE id = 1", [], |r| {
                r.get(0)
            })?)
    }

    /// The receipt digest of a head: HMAC-SHA-256 under the file's receipt key of the number of
    /// events and the head hash.
    pub fn receipt_digest(&self, events: i64, hash: &str) -> Result<String, StoreError> {
        Ok(receipt_of(&self.receipt_key()?, events, hash))
    }

    /// The number of events of the prefix of the chain whose receipt digest is `digest`, if the
    /// file still holds one (an intact prefix: the search stops where the chain breaks).
    pub fn find_receipt(&self, digest: &str) -> Result<Option<i64>, StoreError> {
        let key = self.receipt_key()?;
        let mut found = (receipt_of(&key, 0, &self.start.genesis) == digest).then_some(0);
        let (commands, events) = self.raw_rows()?;
        let (commands, events) = raw_links(&commands, &events);
        walk_chain(
            self.start.version,
            &self.start.head(),
            &commands,
            &events,
            |events, hash| {
                if receipt_of(&key, events, hash) == digest {
                    found = Some(events);
                }
            },
        );
        Ok(found)
    }

    /// Copy this game's record and its commands (with their events) up to and including
    /// `last_command` into a new file, with new metadata; the copy is written under a temporary
    /// name and renamed into place when complete.
    pub fn branch(
        &self,
        out: &Path,
        meta: &GameMeta,
        last_command: i64,
    ) -> Result<Store, StoreError> {
        let mut staged = Store::create_staged(out, meta)?;
        let commands = self.commands()?;
        let events = self.events()?;
        for c in commands.iter().filter(|c| c.seq <= last_command) {
            let evs: Vec<Event> = events
                .iter()
                .filter(|e| e.command_seq == c.seq)
                .map(|e| e.event.clone())
                .collect();
            staged.store().append(&c.actor, &c.command, &evs)?;
        }
        staged.publish()
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

    /// Receipts use HMAC-SHA-256: pin it to RFC 4231 test cases 1 and 2.
    #[test]
    fn hmac_matches_rfc_4231() {
        assert_eq!(
            hmac_sha256(&[0x0b; 20], b"Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hmac_sha256(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than the block is hashed first.
        assert_eq!(
            hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            ),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
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
            movement_tables_toml: String::new(),
            rng: String::new(),
            created_at: String::new(),
            branched_from: None,
            chain: CHAIN_VERSION,
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
