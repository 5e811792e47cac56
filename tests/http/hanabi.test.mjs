// Hanabi through the HTTP API: views that never leak a seat's own cards (on
// the raw response text), both play forms, rule errors, per-seat events, the
// SSE stream, a whole game over the WebSocket protocol, and the exports.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import WebSocket from 'ws';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';
import { assertEvery } from './lib/expect.mjs';

const srv = useServer();
const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';
const COLORS = 'RYBGWM';
const CARD = /"[RYBGWM][1-5]"/g;

async function create(players, { seed = 1, variant, options } = {}) {
  const body = { game: 'hanabi', seed, players: players.map((p) => (p === 'bot' ? { bot: 'rules' } : { name: p })) };
  if (variant) body.variant = variant;
  if (options) body.options = options;
  const r = await srv.post('/games', body);
  expectStatus(r, 201, 'POST /games hanabi');
  return r.json;
}

/** Our JSON play -> the seed's numeric form. */
function numeric(p) {
  if (p.type === 'hint' && p.color) return { actionType: 0, target: p.target, color: COLORS.indexOf(p.color) };
  if (p.type === 'hint') return { actionType: 1, target: p.target, number: p.number };
  return { actionType: p.type === 'discard' ? 2 : 3, target: p.card };
}

test('views: a seat sees every hand but its own (raw text), a spectator none, nobody the deck order', async () => {
  // Find a seeded game where seat 0 holds a card that appears nowhere else in
  // the admin's view: then its absence from seat 0's raw text is meaningful.
  let g, secret;
  for (let seed = 1; seed < 60 && !secret; seed++) {
    g = await create(['Ann', 'bot', 'bot'], { seed });
    const admin = await srv.getOk(`/games/${g.id}`, { token: srv.adminToken });
    const own = admin.state.hands[0].map((c) => c.card);
    const rest = JSON.stringify({ ...admin.state, hands: admin.state.hands.slice(1), deck_order: [] });
    secret = own.find((c) => !rest.includes(`"${c}"`));
  }
  assert.ok(secret, 'a game with a card only seat 0 holds');
  const token = g.seats[0].token;
  const seat = await srv.get(`/games/${g.id}`, { token });
  const spec = await srv.get(`/games/${g.id}`);
  const admin = await srv.get(`/games/${g.id}`, { token: srv.adminToken });
  for (const [who, r] of [['seat', seat], ['spectator', spec], ['admin', admin]]) expectStatus(r, 200, `GET /games/{id} as ${who}`);
  for (const [who, r] of [['seat', seat], ['spectator', spec]]) {
    assert.doesNotMatch(r.text, /deck_order/, `${who}: no deck order`);
    assert.equal(typeof r.json.state.deck, 'number', `${who}: deck is a count`);
  }
  assert.ok(!seat.text.includes(`"${secret}"`), `seat 0's raw view does not contain its own ${secret}`);
  assert.ok(!spec.text.includes(`"${secret}"`), 'nor does a spectator\'s (seat 0 could read it there)');
  assert.ok(Array.isArray(admin.json.state.deck_order), 'the admin sees the deck');
  assert.deepEqual(seat.json.state.hands[0].map((c) => c.card), seat.json.state.hands[0].map(() => '??'));
  assert.deepEqual(seat.json.state.hands[1], admin.json.state.hands[1], 'other hands shown in full');
  assert.deepEqual(spec.json.state.hands.flat().map((c) => c.card), spec.json.state.hands.flat().map(() => '??'),
    'a spectator sees no hand card: every hand is hidden from its owner');
  assert.deepEqual(spec.json.state.hands[0].map((c) => c.touched), admin.json.state.hands[0].map((c) => c.touched),
    'what hints told is public');
  for (const path of [`/games/${g.id}/plays`, `/games/${g.id}/events`, `/games/${g.id}/legal`, `/games/${g.id}/hint`]) {
    const r = await srv.get(path, { token });
    expectStatus(r, 200, path);
    assert.ok(!r.text.includes(`"${secret}"`), `${path} does not leak ${secret}`);
    if (path.endsWith('hint')) continue;
    const s = await srv.get(path);
    expectStatus(s, 200, `${path} (no token): a spectator reads it`);
    assert.ok(!s.text.includes(`"${secret}"`), `${path} (no token) does not leak ${secret}`);
  }
});

