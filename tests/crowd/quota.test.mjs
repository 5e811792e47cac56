// The quotas (api/quota.h) against a crowd: clients on their own loopback
// addresses (127.0.0.0/8 is all loopback; each request binds its source
// address), so that the server tells them apart as it would on a network.
//
//  - one address creating games as fast as it can is refused 429 past its
//    allowance, while 25 others create, play and read, every one served;
//  - a bot-only game played to its end in the request counts by its size;
//  - imports count as creations;
//  - many addresses together meet the whole server's allowance;
//  - work without a game (GET /cases) counts its CPU time, one request at a
//    time from one address, and others are served meanwhile.
//
// Every answer is checked against openapi.yaml. Bounded: a few hundred
// requests, 127.0.0.1/8 only, about 20 s.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test, before, after } from 'node:test';
import { startServer } from '../http/lib/server.mjs';
import { assertMatches } from '../http/lib/contract.mjs';

const CREATE = 30; // games a minute from one address
const CREATE_TOTAL = 200;
const WORK = 2; // CPU seconds a minute from one address
let server;

before(async () => {
  server = await startServer({
    extraArgs: ['--quota-create', String(CREATE), '--quota-create-total', String(CREATE_TOTAL),
      '--quota-work', String(WORK), '--quota-work-total', '60'],
  });
});

after(async () => {
  if (!server) return;
  const { code, signal, stderr } = await server.stop();
  assert.equal(signal, null, `server killed by ${signal}: ${stderr.slice(-2000)}`);
  assert.equal(code, 0, `server must exit 0: ${stderr.slice(-2000)}`);
});

