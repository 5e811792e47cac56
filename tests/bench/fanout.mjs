// fanout.mjs (`make bench`, BENCH=events): what followers of one game cost
// the server (issue 45 item 1: an event written once per audience).
//
//   node tests/bench/fanout.mjs [--bin build/croupier] [--plays 50] [--followers 0,1,10,200,1000] [--via serve|nchan]
//
// --via nchan: the same through deploy/nginx-nchan.conf (tests/http/lib/nchan.mjs:
// one nginx with nchan in front of one `croupier fcgi --nchan-publish`): the
// followers subscribe to nginx, croupier publishes each event once per
// audience; printed for both processes, croupier's CPU and nginx's.
//
// One `croupier serve` on loopback (a fresh SQLite file), its stream budget
// opened for the run by its options (--threads, --max-streams,
// --max-streams-per-client: every follower comes from 127.0.0.1). For each
// count F of spectators: a Hanabi game of two persons (the same seed each
// time, so the same plays and the same work), both seats' SSE streams and F
// spectators' streams, caught up; then PLAYS plays, each made by the seat
// to move (its bot's hint, asked before the clock starts) and waited for on
// every stream before the next (one untimed run of F = 0 first). Printed per F: the server's CPU (utime +
// stime of /proc/PID/stat, over the plays) per play, per event delivered
// to one stream (CPU over events x streams), and per extra stream (the CPU
// above the previous count's, over the deliveries added); the other seat's p50/p99 (from sending
// the play to its event on the other seat's stream), and the mover's own
// POST's p50/p99; the loads (croupier_event_builds_total) and how often each
// stream looked (croupier_event_deliveries_total: woken by a write or by its
// poll of the store). Bounded: PLAYS plays per F, 30 s per event at most.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startServer, request } from '../http/lib/server.mjs';
import { follow, percentile } from '../http/lib/sse.mjs';
import { nchanMissing, startNchan } from '../http/lib/nchan.mjs';

const { values: opt } = parseArgs({
  options: {
    bin: { type: 'string' },
    plays: { type: 'string', default: '50' },
    followers: { type: 'string', default: '0,1,10,200,1000' },
    via: { type: 'string', default: 'serve' },
  },
});
const NCHAN = opt.via === 'nchan';
if (opt.bin) process.env.CROUPIER_BIN = path.resolve(opt.bin);
const PLAYS = Number(opt.plays);
const COUNTS = opt.followers.split(',').map(Number);
const MAX = Math.max(...COUNTS) + 8;
const TICK_MS = 10; // USER_HZ = 100 on Linux

const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS; // utime, stime (fields 14, 15)
};
// the same in ns, the sum of every thread's run time (/proc/PID/task/*/schedstat):
// /proc/PID/stat counts in 10 ms ticks, too coarse for one stream's share
// (civetweb's workers live as long as the server: no thread's time is lost)
const cpuNs = (pid) => readdirSync(`/proc/${pid}/task`).reduce((sum, t) => {
  try { return sum + Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]); } catch { return sum; }
}, 0);

async function run(srv, followers) {
  const g = await request(srv.base, 'POST', '/games', { json: { game: 'hanabi', seed: 45, players: [{ name: 'A' }, { name: 'B' }] } });
  if (g.status !== 201) throw new Error(`create: ${g.status} ${g.text}`);
  const id = g.json.id;
  const tokens = g.json.seats.map((s) => s.token);
  const url = `${srv.base}/games/${id}/events`;
  const seats = tokens.map((t) => follow(url, { authorization: `Bearer ${t}` }, { idFromData: NCHAN }));
  const specs = [];
  for (let i = 0; i < followers; i++) {
    specs.push(follow(url, {}, { idFromData: NCHAN }));
    if (i % 50 === 49) await Promise.all(specs.slice(-50).map((s) => s.ready)); // not all at once
  }
  const all = [...seats, ...specs];
  await Promise.all(all.map((s) => s.ready));
  await new Promise((r) => setTimeout(r, 1500)); // every stream past its first poll
  // each reader has its own events (a Hanabi hint is its seat's): counted as each reader
  const readers = [tokens[0], tokens[1], undefined];
  const counts = async () => Promise.all(readers.map(async (t) => (await request(srv.base, 'GET', `/games/${id}/events`, { token: t })).json.length));
  const reader = (s) => (s === seats[0] ? 0 : s === seats[1] ? 1 : 2);
  let events = await counts();
  const other = [];
  const post = [];
  let delivered = 0; // events x streams
  const handed = async () => Number(/^croupier_event_deliveries_total (\d+)/m.exec((await request(srv.base, 'GET', '/metrics', {})).text)?.[1] ?? NaN);
  const handed0 = await handed();
  const cpu0 = cpuMs(srv.proc.pid), ns0 = cpuNs(srv.proc.pid), nx0 = srv.nginxPid ? cpuNs(srv.nginxPid) : 0;
  for (let i = 0; i < PLAYS; i++) {
    const st = (await request(srv.base, 'GET', `/games/${id}`, { token: srv.adminToken })).json.state;
    if (st.over) break;
    const seat = st.current;
    const h = await request(srv.base, 'GET', `/games/${id}/hint`, { token: tokens[seat] });
    const t0 = performance.now();
    const r = await request(srv.base, 'POST', `/games/${id}/plays`, { token: tokens[seat], json: { play: h.json.play } });
    post.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`play: ${r.status} ${r.text}`);
    other.push((await seats[1 - seat].arrival(events[1 - seat] + 1)) - t0);
    const now = await counts();
    await Promise.all(all.map((s) => s.arrival(now[reader(s)])));
    for (const s of all) delivered += now[reader(s)] - events[reader(s)];
    events = now;
  }
  const cpu = cpuMs(srv.proc.pid) - cpu0, ns = cpuNs(srv.proc.pid) - ns0;
  const nxNs = srv.nginxPid ? cpuNs(srv.nginxPid) - nx0 : NaN;
  const wakes = ((await handed()) - handed0) / (other.length * all.length); // each stream's looks a play
  for (const s of all) {
    if (s.frames.length !== events[reader(s)]) throw new Error(`a stream got ${s.frames.length} events of ${events[reader(s)]}`);
  }
  all.forEach((s) => s.close());
  const m = await request(srv.base, 'GET', '/metrics', {});
  const builds = /^croupier_event_builds_total (\d+)/m.exec(m.text)?.[1];
  return { followers, plays: other.length, cpu, ns, nxNs, wakes, delivered, streams: all.length, other, post, builds: builds === undefined ? NaN : Number(builds) };
}

