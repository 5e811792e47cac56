// idem.mjs (`make bench`, BENCH=idem): what keyed writes cost the store.
// A soak of plays each sent with an Idempotency-Key of its own, through a
// real `croupier serve` on a fresh store, then the store's size against
// the plays' own: the games and plays tables (with their indexes) beside
// the idempotency tables and the whole file. Target: the store
// within 2x of the plays' own size. Also the plays per second over the
// run, in windows, the slowest answers (the stalls of a growing WAL), and
// the server's CPU per keyed play (its threads' run time, /proc: a figure
// that a machine busy with other work moves less than the plays per second).
//
//   node tests/bench/idem.mjs [--bin build/croupier] [--seconds 300] [--plays N]
//       [--clients 4] [--store sqlite|postgres] [--keep SECONDS] [--every 30]
//
// Each client plays a person's seat of a 2-player Hanabi game against the
// "rules" bot (as the store bench's loop: discard card 0 while a hint token
// is spent, else play card 0; a new game when one ends), every play POSTed
// with a new key and If-Match. --plays stops after that many plays instead
// of --seconds. --keep passes --idempotency-keep (a build that has it).
// SQLite: the server is stopped cleanly (its idle checkpoint empties the
// WAL) and the file measured with sqlite3's dbstat (pages in use and their
// unused bytes, per table and index); PostgreSQL (a throwaway cluster,
// tests/http/lib/pg.mjs): pg_total_relation_size of each table after a
// VACUUM (what a row costs once its dead versions are reclaimed), and the
// database's size.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster } from '../http/lib/pg.mjs';
import { startServer } from '../http/lib/server.mjs';
import { client, procCpu } from './lib.mjs';

const { values: opt } = parseArgs({
  options: {
    bin: { type: 'string' }, seconds: { type: 'string', default: '300' }, plays: { type: 'string' },
    clients: { type: 'string', default: '4' }, store: { type: 'string', default: 'sqlite' },
    keep: { type: 'string' }, every: { type: 'string', default: '30' },
  },
});
if (opt.bin) process.env.CROUPIER_BIN = path.resolve(opt.bin);
const SECONDS = Number(opt.seconds);
const PLAYS = opt.plays ? Number(opt.plays) : Infinity;
const CLIENTS = Number(opt.clients);
const EVERY_S = Number(opt.every);
const TARGET = 2;

const dir = mkdtempSync(path.join(tmpdir(), 'croupier-idem-bench-'));
const file = path.join(dir, 'idem.db');
const pg = opt.store === 'postgres' ? startCluster() : null;
if (opt.store === 'postgres' && !pg) {
  console.log('idem: no PostgreSQL server binaries: skipped');
  process.exit(0);
}
const store = pg ? pg.url : `sqlite:${file}`;
const server = await startServer({ store, extraArgs: opt.keep ? ['--idempotency-keep', opt.keep] : [] });
const count = { plays: 0, requests: 0, creates: 0, errors: 0 };
const slow = []; // ms of every answer slower than a second
const lat = [];
let running = true;
const t0 = Date.now();
const cpu = procCpu(server.proc.pid);
const cpu0 = cpu.total();

const CREATE = { game: 'hanabi', players: [{ name: 'bench' }, { bot: 'rules' }] };

async function person(c) {
  while (running) {
    const g = await c.req('POST', '/games', undefined, CREATE).catch(() => ({ status: 0 }));
    if (g.status !== 201) { count.errors++; continue; }
    count.creates++;
    const token = g.json.seats[0].token;
    let view = g.json;
    while (running && !view.state.over) {
      const play = view.state.hints < 8 ? { type: 'discard', card: 0 } : { type: 'play', card: 0 };
      const headers = { 'Idempotency-Key': `"${randomUUID()}"`, 'If-Match': `"${view.version}"` };
      const r = await c.req('POST', `/games/${g.json.id}/plays`, token, { play }, headers).catch(() => ({ status: 0 }));
      count.requests++;
      lat.push(r.ms ?? 0);
      if (r.ms > 1000) slow.push(Math.round(r.ms));
      if (r.status !== 200) { count.errors++; break; }
      count.plays += r.json.applied.length;
      view = r.json;
      if (count.requests >= PLAYS) running = false;
    }
  }
}

