"""Numbered schema steps, tracked by ``PRAGMA user_version``.

``MIGRATIONS[n - 1]`` brings a database from version ``n - 1`` to ``n``. Steps are
append-only: never edit a step that has shipped, add a new one. A step is an SQL
script or an async callable (for data migrations that need Python, e.g. recomputing
nickname keys). Each step runs in its own ``BEGIN IMMEDIATE`` transaction together
with its ``user_version`` bump, so a failed step leaves the database at the previous
version. Foreign keys are off while migrating (SQLite's table-rebuild procedure needs
that) and checked with ``PRAGMA foreign_key_check`` before each step commits.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Awaitable, Callable, Sequence

import aiosqlite

from bot.db.errors import DatabaseTooNew

Step = str | Callable[[aiosqlite.Connection], Awaitable[None]]

# Timestamps: INTEGER Unix seconds, UTC. Booleans: INTEGER 0/1 with CHECK.
# Telegram user ids are plain integers, not foreign keys to `users`: that table is a
# cache of profiles, and a row (audit, staff) must not fail because a profile is missing.
_V1_DOMAIN = """
CREATE TABLE tournaments (
    id                   INTEGER PRIMARY KEY,
    title                TEXT    NOT NULL CHECK (length(trim(title)) BETWEEN 1 AND 200),
    chat_id              INTEGER,
    distance             INTEGER NOT NULL CHECK (distance >= 1),
    status               TEXT    NOT NULL DEFAULT 'registration'
                         CHECK (status IN ('registration', 'running', 'finished')),
    created_by           INTEGER NOT NULL,
    created_at           INTEGER NOT NULL,
    finished_at          INTEGER,
    bot_removed          INTEGER NOT NULL DEFAULT 0 CHECK (bot_removed IN (0, 1)),
    standings_message_id INTEGER,
    standings_hash       TEXT
);
-- One unfinished tournament per group.
CREATE UNIQUE INDEX tournaments_active_chat ON tournaments (chat_id)
    WHERE status <> 'finished' AND chat_id IS NOT NULL;
CREATE INDEX tournaments_chat ON tournaments (chat_id);

CREATE TABLE users (
    user_id       INTEGER PRIMARY KEY,
    first_name    TEXT    NOT NULL DEFAULT '',
    username      TEXT,
    language_code TEXT,
    can_message   INTEGER NOT NULL DEFAULT 0 CHECK (can_message IN (0, 1)),
    last_seen_at  INTEGER NOT NULL
);
CREATE INDEX users_username ON users (username COLLATE NOCASE) WHERE username IS NOT NULL;

CREATE TABLE staff (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    user_id       INTEGER NOT NULL,
    role          TEXT    NOT NULL CHECK (role IN ('chief', 'judge')),
    added_by      INTEGER NOT NULL,
    added_at      INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, user_id)
) WITHOUT ROWID;
CREATE INDEX staff_user ON staff (user_id);

CREATE TABLE invites (
    token         TEXT    PRIMARY KEY CHECK (length(token) BETWEEN 8 AND 64),
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    kind          TEXT    NOT NULL CHECK (kind IN ('judge', 'player')),
    created_by    INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    used_by       INTEGER,
    used_at       INTEGER,
    revoked_at    INTEGER,
    CHECK ((used_by IS NULL) = (used_at IS NULL))
);
CREATE INDEX invites_tournament ON invites (tournament_id);

CREATE TABLE players (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    nickname      TEXT    NOT NULL CHECK (length(nickname) BETWEEN 1 AND 64
                                          AND nickname = trim(nickname)),
    nickname_key  TEXT    NOT NULL CHECK (length(nickname_key) >= 1),
    user_id       INTEGER,
    status        TEXT    NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'confirmed', 'rejected')),
    created_at    INTEGER NOT NULL,
    decided_by    INTEGER,
    decided_at    INTEGER,
    -- target of the composite keys below: a seat's player belongs to the game's tournament
    UNIQUE (id, tournament_id)
);
-- A rejected application frees its nickname and lets the user apply again.
CREATE UNIQUE INDEX players_nickname ON players (tournament_id, nickname_key)
    WHERE status <> 'rejected';
CREATE UNIQUE INDEX players_user ON players (tournament_id, user_id)
    WHERE user_id IS NOT NULL AND status <> 'rejected';
CREATE INDEX players_user_any ON players (user_id) WHERE user_id IS NOT NULL;

CREATE TABLE games (
    id             INTEGER PRIMARY KEY,
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round          INTEGER NOT NULL CHECK (round >= 1),
    table_no       INTEGER NOT NULL CHECK (table_no >= 1),
    result         TEXT    NOT NULL CHECK (result IN ('red', 'black', 'draw')),
    day1_voted_out INTEGER NOT NULL DEFAULT 0 CHECK (day1_voted_out BETWEEN 0 AND 10),
    first_killed   INTEGER CHECK (first_killed BETWEEN 1 AND 10),
    best_move      TEXT    NOT NULL DEFAULT '[]'
                   CHECK (json_valid(best_move) AND json_type(best_move) = 'array'
                          AND json_array_length(best_move) <= 3),
    best_move_hint INTEGER NOT NULL DEFAULT 0 CHECK (best_move_hint IN (0, 1)),
    -- pending: judge's points above 0.5 wait for the chief judge (D7)
    status         TEXT    NOT NULL DEFAULT 'final'
                   CHECK (status IN ('pending', 'final', 'annulled')),
    judge_id       INTEGER NOT NULL,
    -- the judge's conversation id: a redelivered Save finds its game instead of a second one
    draft_id       TEXT    NOT NULL UNIQUE,
    ended_at       INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    annulled_by    INTEGER,
    annulled_at    INTEGER,
    annul_reason   TEXT,
    CHECK (best_move = '[]' OR first_killed IS NOT NULL),
    CHECK ((status = 'annulled') = (annulled_at IS NOT NULL)),
    UNIQUE (id, tournament_id)
);
CREATE UNIQUE INDEX games_table ON games (tournament_id, round, table_no)
    WHERE status <> 'annulled';
CREATE INDEX games_tournament ON games (tournament_id, status);

