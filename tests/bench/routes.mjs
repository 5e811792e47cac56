// tests/bench/routes.mjs: the server's CPU per request, route by route
// (run by tests/bench.sh, section "routes").
//
//   node tests/bench/routes.mjs --url http://127.0.0.1:PORT --pid PID --bin build/croupier
//        [--anchor http://127.0.0.1:PORT2 --anchor-pid PID2] [--seconds 1.5] [--conns 2]
//        [--early 10] [--late 200] [--window 20] [--seed 1] [--games a,b]
//
// For every route a client calls often, every game (GET /rules), early and
// late in a game, it sends the same kind of request over and over on
// `conns` keep-alive sockets for `seconds`, and divides the server's CPU
// over that time (all its threads, /proc/PID/task/*/schedstat: lib.mjs) by
// the requests answered. The driver's own CPU is not in the figure.
// EVERY answer is checked (no figure may improve by doing less): a read
// must be byte for byte the answer it gave the first time (the same game
// at the same version), a play must be applied (200, the version one more,
// as many plays applied as when the game was first played).
//
// Positions: each game is played by persons only, each playing what help
// mode (GET /hint) advises (a seeded random legal play where it has no
// advice: --seed, soak.mjs's prng), at the table size GET /rules calls the
// default, and its plays recorded; copies of it (the same seed and the same
// plays) stand at version `early` and at version `late` (or as late as the
// game went less `window`). The reads ask those copies, with the token of
// seat 0 (GET /games/{id}, /plays, /events) or of the seat to move
// (/legal, /hint). Plays: `window` of the recorded plays replayed on a new
// copy from version 1 (early) and from `late` (the copy brought there first,
// unmeasured); "with bots": the same with one person and the fewest bots the
// game seats, the person's plays recorded first the same way (every bot
// reply inside the person's request). POST /games: a new game of that
// table, its seed fixed. The stateless functions (/validate/{game}/{fn},
// /play/{game}) take the arguments the course's play function gets, early
// and late in a game, as `croupier tournament` sends them to a remote
// player (--bin: this program listens as that player and records them);
// /play's answer gives the play that is_valid_play then judges (it must
// judge it valid), the other functions take parts of the same arguments.
//
// Prints one line per figure:
//   route: game=G at=early|late|- route="GET /games/{id}" cpu_us=X n=N errors=N
// (errors: answers that were not the expected one; the figure is then not
// to be trusted) and, with --anchor, the anchor's /healthz and /validate.
import http from 'node:http';
import { spawn } from 'node:child_process';
import { prng } from '../soak/soak.mjs';
import { client, procCpu, options } from './lib.mjs';

const opt = { url: '', pid: 0, anchor: '', 'anchor-pid': 0, bin: '', seconds: 1.5, conns: 2,
              early: 10, late: 200, window: 20, seed: 1, games: '' };
options(opt, 'routes.mjs');
if (!opt.url || !opt.pid) { console.error('routes.mjs: --url and --pid are required'); process.exit(2); }

const srv = client(opt.url, opt.conns);
const req = srv.req;

function out(game, at, route, r) {
  if (r.n > 0 && !(r.cpuUs > 0)) r.errors++; // the CPU could not be read: not a figure
  console.log(`route: game=${game} at=${at} route=${JSON.stringify(route)} cpu_us=${r.cpuUs.toFixed(1)} ` +
              `n=${r.n} errors=${r.errors}`);
}

// Send make(i) (a request: [method, path, token, body, headers]) over and
// over on `conns` sockets for `seconds`; check(answer) says whether an
// answer is the expected one. Returns {cpuUs, n, errors}.
async function load(cpu, c, make, check) {
  let n = 0, errors = 0, i = 0;
  const until = Date.now() + opt.seconds * 1000;
  const c0 = cpu.total();
  const worker = async () => {
    while (Date.now() < until) {
      const r = await c.req(...make(i++));
      n++;
      if (!check(r)) errors++;
    }
  };
  await Promise.all(Array.from({ length: opt.conns }, worker));
  const ns = cpu.total() - c0;
  return { cpuUs: n ? ns / n / 1000 : 0, n, errors };
}

// the same request again and again; its first answer is the expected one
async function same(cpu, c, request) {
  const first = await c.req(...request);
  if (first.status >= 300) return { cpuUs: 0, n: 0, errors: 1, first };
  const r = await load(cpu, c, () => request, (a) => a.status === first.status && a.text === first.text);
  return { ...r, first };
}

const cpu = procCpu(opt.pid);
const rules = (await req('GET', '/rules')).json.games.filter((g) => !opt.games || opt.games.split(',').includes(g.game));

// --- positions -------------------------------------------------------------

