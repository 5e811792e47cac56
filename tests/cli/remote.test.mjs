// `croupier tournament` with remote players: a tiny Node HTTP player that
// answers with our own server's POST /play/{game} on the arguments it is
// sent (so the encoded arguments go through the real decoder), and that
// misbehaves on purpose on chosen moves (late, garbage, an illegal play, a
// 500). The tournament must finish, count exactly the misbehaviours sent,
// and play deterministically when the remote player is deterministic.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn, spawnSync } from 'node:child_process';
import { startServer } from '../http/lib/server.mjs';

const BIN = process.env.CROUPIER_BIN || 'build/croupier';

// The tournament runs asynchronously: the remote player lives in this
// process, so the event loop must keep turning while it plays.
function run(...args) {
  return new Promise((resolve) => {
    const p = spawn(BIN, ['tournament', '--quiet', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

let srv; // the croupier server whose /play bots the remote player calls
let player; // the remote player
let requests = []; // every body it received
let misbehave = () => null; // (n, body) -> null | 'late' | 'garbage' | 'illegal' | 'status'
const LATE_MS = 2500; // --remote-timeout of the misbehaviour test (on time under load, too)
// every other run gives its remote player this long: a loaded machine must
// not make a prompt answer late (the default, 1000 ms, is checked below)
const ROOMY = ['--remote-timeout', '10000'];

async function botPlay(body) {
  const fn = { comp10001bo_play: '/play/comp10001bo', comp10001bo_bonus: '/play/comp10001bo/bonus',
    phazed_play: '/play/phazed' }[body.function];
  const q = body.variant && body.variant !== 'standard' && body.game === 'phazed' ? `?variant=${body.variant}` : '';
  const r = await fetch(`${srv.base}${fn}${q}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body.args),
  });
  assert.equal(r.status, 200, await r.clone().text());
  return (await r.json()).result;
}

// A well-formed Comp10001-Bo play that cannot be legal: a card from the hand
// that is not in it.
function notInHand(hand) {
  const ranks = 'A234567890JQK';
  for (const v of ranks) for (const s of 'SHDC') if (!hand.includes(v + s)) return [0, v + s, [0, 0]];
  return [0, 'KS', [0, 9]];
}

before(async () => {
  srv = await startServer();
  player = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d) => { text += d; });
    req.on('end', async () => {
      const body = JSON.parse(text);
      requests.push(body);
      const how = misbehave(requests.length, body);
      const send = (status, s) => { try { res.writeHead(status, { 'content-type': 'application/json' }); res.end(s); } catch { /* gone */ } };
      if (how === 'garbage') return send(200, '{"play": [0, "2C"');
      if (how === 'status') return send(500, '{"error": "the student code raised"}');
      if (how === 'illegal') return send(200, JSON.stringify({ play: notInHand(body.args[1]) }));
      let play;
      if (body.args) play = await botPlay(body);
      else play = body.legal[body.legal.length - 1]; // (the first plays card 0: bombs)
      if (how === 'late') await new Promise((r) => setTimeout(r, LATE_MS + 1500));
      // every other good answer is a bare play (accepted too)
      send(200, JSON.stringify(requests.length % 2 ? { play } : play));
    });
  });
  await new Promise((r) => player.listen(0, '127.0.0.1', r));
});

after(async () => {
  await new Promise((r) => player.close(r));
  await srv.stop();
});

const url = () => `http://127.0.0.1:${player.address().port}/play`;

test('a remote comp10001bo player: what it is sent, and the same results as its bot', async () => {
  requests = [];
  misbehave = () => null;
  const r = await run('--game', 'comp10001bo', '--bots', `${url()},planner`, '--games', '4', '--seed', '3',
    '--jobs', '2', '--json', ...ROOMY);
  assert.equal(r.status, 0, r.stderr);
  const o = JSON.parse(r.stdout);
  const rep = o.remote.players[0];
  assert.equal(rep.url, url());
  assert.equal(rep.moves, requests.length);
  assert.ok(rep.moves > 20, `only ${rep.moves} remote moves`);
  assert.deepEqual([rep.late, rep.invalid, rep.error, rep.replaced], [0, 0, 0, 0], JSON.stringify(rep));
  assert.equal(o.remote.timeout_ms, 10000);
  assert.equal(o.remote.fallback, 'planner');
  // the protocol: game, variant, function, seat and the positional arguments
  // of comp10001bo_play, from the seat's own view only
  for (const b of requests) {
    assert.equal(b.game, 'comp10001bo');
    assert.equal(b.variant, 'standard');
    assert.equal(b.function, 'comp10001bo_play');
    assert.equal(b.args.length, 6);
    assert.equal(b.args[0], b.seat);
    assert.ok(b.args[1].length <= 5);
    assert.equal(b.args[2].length, 4);
    for (const [top, n] of b.args[2]) assert.ok(n === 0 ? top === null : typeof top === 'string');
  }
  // the remote player is the planner behind HTTP: it plays exactly as the
  // planner does, whatever --jobs. Two different players rotate every deal
  // through the seats (o.rotations games per deal); planners in every seat
  // play each deal once, and the same seat order gives the same game
  assert.ok(o.rotations > 1 && o.games % o.rotations === 0, JSON.stringify(o.rotations));
  const deals = o.games / o.rotations;
  const local = JSON.parse((await run('--game', 'comp10001bo', '--bots', 'planner,planner', '--games', String(deals),
    '--seed', '3', '--jobs', '1', '--json')).stdout);
  assert.equal(local.rotations, 1);
  const scaled = Object.fromEntries(Object.entries(local.endings).map(([k, n]) => [k, n * o.rotations]));
  const strip = (x) => x.strategies.map(({ name, ...rest }) => rest);
  assert.deepEqual(o.endings, scaled);
  assert.equal(o.avg_turns, local.avg_turns);
  const again = JSON.parse((await run('--game', 'comp10001bo', '--bots', `${url()},planner`, '--games', '4',
    '--seed', '3', '--jobs', '1', '--json', ...ROOMY)).stdout);
  assert.deepEqual(strip(again), strip(o));
});

test('misbehaviours are counted exactly, replaced by the fallback, and reported', async () => {
  requests = [];
  const plan = { 3: 'late', 7: 'garbage', 11: 'illegal', 15: 'status', 19: 'illegal' };
  misbehave = (n) => plan[n] || null;
  const r = await run('--game', 'comp10001bo', '--bots', `${url()},planner,planner,planner`, '--games', '4',
    '--seed', '5', '--jobs', '2', '--json', '--remote-timeout', String(LATE_MS), '--fallback', 'random');
  assert.equal(r.status, 0, r.stderr);
  const o = JSON.parse(r.stdout);
  const rep = o.remote.players[0];
  assert.equal(rep.moves, requests.length);
  assert.equal(rep.late, 1, JSON.stringify(rep));
  assert.equal(rep.invalid, 3, JSON.stringify(rep)); // garbage + two illegal plays
  assert.equal(rep.error, 1, JSON.stringify(rep));
  assert.equal(rep.replaced, 5);
  assert.equal(o.remote.fallback, 'random');
  assert.equal(o.remote.timeout_ms, LATE_MS);
  assert.equal(rep.examples.length, 5);
  const kinds = rep.examples.map((x) => x.kind).sort();
  assert.deepEqual(kinds, ['error', 'invalid', 'invalid', 'invalid', 'late']);
  for (const x of rep.examples) {
    assert.ok(Number.isInteger(x.game) && x.game >= 0 && x.game < 4);
    assert.ok(Number.isInteger(x.seat) && x.seat >= 0 && x.seat < 4);
  }
  assert.ok(rep.examples.some((x) => /not JSON/.test(x.reason)), JSON.stringify(rep.examples));
  assert.ok(rep.examples.some((x) => /illegal play/.test(x.reason)), JSON.stringify(rep.examples));
  assert.ok(rep.examples.some((x) => /status 500/.test(x.reason)), JSON.stringify(rep.examples));
  assert.ok(rep.examples.some((x) => x.reason === `no answer within ${LATE_MS} ms`), JSON.stringify(rep.examples));
  // the table says it too
  requests = [];
  misbehave = (n) => (n === 2 ? 'garbage' : null);
  const t = await run('--game', 'comp10001bo', '--bots', `${url()},planner`, '--games', '4', '--seed', '5',
    '--jobs', '1', ...ROOMY);
  assert.equal(t.status, 0, t.stderr);
  assert.match(t.stdout, /^remote players \(time limit 10000 ms per move; fallback bot planner\):$/m);
  assert.match(t.stdout, new RegExp(`^  ${url()}: ${requests.length} moves, 0 late, 1 invalid, 0 errors \\(1 replaced\\)$`, 'm'));
  assert.match(t.stdout, /^ {4}game \d+ seat \d: invalid: the answer is not JSON/m);
});

test('remote phazed (function arguments) and hanabi (view and legal plays)', async () => {
  requests = [];
  misbehave = () => null;
  const p = await run('--game', 'phazed', '--bots', `${url()},planner`, '--games', '2', '--seed', '2', '--json', ...ROOMY);
  assert.equal(p.status, 0, p.stderr);
  const pr = JSON.parse(p.stdout).remote.players[0];
  assert.ok(pr.moves > 10 && pr.moves === requests.length);
  assert.deepEqual([pr.late, pr.invalid, pr.error], [0, 0, 0], JSON.stringify(pr));
  assert.ok(requests.every((b) => b.function === 'phazed_play' && b.args.length === 6));
  requests = [];
  const bb = await run('--game', 'comp10001bo', '--variant', 'bonus', '--bots', `${url()},planner`, '--games', '4',
    '--json', ...ROOMY);
  assert.equal(bb.status, 0, bb.stderr);
  const br = JSON.parse(bb.stdout).remote.players[0];
  assert.ok(br.moves > 10 && br.moves === requests.length);
  assert.deepEqual([br.late, br.invalid, br.error], [0, 0, 0], JSON.stringify(br));
  assert.ok(requests.every((b) => b.function === 'comp10001bo_bonus' && b.variant === 'bonus'
    && b.args.length === 8 && typeof b.args[2] === 'boolean'));
  requests = [];
  const h = await run('--game', 'hanabi', '--bots', url(), '--players', '2', '--games', '2', '--json', ...ROOMY);
  assert.equal(h.status, 0, h.stderr);
  const hr = JSON.parse(h.stdout).remote.players[0];
  assert.deepEqual([hr.late, hr.invalid, hr.error], [0, 0, 0], JSON.stringify(hr));
  assert.ok(hr.moves > 10);
  const b = requests[0];
  assert.equal(b.function, null);
  assert.equal(b.args, undefined);
  assert.ok(Array.isArray(b.legal) && b.legal.length > 0);
  assert.equal(b.view.seat, b.seat);
});

test('a player that is not there: every move an error, the fallback plays', async () => {
  const dead = 'http://127.0.0.1:9/play';
  const r = await run('--game', 'comp10001bo', '--bots', `${dead},planner`, '--games', '4', '--json');
  assert.equal(r.status, 0, r.stderr);
  const rep = JSON.parse(r.stdout).remote.players[0];
  assert.ok(rep.moves > 0 && rep.error === rep.moves && rep.replaced === rep.moves, JSON.stringify(rep));
  assert.match(rep.examples[0].reason, /cannot connect/);
  assert.equal(JSON.parse(r.stdout).remote.timeout_ms, 1000, 'the default time per move');
});

test('only http:// URLs are remote players', () => {
  for (const bad of ['https://127.0.0.1:9000/play', 'ftp://x/y', 'http://:80/']) {
    const r = spawnSync(BIN, ['tournament', '--game', 'comp10001bo', '--bots', `${bad},planner`], { encoding: 'utf8' });
    assert.equal(r.status, 2, bad);
    assert.match(r.stderr, /remote player is an http:\/\/ URL|no host/, bad);
  }
  const f = spawnSync(BIN, ['tournament', '--game', 'comp10001bo', '--bots', 'planner', '--fallback', 'nobody'],
    { encoding: 'utf8' });
  assert.equal(f.status, 2);
  assert.match(f.stderr, /no bot 'nobody' for --fallback/);
  const t = spawnSync(BIN, ['tournament', '--game', 'comp10001bo', '--bots', 'planner', '--remote-timeout', '0'],
    { encoding: 'utf8' });
  assert.equal(t.status, 2);
});
