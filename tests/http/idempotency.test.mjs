// Idempotency-Key (the IETF httpapi draft's header) on POST /games,
// /games/{id}/plays, /games/{id}/resign and /games/import: the same
// request sent again with the same key gets the first answer (same status,
// body, ETag or Location), marked `Idempotent-Replayed: true`, and writes
// nothing; the same JSON written otherwise (spacing, member order) is the
// same request; the same key with another request is a 422; a duplicate
// while the first is in flight a 409 with Retry-After; keys are scoped by
// the caller's token and the path; an answer that wrote nothing is not
// kept; answers survive the process (another server on the store replays
// them), byte for byte even after the game moved on (they are stored
// without what the game gives back: a fraction of their size), are sealed
// in the database, expire (after --idempotency-keep) and are purged. Runs
// on SQLite, and on PostgreSQL when CROUPIER_TEST_STORE names one (the
// checks of the raw database are SQLite's).
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
  const rows = sql(`SELECT hex(answer) FROM idempotency_answers`).split('\n');
  assert.ok(rows.length > 0);
  const tokenHex = Buffer.from(token).toString('hex').toUpperCase();
  const idHex = Buffer.from(r.json.id).toString('hex').toUpperCase();
  for (const h of rows) {
    assert.ok(!h.includes(tokenHex), 'no seat token in clear');
    assert.ok(!h.includes(idHex), 'no game id in clear');
  }
  const keyHex = Buffer.from(k.slice(1, 9)).toString('hex').toUpperCase();
  for (const t of ['idempotency_answers', 'idempotency_claims']) {
    assert.equal(sql(`SELECT count(*) FROM ${t} WHERE instr(hex(id), '${keyHex}') > 0`), '0', `the key is not stored in clear (${t})`);
  }
});

test('an expired key is a new key, and expired rows are purged', { skip: !SQLITE && 'SQLite file only' }, async () => {
  const k = key();
  expectStatus(await post(a.base, '/games', newGame, { 'idempotency-key': k }), 201);
  sql('UPDATE idempotency_answers SET expires_at = 1');
  // past its time the key is free: another request with it runs
  const r = await post(a.base, '/games', { ...newGame, seed: 13 }, { 'idempotency-key': k });
  expectStatus(r, 201);
  assert.equal(r.headers.get('idempotent-replayed'), null);
  // a server purges expired rows (at most once a minute, after a keyed
  // request, in a thread of its own): a fresh one does it after its first
  const c = await startServer({ store, env });
  servers.push(c);
  sql('UPDATE idempotency_answers SET expires_at = 1');
  sql(`INSERT INTO idempotency_claims VALUES (x'00112233445566778899aabbccddeeff', x'00', 'gone', 1)`);
  expectStatus(await post(c.base, '/games', newGame, { 'idempotency-key': key() }), 201);
  const left = () => sql('SELECT (SELECT count(*) FROM idempotency_answers WHERE expires_at = 1) +' +
    ' (SELECT count(*) FROM idempotency_claims WHERE expires_at = 1)');
  for (let i = 0; i < 50 && left() !== '0'; i++) await new Promise((res) => setTimeout(res, 100));
  assert.equal(left(), '0', 'expired answers and claims purged');
});

test('the same JSON written otherwise (spacing, member order, escapes) is the same request', async () => {
  const k = key();
  const body = JSON.stringify(newGame);
  const first = await request(a.base, 'POST', '/games', { body, contentType: 'application/json', headers: { 'idempotency-key': k } });
  expectStatus(first, 201);
  const { players: ps, ...rest } = newGame;
  const respelled = `{\n  "players" : ${JSON.stringify(ps, null, 1)},\t${JSON.stringify(rest, null, 3).slice(1, -1).replace('comp', '\\u0063omp')}\n}`;
  assert.notEqual(respelled, body);
  assert.deepEqual(JSON.parse(respelled), newGame);
  const again = await request(a.base, 'POST', '/games', { body: respelled, contentType: 'application/json', headers: { 'idempotency-key': k } });
  sameAnswer(first, again, 'POST /games, the JSON spelled otherwise');
  // a play too; another value under the key is still another request
  const token = first.json.seats[0].token;
  const legal = (await request(a.base, 'GET', `/games/${first.json.id}/legal`, { token })).json.plays;
  const kp = key();
  const p = `/games/${first.json.id}/plays`;
  const one = await request(a.base, 'POST', p, { token, body: JSON.stringify({ play: legal[0] }), contentType: 'application/json', headers: { 'idempotency-key': kp } });
  expectStatus(one, 200);
  const two = await request(a.base, 'POST', p, { token, body: `  ${JSON.stringify({ play: legal[0] }, null, 4)}  `, contentType: 'application/json', headers: { 'idempotency-key': kp } });
  sameAnswer(one, two, 'POST /plays, the JSON spelled otherwise');
  expectProblem(await post(a.base, '/games', { ...newGame, seed: 99 }, { 'idempotency-key': k }), 422, 'idempotency-key-reused');
  expectProblem(await request(a.base, 'POST', '/games', { body: JSON.stringify({ ...newGame, seed: 11.0 }).replace('"seed":11', '"seed":11.0'),
    contentType: 'application/json', headers: { 'idempotency-key': k } }), 422, 'idempotency-key-reused', 'a number written as a real is another value');
});

