// Five Crowns through the HTTP API: the coin toss call, open and closed
// tables, plays and the computer's explanations, help mode, and save/resume
// in the seed's text format, including every real save file in
// tests/fixtures/fivecrowns (loaded, warned or rejected as its README says);
// saves too big for a game refused naming the line; what a closed table (the
// default) shows each reader (plays, events, explanations); a seat's export
// concealed (draw pile order, RNG and seed redrawn; at a closed table the
// other hand dealt anew and the other seats' blind draws left out), the
// admin's exact.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';
import { ROOT } from './lib/contract.mjs';

const srv = useServer();
const FIXTURES = path.join(ROOT, 'tests', 'fixtures', 'fivecrowns');
const NAMED = /\bthe (\w+ of (spades|clubs|diamonds|hearts|tridents)|joker)\b/i;

async function create(options, seed = 5, players = [{ name: 'Ann' }, { bot: 'strategy' }]) {
  const body = { game: 'fivecrowns', seed, players };
  if (options) body.options = options;
  const r = await srv.post('/games', body);
  expectStatus(r, 201);
  return r.json;
}

test('coin toss: the human calls it; the caller starts when the call is right', async () => {
  for (const call of ['heads', 'tails']) {
    const g = await create({ call });
    assert.equal(g.state.toss.call, call);
    assert.equal(g.state.starter, g.state.toss.result === call ? 0 : 1);
  }
  const p = expectProblem(await srv.post('/games', { game: 'fivecrowns', players: [{ name: 'A' }, { bot: 'strategy' }], options: { call: 'edge' } }), 400, 'invalid-member');
  assert.equal(p.errors[0].pointer, '/options/call');
  expectProblem(await srv.post('/games', { game: 'fivecrowns', players: [{ name: 'A' }, { bot: 'strategy' }], options: { colour: 1 } }), 400, 'invalid-member');
});

test('closed table by default (the other hand, the piles hidden); {"open": true} shows them (raw text)', async () => {
  const closed = await create(undefined, 7);
  assert.equal(closed.state.open, false);
  const me = closed.seats[0].token;
  const v = await srv.get(`/games/${closed.id}`, { token: me });
  assert.equal(v.json.state.hands[1], null, 'the other hand is hidden');
  assert.doesNotMatch(v.text, /"draw_pile"|"discard_pile"/);
  const admin = await srv.get(`/games/${closed.id}`, { token: srv.adminToken });
  assert.ok(Array.isArray(admin.json.state.draw_pile), 'the admin sees the draw pile');
  const open = await create({ open: true }, 7);
  assert.equal(open.state.hands.length, 2);
  assert.ok(open.state.hands[1].length >= 3, 'the computer hand is on screen');
  assert.ok(Array.isArray(open.state.draw_pile), 'the draw pile is on screen');
  const ex = await srv.get(`/games/${open.id}/export?format=fivecrowns-text`, { token: open.seats[0].token });
  if (open.state.went_out === null) {
    expectStatus(ex, 200, 'an open table is saved by its seat');
  } else {
    // The seed's format cannot hold "someone went out, last turns under way".
    const p = expectProblem(ex, 400, 'invalid-parameter');
    assert.match(p.detail, /gone out/);
  }
});

test('a turn: draw then discard; errors; the computer explains every move naming the card', async () => {
  const g = await create({ call: 'heads' }, 11);
  const token = g.seats[0].token;
  let st = (await srv.get(`/games/${g.id}`, { token })).json.state;
  assert.equal(st.current, 0, 'after the bots, it is my turn');
  expectProblem(await srv.post(`/games/${g.id}/plays`, { play: { discard: st.hand[0] } }, { token }), 422, 'illegal-play');
  expectProblem(await srv.post(`/games/${g.id}/plays`, { play: { draw: 'sideways' } }, { token }), 400, 'invalid-member');
  const hint = (await srv.get(`/games/${g.id}/hint`, { token })).json;
  assert.ok(hint.draw && ['draw', 'discard'].includes(hint.draw.source), 'help says where to draw');
  assert.match(hint.explanation, /^(Draw from the draw pile|Take the .+ from the discard pile): ./, `said to the player: ${hint.explanation}`);
  assert.ok(hint.arrangement && Array.isArray(hint.arrangement.runs) && Array.isArray(hint.arrangement.books));
  assert.equal(typeof hint.go_out, 'boolean');
  let r = await srv.post(`/games/${g.id}/plays`, { play: hint.play }, { token });
  expectStatus(r, 200);
  assert.equal(r.json.state.current, 0, 'same player discards next');
  const h2 = (await srv.get(`/games/${g.id}/hint`, { token })).json;
  assert.ok(h2.discard && h2.discard.card, 'help says what to discard');
  assert.match(h2.discard.why, /^Discard the .+?: ./, `said to the player: ${h2.discard.why}`);
  r = await srv.post(`/games/${g.id}/plays`, { play: h2.play }, { token });
  expectStatus(r, 200);
  const bots = r.json.applied.filter((x) => x.seat === 1);
  assert.ok(bots.length >= 2, 'the computer drew and discarded');
  for (const b of bots) {
    assert.match(b.explanation, NAMED, `names the card: ${b.explanation}`);
    assert.match(b.explanation, /^(draws|takes|discards) .+?: ./, `the play without a subject, then its reason: ${b.explanation}`);
  }
});