async function create(game, seats, seed) {
  const r = await req('POST', '/games', null, { game, seed, players: seats });
  if (r.status !== 201) throw new Error(`POST /games ${game}: ${r.status} ${r.text.slice(0, 200)}`);
  return { id: r.json.id, tokens: r.json.seats.map((s) => s.token), version: r.json.version, state: r.json.state };
}

// the seat to move's play: `recorded` if given, else what help mode advises
// it (GET /hint: the game's strongest bot, so that games run as played
// games do), or a seeded random legal play where /hint has no advice
async function step(g, rand, recorded) {
  const seat = g.state.current;
  let play = recorded;
  if (play === undefined) {
    const h = await req('GET', `/games/${g.id}/hint`, g.tokens[seat]);
    if (h.status === 200) {
      play = h.json.play;
    } else {
      const l = await req('GET', `/games/${g.id}/legal`, g.tokens[seat]);
      if (l.status !== 200 || !l.json.plays.length) throw new Error(`legal: ${l.status} ${l.text.slice(0, 200)}`);
      play = l.json.plays[Math.floor(rand() * l.json.plays.length)];
    }
  }
  const r = await req('POST', `/games/${g.id}/plays`, g.tokens[seat], { play }, { 'If-Match': `"${g.version}"` });
  if (r.status !== 200) throw new Error(`play v${g.version}: ${r.status} ${r.text.slice(0, 200)}`);
  g.version = r.json.version;
  g.state = r.json.state;
  return { play, seat, applied: r.json.applied.length, version: r.json.version };
}

// a game played to version `upto` (or its end) by random legal plays: its
// plays, in order, with what each request applied and the version after
async function record(game, seats, upto) {
  const g = await create(game, seats, opt.seed);
  const rand = prng(opt.seed * 7919 + 17);
  const log = [];
  while (g.version < upto && !g.state.over) log.push(await step(g, rand));
  return log;
}

// a copy of the recorded game brought to version v (unmeasured)
async function copyAt(game, seats, log, v) {
  const g = await create(game, seats, opt.seed);
  let k = 0;
  while (g.version < v && k < log.length) await step(g, null, log[k++].play);
  return { g, k };
}

// replay log[k..k+window) on g, measured: each request must apply what it did first
async function replay(game, seats, log, from) {
  const { g, k: k0 } = await copyAt(game, seats, log, from);
  const c0 = cpu.total();
  let n = 0, errors = 0;
  for (let k = k0; k < Math.min(log.length, k0 + opt.window); k++) {
    const want = log[k];
    const seat = g.state.current;
    const r = await req('POST', `/games/${g.id}/plays`, g.tokens[seat], { play: want.play },
                        { 'If-Match': `"${g.version}"` });
    n++;
    if (r.status !== 200 || r.json.version !== want.version || r.json.applied.length !== want.applied) {
      errors++;
      break;
    }
    g.version = r.json.version;
    g.state = r.json.state;
  }
  return { cpuUs: n ? (cpu.total() - c0) / n / 1000 : 0, n, errors };
}

// --- the remote player: the course function's arguments, early and late --

