// crowd.mjs (`make bench`, BENCH=crowd): a course at once (issue 45 item 3).
//
//   node tests/bench/crowd.mjs [--bin build/croupier] [--via nchan|serve] [--tables 1000]
//                              [--followers 10000] [--slow 100] [--interval 2000] [--seconds 30]
//
// TABLES Hanabi tables of two, a person and the conventions bot: the person
// moves every INTERVAL ms (the tables' clocks spread over the interval), the
// bot answers in the same request, as the service plays a bot. FOLLOWERS
// event streams in all: each table's seat stream (the person's own, with
// its token) and spectators spread evenly over the tables; SLOW more
// never read a byte (tests/http/lib/stalled.mjs: 4 KiB sockets, half SSE,
// half WebSocket, one on each of the first SLOW tables), opened before the
// others: a lab's broken laptops that come first and take their slots. The person's move is known without asking the server: a number
// clue on the bot's first card while a clue token is left, else a discard
// of card 0 (always legal, never a strike, so a table plays the whole run).
//
// --via nchan: one nginx with nchan (tests/http/lib/nchan.mjs, the lines of
// deploy/nginx-nchan.conf) in front of one `croupier fcgi --nchan-publish`;
// every stream subscribes to nginx (a seat's with its token, checked by
// croupier at subscribe time). --via serve: `croupier serve` alone, its
// stream budget at its defaults (--max-streams 128) but for the per-address
// cap, raised to the budget (every follower here comes from 127.0.0.1, one
// address, where a lab has hundreds): what it does with the same load is
// refuse the streams past its budget (503), and the plays go on.
//
// Printed: the moves made against the schedule, the move's own answer
// (p50/p99), from a move to the last follower of its table holding its
// events (p50/p99: the "last follower's screen"), the streams refused,
// every event delivered exactly once (each follower's events checked
// against its audience's list from GET /games/{id}/events after the run:
// none missing, none twice), what the slow followers got, and RSS and CPU
// of croupier and nginx. Bounded: the run lasts SECONDS after the streams
// are in; loopback only; games created with the create quota lifted.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startServer, request } from '../http/lib/server.mjs';
import { percentile } from '../http/lib/sse.mjs';
import { nchanMissing, startNchan } from '../http/lib/nchan.mjs';
import { stalledFollowers, closed } from '../http/lib/stalled.mjs';
import { procCpu, procStatus } from './lib.mjs';

const { values: opt } = parseArgs({
  options: {
    bin: { type: 'string' },
    via: { type: 'string', default: 'nchan' },
    tables: { type: 'string', default: '1000' },
    followers: { type: 'string', default: '10000' },
    slow: { type: 'string', default: '100' },
    interval: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '30' },
  },
});
if (opt.bin) process.env.CROUPIER_BIN = path.resolve(opt.bin);
const NCHAN = opt.via === 'nchan';
const TABLES = Number(opt.tables);
const SLOW = Math.min(Number(opt.slow), TABLES);
const FOLLOWERS = Math.max(Number(opt.followers), TABLES + SLOW) - SLOW; // the reading ones
const INTERVAL = Number(opt.interval);
const SECONDS = Number(opt.seconds);

// CPU in ms (its threads' run time: lib.mjs procCpu), RSS in bytes
const procStat = (pid) => ({
  cpu: procCpu(pid).total() / 1e6,
  rss: procStatus(pid, 'VmRSS').VmRSS * 1024,
});
const mb = (b) => `${(b / 1048576).toFixed(0)} MB`;

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/** A lean SSE follower: only the events' numbers and arrival times (ten
 *  thousand of them hold no frames). */
function follower(url, token) {
  // turns: the onTurnStart frames come (each move, the person's and the
  // bot's answer, adds two in every audience); waiting: count -> [resolve]
  const f = { ids: [], turns: 0, waiting: new Map(), status: 0, ended: false };
  f.ready = new Promise((resolve) => {
    const req = http.get(url, { agent, headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) } }, (res) => {
      f.status = res.statusCode;
      if (res.statusCode !== 200) { res.resume(); resolve(); return; }
      resolve();
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        const now = performance.now();
        buf += chunk;
        for (let i; (i = buf.indexOf('\n\n')) >= 0; buf = buf.slice(i + 2)) {
          const frame = buf.slice(0, i);
          let m = /^id: (\d+)$/m.exec(frame);
          if (!m && NCHAN) { const d = /^data: (.*)$/m.exec(frame); if (d) { const n = JSON.parse(d[1]).n; if (Number.isInteger(n)) m = [null, String(n)]; } }
          if (!m) continue;
          f.ids.push(Number(m[1]));
          if (!frame.includes('"event":"onTurnStart"')) continue;
          f.turns++;
          for (const r of f.waiting.get(f.turns) ?? []) r(now);
          f.waiting.delete(f.turns);
        }
      });
      res.on('close', () => { f.ended = true; });
    });
    req.on('error', (e) => { f.status = f.status || e.code || -1; f.ended = true; resolve(); });
    f.close = () => req.destroy();
  });
  /** When its count of turn frames reached n (now when it has already: the
   *  frame came before it was asked for; NaN after `ms`). */
  f.turn = (n, ms = 60_000) => (f.turns >= n ? Promise.resolve(performance.now()) : new Promise((resolve) => {
    const t = setTimeout(() => resolve(NaN), ms);
    const list = f.waiting.get(n) ?? [];
    list.push((v) => { clearTimeout(t); resolve(v); });
    f.waiting.set(n, list);
  }));
  return f;
}

