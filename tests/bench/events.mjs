// events.mjs (`make bench`, BENCH=events): how long a play made through
// one server takes to reach an event stream (SSE) held on another server
// of the same store: PostgreSQL (the second server hears of it by
// LISTEN/NOTIFY) and, for comparison, one SQLite file shared by two
// processes (the stream polls the store: 250 ms after an event, backing
// off to a second). Target: p99 <= 100 ms on PostgreSQL.
//
//   node tests/bench/events.mjs [--bin build/croupier] [--plays 200]
//
// Per store: two `croupier serve` processes A and B; a game of one person
// and three random bots created on A (another when it ends); a spectator's
// stream of it on B; then plays through A one after another (each waits
// for the previous one's events on B, then 20-100 ms): the time from
// sending the play to A until its first event arrives on B. Prints p50,
// p90, p99 and max, the POST's own time for scale, and the time from A's
// answer to the event on B (0 when the event came first): the part a
// busy machine moves least.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startCluster } from '../http/lib/pg.mjs';
import { startServer, request } from '../http/lib/server.mjs';
import { follow, percentile } from '../http/lib/sse.mjs';

const { values: opt } = parseArgs({ options: { bin: { type: 'string' }, plays: { type: 'string', default: '200' } } });
if (opt.bin) process.env.CROUPIER_BIN = path.resolve(opt.bin);
const PLAYS = Number(opt.plays);

/** A new game of one person and three random bots (quick to answer: the
 * figure is the way to the other server, not the bots' thinking), and a
 * spectator's stream of it on b, caught up. */
async function table(a, b, seed) {
  const g = await request(a.base, 'POST', '/games', {
    json: { game: 'comp10001bo', seed, players: [{ name: 'P' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] },
  });
  const s = follow(`${b.base}/games/${g.json.id}/events`);
  await s.ready;
  if (g.json.applied.length) await s.arrival(g.json.applied.length);
  return { id: g.json.id, token: g.json.seats[0].token, s, events: g.json.applied.length };
}

async function measure(store) {
  const a = await startServer({ store });
  const b = await startServer({ store });
  const lat = [];
  const post = [];
  const after = [];
  try {
    let t = await table(a, b, 1);
    for (let i = 0; lat.length < PLAYS; i++) {
      const legal = await request(a.base, 'GET', `/games/${t.id}/legal`, { token: t.token });
      if (!legal.json.plays.length) { // over: the next table
        t.s.close();
        t = await table(a, b, i + 2);
        continue;
      }
      const t0 = performance.now();
      const r = await request(a.base, 'POST', `/games/${t.id}/plays`, { token: t.token, json: { play: legal.json.plays[i % legal.json.plays.length] } });
      const t1 = performance.now();
      post.push(t1 - t0);
      if (r.status !== 200) throw new Error(`play: ${r.status} ${r.text}`);
      // events are numbered 1, 2, ... in history order: this play's is the next
      const t2 = await t.s.arrival(t.events + 1);
      lat.push(t2 - t0);
      after.push(Math.max(0, t2 - t1));
      t.events += r.json.applied.length;
      await t.s.arrival(t.events); // the bots' plays too, before the next play
      await new Promise((res) => setTimeout(res, 20 + Math.random() * 80)); // not in step with the polls
    }
    t.s.close();
    const m = await request(b.base, 'GET', '/metrics', {});
    const heard = /croupier_store_notifications_total (\d+)/.exec(m.text)?.[1] ?? '-';
    return { lat, post, after, heard };
  } finally {
    await a.stop();
    await b.stop();
  }
}

function line(name, { lat, post, after, heard }, target) {
  const f = (x) => `${x.toFixed(1)} ms`;
  const p99 = percentile(lat, 99);
  const verdict = target ? (p99 <= target ? ' PASS' : ' FAIL') + ` (target p99 <= ${target} ms)` : '';
  console.log(`  ${name.padEnd(34)} plays ${String(lat.length).padStart(4)}  p50 ${f(percentile(lat, 50))}  p90 ${f(percentile(lat, 90))}` +
    `  p99 ${f(p99)}  max ${f(Math.max(...lat))}${verdict}`);
  console.log(`  ${''.padEnd(34)} the POST itself: p50 ${f(percentile(post, 50))}, p99 ${f(percentile(post, 99))};` +
    ` after A's answer: p50 ${f(percentile(after, 50))}, p99 ${f(percentile(after, 99))}; notifications heard by B: ${heard}`);
}

console.log(`== events across processes: a play through server A until its event on server B's SSE stream (${PLAYS} plays)`);
const pg = startCluster();
if (pg) {
  try {
    line('PostgreSQL (LISTEN/NOTIFY)', await measure(pg.url), 100);
  } finally {
    pg.destroy();
  }
} else {
  console.log('  PostgreSQL: no server binaries, skipped');
}
const dir = mkdtempSync(path.join(tmpdir(), 'croupier-events-'));
try {
  line('SQLite, one file, two processes (polling)', await measure(`sqlite:${path.join(dir, 'e.db')}`));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