// The person's seat of one game of each kind, played by keyed plays (the
// first legal play each time), then every key sent again once the game has
// moved on: each answer comes back byte for byte, rebuilt from the game at
// its version (the state, the log), and is stored in a fraction of its size.
const TABLES = [
  { game: 'comp10001bo', seed: 21, players: [{ name: 'P' }, { bot: 'planner' }, { bot: 'random' }, { bot: 'standard' }] },
  { game: 'hanabi', seed: 22, players: [{ name: 'P' }, { bot: 'rules' }, { bot: 'rules' }] },
  { game: 'phazed', seed: 23, players: [{ name: 'P' }, { bot: 'planner' }, { bot: 'random' }] },
  { game: 'fivecrowns', seed: 24, players: [{ name: 'P' }, { name: 'Q' }, { bot: 'strategy' }], options: undefined },
];

test('answers come back byte for byte after the game moved on, every game; stored in a fraction of their size', { timeout: 120_000 }, async () => {
  const sent = [];
  const before = SQLITE ? Number(sql('SELECT coalesce(sum(length(answer)), 0) FROM idempotency_answers')) : 0;
  for (const t of TABLES) {
    const body = Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined));
    const kc = key();
    const g = await post(a.base, '/games', body, { 'idempotency-key': kc });
    expectStatus(g, 201, t.game);
    sent.push({ what: `${t.game}: create`, p: '/games', json: body, k: kc, first: g });
    const { id } = g.json;
    const tokens = g.json.seats.map((s) => s.token);
    for (let i = 0; i < 8; i++) {
      const v = await request(a.base, 'GET', `/games/${id}`, { token: env.CROUPIER_ADMIN_TOKEN });
      if (v.json.status.over) break;
      const token = tokens[v.json.status.current];
      const legal = (await request(a.base, 'GET', `/games/${id}/legal`, { token })).json.plays;
      const k = key();
      const json = { play: legal[i % legal.length] };
      const r = await post(a.base, `/games/${id}/plays`, json, { 'idempotency-key': k }, token);
      expectStatus(r, 200, `${t.game}: play ${i}`);
      sent.push({ what: `${t.game}: play ${i}`, p: `/games/${id}/plays`, json, k, token, first: r });
    }
    if (tokens.filter(Boolean).length > 1) {
      const k = key();
      const token = tokens.filter(Boolean).at(-1);
      const r = await request(a.base, 'POST', `/games/${id}/resign`, { token, headers: { 'idempotency-key': k } });
      expectStatus(r, 200, `${t.game}: resign`);
      sent.push({ what: `${t.game}: resign`, p: `/games/${id}/resign`, k, token, first: r });
      // the game moves on past the resignation: the rest of it is the bots'
      // and the person's (a few more plays)
      for (let i = 0; i < 3; i++) {
        const v = await request(a.base, 'GET', `/games/${id}`, { token: env.CROUPIER_ADMIN_TOKEN });
        if (v.json.status.over || !tokens[v.json.status.current]) break;
        const tk = tokens[v.json.status.current];
        const legal = (await request(a.base, 'GET', `/games/${id}/legal`, { token: tk })).json.plays;
        expectStatus(await post(a.base, `/games/${id}/plays`, { play: legal[0] }, {}, tk), 200);
      }
    }
  }
  // a game of bots only, played to its end by the POST itself
  const kb = key();
  const bots = { game: 'phazed', seed: 25, players: [{ bot: 'planner' }, { bot: 'random' }, { bot: 'planner' }] };
  const b = await post(a.base, '/games', bots, { 'idempotency-key': kb });
  expectStatus(b, 201);
  sent.push({ what: 'phazed, bots only, to the end', p: '/games', json: bots, k: kb, first: b });
  // again, on another server of the store (nothing of the first in memory)
  const other = await startServer({ store, env });
  servers.push(other);
  for (const s of sent) {
    const again = s.json !== undefined ? await post(other.base, s.p, s.json, { 'idempotency-key': s.k }, s.token)
      : await request(other.base, 'POST', s.p, { token: s.token, headers: { 'idempotency-key': s.k } });
    sameAnswer(s.first, again, s.what);
  }
  if (SQLITE) {
    const stored = Number(sql('SELECT sum(length(answer)) FROM idempotency_answers')) - before;
    const answered = sent.reduce((n, s) => n + Buffer.byteLength(s.first.text), 0);
    assert.ok(stored * 10 < answered, `the answers are stored in a tenth of their size or less: ${stored} bytes for ${answered}`);
  }
});

test('--idempotency-keep: answers are kept that long', { skip: !SQLITE && 'SQLite file only' }, async () => {
  const c = await startServer({ store, env, extraArgs: ['--idempotency-keep', '120'] });
  servers.push(c);
  const k = key();
  expectStatus(await post(c.base, '/games', { ...newGame, seed: 31 }, { 'idempotency-key': k }), 201);
  const left = Number(sql("SELECT expires_at - CAST(strftime('%s', 'now') AS INTEGER) FROM idempotency_answers ORDER BY rowid DESC LIMIT 1"));
  assert.ok(left >= 100 && left <= 121, `kept 120 s: ${left} s left`);
});
