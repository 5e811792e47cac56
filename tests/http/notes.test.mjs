// Card notes (api/notes.c, docs/api.md "Card notes"): a seat's notes on
// cards, kept in the store beside the game. While the game runs a seat reads
// and writes its own only (on any device: the token is the seat); the other
// seats, spectators and the host read none, the admin all. Once the game is
// over everyone reads every seat's and nobody writes. A note never moves the
// game's version or its events. Every bad input is a problem naming what is
// wrong; a seat keeps at most 100 notes; writes count against a quota; a
// deleted game's notes go with it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { useServer, expectStatus, expectProblem, request } from './lib/server.mjs';

const srv = useServer();
const put = (id, card, body, token) => request(srv.base, 'PUT', `/games/${id}/notes/${card}`, { json: body, token });
const notes = async (id, token) => {
  const r = await srv.get(`/games/${id}/notes`, { token });
  expectStatus(r, 200, 'GET notes');
  return r.json;
};

async function hanabi(seed, players = [{ name: 'Ada' }, { name: 'Bob' }], extra = {}) {
  const r = await srv.post('/games', { game: 'hanabi', seed, players, ...extra });
  expectStatus(r, 201);
  return { id: r.json.id, tokens: r.json.seats.map((s) => s.token), host: r.json.host_token };
}

test('a seat\'s notes are its own while the game runs: the seat reads them on any device, nobody else but the admin', async () => {
  const g = await hanabi(301, [{ name: 'Ada' }, { name: 'Bob' }], { host: { name: 'Ada' } });
  const before = await srv.get(`/games/${g.id}`, { token: g.tokens[0] });
  const events = (await srv.get(`/games/${g.id}/events`)).json.length;
  let r = await put(g.id, 'd0.1', { text: 'chop' }, g.tokens[0]);
  expectStatus(r, 200);
  assert.deepEqual(r.json, { seat: 0, card: 'd0.1', text: 'chop' });
  expectStatus(await put(g.id, 't12', { text: '5 save — keep ✦' }, g.tokens[0]), 200);
  expectStatus(await put(g.id, 'd0.1', { text: 'R?' }, g.tokens[1]), 200, 'the other seat, the same key: a note of its own');
  // the seat, as a second device would ask (its token and nothing else)
  const mine = await notes(g.id, g.tokens[0]);
  assert.equal(mine.whose, 'seat');
  assert.deepEqual(mine.notes.map((n) => [n.seat, n.card, n.text]), [[0, 'd0.1', 'chop'], [0, 't12', '5 save — keep ✦']]);
  for (const n of mine.notes) assert.ok(Number.isInteger(n.at) && Math.abs(n.at - Date.now()) < 600_000, 'when it was written');
  const his = await notes(g.id, g.tokens[1]);
  assert.deepEqual(his.notes.map((n) => [n.seat, n.card, n.text]), [[1, 'd0.1', 'R?']], 'Bob reads his own only');
  for (const token of [undefined, g.host]) {
    const o = await notes(g.id, token);
    assert.deepEqual(o, { whose: 'none', notes: [] }, 'a spectator and the host read none');
  }
  const adm = await notes(g.id, srv.adminToken);
  assert.equal(adm.whose, 'all');
  assert.equal(adm.notes.length, 3);
  // an update, a delete: the seat's list says so
  expectStatus(await put(g.id, 'd0.1', { text: 'chop, moved' }, g.tokens[0]), 200);
  expectStatus(await srv.del(`/games/${g.id}/notes/t12`, { token: g.tokens[0] }), 204);
  expectStatus(await srv.del(`/games/${g.id}/notes/t12`, { token: g.tokens[0] }), 204, 'deleting a note that is gone: gone still');
  expectStatus(await put(g.id, 'd0.2', { text: '' }, g.tokens[0]), 204, '"" deletes too');
  assert.deepEqual((await notes(g.id, g.tokens[0])).notes.map((n) => [n.card, n.text]), [['d0.1', 'chop, moved']]);
  // the game itself did not move: same version, same ETag, no event
  const after = await srv.get(`/games/${g.id}`, { token: g.tokens[0] });
  assert.equal(after.json.version, before.json.version, 'a note is not a write of the game');
  assert.equal(after.headers.get('etag'), before.headers.get('etag'));
  assert.equal((await srv.get(`/games/${g.id}/events`)).json.length, events, 'nor an event');
  // a play with the If-Match read before the notes still goes through
  const v = after.json;
  const h = await srv.get(`/games/${g.id}/hint`, { token: g.tokens[v.state.current] });
  expectStatus(await srv.post(`/games/${g.id}/plays`, { play: h.json.play }, { token: g.tokens[v.state.current], headers: { 'if-match': before.headers.get('etag') } }), 200);
});

