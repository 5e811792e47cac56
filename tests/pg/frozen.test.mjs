// A PostgreSQL that stops answering (every process of the cluster stopped
// with SIGSTOP: connections stay open, nothing answers, as on a frozen host
// or a lost network) does not hold requests for the kernel's TCP timeouts:
// every request gets a 503 problem with Retry-After within the documented
// bound (docs/operations.md: 5 s for a read, /healthz or a claimed key; 9 s
// for a write, which may settle an answer that was lost), every time; and
// once the cluster runs again (SIGCONT) the same server serves again by
// itself, each game as it was plus what was acknowledged, no play twice.
//
// Two rounds of: the cluster stopped, then every kind of request at once
// (reads, /healthz, plays and new games with and without a key: each waits
// on the frozen database from the start), then the same one after another
// (the store refuses at once for a second after an answer did not come);
// thawed; then writes sent while a session of the test's holds their
// games' rows, stopped with the cluster while they wait (their answers
// lost: settled or answered outcome-unknown within the bound); then
// clients playing and creating as fast as they can while the cluster is
// stopped under them.
//
// A cluster of its own (tests/http/lib/pg.mjs), since it is stopped.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { startCluster } from '../http/lib/pg.mjs';
import { startServer, request, expectStatus } from '../http/lib/server.mjs';

const pg = startCluster();
const cleanups = [];
after(async () => {
  for (const f of cleanups.reverse()) await f();
});
if (pg) cleanups.push(() => pg.destroy());

const READ_MS = 5000; // docs/operations.md: a read, /healthz, a key's claim
const WRITE_MS = 9000; // ... a write
const PATIENCE = 30_000; // a request the test gives up on fails it
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const players = [{ name: 'Ann' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }];

async function until(what, fn) {
  const end = Date.now() + 30_000;
  for (;;) {
    const r = await fn().catch((e) => ({ error: e }));
    if (r && !r.error && r.ok) return r;
    if (Date.now() > end) assert.fail(`${what}: not within 30 s (${r?.error?.message ?? r?.status})`);
    await sleep(250);
  }
}

function expectStore503(r, what) {
  assert.equal(r.status, 503, `${what}: ${r.status} ${r.text.slice(0, 300)}`);
  assert.ok(['/problems/store-unavailable', '/problems/outcome-unknown'].includes(r.json?.type),
    `${what}: a problem of the store: ${r.text.slice(0, 300)}`);
  assert.match(r.headers.get('retry-after') ?? '', /^[0-9]+$/, `${what}: Retry-After`);
}

/** A request timed: {r, ms} ({error} when it got no answer within PATIENCE). */
async function timed(base, method, p, opts = {}) {
  const t0 = Date.now();
  try {
    const r = await request(base, method, p, { ...opts, timeout: PATIENCE });
    return { r, ms: Date.now() - t0 };
  } catch (e) {
    return { error: e.message, ms: Date.now() - t0 };
  }
}

function within(x, bound, what) {
  assert.ok(!x.error, `${what}: no answer in ${x.ms} ms (${x.error})`);
  assert.ok(x.ms <= bound, `${what}: answered in ${x.ms} ms, past the bound of ${bound} ms`);
}

async function newGame(base, seed) {
  const g = await request(base, 'POST', '/games', { json: { game: 'comp10001bo', seed, players } });
  expectStatus(g, 201);
  return { id: g.json.id, token: g.json.seats[0].token };
}

async function aPlay(base, g) {
  const legal = await request(base, 'GET', `/games/${g.id}/legal`, { token: g.token });
  expectStatus(legal, 200);
  return legal.json.plays[0];
}

/** Every kind of request, each with the bound it must meet. */
function kinds(base, g, play, seed) {
  const key = () => ({ 'idempotency-key': `"${randomUUID()}"` });
  return [
    ['a read', READ_MS, () => timed(base, 'GET', `/games/${g.id}`, { token: g.token })],
    ['a read of the log', READ_MS, () => timed(base, 'GET', `/games/${g.id}/plays`, { token: g.token })],
    ['/healthz', READ_MS, () => timed(base, 'GET', '/healthz')],
    ['a play', WRITE_MS, () => timed(base, 'POST', `/games/${g.id}/plays`, { token: g.token, json: { play } })],
    ['a keyed play', WRITE_MS, () => timed(base, 'POST', `/games/${g.id}/plays`, { token: g.token, json: { play }, headers: key() })],
    ['a new game', WRITE_MS, () => timed(base, 'POST', '/games', { json: { game: 'comp10001bo', seed, players } })],
    ['a keyed new game', WRITE_MS, () => timed(base, 'POST', '/games', { json: { game: 'comp10001bo', seed: seed + 1, players }, headers: key() })],
  ];
}