/** The hand cards (our notation) of a view. */
const handCards = (state) => state.hands.flat().map((c) => c.card);

test('readers: spectators see no hand, "spectators": "all" every hand but not the deck, everyone all once over', async () => {
  const closed = await create(['Ann', 'Bob', 'bot'], { seed: 5 });
  // One play that draws a card, so that the spectator's events and plays
  // below hold a draw to hide.
  const mover = closed.seats[closed.state.current];
  if (mover.token) {
    expectStatus(await srv.post(`/games/${closed.id}/plays`, { play: { type: 'play', card: 0 } }, { token: mover.token }), 200, 'a play that draws');
  }
  const open = await create(['Ann', 'Bob', 'bot'], { seed: 5, options: { spectators: 'all' } });
  const admin = (await srv.getOk(`/games/${open.id}`, { token: srv.adminToken })).state;
  const spec = await srv.get(`/games/${closed.id}`);
  const obs = await srv.get(`/games/${open.id}`);
  expectStatus(spec, 200);
  expectStatus(obs, 200);
  assert.equal(spec.json.state.over, false);
  assertEvery(handCards(spec.json.state), (c) => c === '??', 'a spectator: no hand card', { length: 15 });
  assert.deepEqual(handCards(obs.json.state), handCards(admin), 'an observer: every hand');
  assert.doesNotMatch(obs.text, /deck_order/, 'an observer: not the deck order');
  assert.ok(admin.deck_order.length > 0, 'the admin sees the deck');
  for (const c of admin.deck_order) {
    // A card still in the deck may also be in a hand or on the table; one that
    // is nowhere else must not show to the observer.
    const elsewhere = handCards(admin).includes(c) || admin.discard.includes(c);
    if (!elsewhere) assert.ok(!obs.text.includes(`"${c}"`), `observer view: deck card ${c}`);
  }
  // events and history: the spectator gets no hand card, the observer every one
  const evS = (await srv.getOk(`/games/${closed.id}/events`));
  const evO = (await srv.getOk(`/games/${open.id}/events`));
  assertEvery(evS[0].handColor.flat(), (x) => x === -1, 'spectator onStart: no hand colour', { length: 15 });
  assertEvery(evS[0].handNumber.flat(), (x) => x === -1, 'spectator onStart: no hand number', { length: 15 });
  assertEvery(evO[0].handNumber.flat(), (x) => x >= 1, 'observer onStart: every hand number', { length: 15 });
  assertEvery(evS.filter((x) => x.event === 'onPlayerAction' && x.draw), (e) => e.draw[0] === -1 && e.draw[1] === -1,
    'spectator: every draw hidden');
  const plS = (await srv.getOk(`/games/${closed.id}/plays`)).plays;
  assertEvery(plS.filter((p) => 'drew' in p && p.drew !== null), (p) => p.drew === '??', 'spectator: every drawn card in the plays hidden');
  // the token-less WebSocket of the spectator: the same events
  if (!viaFcgi) {
    const ws = new WebSocket(`${srv.base.replace('http', 'ws')}/games/${closed.id}/ws`);
    const first = await new Promise((resolve, reject) => {
      ws.on('message', (m) => resolve(JSON.parse(m.toString())));
      ws.on('error', reject);
    });
    ws.close();
    assert.equal(first.event, 'onStart');
    assertEvery(first.handNumber.flat(), (x) => x === -1, 'WebSocket spectator: no hand card', { length: 15 });
  }
  // over: everyone sees every card
  const done = await create(['bot', 'bot', 'bot'], { seed: 5 });
  assert.equal(done.state.over, true);
  const all = (await srv.getOk(`/games/${done.id}`, { token: srv.adminToken })).state;
  const s2 = await srv.get(`/games/${done.id}`);
  expectStatus(s2, 200);
  assert.deepEqual(handCards(s2.json.state), handCards(all));
  assertEvery(handCards(all), (c) => c !== '??', 'the admin at the end: every hand card');
  assert.deepEqual(s2.json.state.deck_order, all.deck_order);
  const ev2 = (await srv.getOk(`/games/${done.id}/events`));
  assertEvery(ev2[0].handNumber.flat(), (x) => x >= 1, 'a finished game\'s onStart to a spectator: every hand', { length: 15 });
  const pl2 = (await srv.getOk(`/games/${done.id}/plays`)).plays;
  assertEvery(pl2, (p) => p.drew !== '??', 'a finished game\'s plays to a spectator: every draw shown');
});

