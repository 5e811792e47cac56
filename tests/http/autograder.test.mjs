// The Comp10001-Bo autograder functions over HTTP: every example of 002
// (array form), object forms, exact JSON types, and argument errors.
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';

const srv = useServer();
const E4 = () => [[], [], [], []];
const NO_DISCARDS = () => [E4(), E4(), E4(), E4()];
const NO_PLAY = [3, null, [null, null]];

async function call(path, args, what) {
  const r = await srv.post(path, args);
  expectStatus(r, 200, what || JSON.stringify(args).slice(0, 200));
  assert.deepEqual(Object.keys(r.json), ['result']);
  return r;
}

// 002: comp10001bo_is_valid_play examples: [comment, args, expected].
const IS_VALID_PLAY = [
  ['from hand to build pile 0', [[0, '2C', [0, 0]], 0, ['2C', 'AS', '9D', '0D', '0S'], [['9C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], NO_DISCARDS(), E4()], 1],
  ["doesn't hold card", [[0, '2C', [0, 0]], 0, ['3C', 'AS', '9D', '0D', '0S'], [['9C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], NO_DISCARDS(), E4()], 0],
  ["can't start build pile with 3", [[0, '3C', [0, 0]], 0, ['3C', 'AS', '9D', '0D', '0S'], [['9C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], NO_DISCARDS(), E4()], 0],
  ['from hand to non-empty build pile 0', [[0, '3C', [0, 0]], 0, ['3C', 'AS', '9D', '0D', '0S'], [['9C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], NO_DISCARDS(), [['2S'], [], [], []]], 1],
  ['from stockpile to empty build pile 1', [[2, '2C', [0, 1]], 0, ['3C', 'AS', '9D', '0D', '0S'], [['2C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], NO_DISCARDS(), [['2S'], [], [], []]], 1],
  ['not top card of own stockpile', [[2, '2H', [0, 1]], 0, ['3C', 'AS', '9D', '0D', '0S'], [['2C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], NO_DISCARDS(), [['2S'], [], [], []]], 0],
  ["top of someone else's stockpile", [[2, '2H', [0, 1]], 0, ['3C', 'AS', '9D', '0D', '0S'], [['2C', 8], ['2H', 8], ['3H', 8], ['KD', 8]], NO_DISCARDS(), [['2S'], [], [], []]], 0],
  ['from stockpile to non-empty build pile', [[2, 'QC', [0, 1]], 0, ['3C', 'AS', '9D', '0D', '0S'], [['QC', 8], ['0D', 8], ['3H', 8], ['KD', 8]], NO_DISCARDS(), [[], ['KS'], [], []]], 1],
  ['from stockpile to empty build pile 1 (K)', [[2, 'KC', [0, 1]], 0, ['3C', 'AS', '9D', '0D', '0S'], [['KC', 8], ['0D', 8], ['3H', 8], ['KD', 8]], NO_DISCARDS(), E4()], 1],
  ['from discard pile to empty build pile', [[1, ['2C', [1, 0]], [0, 1]], 0, ['3C', 'AS', '9D', '0D', '0S'], [['2C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], [E4(), [['3C', '2C'], [], [], []], E4(), E4()], [['2S'], [], [], []]], 1],
  ['non-top card of a discard pile', [[1, ['3C', [1, 0]], [0, 1]], 0, ['3C', 'AS', '9D', '0D', '0S'], [['2C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], [E4(), [['3C', '2C'], [], [], []], E4(), E4()], [['2S'], [], [], []]], 0],
  ["can't place 2C on 2S", [[1, ['2C', [1, 0]], [0, 0]], 0, ['3C', 'AS', '9D', '0D', '0S'], [['2C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], [E4(), [['3C', '2C'], [], [], []], E4(), E4()], [['2S'], [], [], []]], 0],
  ['9D on 5S: final play for the turn', [[0, '9D', [1, [0, 0]]], 0, ['AS', '9D', '0D', '0S'], [['9C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], [[['5S'], [], [], []], E4(), E4(), E4()], E4()], 2],
  ['no-play claim while plays exist', [NO_PLAY, 0, ['AS', '9D', '0S'], [['9C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], [[['5S'], [], [], []], E4(), E4(), E4()], E4()], 0],
  ['no move possible', [NO_PLAY, 0, [], [['9C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], [[['5S'], [], [], []], E4(), E4(), E4()], E4()], 3],
  ['back to the same discard pile', [[1, ['2C', [1, 0]], [1, [1, 0]]], 0, ['3C', 'AS', '9D', '0D', '0S'], [['2C', 8], ['0D', 8], ['3H', 8], ['KD', 8]], [E4(), [['3C', '2C'], [], [], []], E4(), E4()], [['2S'], [], [], []]], 0],
];

const STOCK = (p1) => [['7H', 7], p1, ['3H', 8], ['KD', 8]];
const DISC = () => [[['7H'], [], [], []], E4(), E4(), E4()];
// 002: comp10001bo_play examples.
const PLAY = [
  ['no possible play', [0, [], STOCK(['3C', 8]), DISC(), [['2C'], [], [], []], [[0, [2, '2C', [0, 0]]]]], NO_PLAY],
  ['stockpile to build pile (3C)', [1, [], STOCK(['3C', 8]), DISC(), [['2C'], [], [], []], [[0, [2, '2C', [0, 0]]], [0, NO_PLAY], [1, [2, '3C', [0, 0]]]]], [2, '3C', [0, 0]]],
  ['stockpile to build pile (4S)', [1, [], STOCK(['4S', 7]), DISC(), [['2C', '3C'], [], [], []], [[0, [2, '2C', [0, 0]]], [0, NO_PLAY], [1, [2, '3C', [0, 0]]]]], [2, '4S', [0, 0]]],
  ['stockpile to build pile (3S)', [1, [], STOCK(['3S', 6]), DISC(), [['2C', '3C', '4S'], [], [], []], [[0, [2, '2C', [0, 0]]], [0, NO_PLAY], [1, [2, '3C', [0, 0]]], [1, [2, '4S', [0, 0]]]]], [2, '3S', [0, 0]]],
  ['no valid play possible', [1, [], STOCK(['0D', 5]), DISC(), [['2C', '3C', '4S', '3S'], [], [], []], [[0, [2, '2C', [0, 0]]], [0, NO_PLAY], [1, [2, '3C', [0, 0]]], [1, [2, '4S', [0, 0]]], [1, [2, '3S', [0, 0]]]]], NO_PLAY],
];

const IVP_NAMES = ['play', 'player_no', 'hand', 'stockpiles', 'discard_piles', 'build_piles'];
const PLAY_NAMES = ['player_no', 'hand', 'stockpiles', 'discard_piles', 'build_piles', 'play_history'];
const toObject = (names, args) => Object.fromEntries(names.map((n, i) => [n, args[i]]));

test('is_valid_play: every example of 002 (array form), exact integers', async () => {
  for (const [what, args, want] of IS_VALID_PLAY) {
    const r = await call('/validate/comp10001bo/is_valid_play', args, what);
    assert.equal(r.json.result, want, what);
    assert.ok(Number.isInteger(r.json.result));
    assert.match(r.text, new RegExp(`"result"\\s*:\\s*${want}\\s*}`), `${what}: a bare JSON integer`);
  }
});

test('is_valid_play: object form', async () => {
  for (const i of [0, 4, 9, 12, 14, 15]) {
    const [what, args, want] = IS_VALID_PLAY[i];
    const r = await call('/validate/comp10001bo/is_valid_play', toObject(IVP_NAMES, args), what);
    assert.equal(r.json.result, want, `${what} (object form)`);
  }
});

test('is_valid_play: a play of the wrong shape is simply 0', async () => {
  const [, args] = IS_VALID_PLAY[0];
  for (const play of ['garbage', null, 5, [], [0, 'XX', [0, 0]], [0, '2C', [0, 9]], [0, '2C', [1, [7, 0]]], [9, '2C', [0, 0]], [0, '2C'], { a: 1 }]) {
    const r = await call('/validate/comp10001bo/is_valid_play', [play, ...args.slice(1)], JSON.stringify(play));
    assert.equal(r.json.result, 0, `play ${JSON.stringify(play)}`);
  }
});

test('play: every example of 002 (array form) returns that play', async () => {
  for (const [what, args, want] of PLAY) {
    const r = await call('/play/comp10001bo', args, what);
    assert.deepEqual(r.json.result, want, what);
  }
});

test('play: object form', async () => {
  for (const [what, args, want] of [PLAY[1], PLAY[4]]) {
    const r = await call('/play/comp10001bo', toObject(PLAY_NAMES, args), what);
    assert.deepEqual(r.json.result, want, `${what} (object form)`);
  }
});

test('match_build: JSON booleans', async () => {
  const cases = [
    [['2C', []], true], [['KD', []], true], [['3C', []], false], [['AS', []], false],
    [['3C', ['2S']], true], [['3H', ['2S']], false], [['4C', ['2S']], false],
    [['AS', ['2S', '3C']], true], [['AH', ['2S']], false],
    [['QS', ['KC']], true], [['JD', ['KH', 'QD']], true], [['JS', ['KH', 'QD']], false],
    [['3D', ['2H', '3D', '4H']], true], [['5D', ['2H', '3D', '4H']], true], [['6D', ['2H', '3D', '4H']], false],
  ];
  for (const [args, want] of cases) {
    const r = await call('/validate/comp10001bo/match_build', args);
    assert.equal(r.json.result, want, JSON.stringify(args));
    assert.equal(typeof r.json.result, 'boolean');
    assert.match(r.text, new RegExp(`"result"\\s*:\\s*${want}\\s*}`));
  }
  const r = await call('/validate/comp10001bo/match_build', { play_card: '3C', build_pile: ['2S'] });
  assert.equal(r.json.result, true);
  const r2 = await call('/validate/comp10001bo/match_build', { build_pile: ['2S'], play_card: '3H' });
  assert.equal(r2.json.result, false);
});

test('match_discard: 0, 1, 2 as JSON integers; from_hand defaults to true', async () => {
  const cases = [
    [['5H', [], 0, 0], 2], // start own pile from the hand
    [['5H', [], 0, 1], 0], // not another player's empty pile
    [['5H', [], 0, 0, false], 0], // not from the stockpile/discard
    [['AS', [], 0, 0], 0], // never an Ace
    [['0H', ['JC'], 0, 2], 1],
    [['QD', ['JC'], 1, 0], 1],
    [['QC', ['JC'], 0, 0], 2], // illegal from the hand: turn-ending
    [['QC', ['JC'], 0, 0, false], 0],
    [['9C', ['JC'], 0, 0], 2],
    [['2H', ['KS'], 0, 0], 1], // loops K -> 2
    [['KH', ['2S'], 3, 0, false], 1],
    [['AH', ['2S'], 0, 0], 0],
    [['AH', ['2S'], 0, 0, false], 0],
  ];
  for (const [args, want] of cases) {
    const r = await call('/validate/comp10001bo/match_discard', args);
    assert.equal(r.json.result, want, JSON.stringify(args));
    assert.ok(Number.isInteger(r.json.result));
    assert.match(r.text, new RegExp(`"result"\\s*:\\s*${want}\\s*}`));
  }
  const o1 = await call('/validate/comp10001bo/match_discard', { play_card: '5H', discard_pile: [], player_no: 0, to_player_no: 0 });
  assert.equal(o1.json.result, 2);
  const o2 = await call('/validate/comp10001bo/match_discard', { play_card: '5H', discard_pile: [], player_no: 0, to_player_no: 0, from_hand: false });
  assert.equal(o2.json.result, 0);
  const o3 = await call('/validate/comp10001bo/match_discard', { play_card: '0H', discard_pile: ['JC'], player_no: 0, to_player_no: 2, from_hand: false });
  assert.equal(o3.json.result, 1);
});

test('autograder argument errors: 400 naming the argument', async () => {
  const ivp = IS_VALID_PLAY[0][1];
  const cases = [
    // missing required argument: array form and object form
    ['/validate/comp10001bo/match_build', ['2C'], '/1'],
    ['/validate/comp10001bo/match_build', { play_card: '2C' }, '/build_pile'],
    ['/validate/comp10001bo/match_discard', ['5H', [], 0], '/3'],
    ['/validate/comp10001bo/match_discard', { play_card: '5H', discard_pile: [], player_no: 0 }, '/to_player_no'],
    ['/validate/comp10001bo/is_valid_play', ivp.slice(0, 5), '/5'],
    ['/validate/comp10001bo/is_valid_play', toObject(IVP_NAMES.slice(0, 5), ivp), '/build_piles'],
    ['/play/comp10001bo', PLAY[0][1].slice(0, 5), '/5'],
    ['/play/comp10001bo', toObject(PLAY_NAMES.slice(0, 5), PLAY[0][1]), '/play_history'],
    // extra argument / unknown member
    ['/validate/comp10001bo/match_build', ['2C', [], true], '/2'],
    ['/validate/comp10001bo/match_build', { play_card: '2C', build_pile: [], colour: 1 }, '/colour'],
    // an argument of the wrong kind
    ['/validate/comp10001bo/is_valid_play', [ivp[0], ivp[1], 'abc', ...ivp.slice(3)], '/2'],
    ['/validate/comp10001bo/is_valid_play', { ...toObject(IVP_NAMES, ivp), hand: 'abc' }, '/hand'],
    ['/validate/comp10001bo/is_valid_play', [ivp[0], 'zero', ...ivp.slice(2)], '/1'],
    ['/validate/comp10001bo/match_discard', ['5H', [], 0, 0, 'yes'], '/4'],
  ];
  for (const [p, body, pointer] of cases) {
    const r = await srv.post(p, body);
    const prob = expectProblem(r, 400, 'invalid-member', `${p} ${JSON.stringify(body).slice(0, 120)}`);
    assert.ok(prob.errors[0].pointer === pointer || prob.errors[0].pointer.startsWith(pointer + '/'),
      `${p} ${JSON.stringify(body).slice(0, 120)}: pointer ${prob.errors[0].pointer}, want ${pointer}`);
  }
  // A discard pile of the wrong depth names a pointer inside the argument.
  const bad = [ivp[0], ivp[1], ivp[2], ivp[3], [[], [], [], []], ivp[5]];
  const prob = expectProblem(await srv.post('/validate/comp10001bo/is_valid_play', bad), 400, 'invalid-member');
  assert.match(prob.errors[0].pointer, /^\/4(\/|$)/);
  // Not a JSON array or object; malformed; too deep; not JSON.
  expectProblem(await srv.post('/validate/comp10001bo/match_build', 'AS'), 400, 'invalid-member');
  expectProblem(await srv.request('POST', '/validate/comp10001bo/match_build', { body: '["2C", [', contentType: 'application/json' }), 400, 'malformed-json');
  expectProblem(await srv.request('POST', '/validate/comp10001bo/match_build', { body: '["2C", ' + '['.repeat(40) + ']'.repeat(40) + ']', contentType: 'application/json' }), 400, 'malformed-json');
  expectProblem(await srv.request('POST', '/validate/comp10001bo/match_build', { body: '["2C", []]', contentType: 'text/plain' }), 415, 'unsupported-media-type');
  expectProblem(await srv.request('POST', '/validate/comp10001bo/match_build', { body: '', contentType: 'application/json' }), 400, 'malformed-json');
});

test("api.md's curl example works as given (curl -d sends application/x-www-form-urlencoded)", async () => {
  const body = `[[0,"2C",[0,0]], 0, ["2C","AS","9D","0D","0S"],
           [["9C",8],["0D",8],["3H",8],["KD",8]],
           [[[],[],[],[]],[[],[],[],[]],[[],[],[],[]],[[],[],[],[]]],
           [[],[],[],[]]]`;
  const r = await srv.request('POST', '/validate/comp10001bo/is_valid_play', { body, contentType: 'application/x-www-form-urlencoded' });
  expectStatus(r, 200);
  assert.equal(r.text.trim(), '{"result":1}');
});

test('variant: as a member of the object form, or ?variant=', async () => {
  const r = await call('/validate/comp10001bo/match_build', { play_card: '2C', build_pile: [], variant: 'standard' });
  assert.equal(r.json.result, true);
  const q = await srv.post('/validate/comp10001bo/match_build?variant=standard', ['3C', []]);
  expectStatus(q, 200);
  assert.equal(q.json.result, false);
  const bad = await srv.post('/validate/comp10001bo/match_build?variant=nosuch', ['3C', []]);
  expectStatus(bad, 400, 'unknown variant');
});