/** The person's move from its view: a number clue on the bot's first card
 *  while a clue token is left, else a discard of card 0. */
const moveOf = (state) => (state.hints > 0
  ? { type: 'hint', target: 1, number: Number(state.hands[1][0].card[1]) }
  : { type: 'discard', card: 0 });

console.log(`== crowd${NCHAN ? ' through nginx + nchan' : ': croupier serve alone'}: ${TABLES} Hanabi tables (a person and a bot; a move every ${INTERVAL / 1000} s each), ` +
  `${FOLLOWERS + SLOW} followers (${SLOW} of them never reading), ${SECONDS} s`);
if (NCHAN && nchanMissing) {
  console.log(`  skipped: ${nchanMissing}`);
  process.exit(0);
}
let srv;
if (NCHAN) {
  const n = await startNchan({ connections: FOLLOWERS + SLOW + 2 * TABLES + 1024, fcgiArgs: ['--quota-create', '0', '--quota-create-total', '0'] });
  srv = { base: n.base, pid: n.fcgis[0].proc.pid, nginxPid: n.nginxPids()[0], stop: () => n.stop() };
} else {
  const s = await startServer({ extraArgs: ['--quota-create', '0', '--quota-create-total', '0', '--max-streams-per-client', '128'] });
  srv = { base: s.base, pid: s.proc.pid, stop: () => s.stop() };
}
const base = srv.base;
try {
  // the tables
  const t0 = performance.now();
  const tables = [];
  for (let i = 0; i < TABLES; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, TABLES - i) }, async (_, k) => {
      const g = await request(base, 'POST', '/games', { check: false, json: { game: 'hanabi', seed: 1000 + i + k, players: [{ name: 'P' }, { bot: 'conventions' }] } });
      if (g.status !== 201) throw new Error(`create: ${g.status} ${g.text}`);
      tables[i + k] = { id: g.json.id, token: g.json.seats[0].token, state: g.json.state, followers: [], moves: 0 };
    }));
  }
  const made = performance.now() - t0;
  // the followers: the stalled ones first, then a seat stream a table,
  // then the spectators round the tables
  const t1 = performance.now();
  const all = [];
  const url = (t) => `${base}/games/${t.id}/events`;
  const port = Number(new URL(base).port);
  const stuck = tables.slice(0, SLOW);
  const stalled = SLOW ? await stalledFollowers(port, SLOW, stuck.map((t) => `/games/${t.id}/events`),
    stuck.map((t) => `/games/${t.id}/${NCHAN ? 'events' : 'ws'}`)) : null;
  const stalledAt = performance.now();
  // opened 200 at a time (as a lab's browsers come in: not ten thousand SYNs at once)
  const plan = tables.map((t) => [t, t.token]);
  for (let k = 0; plan.length < FOLLOWERS; k++) plan.push([tables[k % TABLES], null]);
  for (let i = 0; i < plan.length; i += 200) {
    const batch = plan.slice(i, i + 200).map(([t, token]) => {
      const f = follower(url(t), token);
      f.seat = Boolean(token);
      t.followers.push(f);
      all.push(f);
      return f;
    });
    await Promise.all(batch.map((f) => f.ready));
  }
  const subscribed = performance.now() - t1;
  const refused = all.filter((f) => f.status !== 200);
  const byStatus = {};
  for (const f of refused) byStatus[f.status] = (byStatus[f.status] ?? 0) + 1;
  await new Promise((r) => setTimeout(r, 1000));
  for (const f of all) f.turns0 = f.turns; // each caught up with its table's past
  // the run
  const s0 = procStat(srv.pid), n0 = srv.nginxPid ? procStat(srv.nginxPid) : null, d0 = process.cpuUsage();
  const answer = [], screen = [], late = [];
  let moves = 0, failed = 0, behind = 0;
  const start = performance.now(), end = start + SECONDS * 1000;
  await Promise.all(tables.map(async (t, i) => {
    let next = start + (i * INTERVAL) / TABLES;
    while (next < end) {
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      else if (wait < -INTERVAL) behind++;
      next += INTERVAL;
      if (t.state.over || t.state.current !== 0) break;
      const m0 = performance.now();
      const r = await request(base, 'POST', `/games/${t.id}/plays`, { check: false, token: t.token, json: { play: moveOf(t.state) } });
      answer.push(performance.now() - m0);
      if (r.status !== 200) { failed++; break; }
      moves++;
      t.moves++;
      t.state = r.json.state;
      if (t.state.over) break; // the last move's turn frames are not two
      const live = t.followers.filter((f) => f.status === 200);
      // from the move to the last follower holding both its turn frames
      const times = await Promise.all(live.map((f) => f.turn(f.turns0 + 2 * t.moves)));
      if (times.some(Number.isNaN)) late.push(t.id);
      else if (times.length) screen.push(Math.max(...times) - m0);
    }
  }));
  const ran = (performance.now() - start) / 1000;
  const s1 = procStat(srv.pid), n1 = srv.nginxPid ? procStat(srv.nginxPid) : null, d1 = process.cpuUsage(d0);
  await new Promise((r) => setTimeout(r, 1000));
  // every event exactly once: each follower against its audience's list
  let missing = 0, twice = 0, checked = 0;
  for (let i = 0; i < TABLES; i += 50) {
    await Promise.all(tables.slice(i, i + 50).map(async (t) => {
      const seat = (await request(base, 'GET', `/games/${t.id}/events`, { check: false, token: t.token })).json.map((e) => e.n);
      const pub = (await request(base, 'GET', `/games/${t.id}/events`, { check: false })).json.map((e) => e.n);
      for (const f of t.followers) {
        if (f.status !== 200) continue;
        checked++;
        const want = f.seat ? seat : pub;
        const got = new Set(f.ids);
        if (got.size !== f.ids.length) twice++;
        if (want.some((n) => !got.has(n))) missing++;
      }
    }));
  }
  // the stalled: how many the server closed, and when (from their connect),
  // and what the server's side of those still open holds unsent (the
  // kernel's send queue, /proc/net/tcp's tx_queue, of the server's port)
  const cut = stalled ? await closed(stalled) : { count: 0, at: [], ws: 0, ports: [] };
  const mine = new Set(cut.ports);
  const owed = readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1).map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length > 4 && parseInt(f[1].split(':')[1], 16) === port && mine.has(parseInt(f[2].split(':')[1], 16)) && f[3] === '01')
    .map((f) => parseInt(f[4].split(':')[0], 16));
  const held = (performance.now() - stalledAt) / 1000;
  stalled?.kill('SIGKILL');
  for (const f of all) f.close?.();
  const ms = (x) => x.toFixed(1).padStart(6);
  let target = 0; // the ticks of every table's clock within the run
  for (let i = 0; i < TABLES; i++) target += Math.ceil((SECONDS * 1000 - (i * INTERVAL) / TABLES) / INTERVAL);
  console.log(`  setup      ${TABLES} tables created in ${(made / 1000).toFixed(1)} s; ${all.length} streams opened in ${(subscribed / 1000).toFixed(1)} s (after the ${SLOW} stalled): ` +
    `${all.length - refused.length} in, ${refused.length} refused${refused.length ? ` (${Object.entries(byStatus).map(([k, v]) => `${v} x ${k}`).join(', ')})` : ''}`);
  console.log(`  moves      ${moves} of ${target} scheduled in ${ran.toFixed(1)} s (${(moves / ran).toFixed(1)} a second; ${failed} refused; ${behind} more than an interval late)`);
  console.log(`  answer     the mover's own POST p50 ${ms(percentile(answer, 50))} p99 ${ms(percentile(answer, 99))} ms`);
  console.log(`  screen     from a move to its table's last follower: p50 ${ms(percentile(screen, 50))} p99 ${ms(percentile(screen, 99))} ms ` +
    `(goal: p99 under 250 ms; ${late.length} moves not seen by every follower within 60 s)`);
  console.log(`  delivery   ${checked} followers checked against their audience's events: ${missing} missing one, ${twice} holding one twice`);
  console.log(`  slow       ${SLOW} followers never reading (4 KiB sockets, half SSE, half WebSocket), held ${held.toFixed(0)} s: ${cut.count} closed by the server (${cut.count - cut.ws} SSE, ${cut.ws} WebSocket)` +
    (cut.count ? `, ${(percentile(cut.at, 50)).toFixed(1)} s after their connect (p50), the last ${cut.at.at(-1).toFixed(1)} s` : '') +
    `; the ${owed.length} still open: the server's kernel holds ${owed.length ? `at most ${(Math.max(...owed) / 1024).toFixed(1)} KB unsent for one` : 'nothing for them'}`);
  console.log(`  croupier   CPU ${((s1.cpu - s0.cpu) / 1000).toFixed(1)} s over the run (${((s1.cpu - s0.cpu) / Math.max(moves, 1)).toFixed(2)} ms a move), RSS ${mb(s1.rss)}`);
  console.log(`  driver     CPU ${((d1.user + d1.system) / 1e6).toFixed(1)} s over the run (this process: the persons, the followers' parsing; it shares the cores)`);
  if (n1) console.log(`  nginx      CPU ${((n1.cpu - n0.cpu) / 1000).toFixed(1)} s over the run (${((n1.cpu - n0.cpu) / Math.max(moves, 1)).toFixed(2)} ms a move), RSS ${mb(n1.rss)}`);
} finally {
  await srv.stop();
}