test('plays: our JSON form and the seed numeric form; rule errors are 422 with the rule', async () => {
  const g = await create(['Ann', 'Bob'], { seed: 3 });
  const [a, b] = g.seats.map((s) => s.token);
  const first = g.state.current;
  const [me, other] = first === 0 ? [a, b] : [b, a];
  const meSeat = first, otherSeat = 1 - first;
  expectProblem(await srv.post(`/games/${g.id}/plays`, { play: { type: 'discard', card: 0 } }, { token: me }), 422, 'illegal-play');
  const r1 = await srv.post(`/games/${g.id}/plays`, { play: { type: 'hint', target: meSeat, number: 1 } }, { token: me });
  expect422(r1, 'hint.self');
  const r2 = await srv.post(`/games/${g.id}/plays`, { play: { actionType: 0, target: otherSeat, color: 5 } }, { token: me });
  expect422(r2, 'hint.rainbow');
  expectProblem(await srv.post(`/games/${g.id}/plays`, { play: { type: 'hint', target: otherSeat, color: 'Q' } }, { token: me }), 400, 'invalid-member');
  expectProblem(await srv.post(`/games/${g.id}/plays`, { play: { type: 'play', card: 0 } }, { token: other }), 409, 'not-your-turn');
  const legal = await srv.getOk(`/games/${g.id}/legal`, { token: me });
  const hint = legal.plays.find((p) => p.type === 'hint');
  assert.ok(hint, 'a hint is legal');
  const ok = await srv.post(`/games/${g.id}/plays`, { play: numeric(hint) }, { token: me });
  expectStatus(ok, 200, 'numeric form');
  assert.deepEqual(ok.json.applied[0].play, hint, 'recorded in our form');
  assert.equal(ok.json.state.hints, 7, 'a hint costs a token');
  const legal2 = await srv.getOk(`/games/${g.id}/legal`, { token: other });
  const disc = legal2.plays.find((p) => p.type === 'discard');
  assert.ok(disc, 'a discard is legal');
  const ok2 = await srv.post(`/games/${g.id}/plays`, { play: disc }, { token: other });
  expectStatus(ok2, 200);
  assert.equal(ok2.json.state.hints, 8);
  assert.equal(ok2.json.applied[0].drew, '??', 'the actor never sees its own draw');
});

function expect422(r, rule) {
  const p = expectProblem(r, 422, 'illegal-play');
  assert.equal(p.rule, rule, r.text);
  assert.ok(Array.isArray(p.legal) && p.legal.length > 0);
}

test('bot explanations never name a card of the player they hint', async () => {
  const g = await create(['bot', 'bot', 'bot', 'bot'], { seed: 8 });
  assert.equal(g.state.over, true);
  const hints = g.applied.filter((r) => r.play.type === 'hint');
  assert.ok(hints.length > 10);
  for (const r of hints) assert.doesNotMatch(r.explanation, /\b[RYBGWM][1-5]\b/, r.explanation);
  assert.ok(g.state.score >= 10, 'the rules bots score');
});

