// Comp10001-Bo bonus (jokers ZZ, embargo cards) through the HTTP API: the
// stored game, the validators in bonus mode, and /play/comp10001bo/bonus.
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';

const srv = useServer();
const empty4 = () => [[], [], [], []];
const noDiscards = () => [empty4(), empty4(), empty4(), empty4()];
const stock = [['9C', 8], ['0D', 8], ['3H', 8], ['KD', 8]];

async function fn(path, args, query = '') {
  const r = await srv.post(`${path}${query}`, args);
  expectStatus(r, 200, path);
  return r.json.result;
}

test('bonus validators: ZZ is a card only in bonus; the seed\'s joker examples', async () => {
  const mb = '/validate/comp10001bo/match_build';
  const md = '/validate/comp10001bo/match_discard';
  assert.equal(await fn(mb, ['ZZ', []]), false, 'standard: ZZ is not a card');
  assert.equal(await fn(mb, ['ZZ', []], '?variant=bonus'), true, 'a joker starts a build pile');
  assert.equal(await fn(mb, { play_card: 'ZZ', build_pile: [], variant: 'bonus' }), true, 'variant as a member');
  assert.equal(await fn(mb, ['3H', ['ZZ']], '?variant=bonus'), true, 'any colour 3 on a starting joker');
  assert.equal(await fn(mb, ['QS', ['ZZ']], '?variant=bonus'), true, 'or a Queen');
  assert.equal(await fn(mb, ['5S', ['ZZ']], '?variant=bonus'), false, 'but not a 5');
  assert.equal(await fn(md, ['ZZ', ['5C'], 0, 1, false], '?variant=bonus'), 1, 'a joker on a discard pile is legal');
  // joker on 5C, then 10S: no reading of the joker makes it legal
  assert.equal(await fn(md, ['0S', ['5C', 'ZZ'], 0, 1, false], '?variant=bonus'), 0);
  assert.equal(await fn(md, ['0S', ['5C', 'ZZ'], 0, 1, true], '?variant=bonus'), 2, 'from the hand: a turn-ending restart');
  // joker on 4C reads as red 3 or red 5: a black 4 or 6 may follow
  assert.equal(await fn(md, ['6S', ['4C', 'ZZ'], 0, 1, false], '?variant=bonus'), 1);
  assert.equal(await fn(md, ['6H', ['4C', 'ZZ'], 0, 1, false], '?variant=bonus'), 0, 'colour alternates');
  expectProblem(await srv.post(`${mb}?variant=nosuch`, ['2C', []]), 400, 'invalid-parameter');
  // game arguments with ZZ outside bonus are a 400 naming the argument
  const bad = expectProblem(await srv.post(mb, ['2C', ['ZZ']]), 400, 'invalid-member');
  assert.match(bad.errors[0].pointer, /^\/1/);
});

test('POST /play/comp10001bo/bonus returns a legal play; bad arguments are 400s', async () => {
  const args = [0, ['2C', 'ZZ', '9D', '0D', '0S'], true, null, stock, noDiscards(), empty4(), []];
  const play = await fn('/play/comp10001bo/bonus', args);
  const verdict = await fn('/validate/comp10001bo/is_valid_play',
    [play, 0, args[1], stock, noDiscards(), empty4()], '?variant=bonus');
  assert.ok([1, 2].includes(verdict), `bonus play ${JSON.stringify(play)} is valid (${verdict})`);
  const named = await fn('/play/comp10001bo/bonus', {
    player_no: 0, hand: args[1], holds_embargo: true, embargoed: null, stockpiles: stock,
    discard_piles: noDiscards(), build_piles: empty4(), play_history: [],
  });
  assert.deepEqual(named, play, 'both body forms give the same answer');
  let p = expectProblem(await srv.post('/play/comp10001bo/bonus', [0, args[1], 'yes', null, stock, noDiscards(), empty4(), []]), 400, 'invalid-member');
  assert.equal(p.errors[0].pointer, '/2');
  p = expectProblem(await srv.post('/play/comp10001bo/bonus', { ...Object.fromEntries([]), player_no: 0 }), 400, 'invalid-member');
  assert.match(p.errors[0].pointer, /^\/\w+/);
});

test('a bonus game: jokers and embargoes in play, public embargo state, hidden hands', async () => {
  let sawJoker = false, sawEmbargo = false;
  for (let seed = 1; seed <= 6; seed++) {
    const r = await srv.post('/games', { game: 'comp10001bo', variant: 'bonus', seed,
      players: [{ bot: 'planner' }, { bot: 'planner' }, { bot: 'random' }, { bot: 'planner' }] });
    expectStatus(r, 201);
    assert.equal(r.json.state.over, true);
    assert.equal(r.json.state.holds_embargo.length, 4);
    for (const rec of r.json.applied) {
      if (JSON.stringify(rec.play).includes('"ZZ"')) sawJoker = true;
      if (rec.play[0] === 4) {
        sawEmbargo = true;
        assert.equal(rec.turn_ending, true, 'an embargo ends the turn');
      }
      assert.equal(typeof rec.explanation, 'string');
    }
  }
  assert.ok(sawJoker, 'jokers are played');
  assert.ok(sawEmbargo, 'embargoes are played');
  const g = await srv.post('/games', { game: 'comp10001bo', variant: 'bonus', seed: 3,
    players: [{ name: 'Ann' }, { bot: 'planner' }, { bot: 'planner' }, { bot: 'planner' }] });
  expectStatus(g, 201);
  const token = g.json.seats[0].token;
  for (let i = 0; i < 60; i++) {
    const v = await srv.get(`/games/${g.json.id}`, { token });
    if (v.json.state.over) break; // a finished game shows every card to everyone
    assert.doesNotMatch(v.text, /"hands"|"draw"/);
    const legal = await srv.get(`/games/${g.json.id}/legal`, { token });
    const hint = await srv.get(`/games/${g.json.id}/hint`, { token });
    assert.ok(legal.json.plays.some((p) => JSON.stringify(p) === JSON.stringify(hint.json.play)), 'the hint is legal');
    expectStatus(await srv.post(`/games/${g.json.id}/plays`, { play: hint.json.play }, { token }), 200);
  }
});