/** The person's plays of g are at most the acknowledged ones and those in doubt, each once. */
async function checkLog(base, adminToken, g, acked, doubtful) {
  const r = await request(base, 'GET', `/games/${g.id}/plays`, { token: adminToken });
  expectStatus(r, 200);
  const ns = r.json.plays.map((p) => p.n);
  assert.equal(new Set(ns).size, ns.length, `${g.id}: no play logged twice`);
  for (const n of acked) assert.ok(ns.includes(n), `${g.id}: acknowledged play ${n} is logged`);
  const mine = r.json.plays.filter((p) => p.seat === 0).length;
  assert.ok(mine >= acked.size && mine <= acked.size + doubtful,
    `${g.id}: ${mine} plays of the person's: the ${acked.size} acknowledged and at most ${doubtful} in doubt`);
}

test('a frozen PostgreSQL: every request a 503 with Retry-After within its bound, every time; then served again',
  { skip: !pg && 'no PostgreSQL server binaries (apt-get install postgresql)', timeout: 300_000 }, async () => {
    const server = await startServer({ store: pg.url, extraArgs: ['--threads', '32', '--quota-create', '0'] /* creates in a loop: not the quota's test */ });
    cleanups.push(() => server.stop());
    let frozen = false;
    const freeze = () => { pg.signal('SIGSTOP'); frozen = true; };
    const thaw = () => { if (frozen) { pg.signal('SIGCONT'); frozen = false; } };
    cleanups.push(thaw);
    const seen = [];
    for (let round = 1; round <= 2; round++) {
      const g = await newGame(server.base, 10 * round);
      const play = await aPlay(server.base, g);
      const before = (await request(server.base, 'GET', `/games/${g.id}/plays`, { token: server.adminToken })).json.plays.length;
      await sleep(1100); // /healthz keeps a good answer for a second
      freeze();
      try {
        // every kind at once: each meets the frozen database from the start
        const all = kinds(server.base, g, play, 100 * round);
        const got = await Promise.all(all.map(([, , send]) => send()));
        for (const [i, [what, bound]] of all.entries()) {
          within(got[i], bound, `round ${round}, at once: ${what}`);
          expectStore503(got[i].r, `round ${round}, at once: ${what}`);
          seen.push(`${what} ${got[i].ms}`);
        }
        // then one after another
        for (const [what, bound, send] of kinds(server.base, g, play, 100 * round + 50)) {
          const x = await send();
          within(x, bound, `round ${round}, in turn: ${what}`);
          expectStore503(x.r, `round ${round}, in turn: ${what}`);
          seen.push(`${what} ${x.ms}`);
        }
      } finally {
        thaw();
      }
      // back by itself: no restart of the server
      await until('/healthz answers 200 again', () => request(server.base, 'GET', '/healthz', { timeout: PATIENCE })
        .then((r) => ({ ok: r.status === 200, status: r.status })));
      expectStatus(await request(server.base, 'GET', `/games/${g.id}`, { token: g.token }), 200);
      // the writes in doubt may have landed once the cluster ran again: once each at most
      const plays = (await request(server.base, 'GET', `/games/${g.id}/plays`, { token: server.adminToken })).json.plays;
      const mine = plays.slice(before).filter((p) => p.seat === 0);
      assert.ok(mine.length <= 1, `round ${round}: at most one play of seat 0: ${JSON.stringify(mine)}`);

      // writes waiting for a row lock when the cluster stops: sent, never answered
      const locked = await Promise.all([1, 2].map((i) => newGame(server.base, 2000 * round + i)));
      const lockedPlays = await Promise.all(locked.map((x) => aPlay(server.base, x)));
      const locker = spawn('psql', ['-X', '-q', '-d', pg.url], { stdio: ['pipe', 'ignore', 'inherit'] });
      locker.stdin.write(`BEGIN; SELECT 1 FROM games WHERE id IN ('${locked[0].id}', '${locked[1].id}') FOR UPDATE;\n`);
      await sleep(500);
      await sleep(600); // /healthz's good answer is a second old
      const caught = locked.map((x, i) => timed(server.base, 'POST', `/games/${x.id}/plays`, {
        token: x.token, json: { play: lockedPlays[i] }, headers: i ? { 'idempotency-key': `"${randomUUID()}"` } : {},
      }));
      await sleep(300);
      freeze();
      try {
        for (const [i, x] of (await Promise.all(caught)).entries()) {
          within(x, WRITE_MS, `round ${round}: a ${i ? 'keyed ' : ''}play caught waiting when the database stopped`);
          expectStore503(x.r, `round ${round}: a ${i ? 'keyed ' : ''}play caught waiting`);
          seen.push(`a ${i ? 'keyed ' : ''}play caught waiting ${x.ms}`);
        }
      } finally {
        thaw();
        locker.stdin.end('ROLLBACK;\n');
      }
      await until('/healthz answers 200 after the caught writes', () => request(server.base, 'GET', '/healthz', { timeout: PATIENCE })
        .then((r) => ({ ok: r.status === 200, status: r.status })));
      for (const x of locked) await checkLog(server.base, server.adminToken, x, new Set(), 1);

      // clients writing as fast as they can while the cluster is stopped under them
      const games = await Promise.all([1, 2, 3].map((i) => newGame(server.base, 1000 * round + i)));
      let running = true;
      const doubt = new Map(games.map((x) => [x.id, 0])), acked = new Map(games.map((x) => [x.id, new Set()]));
      const writer = async (x, keyed) => {
        while (running) {
          const legal = await timed(server.base, 'GET', `/games/${x.id}/legal`, { token: x.token });
          within(legal, READ_MS, `round ${round}, under load: a read`);
          if (legal.r.status !== 200) { expectStore503(legal.r, 'a read under load'); await sleep(100); continue; }
          if (!legal.r.json.plays.length) break;
          const headers = keyed ? { 'idempotency-key': `"${randomUUID()}"` } : {};
          const w = await timed(server.base, 'POST', `/games/${x.id}/plays`, { token: x.token, json: { play: legal.r.json.plays[0] }, headers });
          within(w, WRITE_MS, `round ${round}, under load: a ${keyed ? 'keyed ' : ''}play`);
          if (w.r.status === 200) acked.get(x.id).add(w.r.json.applied[0].n);
          else if (w.r.status === 503) { expectStore503(w.r, 'a play under load'); doubt.set(x.id, doubt.get(x.id) + 1); await sleep(100); }
          else if (w.r.status !== 409) assert.fail(`round ${round}, under load: ${w.r.status} ${w.r.text}`);
        }
      };
      const creator = async () => {
        for (let seed = 5000 * round; running; seed++) {
          const c = await timed(server.base, 'POST', '/games', { json: { game: 'comp10001bo', seed, players }, headers: { 'idempotency-key': `"${randomUUID()}"` } });
          within(c, WRITE_MS, `round ${round}, under load: a keyed new game`);
          if (c.r.status !== 201) { expectStore503(c.r, 'a new game under load'); await sleep(100); }
        }
      };
      const load = Promise.all([...games.map((x, i) => writer(x, i % 2 === 1)), creator()]);
      await sleep(1000);
      freeze();
      await sleep(7000);
      thaw();
      await until('/healthz answers 200 after the load', () => request(server.base, 'GET', '/healthz', { timeout: PATIENCE })
        .then((r) => ({ ok: r.status === 200, status: r.status })));
      running = false;
      await load;
      for (const x of games) await checkLog(server.base, server.adminToken, x, acked.get(x.id), doubt.get(x.id));
    }
    console.log(`answered (ms): ${seen.join(', ')}`);
    const r = await server.stop();
    cleanups.splice(cleanups.indexOf(thaw), 1);
    assert.equal(r.code, 0, r.stderr);
  });