test('bot explanations say only what every reader may know, the same to every reader', async () => {
  const g = await create(['Ann', 'bot', 'bot'], { seed: 6 });
  const token = g.seats[0].token;
  for (let i = 0; i < 6; i++) {
    const legal = (await srv.getOk(`/games/${g.id}/legal`, { token })).plays;
    if (!legal.length) break;
    expectStatus(await srv.post(`/games/${g.id}/plays`, { play: legal.find((p) => p.type === 'hint') || legal[0] }, { token }), 200);
  }
  const mine = (await srv.getOk(`/games/${g.id}/plays`, { token })).plays.filter((p) => p.explanation);
  const theirs = (await srv.getOk(`/games/${g.id}/plays`)).plays.filter((p) => p.explanation);
  assert.ok(mine.length >= 6);
  assert.deepEqual(mine.map((p) => p.explanation), theirs.map((p) => p.explanation));
  for (const p of mine) {
    // no card, no odds, nothing counted from hidden hands, no claim that a hinted card is playable
    assert.doesNotMatch(p.explanation, /\b[RYBGWM][1-5]\b|%|\d+ legal plays|can be played now/, p.explanation);
  }
});

test('events: seed shapes, per seat; hint events only to the target', async () => {
  const g = await create(['Ann', 'Bob', 'bot'], { seed: 4 });
  const [a, b] = g.seats.map((s) => s.token);
  let cur = (await srv.getOk(`/games/${g.id}`)).state.current;
  // Make one hint from the current human to the other human.
  const tok = cur === 0 ? a : b;
  const target = cur === 0 ? 1 : 0;
  const legal = await srv.getOk(`/games/${g.id}/legal`, { token: tok });
  const hint = legal.plays.find((p) => p.type === 'hint' && p.target === target);
  assert.ok(hint, 'a hint to the other person is legal');
  expectStatus(await srv.post(`/games/${g.id}/plays`, { play: hint }, { token: tok }), 200);
  const evA = (await srv.getOk(`/games/${g.id}/events`, { token: a }));
  const evB = (await srv.getOk(`/games/${g.id}/events`, { token: b }));
  const evS = (await srv.getOk(`/games/${g.id}/events`));
  const start = evA[0];
  assert.deepEqual(Object.keys(start).sort(), ['event', 'handColor', 'handNumber', 'n']);
  assert.deepEqual(start.handColor[0], start.handColor[0].map(() => -1), 'own cards unknown (-1)');
  assert.deepEqual(start.handNumber[0], start.handNumber[0].map(() => -1));
  assertEvery(evS[0].handNumber.flat(), (n) => n === -1, 'a spectator sees no hand card', { length: 15 });
  assertEvery(evB[0].handNumber[0], (n) => n >= 1, 'a seat sees the other hands', { length: 5 });
  const hintEv = hint.color ? 'onHintColor' : 'onHintNumber';
  const mine = target === 0 ? evA : evB, theirs = target === 0 ? evB : evA;
  assert.ok(mine.some((e) => e.event === hintEv), 'the target is told');
  assert.ok(!theirs.some((e) => e.event === hintEv), 'the hinter is not');
  const act = mine.findLast((e) => e.event === 'onPlayerAction');
  assert.equal(act.actionType, hint.color ? 0 : 1);
  assert.equal(act.target, target);
  assert.ok(!('play' in act) && !('discard' in act) && !('draw' in act), 'keys exactly as the seed says');
  assertEvery(evA, (e, i) => e.n === i + 1, 'events numbered from 1', { min: 3 });
  assert.deepEqual((await srv.getOk(`/games/${g.id}/events?after=2`, { token: a })), evA.slice(2));
});

test('SSE: a finished game streams every event and ends with onGameEnd', async () => {
  const g = await create(['bot', 'bot', 'bot'], { seed: 9 });
  const events = await new Promise((resolve, reject) => {
    const got = [];
    http.get(`${srv.base}/games/${g.id}/events`, { headers: { accept: 'text/event-stream' } }, (res) => {
      assert.match(res.headers['content-type'], /^text\/event-stream/);
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = /^data: (.*)$/m.exec(frame);
          const name = /^event: (.*)$/m.exec(frame);
          if (data) got.push({ name: name[1], data: JSON.parse(data[1]) });
        }
      });
      res.on('end', () => resolve(got));
    }).on('error', reject);
  });
  const json = (await srv.getOk(`/games/${g.id}/events`));
  assert.equal(events.length, json.length);
  assert.equal(events[0].name, 'onStart');
  assert.equal(events.at(-1).name, 'onGameEnd');
  assert.equal(events.at(-1).data.score, g.state.score);
});

