// bgio.mjs (`make bench`, BENCH=bgio): per stored move, croupier's server
// beside boardgame.io 0.50.2's, the same game played the same way, in the
// same run (the anchor docs/benchmarks.md sets beside the crowd figures).
//
//   node tests/bench/bgio.mjs [--bin build/croupier] [--tables 8] [--moves 2000] [--warmup 500] [--runs 3]
//
// The game: two-seat Hanabi, written for boardgame.io from its documented
// game interface in tests/bench/bgio/hanabi.cjs (the rules as croupier's
// standard variant; a seat's view hides its own cards and the deck; every
// move runs on the server only). The play, on both servers: TABLES tables
// at once, two persons each, back to back until MOVES moves in all (a table
// whose game ended starts another); the seat to move gives a number clue
// on the other's first card while a clue token is left, else discards its
// first card (always legal), from its own view. Each server first plays
// WARMUP moves the same way, not counted (V8 compiles boardgame.io's hot
// paths as it runs them; croupier's SQLite file and caches fill).
//
// What a move is on each side, as their clients do it:
//   croupier serve (SQLite, a fresh file, durable at every move): the mover
//     POSTs /games/{id}/plays (its answer holds its new view); both seats
//     follow the game's SSE stream with their tokens, and the other seat,
//     on the event, reads its view (GET /games/{id}), as the page does.
//   boardgame.io (its Server, lobby API for the seats' credentials, its own
//     client boardgame.io/client over socket.io, one a seat): the mover's
//     client sends the move, the server runs it, stores state and log and
//     pushes each seat its view. In memory (its default storage: nothing
//     durable) and with its file storage (FlatFile, node-persist).
//
// Printed: each run's moves and server CPU per move (its threads' run time,
// /proc/PID/task/*/schedstat), the ratios croupier / boardgame.io of the
// run, then medians of the runs; the time from a move sent to the other
// seat holding it (p50/p99), and each server's RSS after the run and its
// peak (VmHWM). The three servers' runs alternate (their order turns each
// run) so that all meet the same machine. A croupier move is a POST and a
// GET where the page does more (on the event it also reads the plays since
// its last and, at its turn, its legal plays; the mover a 304): the
// figure is the least a client needs to see the other's move, boardgame.io's
// push of the same.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startServer } from '../http/lib/server.mjs';
import { follow, percentile } from '../http/lib/sse.mjs';
import { client, median, options, procCpu, procStatus } from './lib.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const opt = options({ bin: '', tables: 8, moves: 2000, warmup: 500, runs: 3 }, 'bgio.mjs');
if (opt.bin) process.env.CROUPIER_BIN = path.resolve(opt.bin);

let bgio;
try {
  bgio = await import('./bgio/client.mjs');
} catch (e) {
  console.log('== bgio: skipped: boardgame.io is not installed (npm ci --prefix tests/bench/bgio; make bench does it for BENCH=bgio)');
  console.log(`   (${e.message.split('\n')[0]})`);
  process.exit(0);
}
const BGIO_VERSION = JSON.parse(readFileSync(path.join(HERE, 'bgio/node_modules/boardgame.io/package.json'), 'utf8')).version;

const mb = (k) => `${(k / 1024).toFixed(0)} MB`;

/** The seat to move's play from its view (croupier's or boardgame.io's, the
 *  other's first card read the same way). */
const choose = (hints, otherFirst) => (hints > 0 ? { hint: Number(otherFirst[1]) } : { discard: 0 });

