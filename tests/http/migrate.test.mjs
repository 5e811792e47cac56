// A store of an earlier release is migrated in place by the current server
// on its first start (schema 5: origin + plays + snapshot + idempotency
// claims and answers + card notes), and every game in it answers exactly what the old
// server answered: its view to the admin, to each seat and to a spectator,
// its history with the bots' explanations, its events, legal plays and
// export. Then every game in progress is played on to its end. Four
// earlier releases:
//   - 7a16a9e, the last before the bots' chance became counter-based
//     (schema 4: gains the card_notes table, schema_version 5): its states hold the bots'
//     generator (`bot_rng`), its snapshots are CROUPIER-SNAP/2; every
//     origin still decodes, every snapshot is rebuilt from the log, whose
//     bot plays are applied as logged, and the keyed answers replay;
//   - the previous one, d8001a3 (schema 3: one idempotency table): its keys
//     move to the claims and answers tables (schema_version 4, then 5), and every
//     request it answered under a key, sent again byte for byte, gets the
//     answer it stored (before and after the games are played on);
//   - 6dacb9a (schema 2: no idempotency table): gains the tables and
//     schema_version 3, 4 and 5;
//   - 497a75b (schema 1: games.state and the notes table): becomes schema
//     2, 3, 4 then 5 (schema_version 1 to 5); ?at=N replays a game from the
//     position it was migrated in.
//
// The fixtures (tests/fixtures/store-vN/, made by that release itself with
// tests/fixtures/make-store.sh N): croupier-vN.db + expected.json (SQLite),
// croupier-vN-pg.sql + expected-pg.json (PostgreSQL, checked in the
// PostgreSQL pass of tests/run.sh, when CROUPIER_TEST_STORE is a postgres://
// URL: the dump is loaded into a database of its own on that server).
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ROOT } from './lib/contract.mjs';
import { startServer, request, expectStatus } from './lib/server.mjs';

const FIXTURES = path.join(ROOT, 'tests', 'fixtures');
// The snapshots' first 16 bytes: this build's format, and the one before
// it (store-v4's, whose states held the bots' generator).
const snapHex = (v) => Buffer.from(`CROUPIER-SNAP/${v} `).toString('hex').toUpperCase();
const MAGIC_HEX = snapHex(3);
const STORE = process.env.CROUPIER_TEST_STORE || '';
const PG_URL = /^postgres(ql)?:\/\//.test(STORE) ? STORE : '';

const hasTool = (cmd) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const load = (v, name) => JSON.parse(readFileSync(path.join(FIXTURES, `store-v${v}`, name), 'utf8'));

const dir = mkdtempSync(path.join(tmpdir(), 'croupier-migrate-'));
const cleanups = [];
after(async () => {
  for (const f of cleanups.reverse()) await f();
  rmSync(dir, { recursive: true, force: true });
});

// --- the raw databases ------------------------------------------------------

