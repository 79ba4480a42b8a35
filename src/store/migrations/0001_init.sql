-- staffwork game file, schema 1. See docs/replay.md.
CREATE TABLE game (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  meta TEXT NOT NULL CHECK (json_valid(meta))          -- GameMeta as JSON
) STRICT;

CREATE TABLE command (
  seq INTEGER PRIMARY KEY,                              -- 1, 2, 3 … in the order given
  actor TEXT NOT NULL,                                  -- side id or 'umpire'
  payload TEXT NOT NULL CHECK (json_valid(payload))     -- engine::Command as JSON
) STRICT;

CREATE TABLE event (
  seq INTEGER PRIMARY KEY,                              -- 1, 2, 3 … across the game
  command_seq INTEGER NOT NULL REFERENCES command(seq),
  turn INTEGER NOT NULL,
  kind TEXT NOT NULL,                                   -- e.g. 'acceptance-rolled'
  visibility TEXT NOT NULL,                             -- 'public', 'umpire' or 'side:<id>'
  payload TEXT NOT NULL CHECK (json_valid(payload)),    -- engine::Event as canonical JSON
  hash TEXT NOT NULL                                    -- sha256(previous hash + '\n' + payload)
) STRICT;

CREATE INDEX event_by_command ON event(command_seq);

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
