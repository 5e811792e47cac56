// tests/bench/long.mjs: does a request cost more late in a long game than
// early? (target (B); run by tests/bench.sh, section "store").
//
//   node tests/bench/long.mjs --url http://127.0.0.1:PORT [--low 10] [--high 500]
//        [--window 40] [--pairs 3] [--get-seconds 3] [--get-runs 3] [--conns 8]
//        [--seed 1] [--max-seeds 20] [--games phazed,fivecrowns] [--policy hint|random|eager]
//        [--pid SERVER_PID]
//
// For each game (Phazed, 4 persons; Five Crowns, 7 persons) it takes
// `pairs` seeds (from --seed on, skipping any whose game ends before
// version `high`), each game played by the person to move (the token of
// `state.current`) with seeded random legal plays (--policy random, the
// default: a Phazed hand then runs to its 50-turns-each limit and its view,
// which carries the hand's turn_history, grows with it; or following GET
// /hint, --policy hint, see choose()); the version grows
// by one per POST /plays, the game is
// created at version 1), and builds two copies of each: one played up to
// version `low`, one up to version `high`. Both copies are the same game,
// early and late. Then:
//   GET /games/{id} (seat 0's token): wrk -t2 -c<conns> for get-seconds,
//     get-runs runs, run i on pair i (round robin), the early and the late
//     copy in turn (alternating which goes first); median req/s of each;
//   a play: `window` consecutive POST /games/{id}/plays (the game's next
//     random legal plays) on every copy, the early and the late copy of a
//     pair in turn one play at a time, each timed on the client (Node's
//     http, one keep-alive socket: the client's own cost is in both
//     figures); the p50 of each side. The plays move the version: the
//     windows are low..low+window and high..high+window.
// Prints per game one line "long: KEY=VALUE ..." for the games built and
// one per figure, which tests/bench.sh turns into its table ("ratio" is
// the time per request late over early); never asserts anything.
// With --pid (the server's process id, on this machine) each figure also
// comes as the server's CPU per request (cpu_ratio): GET, the CPU of all
// its threads over a wrk run over the requests; a play, the CPU of the
// thread serving our socket during the POST (/proc/PID/task/*/schedstat).
import { spawnSync } from 'node:child_process';
import { prng } from '../soak/soak.mjs'; // the plays' random choices, from the seed
import { client, procCpu, median, options } from './lib.mjs';

const opt = { url: '', low: 10, high: 500, window: 40, 'get-seconds': 3, 'get-runs': 3, seed: 1,
              games: 'phazed,fivecrowns', 'max-seeds': 20, conns: 8, pairs: 3, pid: 0,
              policy: 'random' };
options(opt, 'long.mjs');
if (!opt.url) { console.error('long.mjs: --url http://HOST:PORT is required'); process.exit(2); }
// one keep-alive socket; renewed after each wrk run (the server closes a
// socket idle for 5 s)
const http1 = client(opt.url, 1);
const req = http1.req;
const freshSocket = http1.fresh;

const TABLES = {
  phazed: { players: 4 },
  fivecrowns: { players: 7 },
};

async function create(game, seed) {
  const players = Array.from({ length: TABLES[game].players }, (_, i) => ({ name: `p${i}` }));
  const r = await req('POST', '/games', null, { game, seed, players });
  if (r.status !== 201) throw new Error(`POST /games ${game} seed ${seed}: ${r.status} ${r.text.slice(0, 300)}`);
  return { game, seed, id: r.json.id, tokens: r.json.seats.map((s) => s.token), version: r.json.version,
           state: r.json.state, rand: prng(seed * 7919 + 17) };
}

// --policy hint: every person plays what help mode advises
// (its hands end as in played games, but no game then reaches v500 here:
// Phazed 245-489, Five Crowns 247-387 versions). --policy random (the
// default): any legal play, uniformly. --policy eager: the plays
// that put cards down first (Phazed: a phase, then a placement; Five Crowns:
// going out), else any: hands end as in played games rather than by their
// limits (a random Phazed hand lasts up to 50 turns each, and its view
// carries the hand's turn_history)
function choose(game, plays, rand) {
  let pool = plays;
  if (opt.policy === 'eager') {
    const pick = (f) => { const p = plays.filter(f); if (p.length && pool === plays) pool = p; };
    if (game === 'phazed') {
      pick((p) => Array.isArray(p) && p[0] === 3);
      pick((p) => Array.isArray(p) && p[0] === 4);
    } else if (game === 'fivecrowns') {
      pick((p) => p && p.go_out === true);
    }
  }
  return pool[Math.floor(rand() * pool.length)];
}

