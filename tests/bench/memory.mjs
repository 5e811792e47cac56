// memory.mjs (`make bench`, BENCH=memory): a server's memory under a long
// mixed load: games created (whole bot games, played inside the POST),
// persons' plays, reads and event streams, all at once, as a classroom
// would. Prints the server's RSS every 30 s and, at the end, whether it
// levelled off under the 50 MB target (docs/operations.md, memory) after the first two minutes.
//
//   node tests/bench/memory.mjs [--bin build/croupier] [--minutes 10] [--store URL]
//
// The load (each a loop of its own, no pacing but the answers'): 6 persons
// playing a game each (the four games in turn, against bots; a new game
// when one ends), 2 readers (a random game's view, plays, events list,
// legal plays), 1 creator (a game of bots only, played to the end by the
// POST, one a second), and 16 spectators, each following a game being
// played with an SSE stream for 5-10 s, then another a second later (about
// two streams a second, as the 10-minute load: 84,643 plays,
// 46,520 reads, 1,149 streams). The server runs with its default settings
// on a fresh SQLite file (or --store).
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startServer, request } from '../http/lib/server.mjs';
import { procStatus } from './lib.mjs';

const { values: opt } = parseArgs({
  options: { bin: { type: 'string' }, minutes: { type: 'string', default: '10' }, store: { type: 'string' },
    every: { type: 'string', default: '30' } },
});
if (opt.bin) process.env.CROUPIER_BIN = path.resolve(opt.bin);
const MINUTES = Number(opt.minutes);
const EVERY_S = Number(opt.every);
const TARGET_MB = 50;
const dir = mkdtempSync(path.join(tmpdir(), 'croupier-memory-'));
const server = await startServer({ store: opt.store ?? `sqlite:${path.join(dir, 'memory.db')}` });
const base = server.base;
const count = { plays: 0, reads: 0, creates: 0, streams: 0, errors: 0 };
const games = []; // ids of games to read
const playing = new Map(); // person -> the id of the game being played (to follow)
let running = true;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pick = (a) => a[Math.floor(Math.random() * a.length)];

const TABLES = [
  { game: 'comp10001bo', players: [{ name: 'P' }, { bot: 'random' }, { bot: 'planner' }, { bot: 'random' }] },
  { game: 'hanabi', players: [{ name: 'P' }, { bot: 'rules' }, { bot: 'info' }] },
  { game: 'phazed', players: [{ name: 'P' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] },
  { game: 'fivecrowns', players: [{ name: 'P' }, { bot: 'greedy' }] },
];

async function call(method, p, opts = {}) {
  try {
    const r = await request(base, method, p, { ...opts, check: false, timeout: 60_000 });
    if (r.status >= 500) count.errors++;
    return r;
  } catch {
    count.errors++;
    return { status: 0 };
  }
}

async function person(i) {
  let seed = i * 100000;
  while (running) {
    const t = TABLES[(i + seed) % TABLES.length];
    const g = await call('POST', '/games', { json: { ...t, seed: seed++ } });
    if (g.status !== 201) { await sleep(100); continue; }
    games.push(g.json.id);
    if (games.length > 2000) games.splice(0, 1000);
    playing.set(i, g.json.id);
    const token = g.json.seats[0].token;
    while (running) {
      const legal = await call('GET', `/games/${g.json.id}/legal`, { token });
      if (legal.status !== 200 || !legal.json.plays.length) break;
      const r = await call('POST', `/games/${g.json.id}/plays`, { token, json: { play: pick(legal.json.plays) } });
      if (r.status === 200) count.plays++;
      else break;
    }
  }
}

async function reader() {
  while (running) {
    if (!games.length) { await sleep(100); continue; }
    const id = pick(games);
    await call('GET', pick([`/games/${id}`, `/games/${id}/plays`, `/games/${id}/events`, `/games/${id}/legal`]));
    count.reads++;
  }
}

async function creator() {
  let seed = 1;
  while (running) {
    const t = TABLES[seed % TABLES.length];
    const bots = t.players.map((p, k) => (p.bot ? p : { bot: t.game === 'hanabi' ? 'rules' : k % 2 ? 'random' : 'random' }));
    const r = await call('POST', '/games', { json: { game: t.game, seed: seed++, players: bots } });
    if (r.status === 201) count.creates++;
    await sleep(1000);
  }
}

function spectator() {
  return new Promise((resolve) => {
    if (!running || !playing.size) { setTimeout(resolve, 200); return; }
    const id = pick([...playing.values()]);
    const req = http.get(`${base}/games/${id}/events`, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      count.streams++;
      res.resume();
      res.on('end', () => setTimeout(resolve, 1000));
      res.on('error', () => setTimeout(resolve, 1000));
    });
    req.on('error', () => setTimeout(resolve, 1000));
    setTimeout(() => { req.destroy(); resolve(); }, 5000 + Math.random() * 5000);
  });
}