CREATE TABLE game_seats (
    game_id        INTEGER NOT NULL,
    seat           INTEGER NOT NULL CHECK (seat BETWEEN 1 AND 10),
    tournament_id  INTEGER NOT NULL,
    player_id      INTEGER NOT NULL,
    role           TEXT    NOT NULL CHECK (role IN ('civilian', 'sheriff', 'mafia', 'don')),
    disqualified   INTEGER NOT NULL DEFAULT 0 CHECK (disqualified IN (0, 1)),
    -- judge's extra points in hundredths (exact, D3/D6); 0 = none
    judge_extra    INTEGER NOT NULL DEFAULT 0 CHECK (judge_extra BETWEEN 0 AND 100),
    chief_approved INTEGER NOT NULL DEFAULT 0 CHECK (chief_approved IN (0, 1)),
    penalties      TEXT    NOT NULL DEFAULT '[]'
                   CHECK (json_valid(penalties) AND json_type(penalties) = 'array'),
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, player_id),
    FOREIGN KEY (game_id, tournament_id) REFERENCES games (id, tournament_id)
        ON DELETE CASCADE,
    FOREIGN KEY (player_id, tournament_id) REFERENCES players (id, tournament_id)
) WITHOUT ROWID;
CREATE INDEX game_seats_player ON game_seats (player_id);
CREATE INDEX game_seats_tournament ON game_seats (tournament_id);
-- The few seats with anything beyond player and role, for the scoring bridge.
CREATE INDEX game_seats_details ON game_seats (tournament_id)
    WHERE disqualified OR judge_extra OR chief_approved OR penalties <> '[]';

-- Keyed by game (not by seat row) so that rewriting a game's seats keeps the history.
CREATE TABLE approvals (
    id             INTEGER PRIMARY KEY,
    game_id        INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat           INTEGER NOT NULL CHECK (seat BETWEEN 1 AND 10),
    -- whose points: a correction that moves another player to the seat voids the request
    player_id      INTEGER NOT NULL REFERENCES players (id),
    requested      INTEGER NOT NULL CHECK (requested BETWEEN 51 AND 100),
    status         TEXT    NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'approved', 'lowered', 'superseded')),
    granted        INTEGER CHECK (granted BETWEEN 0 AND 100),
    decided_by     INTEGER,
    decided_at     INTEGER,
    created_at     INTEGER NOT NULL,
    -- [[chat_id, message_id], ...] of the requests sent to chief judges, to edit later
    messages       TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(messages)),
    CHECK ((status = 'pending') = (decided_at IS NULL) OR status = 'superseded')
);
CREATE UNIQUE INDEX approvals_pending ON approvals (game_id, seat) WHERE status = 'pending';
CREATE INDEX approvals_game ON approvals (game_id);

CREATE TABLE protests (
    id                INTEGER PRIMARY KEY,
    game_id           INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    player_id         INTEGER NOT NULL REFERENCES players (id),
    user_id           INTEGER NOT NULL,
    text              TEXT    NOT NULL CHECK (length(text) BETWEEN 1 AND 4096),
    -- the protest message's own Telegram date (D11)
    filed_at          INTEGER NOT NULL,
    source_chat_id    INTEGER,
    source_message_id INTEGER,
    status            TEXT    NOT NULL DEFAULT 'open'
                      CHECK (status IN ('open', 'upheld', 'rejected')),
    decision          TEXT,
    decided_by        INTEGER,
    decided_at        INTEGER,
    CHECK ((status = 'open') = (decided_at IS NULL))
);
-- The same Telegram message never files two protests.
CREATE UNIQUE INDEX protests_source ON protests (source_chat_id, source_message_id)
    WHERE source_message_id IS NOT NULL;
CREATE INDEX protests_game ON protests (game_id);
CREATE INDEX protests_open ON protests (status) WHERE status = 'open';

CREATE TABLE lots (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    -- the tied group: its player ids sorted ascending, comma-joined
    group_key     TEXT    NOT NULL,
    -- player ids in drawn order, JSON list
    drawn_order   TEXT    NOT NULL CHECK (json_valid(drawn_order)),
    drawn_by      INTEGER NOT NULL,
    drawn_at      INTEGER NOT NULL,
    UNIQUE (tournament_id, group_key)
);

CREATE TABLE audit_log (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER REFERENCES tournaments (id) ON DELETE SET NULL,
    actor_id      INTEGER,
    at            INTEGER NOT NULL,
    action        TEXT    NOT NULL,
    entity        TEXT    NOT NULL,
    entity_id     TEXT,
    before        TEXT    CHECK (before IS NULL OR json_valid(before)),
    after         TEXT    CHECK (after IS NULL OR json_valid(after))
);
CREATE INDEX audit_tournament ON audit_log (tournament_id, id);
"""

# The bot's runtime tables, apart from the domain.
_V2_RUNTIME = """
CREATE TABLE processed_updates (
    update_id    INTEGER PRIMARY KEY,
    processed_at INTEGER NOT NULL
);
CREATE INDEX processed_updates_at ON processed_updates (processed_at);

CREATE TABLE fsm (
    key        TEXT    PRIMARY KEY,
    state      TEXT,
    data       TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(data)),
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
"""

# Version 3: what the group chat must still be told survives a crash (the outbox, written
# in the same transaction as the change it announces), and change counters that
# triggers keep, so caches (standings, rosters) reload only what changed.
_V3_OUTBOX_AND_VERSIONS = """
CREATE TABLE outbox (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    -- result: a saved game's result line (its game: a round may get its picture);
    -- note: a line of news; standings: the standings message must be brought up to date
    kind          TEXT    NOT NULL CHECK (kind IN ('result', 'note', 'standings')),
    game_id       INTEGER REFERENCES games (id) ON DELETE CASCADE,
    -- what the chat reads, in the chat's language; a result's is NULL once posted
    text          TEXT    CHECK (length(text) BETWEEN 1 AND 4096),
    created_at    INTEGER NOT NULL,
    CHECK ((kind = 'result') = (game_id IS NOT NULL)),
    CHECK (kind <> 'note' OR text IS NOT NULL),
    CHECK (kind <> 'standings' OR text IS NULL)
);
CREATE INDEX outbox_tournament ON outbox (tournament_id, id);

-- Rounds whose standings picture was posted: never posted twice, restarts included.
CREATE TABLE round_pictures (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round         INTEGER NOT NULL,
    posted_at     INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, round)
) WITHOUT ROWID;

