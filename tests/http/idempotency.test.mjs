// Idempotency-Key (the IETF httpapi draft's header) on POST /games,
// /games/{id}/plays, /games/{id}/resign and /games/import: the same
// request sent again with the same key gets the first answer (same status,
// body, ETag or Location), marked `Idempotent-Replayed: true`, and writes
// nothing; the same key with another request is a 422; a duplicate while
// the first is in flight a 409 with Retry-After; keys are scoped by the
// caller's token and the path; an answer that wrote nothing is not kept;
// answers survive the process (another server on the store replays them),
// are sealed in the database, expire and are purged. Runs on SQLite, and on
// PostgreSQL when CROUPIER_TEST_STORE names one (the checks of the raw
// database are SQLite's).
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { startServer, request, expectStatus, expectProblem } from './lib/server.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'croupier-idem-'));
const store = process.env.CROUPIER_TEST_STORE || `sqlite:${path.join(dir, 'idem.db')}`;
const SQLITE = store.startsWith('sqlite:') ? store.slice(7) : null;
const env = { CROUPIER_ADMIN_TOKEN: 'idempotency-test-admin-token' };
const servers = [];
after(async () => {
  for (const s of servers) {
    const r = await s.stop();
    assert.equal(r.code, 0, r.stderr);
  }
  rmSync(dir, { recursive: true, force: true });
});
const a = await startServer({ store, env });
servers.push(a);

const players = [{ name: 'Ann' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }];
const newGame = { game: 'comp10001bo', seed: 11, players };
const key = () => `"${randomUUID()}"`;
const post = (base, p, json, headers = {}, token) => request(base, 'POST', p, { json, headers, token });
const sql = (q) => spawnSync('sqlite3', ['-cmd', '.timeout 5000', SQLITE, q], { encoding: 'utf8' }).stdout.trim();

function sameAnswer(first, again, what) {
  assert.equal(again.status, first.status, `${what}: the same status`);
  assert.equal(again.text, first.text, `${what}: the same body`);
  for (const h of ['etag', 'location', 'content-type']) {
    assert.equal(again.headers.get(h), first.headers.get(h), `${what}: the same ${h}`);
  }
  assert.equal(again.headers.get('idempotent-replayed'), 'true', `${what}: marked as a replay`);
  assert.equal(first.headers.get('idempotent-replayed'), null, `${what}: the first answer is not a replay`);
}

async function plays(base, id) {
  const r = await request(base, 'GET', `/games/${id}/plays`, { token: env.CROUPIER_ADMIN_TOKEN });
  expectStatus(r, 200);
  return r.json.plays;
}

test('POST /games with a key: the same request again answers the first game, and creates none', async () => {
  const k = key();
  const first = await post(a.base, '/games', newGame, { 'idempotency-key': k });
  expectStatus(first, 201);
  const again = await post(a.base, '/games', newGame, { 'idempotency-key': k });
  sameAnswer(first, again, 'POST /games');
  // the first answer's seat token is the game's: the replay hands out no other
  const token = again.json.seats[0].token;
  expectStatus(await request(a.base, 'GET', `/games/${first.json.id}`, { token }), 200);
  if (SQLITE) assert.equal(sql(`SELECT count(*) FROM games WHERE json_extract(meta, '$.seed') = 11`), '1');
  // the bare form of the key is the same key
  const bare = await post(a.base, '/games', newGame, { 'idempotency-key': k.slice(1, -1) });
  sameAnswer(first, bare, 'the key without its quotes');
});

test('the same key with another request is a 422 naming the header; nothing is written', async () => {
  const k = key();
  expectStatus(await post(a.base, '/games', newGame, { 'idempotency-key': k }), 201);
  const other = await post(a.base, '/games', { ...newGame, seed: 12 }, { 'idempotency-key': k });
  const p = expectProblem(other, 422, 'idempotency-key-reused');
  assert.equal(p.header, 'Idempotency-Key');
  if (SQLITE) assert.equal(sql(`SELECT count(*) FROM games WHERE json_extract(meta, '$.seed') = 12`), '0');
});

