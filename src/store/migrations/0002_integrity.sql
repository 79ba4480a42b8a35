-- staffwork game file, schema 2 (decision 0050). See docs/replay.md.
--
-- 1. The columns views and documented queries read (`turn`, `kind`, `visibility`) are derived
--    from the hashed payload (generated columns), so they cannot be changed without breaking the
--    hash chain. The event table is rebuilt; payloads, hashes and numbers are copied unchanged,
--    so the chain of an older file still verifies.
-- 2. The game row keeps the head of the record (number of events, last hash, number of
--    commands), updated in the same transaction as every append: cutting the last commands
--    off the file without also rewriting this row is evident.
-- 3. `receipt_key`: a random key for receipts (`staffwork receipt`), so a side can hold a
--    keyed digest of the record without being able to test guesses about hidden events.
DROP VIEW order_log;
DROP VIEW dice;
DROP VIEW acceptance;
DROP INDEX event_by_command;

CREATE TABLE event_v2 (
  seq INTEGER PRIMARY KEY,                              -- 1, 2, 3 … across the game
  command_seq INTEGER NOT NULL REFERENCES command(seq),
  payload TEXT NOT NULL CHECK (json_valid(payload)),    -- engine::Event as canonical JSON
  hash TEXT NOT NULL,                                   -- sha256(previous hash + '\n' + payload)
  turn INTEGER GENERATED ALWAYS AS (payload->>'$.turn') VIRTUAL,
  kind TEXT GENERATED ALWAYS AS (payload->>'$.kind') VIRTUAL,
  visibility TEXT GENERATED ALWAYS AS (
    CASE payload->>'$.visibility.to'
      WHEN 'side' THEN 'side:' || (payload->>'$.visibility.side')
      ELSE payload->>'$.visibility.to'
    END) VIRTUAL                                        -- 'public', 'umpire' or 'side:<id>'
) STRICT;
INSERT INTO event_v2 (seq, command_seq, payload, hash)
  SELECT seq, command_seq, payload, hash FROM event ORDER BY seq;
DROP TABLE event;
ALTER TABLE event_v2 RENAME TO event;
CREATE INDEX event_by_command ON event(command_seq);

ALTER TABLE game ADD COLUMN head_events INTEGER NOT NULL DEFAULT 0;
ALTER TABLE game ADD COLUMN head_hash TEXT NOT NULL
  DEFAULT '0000000000000000000000000000000000000000000000000000000000000000';
ALTER TABLE game ADD COLUMN head_commands INTEGER NOT NULL DEFAULT 0;
ALTER TABLE game ADD COLUMN receipt_key TEXT NOT NULL DEFAULT '';
UPDATE game SET
  head_events = (SELECT COUNT(*) FROM event),
  head_hash = COALESCE((SELECT hash FROM event ORDER BY seq DESC LIMIT 1), head_hash),
  head_commands = (SELECT COUNT(*) FROM command),
  receipt_key = lower(hex(randomblob(32)));

-- The Order Log of rule 6.4.5, one row per order as issued.
CREATE VIEW order_log AS
SELECT
  payload->>'$.order.number'        AS number,
  payload->>'$.order.side'          AS side,
  payload->>'$.order.sent_turn'     AS sent_turn,
  payload->>'$.order.arrival_turn'  AS arrival_turn,
  payload->>'$.order.sender'        AS sender,
  payload->>'$.order.recipient'     AS recipient,
  payload->>'$.order.method'        AS method,
  payload->>'$.order.order_type'    AS type,
  payload->>'$.order.cost'          AS cost,
  payload->>'$.order.text'          AS text,
  payload->>'$.order.readback'      AS readback
FROM event WHERE kind IN ('order-issued', 'preset-order');

-- Every die rolled, with the event that used it.
CREATE VIEW dice AS
SELECT e.seq, e.turn, e.kind, e.visibility,
       d.value->>'$.purpose' AS purpose, d.value->>'$.index' AS idx,
       d.value->>'$.sides' AS sides, d.value->>'$.value' AS value
FROM event e, json_each(e.payload, '$.dice') d;

-- Acceptance results per order.
CREATE VIEW acceptance AS
SELECT seq, turn, payload->>'$.order' AS number, payload->>'$.number' AS acceptance_number,
       payload->>'$.roll' AS roll, payload->>'$.result' AS result, payload->>'$.provenance' AS provenance
FROM event WHERE kind = 'acceptance-rolled';
