// Playing a stored game through the API: one human against three bots, with
// legal plays, hints, validation, privacy of hands, versions/ETags, errors
// that leave the game unchanged, and concurrent writes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus, expectProblem, createGame } from './lib/server.mjs';
import { assertSchema } from './lib/contract.mjs';
import { assertEvery } from './lib/expect.mjs';

const srv = useServer();
const ILLEGAL = [0, 'AS', [1, [0, 0]]]; // an Ace never goes on a discard pile
const CARD_RE = /"([A234567890JQK][SHDC])"/g;

const cardsIn = (text) => [...text.matchAll(CARD_RE)].map((m) => m[1]);
const key = (play) => JSON.stringify(play);

function publicCards(st) {
  const out = [];
  for (const s of st.stockpiles) if (s.top) out.push(s.top);
  for (const owner of st.discard_piles) for (const pile of owner) out.push(...pile);
  for (const pile of st.build_piles) out.push(...pile);
  return out;
}

async function views(id, token) {
  const admin = await srv.get(`/games/${id}`, { token: srv.adminToken });
  const seat = await srv.get(`/games/${id}`, { token });
  const spec = await srv.get(`/games/${id}`);
  const hist = await srv.get(`/games/${id}/plays`);
  for (const r of [admin, seat, spec, hist]) expectStatus(r, 200);
  return { admin, seat, spec, hist };
}

// Views never contain other players' hands (checked on the raw text).
function checkPrivacy({ admin, seat, spec, hist }, me) {
  const a = admin.json.state;
  assert.equal(a.hands.length, 4, 'admin sees every hand');
  assert.ok(Array.isArray(a.draw), 'admin sees the draw pile');
  assert.equal(seat.json.you, me);
  if (a.over) { // a finished game shows every card to everyone
    assert.deepEqual(spec.json.state.hands, a.hands);
    return;
  }
  assert.doesNotMatch(seat.text, /"hands"\s*:/, 'a seat view has no "hands"');
  assert.doesNotMatch(seat.text, /"draw"\s*:/, 'a seat view has no "draw"');
  assert.doesNotMatch(spec.text, /"hands?"\s*:/, 'the spectator view has no "hand"/"hands"');
  assert.doesNotMatch(spec.text, /"draw"\s*:/, 'the spectator view has no "draw"');
  assert.deepEqual(seat.json.state.hand, a.hands[me], 'a seat sees its own hand');
  assert.deepEqual(seat.json.state.hand_sizes, a.hands.map((h) => h.length));
  assert.equal(a.draw.length, a.draw_pile);
  for (const k of ['discard_piles', 'build_piles', 'draw_pile', 'current', 'turn', 'turns', 'over', 'result']) {
    assert.deepEqual(seat.json.state[k], a[k], `seat and admin agree on ${k}`);
    assert.deepEqual(spec.json.state[k], a[k], `spectator and admin agree on ${k}`);
  }
  for (const v of [seat, spec]) {
    assertEvery(v.json.state.stockpiles, (x) => !('cards' in x), 'only the admin sees the cards under a stockpile top', { length: 4 });
  }
  const tops = (st) => st.stockpiles.map((x) => [x.top, x.count]);
  assert.deepEqual(tops(seat.json.state), tops(a), 'seat and admin agree on the stockpile tops and counts');
  assert.deepEqual(tops(spec.json.state), tops(a), 'spectator and admin agree on the stockpile tops and counts');
  // Cards held by others, in the draw pile, or under a stockpile top, that
  // are seen nowhere in public (piles, stockpile tops, the history) must not
  // appear in the raw text of a seat's or the spectator's view.
  const seen = new Set([...publicCards(a), ...cardsIn(hist.text)]);
  const underTops = a.stockpiles.flatMap((x) => (Array.isArray(x.cards) ? x.cards.slice(0, -1) : []));
  const others = [...a.hands.filter((_, i) => i !== me).flat(), ...a.draw, ...underTops];
  const secretForSeat = new Set(others.filter((c) => !seen.has(c) && !a.hands[me].includes(c)));
  const secretForAll = new Set([...others, ...a.hands[me]].filter((c) => !seen.has(c)));
  assert.ok(secretForAll.size > 0 || a.over, 'the check has something to look for');
  for (const c of cardsIn(seat.text)) assert.ok(!secretForSeat.has(c), `seat ${me}'s view shows ${c}, held by another seat or in the draw pile`);
  for (const c of cardsIn(spec.text)) assert.ok(!secretForAll.has(c), `spectator view shows hidden ${c}`);
}

async function adminExport(id) {
  const r = await srv.get(`/games/${id}/export?format=json`, { token: srv.adminToken });
  expectStatus(r, 200, 'admin export');
  return r.json;
}

