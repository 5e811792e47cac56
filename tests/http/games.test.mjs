// Stored games: creation, reading, ETag/304, deletion, auth, export, and the
// request errors (400, 401, 403, 404, 405, 413, 415).
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus, expectProblem, createGame, defaultBot } from './lib/server.mjs';
import { assertSchema } from './lib/contract.mjs';

const srv = useServer();
const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAAAA';

test('POST /games with 4 bots returns a finished game', async () => {
  const bot = await defaultBot(srv);
  const r = await srv.post('/games', { game: 'comp10001bo', seed: 42, players: [{ bot }, { bot }, { bot }, { bot }] });
  expectStatus(r, 201);
  const g = r.json;
  assert.equal(r.headers.get('location'), `/games/${g.id}`);
  assert.equal(g.game, 'comp10001bo');
  assert.equal(g.variant, 'standard');
  assert.equal(g.seed, 42);
  assert.equal(g.you, null);
  assert.equal(g.seats.length, 4);
  g.seats.forEach((s, i) => {
    assert.equal(s.seat, i);
    assert.equal(s.bot, bot);
    assert.equal(s.token, undefined, 'bot seats have no token');
  });
  assert.equal(g.state.over, true);
  assert.notEqual(g.state.result, 'playing');
  assert.equal(g.state.current, null);
  assert.ok(g.applied.length > 0, 'applied is non-empty');
  g.applied.forEach((rec, i) => {
    assert.equal(typeof rec.explanation, 'string', `applied[${i}] has an explanation: ${JSON.stringify(rec)}`);
    assert.ok(rec.explanation.length > 0);
    assertSchema('Comp10001boPlay', rec.play, `applied[${i}].play`);
    if (i > 0) assert.equal(rec.n, g.applied[i - 1].n + 1, 'records are numbered in order');
  });
  if (g.state.result === 'won') {
    assert.equal(g.state.stockpiles[g.state.winner].count, 0, 'the winner emptied the stockpile');
  } else {
    assert.equal(g.state.winner, null);
  }
  // The spectator sees the same finished game.
  const s = await srv.get(`/games/${g.id}`);
  expectStatus(s, 200);
  assert.equal(s.json.version, g.version);
  assert.equal(s.headers.get('etag'), `"${g.version}"`);
  assert.equal(s.json.state.over, true);
  // Same seed, same players: the same game.
  const again = await srv.post('/games', { game: 'comp10001bo', seed: 42, players: [{ bot }, { bot }, { bot }, { bot }] });
  expectStatus(again, 201);
  assert.notEqual(again.json.id, g.id, 'ids are unique');
  assert.deepEqual(again.json.applied, g.applied, 'deterministic from the seed');
  assert.deepEqual(again.json.state, g.state);
  // A finished game can be exported by anyone.
  const ex = await srv.get(`/games/${g.id}/export?format=json`);
  expectStatus(ex, 200);
  assert.equal(ex.json.format, 'json');
  assert.equal(ex.json.game, 'comp10001bo');
  assert.equal(ex.json.seed, 42);
  assert.equal(ex.json.version, g.version);
  // Export without format defaults to json.
  const ex2 = await srv.get(`/games/${g.id}/export`);
  expectStatus(ex2, 200);
  assert.deepEqual(ex2.json, ex.json);
});

