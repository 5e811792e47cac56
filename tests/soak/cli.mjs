#!/usr/bin/env node
// cli.mjs: `make soak`, the long run of the whole-game soak (tests/soak/soak.mjs).
// USAGE below is what --help prints: the options, and what a run checks
// and prints.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../http/lib/contract.mjs';
import { startServer } from '../http/lib/server.mjs';
import { makeClient, discover, planGames, runPlan, groupFailures, describeFailure } from './soak.mjs';

const USAGE = `usage: node tests/soak/cli.mjs [options]      (make soak: SOAK_GAMES=N SOAK_ARGS='...')
       node tests/soak/cli.mjs --base http://127.0.0.1:8080 --admin-token TOKEN [options]
                                                     (a server already running)
Whole games through a real server, every position checked in full
(tests/soak/soak.mjs). Without --base it starts its own server, on a fresh
SQLite file unless --store or CROUPIER_TEST_STORE says otherwise.

  --games N           games in all, shared evenly between the games of GET /rules (10000)
  --seed S            the plan's seed (1)
  --concurrency N     games at once (6)
  --threads N         the server's threads and the client's sockets (8)
  --store URL         sqlite:FILE or postgres://... for the server it starts
  --bin PATH          the server binary (CROUPIER_BIN; build/croupier)
  --base URL, --admin-token TOKEN
                      play against a server already running instead
  --game NAME         only this game (repeatable)
  --first K           start at plan index K
  --full N            N games of each game checked in full, the others sampled
  --sample P          the share of those others' positions checked (1); their
                      last position always is
  --contract          check every response against openapi.yaml too
  --failures FILE     where failures go, each with its reproduction
                      (tests/out/soak-failures.json)
  --routes            print requests, mean latency and size per route
  --log-games         one JSON line per game on stdout
  --quiet             no progress on stderr
  -h, --help          this text

It ends with one line on stdout:
  games finished: N, plays: N, failures: N
(plays: every play of the finished games, the people's and the bots'). The
exit status is 0 only when every planned game finished and nothing failed.
To replay one game of a run alone: --game G --first K --games 1 --seed S
(K is the plan index printed with the failure).
`;