async function validate(ex, play, seat) {
  const body = { game: 'comp10001bo', variant: ex.variant, state: ex.state, play };
  if (seat !== undefined) body.seat = seat;
  const r = await srv.post('/validate', body);
  expectStatus(r, 200, `validate ${key(play)}`);
  return r.json;
}

function toAutograderArgs(st, me) {
  return {
    player_no: me,
    hand: st.hand,
    stockpiles: st.stockpiles.map((s) => [s.top, s.count]),
    discard_piles: st.discard_piles,
    build_piles: st.build_piles,
  };
}

test('one human and three bots: play through the API to the end', async () => {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed: 20240607 });
  const me = 0;
  const token = g.seats[me].token;
  assert.equal(g.you, me);
  const all = [...g.applied]; // every record, in order
  let version = g.version;
  let step = 0;
  let concurrentDone = false;
  for (; step < 200; step++) {
    const v = await views(g.id, token);
    checkPrivacy(v, me);
    const st = v.seat.json.state;
    assert.equal(v.seat.json.version, version, 'GET shows the version of the last write');
    assert.equal(v.seat.headers.get('etag'), `"${version}"`, 'ETag equals the version');
    if (st.over) break;
    assert.equal(st.current, me, 'after a POST, the bots have played up to my turn');

    const legal = await srv.get(`/games/${g.id}/legal`, { token });
    expectStatus(legal, 200);
    assert.equal(legal.json.seat, me);
    assert.ok(legal.json.plays.length > 0, 'it is my turn, so I have a play (passes are made for me)');
    for (const p of legal.json.plays) assertSchema('Comp10001boPlay', p, 'legal play');
    const legalKeys = new Set(legal.json.plays.map(key));
    assert.equal(legalKeys.size, legal.json.plays.length, 'no duplicate legal plays');

    const hint = await srv.get(`/games/${g.id}/hint`, { token });
    expectStatus(hint, 200);
    assert.equal(hint.json.seat, me);
    assert.ok(legalKeys.has(key(hint.json.play)), `hint ${key(hint.json.play)} is a legal play`);
    assert.ok(hint.json.explanation.length > 0);

    // Validation of the legal plays (all of them in the first turns, then the hint's).
    const ex = await adminExport(g.id);
    assert.equal(ex.version, version);
    const toCheck = step < 4 ? legal.json.plays : [hint.json.play];
    for (const p of toCheck) {
      const verdict = await validate(ex, p);
      assert.equal(verdict.valid, true, `legal ${key(p)} accepted by /validate: ${JSON.stringify(verdict)}`);
      if (step < 2) {
        const ag = await srv.post('/validate/comp10001bo/is_valid_play', { play: p, ...toAutograderArgs(st, me) });
        expectStatus(ag, 200);
        assert.ok([1, 2].includes(ag.json.result), `legal ${key(p)} is valid for is_valid_play: ${ag.json.result}`);
      }
    }
    if (step < 4) {
      const bad = await validate(ex, ILLEGAL);
      assert.equal(bad.valid, false);
      assert.equal(typeof bad.reason, 'string');
      assert.ok(bad.reason.length > 0, 'an invalid play has a reason');
      const other = await validate(ex, legal.json.plays[0], (me + 1) % 4);
      assert.equal(other.valid, false, 'not that seat\'s turn');
      assert.ok(other.reason.length > 0);
    }

    const play = hint.json.play;
    let r;
    if (!concurrentDone && step >= 2) {
      // Two writes with the same If-Match: at most one wins.
      concurrentDone = true;
      const send = () => srv.post(`/games/${g.id}/plays`, { play }, { token, headers: { 'if-match': `"${version}"` } });
      const [a, b] = await Promise.all([send(), send()]);
      const ok = [a, b].filter((x) => x.status === 200);
      const lost = [a, b].filter((x) => x.status !== 200);
      assert.equal(ok.length, 1, `exactly one of two concurrent writes wins: ${a.status} ${b.status} ${b.text}`);
      assert.ok([409, 412].includes(lost[0].status), `the loser gets 412 or 409: ${lost[0].status} ${lost[0].text}`);
      r = ok[0];
    } else {
      r = await srv.post(`/games/${g.id}/plays`, { play }, { token, headers: { 'if-match': `"${version}"` } });
      expectStatus(r, 200, `play ${key(play)}`);
    }
    assert.ok(r.json.version > version, 'version increments');
    assert.deepEqual(r.json.applied[0].play, play, 'applied[0] is my play');
    assert.equal(r.json.applied[0].seat, me);
    for (const rec of r.json.applied) {
      assertSchema('Comp10001boPlay', rec.play, 'applied play');
      if (rec.seat !== me) assert.equal(typeof rec.explanation, 'string', `bot/forced record has an explanation: ${JSON.stringify(rec)}`);
    }
    assert.equal(r.json.state.seat, me, 'the POST returns my view');
    if (!r.json.state.over) assert.doesNotMatch(r.text, /"hands"\s*:|"draw"\s*:/); // at the end every card shows
    all.push(...r.json.applied);
    version = r.json.version;
    const head = await srv.get(`/games/${g.id}`, { token });
    assert.equal(head.headers.get('etag'), `"${version}"`, `GET after play: ${head.status} ${head.text.slice(0, 300)}`);
  }
  assert.ok(concurrentDone, 'the concurrency check ran');
  assert.ok(step < 200, 'the game ends (20 turns each at most)');

  // Over: 409 game-over for plays and hints; no legal plays; anyone may export.
  const fin = await srv.get(`/games/${g.id}`, { token });
  assert.equal(fin.json.state.over, true);
  assert.equal(fin.json.state.current, null);
  expectProblem(await srv.post(`/games/${g.id}/plays`, { play: [3, null, [null, null]] }, { token }), 409, 'game-over');
  expectProblem(await srv.get(`/games/${g.id}/hint`, { token }), 409, 'game-over');
  const legal = await srv.get(`/games/${g.id}/legal`, { token });
  expectStatus(legal, 200);
  assert.deepEqual(legal.json.plays, []);
  const ex = await srv.get(`/games/${g.id}/export?format=json`, { token });
  expectStatus(ex, 200, 'export of a finished game by a seat');
  const exSpec = await srv.get(`/games/${g.id}/export?format=json`);
  expectStatus(exSpec, 200, 'export of a finished game by a spectator');
  const verdict = await validate(ex.json, [3, null, [null, null]]);
  assert.equal(verdict.valid, false, 'game over: nothing is valid');
  assert.ok(verdict.reason.length > 0);

  // The history lists every play.
  const h = await srv.get(`/games/${g.id}/plays`, { token });
  expectStatus(h, 200);
  assert.equal(h.json.version, version);
  assert.equal(h.json.plays.length, all.length, 'history = every applied record');
  h.json.plays.forEach((rec, i) => {
    assert.equal(rec.seat, all[i].seat, `history[${i}].seat`);
    assert.deepEqual(rec.play, all[i].play, `history[${i}].play`);
    if (i > 0) assert.equal(rec.n, h.json.plays[i - 1].n + 1);
  });
  const turnsByMe = fin.json.state.turns[me];
  assert.ok(turnsByMe >= 1);
});