test('POST /games with humans: tokens, you, Location, GET views, ETag and 304', async () => {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'Bob', 'bot'], seed: 7 });
  assert.match(g.id, /^[A-Za-z0-9_-]{16,}$/);
  assert.equal(g.you, null, 'two humans: you is null');
  assert.equal(g.seats[0].name, 'Ann');
  assert.equal(g.seats[2].name, 'Bob');
  assert.ok(g.seats[0].token && g.seats[2].token && g.seats[0].token !== g.seats[2].token);
  assert.equal(g.seats[1].token, undefined);
  assert.equal(g.applied.length, 0, 'seat 0 (human) moves first');
  assert.equal(g.state.current, 0);
  assert.equal(g.state.seat, null, 'two humans: the 201 state is the spectator view');
  assert.equal(g.state.hand, undefined, 'spectator view has no hand');

  const ann = await srv.get(`/games/${g.id}`, { token: g.seats[0].token });
  expectStatus(ann, 200);
  assert.equal(ann.json.you, 0);
  assert.equal(ann.json.state.seat, 0);
  assert.equal(ann.json.state.hand.length, 5);
  assert.equal(ann.json.state.hand_sizes[0], 5);
  for (const s of ann.json.seats) assert.equal(s.token, undefined, 'GET never shows tokens');
  assert.ok(!ann.text.includes(g.seats[0].token), 'no token in the GET body');
  assert.ok(!ann.text.includes(g.seats[2].token), 'no token in the GET body');
  const etag = ann.headers.get('etag');
  assert.equal(etag, `"${ann.json.version}"`);
  assert.equal(ann.json.version, g.version);

  // A token in the URL is refused, naming the header to use (URLs end up in
  // access logs). The token here is a made-up one: the access-log check of
  // tests/access-log must find no issued token in any log.
  const q = expectProblem(await srv.get(`/games/${g.id}?token=made-up-token-in-a-url`), 400, 'invalid-parameter');
  assert.equal(q.parameter, 'token');
  assert.match(q.detail, /Authorization: Bearer/);

  const nm = await srv.get(`/games/${g.id}`, { headers: { 'if-none-match': etag } });
  expectStatus(nm, 304);
  assert.equal(nm.text, '');
  const stale = await srv.get(`/games/${g.id}`, { headers: { 'if-none-match': `"${g.version + 1000}"` } });
  expectStatus(stale, 200);

  const admin = await srv.get(`/games/${g.id}`, { token: srv.adminToken });
  expectStatus(admin, 200);
  assert.equal(admin.json.you, null);
  assert.equal(admin.json.state.hands.length, 4);
  assert.deepEqual(admin.json.state.hands[0], ann.json.state.hand);
  assert.ok(Array.isArray(admin.json.state.draw));
  assert.equal(admin.json.state.draw.length, admin.json.state.draw_pile);

  const spec = await srv.get(`/games/${g.id}`);
  expectStatus(spec, 200);
  assert.equal(spec.json.you, null);
  assert.equal(spec.json.state.seat, null);
  assert.ok(!/"hands?"\s*:/.test(spec.text) && !/"draw"\s*:/.test(spec.text), 'spectator sees no hand');
});

test('a single human gets "you" and the 201 view is theirs; bots before the human are applied', async () => {
  const g = await createGame(srv, { players: ['bot', 'bot', 'Cy', 'bot'], seed: 3 });
  assert.equal(g.you, 2);
  assert.equal(g.state.seat, 2);
  assert.equal(g.state.current, 2);
  assert.equal(g.state.hand.length, 5);
  assert.ok(g.applied.length >= 2, 'seats 0 and 1 played');
  assert.deepEqual([...new Set(g.applied.map((a) => a.seat))].sort(), [0, 1]);
  for (const a of g.applied) assert.equal(typeof a.explanation, 'string');
  const seats = g.applied.map((a) => a.seat);
  assert.deepEqual(seats, [...seats].sort(), 'seat 0 plays, then seat 1');
});