test('who may write: the seat\'s own token only; every bad input a problem naming it', async () => {
  const g = await hanabi(302);
  expectProblem(await put(g.id, 'd0.1', { text: 'x' }), 401, 'unauthorized');
  expectProblem(await put(g.id, 'd0.1', { text: 'x' }, 'not-a-token'), 401, 'unauthorized');
  expectProblem(await put(g.id, 'd0.1', { text: 'x' }, srv.adminToken), 403, 'forbidden');
  expectProblem(await srv.del(`/games/${g.id}/notes/d0.1`), 401, 'unauthorized');
  expectProblem(await put('no-such-game', 'd0.1', { text: 'x' }, g.tokens[0]), 404, 'not-found');
  expectProblem(await srv.get('/games/no-such-game/notes'), 404, 'not-found');
  const member = async (body, pointer) => {
    const p = expectProblem(await put(g.id, 'd0.1', body, g.tokens[0]), 400, 'invalid-member', JSON.stringify(body).slice(0, 60));
    assert.equal(p.errors[0].pointer, pointer);
  };
  await member({ text: 'x'.repeat(201) }, '/text');
  await member({ text: 'é'.repeat(201) }, '/text');
  await member({ text: 'a\nb' }, '/text');
  await member({ text: 7 }, '/text');
  await member({}, '/text');
  await member({ text: 'x', colour: 'red' }, '/colour');
  expectStatus(await put(g.id, 'd0.1', { text: 'é'.repeat(200) }, g.tokens[0]), 200, '200 characters, 400 bytes: a note');
  for (const key of ['a%20b', 'x'.repeat(25), '%C3%A9', 'a%3Fb']) {
    const p = expectProblem(await put(g.id, key, { text: 'x' }, g.tokens[0]), 400, 'invalid-parameter', key);
    assert.equal(p.parameter, 'card');
  }
  expectProblem(await request(srv.base, 'PUT', `/games/${g.id}/notes/d0.1`, { body: 'text=x', headers: { 'content-type': 'text/plain' }, token: g.tokens[0] }), 415, 'unsupported-media-type');
});

test('a seat keeps at most 100 notes: the 101st is refused, an update at the cap is not', async () => {
  const g = await hanabi(303);
  for (let i = 0; i < 100; i++) expectStatus(await put(g.id, `k${i}`, { text: `n${i}` }, g.tokens[0]), 200);
  const p = expectProblem(await put(g.id, 'k100', { text: 'one more' }, g.tokens[0]), 403, 'forbidden');
  assert.match(p.detail, /at most 100 notes/);
  expectStatus(await put(g.id, 'k7', { text: 'changed' }, g.tokens[0]), 200, 'an update at the cap');
  expectStatus(await put(g.id, 'k0', { text: 'x' }, g.tokens[1]), 200, 'the other seat has its own 100');
  expectStatus(await srv.del(`/games/${g.id}/notes/k3`, { token: g.tokens[0] }), 204);
  expectStatus(await put(g.id, 'k100', { text: 'now it fits' }, g.tokens[0]), 200);
  const mine = (await notes(g.id, g.tokens[0])).notes;
  assert.equal(mine.length, 100);
  assert.equal(mine.find((n) => n.card === 'k7').text, 'changed');
});