-- Bumped by triggers on every change of a game or its seats, whoever writes them.
ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER games_version AFTER UPDATE ON games WHEN NEW.version = OLD.version
BEGIN
    UPDATE games SET version = OLD.version + 1 WHERE id = NEW.id;
END;
CREATE TRIGGER game_seats_version_insert AFTER INSERT ON game_seats
BEGIN
    UPDATE games SET version = version + 1 WHERE id = NEW.game_id;
END;
CREATE TRIGGER game_seats_version_update AFTER UPDATE ON game_seats
BEGIN
    UPDATE games SET version = version + 1 WHERE id = NEW.game_id;
END;
CREATE TRIGGER game_seats_version_delete AFTER DELETE ON game_seats
BEGIN
    UPDATE games SET version = version + 1 WHERE id = OLD.game_id;
END;

-- Bumped on every change of the tournament's players (nicknames, statuses, accounts).
ALTER TABLE tournaments ADD COLUMN roster_version INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER players_version_insert AFTER INSERT ON players
BEGIN
    UPDATE tournaments SET roster_version = roster_version + 1 WHERE id = NEW.tournament_id;
END;
CREATE TRIGGER players_version_update AFTER UPDATE ON players
BEGIN
    UPDATE tournaments SET roster_version = roster_version + 1
    WHERE id IN (OLD.tournament_id, NEW.tournament_id);
END;
CREATE TRIGGER players_version_delete AFTER DELETE ON players
BEGIN
    UPDATE tournaments SET roster_version = roster_version + 1 WHERE id = OLD.tournament_id;
END;
"""

# A tournament's language (everything the bot posts in its group is in it) and its
# time zone (every time shown is local, with its UTC offset). Tournaments created
# before keep what they showed: the bot's default language, times in UTC.
_V4_LANGUAGE_AND_TIMEZONE = """
ALTER TABLE tournaments ADD COLUMN language TEXT NOT NULL DEFAULT 'ru'
    CHECK (language IN ('ru', 'en'));
ALTER TABLE tournaments ADD COLUMN timezone TEXT NOT NULL DEFAULT 'UTC'
    CHECK (length(timezone) BETWEEN 1 AND 64);
"""

# Seating plans (docs/formats.md#seating): the chief judge's offers and the accepted plan,
# one per tournament. The request (its seed included) makes the plan again; names in it
# and in the plan are nicknames as they were, ``player_ids`` says whose they are.
_V5_SEATING_PLANS = """
CREATE TABLE seating_plans (
    -- never reused: a deleted offer's buttons must not reach a newer one
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    -- offered: shown to the chief judge; accepted: the plan; replaced: accepted once
    status        TEXT    NOT NULL DEFAULT 'offered'
                  CHECK (status IN ('offered', 'accepted', 'replaced')),
    request       TEXT    NOT NULL CHECK (json_valid(request) AND json_type(request) = 'object'),
    -- the ids of the request's players, in its order
    player_ids    TEXT    NOT NULL
                  CHECK (json_valid(player_ids) AND json_type(player_ids) = 'array'),
    plan          TEXT    NOT NULL CHECK (json_valid(plan) AND json_type(plan) = 'object'),
    -- the accepted plan when this one was made (an offer made against another is stale)
    base_plan_id  INTEGER REFERENCES seating_plans (id) ON DELETE SET NULL,
    created_by    INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    accepted_by   INTEGER,
    accepted_at   INTEGER,
    CHECK ((accepted_by IS NULL) = (accepted_at IS NULL)),
    CHECK ((status = 'offered') = (accepted_at IS NULL))
);
CREATE UNIQUE INDEX seating_plans_accepted ON seating_plans (tournament_id)
    WHERE status = 'accepted';
CREATE INDEX seating_plans_tournament ON seating_plans (tournament_id, status);
"""

# Version 6: the seating of the next round for the group and each linked player
# (docs/organiser.md). The outbox also holds private messages, so it is rebuilt
# (SQLite can't change a CHECK): ``seating`` is the group's post of a round's seating,
# ``seat`` a player's own seat, to ``user_id``; both are drawn from the accepted plan
# when posted. ``seating_announced`` keeps the rounds whose seating went into the outbox,
# so a round is announced once and a re-plan tells only what changed.
_V6_SEATING_POSTS = """
CREATE TABLE outbox_v6 (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    kind          TEXT    NOT NULL
                  CHECK (kind IN ('result', 'note', 'standings', 'seating', 'seat')),
    game_id       INTEGER REFERENCES games (id) ON DELETE CASCADE,
    text          TEXT    CHECK (length(text) BETWEEN 1 AND 4096),
    -- seating and seat: the round whose seating is told
    round         INTEGER CHECK (round >= 1),
    -- seat: the player told and his Telegram account (the private chat)
    player_id     INTEGER REFERENCES players (id) ON DELETE CASCADE,
    user_id       INTEGER,
    -- seating and seat: a re-plan changed what was told already
    changed       INTEGER NOT NULL DEFAULT 0 CHECK (changed IN (0, 1)),
    created_at    INTEGER NOT NULL,
    CHECK ((kind = 'result') = (game_id IS NOT NULL)),
    CHECK (kind <> 'note' OR text IS NOT NULL),
    CHECK (kind NOT IN ('standings', 'seating', 'seat') OR text IS NULL),
    CHECK ((kind IN ('seating', 'seat')) = (round IS NOT NULL)),
    CHECK ((kind = 'seat') = (user_id IS NOT NULL AND player_id IS NOT NULL)),
    CHECK (changed = 0 OR kind IN ('seating', 'seat'))
);
INSERT INTO outbox_v6 (id, tournament_id, kind, game_id, text, created_at)
    SELECT id, tournament_id, kind, game_id, text, created_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_v6 RENAME TO outbox;
CREATE INDEX outbox_tournament ON outbox (tournament_id, id);

