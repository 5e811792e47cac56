// Phazed through the HTTP API: every example of the course's reference text
// of the autograder functions (docs/rules/phazed.md) in both body forms with the
// exact JSON types, bad arguments, /play/phazed legal on real seeded states,
// and stored games (views hide hands and the deck; history in turn_history form).
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';
import { assertEvery } from './lib/expect.mjs';

const srv = useServer();
const N = [null, []];
const EMPTY_TABLE = [N, N, N, N];

async function call(fn, args, query = '') {
  const r = await srv.post(`/${fn}${query}`, args);
  expectStatus(r, 200, fn);
  return r.json.result;
}

test('group_type and phase_type: the reference examples, sorted lists', async () => {
  const groups = [
    [['2C', '2S', '2H'], [1]], [['2C', '2C', '4C', 'KC', '9C', 'AH', 'JC'], [2]],
    [['4H', '4S', 'AC', '4C'], [3]], [['4H', '5S', 'AC', '7C', '8H', 'AH', '0S', 'JC'], [4]],
    [['2C', '2S', 'AS', 'AC'], [3]], [['2C', 'AS', 'AC'], []], [['2C', '2C', '4C', 'KC', '9C', 'AH', 'JC', 'AS'], []],
  ];
  for (const [g, want] of groups) assert.deepEqual(await call('validate/phazed/group_type', [g]), want, JSON.stringify(g));
  const phases = [
    [[['2C', '2S', '2H'], ['7H', '7C', 'AH']], [1]],
    [[['2C', '2C', '4C', 'KC', '9C', 'AH', 'JC']], [2]],
    [[['2C', 'KH', 'QS', '7H'], ['3H', '7S', '0D', 'KD', 'AD']], [3]],
    [[['4H', '4S', 'AC', '4C'], ['7H', '7C', 'AH', 'AC']], [4]],
    [[['4H', '5S', 'AC', '7C', '8H', 'AH', '0S', 'JC']], [5]],
    [[['2C', 'KC', 'QS', '7C'], ['3H', '7H', '0D', 'KD', 'AD']], [3, 6]],
    [[['4H', '5D', 'AC', '7H'], ['7H', '7C', 'AH', 'AS']], [7]],
    [[['4H', '5D', '7C', 'AC'], ['AC', 'AS', 'AS']], []],
  ];
  for (const [p, want] of phases) {
    assert.deepEqual(await call('validate/phazed/phase_type', [p]), want, JSON.stringify(p));
    assert.deepEqual(await call('validate/phazed/phase_type', { phase: p }), want, 'object form');
  }
  assert.deepEqual(await call('validate/phazed/group_type', [['2C', 'nope']]), [], 'a malformed group is simply no type');
});

test('is_valid_play and score: the reference examples; JSON booleans and integers', async () => {
  const ex = [
    [[3, [1, [['2S', '2S', '2C'], ['AS', '5S', '5S']]]], 0, EMPTY_TABLE, [[0, [[2, 'JS']]]], [0, 0, 0, 0],
      ['AS', '2S', '2S', '2C', '5S', '5S', '7S', '8S', '9S', '0S', 'JS'], null, true],
    [[4, ['KC', [1, 0, 0]]], 1, [N, [2, [['2S', '2S', 'AS', '5S', '5S', '7S', 'JS']]], N, N],
      [[0, [[2, 'JS'], [5, 'JS']]], [1, [[1, 'XX'], [3, [2, [['2S', '2S', 'AS', '5S', '5S', '7S', 'JS']]]]]]],
      [0, 2, 0, 0], ['5D', '0S', 'JS', 'KC'], 'JS', false],
    [[5, 'JS'], 1, [N, [1, [['2S', '2S', '2C'], ['AS', '5S', '5S']]], N, N],
      [[0, [[2, 'JS'], [5, 'JS']]], [1, [[1, 'XX'], [3, [1, [['2S', '2S', '2C'], ['AS', '5S', '5S']]]]]]],
      [0, 1, 0, 0], ['AD', '8S', '9S', '0S', 'JS'], 'JS', true],
  ];
  for (const e of ex) {
    const want = e.pop();
    const got = await call('validate/phazed/is_valid_play', e);
    assert.equal(got, want, JSON.stringify(e[0]));
    assert.equal(typeof got, 'boolean');
  }
  const [play, player_id, table, turn_history, phase_status, hand, discard] = ex[0];
  assert.equal(await call('validate/phazed/is_valid_play', { play, player_id, table, turn_history, phase_status, hand, discard }), true);
  assert.equal(await call('validate/phazed/is_valid_play', [[1, null], 0, EMPTY_TABLE, [], [0, 0, 0, 0], hand, null]), true,
    'a pick-up at the start of a hand, turn_history []');
  assert.equal(await call('validate/phazed/is_valid_play', [[9, 'x'], 0, EMPTY_TABLE, [], [0, 0, 0, 0], hand, null]), false,
    'a malformed play is simply invalid');
  for (const [h, want] of [[['9D', '9S', '9D', '0D', '0S', '0D'], 57], [['2D', '9S', 'AD', '0D'], 46], [[], 0]]) {
    const got = await call('validate/phazed/score', [h]);
    assert.equal(got, want);
    assert.ok(Number.isInteger(got));
  }
  assert.equal(await call('validate/phazed/score', [['ZZ', '2D']], '?variant=bonus'), 17, 'a joker is 15 in bonus');
  let p = expectProblem(await srv.post('/validate/phazed/score', [['2D', 'nope']]), 400, 'invalid-member');
  assert.match(p.errors[0].pointer, /^\/0/);
  p = expectProblem(await srv.post('/validate/phazed/is_valid_play', [[5, 'JS'], 1, 'table?', [], [0, 0, 0, 0], [], 'JS']), 400, 'invalid-member');
  assert.match(p.errors[0].pointer, /^\/2/);
  p = expectProblem(await srv.post('/validate/phazed/is_valid_play', { play: [5, 'JS'] }), 400, 'invalid-member');
  assert.match(p.errors[0].pointer, /^\/player_id/);
});

