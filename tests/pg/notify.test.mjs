// Live events across processes on PostgreSQL: a server hears of the other
// servers' writes by LISTEN/NOTIFY (one listening connection per process)
// and wakes the event streams of that game, which read the store again.
// Two servers A and B on one cluster: B listens (/metrics), a spectator's
// SSE stream on B gets every play made through A, B hears of each of A's
// writes once (not of its own), and after the cluster restarts B listens
// again by itself and the stream goes on. How fast is for the bench
// (tests/bench/events.mjs, BENCH=events: p99 within 100 ms); the latencies
// are printed here, not asserted.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { startCluster } from '../http/lib/pg.mjs';
import { startServer, request, expectStatus } from '../http/lib/server.mjs';
import { follow, percentile } from '../http/lib/sse.mjs';

const pg = startCluster();
const cleanups = [];
after(async () => {
  for (const f of cleanups.reverse()) await f();
});
if (pg) cleanups.push(() => pg.destroy());

async function metrics(server) {
  const r = await request(server.base, 'GET', '/metrics', {}).catch(() => ({ text: '' }));
  const num = (name) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(r.text ?? '')?.[1] ?? NaN);
  return { listening: num('croupier_store_listening'), heard: num('croupier_store_notifications_total'),
    connects: num('croupier_store_listen_connects_total') };
}

async function until(what, fn) {
  const end = Date.now() + 30_000;
  for (;;) {
    if (await fn()) return;
    assert.ok(Date.now() < end, `${what}: not within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a play through one server reaches an event stream on another (LISTEN/NOTIFY), also after a restart',
  { skip: !pg && 'no PostgreSQL server binaries (apt-get install postgresql)', timeout: 180_000 }, async () => {
    const a = await startServer({ store: pg.url });
    cleanups.push(() => a.stop());
    const b = await startServer({ store: pg.url });
    cleanups.push(() => b.stop());
    await until('B listens', async () => (await metrics(b)).listening === 1);
    const g = await request(a.base, 'POST', '/games', {
      json: { game: 'comp10001bo', seed: 21, players: [{ name: 'P' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] },
    });
    expectStatus(g, 201);
    const { id } = g.json;
    const token = g.json.seats[0].token;
    let events = g.json.applied.length;
    let s = follow(`${b.base}/games/${id}/events`);
    cleanups.push(() => s.close());
    await s.ready;
    if (events) await s.arrival(events);
    const heard0 = (await metrics(b)).heard;

    const lat = [];
    const playOnA = async () => {
      const legal = await request(a.base, 'GET', `/games/${id}/legal`, { token });
      expectStatus(legal, 200);
      if (!legal.json.plays.length) return false;
      const t0 = performance.now();
      const r = await request(a.base, 'POST', `/games/${id}/plays`, { token, json: { play: legal.json.plays[0] } });
      expectStatus(r, 200);
      const next = events + 1;
      events += r.json.applied.length;
      lat.push((await s.arrival(next)) - t0);
      await s.arrival(events);
      return true;
    };
    let plays = 0;
    while (plays < 15 && (await playOnA())) plays++;
    assert.ok(plays > 0, 'plays were made');
    const heard = (await metrics(b)).heard - heard0;
    assert.equal(heard, plays, `B heard of each of A's ${plays} writes once (${heard})`);
    assert.equal((await metrics(a)).heard, 0, 'A does not hear of its own writes');
    console.log(`a play on A to its event on B: p50 ${percentile(lat, 50).toFixed(1)} ms, max ${Math.max(...lat).toFixed(1)} ms (${lat.length} plays)`);

    // the cluster restarts: B's listening connection is made again by itself
    const connects = (await metrics(b)).connects;
    pg.restart('fast');
    await until('B listens again', async () => {
      const m = await metrics(b);
      return m.listening === 1 && m.connects > connects;
    });
    // a stream that met the store's restart ended (`event: error`): the
    // client comes back with Last-Event-ID, as EventSource does
    s.close();
    s = follow(`${b.base}/games/${id}/events`, { 'last-event-id': String(events) });
    await s.ready;
    const before = (await metrics(b)).heard;
    await until('a play goes through after the restart', async () => {
      try { return await playOnA(); } catch { return false; }
    });
    assert.ok((await metrics(b)).heard > before, 'B hears of A\'s writes after the restart');
  });