function run(cmd, args, what) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `${what}: ${cmd} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** Rows of a SELECT as objects, from SQLite (sqlite3 -json). */
function sqliteRows(file, sql) {
  const out = run('sqlite3', ['-json', '-cmd', '.timeout 5000', file, sql], sql).trim();
  return out ? JSON.parse(out) : [];
}

/** Rows of a SELECT as objects, from PostgreSQL (psql, json_agg). */
function pgRows(url, sql) {
  const out = run('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', url,
    '-c', `SELECT coalesce(json_agg(t), '[]'::json) FROM (${sql}) t`], sql).trim();
  return JSON.parse(out);
}

/** The same postgres:// URL naming another database. */
function pgWithDb(url, name) {
  const m = /^(postgres(?:ql)?:\/\/[^/?#]*)(\/[^?#]*)?(.*)$/.exec(url);
  assert.ok(m, `a postgres URL: ${url}`);
  return `${m[1]}/${name}${m[3]}`;
}

// --- the checks -------------------------------------------------------------

/**
 * An old answer as this release gives it, by the documented changes since
 * the fixture was made (CHANGELOG): a Five Crowns view keeps `layouts` for
 * its last finished round only (every round's are in its round_end record);
 * a game document carries `status` (where the game stands, from the view's
 * own members: docs/api.md), which `got` has and old answers lack.
 */
function asThisRelease(what, body, got) {
  if (what === 'legal' && body && !('total' in body) && got) { // paged since 0.2.0: a whole list plus its total
    assert.equal(got.total, (got.plays || []).length, 'legal: total counts the plays');
    body = { ...body, total: got.total };
  }
  if (what === 'game' && body && !('status' in body) && got && typeof got.status === 'object') {
    assert.equal(got.status.over, got.state.over ?? got.status.over, 'status.over as the view says');
    body = { ...body, status: got.status };
  }
  if (what !== 'game' || !body || !body.state || body.state.game !== 'fivecrowns') return body;
  const rounds = (body.state.rounds || []).map((r, i, all) => {
    if (i === all.length - 1) return r;
    const { layouts, ...rest } = r;
    return rest;
  });
  return { ...body, state: { ...body.state, rounds } };
}

function readers(g, admin) {
  const r = { admin, none: null };
  for (const s of g.seats) if (s.token) r[`seat${s.seat}`] = s.token;
  return r;
}

/**
 * The reader whose old answers `who` gets now: a seat whose person resigned
 * reads as a spectator while the game runs (CHANGELOG: its token no longer
 * reads the hand the bot plays), so as the old server answered no token.
 */
function readsAs(g, who) {
  const game = g.reads.admin.game;
  const seat = /^seat(\d+)$/.exec(who);
  const resigned = seat && game.seats.find((s) => s.seat === Number(seat[1]))?.resigned;
  return resigned && !game.state.over ? 'none' : who;
}

/** Every fixture game answers what the old server answered, to every reader. */
async function checkAnswers(base, fx, when) {
  for (const g of fx.games) {
    for (const [who, token] of Object.entries(readers(g, fx.admin_token))) {
      const want = g.reads[readsAs(g, who)];
      for (const [what, p] of [['game', ''], ['plays', '/plays'], ['events', '/events'], ['legal', '/legal']]) {
        const r = await request(base, 'GET', `/games/${g.id}${p}`, { token });
        expectStatus(r, 200, `${when}, ${g.label}: ${who} GET ${what}`);
        assert.deepEqual(r.json, asThisRelease(what, want[what], r.json), `${when}, ${g.label}: ${who} GET /games/{id}${p} as the old server answered`);
      }
    }
    // The export may gain members (the contract lets bodies grow): the old
    // ones unchanged; `explanations`, when there, those of the history.
    const ex = await request(base, 'GET', `/games/${g.id}/export?format=json`, { token: fx.admin_token });
    expectStatus(ex, 200, `${when}, ${g.label}: export`);
    const { explanations, ...old } = ex.json;
    const { explanations: oldExplanations, ...want } = g.export;
    for (const k of Object.keys(old)) if (!(k in want)) delete old[k];
    // A state no longer holds the bots' generator (CHANGELOG: a bot's
    // chance is drawn from the game's key and play number, and the log's
    // plays, the bots' included, are applied as logged: api/gamectx.c,
    // ctx_replay), so no game's export has the old `bot_rng` any more: it
    // is the one member of every old export that is gone by design, and a
    // new `bot_key` (16 hex digits, derived from the origin's old bot_rng:
    // engine/core/jsonx.h) stands in its place in the games that keep one
    // (Hanabi's key is its seed); the old server had none to compare with.
    // Everything else is as the old server gave it.
    if (want.state && 'bot_rng' in want.state) {
      assert.ok(!('bot_rng' in old.state), `${when}, ${g.label}: the export has no bot_rng`);
      const { bot_rng, ...rest } = want.state;
      want.state = rest;
      if (want.game !== 'hanabi') assert.match(old.state.bot_key ?? '', /^[0-9a-f]{16}$/, `${when}, ${g.label}: the export's bot_key`);
      const { bot_key, ...kept } = old.state;
      old.state = kept;
    }
    assert.deepEqual(old, want, `${when}, ${g.label}: the admin's export, every member the old server gave`);
    if (oldExplanations !== undefined) {
      assert.deepEqual(explanations, oldExplanations, `${when}, ${g.label}: the export's explanations as the old server gave them`);
    } else if (explanations !== undefined) {
      const want = Object.fromEntries(g.reads.admin.plays.plays.filter((p) => p.explanation).map((p) => [String(p.n), p.explanation]));
      assert.deepEqual(explanations, want, `${when}, ${g.label}: the export's explanations are the history's`);
    }
  }
}

