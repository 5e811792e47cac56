// Hanabi through the HTTP API: views that never leak a seat's own cards (on
// the raw response text), both play forms, rule errors, per-seat events, the
// SSE stream, a whole game over the WebSocket protocol, and the exports.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import WebSocket from 'ws';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';

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

test('views: a seat sees every hand but its own (raw text), spectators all hands, nobody the deck order', async () => {
  // Find a seeded game where seat 0 holds a card that appears nowhere else in
  // the admin's view: then its absence from seat 0's raw text is meaningful.
  let g, secret;
  for (let seed = 1; seed < 60 && !secret; seed++) {
    g = await create(['Ann', 'bot', 'bot'], { seed });
    const admin = await srv.get(`/games/${g.id}`, { token: srv.adminToken });
    const own = admin.json.state.hands[0].map((c) => c.card);
    const rest = JSON.stringify({ ...admin.json.state, hands: admin.json.state.hands.slice(1), deck_order: [] });
    secret = own.find((c) => !rest.includes(`"${c}"`));
  }
  assert.ok(secret, 'a game with a card only seat 0 holds');
  const token = g.seats[0].token;
  const seat = await srv.get(`/games/${g.id}`, { token });
  const spec = await srv.get(`/games/${g.id}`);
  const admin = await srv.get(`/games/${g.id}`, { token: srv.adminToken });
  for (const [who, r] of [['seat', seat], ['spectator', spec]]) {
    assert.doesNotMatch(r.text, /deck_order/, `${who}: no deck order`);
    assert.equal(typeof r.json.state.deck, 'number', `${who}: deck is a count`);
  }
  assert.ok(!seat.text.includes(`"${secret}"`), `seat 0's raw view does not contain its own ${secret}`);
  assert.ok(spec.text.includes(`"${secret}"`), 'a spectator sees every hand');
  assert.ok(Array.isArray(admin.json.state.deck_order), 'the admin sees the deck');
  assert.deepEqual(seat.json.state.hands[0].map((c) => c.card), seat.json.state.hands[0].map(() => '??'));
  assert.deepEqual(seat.json.state.hands[1], spec.json.state.hands[1], 'other hands shown in full');
  for (const path of [`/games/${g.id}/plays`, `/games/${g.id}/events`, `/games/${g.id}/legal`, `/games/${g.id}/hint`]) {
    const r = await srv.get(path, { token });
    expectStatus(r, 200, path);
    assert.ok(!r.text.includes(`"${secret}"`), `${path} does not leak ${secret}`);
  }
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
  const legal = await srv.get(`/games/${g.id}/legal`, { token: me });
  const hint = legal.json.plays.find((p) => p.type === 'hint');
  const ok = await srv.post(`/games/${g.id}/plays`, { play: numeric(hint) }, { token: me });
  expectStatus(ok, 200, 'numeric form');
  assert.deepEqual(ok.json.applied[0].play, hint, 'recorded in our form');
  assert.equal(ok.json.state.hints, 7, 'a hint costs a token');
  const legal2 = await srv.get(`/games/${g.id}/legal`, { token: other });
  const disc = legal2.json.plays.find((p) => p.type === 'discard');
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

test('events: seed shapes, per seat; hint events only to the target', async () => {
  const g = await create(['Ann', 'Bob', 'bot'], { seed: 4 });
  const [a, b] = g.seats.map((s) => s.token);
  let cur = (await srv.get(`/games/${g.id}`)).json.state.current;
  // Make one hint from the current human to the other human.
  const tok = cur === 0 ? a : b;
  const target = cur === 0 ? 1 : 0;
  const legal = await srv.get(`/games/${g.id}/legal`, { token: tok });
  const hint = legal.json.plays.find((p) => p.type === 'hint' && p.target === target);
  expectStatus(await srv.post(`/games/${g.id}/plays`, { play: hint }, { token: tok }), 200);
  const evA = (await srv.get(`/games/${g.id}/events`, { token: a })).json;
  const evB = (await srv.get(`/games/${g.id}/events`, { token: b })).json;
  const evS = (await srv.get(`/games/${g.id}/events`)).json;
  const start = evA[0];
  assert.deepEqual(Object.keys(start).sort(), ['event', 'handColor', 'handNumber', 'n']);
  assert.deepEqual(start.handColor[0], start.handColor[0].map(() => -1), 'own cards unknown (-1)');
  assert.deepEqual(start.handNumber[0], start.handNumber[0].map(() => -1));
  assert.ok(evS[0].handNumber[0].every((n) => n >= 1), 'a spectator sees every card');
  const hintEv = hint.color ? 'onHintColor' : 'onHintNumber';
  const mine = target === 0 ? evA : evB, theirs = target === 0 ? evB : evA;
  assert.ok(mine.some((e) => e.event === hintEv), 'the target is told');
  assert.ok(!theirs.some((e) => e.event === hintEv), 'the hinter is not');
  const act = mine.findLast((e) => e.event === 'onPlayerAction');
  assert.equal(act.actionType, hint.color ? 0 : 1);
  assert.equal(act.target, target);
  assert.ok(!('play' in act) && !('discard' in act) && !('draw' in act), 'keys exactly as the seed says');
  evA.forEach((e, i) => assert.equal(e.n, i + 1));
  assert.deepEqual((await srv.get(`/games/${g.id}/events?after=2`, { token: a })).json, evA.slice(2));
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
  const json = (await srv.get(`/games/${g.id}/events`)).json;
  assert.equal(events.length, json.length);
  assert.equal(events[0].name, 'onStart');
  assert.equal(events.at(-1).name, 'onGameEnd');
  assert.equal(events.at(-1).data.score, g.state.score);
});

test('WebSocket: a human plays a whole game by the seed protocol', { skip: viaFcgi && 'FastCGI has no WebSocket', timeout: 60000 }, async () => {
  const g = await create(['Ann', 'bot'], { seed: 12 });
  const token = g.seats[0].token;
  const ws = new WebSocket(`${srv.base.replace('http', 'ws')}/games/${g.id}/ws?token=${token}`);
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
        const h = await srv.get(`/games/${g.id}/hint`, { token });
        ws.send(JSON.stringify(numeric(h.json.play)));
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
  assert.ok(seen.every((m) => !('n' in m)), 'wire events carry no "n"');
  assert.ok(seen.filter((m) => m.event === 'turn').length > 10, 'asked many times');
  const fin = (await srv.get(`/games/${g.id}`)).json.state;
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
    const plays = (await srv.get(`/games/${g.id}/plays`)).json.plays;
    assert.equal(h.actions.length, plays.length, 'one action per play');
    for (const a of h.actions) {
      assert.ok([0, 1, 2, 3].includes(a.type));
      if (a.type <= 1) assert.ok(a.target >= 0 && a.target < h.deck.length, 'play/discard targets are card orders');
      else assert.ok(a.target >= 0 && a.target < 3);
    }
    const j = await srv.get(`/games/${g.id}/export?format=json`);
    expectStatus(j, 200);
    const imp = await srv.post('/games/import', j.json);
    expectStatus(imp, 201);
    assert.deepEqual(imp.json.state, (await srv.get(`/games/${g.id}`)).json.state);
  }
});