console.log(`== fanout${NCHAN ? ' through nginx + nchan' : ''}: server CPU and the other seat's latency with F spectators following one game (SSE, loopback; ${PLAYS} plays each)`);
if (NCHAN && nchanMissing) {
  console.log(`  skipped: ${nchanMissing}`);
  process.exit(0);
}
let srv;
if (NCHAN) {
  const n = await startNchan({ connections: 2 * MAX + 64 });
  srv = { base: n.base, adminToken: n.admin, proc: n.fcgis[0].proc, nginxPid: n.nginxPids()[0], stop: () => n.stop() };
} else {
  srv = await startServer({
    extraArgs: ['--threads', String(2 * MAX + 64), '--max-streams', String(MAX), '--max-streams-per-client', String(MAX)],
  });
}
try {
  const rows = [];
  let prev = null;
  let builds = 0;
  await run(srv, 0); // warm-up, not counted (the store's first pages, the bots' first hints)
  builds = (await request(srv.base, 'GET', '/metrics', {})).text.match(/^croupier_event_builds_total (\d+)/m)?.[1] ?? NaN;
  builds = Number(builds);
  for (const f of COUNTS) {
    const r = await run(srv, f);
    r.builds -= builds;
    builds += r.builds;
    await new Promise((res) => setTimeout(res, 1500)); // the streams gone before the next count
    const perPlay = r.ns / 1e6 / r.plays;
    const perEv = r.ns / 1e3 / r.delivered;
    // the slope since the previous count: (its CPU above the previous one's) over the
    // deliveries added, scaled to the same number of plays (less moved by the
    // machine's other load than a difference with F = 0 alone)
    const k = prev ? r.plays / prev.plays : 1;
    const slope = (a, b) => `${((a - b * k) / 1e3 / (r.delivered - prev.delivered * k)).toFixed(1)} us`;
    const extra = prev ? slope(r.ns, prev.ns) : '-';
    const nginx = !NCHAN ? '' : `  nginx CPU/play ${(r.nxNs / 1e6 / r.plays).toFixed(1).padStart(6)} ms  nginx per extra stream ${(prev ? slope(r.nxNs, prev.nxNs) : '-').padStart(8)}`;
    prev = r;
    const ms = (x) => `${x.toFixed(1)}`.padStart(6);
    console.log(`  F=${String(f).padStart(4)}  streams ${String(r.streams).padStart(4)}  plays ${r.plays}  CPU ${String(r.cpu).padStart(5)} ms (stat)  CPU/play ${ms(perPlay)} ms  ` +
      `CPU/event/stream ${perEv.toFixed(1).padStart(6)} us  per extra stream ${extra.padStart(8)}  ` +
      `other seat p50 ${ms(percentile(r.other, 50))} p99 ${ms(percentile(r.other, 99))} ms  ` +
      `POST p50 ${ms(percentile(r.post, 50))} p99 ${ms(percentile(r.post, 99))} ms  ` +
      (NCHAN ? nginx.trim() : `loads ${Number.isNaN(r.builds) ? "-" : r.builds}  looks/stream/play ${Number.isNaN(r.wakes) ? "-" : r.wakes.toFixed(1)}`));
    rows.push(r);
  }
  const none = rows.find((r) => r.followers === 0), two = rows.find((r) => r.followers === 200);
  if (none && two) {
    const k = percentile(two.other, 99) / percentile(none.other, 99);
    console.log(`  the other seat's p99 with 200 spectators / with none: ${k.toFixed(2)}x (goal: within 2x)`);
  }
  console.log('  (CPU: utime + stime of /proc/PID/stat over the plays, in 10 ms ticks; the per-play and per-event figures from');
  console.log('   the threads\' /proc/PID/task/*/schedstat, in ns; "per extra stream": the CPU above the previous count, over the deliveries added;');
  console.log('   "loads": croupier_event_builds_total over the count: one per audience and write when shared;');
  console.log('   "looks": croupier_event_deliveries_total over the plays, per stream and play: its wake-ups, by a write or its poll)');
} finally {
  await srv.stop();
}