// one play of the seat to move (--policy hint: the play GET /hint advises,
// as a person who plays well; else chosen from GET /legal); returns the
// POST's answer
async function step(g) {
  const seat = g.state.current;
  const tok = g.tokens[seat];
  let play;
  if (opt.policy === 'hint') {
    const h = await req('GET', `/games/${g.id}/hint`, tok);
    if (h.status !== 200)
      throw new Error(`hint ${g.game} v${g.version} seat ${seat}: ${h.status} ${h.text.slice(0, 300)}`);
    play = h.json.play;
  } else {
    const l = await req('GET', `/games/${g.id}/legal`, tok);
    if (l.status !== 200 || !l.json.plays.length)
      throw new Error(`legal ${g.game} v${g.version} seat ${seat}: ${l.status} ${l.text.slice(0, 300)}`);
    play = choose(g.game, l.json.plays, g.rand);
  }
  const c0 = hotTid ? taskNs(hotTid) : 0;
  const r = await req('POST', `/games/${g.id}/plays`, tok, { play }, { 'If-Match': `"${g.version}"` });
  r.cpuUs = hotTid ? (taskNs(hotTid) - c0) / 1000 : 0;
  if (r.status !== 200)
    throw new Error(`play ${g.game} v${g.version}: ${r.status} ${r.text.slice(0, 300)}`);
  g.version = r.json.version;
  g.state = r.json.state;
  return r;
}

// play g up to version v (false if the game ended first)
async function playTo(g, v) {
  while (g.version < v) {
    if (g.state.over) return false;
    await step(g);
  }
  return !g.state.over;
}

// The server's CPU (with --pid, the server's process id): lib.mjs's procCpu.
const cpu = procCpu(opt.pid);
const taskNs = cpu.taskNs, cpuAll = cpu.all, sumNs = cpu.sumNs;
const cpuOn = cpu.on;
// the thread that serves our keep-alive socket (civetweb keeps a connection
// on one worker for its life): the one that ran the most during a request
let hotTid = null;
async function findHot() {
  const a = cpuAll();
  await req('GET', '/rules');
  const b = cpuAll();
  let best = null, most = 0;
  for (const [t, v] of b) {
    const d = v - (a.get(t) || 0);
    if (d > most) { most = d; best = t; }
  }
  hotTid = best;
}

function wrkGet(g) {
  const c0 = cpuOn ? sumNs(cpuAll()) : 0;
  const r = spawnSync('wrk', ['-t2', `-c${opt.conns}`, `-d${opt['get-seconds']}s`,
    '-H', `Authorization: Bearer ${g.tokens[0]}`, `${opt.url}/games/${g.id}`], { encoding: 'utf8' });
  const rps = Number((r.stdout.match(/Requests\/sec:\s*([0-9.]+)/) || [])[1] || 0);
  const non = Number((r.stdout.match(/Non-2xx or 3xx responses:\s*(\d+)/) || [])[1] || 0);
  const n = Number((r.stdout.match(/(\d+) requests in/) || [])[1] || 0);
  const cpuUs = cpuOn && n > 0 ? (sumNs(cpuAll()) - c0) / n / 1000 : 0;
  return { rps, non, cpuUs };
}