test('POST /games: 400 naming the member by JSON pointer', async () => {
  const bot = await defaultBot(srv);
  const base = { game: 'comp10001bo', seed: 1, players: [{ name: 'A' }, { bot }, { bot }, { bot }] };
  const cases = [
    [{ ...base, players: [{ name: 'A' }, { bot: 5 }, { bot }, { bot }] }, '/players/1/bot'],
    [{ ...base, players: [{ name: 'A' }, { bot: 'no-such-strategy' }, { bot }, { bot }] }, '/players/1/bot'],
    [{ ...base, players: [{ name: 'A' }, { bot }, { bot }, { name: 7 }] }, '/players/3/name'],
    [{ ...base, players: [{ name: '' }, { bot }, { bot }, { bot }] }, '/players/0/name'],
    [{ ...base, players: [{ name: 'x'.repeat(65) }, { bot }, { bot }, { bot }] }, '/players/0/name'],
    [{ ...base, players: [{ name: 'A' }, { bot }, { bot }, { nick: 'B' }] }, '/players/3'],
    [{ ...base, seed: 'abc' }, '/seed'],
    [{ ...base, seed: -1 }, '/seed'],
    [{ ...base, seed: 1.5 }, '/seed'],
    [{ ...base, seed: 2 ** 53 }, '/seed'],
    [{ ...base, variant: 'nosuch' }, '/variant'],
    [{ ...base, variant: 3 }, '/variant'],
    [{ ...base, players: [{ name: 'A' }, { bot }, { bot }] }, '/players'],
    [{ ...base, players: 'four' }, '/players'],
    [{ ...base, game: 5 }, '/game'],
    [{ ...base, colour: 'red' }, '/colour'],
    [{ ...base, options: { nosuchoption: 1 } }, '/options/nosuchoption'],
    [{ game: 'comp10001bo', seed: 1 }, '/players'],
  ];
  for (const [body, pointer] of cases) {
    const r = await srv.post('/games', body);
    const p = expectProblem(r, 400, 'invalid-member', JSON.stringify(body));
    assert.ok(p.errors.length >= 1);
    // "/players/3" also accepts a pointer to the offending member inside it.
    assert.ok(p.errors[0].pointer === pointer || (pointer === '/players/3' && p.errors[0].pointer.startsWith('/players/3/')),
      `${JSON.stringify(body)}: pointer ${JSON.stringify(p.errors[0].pointer)}, want ${pointer}`);
    assert.equal(typeof p.errors[0].message, 'string');
    assert.equal(p.instance, '/games');
  }
});

test('POST /games: malformed JSON, empty body, too deep nesting -> 400 malformed-json', async () => {
  for (const body of ['{"game":', '', 'nul', '{"game":"comp10001bo",}', '[' .repeat(40) + ']'.repeat(40),
    '{"game":"comp10001bo","players":' + '['.repeat(40) + ']'.repeat(40) + '}']) {
    const r = await srv.request('POST', '/games', { body, contentType: 'application/json' });
    expectProblem(r, 400, 'malformed-json', JSON.stringify(body.slice(0, 60)));
  }
  // 32 levels is still JSON (then a shape error, not malformed-json); 33 is too deep.
  const r = await srv.request('POST', '/games', { body: '['.repeat(32) + ']'.repeat(32), contentType: 'application/json' });
  const p = expectProblem(r, 400, 'invalid-member', 'array of depth 32');
  assert.equal(p.errors[0].pointer, '');
  expectProblem(await srv.request('POST', '/games', { body: '['.repeat(33) + ']'.repeat(33), contentType: 'application/json' }), 400, 'malformed-json', 'depth 33');
});

test('POST /games: unknown game type -> 404', async () => {
  const r = await srv.post('/games', { game: 'nosuchgame', players: [{ name: 'A' }] });
  expectProblem(r, 404, 'not-found');
});

const CREATE_BODY = JSON.stringify({ game: 'comp10001bo', seed: 1, players: [{ name: 'A' }, { name: 'B' }, { name: 'C' }, { name: 'D' }] });

test('POST /games: 415 for a text/plain body', async () => {
  expectProblem(await srv.request('POST', '/games', { body: CREATE_BODY, contentType: 'text/plain' }), 415, 'unsupported-media-type');
});

test('POST /games: a body with no Content-Type, or urlencoded, is a 415 (cross-site forms and no-cors fetches send those)', async () => {
  // A Uint8Array body makes fetch send no Content-Type header.
  const p = expectProblem(await srv.request('POST', '/games', { body: new TextEncoder().encode(CREATE_BODY) }), 415, 'unsupported-media-type');
  assert.match(p.detail, /application\/json/);
  expectProblem(await srv.request('POST', '/games', { body: CREATE_BODY, contentType: 'application/x-www-form-urlencoded' }), 415, 'unsupported-media-type');
});

test('POST /games: application/json with a charset is JSON', async () => {
  expectStatus(await srv.request('POST', '/games', { body: CREATE_BODY, contentType: 'application/json; charset=utf-8' }), 201);
  expectStatus(await srv.request('POST', '/games', { body: CREATE_BODY, contentType: 'Application/JSON' }), 201);
});

test('POST /games: 413 for a body over 64 KiB', async () => {
  const body = JSON.stringify({ game: 'comp10001bo', seed: 1, players: [{ name: 'A' }], options: { pad: 'x'.repeat(70_000) } });
  expectProblem(await srv.request('POST', '/games', { body, contentType: 'application/json' }), 413, 'payload-too-large');
  // Still serving afterwards.
  expectStatus(await srv.get('/healthz'), 200);
});

