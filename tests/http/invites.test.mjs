// Invites are claimed once (api/h_seats.c): POST /games gives every person's
// seat an invite and the game a host token; POST /games/{id}/seats/{n}/claim
// with the invite in the body exchanges it for a new seat token (the seat's
// earlier token, and every stream opened with it, stops working); the
// invite is then spent: opening it again is 409 seat-taken, naming the seat
// and who invited. Two claims at once: one wins. The host (or the admin)
// issues a new link for a seat nobody claimed, one whose person resigned,
// and (asked to replace) one held by someone gone; nobody else may.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import WebSocket from 'ws';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';
import { assertEvery } from './lib/expect.mjs';

const srv = useServer();
const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';

async function newGame(players = [{ name: 'Ada' }, { name: 'Bob' }, { bot: 'random' }, { bot: 'random' }], extra = {}) {
  const r = await srv.post('/games', { game: 'comp10001bo', seed: 21, players, host: { name: 'Ada' }, ...extra });
  expectStatus(r, 201);
  return r.json;
}
const claim = (g, n, invite, opts = {}) => srv.post(`/games/${g.id}/seats/${n}/claim`, { invite }, opts);
const issue = (g, n, token, body = {}) => srv.post(`/games/${g.id}/seats/${n}/invite`, body, { token });

test('creation: an invite per person, a host token; no hash or invite in any view', async () => {
  const g = await newGame();
  for (const s of g.seats) {
    if (s.bot) { assert.equal(s.invite, undefined); continue; }
    assert.match(s.invite, /^[A-Za-z0-9_-]{20,}$/);
    assert.notEqual(s.invite, s.token);
  }
  assert.match(g.host_token, /^[A-Za-z0-9_-]{20,}$/);
  for (const opts of [{}, { token: g.seats[0].token }, { token: srv.adminToken }, { token: g.host_token }]) {
    const v = await srv.get(`/games/${g.id}`, opts);
    expectStatus(v, 200);
    assert.doesNotMatch(v.text, /sha256|"invite"|host_token/, 'no hash, no invite in a view');
    assertEvery(v.json.seats.filter((s) => !s.bot), (s) => s.invite_open === true, 'only that an invite is open');
    for (const s of g.seats) if (s.invite) assert.ok(!v.text.includes(s.invite));
  }
  // the host token reads as a spectator
  assert.equal((await srv.get(`/games/${g.id}`, { token: g.host_token })).json.you, null);
  const ex = await srv.get(`/games/${g.id}/export`, { token: srv.adminToken });
  assert.doesNotMatch(ex.text, /sha256/, 'nor in the export');
  expectProblem(await srv.post('/games', { game: 'comp10001bo', players: [{ name: 'A' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }], host: { nom: 'x' } }), 400, 'invalid-member');
  const p = expectProblem(await srv.post('/games', { game: 'comp10001bo', players: [{ name: 'A' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }], host: { name: '' } }), 400, 'invalid-member');
  assert.equal(p.errors[0].pointer, '/host/name');
});