CREATE TABLE seating_announced (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round         INTEGER NOT NULL,
    announced_at  INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, round)
) WITHOUT ROWID;
"""


# Version 7: a confirmed player the chief judge withdrew keeps the games he played (and
# his place in the standings) but plays no more: left out of seating plans and of the
# judge's card.
_V7_WITHDRAWN_PLAYERS = """
ALTER TABLE players ADD COLUMN withdrawn_at INTEGER;
ALTER TABLE players ADD COLUMN withdrawn_by INTEGER;
"""


async def _v8_invite_digests(conn: aiosqlite.Connection) -> None:
    """Version 8: invites keep only a digest of their token (bot.db.invites), so a copy
    of the database opens no link; the audit log names them by a prefix of it."""
    async with conn.execute("SELECT token FROM invites") as cur:
        tokens = [str(row[0]) for row in await cur.fetchall()]
    for token in tokens:
        hashed = hashlib.sha256(token.encode()).hexdigest()
        await conn.execute("UPDATE invites SET token = ? WHERE token = ?", (hashed, token))
        await conn.execute(
            "UPDATE audit_log SET entity_id = ? WHERE entity_id = ?", (hashed[:12], token)
        )
        await conn.execute(
            "UPDATE audit_log SET before = replace(before, ?, ?), after = replace(after, ?, ?)"
            " WHERE instr(coalesce(before, ''), ?) OR instr(coalesce(after, ''), ?)",
            (token, hashed, token, hashed, token, token),
        )


# Version 9: a round's seating goes out as two posts (text, picture); the text is
# marked as posted as soon as it went out, so a restart sends only the picture.
_V9_SEATING_TEXT_POSTED = """
ALTER TABLE outbox ADD COLUMN text_posted INTEGER NOT NULL DEFAULT 0
    CHECK (text_posted IN (0, 1));
"""

# Version 10: the stages of a tournament (docs/rules.md D13-D17). A tournament without rows
# here is one stage over its distance, as before. Stage 1 takes all players (entrants
# NULL); a later one the top N of the stage before, stored in stage_entrants when the
# stage before closes. carry and weight are exact decimal strings (D3, D15). A game's
# stage is its stage number; NULL is the first stage (every game saved before v9).
_V10_STAGES = """
CREATE TABLE stages (
    id               INTEGER PRIMARY KEY,
    tournament_id    INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    number           INTEGER NOT NULL CHECK (number >= 1),
    name             TEXT    NOT NULL CHECK (length(trim(name)) BETWEEN 1 AND 64),
    games_per_player INTEGER NOT NULL CHECK (games_per_player >= 1),
    entrants         INTEGER CHECK (entrants >= 1),
    carry            TEXT    NOT NULL DEFAULT '0' CHECK (length(carry) BETWEEN 1 AND 32),
    weight           TEXT    NOT NULL DEFAULT '1' CHECK (length(weight) BETWEEN 1 AND 32),
    compensation     INTEGER NOT NULL DEFAULT 1 CHECK (compensation IN (0, 1)),
    hidden           INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
    status           TEXT    NOT NULL DEFAULT 'planned'
                     CHECK (status IN ('planned', 'running', 'closed')),
    closed_at        INTEGER,
    CHECK ((number = 1) = (entrants IS NULL)),
    CHECK ((status = 'closed') = (closed_at IS NOT NULL)),
    UNIQUE (tournament_id, number)
);

CREATE TABLE stage_entrants (
    stage_id  INTEGER NOT NULL REFERENCES stages (id) ON DELETE CASCADE,
    player_id INTEGER NOT NULL REFERENCES players (id),
    -- cut: in the top N; lot: the stage before's lot at the cut (8.7.5); replacement: the
    -- next one in for a withdrawn entrant (D13), who is ``replaced``
    entered   TEXT    NOT NULL CHECK (entered IN ('cut', 'lot', 'replacement')),
    replaced  INTEGER REFERENCES players (id),
    CHECK ((entered = 'replacement') = (replaced IS NOT NULL)),
    PRIMARY KEY (stage_id, player_id)
) WITHOUT ROWID;

ALTER TABLE games ADD COLUMN stage INTEGER CHECK (stage >= 1);
"""

# Version 11: a lot belongs to a stage (8.7.5, D12, D15): the lot drawn at the cut of
# the qualifying and the lot of the final among the same players are two draws. Lots
# drawn before belong to the first stage (a tournament without stages has only it).
# The outbox gets ``final``: the group's post of the final standings when the last
# stage ends (D16), text then picture, drawn when posted; ``text_posted`` as for a
# seating, so a restart does not post the text twice. SQLite can't change a UNIQUE or
# a CHECK: both tables are rebuilt.
_V11_STAGE_LOTS_AND_FINAL_POST = """
CREATE TABLE lots_v11 (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    -- the stage's number (1 without stages)
    stage         INTEGER NOT NULL DEFAULT 1 CHECK (stage >= 1),
    -- the tied group: its player ids sorted ascending, comma-joined
    group_key     TEXT    NOT NULL,
    -- player ids in drawn order, JSON list
    drawn_order   TEXT    NOT NULL CHECK (json_valid(drawn_order)),
    drawn_by      INTEGER NOT NULL,
    drawn_at      INTEGER NOT NULL,
    UNIQUE (tournament_id, stage, group_key)
);
INSERT INTO lots_v11 (id, tournament_id, stage, group_key, drawn_order, drawn_by, drawn_at)
    SELECT id, tournament_id, 1, group_key, drawn_order, drawn_by, drawn_at FROM lots;
DROP TABLE lots;
ALTER TABLE lots_v11 RENAME TO lots;

CREATE TABLE outbox_v11 (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    kind          TEXT    NOT NULL
                  CHECK (kind IN ('result', 'note', 'standings', 'seating', 'seat', 'final')),
    game_id       INTEGER REFERENCES games (id) ON DELETE CASCADE,
    text          TEXT    CHECK (length(text) BETWEEN 1 AND 4096),
    round         INTEGER CHECK (round >= 1),
    player_id     INTEGER REFERENCES players (id) ON DELETE CASCADE,
    user_id       INTEGER,
    changed       INTEGER NOT NULL DEFAULT 0 CHECK (changed IN (0, 1)),
    created_at    INTEGER NOT NULL,
    text_posted   INTEGER NOT NULL DEFAULT 0 CHECK (text_posted IN (0, 1)),
    CHECK ((kind = 'result') = (game_id IS NOT NULL)),
    CHECK (kind <> 'note' OR text IS NOT NULL),
    CHECK (kind NOT IN ('standings', 'seating', 'seat', 'final') OR text IS NULL),
    CHECK ((kind IN ('seating', 'seat')) = (round IS NOT NULL)),
    CHECK ((kind = 'seat') = (user_id IS NOT NULL AND player_id IS NOT NULL)),
    CHECK (changed = 0 OR kind IN ('seating', 'seat'))
);
INSERT INTO outbox_v11 (id, tournament_id, kind, game_id, text, round, player_id, user_id,
                        changed, created_at, text_posted)
    SELECT id, tournament_id, kind, game_id, text, round, player_id, user_id, changed,
           created_at, text_posted FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_v11 RENAME TO outbox;
