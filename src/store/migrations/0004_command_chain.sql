-- staffwork game file, schema 4 (decision 0185). See docs/replay.md, "The hash chain".
--
-- Each command gets its link in the hash chain: `hash` = sha256(previous link + '\n' +
-- 'command <seq>\n<actor length> <actor>\n<payload>'). In files created from this schema on
-- (game record `chain` = 2) the chain starts from the game record itself and runs through every
-- command and its events in order, so the scenario, seed, tables and every command are covered.
-- Older files keep their chain (events only, `chain` absent = 1) and leave `hash` empty.
ALTER TABLE command ADD COLUMN hash TEXT;