test('unknown game id -> 404 on every game path', async () => {
  for (const p of ['', '/plays', '/legal', '/export?format=json']) {
    expectProblem(await srv.get(`/games/${UNKNOWN_ID}${p}`, { token: srv.adminToken }), 404, 'not-found', p);
  }
  expectProblem(await srv.del(`/games/${UNKNOWN_ID}`, { token: srv.adminToken }), 404, 'not-found');
});

test('401: no token or a bad token where one is needed', async () => {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed: 11 });
  const other = await createGame(srv, { players: ['Zed', 'bot', 'bot', 'bot'], seed: 12 });
  const play = { play: [3, null, [null, null]] };
  expectProblem(await srv.post(`/games/${g.id}/plays`, play), 401, 'unauthorized', 'POST plays, no token');
  expectProblem(await srv.post(`/games/${g.id}/plays`, play, { token: 'not-a-token-at-all-000000' }), 401, 'unauthorized', 'POST plays, bad token');
  expectProblem(await srv.post(`/games/${g.id}/plays`, play, { token: other.seats[0].token }), 401, 'unauthorized', "another game's token");
  expectProblem(await srv.del(`/games/${g.id}`), 401, 'unauthorized', 'DELETE, no token');
  expectProblem(await srv.del(`/games/${g.id}`, { token: 'not-a-token-at-all-000000' }), 401, 'unauthorized', 'DELETE, bad token');
  expectProblem(await srv.get(`/games/${g.id}/hint`), 401, 'unauthorized', 'hint, spectator');
  expectProblem(await srv.get(`/games/${g.id}`, { token: 'not-a-token-at-all-000000' }), 401, 'unauthorized', 'GET, bad token');
  expectProblem(await srv.get(`/games/${g.id}?token=nope`), 400, 'invalid-parameter', 'GET, ?token= (never read)');
  expectProblem(await srv.get(`/games/${g.id}/plays`, { token: 'not-a-token-at-all-000000' }), 401, 'unauthorized', 'GET plays, bad token');
  expectProblem(await srv.get(`/games/${g.id}/legal`, { token: 'not-a-token-at-all-000000' }), 401, 'unauthorized', 'GET legal, bad token');
  expectProblem(await srv.get(`/games/${g.id}/hint`, { token: 'not-a-token-at-all-000000' }), 401, 'unauthorized', 'hint, bad token');
  expectProblem(await srv.del(`/games/${g.id}`, { token: other.seats[0].token }), 401, 'unauthorized', "DELETE with another game's token");
  // Nothing changed.
  const after = await srv.get(`/games/${g.id}`);
  expectStatus(after, 200);
  assert.equal(after.json.version, g.version);
});

test('403: the admin posting a play; a seat exporting a running game', async () => {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed: 13 });
  const legal = await srv.get(`/games/${g.id}/legal`, { token: g.seats[0].token });
  expectStatus(legal, 200);
  const r = await srv.post(`/games/${g.id}/plays`, { play: legal.json.plays[0] }, { token: srv.adminToken });
  expectProblem(r, 403, 'forbidden', 'admin play');
  expectProblem(await srv.get(`/games/${g.id}/export?format=json`, { token: g.seats[0].token }), 403, 'forbidden', 'seat export');
  // A spectator (no token) exporting a running game: the notes say 403, api.md's
  // "401 missing token" also fits; either, but never the export.
  const sp = await srv.get(`/games/${g.id}/export?format=json`);
  assert.ok([401, 403].includes(sp.status), `spectator export of a running game: ${sp.status} ${sp.text}`);
  const ex = await srv.get(`/games/${g.id}/export?format=json`, { token: srv.adminToken });
  expectStatus(ex, 200, 'admin export');
  assert.equal(ex.json.version, g.version);
  for (const s of ex.json.seats) assert.equal(s.token, undefined);
  // Unknown format -> 400 naming the parameter.
  const bad = expectProblem(await srv.get(`/games/${g.id}/export?format=nosuch`, { token: srv.adminToken }), 400, 'invalid-parameter');
  assert.match(JSON.stringify(bad), /format/);
});