test('WebSocket: a human plays a whole game by the seed protocol', { skip: viaFcgi && 'FastCGI has no WebSocket', timeout: 60000 }, async () => {
  const g = await create(['Ann', 'bot'], { seed: 12 });
  const token = g.seats[0].token;
  // A browser's way to present the seat token (it cannot set Authorization).
  const ws = new WebSocket(`${srv.base.replace('http', 'ws')}/games/${g.id}/ws`, ['croupier', `croupier.token.${token}`]);
  const seen = [];
  const end = await new Promise((resolve, reject) => {
    ws.on('error', reject);
    ws.on('message', async (raw) => {
      const text = raw.toString();
      const m = JSON.parse(text);
      seen.push(m);
      if (m.event === 'turn') {
        assert.equal(text, '{"event": "turn"}');
        // Ask help mode what to do, answer in the seed's numeric form.
        const h = await srv.getOk(`/games/${g.id}/hint`, { token });
        ws.send(JSON.stringify(numeric(h.play)));
      } else if (m.event === 'onGameEnd') {
        resolve(m);
      } else if (m.event === 'invalidAction') {
        reject(new Error(m.message));
      }
    });
  });
  ws.close();
  const names = new Set(seen.map((m) => m.event));
  for (const n of ['onStart', 'onTurnStart', 'onPlayerAction', 'onGameEnd']) assert.ok(names.has(n), n);
  assertEvery(seen, (m) => !('n' in m), 'wire events carry no "n"');
  assert.ok(seen.filter((m) => m.event === 'turn').length > 10, 'asked many times');
  const fin = (await srv.getOk(`/games/${g.id}`)).state;
  assert.equal(fin.over, true);
  assert.equal(end.score, fin.score);
  assert.equal(end.reason, { errors: 0, 'deck-out': 1, 'all-fives': 2 }[fin.result]);
});

test('export: hanablive and json after the game; forbidden to a seat while it runs', async () => {
  const running = await create(['Ann', 'bot'], { seed: 21 });
  expectProblem(await srv.get(`/games/${running.id}/export?format=hanablive`, { token: running.seats[0].token }), 403, 'forbidden');
  for (const variant of ['standard', 'rainbow']) {
    const g = await create(['bot', 'bot', 'bot'], { seed: 22, variant });
    const ex = await srv.get(`/games/${g.id}/export?format=hanablive`);
    expectStatus(ex, 200);
    const h = ex.json;
    assert.equal(h.players.length, 3);
    assert.equal(h.deck.length, variant === 'rainbow' ? 60 : 50);
    assert.equal(h.options.variant, variant === 'rainbow' ? 'Rainbow (6 Suits)' : 'No Variant');
    const plays = (await srv.getOk(`/games/${g.id}/plays`)).plays;
    const dropped = h.croupier ? h.croupier.dropped_actions : 0;
    assert.equal(h.actions.length, plays.length - dropped, 'one action per play, up to hanab.live\'s end');
    assert.deepEqual(hanabLiveReplay(h).score, h.croupier ? h.croupier.hanablive_score : g.state.score);
    for (const a of h.actions) {
      assert.ok([0, 1, 2, 3].includes(a.type));
      if (a.type <= 1) assert.ok(a.target >= 0 && a.target < h.deck.length, 'play/discard targets are card orders');
      else assert.ok(a.target >= 0 && a.target < 3);
    }
    const j = await srv.get(`/games/${g.id}/export?format=json`);
    expectStatus(j, 200);
    const imp = await srv.post('/games/import', j.json);
    expectStatus(imp, 201);
    assert.deepEqual(imp.json.state, (await srv.getOk(`/games/${g.id}`)).state);
  }
});

