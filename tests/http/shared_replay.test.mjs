// Shared replays (api/replays.h): a leader steps through a
// finished game and every follower's stream gets each move once, in order;
// only the leader moves it; a follower asks to lead and is handed over to;
// the bounds (per address, in all, idle expiry) answer 429/503 with
// Retry-After; a running game cannot be shared.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { useServer, expectStatus, expectProblem, createGame } from './lib/server.mjs';
import { follow as followSse } from './lib/sse.mjs';

const srv = useServer();
// Small bounds: 2 from one address, 3 in all, closed after 2 s idle.
const tight = useServer({ extraArgs: ['--max-replays-per-client', '2', '--max-replays', '3', '--replay-idle', '2'] });

/** A follower of the replay `rid`'s stream on server s: frames as {id, event, data}. */
const follow = (s, rid, headers) => followSse(`${s.base}/replays/${rid}/events`, headers);

const put = (s, rid, json, token) => s.request('PUT', `/replays/${rid}`, { json, token });

/** A finished comp10001bo game (four bots play it to its end at once). */
async function finished(s, seed = 3) {
  const g = await createGame(s, { players: ['bot', 'bot', 'bot', 'bot'], seed });
  const v = await s.getOk(`/games/${g.id}`);
  assert.equal(v.status.over, true, 'a bot-only game is over');
  return g;
}

test('the leader moves; two followers get each move once, in order; a non-leader cannot move it', async () => {
  const g = await finished(srv);
  const made = await srv.post(`/games/${g.id}/replays`, { name: 'Ann' });
  expectStatus(made, 201);
  const rp = made.json;
  assert.equal(made.headers.get('location'), `/replays/${rp.id}`);
  assert.equal(rp.game, g.id);
  assert.equal(rp.ply, -1);
  assert.equal(rp.leader, 'Ann');
  assert.ok(rp.last >= 10, `the game has plays (last ${rp.last})`);
  assert.ok(!made.headers.get('location').includes(rp.token), 'the token is in the body only');
  const pub = await srv.getOk(`/replays/${rp.id}`);
  assert.equal(pub.token, undefined, 'GET shows no token');
  assert.equal(pub.followers, 0);

  const a = follow(srv, rp.id);
  const b = follow(srv, rp.id);
  await Promise.all([a.ready, b.ready]);
  await a.until((f) => f.length >= 1);
  await b.until((f) => f.length >= 1);
  for (const s of [a, b]) {
    assert.equal(s.frames[0].event, 'state');
    assert.equal(s.frames[0].data.ply, -1);
  }
  // both counted as followers
  for (let i = 0; i < 50 && (await srv.getOk(`/replays/${rp.id}`)).followers < 2; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal((await srv.getOk(`/replays/${rp.id}`)).followers, 2);

  const plies = [0, 1, 2, 5, 4, 9];
  for (const ply of plies) {
    const r = await put(srv, rp.id, { ply }, rp.token);
    expectStatus(r, 200);
    assert.equal(r.json.ply, ply);
  }
  // the same ply again: no event
  expectStatus(await put(srv, rp.id, { ply: 9 }, rp.token), 200);
  for (const s of [a, b]) {
    await s.until((f) => f.filter((x) => x.event === 'move').length >= plies.length);
    await new Promise((r) => setTimeout(r, 300)); // nothing more comes
    const moves = s.frames.filter((x) => x.event === 'move');
    assert.deepEqual(moves.map((m) => m.data.ply), plies, 'each move once, in order');
    assert.deepEqual(moves.map((m) => m.id), plies.map((_, i) => i + 1), 'numbered 1.. as seq');
    assert.ok(moves.every((m) => m.data.leader === 'Ann' && m.data.seq === m.id));
  }
  a.close();
  b.close();

  // not the leader: no token 401, another token 403, nothing moves
  expectProblem(await put(srv, rp.id, { ply: 3 }), 401, 'unauthorized');
  const other = await srv.post(`/replays/${rp.id}/candidates`, { name: 'Bob' });
  expectStatus(other, 201);
  expectProblem(await put(srv, rp.id, { ply: 3 }, other.json.token), 403, 'forbidden');
  expectProblem(await put(srv, rp.id, { ply: 3 }, 'x'.repeat(32)), 403, 'forbidden');
  assert.equal((await srv.getOk(`/replays/${rp.id}`)).ply, 9);

  // a follower coming back with Last-Event-ID gets only what it missed
  expectStatus(await put(srv, rp.id, { ply: 10 }, rp.token), 200);
  const c = follow(srv, rp.id, { 'last-event-id': String(plies.length) });
  await c.ready;
  await c.until((f) => f.some((x) => x.event === 'move'));
  assert.deepEqual(c.frames.map((x) => [x.event, x.id]), [['candidate', plies.length + 1], ['move', plies.length + 2]]);
  c.close();
  // the JSON list: the kept events after `after`
  const list = await srv.getOk(`/replays/${rp.id}/events?after=${plies.length}`);
  assert.deepEqual(list.map((x) => x.event), ['candidate', 'move']);
});

test('hostile bodies are refused naming the member; an unknown replay is a 404', async () => {
  const g = await finished(srv, 4);
  const rp = (await srv.post(`/games/${g.id}/replays`, {})).json;
  assert.equal(rp.leader, 'The leader');
  const bad = async (r, pointer) => {
    const p = expectProblem(r, 400, 'invalid-member');
    assert.equal(p.errors[0].pointer, pointer, r.text);
  };
  await bad(await put(srv, rp.id, { ply: rp.last + 1 }, rp.token), '/ply');
  await bad(await put(srv, rp.id, { ply: -2 }, rp.token), '/ply');
  await bad(await put(srv, rp.id, { ply: 'x' }, rp.token), '/ply');
  await bad(await put(srv, rp.id, { ply: 1, extra: 1 }, rp.token), '/extra');
  await bad(await put(srv, rp.id, {}, rp.token), '/ply');
  await bad(await srv.post(`/games/${g.id}/replays`, { name: '' }), '/name');
  await bad(await srv.post(`/games/${g.id}/replays`, { name: 'a\u0001b' }), '/name');
  await bad(await srv.post(`/games/${g.id}/replays`, { name: 'x'.repeat(65) }), '/name');
  await bad(await srv.post(`/games/${g.id}/replays`, { ply: 100000 }), '/ply');
  await bad(await srv.post(`/replays/${rp.id}/leader`, { candidate: 'nobody' }, { token: rp.token }), '/candidate');
  expectProblem(await srv.request('PUT', `/replays/${rp.id}`, { body: '{"ply":1}', contentType: 'text/plain', token: rp.token }), 415, 'unsupported-media-type');
  expectProblem(await srv.get('/replays/nosuchreplay'), 404, 'not-found');
  expectProblem(await put(srv, 'nosuchreplay', { ply: 1 }, rp.token), 404, 'not-found');
  expectProblem(await srv.get('/replays/nosuchreplay/events'), 404, 'not-found');
  expectProblem(await srv.post('/games/nosuchgame/replays', {}), 404, 'not-found');
  expectStatus(await srv.del(`/replays/${rp.id}`, { token: rp.token }), 204);
  expectProblem(await srv.get(`/replays/${rp.id}`), 404, 'not-found');
});

test('a running game cannot be shared: it would show hidden cards', async () => {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed: 5 });
  const token = g.seats[0].token;
  const p = expectProblem(await srv.post(`/games/${g.id}/replays`, {}, { token }), 403, 'forbidden');
  assert.match(p.detail, /finished game/);
  expectProblem(await srv.post(`/games/${g.id}/replays`, {}), 403, 'forbidden');
});