test('a claim gives a new token, once; the old token stops working; a second opener is told the seat is taken and by whom', async () => {
  const g = await newGame();
  const bob = g.seats[1];
  const r = await claim(g, 1, bob.invite, { token: 'not-a-token-at-all' }); // a token sent along plays no part
  expectStatus(r, 200);
  assert.equal(r.json.seat, 1);
  assert.equal(r.json.name, 'Bob');
  assert.notEqual(r.json.token, bob.token, 'a token of its own');
  expectProblem(await srv.get(`/games/${g.id}`, { token: bob.token }), 401, 'unauthorized');
  const mine = await srv.get(`/games/${g.id}`, { token: r.json.token });
  expectStatus(mine, 200);
  assert.equal(mine.json.you, 1);
  assert.equal(mine.json.seats[1].claimed, true, 'everybody sees the seat was claimed');
  assert.equal(mine.json.version, r.json.version);
  // the same link again: taken, and who invited
  const again = expectProblem(await claim(g, 1, bob.invite), 409, 'seat-taken');
  assert.equal(again.seat, 1);
  assert.equal(again.name, 'Bob');
  assert.equal(again.invited_by, 'Ada');
  assert.match(again.detail, /Bob's seat is taken.*ask Ada, who invited you, for a new link/);
  // Ada's own seat was untouched
  expectStatus(await srv.get(`/games/${g.id}`, { token: g.seats[0].token }), 200);
  // not an invite of that seat; no such seat; bad bodies
  expectProblem(await claim(g, 0, bob.invite), 403, 'forbidden');
  expectProblem(await claim(g, 2, bob.invite), 403, 'forbidden');
  expectProblem(await claim(g, 9, bob.invite), 404, 'not-found');
  expectProblem(await srv.post(`/games/${g.id}/seats/x/claim`, { invite: bob.invite }), 404, 'not-found');
  expectProblem(await srv.post('/games/nope/seats/1/claim', { invite: bob.invite }), 404, 'not-found');
  for (const [body, pointer] of [[{}, '/invite'], [{ invite: 7 }, '/invite'], [{ invite: 'short' }, '/invite'], [{ invite: bob.invite, x: 1 }, '/x']]) {
    const p = expectProblem(await srv.post(`/games/${g.id}/seats/0/claim`, body), 400, 'invalid-member');
    assert.equal(p.errors[0].pointer, pointer);
  }
  // a claimant who is not told who invited: the API's own games may name no host
  const anon = await srv.post('/games', { game: 'comp10001bo', players: [{ name: 'A' }, { name: 'B' }, { bot: 'random' }, { bot: 'random' }] });
  expectStatus(await claim(anon.json, 1, anon.json.seats[1].invite), 200);
  const p = expectProblem(await claim(anon.json, 1, anon.json.seats[1].invite), 409, 'seat-taken');
  assert.equal(p.invited_by, null);
  assert.match(p.detail, /ask whoever invited you/);
});

test('two claims of one invite at once: exactly one wins, the other is told the seat is taken', async () => {
  for (let round = 0; round < 5; round++) {
    const g = await newGame();
    const rs = await Promise.all([0, 1, 2].map(() => claim(g, 1, g.seats[1].invite)));
    const ok = rs.filter((r) => r.status === 200);
    assert.equal(ok.length, 1, `one winner (${rs.map((r) => r.status)})`);
    for (const r of rs.filter((x) => x.status !== 200)) expectProblem(r, 409, 'seat-taken');
    assert.equal((await srv.get(`/games/${g.id}`, { token: ok[0].json.token })).json.you, 1, 'the winner holds the seat');
  }
});

test('the host issues new links: an unclaimed seat (the old link replaced), a held one only when asked to replace', async () => {
  const g = await newGame();
  // only the host or the admin
  expectProblem(await issue(g, 1, undefined), 401, 'unauthorized');
  expectProblem(await issue(g, 1, g.seats[0].token), 403, 'forbidden');
  expectProblem(await issue(g, 2, g.host_token), 403, 'forbidden', 'a bot seat');
  expectProblem(await issue(g, 7, g.host_token), 404, 'not-found');
  const p = expectProblem(await issue(g, 1, g.host_token, { replace: 'yes' }), 400, 'invalid-member');
  assert.equal(p.errors[0].pointer, '/replace');
  // unclaimed: a new link; the old one is refused as replaced
  const n1 = await issue(g, 1, g.host_token);
  expectStatus(n1, 200);
  assert.notEqual(n1.json.invite, g.seats[1].invite);
  const old = expectProblem(await claim(g, 1, g.seats[1].invite), 403, 'forbidden');
  assert.match(old.detail, /replaced by a newer one; ask Ada/);
  const bob = await claim(g, 1, n1.json.invite);
  expectStatus(bob, 200);
  // held: refused unless asked to replace; then the next claim cuts the holder off
  const held = expectProblem(await issue(g, 1, g.host_token), 409, 'seat-taken');
  assert.match(held.detail, /Bob holds this seat/);
  const n2 = await issue(g, 1, srv.adminToken, { replace: true });
  expectStatus(n2, 200);
  expectStatus(await srv.get(`/games/${g.id}`, { token: bob.json.token }), 200, 'the holder plays on until the new link is claimed');
  const carol = await claim(g, 1, n2.json.invite);
  expectStatus(carol, 200);
  expectProblem(await srv.get(`/games/${g.id}`, { token: bob.json.token }), 401, 'unauthorized');
  assert.equal((await srv.get(`/games/${g.id}`, { token: carol.json.token })).json.you, 1);
  // spent and replaced invites leave no trace either: no hash in any view or export
  for (const opts of [{}, { token: carol.json.token }, { token: srv.adminToken }, { token: g.host_token }]) {
    const v = await srv.get(`/games/${g.id}`, opts);
    expectStatus(v, 200);
    assert.doesNotMatch(v.text, /sha256/, 'no hash of a spent or replaced invite in a view');
    assert.deepEqual(Object.keys(v.json.seats[1]).sort(), ['claimed', 'name', 'seat']);
  }
  assert.doesNotMatch((await srv.get(`/games/${g.id}/export`, { token: srv.adminToken })).text, /sha256/, 'nor in the export');
});

test('a seat whose person resigned: the host invites someone, who claims it back from the bot', async () => {
  const g = await newGame();
  const bob = (await claim(g, 1, g.seats[1].invite)).json;
  expectStatus(await srv.post(`/games/${g.id}/resign`, undefined, { token: bob.token }), 200);
  let seat = (await srv.get(`/games/${g.id}`)).json.seats[1];
  assert.equal(seat.resigned, true);
  const n = await issue(g, 1, g.host_token);
  expectStatus(n, 200);
  const dan = await claim(g, 1, n.json.invite);
  expectStatus(dan, 200);
  const v = await srv.get(`/games/${g.id}`, { token: dan.json.token });
  seat = v.json.seats[1];
  assert.equal(seat.bot, undefined, 'a person plays the seat again');
  assert.equal(seat.resigned, undefined);
  assert.equal(v.json.you, 1);
  expectProblem(await srv.get(`/games/${g.id}`, { token: bob.token }), 401, 'unauthorized');
});

test('no new link once the game is over', async () => {
  const g = await newGame([{ name: 'Ada' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }]);
  expectStatus(await srv.post(`/games/${g.id}/resign`, undefined, { token: g.seats[0].token }), 200);
  const v = (await srv.get(`/games/${g.id}`)).json;
  assert.equal(v.state.over, true, 'bots played it out');
  expectProblem(await issue(g, 0, g.host_token), 409, 'game-over');
});

function sseUntilError(path, token, ms = 5000) {
  return new Promise((resolve, reject) => {
    let text = '';
    const req = http.get(srv.base + path, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; if (/event: error/.test(text)) { req.destroy(); resolve(text); } });
      res.on('end', () => resolve(text));
    });
    req.on('error', (e) => (e.code === 'ECONNRESET' ? resolve(text) : reject(e)));
    setTimeout(() => { req.destroy(); resolve(text); }, ms);
  });
}

