// Five Crowns through the HTTP API: the coin toss call, open and closed
// tables, plays and the computer's explanations, help mode, and save/resume
// in the seed's text format, including every real save file in
// ../shared/fixtures/fivecrowns (loaded, warned or rejected as its README says).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';
import { ROOT } from './lib/contract.mjs';

const srv = useServer();
const FIXTURES = path.resolve(ROOT, '..', 'shared', 'fixtures', 'fivecrowns');
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

test('open table by default (both hands, the draw pile); {"open": false} hides them (raw text)', async () => {
  const open = await create(undefined, 7);
  assert.equal(open.state.hands.length, 2);
  assert.ok(open.state.hands[1].length >= 3, 'the computer hand is on screen');
  assert.ok(Array.isArray(open.state.draw_pile), 'the draw pile is on screen');
  const closed = await create({ open: false }, 7);
  const me = closed.seats[0].token;
  const v = await srv.get(`/games/${closed.id}`, { token: me });
  assert.equal(v.json.state.hands[1], null, 'the other hand is hidden');
  assert.doesNotMatch(v.text, /"draw_pile"|"discard_pile"/);
  const admin = await srv.get(`/games/${closed.id}`, { token: srv.adminToken });
  assert.ok(Array.isArray(admin.json.state.draw_pile), 'the admin sees the draw pile');
  // A closed table is not exported to a seat while it runs; an open one is (it is on screen anyway).
  expectProblem(await srv.get(`/games/${closed.id}/export?format=fivecrowns-text`, { token: me }), 403, 'forbidden');
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
  assert.match(hint.explanation, /recommend/i);
  assert.ok(hint.arrangement && Array.isArray(hint.arrangement.runs) && Array.isArray(hint.arrangement.books));
  assert.equal(typeof hint.go_out, 'boolean');
  let r = await srv.post(`/games/${g.id}/plays`, { play: hint.play }, { token });
  expectStatus(r, 200);
  assert.equal(r.json.state.current, 0, 'same player discards next');
  const h2 = (await srv.get(`/games/${g.id}/hint`, { token })).json;
  assert.ok(h2.discard && h2.discard.card, 'help says what to discard');
  assert.match(h2.discard.why, /because/);
  r = await srv.post(`/games/${g.id}/plays`, { play: h2.play }, { token });
  expectStatus(r, 200);
  const bots = r.json.applied.filter((x) => x.seat === 1);
  assert.ok(bots.length >= 2, 'the computer drew and discarded');
  for (const b of bots) {
    assert.match(b.explanation, NAMED, `names the card: ${b.explanation}`);
    assert.match(b.explanation, /because/, `gives the reason: ${b.explanation}`);
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
    const r = await srv.request('POST', '/games/import', { body: text, contentType: 'text/plain' });
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
    const ex = await srv.get(`/games/${r.json.id}/export?format=fivecrowns-text`, { token: r.json.seats[0].token });
    expectStatus(ex, 200, `${f} export`);
    assert.match(ex.headers.get('content-type'), /^text\/plain/);
    assert.deepEqual(sections(ex.text), sections(text), `${f}: import then export gives back an equivalent file`);
  }
});

test('save mid-game, resume under a new id, play on', async () => {
  const g = await create({ call: 'tails' }, 31);
  const token = g.seats[0].token;
  const saved = await srv.get(`/games/${g.id}/export?format=fivecrowns-text`, { token });
  expectStatus(saved, 200);
  assert.match(saved.text, /^Round: 1/);
  assert.match(saved.text, /Next Player: Human/);
  const imp = await srv.request('POST', '/games/import?game=fivecrowns', { body: saved.text, contentType: 'text/plain' });
  expectStatus(imp, 201);
  const a = (await srv.get(`/games/${g.id}`, { token })).json.state;
  const b = imp.json.state;
  assert.deepEqual([b.round, b.hand, b.scores, b.discard_top, b.current], [a.round, a.hand, a.scores, a.discard_top, a.current]);
  const t2 = imp.json.seats[0].token;
  const legal = await srv.get(`/games/${imp.json.id}/legal`, { token: t2 });
  expectStatus(await srv.post(`/games/${imp.json.id}/plays`, { play: legal.json.plays[0] }, { token: t2 }), 200);
  expectProblem(await srv.request('POST', '/games/import?game=nosuch', { body: saved.text, contentType: 'text/plain' }), 404, 'not-found');
});