let o;
try {
  ({ values: o } = parseArgs({
    options: {
      games: { type: 'string', default: '10000' },
      seed: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '6' },
      threads: { type: 'string', default: '8' },
      store: { type: 'string' },
      bin: { type: 'string' },
      base: { type: 'string' },
      'admin-token': { type: 'string' },
      game: { type: 'string', multiple: true },
      first: { type: 'string', default: '0' },
      contract: { type: 'boolean', default: false },
      full: { type: 'string' },
      sample: { type: 'string', default: '1' },
      failures: { type: 'string', default: path.join(ROOT, 'tests', 'out', 'soak-failures.json') },
      quiet: { type: 'boolean', default: false },
      routes: { type: 'boolean', default: false },
      'log-games': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (e) {
  console.error(`cli.mjs: ${e.message}\n(--help lists the options)`);
  process.exit(2);
}
if (o.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const int = (name) => {
  const v = Number(o[name]);
  if (!Number.isInteger(v) || v < 0) { console.error(`--${name}: a whole number, not ${o[name]}`); process.exit(2); }
  return v;
};
const total = int('games'), seed = int('seed'), concurrency = Math.max(1, int('concurrency'));
const threads = Math.max(1, int('threads')), first = int('first');
const sample = Number(o.sample);
if (!(sample >= 0 && sample <= 1)) { console.error(`--sample: a probability from 0 to 1, not ${o.sample}`); process.exit(2); }
const full = o.full === undefined ? Infinity : int('full');

let server = null;
let base = o.base, adminToken = o['admin-token'];
if (!base) {
  if (o.bin) process.env.CROUPIER_BIN = o.bin;
  // Long Phazed and Five Crowns games export more than the default 64 KiB
  // body limit: raise it so /validate and /games/import take every export.
  // quotas off: a soak creates games as fast as the server takes them (api/quota.h)
  server = await startServer({ store: o.store, extraArgs: ['--threads', String(threads), '--body-limit', String(16 << 20), '--quota-create', '0', '--quota-create-total', '0'] });
  base = server.base;
  adminToken = server.adminToken;
}
if (!adminToken) { console.error('--admin-token is needed with --base'); process.exit(2); }

const client = makeClient(base, { sockets: threads, contract: o.contract, adminToken });
let games;
try {
  games = await discover(client);
} catch (e) {
  console.error(`soak: GET /rules and the export formats could not be read: ${e.message}\n${JSON.stringify(e.detail ?? e.stack, null, 1)}`);
  if (server) await server.stop();
  console.log('games finished: 0, plays: 0, failures: 1');
  process.exit(1);
}
if (o.game) {
  games = games.filter((g) => o.game.includes(g.game));
  if (!games.length) { console.error(`no such game: ${o.game.join(', ')}`); process.exit(2); }
}
const perGame = Math.max(1, Math.ceil(total / games.length));
const plan = planGames(games, { perGame, seed, first, full, sample }).slice(0, Math.max(total, 1));
const t0 = Date.now();
const log = (s) => { if (!o.quiet) process.stderr.write(`${s}\n`); };
log(`soak: ${plan.length} games (${games.map((g) => g.game).join(', ')}), seed ${seed}, ${concurrency} at once, server ${base}`);

let lastReport = Date.now();
const totals = await runPlan(client, plan, {
  concurrency,
  adminToken,
  onGame: (rec, t) => {
    if (o['log-games']) process.stdout.write(`GAME ${JSON.stringify({ game: rec.spec.game, n: rec.spec.nplayers, seating: rec.spec.seating, persons: Object.keys(rec.spec.pRandom).length, pRandom: rec.spec.pRandom, plays: rec.plays, personPlays: rec.personPlays, requests: rec.requests, ok: rec.finished })}\n`);
    for (const f of rec.failures) log(`FAIL ${describeFailure(f).split('\n').slice(0, 4).join('\n     ')}`);
    if (Date.now() - lastReport > 30_000) {
      lastReport = Date.now();
      const s = (Date.now() - t0) / 1000;
      log(`  ${t.finished + t.failures.length}/${plan.length} games in ${s.toFixed(0)} s (${(t.finished / s).toFixed(2)} games/s), `
        + `${t.plays} plays, ${client.stats.requests} requests, ${t.failures.length} failures`);
    }
  },
});
const secs = (Date.now() - t0) / 1000;
client.close();
const cpu = process.cpuUsage();
let serverCpu = '';
try { // the server's CPU time (Linux), to see where the time goes
  const f = (await import('node:fs')).readFileSync(`/proc/${server?.proc?.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  serverCpu = `, server ${((Number(f[11]) + Number(f[12])) / 100).toFixed(1)} s`;
} catch { /* not Linux, or no server of ours */ }

let serverTrouble = '';
if (server) {
  const { code, signal, stderr } = await server.stop();
  if (code !== 0 || signal) serverTrouble = `server exit code ${code}, signal ${signal}: ${stderr.slice(-1500)}`;
}

log(`\nper game (finished/planned, plays, people's plays, results):`);
for (const [g, b] of Object.entries(totals.byGame)) {
  log(`  ${g.padEnd(12)} ${b.finished}/${b.planned} games, ${b.plays} plays, ${b.personPlays} by people; ${JSON.stringify(b.results)}`);
}
for (const [g, fs] of Object.entries(totals.formats)) {
  for (const [f, s] of Object.entries(fs)) log(`  ${g} export ${f}: checked ${s.checked} times, refused ${s.refused} (not available there)`);
}
log(`${totals.positionsInFull} positions checked in full (${totals.validated} plays validated, ${totals.reimports} re-imports); `
  + `${totals.failedGames} games with failures`);
log(`CPU: soak driver ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s${serverCpu}`);
log(`${secs.toFixed(1)} s, ${(totals.finished / secs).toFixed(2)} games/s, ${(totals.plays / secs).toFixed(0)} plays/s, ${client.stats.requests} requests (${(client.stats.requests / secs).toFixed(0)}/s)`);
if (o.routes) for (const [k, v] of Object.entries(client.stats.routes)) log(`  ${k.padEnd(40)} ${v.n} requests, ${(v.ms / v.n).toFixed(2)} ms avg, ${(v.bytes / v.n / 1024).toFixed(1)} KiB avg`);
if (totals.failures.length) {
  mkdirSync(path.dirname(o.failures), { recursive: true });
  writeFileSync(o.failures, JSON.stringify(totals.failures, null, 1));
  log(`\n${totals.failures.length} failures (all in ${o.failures}); one of each kind:`);
  for (const g of groupFailures(totals.failures)) log(`\n[${g.count}x] ${describeFailure(g.first)}`);
}
if (serverTrouble) log(serverTrouble);
console.log(`games finished: ${totals.finished}, plays: ${totals.plays}, failures: ${totals.failures.length + (serverTrouble ? 1 : 0)}`);
process.exit(totals.failures.length === 0 && !serverTrouble && totals.finished === plan.length ? 0 : 1);