test('errors leave the game unchanged: 400, 409 not-your-turn, 412, 422', async () => {
  const g = await createGame(srv, { players: ['Ann', 'Bob', 'bot', 'bot'], seed: 99 });
  const ann = g.seats[0].token;
  const bob = g.seats[1].token;
  const before = await srv.get(`/games/${g.id}`, { token: srv.adminToken });
  const snapshot = () => srv.get(`/games/${g.id}`, { token: srv.adminToken });
  const legal = (await srv.get(`/games/${g.id}/legal`, { token: ann })).json.plays;

  // 422 with rule and the caller's legal plays.
  const ir = await srv.post(`/games/${g.id}/plays`, { play: ILLEGAL }, { token: ann });
  const il = expectProblem(ir, 422, 'illegal-play');
  // RFC 9110's reason phrase (civetweb's own table says "Unproccessable entity"; nginx passes ours on)
  assert.equal(ir.res.statusText, 'Unprocessable Content');
  assert.equal(typeof il.rule, 'string');
  assert.ok(il.rule.length > 0);
  assert.ok(il.detail.length > 0, 'the reason');
  assert.deepEqual(il.legal.map(key).sort(), legal.map(key).sort(), '422 lists my legal plays');
  // Not holding the card is illegal too (well-formed).
  const hand = before.json.state.hands[0];
  const missing = ['2C', '2D', '2H', '2S', 'KC', 'KD', 'KH', 'KS', '3C', '3D'].find((c) => !hand.includes(c));
  expectProblem(await srv.post(`/games/${g.id}/plays`, { play: [0, missing, [0, 0]] }, { token: ann }), 422, 'illegal-play');

  // 400 naming the pointer under /play (or the member).
  for (const [body, pointer] of [
    [{ play: ['x', 'AS', [0, 0]] }, '/play/0'],
    [{}, '/play'],
    [{ play: [0, 'AS', [0, 0]], extra: 1 }, '/extra'],
  ]) {
    const p = expectProblem(await srv.post(`/games/${g.id}/plays`, body, { token: ann }), 400, 'invalid-member', JSON.stringify(body));
    assert.equal(p.errors[0].pointer, pointer, JSON.stringify(body));
  }
  expectProblem(await srv.request('POST', `/games/${g.id}/plays`, { body: '{"play": [0,', contentType: 'application/json', token: ann }), 400, 'malformed-json');
  expectProblem(await srv.request('POST', `/games/${g.id}/plays`, { body: '{"play":[3,null,[null,null]]}', contentType: 'text/plain', token: ann }), 415, 'unsupported-media-type');
  expectProblem(await srv.request('POST', `/games/${g.id}/plays`, { body: JSON.stringify({ play: 'x'.repeat(70_000) }), contentType: 'application/json', token: ann }), 413, 'payload-too-large');

  // 409 not your turn; Bob has no legal plays and no hint.
  expectProblem(await srv.post(`/games/${g.id}/plays`, { play: legal[0] }, { token: bob }), 409, 'not-your-turn');
  const bl = await srv.get(`/games/${g.id}/legal`, { token: bob });
  expectStatus(bl, 200);
  assert.deepEqual(bl.json, { ...bl.json, seat: 1, plays: [] });
  expectProblem(await srv.get(`/games/${g.id}/hint`, { token: bob }), 409, 'not-your-turn');
  const sl = await srv.get(`/games/${g.id}/legal`);
  expectStatus(sl, 200);
  assert.equal(sl.json.seat, null);
  assert.deepEqual(sl.json.plays, []);

  // 412 stale If-Match, with the current version.
  const v = before.json.version;
  for (const stale of [`"${v + 1}"`, `"${v + 100}"`]) {
    const p = expectProblem(await srv.post(`/games/${g.id}/plays`, { play: legal[0] }, { token: ann, headers: { 'if-match': stale } }), 412, 'precondition-failed');
    assert.equal(p.version, v);
  }

  const afterAll = await snapshot();
  assert.equal(afterAll.json.version, v, 'same version');
  assert.equal(afterAll.headers.get('etag'), before.headers.get('etag'));
  assert.deepEqual(afterAll.json, before.json, 'same admin view');

  // And the legal play still works, with the right If-Match; a stale one then fails.
  const ok = await srv.post(`/games/${g.id}/plays`, { play: legal[0] }, { token: ann, headers: { 'if-match': `"${v}"` } });
  expectStatus(ok, 200);
  assert.ok(ok.json.version > v);
  const p = expectProblem(await srv.post(`/games/${g.id}/plays`, { play: legal[0] }, { token: ann, headers: { 'if-match': `"${v}"` } }), 412, 'precondition-failed');
  assert.equal(p.version, ok.json.version);
});