test('a whole game of bots: 11 rounds, lowest total wins', async () => {
  const g = await create(undefined, 21, [{ bot: 'strategy' }, { bot: 'greedy' }]);
  assert.equal(g.state.over, true);
  assert.equal(g.state.rounds.length, 11);
  const [a, b] = g.state.scores;
  if (a !== b) assert.equal(g.state.winner, a < b ? 0 : 1);
});

function sections(text) {
  // The save as a map of section -> tokens (10 written as X; order kept).
  const out = {};
  let who = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const m = /^([A-Za-z ]+):\s*(.*)$/.exec(line);
    if (!m) continue;
    let [, key, rest] = m;
    if (key === 'Computer' || key === 'Human') { who = key; continue; }
    if (key === 'Score' || key === 'Hand') key = `${who} ${key}`;
    out[key] = rest.split(/\s+/).filter(Boolean).map((c) => c.replace(/^10/, 'X'));
  }
  return out;
}

test('save and resume: every fixture loads or is rejected as its README says; round trips', async () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.txt'));
  assert.ok(files.length >= 8, `fixtures found in ${FIXTURES}`);
  const warned = { 'case3.txt': /5H/, 'round4-tabs-10.txt': /6C/, 'round1-97-cards.txt': /97/ };
  for (const f of files) {
    const text = readFileSync(path.join(FIXTURES, f), 'utf8');
    const r = await srv.request('POST', '/games/import', { body: text, contentType: 'text/plain', headers: { 'x-croupier-import': 'text' } });
    if (f === 'bad-hand-size-round10.txt') {
      const p = expectProblem(r, 400, 'invalid-member', f);
      assert.match(p.detail, /line \d+/, 'the error names the line');
      continue;
    }
    expectStatus(r, 201, f);
    if (warned[f]) assert.ok(r.json.warnings.some((w) => warned[f].test(w)), `${f} warns: ${r.json.warnings}`);
    else assert.deepEqual(r.json.warnings, [], `${f} has no oddity`);
    if (/Next Player:\s*Computer/.test(text)) {
      // Resuming means the computer moves at once (the engine's unit test
      // checks the text round trip of this file without the move).
      assert.equal(r.json.applied[0].seat, 1, `${f}: the computer resumes first`);
      assert.match(r.json.applied[0].explanation, NAMED);
      continue;
    }
    assert.deepEqual(r.json.applied, [], `${f}: the human is to move; nothing played`);
    const ex = await srv.get(`/games/${r.json.id}/export?format=fivecrowns-text`, { token: srv.adminToken });
    expectStatus(ex, 200, `${f} export`);
    assert.match(ex.headers.get('content-type'), /^text\/plain/);
    assert.equal(ex.headers.get('croupier-export'), null, 'the admin\'s export is exact');
    assert.deepEqual(sections(ex.text), sections(text), `${f}: import then export gives back an equivalent file`);
    // The seat's own save of the running game (an imported save is a closed
    // table): the Computer's hand dealt anew from the cards the Human has not
    // seen (that hand and the draw pile together), the draw pile reordered;
    // everything the Human sees as saved.
    assert.equal(r.json.state.open, false, `${f}: an imported save is a closed table`);
    const mine = await srv.get(`/games/${r.json.id}/export?format=fivecrowns-text`, { token: r.json.seats[0].token });
    expectStatus(mine, 200, `${f} seat export`);
    assert.equal(mine.headers.get('croupier-export'), 'concealed');
    const [a, b] = [sections(mine.text), sections(text)];
    const unseen = (x) => [...x['Computer Hand'], ...x['Draw Pile']].sort();
    assert.deepEqual(unseen(a), unseen(b), `${f}: the same unseen cards`);
    assert.equal(a['Computer Hand'].length, b['Computer Hand'].length, `${f}: the Computer's hand size`);
    for (const x of [a, b]) { delete x['Draw Pile']; delete x['Computer Hand']; }
    assert.deepEqual(a, b, `${f}: everything on view is as saved`);
  }
});