test('/play/phazed: the reference example, and always a valid play on real states', async () => {
  const r = await call('play/phazed', [1, [N, [5, [['2C', '3H', '4D', 'AD', '6S', '7C', '8S', '9H', '0S', 'JS']]], N, N],
    [[0, [[2, 'JS'], [5, 'JS']]], [1, [[2, 'JS'], [3, [5, [['2C', '3H', '4D', 'AD', '6S', '7C', '8S', '9H']]]], [4, ['0S', [1, 0, 8]]], [4, ['JS', [1, 0, 9]]]]]],
    [0, 5, 0, 0], ['5D'], null]);
  assert.deepEqual(r, [5, '5D']);
  // Real states: a human seat in seeded games; at every one of our turns ask
  // /play/phazed with that seat's view and check the validator accepts it.
  let checked = 0;
  for (const seed of [1, 2]) {
    const g = await srv.post('/games', { game: 'phazed', seed, players: [{ name: 'Ann' }, { bot: 'planner' }, { bot: 'planner' }, { bot: 'planner' }], options: { hands: 1 } });
    expectStatus(g, 201);
    const token = g.json.seats[0].token;
    for (let i = 0; i < 120; i++) {
      const v = (await srv.get(`/games/${g.json.id}`, { token })).json.state;
      if (v.over || v.current !== 0) break;
      const args = [0, v.table, v.turn_history, v.phase_status, v.hand, v.discard];
      const play = await call('play/phazed', args);
      assert.equal(await call('validate/phazed/is_valid_play', [play, ...args]), true, `valid: ${JSON.stringify(play)}`);
      const r2 = await srv.post(`/games/${g.json.id}/plays`, { play }, { token });
      expectStatus(r2, 200, `the stored game takes ${JSON.stringify(play)}`);
      checked++;
    }
  }
  assert.ok(checked > 10, `checked ${checked} decisions`);
});