/**
 * ?at=N on a migrated game: its log starts after the plays inside its origin
 * (the last of them: L), so at=L is the game as migrated and any N below L
 * is a 400 naming `at`. `played`: the games have been played on since, so
 * only the admin's view at L is compared (a finished game shows every card).
 */
async function checkAtOrigin(base, fx, played) {
  for (const g of fx.games) {
    const hist = g.reads.admin.plays.plays;
    if (hist.length === 0) continue;
    const last = hist.at(-1).n;
    for (const [who, token] of Object.entries(readers(g, fx.admin_token))) {
      if (played && who !== 'admin') continue;
      const r = await request(base, 'GET', `/games/${g.id}?at=${last}`, { token });
      expectStatus(r, 200, `${g.label}: ${who} at=${last}`);
      assert.equal(r.json.at, last);
      assert.deepEqual(r.json.state, asThisRelease('game', g.reads[readsAs(g, who)].game).state, `${g.label}: ${who} at=${last} (the origin) is the game as migrated`);
      for (const n of new Set([last - 1, -1])) {
        const bad = await request(base, 'GET', `/games/${g.id}?at=${n}`, { token });
        expectStatus(bad, 400, `${g.label}: ${who} at=${n}, before the log`);
        assert.equal(bad.json.type, '/problems/invalid-parameter');
        assert.match(bad.json.detail, /\bat\b/, `${g.label}: at=${n}: the detail names at: ${bad.json.detail}`);
      }
    }
  }
}

/** The schema after the migration, through `rows(sql)`; `from` the fixture's schema. */
function checkSchema(rows, fx, tables, from) {
  assert.deepEqual(rows('SELECT version FROM schema_version ORDER BY version').map((r) => Number(r.version)),
    [1, 2, 3, 4, 5].slice(from - 1), 'schema_version holds every version the store had, and 5 (this one)');
  for (const t of ['notes', 'idempotency']) assert.ok(!tables().includes(t), `the ${t} table is gone: ${tables()}`);
  for (const t of ['games', 'plays', 'schema_version', 'idempotency_claims', 'idempotency_answers', 'card_notes']) {
    assert.ok(tables().includes(t), `table ${t}: ${tables()}`);
  }
  if (fx.keyed) {
    assert.equal(Number(rows('SELECT count(*) AS k FROM idempotency_answers')[0].k), fx.keyed.length,
      'every answer of the old store is kept');
  }
  const notes = fx.games.reduce((k, g) => k + g.reads.admin.plays.plays.filter((p) => p.explanation).length, 0);
  const kind3 = Number(rows('SELECT count(*) AS k FROM plays WHERE kind = 3 AND explanation IS NOT NULL')[0].k);
  if (from === 1) assert.equal(kind3, notes, 'every note of the old store is a plays row of kind 3');
  const ids = rows('SELECT id FROM games WHERE origin IS NULL').map((r) => r.id);
  assert.deepEqual(ids, [], 'every game has its origin');
}

/** After the reads, every game has a fresh snapshot of its version. */
function checkSnapshots(rows, hex, fx) {
  for (const g of fx.games) {
    const [row] = rows(`SELECT version, snap_version, ${hex} AS head FROM games WHERE id = '${g.id}'`);
    assert.ok(row, `${g.label}: row`);
    assert.equal(row.head, MAGIC_HEX, `${g.label}: the snapshot written after a read is this build's, CROUPIER-SNAP/3`);
    assert.equal(Number(row.snap_version), Number(row.version), `${g.label}: the snapshot is of the current version`);
  }
}