// ---- croupier serve ---------------------------------------------------------
// withGet: the other seat reads its view on the event (GET /games/{id}), as
// a page does; without, a move is the POST and the events on both seats'
// streams, the pushed part alone (boardgame.io's push is the view itself):
// the seat to move then knows the other's first card from its own last
// answer (its view shows the other's hand) and the other's play since (a
// discard of the first card shifts the hand; a drawn card comes last).
async function croupierSide(withGet) {
  const s = await startServer({ extraArgs: ['--quota-create', '0', '--quota-create-total', '0', '--max-streams-per-client', '64'] });
  const http = client(s.base, 2 * opt.tables + 2);
  let seed = 0;
  const fresh = async () => {
    const g = await http.req('POST', '/games', null, { game: 'hanabi', seed: ++seed, players: [{ name: 'A' }, { name: 'B' }] });
    if (g.status !== 201) throw new Error(`croupier create: ${g.status} ${g.text}`);
    const tokens = g.json.seats.map((x) => x.token);
    const streams = tokens.map((t) => follow(`${s.base}/games/${g.json.id}/events`, { authorization: `Bearer ${t}` }));
    await Promise.all(streams.map((x) => x.ready));
    // each seat's view of the other's hand, read once at the start
    const other = [];
    for (const p of [0, 1]) other[p] = (await http.req('GET', `/games/${g.json.id}`, tokens[p])).json.state.hands[1 - p].map((h) => h.card);
    return { id: g.json.id, tokens, streams, other, hints: g.json.state.hints, current: g.json.state.current };
  };
  return {
    name: withGet ? 'croupier (+ the other\'s GET)' : 'croupier (POST, SSE to both)',
    pid: s.proc.pid,
    table: fresh,
    /** one move of table t: resolves {ms, over} (ms: to the other seat's event, or its view) */
    async move(t) {
      const p = t.current, o = 1 - p;
      const c = choose(t.hints, t.other[p][0]);
      const play = c.hint !== undefined ? { type: 'hint', target: o, number: c.hint } : { type: 'discard', card: 0 };
      const seen = t.streams[o].frames.length;
      const m0 = performance.now();
      const r = await http.req('POST', `/games/${t.id}/plays`, t.tokens[p], { play });
      if (r.status !== 200) throw new Error(`croupier play: ${r.status} ${r.text}`);
      const st = r.json.state;
      await t.streams[o].until((f) => f.slice(seen).some((x) => x.data && (x.data.event === 'onTurnStart' || x.data.event === 'onGameEnd')));
      if (withGet && !st.over) {
        const g = await http.req('GET', `/games/${t.id}`, t.tokens[o]);
        if (g.status !== 200) throw new Error(`croupier view: ${g.status} ${g.text}`);
        t.other[o] = g.json.state.hands[p].map((h) => h.card);
      } else if (play.type === 'discard') {
        t.other[o] = t.other[o].slice(1); // its next first card; the drawn one is not needed
      }
      t.other[p] = st.hands[o].map((h) => h.card);
      t.hints = st.hints;
      t.current = st.current;
      return { ms: performance.now() - m0, over: Boolean(st.over) };
    },
    close(t) { for (const x of t.streams) x.close(); },
    async stop() { http.close(); await s.stop(); },
  };
}

