-- staffwork game file: the web table's seats (issue 15, docs/web.md). One row per seat
-- (`umpire`, `observer`, `side:<id>`) holding the SHA-256 of its join link's token; the token
-- itself is never stored. Independent of every other migration (IF NOT EXISTS), so it applies
-- cleanly whichever migrations precede it.
CREATE TABLE IF NOT EXISTS web_seat (
  seat TEXT PRIMARY KEY,                                -- 'umpire', 'observer' or 'side:<id>'
  token_sha256 TEXT NOT NULL UNIQUE,                    -- lowercase hex SHA-256 of the token
  issued_at TEXT NOT NULL                               -- wall-clock time, metadata only
) STRICT;