/** One request from source address `addr`, on a connection of its own. */
function from(addr, method, p, { json, token, template } = {}) {
  const u = new URL(server.base);
  const body = json === undefined ? undefined : JSON.stringify(json);
  const headers = {};
  if (body) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path: p, headers, localAddress: addr, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        assertMatches(method, template || p, { status: res.statusCode, headers: res.headers }, text);
        const ct = res.headers['content-type'] || '';
        resolve({ status: res.statusCode, headers: res.headers, text, json: /^application\/(problem\+)?json/.test(ct) && text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${p} from ${addr}: no answer`)));
    req.end(body);
  });
}

const HANABI = { game: 'hanabi', players: [{ name: 'Ann' }, { bot: 'rules' }] };

function expectRefused(r, quota, bucket, what) {
  assert.equal(r.status, 429, `${what}: ${r.text.slice(0, 300)}`);
  assert.equal(r.json.type, '/problems/too-many-requests', what);
  assert.equal(r.json.quota, quota, what);
  assert.equal(r.json.bucket, bucket, what);
  assert.ok(Number(r.headers['retry-after']) >= 1, `${what}: Retry-After ${r.headers['retry-after']}`);
}

async function refusedCount(quota, bucket) {
  const m = await from('127.0.0.1', 'GET', '/metrics');
  const re = new RegExp(`^croupier_quota_refused_total\\{quota="${quota}",bucket="${bucket}"\\} (\\d+)$`, 'm');
  return Number(re.exec(m.text)[1]);
}

/** A person's game from `addr`, played for a few moves and read back: every answer 2xx. */
async function playSome(addr) {
  const g = await from(addr, 'POST', '/games', { json: HANABI });
  assert.equal(g.status, 201, `${addr} creates: ${g.text.slice(0, 300)}`);
  const token = g.json.seats[0].token;
  for (let i = 0; i < 3; i++) {
    const legal = await from(addr, 'GET', `/games/${g.json.id}/legal`, { token, template: `/games/${g.json.id}/legal` });
    assert.equal(legal.status, 200, `${addr} legal`);
    const r = await from(addr, 'POST', `/games/${g.json.id}/plays`, { json: { play: legal.json.plays.at(-1) }, token });
    assert.equal(r.status, 200, `${addr} plays: ${r.text.slice(0, 300)}`);
  }
  const v = await from(addr, 'GET', `/games/${g.json.id}`, { token });
  assert.equal(v.status, 200, `${addr} reads`);
  return g.json;
}

test('one address creating as fast as it can is refused past its quota; 25 others are served meanwhile', async () => {
  const refused0 = await refusedCount('create', 'client');
  const t0 = Date.now();
  let stop = false, created = 0;
  const refusals = [];
  const flood = Array.from({ length: 8 }, async () => {
    while (!stop) {
      const r = await from('127.0.0.2', 'POST', '/games', { json: HANABI });
      if (r.status === 201) created++;
      else refusals.push(r);
    }
  });
  const others = [];
  for (let i = 1; i <= 25; i++) others.push(playSome(`127.0.1.${i}`));
  await Promise.all(others); // each one served: playSome asserts every answer
  await new Promise((r) => setTimeout(r, 500));
  stop = true;
  await Promise.all(flood);
  const seconds = (Date.now() - t0) / 1000;
  assert.ok(refusals.length >= 20, `the flood was refused (${refusals.length} refusals, ${created} created)`);
  for (const r of refusals) expectRefused(r, 'create', 'client', 'the flooding address');
  const allowed = CREATE + Math.ceil((seconds * CREATE) / 60) + 1;
  assert.ok(created >= CREATE - 1 && created <= allowed, `${created} games created in ${seconds} s, allowance ${allowed}`);
  assert.equal(await refusedCount('create', 'client') - refused0, refusals.length, '/metrics counts every refusal');
});

test('a bot-only game played to its end in the request counts by its size; imports count as creations', async () => {
  // A bot-only Phazed game stores every play of the game: well over 16 KiB,
  // so it costs more than a person's game, and the address's allowance is
  // spent in a few.
  let made = 0, r;
  const body = { game: 'phazed', players: [{ bot: 'greedy' }, { bot: 'greedy' }, { bot: 'greedy' }, { bot: 'greedy' }] };
  for (; made < CREATE; made++) {
    r = await from('127.0.3.1', 'POST', '/games', { json: body });
    if (r.status !== 201) break;
  }
  expectRefused(r, 'create', 'client', 'the bot-only games');
  assert.ok(made >= 1 && made < CREATE / 2, `${made} bot-only games before the refusal (a person's game: ${CREATE})`);
  // Imports: an export (of another address's game) imported again and again.
  const g = await from('127.0.3.3', 'POST', '/games', { json: HANABI });
  const ex = await from('127.0.3.3', 'GET', `/games/${g.json.id}/export?format=json`, { token: g.json.seats[0].token, template: `/games/${g.json.id}/export` });
  assert.equal(ex.status, 403, 'a seat does not export a running Hanabi game (a closed hand)');
  const over = await from('127.0.3.3', 'POST', '/games', { json: { game: 'hanabi', players: [{ bot: 'rules' }, { bot: 'rules' }] } });
  const full = await from('127.0.3.3', 'GET', `/games/${over.json.id}/export?format=json`, { template: `/games/${over.json.id}/export` });
  assert.equal(full.status, 200, 'a finished game exports to anyone');
  let imported = 0;
  for (; imported <= CREATE; imported++) {
    r = await from('127.0.3.2', 'POST', '/games/import', { json: full.json });
    if (r.status !== 201) break;
  }
  expectRefused(r, 'create', 'client', 'the imports');
  assert.ok(imported >= CREATE / 2 && imported <= CREATE, `${imported} imports before the refusal`);
});

test('many addresses together meet the whole server\'s quota', async () => {
  const results = [];
  for (let batch = 0; batch < 6; batch++) {
    results.push(...await Promise.all(Array.from({ length: 40 }, (_, i) => from(`127.0.2.${batch * 40 + i + 1}`, 'POST', '/games', { json: HANABI }))));
  }
  const refused = results.filter((r) => r.status !== 201);
  assert.ok(refused.length > 0, 'past the whole server\'s allowance, new addresses are refused too');
  for (const r of refused) expectRefused(r, 'create', 'total', 'a new address past the total');
  assert.ok(results.length - refused.length <= CREATE_TOTAL, `${results.length - refused.length} created`);
});

test('work without a game counts its CPU time, one request at a time from one address; others are served', async () => {
  const heavy = '/cases/phazed/is_valid_play?n=3000&seed=3';
  const tmpl = '/cases/phazed/is_valid_play';
  const first = from('127.0.4.1', 'GET', heavy, { template: tmpl });
  await new Promise((r) => setTimeout(r, 300));
  expectRefused(await from('127.0.4.1', 'GET', '/cases/phazed/score?n=5', { template: '/cases/phazed/score' }), 'work', 'client', 'a second request while the first runs');
  const other = await from('127.0.4.2', 'GET', '/cases/phazed/score?n=5', { template: '/cases/phazed/score' });
  assert.equal(other.status, 200, 'another address is served meanwhile');
  const r = await first;
  assert.equal(r.status, 200, 'the first request is served whole');
  assert.equal(r.text.trim().split('\n').length, 3000);
  // it took more CPU than the address's allowance of a minute: the address waits
  const after = await from('127.0.4.1', 'GET', '/cases/phazed/score?n=5', { template: '/cases/phazed/score' });
  expectRefused(after, 'work', 'client', 'after a request past the allowance');
  assert.ok(Number(after.headers['retry-after']) > 1, `Retry-After ${after.headers['retry-after']}`);
  assert.equal((await from('127.0.4.3', 'GET', '/cases/phazed/score?n=5', { template: '/cases/phazed/score' })).status, 200, 'others still are');
});
