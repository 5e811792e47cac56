// croupier serve killed (SIGKILL) while clients send keyed writes, then
// started again on the same store, three times over: every request that
// was in flight when the server died, sent again with its Idempotency-Key,
// gets its final answer within 2 s of the new server being up (the new
// process takes over the dead one's claims at once: their owner is a
// process of this host that no longer runs), and no write is lost or
// doubled. On SQLite (a file) and on PostgreSQL (a cluster of the test's
// own; skipped without the server binaries).
//
// The load: persons playing games against bots (a new game when one
// ends), each play with a key of its own, and a client creating games of bots only that the POST plays
// to their end (a few hundred ms each, so that one is nearly always in
// flight when the server dies), each create with a key and a seed of its
// own. Every request without an answer, with a 5xx or a 409
// `idempotency-key-in-flight` is sent again (every 100 ms) to whichever
// server is up, with the same key. At the end every game's log is exactly
// the plays its acknowledged answers applied (the creation's bot plays,
// then each keyed play with the bot plays and forced passes after it),
// each once; each create's seed names one game, the one its answer named.
// Bounded: about 12 s of load per store.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCluster } from '../http/lib/pg.mjs';
import { startServer, request, expectStatus } from '../http/lib/server.mjs';

const KILLS = Number(process.env.KILL_COUNT ?? 3);
const GAMES = 4;
const BOUND_MS = 2000; // the requirement: answered within 2 s of the server being up
const ADMIN = 'kill-test-admin-token-0123456789';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dir = mkdtempSync(path.join(tmpdir(), 'croupier-kill-'));
const cleanups = [];
after(async () => {
  for (const f of cleanups.reverse()) await f();
  rmSync(dir, { recursive: true, force: true });
});

/** The servers of one run: the one up now, killed and started again. */
function fleet(store) {
  const f = {
    server: null, upAt: 0, gen: 0, kills: [],
    async start() {
      f.server = await startServer({ store, adminToken: ADMIN, extraArgs: ['--threads', '32', '--quota-create', '0'] /* keyed creates by the hundred: not the quota's test */ });
      f.upAt = Date.now();
      f.gen++;
    },
    async kill() {
      const s = f.server;
      const gone = new Promise((r) => s.proc.once('exit', r));
      s.proc.kill('SIGKILL');
      await gone;
      f.kills.push(Date.now());
      await s.stop(); // its temp dir
    },
  };
  cleanups.push(async () => { if (f.server?.proc.exitCode === null) await f.server.stop(); });
  return f;
}

/**
 * A keyed request sent until it gets a final answer, to whichever server
 * is up: {r, sentGen, answeredGen, afterUp} (afterUp: ms from the answering
 * server's start to the answer, when the request spanned a kill).
 */
async function keyed(f, method, p, opts, tally) {
  const headers = { ...(opts.headers ?? {}), 'idempotency-key': `"${randomUUID()}"` };
  const sentGen = f.gen;
  for (let tries = 0; ; tries++) {
    assert.ok(tries < 600, `${method} ${p}: a final answer within 600 tries`);
    const gen = f.gen, up = f.upAt;
    let r;
    try {
      r = await request(f.server.base, method, p, { ...opts, headers, timeout: 10_000 });
    } catch (e) {
      r = { error: e.message };
    }
    const what = r.error ? 'no answer' : `${r.status} ${r.json?.type ?? ''}`.trim();
    tally[what] = (tally[what] ?? 0) + 1;
    if (!r.error && r.status < 500 && r.json?.type !== '/problems/idempotency-key-in-flight') {
      return { r, sentGen, answeredGen: gen, afterUp: gen !== sentGen ? Date.now() - up : 0 };
    }
    await sleep(100);
  }
}

/** rows(sql) of the store behind the servers. */
function rowsOf(store, pg) {
  if (pg) {
    return (sql) => JSON.parse(execFileSync('psql', ['-X', '-q', '-A', '-t', '-d', store, '-c',
      `SELECT coalesce(json_agg(t), '[]'::json) FROM (${sql}) t`], { encoding: 'utf8' }));
  }
  const file = store.slice('sqlite:'.length);
  return (sql) => {
    const out = execFileSync('sqlite3', ['-json', '-cmd', '.timeout 5000', file, sql], { encoding: 'utf8' }).trim();
    return out ? JSON.parse(out) : [];
  };
}

/** A request that may find no server up: retried every 100 ms until it has an answer below 500. */
async function reliably(f, method, p, opts) {
  for (;;) {
    try {
      const r = await request(f.server.base, method, p, { ...opts, timeout: 10_000 });
      if (r.status < 500) return r;
    } catch { /* the server died: the next one */ }
    await sleep(100);
  }
}