test('the leader hands over to a follower who asked; the old token leads no more', async () => {
  const g = await finished(srv, 6);
  const rp = (await srv.post(`/games/${g.id}/replays`, { name: 'Ann' })).json;
  const f = follow(srv, rp.id);
  await f.ready;
  // the stream's first frame is the state as it is when the stream's loop
  // first looks (after its headers): a candidate asked before that is in
  // the state, not a frame of its own
  await f.until((fr) => fr.some((x) => x.event === 'state'));
  const ask = await srv.post(`/replays/${rp.id}/candidates`, { name: 'Bob' });
  expectStatus(ask, 201);
  assert.equal((await srv.getOk(`/replays/${rp.id}`)).candidates[0].name, 'Bob');
  expectProblem(await srv.post(`/replays/${rp.id}/leader`, { candidate: ask.json.candidate }, { token: ask.json.token }), 403, 'forbidden');
  const over = await srv.post(`/replays/${rp.id}/leader`, { candidate: ask.json.candidate }, { token: rp.token });
  expectStatus(over, 200);
  assert.equal(over.json.leader, 'Bob');
  assert.deepEqual(over.json.candidates, []);
  expectProblem(await put(srv, rp.id, { ply: 2 }, rp.token), 403, 'forbidden');
  expectStatus(await put(srv, rp.id, { ply: 2 }, ask.json.token), 200);
  await f.until((fr) => fr.some((x) => x.event === 'move'));
  assert.deepEqual(f.frames.map((x) => x.event), ['state', 'candidate', 'leader', 'move']);
  assert.equal(f.frames[2].data.leader, 'Bob');
  assert.equal(f.frames[2].data.candidate, ask.json.candidate);
  assert.equal(f.frames[3].data.leader, 'Bob');
  f.close();
});

/** POST from another loopback address (127.0.0.2), without the contract check. */
function postFrom(base, p, json, localAddress) {
  const u = new URL(base + p);
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(json);
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('bounds: 429 past the address\'s, 503 past the server\'s, each with Retry-After; idle ones expire', async () => {
  const g = await finished(tight, 7);
  const made = [];
  for (let i = 0; i < 2; i++) {
    const r = await tight.post(`/games/${g.id}/replays`, {});
    expectStatus(r, 201);
    made.push(r.json);
  }
  const p = expectProblem(await tight.post(`/games/${g.id}/replays`, {}), 429, 'too-many-requests');
  assert.equal(p.bucket, 'client');
  assert.equal(p.limit, 2);
  // from a second address: one more fits (3 in all), the next is the server's 503
  const other = await postFrom(tight.base, `/games/${g.id}/replays`, {}, '127.0.0.2');
  assert.equal(other.status, 201, JSON.stringify(other.json));
  const full = await postFrom(tight.base, `/games/${g.id}/replays`, {}, '127.0.0.2');
  assert.equal(full.status, 503, JSON.stringify(full.json));
  assert.equal(full.json.type, '/problems/server-busy');
  assert.equal(full.json.bucket, 'total');
  const ra = Number(full.headers['retry-after']);
  assert.ok(ra >= 1 && ra <= 2, `Retry-After ${full.headers['retry-after']}`);

  // expiry: a follower's stream ends with `end`, GET is a 404, and room is made
  const f = follow(tight, made[0].id);
  await f.ready;
  await f.until((_, un) => un.some((x) => x.event === 'end'), 8000);
  expectProblem(await tight.get(`/replays/${made[0].id}`), 404, 'not-found');
  expectStatus(await tight.post(`/games/${g.id}/replays`, {}), 201);
  f.close();
});