/** Play every game in progress to its end, each person following GET /hint. */
async function playOn(base, fx) {
  for (const g of fx.games) {
    if (g.over) continue;
    const rd = readers(g, fx.admin_token);
    const tokenOf = (seat) => g.seats.find((s) => s.seat === seat)?.token;
    let steps = 0;
    for (;;) {
      const views = {};
      for (const [who, token] of Object.entries(rd)) {
        const r = await request(base, 'GET', `/games/${g.id}`, { token });
        expectStatus(r, 200, `${g.label} step ${steps}: ${who} GET /games/{id}`);
        views[who] = r.json;
      }
      if (steps % 10 === 0 || views.admin.state.over) {
        for (const [who, token] of Object.entries(rd)) {
          for (const p of ['/plays', '/events', '/legal']) {
            expectStatus(await request(base, 'GET', `/games/${g.id}${p}`, { token }), 200, `${g.label} step ${steps}: ${who} GET ${p}`);
          }
        }
      }
      if (views.admin.state.over) break;
      assert.ok(++steps < 3000, `${g.label}: ends within 3000 plays`);
      const token = tokenOf(views.admin.state.current);
      assert.ok(token, `${g.label}: seat ${views.admin.state.current} to play is a person's`);
      const hint = await request(base, 'GET', `/games/${g.id}/hint`, { token });
      expectStatus(hint, 200, `${g.label} step ${steps}: hint`);
      const r = await request(base, 'POST', `/games/${g.id}/plays`, {
        token, json: { play: hint.json.play }, headers: { 'if-match': `"${views.admin.version}"` },
      });
      expectStatus(r, 200, `${g.label} step ${steps}: POST the hint's play ${JSON.stringify(hint.json.play)}`);
    }
    assert.ok(steps > 0, `${g.label}: played on`);
  }
}

/**
 * Every request the old server answered under an Idempotency-Key, sent
 * again as it was (the same bytes, token and key): the answer it stored,
 * marked as a replay (the old rows were made within their keep: the
 * fixture's times are freshened before the server starts).
 */
async function checkKeyed(base, fx, when) {
  // The schema and snapshot checks before this read the store with psql or
  // sqlite3 synchronously: while they ran, Node's event loop stood still and
  // could not see the server end an idle keep-alive connection (after 5 s),
  // so the pool would send the next POST on a socket already closed ("other
  // side closed", seen on a loaded machine). One turn of the loop lets it.
  await new Promise((r) => setTimeout(r, 50));
  for (const k of fx.keyed ?? []) {
    const headers = { 'idempotency-key': k.key };
    if (k.body !== null) headers['content-type'] = 'application/json';
    const r = await request(base, k.method, k.path, { token: k.token ?? undefined, body: k.body ?? undefined, headers });
    const what = `${when}: ${k.method} ${k.path} sent again with its key`;
    expectStatus(r, k.status, what);
    assert.equal(r.text, k.text, `${what}: the old server's answer`);
    for (const [h, v] of Object.entries(k.headers)) assert.equal(r.headers.get(h), v, `${what}: ${h}`);
    assert.equal(r.headers.get('idempotent-replayed'), 'true', `${what}: a replay`);
  }
}

async function stopOk(s) {
  const { code, signal, stderr } = await s.stop();
  assert.equal(signal, null, `server killed by ${signal}; stderr: ${stderr.slice(-2000)}`);
  assert.equal(code, 0, `clean shutdown; stderr: ${stderr.slice(-2000)}`);
}

// The fixtures' games were last written when the fixtures were made: the
// servers keep them (games expire, docs/operations.md; not what is tested here).
const KEEP = ['--expire-finished', '0', '--expire-idle', '0'];