async function one(game) {
  const t0 = Date.now();
  // `pairs` games (seeds), each as an early and a late copy
  const pairs = [], skipped = [];
  let seed = opt.seed;
  for (let k = 0; k < opt['max-seeds'] && pairs.length < opt.pairs; k++, seed++) {
    const hi = await create(game, seed);
    if (!(await playTo(hi, opt.high))) { skipped.push(`${seed}:v${hi.version}`); continue; }
    // the same game again, to version low (same seed, same random choices)
    const lo = await create(game, seed);
    await playTo(lo, opt.low);
    pairs.push({ lo, hi });
  }
  if (!pairs.length) {
    console.log(`long: game=${game} error=no-seed-reaches-v${opt.high} skipped=${skipped.join(',')}`);
    return;
  }
  const buildS = (Date.now() - t0) / 1000;
  const size = async (g) => (await req('GET', `/games/${g.id}`, g.tokens[0])).text.length;
  const { lo: lo0, hi: hi0 } = pairs[0];
  console.log(`long: game=${game} players=${TABLES[game].players} policy=${opt.policy} seeds=${pairs.map((p) => p.hi.seed).join(',')} ` +
              `skipped=${skipped.join(',') || '-'} low=${lo0.version} high=${hi0.version} ` +
              `view_bytes_low=${await size(lo0)} view_bytes_high=${await size(hi0)} build_s=${buildS.toFixed(1)}`);

  // GET /games/{id}: run i on pair i (round robin), the two copies in turn,
  // alternating which goes first
  const rl = [], rh = [], cl = [], ch = [];
  let non = 0;
  for (let i = 0; i < opt['get-runs']; i++) {
    const { lo, hi } = pairs[i % pairs.length];
    for (const g of i % 2 ? [hi, lo] : [lo, hi]) {
      const w = wrkGet(g);
      (g === lo ? rl : rh).push(w.rps);
      (g === lo ? cl : ch).push(w.cpuUs);
      non += w.non;
    }
  }
  const gl = median(rl), gh = median(rh);
  const gcl = median(cl), gch = median(ch);
  console.log(`long: game=${game} figure=get low_rps=${gl.toFixed(1)} high_rps=${gh.toFixed(1)} ` +
              `ratio=${(gh > 0 ? gl / gh : 0).toFixed(3)} non2xx=${non} ` +
              (cpuOn ? `low_cpu_us=${gcl.toFixed(1)} high_cpu_us=${gch.toFixed(1)} cpu_ratio=${(gcl > 0 ? gch / gcl : 0).toFixed(3)} ` : '') +
              `runs_low=${rl.map((x) => x.toFixed(0)).join(',')} runs_high=${rh.map((x) => x.toFixed(0)).join(',')}`);

  // a play: `window` plays on each copy of each pair, the early and the
  // late copy in turn one play at a time, so that both meet the same machine
  freshSocket();
  await req('GET', '/healthz');
  if (cpuOn) await findHot();
  const tl = [], th = [], ul = [], uh = [];
  let lost = 0;
  const windows = pairs.map((p) => [p.lo.version, p.hi.version]);
  for (const { lo, hi } of pairs) {
    for (let i = 0; i < opt.window; i++) {
      for (const g of i % 2 ? [hi, lo] : [lo, hi]) {
        if (g.state.over) continue;
        const r = await step(g);
        (g === lo ? tl : th).push(r.ms);
        if (cpuOn && r.cpuUs > 0) (g === lo ? ul : uh).push(r.cpuUs);
        else if (cpuOn) { lost++; await findHot(); } // a new socket, on another thread
      }
    }
  }
  const pl = median(tl), ph = median(th);
  const pcl = median(ul), pch = median(uh);
  console.log(`long: game=${game} figure=play low_p50_ms=${pl.toFixed(3)} high_p50_ms=${ph.toFixed(3)} ` +
              `ratio=${(pl > 0 ? ph / pl : 0).toFixed(3)} n_low=${tl.length} n_high=${th.length} ` +
              (cpuOn ? `low_cpu_us=${pcl.toFixed(1)} high_cpu_us=${pch.toFixed(1)} cpu_ratio=${(pcl > 0 ? pch / pcl : 0).toFixed(3)} cpu_unmeasured=${lost} ` : '') +
              `windows_low=${windows.map((w, i) => `${w[0]}-${pairs[i].lo.version}`).join(',')} ` +
              `windows_high=${windows.map((w, i) => `${w[1]}-${pairs[i].hi.version}`).join(',')}`);
}

for (const game of opt.games.split(',')) {
  try {
    await one(game);
  } catch (e) {
    console.log(`long: game=${game} error=${JSON.stringify(String(e.message || e))}`);
  }
}
http1.close();