test('POST /validate: errors', async () => {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed: 5 });
  const ex = (await srv.get(`/games/${g.id}/export?format=json`, { token: srv.adminToken })).json;
  const p1 = expectProblem(await srv.post('/validate', { game: 'comp10001bo', state: {}, play: ILLEGAL }), 400, 'invalid-member');
  assert.match(p1.errors[0].pointer, /^\/state(\/|$)/);
  const p2 = expectProblem(await srv.post('/validate', { game: 'comp10001bo', state: ex.state, play: ['x', 'AS', [0, 0]] }), 400, 'invalid-member');
  assert.match(p2.errors[0].pointer, /^\/play(\/|$)/);
  const p3 = expectProblem(await srv.post('/validate', { game: 'comp10001bo', state: ex.state }), 400, 'invalid-member');
  assert.equal(p3.errors[0].pointer, '/play');
  const p4 = expectProblem(await srv.post('/validate', { game: 'comp10001bo', state: ex.state, play: ILLEGAL, nope: 1 }), 400, 'invalid-member');
  assert.equal(p4.errors[0].pointer, '/nope');
  expectProblem(await srv.post('/validate', { game: 'nosuchgame', state: ex.state, play: ILLEGAL }), 404, 'not-found');
  expectProblem(await srv.request('POST', '/validate', { body: '{', contentType: 'application/json' }), 400, 'malformed-json');
  expectProblem(await srv.request('POST', '/validate', { body: '{}', contentType: 'text/plain' }), 415, 'unsupported-media-type');
  // A valid verdict, with its turn_ending flag.
  const legal = (await srv.get(`/games/${g.id}/legal`, { token: g.seats[0].token })).json.plays;
  const ok = await srv.post('/validate', { game: 'comp10001bo', state: ex.state, play: legal[0], seat: 0 });
  expectStatus(ok, 200);
  assert.equal(ok.json.valid, true);
  assert.equal(typeof ok.json.turn_ending, 'boolean');
});