test('the event stream of the old token ends when the seat is claimed (SSE: error 401)', async () => {
  const g = await newGame();
  const stream = sseUntilError(`/games/${g.id}/events`, g.seats[1].token);
  await new Promise((r) => setTimeout(r, 300)); // the stream is open
  expectStatus(await claim(g, 1, g.seats[1].invite), 200);
  const text = await stream;
  assert.match(text, /event: error\ndata: \{"status":401\}/, text.slice(-300));
});

test('a WebSocket opened with the old token is closed (1008) when the seat is claimed', { skip: viaFcgi && 'FastCGI has no WebSocket' }, async () => {
  const r = await srv.post('/games', { game: 'hanabi', seed: 5, players: [{ name: 'Ada' }, { name: 'Bob' }], host: { name: 'Ada' } });
  expectStatus(r, 201);
  const g = r.json;
  const ws = new WebSocket(`${srv.base.replace('http', 'ws')}/games/${g.id}/ws`, { headers: { authorization: `Bearer ${g.seats[1].token}` } });
  const closed = new Promise((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => { ws.on('message', resolve); ws.on('error', reject); }); // it is live
  expectStatus(await claim(g, 1, g.seats[1].invite), 200);
  const code = await Promise.race([closed, new Promise((r) => setTimeout(() => r('still open'), 5000))]);
  assert.equal(code, 1008);
});

test('a claim tells the other seats\' event streams: a version frame, no id (their pages fetch the game again)', async () => {
  const g = await newGame();
  const frames = new Promise((resolve, reject) => {
    let text = '';
    const req = http.get(`${srv.base}/games/${g.id}/events`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${g.seats[0].token}` } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; if (/event: version/.test(text)) { req.destroy(); resolve(text); } });
    });
    req.on('error', (e) => (e.code === 'ECONNRESET' ? resolve(text) : reject(e)));
    setTimeout(() => { req.destroy(); resolve(text); }, 5000);
  });
  await new Promise((r) => setTimeout(r, 300));
  const c = await claim(g, 1, g.seats[1].invite);
  expectStatus(c, 200);
  const text = await frames;
  assert.match(text, new RegExp(`(^|\\n)event: version\\ndata: \\{"version":${c.json.version}\\}\\n\\n`), text.slice(-300));
  assert.doesNotMatch(text.slice(text.indexOf('event: version') - 30), /id: \d+\nevent: version/, 'no id: Last-Event-ID is untouched');
});