async function run(store, rows) {
  const f = fleet(store);
  await f.start();
  let running = true;
  const tally = {}, spans = [];
  const games = new Map(); // id -> the records its acknowledged answers applied
  const note = (x) => { if (x.answeredGen !== x.sentGen) spans.push(x); return x; };
  const person = async (i) => {
    for (let seed = 700 + 100 * i; running; seed++) {
      const g = await reliably(f, 'POST', '/games', {
        json: { game: 'comp10001bo', seed, players: [{ name: 'P' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] },
      });
      expectStatus(g, 201);
      const { id } = g.json, token = g.json.seats[0].token, acked = [...g.json.applied];
      games.set(id, acked);
      while (running) {
        const legal = await reliably(f, 'GET', `/games/${id}/legal`, { token });
        expectStatus(legal, 200);
        if (!legal.json.plays.length) break;
        const x = note(await keyed(f, 'POST', `/games/${id}/plays`, { token, json: { play: legal.json.plays[0] } }, tally));
        expectStatus(x.r, 200, `${id}: a keyed play`);
        acked.push(...x.r.json.applied);
      }
    }
  };
  const creator = async () => {
    const made = [];
    for (let seed = 9000; running; seed++) {
      const json = { game: 'fivecrowns', seed, players: [{ bot: 'strategy' }, { bot: 'strategy' }, { bot: 'strategy' }] };
      const x = note(await keyed(f, 'POST', '/games', { json }, tally));
      expectStatus(x.r, 201, `seed ${seed}: a keyed create`);
      made.push({ seed, id: x.r.json.id });
    }
    return made;
  };
  const killer = (async () => {
    for (let i = 0; i < KILLS; i++) {
      await sleep(2500 + 500 * i);
      await f.kill();
      await f.start();
    }
    await sleep(1500);
    running = false;
  })();
  const [made] = await Promise.all([creator(), ...Array.from({ length: GAMES }, (_, i) => person(i))]);
  await killer;

  console.log(`${f.kills.length} kills; ${spans.length} requests in flight across a kill, answered ` +
    `${spans.map((x) => x.afterUp).sort((a, b) => a - b).join(' ')} ms after the new server was up; ` +
    `answers: ${JSON.stringify(tally)}`);
  const late = spans.filter((x) => x.afterUp > BOUND_MS);
  assert.deepEqual(late.map((x) => `${x.r.status} after ${x.afterUp} ms`), [],
    `every request in flight when the server died is answered within ${BOUND_MS} ms of the new server being up`);
  assert.ok(spans.length >= KILLS, `requests were in flight when the server died (${spans.length})`);
  // nothing lost, nothing doubled
  for (const [id, acked] of games) {
    const r = await request(f.server.base, 'GET', `/games/${id}/plays`, { token: ADMIN });
    expectStatus(r, 200);
    const logged = r.json.plays;
    assert.deepEqual(logged.map((p) => p.n), acked.map((p) => p.n).sort((a, b) => a - b),
      `${id}: the log is the ${acked.length} plays its acknowledged answers applied, each once`);
    for (const rec of acked) {
      assert.deepEqual(logged.find((p) => p.n === rec.n).play, rec.play, `${id}: play ${rec.n} is the one acknowledged`);
    }
  }
  const seeds = new Map(rows("SELECT id, json_extract(meta, '$.seed') AS seed FROM games").map((r) => [r.id, Number(r.seed)]));
  for (const { seed, id } of made) {
    const ids = [...seeds].filter(([, s]) => s === seed).map(([k]) => k);
    assert.deepEqual(ids, [id], `seed ${seed}: one game, the one its answer named`);
  }
  const r = await f.server.stop();
  assert.equal(r.code, 0, r.stderr);
}

test('SIGKILL under keyed writes, SQLite: retries answered within 2 s of the restart, nothing lost or doubled',
  { timeout: 180_000 }, async () => {
    const store = `sqlite:${path.join(dir, 'kill.db')}`;
    await run(store, rowsOf(store, false));
  });

const pg = startCluster();
if (pg) cleanups.push(() => pg.destroy());
test('SIGKILL under keyed writes, PostgreSQL: retries answered within 2 s of the restart, nothing lost or doubled',
  { skip: !pg && 'no PostgreSQL server binaries (apt-get install postgresql)', timeout: 180_000 }, async () => {
    const rows = rowsOf(pg.url, true);
    await run(pg.url, (sql) => rows(sql.replace("json_extract(meta, '$.seed')", "(meta::json->>'seed')")));
  });