test('save mid-game, resume under a new id, play on', async () => {
  const g = await create({ call: 'tails' }, 31);
  const token = g.seats[0].token;
  const saved = await srv.get(`/games/${g.id}/export?format=fivecrowns-text`, { token });
  expectStatus(saved, 200);
  assert.match(saved.text, /^Round: 1/);
  assert.match(saved.text, /Next Player: Human/);
  const imp = await srv.request('POST', '/games/import?game=fivecrowns', { body: saved.text, contentType: 'text/plain', headers: { 'x-croupier-import': 'text' } });
  expectStatus(imp, 201);
  const a = (await srv.get(`/games/${g.id}`, { token })).json.state;
  const b = imp.json.state;
  assert.deepEqual([b.round, b.hand, b.scores, b.discard_top, b.current], [a.round, a.hand, a.scores, a.discard_top, a.current]);
  const t2 = imp.json.seats[0].token;
  const legal = await srv.get(`/games/${imp.json.id}/legal`, { token: t2 });
  expectStatus(await srv.post(`/games/${imp.json.id}/plays`, { play: legal.json.plays[0] }, { token: t2 }), 200);
  expectProblem(await srv.request('POST', '/games/import?game=nosuch', { body: saved.text, contentType: 'text/plain', headers: { 'x-croupier-import': 'text' } }), 404, 'not-found');
});

// A round 1 save whose piles hold nd and nc cards: Draw Pile on line 11,
// Discard Pile on line 13.
const TYPES = [...'SCDHT'].flatMap((su) => [...'3456789XJQK'].map((r) => r + su)).concat(['J1', 'J2', 'J3']);
function pileSave(nd, nc) {
  const cards = (n, from) => Array.from({ length: n }, (_, i) => TYPES[(i + from) % TYPES.length]).join(' ');
  return `Round: 1\n\nComputer:\n   Score: 0\n   Hand: XS KH J1\n\nHuman:\n   Score: 0\n   Hand: JD 3T QC\n\n`
    + `Draw Pile: ${cards(nd, 0)}\n\nDiscard Pile: ${cards(nc, 7)}\n\nNext Player: Human\n`;
}

test('a save holding more cards than a game can store is refused naming the line; a full one plays on', async () => {
  const text = pileSave(10, 240);
  const p = expectProblem(await srv.request('POST', '/games/import', { body: text, contentType: 'text/plain', headers: { 'x-croupier-import': 'text' } }), 400, 'invalid-member');
  assert.match(p.detail, /line 13: the discard pile holds 240 cards/);
  const p2 = expectProblem(await srv.request('POST', '/games/import', { body: pileSave(240, 1), contentType: 'text/plain', headers: { 'x-croupier-import': 'text' } }), 400, 'invalid-member');
  assert.match(p2.detail, /line 11: the draw pile/);
  // the same as a JSON export: refused naming the member
  const g = await create(undefined, 3);
  const ex = (await srv.get(`/games/${g.id}/export`, { token: srv.adminToken })).json;
  ex.state.discard_pile = Array.from({ length: 240 }, (_, i) => TYPES[i % TYPES.length]);
  const p3 = expectProblem(await srv.post('/games/import', ex), 400, 'invalid-member');
  assert.equal(p3.errors[0].pointer, '/state/discard_pile');
  // exactly full (6 cards in the hands, 234 in the piles): loads, and the game goes on
  const ok = await srv.request('POST', '/games/import', { body: pileSave(0, 234), contentType: 'text/plain', headers: { 'x-croupier-import': 'text' } });
  expectStatus(ok, 201);
  const token = ok.json.seats[0].token;
  for (let i = 0; i < 6; i++) {
    const hint = (await srv.get(`/games/${ok.json.id}/hint`, { token })).json;
    if (!hint.play) break;
    const r = await srv.post(`/games/${ok.json.id}/plays`, { play: hint.play }, { token });
    expectStatus(r, 200);
    if (r.json.state.over) break;
  }
  expectStatus(await srv.get('/healthz'), 200);
});

const CARD_NAME = /\b(?:(?:[3-9]|10|jack|queen|king) of (?:spades|clubs|diamonds|hearts|tridents)|joker)\b/gi;
function cardName(c) {
  if (/^J[123]$/.test(c)) return 'joker';
  const rank = { X: '10', J: 'jack', Q: 'queen', K: 'king' }[c[0]] ?? c[0];
  const suit = { S: 'spades', C: 'clubs', D: 'diamonds', H: 'hearts', T: 'tridents' }[c[1]];
  return `${rank} of ${suit}`;
}