test('once the game is over every reader reads every seat\'s notes, and nobody writes', async () => {
  const g = await hanabi(304);
  expectStatus(await put(g.id, 'd0.0', { text: 'Ada: chop' }, g.tokens[0]), 200);
  expectStatus(await put(g.id, 'd1.4', { text: 'Bob: 5?' }, g.tokens[1]), 200);
  // play each seat's oldest card until the game ends (three errors or the deck)
  for (let i = 0; i < 120; i++) {
    const v = (await srv.get(`/games/${g.id}`, { token: srv.adminToken })).json;
    if (v.state.over) break;
    const seat = v.state.current;
    expectStatus(await srv.post(`/games/${g.id}/plays`, { play: { type: 'play', card: 0 } }, { token: g.tokens[seat] }), 200);
  }
  assert.equal((await srv.get(`/games/${g.id}`)).json.state.over, true, 'the game is over');
  for (const token of [undefined, g.tokens[0], g.tokens[1], srv.adminToken]) {
    const o = await notes(g.id, token);
    assert.equal(o.whose, 'all');
    assert.deepEqual(o.notes.map((n) => [n.seat, n.card, n.text]), [[0, 'd0.0', 'Ada: chop'], [1, 'd1.4', 'Bob: 5?']]);
  }
  expectProblem(await put(g.id, 'd0.0', { text: 'later' }, g.tokens[0]), 409, 'game-over');
  expectProblem(await srv.del(`/games/${g.id}/notes/d0.0`, { token: g.tokens[0] }), 409, 'game-over');
});

test('a deleted game\'s notes go with it', async () => {
  const g = await hanabi(305);
  expectStatus(await put(g.id, 'd0.0', { text: 'gone soon' }, g.tokens[0]), 200);
  expectStatus(await srv.del(`/games/${g.id}`, { token: srv.adminToken }), 204);
  expectProblem(await srv.get(`/games/${g.id}/notes`, { token: g.tokens[0] }), 404, 'not-found');
  const m = /^sqlite:(.+)$/.exec(srv.storeUrl || '');
  if (m) {
    // the row itself, read from the server's own file
    const rows = execFileSync('python3', ['-c', 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("select count(*) from card_notes where game_id=?", (sys.argv[2],)).fetchone()[0])', m[1], g.id], { encoding: 'utf8' });
    assert.equal(rows.trim(), '0', 'no row left in card_notes');
  }
});

test('note writes count against their quota: past it 429 with Retry-After, and a read is never refused', async () => {
  // a server of its own, with an allowance of 5 note writes a minute
  const { startServer } = await import('./lib/server.mjs');
  const own = await startServer({ extraArgs: ['--quota-notes', '5', '--quota-notes-total', '1000'] });
  try {
    const g = await request(own.base, 'POST', '/games', { json: { game: 'hanabi', seed: 306, players: [{ name: 'Ada' }, { name: 'Bob' }] } });
    expectStatus(g, 201);
    const token = g.json.seats[0].token;
    for (let i = 0; i < 5; i++) expectStatus(await request(own.base, 'PUT', `/games/${g.json.id}/notes/k${i}`, { json: { text: 'x' }, token }), 200);
    const p = expectProblem(await request(own.base, 'PUT', `/games/${g.json.id}/notes/k5`, { json: { text: 'x' }, token }), 429, 'too-many-requests');
    assert.equal(p.quota, 'notes');
    assert.equal(p.bucket, 'client');
    const del = await request(own.base, 'DELETE', `/games/${g.json.id}/notes/k0`, { token });
    expectProblem(del, 429, 'too-many-requests', 'a delete is a write too');
    assert.match(del.headers.get('retry-after'), /^[1-9][0-9]*$/);
    const r = await request(own.base, 'GET', `/games/${g.json.id}/notes`, { token });
    expectStatus(r, 200, 'reading is not a write');
    assert.equal(r.json.notes.length, 5);
    expectStatus(await request(own.base, 'GET', `/games/${g.json.id}`, { token }), 200);
  } finally {
    const { code } = await own.stop();
    assert.equal(code, 0);
  }
});