/**
 * An independent replay of an exported game by hanab.live's rules (its
 * server's game.go CheckEnd, game_player.go DrawCard, command_action.go):
 * hands dealt player by player by card order; the game ends at the 3rd
 * strike (score 0), on the turn EndTurn = (turn that drew the last card) +
 * players + 1, or when no copy of any pile's next card is left that is
 * neither discarded nor in the hand of a player who has had their final
 * turn. Every action must be legal and none may follow the end.
 */
function hanabLiveReplay(h) {
  const np = h.players.length, hs = np <= 3 ? 5 : 4;
  const nsuits = h.options.variant === 'No Variant' ? 5 : 6;
  const hands = [...Array(np)].map((_, p) => [...Array(hs)].map((_, i) => p * hs + i));
  const stacks = Array(nsuits).fill(0), gone = new Set(), cannot = new Set();
  let next = np * hs, turn = 0, endTurn = -1, clues = 8, strikes = 0, cur = 0, ended = null;
  const touches = (c, a) => (a.type === 2 ? c.suitIndex === a.value || c.suitIndex === 5 : c.rank === a.value);
  h.actions.forEach((a, i) => {
    assert.equal(ended, null, `action ${i} comes after hanab.live's end`);
    const hand = hands[cur];
    if (a.type <= 1) {
      const k = hand.indexOf(a.target);
      assert.ok(k >= 0, `action ${i}: card ${a.target} is in the hand of player ${cur}`);
      hand.splice(k, 1);
      const c = h.deck[a.target];
      gone.add(a.target);
      if (a.type === 1) {
        assert.ok(clues < 8, `action ${i}: no discard with 8 clues`);
        clues++;
      } else if (stacks[c.suitIndex] === c.rank - 1) {
        stacks[c.suitIndex] = c.rank;
        if (c.rank === 5 && clues < 8) clues++;
      } else {
        strikes++;
      }
      if (next < h.deck.length) {
        hand.push(next++);
        if (next === h.deck.length) endTurn = turn + np + 1;
      }
    } else {
      assert.ok(clues > 0 && a.target !== cur, `action ${i}: a legal clue`);
      assert.ok(hands[a.target].some((o) => touches(h.deck[o], a)), `action ${i}: the clue touches a card`);
      clues--;
    }
    if (endTurn !== -1 && endTurn !== turn + np + 1) hand.forEach((o) => cannot.add(o));
    turn++;
    cur = (cur + 1) % np;
    const score = stacks.reduce((x, y) => x + y, 0);
    const playable = (s, suit) => s < 5 && h.deck.some((c, o) => c.suitIndex === suit && c.rank === s + 1 && !gone.has(o) && !cannot.has(o));
    if (strikes === 3) ended = { why: 'strikes', score: 0, at: turn };
    else if (turn === endTurn) ended = { why: 'final-round', score, at: turn };
    else if (!stacks.some(playable)) ended = { why: 'nothing-playable', score, at: turn };
  });
  return ended || { why: 'playing', score: stacks.reduce((x, y) => x + y, 0), at: turn };
}

