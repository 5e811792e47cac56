-- PostgreSQL schema of the Croupier store (created by the server itself on
-- start when missing; here for DBAs who create it ahead).
-- One row per game: the api's metadata and the engine's state as JSON text,
-- and a version that every write compare-and-swaps.
CREATE TABLE IF NOT EXISTS games (
    id         text PRIMARY KEY,
    game       text NOT NULL,
    version    bigint NOT NULL,
    meta       text NOT NULL,
    state      text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- The one-line explanations of bot plays (annotations shown in the history).
CREATE TABLE IF NOT EXISTS notes (
    game_id text NOT NULL,
    n       bigint NOT NULL,
    text    text NOT NULL,
    PRIMARY KEY (game_id, n)
);