test('stored games: hands and deck hidden (raw text), history in turn_history form, errors', async () => {
  const g = await srv.post('/games', { game: 'phazed', seed: 5, players: [{ name: 'Ann' }, { bot: 'planner' }, { bot: 'random' }, { bot: 'planner' }] });
  expectStatus(g, 201);
  const token = g.json.seats[0].token;
  const admin = (await srv.get(`/games/${g.json.id}`, { token: srv.adminToken })).json.state;
  assert.ok(Array.isArray(admin.hands) && Array.isArray(admin.deck), 'the admin sees hands and deck');
  const seat = await srv.get(`/games/${g.json.id}`, { token });
  assert.doesNotMatch(seat.text, /"hands"|"deck"\s*:\s*\[/);
  assert.deepEqual(seat.json.state.hand.slice().sort(), admin.hands[0].slice().sort());
  expectProblem(await srv.post(`/games/${g.json.id}/plays`, { play: [5, 'AS'] }, { token }), 422, 'illegal-play');
  expectProblem(await srv.post(`/games/${g.json.id}/plays`, { play: [7] }, { token }), 400, 'invalid-member');
  const spec = await srv.get(`/games/${g.json.id}`);
  assert.equal(spec.json.state.hand, undefined, 'a spectator has no hand');
  for (const [pid, plays] of seat.json.state.turn_history) {
    assert.ok(Number.isInteger(pid) && Array.isArray(plays));
    for (const p of plays) if (pid !== 0 && p[0] === 1) assert.equal(p[1], 'XX', 'others\' deck draws are hidden');
  }
  // /plays: the whole game as history records, numbered, with the bots' explanations
  for (let i = 0; i < 40; i++) { // play our turn by the hint until the bots have played theirs
    const h = await srv.get(`/games/${g.json.id}/hint`, { token });
    expectStatus(h, 200);
    const r = await srv.post(`/games/${g.json.id}/plays`, { play: h.json.play }, { token });
    expectStatus(r, 200);
    if (r.json.applied.length > 1) break;
  }
  const hist = await srv.get(`/games/${g.json.id}/plays`, { token });
  expectStatus(hist, 200);
  assert.ok(hist.json.plays.length > 0);
  hist.json.plays.forEach((r, i) => {
    assert.ok(Number.isInteger(r.n) && r.n >= (i ? hist.json.plays[i - 1].n + 1 : 1), 'numbered in order');
    if (r.seat !== 0 && r.play[0] === 1) assert.equal(r.play[1], 'XX', 'others\' deck draws are hidden');
    if (r.seat !== 0) assert.equal(typeof r.explanation, 'string', 'a bot play keeps its explanation');
  });
  const bots = await srv.post('/games', { game: 'phazed', variant: 'bonus', seed: 6, players: [{ bot: 'planner' }, { bot: 'random' }, { bot: 'planner' }, { bot: 'random' }], options: { hands: 2 } });
  expectStatus(bots, 201);
  assert.equal(bots.json.state.over, true);
  assertEvery(bots.json.applied, (r) => r.seat === undefined || typeof r.explanation === 'string', 'a bot play keeps its explanation');
});

// A person against three planners, following /hint every turn, to
// the end, every route read after every play. Seeds from 1 on until three
// games have reached a hand in which a player completed their seventh phase
// and the hand went on (which seeds do depends on the bots' strategy); the
// stored game must stay readable by every route until the game is over.
test('a person with three planners plays whole games to the end, three of them past a seventh phase mid-hand', async () => {
  let past7 = 0;
  for (let seed = 1; seed <= 16 && past7 < 3; seed++) {
    const g = await srv.post('/games', { game: 'phazed', seed, players: [{ name: 'Ann' }, { bot: 'planner' }, { bot: 'planner' }, { bot: 'planner' }] });
    expectStatus(g, 201, `seed ${seed}`);
    const id = g.json.id;
    const token = g.json.seats[0].token;
    let state = g.json.state, plays = 0, lastPhaseMidHand = false;
    while (!state.over) {
      assert.ok(plays < 5000, `seed ${seed}: the game ends`);
      const h = await srv.get(`/games/${id}/hint`, { token });
      expectStatus(h, 200, `seed ${seed} hint after ${plays} plays`);
      const r = await srv.post(`/games/${id}/plays`, { play: h.json.play }, { token });
      expectStatus(r, 200, `seed ${seed} play ${JSON.stringify(h.json.play)}`);
      state = r.json.state;
      plays++;
      if (!state.over && state.phase_status.some((s) => s === 7)) lastPhaseMidHand = true;
      for (const route of ['', '/legal', '/plays', '/events']) {
        expectStatus(await srv.get(`/games/${id}${route}`, { token }), 200, `seed ${seed} GET ${route} after ${plays} plays`);
      }
    }
    if (lastPhaseMidHand) past7++;
    assert.ok(['won', 'tied'].includes(state.result), `seed ${seed}: result ${state.result}`);
    expectStatus(await srv.get(`/games/${id}/export?format=json`, { token }), 200, `seed ${seed} export`);
  }
  assert.ok(past7 >= 3, `seeds 1-16: ${past7} games had a hand go on after a player's seventh phase (3 wanted)`);
});