test('export hanablive: what hanab.live replays, its end and score named (seed 2, 3 rules bots)', async () => {
  // The seed's end rule: 66 actions; the 61st draws the last card, so
  // hanab.live ends after the 64th with 17 points; the game itself goes on to 18.
  const g = await create(['bot', 'bot', 'bot'], { seed: 2 });
  assert.equal(g.state.over, true);
  const plays = (await srv.getOk(`/games/${g.id}/plays`)).plays;
  assert.equal(plays.length, 66);
  const ex = await srv.get(`/games/${g.id}/export?format=hanablive`);
  expectStatus(ex, 200);
  const h = ex.json;
  assert.equal(h.actions.length, 64);
  assert.deepEqual(h.croupier, {
    note: h.croupier.note, end: 'seed', hanablive_end: 'final-round', actions: 66, exported_actions: 64,
    dropped_actions: 2, score: g.state.score, hanablive_score: 17,
  });
  assert.equal(g.state.score, 18);
  assert.match(h.croupier.note, /the 2 actions after it are not exported.*seed's end rule.*scores 17, this game 18/);
  assert.deepEqual(hanabLiveReplay(h), { why: 'final-round', score: 17, at: 64 }, 'hanab.live ends exactly there');
  // the exported actions are the game's first 64 (the same plays, in hanab.live's terms)
  const types = { play: 0, discard: 1 };
  h.actions.forEach((a, i) => {
    const p = plays[i].play;
    assert.equal(a.type, p.type === 'hint' ? (p.color ? 2 : 3) : types[p.type], `action ${i}`);
  });
  // {"end": "standard"}: hanab.live's own end; exported whole and unchanged
  const s = await create(['bot', 'bot', 'bot'], { seed: 2, options: { end: 'standard' } });
  const sp = (await srv.getOk(`/games/${s.id}/plays`)).plays;
  const sx = (await srv.getOk(`/games/${s.id}/export?format=hanablive`));
  assert.equal(sx.actions.length, sp.length);
  assert.deepEqual(Object.keys(sx).sort(), ['actions', 'deck', 'options', 'players']);
  assert.deepEqual(hanabLiveReplay(sx), { why: 'final-round', score: s.state.score, at: sp.length });
});

test('export hanablive: many games replay on hanab.live\'s rules to the scores the export names', async () => {
  for (let seed = 40; seed < 52; seed++) {
    const n = 2 + (seed % 4);
    const options = seed % 2 ? { end: 'standard' } : undefined;
    const g = await create(Array(n).fill('bot'), { seed, options, variant: seed % 3 ? 'standard' : 'rainbow' });
    const h = (await srv.getOk(`/games/${g.id}/export?format=hanablive`));
    const r = hanabLiveReplay(h);
    assert.notEqual(r.why, 'playing', `seed ${seed}: the export reaches hanab.live's end`);
    assert.equal(r.at, h.actions.length);
    if (h.croupier) {
      assert.equal(r.score, h.croupier.hanablive_score, `seed ${seed}`);
      assert.equal(r.why, h.croupier.hanablive_end);
      assert.equal(h.croupier.score, g.state.score);
    } else {
      assert.equal(r.score, g.state.score, `seed ${seed}`);
    }
  }
});

test('info plays only at all-info tables: beside a person or another strategy it is refused, naming the seat; conventions advise and take resigned seats', async () => {
  const withPerson = await srv.post('/games', { game: 'hanabi', players: [{ name: 'Ann' }, { bot: 'info' }, { bot: 'info' }] });
  expectProblem(withPerson, 400, 'invalid-member');
  assert.equal(withPerson.json.errors[0].pointer, '/players/0');
  assert.match(withPerson.json.detail, /every seat is info/);
  const mixed = await srv.post('/games', { game: 'hanabi', players: [{ bot: 'info' }, { bot: 'rules' }] });
  expectProblem(mixed, 400, 'invalid-member');
  assert.equal(mixed.json.errors[0].pointer, '/players/1/bot');
  const all = await srv.post('/games', { game: 'hanabi', seed: 4, players: [{ bot: 'info' }, { bot: 'info' }, { bot: 'info' }] });
  expectStatus(all, 201, 'an all-info table');
  assert.equal(all.json.state.over, true, 'bots only: played to the end at once');
  assert.ok(all.json.state.score >= 20, `info scores (${all.json.state.score})`);
  const cat = (await srv.getOk('/rules')).games.find((x) => x.game === 'hanabi');
  assert.ok(cat.bots.includes('info'), 'info is a Hanabi bot');
  assert.ok(!cat.bots_with_people.includes('info') && cat.bots_with_people.includes('conventions'),
    `bots_with_people: ${cat.bots_with_people}`);
  const g = await create(['Ann', 'bot']);
  const hint = await srv.get(`/games/${g.id}/hint`, { token: g.seats[0].token });
  expectStatus(hint, 200, 'GET /hint');
  assert.equal(hint.json.strategy, 'conventions');
});
