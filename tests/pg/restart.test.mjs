// PostgreSQL restarted with `pg_ctl -m immediate` (every backend killed at
// once, crash recovery on start) while a server takes plays: no answer may
// claim a failure for a play that was saved, and no retry may play twice.
//
// Clients play several games at once, each play with an Idempotency-Key
// of its own, and send every request that got no answer, a 5xx or a 409
// `idempotency-key-in-flight` again with the same key until it gets a
// final answer; the cluster is restarted -m immediate three times
// meanwhile. At the end every game's log holds each acknowledged play
// exactly once, and as many of the person's plays as were acknowledged
// (none doubled, none lost), and each answer (the first, or its replay)
// is the play logged. A second test does the same without keys, as a
// careful client would (with If-Match): after a 503 `store-unavailable`
// (nothing was written, says the answer: checked, the game has not moved)
// it sends the play again; after no answer or `outcome-unknown` it reads
// the game first to learn whether it was played.
//
// A cluster of its own (tests/http/lib/pg.mjs), since it is restarted.
// Bounded: 6 games x 30 plays, three restarts; about a minute.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startCluster } from '../http/lib/pg.mjs';
import { startServer, request, expectStatus } from '../http/lib/server.mjs';

const pg = startCluster();
const cleanups = [];
after(async () => {
  for (const f of cleanups.reverse()) await f();
});
if (pg) cleanups.push(() => pg.destroy());

const GAMES = Number(process.env.RESTART_GAMES ?? 6);
const PLAYS = Number(process.env.RESTART_PLAYS ?? 30);
const RESTARTS = Number(process.env.RESTART_COUNT ?? 3);
const PATIENCE = 20_000; // one request's; the server's own bounds are well inside
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const skip = !pg && 'no PostgreSQL server binaries (apt-get install postgresql)';

/** A request that may get no answer: {status, json, headers} or {error}. */
async function attempt(base, method, p, opts) {
  try {
    return await request(base, method, p, { ...opts, timeout: PATIENCE });
  } catch (e) {
    return { error: e.message };
  }
}

/** Plays `n` plays of game g (seat 0, a person, against bots) through
 * `send(play, version)`: a list of the acknowledged answers. */
async function playGame(server, g, n, send) {
  const token = g.seats[0].token;
  const acked = [];
  for (let i = 0; i < n; i++) {
    let view;
    for (;;) { // the current view (reads may fail while the cluster restarts)
      view = await attempt(server.base, 'GET', `/games/${g.id}/legal`, { token });
      if (view.status === 200) break;
      await sleep(200);
    }
    if (view.json.plays.length === 0) break; // over (or not our turn: bots finished it)
    const play = view.json.plays[i % view.json.plays.length];
    const r = await send(token, play);
    if (r) acked.push(r);
  }
  return acked;
}

/** The person's (seat 0's) plays in the game's log. */
async function seatPlays(server, id) {
  for (;;) {
    const r = await attempt(server.base, 'GET', `/games/${id}/plays`, { token: server.adminToken });
    if (r.status === 200) return r.json.plays.filter((p) => p.seat === 0);
    await sleep(200);
  }
}

async function withLoad(server, games, sendFor) {
  let running = true;
  const restarts = (async () => {
    for (let i = 0; i < RESTARTS && running; i++) {
      await sleep(1500 + 1000 * i);
      if (running) await pg.restartAsync('immediate');
    }
  })();
  const acked = await Promise.all(games.map((g) => playGame(server, g, PLAYS, sendFor(g))));
  running = false;
  await restarts;
  return acked;
}

