// A PostgreSQL that stops answering (every process of the cluster stopped
// with SIGSTOP: connections stay open, nothing answers, as on a frozen host
// or a lost network) does not hold requests for the kernel's TCP timeouts:
// reads, writes and /healthz get a 503 problem with Retry-After within a
// few seconds (connect, statement and answer timeouts, api/store_pg.c), and
// once the cluster runs again (SIGCONT) the same server serves again by
// itself, the game as it was before the stop plus what was acknowledged.
//
// A cluster of its own (tests/http/lib/pg.mjs), since it is stopped.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster } from '../http/lib/pg.mjs';
import { startServer, request, expectStatus } from '../http/lib/server.mjs';

const pg = startCluster();
const cleanups = [];
after(async () => {
  for (const f of cleanups.reverse()) await f();
});
if (pg) cleanups.push(() => pg.destroy());

// A request that the test gives up on after this long fails the test: the
// server's own bounds (3 s to connect, 3 + 1 s for an answer, 4 s to settle
// a write in doubt) are well inside it.
const PATIENCE = 20_000;

async function until(what, fn) {
  const end = Date.now() + 30_000;
  for (;;) {
    const r = await fn().catch((e) => ({ error: e }));
    if (r && !r.error && r.ok) return r;
    if (Date.now() > end) assert.fail(`${what}: not within 30 s (${r?.error?.message ?? r?.status})`);
    await new Promise((res) => setTimeout(res, 250));
  }
}

function expectStore503(r, what) {
  assert.equal(r.status, 503, `${what}: ${r.status} ${r.text.slice(0, 300)}`);
  assert.ok(['/problems/store-unavailable', '/problems/outcome-unknown'].includes(r.json?.type),
    `${what}: a problem of the store: ${r.text.slice(0, 300)}`);
  assert.match(r.headers.get('retry-after') ?? '', /^[0-9]+$/, `${what}: Retry-After`);
}

test('a frozen PostgreSQL: 503 problems with Retry-After in seconds, then the server recovers by itself',
  { skip: !pg && 'no PostgreSQL server binaries (apt-get install postgresql)', timeout: 180_000 }, async () => {
    const server = await startServer({ store: pg.url });
    cleanups.push(() => server.stop());
    const g = await request(server.base, 'POST', '/games', {
      json: { game: 'comp10001bo', seed: 5, players: [{ name: 'Ann' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] },
    });
    expectStatus(g, 201);
    const { id } = g.json;
    const token = g.json.seats[0].token;
    const legal = await request(server.base, 'GET', `/games/${id}/legal`, { token });
    expectStatus(legal, 200);
    const play = legal.json.plays[0];

    pg.signal('SIGSTOP');
    let frozen = true;
    const thaw = () => { if (frozen) { pg.signal('SIGCONT'); frozen = false; } };
    cleanups.push(thaw);
    try {
      const opts = { token, timeout: PATIENCE };
      expectStore503(await request(server.base, 'GET', `/games/${id}`, opts), 'a read');
      expectStore503(await request(server.base, 'GET', '/healthz', { timeout: PATIENCE }), '/healthz');
      const w = await request(server.base, 'POST', `/games/${id}/plays`, { ...opts, json: { play } });
      expectStore503(w, 'a write');
      const c = await request(server.base, 'POST', '/games', {
        timeout: PATIENCE, json: { game: 'comp10001bo', seed: 6, players: [{ name: 'Bo' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] },
      });
      expectStore503(c, 'a new game');
    } finally {
      thaw();
    }

    // back by itself: no restart of the server
    await until('/healthz answers 200 again', () => request(server.base, 'GET', '/healthz', { timeout: PATIENCE })
      .then((r) => ({ ok: r.status === 200, status: r.status })));
    const now = await request(server.base, 'GET', `/games/${id}`, { token });
    expectStatus(now, 200);
    // the write in doubt may have landed once the cluster ran again (then
    // its play is logged once), or not; never twice
    const plays = await request(server.base, 'GET', `/games/${id}/plays`, { token: server.adminToken });
    const mine = plays.json.plays.filter((p) => p.seat === 0);
    assert.ok(mine.length <= 1, `at most one play of seat 0: ${JSON.stringify(mine)}`);
    if (mine.length === 0) {
      const r = await request(server.base, 'POST', `/games/${id}/plays`, { token, json: { play } });
      expectStatus(r, 200, 'the play goes through once the store is back');
    }
    const r = await server.stop();
    cleanups.splice(cleanups.indexOf(thaw), 1);
    assert.equal(r.code, 0, r.stderr);
  });