test('DELETE: the admin, or a table\'s only person; others resign instead', async () => {
  // a person at a table with another person may not delete it for both...
  const g = await createGame(srv, { players: ['Ann', 'bot', 'Bob', 'bot'], seed: 14 });
  const p = expectProblem(await srv.del(`/games/${g.id}`, { token: g.seats[2].token }), 403, 'forbidden');
  assert.match(p.detail, /resign/);
  expectStatus(await srv.get(`/games/${g.id}`), 200, 'the game is still there');
  // ...but may resign: a bot takes the seat and plays it from then on
  const before = (await srv.get(`/games/${g.id}`, { token: srv.adminToken })).json;
  const r = await srv.post(`/games/${g.id}/resign`, undefined, { token: g.seats[2].token });
  expectStatus(r, 200, 'resign');
  assert.equal(r.json.resigned, 2);
  assert.equal(r.json.version, before.version + 1);
  const after = (await srv.get(`/games/${g.id}`)).json;
  assert.equal(after.seats[2].bot, r.json.bot);
  assert.equal(after.seats[2].resigned, true);
  expectProblem(await srv.post(`/games/${g.id}/resign`, undefined, { token: g.seats[2].token }), 403, 'forbidden', 'twice');
  // The resigned token reads what a spectator reads: not the hand the bot now plays.
  const spectator = await srv.get(`/games/${g.id}`);
  const left = await srv.get(`/games/${g.id}`, { token: g.seats[2].token });
  expectStatus(left, 200);
  assert.equal(left.json.you, null, 'no seat');
  assert.deepEqual(left.json.state, spectator.json.state, 'a spectator\'s view');
  const seatView = (await srv.get(`/games/${g.id}`, { token: g.seats[0].token })).json.state;
  assert.notDeepEqual(left.json.state, seatView, 'a seat sees more (its own hand): the comparison can tell');
  expectStatus(await srv.get(`/games/${g.id}/legal`, { token: g.seats[2].token }), 200);
  assert.deepEqual((await srv.get(`/games/${g.id}/legal`, { token: g.seats[2].token })).json.plays, []);
  expectProblem(await srv.get(`/games/${g.id}/hint`, { token: g.seats[2].token }), 401, 'unauthorized');
  const play = await srv.post(`/games/${g.id}/plays`, { play: { actionType: 2, target: 0 } }, { token: g.seats[2].token });
  assert.ok(play.status === 401 || play.status === 403, `a play with the resigned token is refused: ${play.status}`);
  expectProblem(await srv.post(`/games/${g.id}/resign`), 401, 'unauthorized');
  expectProblem(await srv.post(`/games/${g.id}/resign`, undefined, { token: srv.adminToken }), 403, 'forbidden');
  // Ann is now the only person: she may delete the game
  expectStatus(await srv.del(`/games/${g.id}`, { token: g.seats[0].token }), 204);
  expectProblem(await srv.get(`/games/${g.id}`), 404, 'not-found');
  expectProblem(await srv.get(`/games/${g.id}/plays`), 404, 'not-found');
  expectProblem(await srv.del(`/games/${g.id}`, { token: g.seats[0].token }), 404, 'not-found');
  // the admin deletes any game
  const h = await createGame(srv, { players: ['Ann', 'Bob', 'bot', 'bot'], seed: 15 });
  expectStatus(await srv.del(`/games/${h.id}`, { token: srv.adminToken }), 204);
  expectProblem(await srv.get(`/games/${h.id}`, { token: srv.adminToken }), 404, 'not-found');
});

test('resigning hands the turn to the bot: the game goes on to its end', async () => {
  // two people; both resign, and the bots finish the game in that request
  const g = await createGame(srv, { players: ['Ann', 'bot', 'Bob', 'bot'], seed: 16 });
  expectStatus(await srv.post(`/games/${g.id}/resign`, undefined, { token: g.seats[0].token }), 200);
  const r = await srv.post(`/games/${g.id}/resign`, undefined, { token: g.seats[2].token });
  expectStatus(r, 200);
  assert.equal(r.json.state.over, true, 'only bots: they play to the end');
  assert.ok(r.json.applied.length > 0);
  expectProblem(await srv.post(`/games/${g.id}/resign`, undefined, { token: g.seats[0].token }), 403, 'forbidden');
});