// A bot's explanation at a closed table: the only card it names is the one
// its play shows everybody (or, for a blind draw, the discard top it passed
// up: `top`, the last card discarded in the round, when known); no point
// count, no group of the hidden hand.
function checkPublicExplanation(rec, top) {
  const x = rec.explanation;
  const named = (x.match(CARD_NAME) || []).map((n) => n.toLowerCase());
  if (rec.play.discard) assert.deepEqual(named, [cardName(rec.play.discard)], x);
  else if (rec.play.draw === 'discard') assert.deepEqual(named, [cardName(rec.card)], x);
  else {
    assert.ok(named.length <= 1, x);
    if (named.length && top) assert.deepEqual(named, [cardName(top)], x);
  }
  assert.doesNotMatch(x.replace(CARD_NAME, '').replace(/player \d+/g, ''), /\d/, `no number: ${x}`);
  assert.doesNotMatch(x, /\b(run|book) of /, x);
}

test('a closed table: plays, events and explanations name no card the reader may not see', async () => {
  const g = await create({ open: false }, 17, [{ name: 'Ann' }, { bot: 'strategy' }, { bot: 'greedy' }, { bot: 'random' }]);
  const token = g.seats[0].token;
  // walk a list of records, checking each bot explanation against the discard top
  const walk = (list, each) => {
    let top, round;
    for (const rec of list) {
      if (rec.round !== round) [top, round] = [undefined, rec.round];
      if (rec.explanation) checkPublicExplanation(rec, top);
      each?.(rec);
      if (rec.play.discard) top = rec.play.discard;
      if (rec.round_end) top = undefined;
    }
  };
  let applied = g.applied; // the records handed to seat 0
  for (let turn = 0; turn < 8; turn++) {
    walk(applied, (rec) => {
      if (rec.play.draw === 'draw' && rec.seat !== 0) assert.equal(rec.card, undefined, `the blind draw of seat ${rec.seat} is hidden`);
    });
    const v = (await srv.get(`/games/${g.id}`, { token })).json.state;
    if (v.over) break;
    const hint = (await srv.get(`/games/${g.id}/hint`, { token })).json;
    const r = await srv.post(`/games/${g.id}/plays`, { play: hint.play }, { token });
    expectStatus(r, 200);
    applied = r.json.applied;
  }
  const admin = (await srv.get(`/games/${g.id}/plays`, { token: srv.adminToken })).json.plays;
  assert.ok(admin.filter((x) => x.explanation).length >= 12, 'the history keeps the explanations');
  assert.ok(admin.some((x) => x.play.draw === 'draw' && x.seat !== 0 && x.card), 'the admin sees blind draws');
  for (const [who, opts] of [['seat 0', { token }], ['a spectator', {}]]) {
    const plays = (await srv.get(`/games/${g.id}/plays`, opts)).json.plays;
    const events = (await srv.get(`/games/${g.id}/events`, opts)).json;
    assert.equal(plays.length, admin.length);
    for (const list of [plays, events]) {
      walk(list, (rec) => {
        const mine = who === 'seat 0' && rec.seat === 0;
        if (rec.play.draw === 'draw' && !mine) assert.equal(rec.card, undefined, `${who} sees a blind draw: ${JSON.stringify(rec)}`);
      });
    }
    const view = await srv.get(`/games/${g.id}`, opts);
    assert.doesNotMatch(view.text, /"draw_pile"|"rng"/, who);
  }
});