async function newGames(server) {
  const games = [];
  for (let i = 0; i < GAMES; i++) {
    const r = await request(server.base, 'POST', '/games', {
      json: { game: 'comp10001bo', seed: 100 + i, players: [{ name: 'P' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] },
    });
    expectStatus(r, 201);
    games.push(r.json);
  }
  return games;
}

/** Every acknowledged play is in the log once, under the version its
 * answer named, and the log has no other play of the person's. */
async function checkLogs(server, games, acked) {
  let total = 0;
  for (const [i, g] of games.entries()) {
    const logged = await seatPlays(server, g.id);
    const mine = acked[i].map((r) => r.json.applied[0]);
    assert.equal(logged.length, mine.length,
      `${g.id}: the log holds the person's ${mine.length} acknowledged plays, no more, no fewer (${logged.length})`);
    for (const rec of mine) {
      const same = logged.filter((p) => p.n === rec.n);
      assert.equal(same.length, 1, `${g.id}: play ${rec.n} logged once`);
      assert.deepEqual(same[0].play, rec.play, `${g.id}: play ${rec.n} is the one acknowledged`);
    }
    total += mine.length;
  }
  return total;
}

async function metric(server, name) {
  const r = await attempt(server.base, 'GET', '/metrics', {});
  return (r.text ?? '').split('\n').filter((l) => l.startsWith(name)).join('\n');
}

test('restarted -m immediate under keyed plays: every acknowledged play once, none doubled',
  { skip, timeout: 300_000 }, async () => {
    const server = await startServer({ store: pg.url, extraArgs: ['--threads', '32', '--quota-create', '0'] });
    cleanups.push(() => server.stop());
    const games = await newGames(server);
    const tally = { sent: 0, retried: 0, replayed: 0, statuses: {} };
    const sendFor = (g) => async (token, play) => {
      const headers = { 'idempotency-key': `"${randomUUID()}"` };
      for (let tries = 0; ; tries++) {
        assert.ok(tries < 200, `${g.id}: a final answer within 200 tries`);
        tally.sent++;
        if (tries) tally.retried++;
        const r = await attempt(server.base, 'POST', `/games/${g.id}/plays`, { token, json: { play }, headers });
        const what = r.error ? 'no answer' : `${r.status} ${r.json?.type ?? ''}`;
        tally.statuses[what] = (tally.statuses[what] ?? 0) + 1;
        if (r.status === 200) {
          if (r.headers.get('idempotent-replayed')) tally.replayed++;
          return r;
        }
        if (r.error || r.status >= 500 || r.json?.type === '/problems/idempotency-key-in-flight') {
          await sleep(300);
          continue;
        }
        assert.fail(`${g.id}: an answer that is neither applied nor worth retrying: ${r.status} ${r.text}`);
      }
    };
    const acked = await withLoad(server, games, sendFor);
    const total = await checkLogs(server, games, acked);
    console.log(`keyed: ${total} plays acknowledged, ${tally.sent} requests (${tally.retried} retries, ` +
      `${tally.replayed} answered as replays); answers: ${JSON.stringify(tally.statuses)}\n` +
      `${await metric(server, 'croupier_store_answers_lost_total{')}`);
    assert.ok(total > 0, 'plays were acknowledged');
    const r = await server.stop();
    cleanups.splice(cleanups.length - 1, 1);
    assert.equal(r.code, 0, r.stderr);
  });

test('restarted -m immediate under plays without keys: no store-unavailable answer for a play that was saved',
  { skip, timeout: 300_000 }, async () => {
    const server = await startServer({ store: pg.url, extraArgs: ['--threads', '32', '--quota-create', '0'] });
    cleanups.push(() => server.stop());
    const games = await newGames(server);
    const tally = {};
    const sendFor = (g) => async (token, play) => {
      for (let tries = 0; ; tries++) {
        assert.ok(tries < 200, `${g.id}: a final answer within 200 tries`);
        const before = await attempt(server.base, 'GET', `/games/${g.id}`, { token });
        if (before.status !== 200) {
          await sleep(200);
          continue;
        }
        const r = await attempt(server.base, 'POST', `/games/${g.id}/plays`, {
          token, json: { play }, headers: { 'if-match': `"${before.json.version}"` },
        });
        const what = r.error ? 'no answer' : `${r.status} ${r.json?.type ?? ''}`;
        tally[what] = (tally[what] ?? 0) + 1;
        if (r.status === 200) return r;
        if (r.json?.type === '/problems/store-unavailable' || r.json?.type === '/problems/server-busy') {
          // nothing was written, says the answer: the game is where it was
          let now;
          do {
            await sleep(300);
            now = await attempt(server.base, 'GET', `/games/${g.id}`, { token });
          } while (now.status !== 200);
          assert.equal(now.json.version, before.json.version,
            `${g.id}: ${r.json.type} although the play was saved: ${r.text}`);
          continue; // the same play again
        }
        // no answer, or outcome-unknown: read the game to learn whether it
        // was played (a careful client without keys)
        for (;;) {
          await sleep(300);
          const now = await attempt(server.base, 'GET', `/games/${g.id}`, { token });
          if (now.status !== 200) continue;
          if (now.json.version === before.json.version) break; // not played: again
          return null; // played, unacknowledged: its answer was lost
        }
      }
    };
    const acked = await withLoad(server, games, sendFor);
    // without keys, a play whose answer was lost is in the log but not in
    // `acked`: count those as the client learnt them
    for (const [i, g] of games.entries()) {
      const logged = await seatPlays(server, g.id);
      const ackedN = new Set(acked[i].map((r) => r.json.applied[0].n));
      for (const rec of acked[i].map((r) => r.json.applied[0])) {
        assert.equal(logged.filter((p) => p.n === rec.n).length, 1, `${g.id}: play ${rec.n} logged once`);
      }
      const unacked = logged.filter((p) => !ackedN.has(p.n)).length;
      tally['saved, answer lost (learnt by reading)'] = (tally['saved, answer lost (learnt by reading)'] ?? 0) + unacked;
      assert.ok(logged.length <= PLAYS, `${g.id}: no more of the person's plays than were sent (${logged.length})`);
    }
    console.log(`without keys: answers ${JSON.stringify(tally)}\n` +
      `${await metric(server, 'croupier_store_answers_lost_total{')}`);
    const r = await server.stop();
    cleanups.splice(cleanups.length - 1, 1);
    assert.equal(r.code, 0, r.stderr);
  });