CREATE INDEX outbox_tournament ON outbox (tournament_id, id);
"""


# The live protocol (docs/development.md, "The live protocol"): a judge's game entered event by
# event in the Mini App. A draft is keyed by the card's draft_id (the game it becomes
# has the same one); its events are the protocol's commands in order, each once by the
# page's own id (a request sent again stores nothing new).
_V12_LIVE_DRAFTS = """
CREATE TABLE live_drafts (
    id            INTEGER PRIMARY KEY,
    token         TEXT    NOT NULL UNIQUE CHECK (length(token) BETWEEN 16 AND 64),
    public_token  TEXT    NOT NULL UNIQUE CHECK (length(public_token) BETWEEN 16 AND 64),
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    round         INTEGER NOT NULL CHECK (round >= 1),
    table_no      INTEGER NOT NULL CHECK (table_no >= 1),
    players       TEXT    NOT NULL CHECK (json_array_length(players) = 10),
    judge_id      INTEGER NOT NULL,
    draft_id      TEXT    NOT NULL UNIQUE CHECK (length(draft_id) BETWEEN 1 AND 128),
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    game_id       INTEGER REFERENCES games (id)
);
CREATE INDEX live_drafts_judge ON live_drafts (judge_id, game_id);

CREATE TABLE live_events (
    draft_id   INTEGER NOT NULL REFERENCES live_drafts (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    client_id  TEXT    NOT NULL CHECK (length(client_id) BETWEEN 1 AND 64),
    command    TEXT    NOT NULL CHECK (json_valid(command)),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (draft_id, seq),
    UNIQUE (draft_id, client_id)
) WITHOUT ROWID;
"""


# Version 13: the outbox gets ``cut``: when a stage closes, the group's picture of its
# standings with the entrants of the next stage marked (D13), drawn when posted from
# the closed stage ``stage``. Rebuilt, as SQLite can't change a CHECK.
_V13_CUT_PICTURE = """
CREATE TABLE outbox_v13 (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    kind          TEXT    NOT NULL CHECK (kind IN ('result', 'note', 'standings', 'seating',
                                                   'seat', 'final', 'cut')),
    game_id       INTEGER REFERENCES games (id) ON DELETE CASCADE,
    text          TEXT    CHECK (length(text) BETWEEN 1 AND 4096),
    round         INTEGER CHECK (round >= 1),
    player_id     INTEGER REFERENCES players (id) ON DELETE CASCADE,
    user_id       INTEGER,
    changed       INTEGER NOT NULL DEFAULT 0 CHECK (changed IN (0, 1)),
    created_at    INTEGER NOT NULL,
    text_posted   INTEGER NOT NULL DEFAULT 0 CHECK (text_posted IN (0, 1)),
    stage         INTEGER CHECK (stage >= 1),
    CHECK ((kind = 'result') = (game_id IS NOT NULL)),
    CHECK (kind <> 'note' OR text IS NOT NULL),
    CHECK (kind NOT IN ('standings', 'seating', 'seat', 'final', 'cut') OR text IS NULL),
    CHECK ((kind IN ('seating', 'seat')) = (round IS NOT NULL)),
    CHECK ((kind = 'seat') = (user_id IS NOT NULL AND player_id IS NOT NULL)),
    CHECK (changed = 0 OR kind IN ('seating', 'seat')),
    CHECK ((kind = 'cut') = (stage IS NOT NULL))
);
INSERT INTO outbox_v13 (id, tournament_id, kind, game_id, text, round, player_id, user_id,
                        changed, created_at, text_posted)
    SELECT id, tournament_id, kind, game_id, text, round, player_id, user_id, changed,
           created_at, text_posted FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_v13 RENAME TO outbox;
CREATE INDEX outbox_tournament ON outbox (tournament_id, id);
"""


# Version 14: what Telegram refuses for good is set aside, not retried in a loop
# (docs/development.md, "Reliability and speed"): ``set_aside`` names the cause (``bot.publishing.
# refusals``), ``detail`` Telegram's words; such rows wait for the chief judge's "Post
# again". A ``picture`` row is a round's standings picture posted in a smaller form (the
# standings' text) and still owed as a picture. ``post_failures_told`` keeps which causes
# the chief judges heard of, so each is told once until the items are posted again.
_V14_SET_ASIDE = """
CREATE TABLE outbox_v14 (
    id            INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    kind          TEXT    NOT NULL CHECK (kind IN ('result', 'note', 'standings', 'seating',
                                                   'seat', 'final', 'cut', 'picture')),
    game_id       INTEGER REFERENCES games (id) ON DELETE CASCADE,
    text          TEXT    CHECK (length(text) >= 1),
    round         INTEGER CHECK (round >= 1),
    player_id     INTEGER REFERENCES players (id) ON DELETE CASCADE,
    user_id       INTEGER,
    changed       INTEGER NOT NULL DEFAULT 0 CHECK (changed IN (0, 1)),
    created_at    INTEGER NOT NULL,
    text_posted   INTEGER NOT NULL DEFAULT 0 CHECK (text_posted IN (0, 1)),
    stage         INTEGER CHECK (stage >= 1),
    set_aside     TEXT    CHECK (length(set_aside) BETWEEN 1 AND 32),
    detail        TEXT    CHECK (length(detail) <= 500),
    set_aside_at  INTEGER,
    CHECK ((kind = 'result') = (game_id IS NOT NULL)),
    CHECK (kind <> 'note' OR text IS NOT NULL),
    CHECK (kind NOT IN ('standings', 'seating', 'seat', 'final', 'cut', 'picture')
           OR text IS NULL),
    CHECK ((kind IN ('seating', 'seat', 'picture')) = (round IS NOT NULL)),
    CHECK ((kind = 'seat') = (user_id IS NOT NULL AND player_id IS NOT NULL)),
    CHECK (changed = 0 OR kind IN ('seating', 'seat')),
    CHECK ((kind = 'cut') = (stage IS NOT NULL)),
    CHECK ((set_aside IS NULL) = (set_aside_at IS NULL))
);
INSERT INTO outbox_v14 (id, tournament_id, kind, game_id, text, round, player_id, user_id,
                        changed, created_at, text_posted, stage)
    SELECT id, tournament_id, kind, game_id, text, round, player_id, user_id, changed,
           created_at, text_posted, stage FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_v14 RENAME TO outbox;
CREATE INDEX outbox_tournament ON outbox (tournament_id, id);

CREATE TABLE post_failures_told (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    cause         TEXT    NOT NULL CHECK (length(cause) BETWEEN 1 AND 32),
    told_at       INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, cause)
) WITHOUT ROWID;
"""


# Version 15: the career rating (docs/formats.md#rating; README, "Career rating"). A
# person is one human across tournaments: every player belongs to one. The same Telegram
# account is the same person everywhere; a roster nickname without an account is a
# person of its own until the chief judge links it (bot.services.career). Triggers keep
# that whoever writes: a new player joins his account's person (or gets a new one), and
# a player linked to an account (/join's claim, bot.services.players) moves to the
# account's person, his old person with him when it has no account of its own and
# shares no tournament with it (a person plays a tournament as one player).
#
# ``game_changes`` is the career's change feed: every write of a game or its seats, of
# a player's person and of a tournament's status or rating kind records the games it
# touches with a new ``seq``, so the rating (bot.reads.career) re-reads only those
# games after a change instead of every game's stamp (about 9 ms at 10,000 games).
#
# ``players_version_update`` is made again with its columns listed: moving a player to
# another person is no change of the tournament's roster (a column added to players
# later that the roster shows must be added to its list).
_V15_CAREER = """
CREATE TABLE persons (
    id          INTEGER PRIMARY KEY,
    -- the career name (/top, /player): the first nickname, until the chief judge renames
    name        TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 64 AND name = trim(name)),
    name_key    TEXT    NOT NULL CHECK (length(name_key) >= 1),
    user_id     INTEGER,
    -- merged into another person: its players and account went there
    merged_into INTEGER REFERENCES persons (id),
    created_at  INTEGER NOT NULL,
    CHECK (merged_into IS NULL OR user_id IS NULL),
    CHECK (merged_into IS NOT id)
);
CREATE UNIQUE INDEX persons_user ON persons (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX persons_name ON persons (name_key) WHERE merged_into IS NULL;

ALTER TABLE players ADD COLUMN person_id INTEGER REFERENCES persons (id);
CREATE INDEX players_person ON players (person_id);

-- tournament: the rule's tournament factors; elite: its elite ones; unrated: none
ALTER TABLE tournaments ADD COLUMN rating_kind TEXT NOT NULL DEFAULT 'tournament'
    CHECK (rating_kind IN ('tournament', 'elite', 'unrated'));

CREATE TABLE game_changes (
    game_id INTEGER PRIMARY KEY,  -- no foreign key: a deleted game's row says it is gone
    seq     INTEGER NOT NULL
);
CREATE INDEX game_changes_seq ON game_changes (seq);

CREATE TRIGGER game_changes_insert AFTER INSERT ON games
BEGIN
    INSERT OR REPLACE INTO game_changes (game_id, seq)
    VALUES (NEW.id, (SELECT coalesce(max(seq), 0) + 1 FROM game_changes));
END;
-- Seats bump their game's version (v3): their changes come here through it.
CREATE TRIGGER game_changes_update AFTER UPDATE ON games
BEGIN
    INSERT OR REPLACE INTO game_changes (game_id, seq)
    VALUES (NEW.id, (SELECT coalesce(max(seq), 0) + 1 FROM game_changes));
END;
CREATE TRIGGER game_changes_delete AFTER DELETE ON games
BEGIN
    INSERT OR REPLACE INTO game_changes (game_id, seq)
    VALUES (OLD.id, (SELECT coalesce(max(seq), 0) + 1 FROM game_changes));
END;
CREATE TRIGGER game_changes_person AFTER UPDATE OF person_id ON players
WHEN NEW.person_id IS NOT OLD.person_id
BEGIN
    INSERT OR REPLACE INTO game_changes (game_id, seq)
    SELECT s.game_id, (SELECT coalesce(max(seq), 0) + 1 FROM game_changes)
    FROM game_seats s WHERE s.player_id = NEW.id;
END;
CREATE TRIGGER game_changes_tournament AFTER UPDATE OF status, rating_kind ON tournaments
WHEN NEW.status IS NOT OLD.status OR NEW.rating_kind IS NOT OLD.rating_kind
BEGIN
    INSERT OR REPLACE INTO game_changes (game_id, seq)
    SELECT g.id, (SELECT coalesce(max(seq), 0) + 1 FROM game_changes)
    FROM games g WHERE g.tournament_id = NEW.id;
END;

DROP TRIGGER players_version_update;
CREATE TRIGGER players_version_update
AFTER UPDATE OF tournament_id, nickname, nickname_key, user_id, status, created_at,
                decided_by, decided_at, withdrawn_at, withdrawn_by ON players
BEGIN
    UPDATE tournaments SET roster_version = roster_version + 1
    WHERE id IN (OLD.tournament_id, NEW.tournament_id);
END;

-- A new player: his account's person, or a person of his own.
CREATE TRIGGER players_person_insert AFTER INSERT ON players WHEN NEW.person_id IS NULL
BEGIN
    INSERT INTO persons (name, name_key, user_id, created_at)
    SELECT NEW.nickname, NEW.nickname_key, NEW.user_id, NEW.created_at
    WHERE NEW.user_id IS NULL
       OR NOT EXISTS (SELECT 1 FROM persons WHERE user_id = NEW.user_id);
    UPDATE players SET person_id = CASE
        WHEN NEW.user_id IS NULL THEN last_insert_rowid()
        ELSE (SELECT id FROM persons WHERE user_id = NEW.user_id) END
    WHERE id = NEW.id;
END;

-- A player linked to an account: the account's person is his.
CREATE TRIGGER players_person_account AFTER UPDATE OF user_id ON players
WHEN NEW.user_id IS NOT NULL AND NEW.user_id IS NOT OLD.user_id
BEGIN
    -- His person has no account and the account no person: it becomes the account's.
    UPDATE persons SET user_id = NEW.user_id
    WHERE id = NEW.person_id AND user_id IS NULL
      AND NOT EXISTS (SELECT 1 FROM persons WHERE user_id = NEW.user_id);
    -- The account has a person already: his person merges into it when it has no
    -- account and the two play no tournament together.
    UPDATE persons SET merged_into = (SELECT id FROM persons WHERE user_id = NEW.user_id)
    WHERE id = NEW.person_id AND user_id IS NULL AND merged_into IS NULL
      AND EXISTS (SELECT 1 FROM persons WHERE user_id = NEW.user_id)
      AND NOT EXISTS (
          SELECT 1 FROM players a JOIN players b ON b.tournament_id = a.tournament_id
          WHERE a.person_id = NEW.person_id AND a.id <> NEW.id AND a.status <> 'rejected'
            AND b.person_id = (SELECT id FROM persons WHERE user_id = NEW.user_id)
            AND b.status <> 'rejected');
    -- His person is another account's: the account gets a person of its own.
    INSERT INTO persons (name, name_key, user_id, created_at)
    SELECT NEW.nickname, NEW.nickname_key, NEW.user_id, CAST(strftime('%s', 'now') AS INTEGER)
    WHERE NOT EXISTS (SELECT 1 FROM persons WHERE user_id = NEW.user_id);
    UPDATE players SET person_id = (SELECT id FROM persons WHERE user_id = NEW.user_id)
    WHERE id = NEW.id
       OR person_id = (SELECT id FROM persons WHERE id = NEW.person_id
                       AND merged_into IS NOT NULL);
END;
"""


# Version 16: club evenings (README, "A club evening"). A club is a group with its owner
# and hosts (``club_staff``, checked like a tournament's staff). An evening is announced
# with a number of seats (NULL: unlimited); ``evening_signups`` is its list in the order
# people signed up: the first ``seats`` rows that are ``in`` have a seat, the rest are
# the reserve in that order, so a drop-out moves the reserve up by itself. A row is never
# reused: signing up again after "can't come" is a new row at the end. ``presence`` is
# the host's attendance (NULL: not marked). When the host starts the evening its games
# get a tournament of ``kind`` 'evening' in the club's group (``evenings.tournament_id``),
# so the judge's card, the live protocol, the standings and the export work unchanged;
# its games count in the career rating as club games. ``announce_dirty`` says the
# announcement must be drawn again (edits are coalesced by the poster); ``club_notes``
# holds what players are told privately (moved up from the reserve, the reminder, a
# cancelled evening) until it is sent.
_V16_CLUB_EVENINGS = """
CREATE TABLE clubs (
    id            INTEGER PRIMARY KEY,
    chat_id       INTEGER NOT NULL UNIQUE,
    title         TEXT    NOT NULL CHECK (length(trim(title)) BETWEEN 1 AND 200),
    language      TEXT    NOT NULL DEFAULT 'ru',
    timezone      TEXT    NOT NULL DEFAULT 'UTC',
    -- the season's first day, MM-DD (the owner's /season_start; default the calendar year)
    season_start  TEXT    NOT NULL DEFAULT '01-01'
                  CHECK (season_start GLOB '[01][0-9]-[0-3][0-9]'),
    protests      INTEGER NOT NULL DEFAULT 0 CHECK (protests IN (0, 1)),
    created_by    INTEGER NOT NULL,
    created_at    INTEGER NOT NULL
);

