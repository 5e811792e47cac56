// The store-size watermark (--store-max-bytes; docs/operations.md): a
// server whose store is past it refuses new games, created or imported,
// with 503 store-full and a Retry-After, says so on /healthz and /metrics,
// and goes on taking the plays of the games there are. Runs on a shared
// SQLite file, or on PostgreSQL when CROUPIER_TEST_STORE names one (its
// size there is pg_database_size). The small disk's watermark,
// --store-min-free, is tests/disk's.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, request, expectStatus, expectProblem } from './lib/server.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'croupier-room-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const store = process.env.CROUPIER_TEST_STORE || `sqlite:${path.join(dir, 'room.db')}`;

/** fn(server) with a server on the shared store with these options, stopped after. */
async function withServer(extraArgs, fn) {
  const s = await startServer({ store, extraArgs });
  try {
    return await fn(s);
  } finally {
    const r = await s.stop();
    assert.equal(r.code, 0, r.stderr);
  }
}

test('past --store-max-bytes: no new game (503 store-full, Retry-After), the games there go on', async () => {
  const body = { game: 'comp10001bo', seed: 5, players: [{ name: 'Ann' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] };
  const { g, exp } = await withServer(['--store-max-bytes', '1G'], async (roomy) => {
    const created = await request(roomy.base, 'POST', '/games', { json: body });
    expectStatus(created, 201, 'under its limit');
    assert.equal((await request(roomy.base, 'GET', '/healthz')).json.new_games, 'ok');
    const e = await request(roomy.base, 'GET', `/games/${created.json.id}/export?format=json`, { token: roomy.adminToken });
    expectStatus(e, 200);
    return { g: created.json, exp: e.json };
  });
  const token = g.seats[0].token;
  await withServer(['--store-max-bytes', '1K'], async (tight) => { // any store is larger
    const refused = await request(tight.base, 'POST', '/games', { json: body });
    const p = expectProblem(refused, 503, 'store-full', 'a new game past the limit');
    assert.equal(refused.headers.get('retry-after'), '60');
    assert.match(p.detail, /past its limit of 1\.0 KB \(--store-max-bytes\)/);
    const imp = await request(tight.base, 'POST', '/games/import', { json: exp });
    expectProblem(imp, 503, 'store-full', 'an import is a new game');
    assert.equal(imp.headers.get('retry-after'), '60');
    for (let i = 0; i < 3; i++) { // the game there goes on
      const legal = await request(tight.base, 'GET', `/games/${g.id}/legal`, { token });
      expectStatus(legal, 200);
      if (!legal.json.plays.length) break;
      expectStatus(await request(tight.base, 'POST', `/games/${g.id}/plays`, { token, json: { play: legal.json.plays[0] } }), 200);
    }
    const h = await request(tight.base, 'GET', '/healthz');
    expectStatus(h, 200);
    assert.deepEqual([h.json.status, h.json.writes, h.json.new_games], ['ok', 'ok', 'refused']);
    const m = (await request(tight.base, 'GET', '/metrics')).text;
    assert.match(m, /^croupier_store_new_games_refused 1$/m);
    assert.ok(Number(/^croupier_store_bytes (\d+)$/m.exec(m)?.[1]) > 1024, 'the store reports its size');
  });
  await withServer([], async (dflt) => { // no limit by default (and the disk has room)
    expectStatus(await request(dflt.base, 'POST', '/games', { json: body }), 201);
  });
});

test('--store-max-bytes and --store-min-free take sizes; anything else is refused at start', async () => {
  const { spawnSync } = await import('node:child_process');
  const bin = process.env.CROUPIER_BIN || 'build/croupier';
  for (const bad of [['--store-max-bytes', '12X'], ['--store-min-free', '-1'], ['--store-max-bytes', ''], ['--expire-idle', '-3']]) {
    const r = spawnSync(bin, ['serve', '--store', store, ...bad], { encoding: 'utf8' });
    assert.equal(r.status, 2, `${bad.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^croupier serve: ${bad[0]} takes`));
  }
});
