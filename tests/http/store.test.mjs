// The store is the only memory: two server processes sharing one store serve
// the same games, a race between them has one winner, and a restart loses
// nothing. Runs on a shared SQLite file, or on PostgreSQL when
// CROUPIER_TEST_STORE names one (tests/run.sh starts a real cluster).
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, request, expectStatus, expectProblem } from './lib/server.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'croupier-store-'));
const store = process.env.CROUPIER_TEST_STORE || `sqlite:${path.join(dir, 'shared.db')}`;
const env = { CROUPIER_ADMIN_TOKEN: 'shared-admin-token-for-this-test' };
const servers = [];
after(async () => {
  for (const s of servers) {
    const r = await s.stop();
    assert.equal(r.code, 0, r.stderr);
  }
  rmSync(dir, { recursive: true, force: true });
});

async function start() {
  const s = await startServer({ store, env });
  servers.push(s);
  return s;
}

const body = { game: 'comp10001bo', seed: 77, players: [{ name: 'Ann' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] };

test('two servers on one store: created on A, played on B, raced on both', async () => {
  const [a, b] = [await start(), await start()];
  const g = await request(a.base, 'POST', '/games', { json: body });
  expectStatus(g, 201);
  const { id } = g.json;
  const token = g.json.seats[0].token;
  const onB = await request(b.base, 'GET', `/games/${id}`, { token });
  expectStatus(onB, 200);
  assert.deepEqual(onB.json.state, g.json.state, 'B reads what A wrote');
  const legal = await request(b.base, 'GET', `/games/${id}/legal`, { token });
  const play = legal.json.plays.at(-1);
  const send = (s) => request(s.base, 'POST', `/games/${id}/plays`, { json: { play }, token, headers: { 'if-match': `"${g.json.version}"` } });
  const [ra, rb] = await Promise.all([send(a), send(b)]);
  const wins = [ra, rb].filter((r) => r.status === 200);
  assert.equal(wins.length, 1, `one winner: ${ra.status} ${rb.status}`);
  const loser = [ra, rb].find((r) => r.status !== 200);
  assert.ok([409, 412].includes(loser.status), loser.text);
  const final = await request(a.base, 'GET', `/games/${id}/plays`, { token });
  assert.equal(final.json.plays.filter((p) => p.seat === 0).length, 1, 'the play is recorded once, not twice');
});

test('a restart loses nothing: a new process serves the stored game', async () => {
  const a = await start();
  const g = await request(a.base, 'POST', '/games', { json: body });
  expectStatus(g, 201);
  const r = await a.stop();
  servers.splice(servers.indexOf(a), 1);
  assert.equal(r.code, 0);
  const c = await start();
  const again = await request(c.base, 'GET', `/games/${g.json.id}`, { token: g.json.seats[0].token });
  expectStatus(again, 200);
  assert.deepEqual(again.json.state, g.json.state);
  expectStatus(await request(c.base, 'DELETE', `/games/${g.json.id}`, { token: env.CROUPIER_ADMIN_TOKEN }), 204);
  expectProblem(await request(c.base, 'GET', `/games/${g.json.id}`), 404, 'not-found');
});

test('a write the store cannot take is a 503 store-unavailable with Retry-After, and changes nothing',
  { skip: /^postgres/.test(store) && 'SQLite only: the PostgreSQL stops are tests/pg/' }, async () => {
    const a = await start();
    const g = await request(a.base, 'POST', '/games', { json: body });
    expectStatus(g, 201);
    const { id } = g.json;
    const token = g.json.seats[0].token;
    const play = (await request(a.base, 'GET', `/games/${id}/legal`, { token })).json.plays[0];
    // another process holds SQLite's write lock longer than the store waits for it (5 s)
    const file = store.replace(/^sqlite:/, '');
    const holder = spawn('sqlite3', [file], { stdio: ['pipe', 'ignore', 'pipe'] });
    holder.stdin.write('BEGIN IMMEDIATE;\nSELECT 1;\n');
    await new Promise((r) => setTimeout(r, 300));
    try {
      const r = await request(a.base, 'POST', `/games/${id}/plays`, { json: { play }, token });
      expectProblem(r, 503, 'store-unavailable');
      assert.match(r.headers.get('retry-after') ?? '', /^[0-9]+$/, 'Retry-After on the store\'s 503');
    } finally {
      holder.stdin.end('ROLLBACK;\n');
      await new Promise((r) => holder.on('exit', r));
    }
    const after = await request(a.base, 'GET', `/games/${id}`, { token });
    assert.equal(after.json.version, g.json.version, 'the refused play changed nothing');
    const r = await request(a.base, 'POST', `/games/${id}/plays`, { json: { play }, token });
    expectStatus(r, 200, 'the store is back: the same play goes through');
  });

test('/healthz is a 503 naming the reason once a newer release migrated the store (the balancer takes the old process out)', async () => {
  const a = await start();
  expectStatus(await request(a.base, 'GET', '/healthz'), 200);
  const sql = (q) => {
    const [cmd, args] = /^postgres/.test(store)
      ? ['psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', store, '-c', q]]
      : ['sqlite3', ['-cmd', '.timeout 5000', store.replace(/^sqlite:/, ''), q]];
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  };
  sql("INSERT INTO schema_version (version, applied_at, note) VALUES (99, " +
    `${/^postgres/.test(store) ? 'now()' : '0'}, 'a newer release')`);
  try {
    await new Promise((r) => setTimeout(r, 1100)); // /healthz keeps a good answer for a second
    const r = await request(a.base, 'GET', '/healthz');
    const p = expectProblem(r, 503, 'store-unavailable');
    assert.match(p.detail, /schema 99, newer than this build/);
    assert.match(r.headers.get('retry-after') ?? '', /^[0-9]+$/);
  } finally {
    sql('DELETE FROM schema_version WHERE version = 99');
  }
  expectStatus(await request(a.base, 'GET', '/healthz'), 200, 'the store is this build\'s again');
});