/** The whole check on one store: migrate, compare, restart, compare, play on. */
async function migrateAndPlay(store, fx, rows, hex, tables, from) {
  if (from === 4) {
    for (const r of rows(`SELECT id, ${hex} AS head FROM games`)) {
      assert.equal(r.head, snapHex(2), `the fixture's game ${r.id} has a snapshot of the old format, holding bot_rng`);
    }
  }
  let s = await startServer({ store, adminToken: fx.admin_token, extraArgs: KEEP });
  let stopped = false;
  cleanups.push(async () => { if (!stopped) await s.stop(); });
  await checkAnswers(s.base, fx, 'after the migration');
  checkSchema(rows, fx, tables, from);
  checkSnapshots(rows, hex, fx);
  await checkKeyed(s.base, fx, 'after the migration');
  await stopOk(s);
  // A second start finds schema 5: nothing migrates again, nothing changes.
  s = await startServer({ store, adminToken: fx.admin_token, extraArgs: KEEP });
  await checkAnswers(s.base, fx, 'after a restart');
  checkSchema(rows, fx, tables, from);
  if (from === 1) await checkAtOrigin(s.base, fx, false);
  await playOn(s.base, fx);
  if (from === 1) await checkAtOrigin(s.base, fx, true);
  await checkKeyed(s.base, fx, 'after the games were played on');
  stopped = true;
  await stopOk(s);
}

const FROM = [
  { v: 1, release: '497a75b', tables: ['games', 'notes'] },
  { v: 2, release: '6dacb9a', tables: ['games', 'plays', 'schema_version'] },
  { v: 3, release: 'd8001a3', tables: ['games', 'idempotency', 'plays', 'schema_version'] },
  { v: 4, release: '7a16a9e', tables: ['games', 'idempotency_answers', 'idempotency_claims', 'plays', 'schema_version'] },
];

for (const { v, release, tables: before } of FROM) {
  test(`SQLite: a store of release ${release} (schema ${v}) migrates in place and every game answers as before, then plays on`,
    { skip: !hasTool('sqlite3') && 'the sqlite3 command-line tool is missing (apt-get install sqlite3)', timeout: 600_000 },
    async () => {
      const fx = load(v, 'expected.json');
      const file = path.join(dir, `v${v}.db`);
      copyFileSync(path.join(FIXTURES, `store-v${v}`, `croupier-v${v}.db`), file);
      const rows = (sql) => sqliteRows(file, sql);
      const tables = () => rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map((r) => r.name);
      assert.deepEqual(tables(), before, `the fixture is a schema-${v} store`);
      if (v === 3) run('sqlite3', [file, "UPDATE idempotency SET expires_at = CAST(strftime('%s', 'now') AS INTEGER) + 3600"], 'freshen the keys');
      if (v === 4) run('sqlite3', [file, "UPDATE idempotency_answers SET expires_at = CAST(strftime('%s', 'now') AS INTEGER) + 3600"], 'freshen the keys');
      await migrateAndPlay(`sqlite:${file}`, fx, rows, 'hex(substr(snap, 1, 16))', tables, v);
    });

  if (PG_URL) {
    test(`PostgreSQL: a dump of release ${release} (schema ${v}) migrates in place and every game answers as before, then plays on`,
      { skip: !hasTool('psql') && 'the psql command-line tool is missing (apt-get install postgresql-client)', timeout: 600_000 },
      async () => {
        const fx = load(v, 'expected-pg.json');
        const name = `croupier_migrate_${randomBytes(6).toString('hex')}`;
        run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', PG_URL, '-c', `CREATE DATABASE ${name}`], 'create database');
        cleanups.push(() => run('psql', ['-X', '-q', '-d', PG_URL, '-c', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`], 'drop database'));
        const url = pgWithDb(PG_URL, name);
        run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', path.join(FIXTURES, `store-v${v}`, `croupier-v${v}-pg.sql`)], 'load the dump');
        const rows = (sql) => pgRows(url, sql);
        const tables = () => rows("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename").map((r) => r.tablename);
        assert.deepEqual(tables(), before, `the fixture is a schema-${v} store`);
        if (v === 3) run('psql', ['-X', '-q', '-d', url, '-c', "UPDATE idempotency SET expires_at = now() + interval '1 hour'"], 'freshen the keys');
        if (v === 4) run('psql', ['-X', '-q', '-d', url, '-c', "UPDATE idempotency_answers SET expires_at = now() + interval '1 hour'"], 'freshen the keys');
        await migrateAndPlay(url, fx, rows, "upper(encode(substring(snap FROM 1 FOR 16), 'hex'))", tables, v);
      });
  }
}