// Run `croupier tournament` with a remote player on one seat (this process,
// answering nothing useful: the fallback bot plays) and keep the args of its
// first and last decisions of the first game.
async function courseArgs(g) {
  if (!opt.bin) return null;
  const seen = [];
  const player = http.createServer((rq, rs) => {
    const chunks = [];
    rq.on('data', (c) => chunks.push(c));
    rq.on('end', () => {
      try { seen.push(JSON.parse(Buffer.concat(chunks).toString('utf8')).args); } catch { /* none */ }
      rs.writeHead(200, { 'Content-Type': 'application/json' });
      rs.end('{}');
    });
  });
  await new Promise((ok) => player.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${player.address().port}/play`;
  const lineup = [url, ...Array.from({ length: g.players.default - 1 }, () => g.bots[0])].join(',');
  await new Promise((ok) => {
    const t = spawn(opt.bin, ['tournament', '--game', g.game, '--bots', lineup, '--games', '1',
                              '--seed', String(opt.seed), '--remote-timeout', '5000'], { stdio: 'ignore' });
    t.on('exit', ok);
    t.on('error', ok);
  });
  player.close();
  const args = seen.filter(Array.isArray);
  return args.length ? { early: args[0], late: args[args.length - 1] } : null;
}

// The functions' requests from the play function's arguments `a` and the
// play /play gave for them. Each: [name, body, check(answer json)].
const FN_CALLS = {
  comp10001bo: (a, play) => [
    ['is_valid_play', [play, ...a.slice(0, 5)], (j) => j.result !== 0],
    ['match_build', [a[1][0], a[4][0]], () => true],
    ['match_discard', [a[1][0], a[3][a[0]][0], a[0], a[0]], () => true],
  ],
  phazed: (a, play) => [
    ['is_valid_play', [play, ...a], (j) => j.result === true],
    ['group_type', [a[4].slice(0, 3)], () => true],
    ['phase_type', [[a[4].slice(0, 3), a[4].slice(3, 6)]], () => true],
    ['score', [a[4]], () => true],
  ],
};

async function functions(g) {
  const play = g.functions.find((f) => f.kind === 'play' && f.path === `/play/${g.game}`);
  if (!play || !FN_CALLS[g.game]) return;
  const args = await courseArgs(g);
  if (!args) {
    console.log(`route: game=${g.game} at=- route="POST /play/{game}" error=no-arguments-recorded`);
    return;
  }
  for (const at of ['early', 'late']) {
    const a = args[at];
    const p = await same(cpu, srv, ['POST', `/play/${g.game}`, null, a]);
    out(g.game, at, 'POST /play/{game}', p);
    if (!p.first || p.first.status !== 200) continue;
    for (const [name, body, ok] of FN_CALLS[g.game](a, p.first.json.result)) {
      const r = await same(cpu, srv, ['POST', `/validate/${g.game}/${name}`, null, body]);
      if (r.first && r.first.status === 200 && !ok(r.first.json)) r.errors++;
      out(g.game, at, `POST /validate/{game}/${name}`, r);
    }
  }
}

// --- the routes -------------------------------------------------------------

async function game(g) {
  const n = g.players.default;
  const persons = Array.from({ length: n }, (_, i) => ({ name: `p${i}` }));
  const withBots = [{ name: 'p0' },
    ...Array.from({ length: Math.max(1, g.players.min - 1) }, () => ({ bot: g.bots[0] }))];
  const log = await record(g.game, persons, opt.late + opt.window);
  const late = Math.max(opt.early, Math.min(opt.late, log.length ? log[log.length - 1].version - opt.window : 0));
  for (const [at, v] of [['early', opt.early], ['late', late]]) {
    const { g: c } = await copyAt(g.game, persons, log, v);
    const mover = c.tokens[c.state.current ?? 0];
    const reads = [
      ['GET /games/{id}', ['GET', `/games/${c.id}`, c.tokens[0]]],
      ['GET /games/{id}/legal', ['GET', `/games/${c.id}/legal`, mover]],
      ['GET /games/{id}/hint', ['GET', `/games/${c.id}/hint`, mover]],
      ['GET /games/{id}/plays', ['GET', `/games/${c.id}/plays`, c.tokens[0]]],
      ['GET /games/{id}/events', ['GET', `/games/${c.id}/events`, c.tokens[0]]],
    ];
    for (const [route, request] of reads) out(g.game, `${at}:v${c.version}`, route, await same(cpu, srv, request));
    out(g.game, `${at}:v${at === 'early' ? 1 : v}`, 'POST /games/{id}/plays (persons)',
        await replay(g.game, persons, log, at === 'early' ? 1 : v));
  }
  const blog = await record(g.game, withBots, opt.late + opt.window);
  const blate = Math.max(opt.early, Math.min(opt.late, blog.length ? blog[blog.length - 1].version - opt.window : 0));
  out(g.game, 'early:v1', `POST /games/{id}/plays (1 person, ${withBots.length - 1} bot)`,
      await replay(g.game, withBots, blog, 1));
  out(g.game, `late:v${blate}`, `POST /games/{id}/plays (1 person, ${withBots.length - 1} bot)`,
      await replay(g.game, withBots, blog, blate));
  const body = { game: g.game, seed: opt.seed, players: persons };
  out(g.game, '-', 'POST /games (persons)',
      await load(cpu, srv, () => ['POST', '/games', null, body], (a) => a.status === 201 && a.json.version === 1));
  await functions(g);
}

const h = await same(cpu, srv, ['GET', '/healthz']);
out('-', '-', 'GET /healthz', h);
for (const g of rules) {
  try {
    await game(g);
  } catch (e) {
    console.log(`route: game=${g.game} at=- route="-" error=${JSON.stringify(String(e.message || e))}`);
  }
}
out('-', '-', 'GET /healthz', await same(cpu, srv, ['GET', '/healthz']));
srv.close();
if (opt.anchor && opt['anchor-pid']) {
  const a = client(opt.anchor, opt.conns), acpu = procCpu(opt['anchor-pid']);
  out('anchor', '-', 'GET /healthz', await same(acpu, a, ['GET', '/healthz']));
  // the bench's own is_valid_play body (tests/bench.sh): the anchor reads it whole
  const ivp = '[[0,"2C",[0,0]],0,["2C","AS","9D","0D","0S"],[["9C",8],["0D",8],["3H",8],["KD",8]],' +
              '[[[],[],[],[]],[[],[],[],[]],[[],[],[],[]],[[],[],[],[]]],[[],[],[],[]]]';
  out('anchor', '-', 'POST /validate/comp10001bo/is_valid_play',
      await same(acpu, a, ['POST', '/validate/comp10001bo/is_valid_play', null, ivp]));
  a.close();
}