test('a seat exports an open table concealed: another draw order and RNG each time; the admin gets it exact', async () => {
  let g, gseed;
  for (let seed = 40; !g; seed++) { // a game where it is the human's turn, nobody out
    const c = await create({ call: 'heads', open: true }, seed);
    if (c.state.current === 0 && c.state.went_out === null && c.state.draw_count > 40) [g, gseed] = [c, seed];
  }
  const token = g.seats[0].token;
  const admin = await srv.get(`/games/${g.id}/export`, { token: srv.adminToken });
  expectStatus(admin, 200);
  assert.equal(admin.headers.get('croupier-export'), null);
  assert.equal(admin.json.seed, gseed, 'the admin export keeps the seed');
  const [a, b] = [await srv.get(`/games/${g.id}/export`, { token }), await srv.get(`/games/${g.id}/export?format=json`, { token })];
  for (const x of [a, b]) {
    expectStatus(x, 200);
    assert.equal(x.headers.get('croupier-export'), 'concealed');
    assert.equal(x.json.seed, null, 'no seed: it would predict every deal');
    const [s, t] = [x.json.state, admin.json.state];
    assert.notDeepEqual(s.draw_pile, t.draw_pile, 'the draw order is not the real one');
    assert.deepEqual([...s.draw_pile].sort(), [...t.draw_pile].sort(), 'the same cards');
    assert.notDeepEqual(s.rng, t.rng, 'nor the RNG of future deals');
    assert.match(t.bot_key, /^[0-9a-f]{16}$/);
    assert.notEqual(s.bot_key, t.bot_key, 'nor the key of the bots\' chance');
    for (const k of ['hands', 'discard_pile', 'scores', 'history', 'rounds', 'round', 'phase', 'current', 'toss']) {
      assert.deepEqual(s[k], t[k], `${k} is as on the table`);
    }
  }
  assert.notDeepEqual(a.json.state.draw_pile, b.json.state.draw_pile, 'two exports, two orders');
  // the admin's export is exact: it imports to the same state
  const again = await srv.get(`/games/${g.id}/export`, { token: srv.adminToken });
  assert.deepEqual(again.json.state, admin.json.state);
  // both concealed exports resume and play on
  for (const x of [a, b]) {
    const imp = await srv.post('/games/import', x.json);
    expectStatus(imp, 201);
    const t2 = imp.json.seats[0].token;
    const legal = (await srv.get(`/games/${imp.json.id}/legal`, { token: t2 })).json.plays;
    const r = await srv.post(`/games/${imp.json.id}/plays`, { play: legal[0] }, { token: t2 });
    expectStatus(r, 200);
  }
  // the text save too
  const [ta, tb] = [await srv.get(`/games/${g.id}/export?format=fivecrowns-text`, { token }),
    await srv.get(`/games/${g.id}/export?format=fivecrowns-text`, { token })];
  const tadmin = await srv.get(`/games/${g.id}/export?format=fivecrowns-text`, { token: srv.adminToken });
  for (const x of [ta, tb]) {
    expectStatus(x, 200);
    assert.equal(x.headers.get('croupier-export'), 'concealed');
    assert.notDeepEqual(sections(x.text)['Draw Pile'], sections(tadmin.text)['Draw Pile']);
    const imp = await srv.request('POST', '/games/import', { body: x.text, contentType: 'text/plain', headers: { 'x-croupier-import': 'text' } });
    expectStatus(imp, 201);
  }
  assert.notEqual(ta.text, tb.text);
  // a spectator still gets nothing while the game runs
  expectProblem(await srv.get(`/games/${g.id}/export`), 401, 'unauthorized');
});

test('a seat exports a closed table concealed: its own hand as it is, the other hand dealt anew, no blind draw of another seat', async () => {
  let g;
  for (let seed = 60; !g; seed++) { // the human's turn, nobody out, the bot has drawn blind
    const c = await create({ call: 'tails' }, seed);
    if (c.state.current === 0 && c.state.went_out === null && c.applied.some((r) => r.play.draw === 'draw')) g = c;
  }
  const token = g.seats[0].token;
  const real = (await srv.get(`/games/${g.id}/export`, { token: srv.adminToken })).json.state;
  for (let i = 0; i < 3; i++) {
    const x = await srv.get(`/games/${g.id}/export`, { token });
    expectStatus(x, 200);
    assert.equal(x.headers.get('croupier-export'), 'concealed');
    const s = x.json.state;
    assert.deepEqual(s.hands[0], real.hands[0], 'my hand as it is');
    assert.equal(s.hands[1].length, real.hands[1].length);
    assert.deepEqual([...s.hands[1], ...s.draw_pile].sort(), [...real.hands[1], ...real.draw_pile].sort(),
      'the other hand comes from the cards I have not seen');
    for (const [i2, rec] of s.history.entries()) {
      const was = real.history[i2];
      if (was.play.draw === 'draw' && was.seat !== 0) assert.equal(rec.card, undefined, `the bot's blind draw ${i2} is left out`);
      else assert.deepEqual(rec, was);
    }
    assert.notDeepEqual(s.hands[1], real.hands[1], 'the other hand is not the real one');
    const imp = await srv.post('/games/import', x.json);
    expectStatus(imp, 201, 'the save resumes');
  }
  const text = await srv.get(`/games/${g.id}/export?format=fivecrowns-text`, { token });
  expectStatus(text, 200);
  assert.deepEqual(sections(text.text)['Human Hand'], real.hands[0]);
  assert.notDeepEqual(sections(text.text)['Computer Hand'], real.hands[1], 'the text save shows another computer hand');
});