test('a key that could be guessed, or two keys, are refused (400 invalid-header)', async () => {
  for (const [what, headers] of [
    ['too short', { 'idempotency-key': '"abc"' }],
    ['too long', { 'idempotency-key': `"${'x'.repeat(129)}"` }],
    ['a quote inside', { 'idempotency-key': '"0123456789"abcdef"' }],
    ['a space inside', { 'idempotency-key': '"0123456789 abcdef"' }],
  ]) {
    const r = await post(a.base, '/games', newGame, headers);
    const p = expectProblem(r, 400, 'invalid-header', what);
    assert.equal(p.header, 'Idempotency-Key', what);
  }
  // two header lines (fetch would join them: a raw request)
  const r = await rawPost(a.base, '/games', JSON.stringify(newGame),
    ['Idempotency-Key: "0123456789abcdef-a"', 'Idempotency-Key: "0123456789abcdef-b"']);
  assert.equal(r.status, 400, r.body);
  assert.match(r.body, /invalid-header/);
});

/** A POST with the given extra header lines, over a plain socket. */
async function rawPost(base, p, body, lines) {
  const { default: net } = await import('node:net');
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(u.port), u.hostname);
    let got = '';
    s.on('data', (d) => { got += d; });
    s.on('error', reject);
    s.on('end', () => resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(got)?.[1]), body: got }));
    s.write(`POST ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `${lines.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

test('POST /plays with a key: replayed once applied, scoped to the caller, kept only when it wrote', async () => {
  const g = await post(a.base, '/games', newGame);
  expectStatus(g, 201);
  const { id } = g.json;
  const token = g.json.seats[0].token;
  const legal = (await request(a.base, 'GET', `/games/${id}/legal`, { token })).json.plays;
  // an illegal play with a key writes nothing: its answer is not kept, and
  // the key then serves the next request
  const k = key();
  const bad = await post(a.base, `/games/${id}/plays`, { play: [0, 'ZZ', [0, 0]] }, { 'idempotency-key': k }, token);
  assert.ok(bad.status >= 400 && bad.status < 500, bad.text);
  const first = await post(a.base, `/games/${id}/plays`, { play: legal[0] }, { 'idempotency-key': k }, token);
  expectStatus(first, 200, 'the same key after an answer that wrote nothing');
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const n = (await plays(a.base, id)).filter((p) => p.seat === 0).length;
  const again = await post(a.base, `/games/${id}/plays`, { play: legal[0] }, { 'idempotency-key': k }, token);
  sameAnswer(first, again, 'POST /plays');
  assert.equal((await plays(a.base, id)).filter((p) => p.seat === 0).length, n, 'the replay played nothing');
  // the same key and body from another caller (the admin, a spectator) is
  // another key: it gets its own answer, not the seat's
  const spectator = await post(a.base, `/games/${id}/plays`, { play: legal[0] }, { 'idempotency-key': k });
  expectProblem(spectator, 401, 'unauthorized');
  const admin = await post(a.base, `/games/${id}/plays`, { play: legal[0] }, { 'idempotency-key': k }, env.CROUPIER_ADMIN_TOKEN);
  expectProblem(admin, 403, 'forbidden');
  // the same key on another game is another key too
  const g2 = await post(a.base, '/games', newGame);
  const t2 = g2.json.seats[0].token;
  const l2 = (await request(a.base, 'GET', `/games/${g2.json.id}/legal`, { token: t2 })).json.plays;
  const other = await post(a.base, `/games/${g2.json.id}/plays`, { play: l2[0] }, { 'idempotency-key': k }, t2);
  expectStatus(other, 200);
  assert.equal(other.headers.get('idempotent-replayed'), null);
});

test('duplicates at once: one play, the others its replay or 409 in flight (Retry-After)', async () => {
  const g = await post(a.base, '/games', newGame);
  const { id } = g.json;
  const token = g.json.seats[0].token;
  const legal = (await request(a.base, 'GET', `/games/${id}/legal`, { token })).json.plays;
  const before = (await plays(a.base, id)).length;
  const k = key();
  const all = await Promise.all(Array.from({ length: 8 }, () =>
    post(a.base, `/games/${id}/plays`, { play: legal[0] }, { 'idempotency-key': k }, token)));
  const applied = all.filter((r) => r.status === 200 && !r.headers.get('idempotent-replayed'));
  assert.equal(applied.length, 1, `one applied: ${all.map((r) => r.status).join(' ')}`);
  for (const r of all) {
    if (r.status === 200) {
      assert.equal(r.text, applied[0].text, 'a replay is the first answer');
    } else {
      expectProblem(r, 409, 'idempotency-key-in-flight');
      assert.match(r.headers.get('retry-after') ?? '', /^[0-9]+$/);
    }
  }
  const after = await plays(a.base, id);
  const mine = after.slice(before).filter((p) => p.seat === 0);
  assert.equal(mine.length, 1, 'the play is logged once');
  const late = await post(a.base, `/games/${id}/plays`, { play: legal[0] }, { 'idempotency-key': k }, token);
  sameAnswer(applied[0], late, 'after the race');
});

test('resign and import take keys too; another server on the store replays them', async () => {
  const g = await post(a.base, '/games', { game: 'hanabi', seed: 3, players: [{ name: 'A' }, { name: 'B' }, { bot: 'rules' }] });
  expectStatus(g, 201);
  const k = key();
  const token = g.json.seats[1].token;
  const first = await request(a.base, 'POST', `/games/${g.json.id}/resign`, { token, headers: { 'idempotency-key': k } });
  expectStatus(first, 200);
  const exp = await request(a.base, 'GET', `/games/${g.json.id}/export?format=json`, { token: env.CROUPIER_ADMIN_TOKEN });
  const ki = key();
  const imp = await post(a.base, '/games/import', exp.json, { 'idempotency-key': ki });
  expectStatus(imp, 201);
  const b = await startServer({ store, env });
  servers.push(b);
  sameAnswer(first, await request(b.base, 'POST', `/games/${g.json.id}/resign`, { token, headers: { 'idempotency-key': k } }), 'resign, on another server');
  sameAnswer(imp, await post(b.base, '/games/import', exp.json, { 'idempotency-key': ki }), 'import, on another server');
});

test('the database holds answers sealed: no seat token, no view in clear', { skip: !SQLITE && 'SQLite file only' }, async () => {
  const k = key();
  const r = await post(a.base, '/games', newGame, { 'idempotency-key': k });
  const token = r.json.seats[0].token;
  const rows = sql(`SELECT hex(answer) FROM idempotency WHERE state = 1`).split('\n');
  assert.ok(rows.length > 0);
  const tokenHex = Buffer.from(token).toString('hex').toUpperCase();
  const idHex = Buffer.from(r.json.id).toString('hex').toUpperCase();
  for (const h of rows) {
    assert.ok(!h.includes(tokenHex), 'no seat token in clear');
    assert.ok(!h.includes(idHex), 'no game id in clear');
  }
  assert.equal(sql(`SELECT count(*) FROM idempotency WHERE id LIKE '%${k.slice(1, 9)}%'`), '0', 'the key is not stored in clear');
});

test('an expired key is a new key, and expired rows are purged', { skip: !SQLITE && 'SQLite file only' }, async () => {
  const k = key();
  expectStatus(await post(a.base, '/games', newGame, { 'idempotency-key': k }), 201);
  sql('UPDATE idempotency SET expires_at = 1');
  // past its time the key is free: another request with it runs
  const r = await post(a.base, '/games', { ...newGame, seed: 13 }, { 'idempotency-key': k });
  expectStatus(r, 201);
  assert.equal(r.headers.get('idempotent-replayed'), null);
  // a server purges expired rows (at most once a minute, after a keyed
  // request): a fresh one does it at its first
  const c = await startServer({ store, env });
  servers.push(c);
  sql('UPDATE idempotency SET expires_at = 1');
  expectStatus(await post(c.base, '/games', newGame, { 'idempotency-key': key() }), 201);
  assert.equal(sql('SELECT count(*) FROM idempotency WHERE expires_at = 1'), '0');
});