function storeBytes() {
  if (pg) return Number(pg.psql('SELECT pg_database_size(current_database())').trim());
  let n = 0;
  for (const f of [file, `${file}-wal`]) { try { n += statSync(f).size; } catch { /* none yet */ } }
  return n;
}

const MB = (b) => (b / 1048576).toFixed(1);
const windows = [];
let last = { at: t0, requests: 0 };
const ticker = setInterval(() => {
  const now = Date.now();
  const rate = ((count.requests - last.requests) * 1000) / (now - last.at);
  windows.push(rate);
  console.log(`idem: ${Math.round((now - t0) / 1000)} s: ${count.requests} keyed plays, ${rate.toFixed(0)}/s ` +
    `in the last ${EVERY_S} s, store ${MB(storeBytes())} MB`);
  last = { at: now, requests: count.requests };
}, EVERY_S * 1000);
const stopAt = setTimeout(() => { running = false; }, SECONDS * 1000);
const clients = Array.from({ length: CLIENTS }, () => client(server.base, 1));
await Promise.all(clients.map((c) => person(c)));
const seconds = (Date.now() - t0) / 1000;
const cpuNs = cpu.total() - cpu0;
clearInterval(ticker);
clearTimeout(stopAt);
for (const c of clients) c.close();
const stopped = await server.stop();
if (stopped.code !== 0) console.log(`idem: the server exited ${stopped.code}: ${stopped.stderr.slice(-500)}`);

/** Bytes per table (its indexes included): {name: bytes}. */
function tables() {
  if (pg) {
    pg.psql('VACUUM');
    const out = pg.psql("SELECT relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n" +
      " ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'");
    return Object.fromEntries(out.trim().split('\n').map((l) => l.split('|')).map(([k, v]) => [k, Number(v)]));
  }
  const out = execFileSync('sqlite3', [file, 'SELECT coalesce(m.tbl_name, d.name), sum(d.pgsize), sum(d.unused)' +
    ' FROM dbstat d LEFT JOIN sqlite_master m ON m.name = d.name GROUP BY 1'], { encoding: 'utf8' });
  const t = {};
  for (const l of out.trim().split('\n')) {
    const [name, size, unused] = l.split('|');
    t[name] = Number(size);
    t[`${name} (unused)`] = Number(unused);
  }
  return t;
}
const t = tables();
const total = pg ? storeBytes() : statSync(file).size;
const own = (t.games ?? 0) + (t.plays ?? 0);
const idem = Object.entries(t).filter(([k]) => k.startsWith('idempotency') && !k.endsWith('(unused)'))
  .reduce((a, [, v]) => a + v, 0);
const idemUnused = Object.entries(t).filter(([k]) => k.startsWith('idempotency') && k.endsWith('(unused)'))
  .reduce((a, [, v]) => a + v, 0);
const sorted = [...lat].sort((a, b) => a - b);
const pct = (p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : 0);
console.log(`idem: ${opt.store}, ${CLIENTS} clients, ${seconds.toFixed(0)} s: ${count.requests} keyed plays ` +
  `(${(count.requests / seconds).toFixed(0)}/s; windows ${windows.map((w) => w.toFixed(0)).join(' ')}), ` +
  `${count.plays} plays stored, ${count.creates} games, ${count.errors} errors; ` +
  `server CPU ${count.requests ? (cpuNs / 1000 / count.requests).toFixed(1) : 0} us per keyed play; ` +
  `p50 ${pct(0.5).toFixed(1)} ms, p99 ${pct(0.99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(0)} ms, ` +
  `${slow.length} answers over 1 s`);
console.log(`idem: store ${MB(total)} MB; games + plays ${MB(own)} MB; idempotency ${MB(idem)} MB` +
  `${pg ? '' : ` (${MB(idemUnused)} MB of it unused)`}, ${count.requests ? Math.round(idem / count.requests) : 0} bytes ` +
  `per keyed play; store / (games + plays) = ${(total / own).toFixed(2)} (target <= ${TARGET})`);
console.log(`idem: per table: ${Object.entries(t).map(([k, v]) => `${k} ${MB(v)} MB`).join(', ')}`);
pg?.destroy();
rmSync(dir, { recursive: true, force: true });
