-- PostgreSQL schema of the Croupier store, schema version 5 (docs/store.md).
-- The server creates it itself on an empty database, and migrates the
-- schemas of earlier releases in place; this file is for DBAs who create it
-- ahead (then the server finds version 5 and changes nothing). It is what
-- the server creates, statement for statement: tests/pg/schema.test.mjs
-- compares the two (pg_dump --schema-only).
--
--   psql -v ON_ERROR_STOP=1 -d 'postgres://croupier@db/croupier' -f postgres-schema.sql
BEGIN;

-- Every schema version applied to this database.
CREATE TABLE schema_version (
    version    integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now(),
    note       text NOT NULL
);

-- One row per game: the api's metadata (seats, token hashes), the origin
-- the play log starts from (the engine's JSON), a snapshot of the current
-- state (a cache: bytes of this build, of `snap_version`), and the version
-- that every write compare-and-swaps.
CREATE TABLE games (
    id           text PRIMARY KEY,
    game         text NOT NULL,
    version      bigint NOT NULL,
    meta         text NOT NULL,
    origin       text NOT NULL,
    snap         bytea,
    snap_version bigint NOT NULL DEFAULT -1,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);

-- The append-only log: one row per play (kind 0 a person, 1 a bot, 2 a
-- forced pass, 3 a note of a play inside the origin), in history order.
CREATE TABLE plays (
    game_id     text NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    n           bigint NOT NULL,
    version     bigint NOT NULL,
    seat        integer NOT NULL,
    kind        integer NOT NULL,
    bot         text,
    play        text,
    record      text,
    explanation text,
    at_ms       bigint NOT NULL,
    PRIMARY KEY (game_id, n)
);

-- Idempotency keys, by a hash of the key in its scope (16 bytes). A claim
-- is held while the request runs: the request's fingerprint, the process
-- and request holding it, the end of its lease (renewed while it runs).
CREATE TABLE idempotency_claims (
    id          bytea PRIMARY KEY,
    fingerprint bytea NOT NULL,
    owner       text NOT NULL,
    expires_at  timestamptz NOT NULL
);

-- An answer is inserted once, by the write it answers: the fingerprint,
-- the sealed answer (without what the game gives back), and when it
-- expires (--idempotency-keep, 24 hours by default).
CREATE TABLE idempotency_answers (
    id          bytea PRIMARY KEY,
    fingerprint bytea NOT NULL,
    answer      bytea NOT NULL,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX idempotency_answers_expires ON idempotency_answers (expires_at);

-- A seat's notes on cards (docs/api.md "Card notes"), by the client's key
-- of the card: beside the game, never a write of it.
CREATE TABLE card_notes (
    game_id text NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat    integer NOT NULL,
    card    text NOT NULL,
    text    text NOT NULL,
    at_ms   bigint NOT NULL,
    PRIMARY KEY (game_id, seat, card)
);

INSERT INTO schema_version (version, note)
    VALUES (5, 'origin + play log + snapshot cache + idempotency claims and answers'
               ' + card notes');
COMMIT;