// ---- boardgame.io ---------------------------------------------------------
async function bgioSide(storage) {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-bgio-'));
  const args = [path.join(HERE, 'bgio/server.cjs'), '0']; // port 0: it takes a free one and says which
  if (storage === 'file') args.push(path.join(dir, 'db'));
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (d) => { err += d; });
  const port = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`boardgame.io not ready: ${err}`)), 15_000);
    proc.stdout.on('data', (d) => { const m = /listening on (\d+)/.exec(String(d)); if (m) { clearTimeout(t); resolve(Number(m[1])); } });
    proc.on('exit', () => { clearTimeout(t); reject(new Error(`boardgame.io exited: ${err}`)); });
  });
  proc.stdout.resume();
  const base = `http://127.0.0.1:${port}`;
  return {
    name: `boardgame.io ${storage === 'file' ? '(file storage)' : '(in memory)'}`,
    pid: proc.pid,
    table: () => bgio.table(base),
    async move(t) {
      const s = t.state(0), p = Number(s.ctx.currentPlayer), o = 1 - p;
      const v = t.state(p), id = v._stateID;
      const c = choose(v.G.hints, v.G.hands[o][0].card);
      const m0 = performance.now();
      if (c.hint !== undefined) t.seats[p].client.moves.hint(o, { number: c.hint });
      else t.seats[p].client.moves.discard(0);
      const [, seen] = await Promise.all([t.waitFor(p, id + 1), t.waitFor(o, id + 1)]);
      return { ms: performance.now() - m0, over: Boolean(seen.ctx.gameover) };
    },
    close(t) { t.stop(); },
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.on('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** MOVES moves over TABLES tables on one server: its CPU per move (ms), the
 *  move-to-other-seat times, RSS now and at its peak (kB). */
async function run(side) {
  const tables = await Promise.all(Array.from({ length: opt.tables }, () => side.table()));
  const play = async (count, times) => {
    let moves = 0, games = 0;
    await Promise.all(tables.map(async (t, i) => {
      while (moves < count) {
        moves++;
        const r = await side.move(t);
        times.push(r.ms);
        if (r.over) {
          side.close(t);
          games++;
          t = tables[i] = await side.table();
        }
      }
    }));
    return { moves, games };
  };
  await play(opt.warmup, []);
  const cpu = procCpu(side.pid);
  const c0 = cpu.total();
  const t0 = performance.now();
  const times = [];
  const { moves, games } = await play(opt.moves, times);
  const ns = cpu.total() - c0;
  const wall = (performance.now() - t0) / 1000;
  const out = { moves, games, wall, cpuMs: ns / 1e6, perMove: ns / 1e6 / moves, times, rss: procStatus(side.pid, 'VmRSS').VmRSS, peak: procStatus(side.pid, 'VmHWM').VmHWM };
  for (const t of tables) side.close(t);
  await side.stop();
  return out;
}

console.log(`== bgio: per stored move, croupier serve beside boardgame.io ${BGIO_VERSION} (its server and client), the same two-seat Hanabi, ` +
  `${opt.tables} tables at once, ${opt.moves} moves a run after ${opt.warmup} not counted, ${opt.runs} runs alternating`);
const makers = [() => croupierSide(false), () => croupierSide(true), () => bgioSide('memory'), () => bgioSide('file')];
const results = makers.map(() => []);
const ratio = (a, b) => a.perMove / b.perMove;
const ratios = [[], [], [], []]; // push / memory, push / file, with GET / memory, with GET / file
for (let r = 0; r < opt.runs; r++) {
  const order = makers.map((_, k) => (k + r) % makers.length);
  const got = [];
  for (const k of order) {
    const side = await makers[k]();
    const x = await run(side);
    x.name = side.name;
    got[k] = x;
    results[k].push(x);
  }
  ratios[0].push(ratio(got[0], got[2])); ratios[1].push(ratio(got[0], got[3]));
  ratios[2].push(ratio(got[1], got[2])); ratios[3].push(ratio(got[1], got[3]));
  console.log(`  run ${r + 1}  CPU/move ${got.map((x) => `${x.name} ${x.perMove.toFixed(3)} ms`).join(', ')}` +
    ` (${got[0].moves} moves each, ${got.map((x) => x.games).join('/')} games over)`);
}
console.log('  medians of the runs:');
for (const rs of results) {
  const all = rs.flatMap((x) => x.times);
  console.log(`    ${rs[0].name.padEnd(30)} CPU/move ${median(rs.map((x) => x.perMove)).toFixed(3).padStart(7)} ms   ` +
    `move to the other seat p50 ${percentile(all, 50).toFixed(1).padStart(5)} p99 ${percentile(all, 99).toFixed(1).padStart(6)} ms   ` +
    `RSS after ${mb(median(rs.map((x) => x.rss)))}, peak ${mb(median(rs.map((x) => x.peak)))}`);
}
const m = (k) => median(ratios[k]).toFixed(2);
console.log(`  croupier's CPU per move / boardgame.io's (the median of the runs' ratios): POST and SSE ${m(0)} of in memory, ${m(1)} of file storage;` +
  ` with the other's GET ${m(2)} and ${m(3)}`);
console.log('  (CPU: the server process\'s threads\' run time, /proc/PID/task/*/schedstat, over the moves and the games started in them;');
console.log('   croupier: a POST a move, both seats on SSE, and the other seat\'s GET in the second row; boardgame.io: a socket.io message, a view pushed to each seat)');