CREATE TABLE club_staff (
    club_id  INTEGER NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
    user_id  INTEGER NOT NULL,
    role     TEXT    NOT NULL CHECK (role IN ('owner', 'host')),
    added_by INTEGER NOT NULL,
    added_at INTEGER NOT NULL,
    PRIMARY KEY (club_id, user_id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX club_staff_owner ON club_staff (club_id) WHERE role = 'owner';
CREATE INDEX club_staff_user ON club_staff (user_id);

ALTER TABLE tournaments ADD COLUMN kind TEXT NOT NULL DEFAULT 'tournament'
    CHECK (kind IN ('tournament', 'evening'));

CREATE TABLE evenings (
    id             INTEGER PRIMARY KEY,
    club_id        INTEGER NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
    starts_at      INTEGER NOT NULL,
    place          TEXT    NOT NULL CHECK (length(trim(place)) BETWEEN 1 AND 200),
    seats          INTEGER CHECK (seats IS NULL OR seats BETWEEN 1 AND 1000),
    note           TEXT    CHECK (note IS NULL OR length(note) BETWEEN 1 AND 500),
    -- open: sign-up; closed: sign-up closed; running: started, games being played;
    -- finished: closed by the host with its table; cancelled
    status         TEXT    NOT NULL DEFAULT 'open'
                   CHECK (status IN ('open', 'closed', 'running', 'finished', 'cancelled')),
    remind_before  INTEGER NOT NULL DEFAULT 10800 CHECK (remind_before >= 0),
    reminded_at    INTEGER,
    tournament_id  INTEGER UNIQUE REFERENCES tournaments (id),
    message_id     INTEGER,
    announce_dirty INTEGER NOT NULL DEFAULT 1 CHECK (announce_dirty IN (0, 1)),
    announce_hash  TEXT,
    created_by     INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    CHECK (status NOT IN ('running', 'finished') OR tournament_id IS NOT NULL)
);
CREATE INDEX evenings_club ON evenings (club_id, starts_at);

CREATE TABLE evening_signups (
    -- the order of signing up: the seats and the reserve follow it
    id          INTEGER PRIMARY KEY,
    evening_id  INTEGER NOT NULL REFERENCES evenings (id) ON DELETE CASCADE,
    user_id     INTEGER,  -- NULL: a guest a host added by nickname
    name        TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 64 AND name = trim(name)),
    name_key    TEXT    NOT NULL CHECK (length(name_key) >= 1),
    -- in: signed up; out: can't come (or dropped out); removed: by a host
    status      TEXT    NOT NULL DEFAULT 'in' CHECK (status IN ('in', 'out', 'removed')),
    presence    TEXT    CHECK (presence IN ('present', 'absent', 'left')),
    added_by    INTEGER NOT NULL,
    signed_at   INTEGER NOT NULL,
    changed_at  INTEGER NOT NULL,
    player_id   INTEGER REFERENCES players (id)
);
CREATE UNIQUE INDEX evening_signups_user ON evening_signups (evening_id, user_id)
    WHERE user_id IS NOT NULL AND status = 'in';
CREATE UNIQUE INDEX evening_signups_name ON evening_signups (evening_id, name_key)
    WHERE status = 'in';
CREATE INDEX evening_signups_evening ON evening_signups (evening_id, status, id);

CREATE TABLE club_notes (
    id          INTEGER PRIMARY KEY,
    club_id     INTEGER NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
    evening_id  INTEGER REFERENCES evenings (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL,
    -- moved_up, reminder, cancelled, removed: worded when sent, in the reader's language
    kind        TEXT    NOT NULL CHECK (kind IN ('moved_up', 'reminder', 'cancelled', 'removed')),
    created_at  INTEGER NOT NULL,
    sent_at     INTEGER,
    failed      TEXT    CHECK (failed IS NULL OR length(failed) <= 500)
);
CREATE INDEX club_notes_waiting ON club_notes (id) WHERE sent_at IS NULL AND failed IS NULL;
"""


async def _v15_career(conn: aiosqlite.Connection) -> None:
    """Version 15 (``_V15_CAREER``), with the players there are: one person per Telegram
    account (named by its latest player's nickname) and one per player without one."""
    for statement in split_statements(_V15_CAREER):
        await conn.execute(statement)
    async with conn.execute(
        "SELECT id, nickname, nickname_key, user_id, created_at FROM players"
        " ORDER BY user_id IS NULL, status = 'rejected' DESC, id"
    ) as cur:
        rows = list(await cur.fetchall())
    person_of_user: dict[int, int] = {}
    for player_id, nickname, key, user_id, created_at in rows:
        person = None if user_id is None else person_of_user.get(int(user_id))
        if person is None:
            cur = await conn.execute(
                "INSERT INTO persons (name, name_key, user_id, created_at) VALUES (?, ?, ?, ?)",
                (nickname, key, user_id, created_at),
            )
            assert cur.lastrowid is not None
            person = cur.lastrowid
            if user_id is not None:
                person_of_user[int(user_id)] = person
        else:  # a later player of the account: the person takes his nickname
            await conn.execute(
                "UPDATE persons SET name = ?, name_key = ? WHERE id = ?", (nickname, key, person)
            )
        await conn.execute("UPDATE players SET person_id = ? WHERE id = ?", (person, player_id))


# How long before an evening its reminder goes (the owner's /club_reminder; 0: none),
# given to each evening announced from then on.
_V17_CLUB_REMINDER = """
ALTER TABLE clubs ADD COLUMN remind_before INTEGER NOT NULL DEFAULT 10800
    CHECK (remind_before BETWEEN 0 AND 604800);
"""

# Version 18: a stage's highest table number in one index lookup: a saved game's round
# is checked for completion without reading the tournament's games.
_V18_GAMES_STAGE_TABLE = """
CREATE INDEX games_stage_table ON games (tournament_id, coalesce(stage, 1), table_no)
    WHERE status <> 'annulled';
"""


MIGRATIONS: tuple[Step, ...] = (
    _V1_DOMAIN,
    _V2_RUNTIME,
    _V3_OUTBOX_AND_VERSIONS,
    _V4_LANGUAGE_AND_TIMEZONE,
    _V5_SEATING_PLANS,
    _V6_SEATING_POSTS,
    _V7_WITHDRAWN_PLAYERS,
    _v8_invite_digests,
    _V9_SEATING_TEXT_POSTED,
    _V10_STAGES,
    _V11_STAGE_LOTS_AND_FINAL_POST,
    _V12_LIVE_DRAFTS,
    _V13_CUT_PICTURE,
    _V14_SET_ASIDE,
    _v15_career,
    _V16_CLUB_EVENINGS,
    _V17_CLUB_REMINDER,
    _V18_GAMES_STAGE_TABLE,
)
LATEST = len(MIGRATIONS)


def split_statements(script: str) -> list[str]:
    """Split an SQL script at statement ends, using SQLite's own tokenizer.

    ``executescript`` is not used: it commits an open transaction first, which would
    detach a step from its ``user_version`` bump.
    """
    statements: list[str] = []
    buffer = ""
    for piece in script.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if buffer.strip(" \t\r\n;"):
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip(" \t\r\n;"):
        raise ValueError(f"incomplete SQL statement at the end of a migration: {buffer!r}")
    return statements


async def user_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    assert row is not None
    return int(row[0])


async def migrate(conn: aiosqlite.Connection, steps: Sequence[Step] = MIGRATIONS) -> int:
    """Bring the database to ``len(steps)``; return the version it started at.

    Expects a connection in autocommit mode (``isolation_level=None``) that is in no
    transaction.
    """
    start = await user_version(conn)
    if start > len(steps):
        raise DatabaseTooNew(start, len(steps))
    if start == len(steps):
        return start
    async with conn.execute("PRAGMA foreign_keys") as cur:
        row = await cur.fetchone()
    fk_was_on = bool(row and row[0])
    await conn.execute("PRAGMA foreign_keys = OFF")  # no effect inside a transaction
    try:
        for number in range(start + 1, len(steps) + 1):
            await _apply(conn, number, steps[number - 1])
    finally:
        if fk_was_on:
            await conn.execute("PRAGMA foreign_keys = ON")
    return start


async def _apply(conn: aiosqlite.Connection, number: int, step: Step) -> None:
    await conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have migrated while we waited for the write lock.
        if await user_version(conn) >= number:
            await conn.execute("COMMIT")
            return
        if isinstance(step, str):
            for statement in split_statements(step):
                await conn.execute(statement)
        else:
            await step(conn)
        async with conn.execute("PRAGMA foreign_key_check") as cur:
            broken = await cur.fetchall()
        if broken:
            raise sqlite3.IntegrityError(
                f"migration {number} breaks foreign keys: {[tuple(r) for r in broken][:5]}"
            )
        # PRAGMA takes no bound parameters; `number` is an int from this module, not input.
        await conn.execute(f"PRAGMA user_version = {int(number)}")
        await conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            await conn.rollback()
        raise