async function spectators() {
  while (running) await spectator();
}

/** The server's own account (/metrics): heap in use and kept free, SQLite's memory (MB). */
async function accounts() {
  const m = await call('GET', '/metrics');
  const v = (re) => Number(re.exec(m.text ?? '')?.[1] ?? NaN) / 1048576;
  return { heap: v(/^croupier_heap_bytes\{kind="in_use"\} (\d+)/m), free: v(/^croupier_heap_bytes\{kind="free"\} (\d+)/m),
    sqlite: v(/^croupier_sqlite_memory_bytes (\d+)/m) };
}

function rss() {
  const s = procStatus(server.proc.pid, 'VmRSS', 'VmHWM', 'Threads');
  return { rss: s.VmRSS / 1024, hwm: s.VmHWM / 1024, threads: s.Threads };
}

const t0 = Date.now();
const samples = [];
const loops = [
  ...Array.from({ length: 6 }, (_, i) => person(i)),
  reader(), reader(), creator(),
  ...Array.from({ length: 16 }, () => spectators()),
];
console.log(`== memory: ${MINUTES} min of mixed load on croupier serve (${opt.store ?? 'SQLite'}), RSS every ${EVERY_S} s`);
console.log('   min    RSS MB   peak MB  heap MB  free MB  SQLite MB  threads    plays    reads  creates  streams  5xx/none');
const mb = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const show = (s) => console.log(`  ${s.min.toFixed(1).padStart(4)}  ${s.rss.toFixed(1).padStart(8)}  ${s.hwm.toFixed(1).padStart(8)}` +
  `  ${mb(s.heap).padStart(7)}  ${mb(s.free).padStart(7)}  ${mb(s.sqlite).padStart(9)}` +
  `  ${String(s.threads).padStart(7)}  ${String(s.plays).padStart(7)}  ${String(s.reads).padStart(7)}  ${String(s.creates).padStart(7)}` +
  `  ${String(s.streams).padStart(7)}  ${String(s.errors).padStart(8)}`);
while (Date.now() - t0 < MINUTES * 60_000) {
  await sleep(EVERY_S * 1000);
  const s = { min: (Date.now() - t0) / 60_000, ...rss(), ...(await accounts()), ...count };
  samples.push(s);
  show(s);
}
running = false;
await Promise.all(loops);
const after = samples.filter((s) => s.min >= 2);
const worst = Math.max(...after.map((s) => s.rss));
const first = after[0]?.rss ?? NaN;
const last = after.at(-1)?.rss ?? NaN;
const slope = after.length > 1 ? (last - first) / (after.at(-1).min - after[0].min) : 0;
await sleep(1500);
const idle = rss();
console.log(`  from minute 2: highest RSS ${worst.toFixed(1)} MB, ${first.toFixed(1)} -> ${last.toFixed(1)} MB ` +
  `(${slope >= 0 ? '+' : ''}${slope.toFixed(2)} MB/min); ${worst < TARGET_MB ? 'PASS' : 'FAIL'} (target: under ${TARGET_MB} MB)`);
console.log(`  1.5 s after the load: RSS ${idle.rss.toFixed(1)} MB; peak ${idle.hwm.toFixed(1)} MB`);
const m = await call('GET', '/metrics');
for (const l of (m.text ?? '').split('\n').filter((x) => /^croupier_(games_created_total|http_request_duration_seconds_count) /.test(x))) {
  console.log(`  ${l}`);
}
await server.stop();
rmSync(dir, { recursive: true, force: true });
