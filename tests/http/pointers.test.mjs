// The member a 400 names, at every depth of a course function's arguments:
// each member of a good is_valid_play call (Comp10001-Bo, Phazed) is broken
// in turn (replaced by an object, which no argument of the array form
// holds), and the answer must be 400 invalid-member naming exactly that
// member's JSON pointer, however deep (a stockpile's count, one card of one
// discard pile, one play of one turn of turn_history). The judged play
// (argument 0) is answered, never refused, so it is left alone.
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';

const srv = useServer();
const N = [null, []];

/** Every member below the root, as [pointer, path of indices], parents first. */
function members(value, path = []) {
  const out = [];
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      out.push([`${path.map((k) => `/${k}`).join('')}/${i}`, [...path, i]]);
      out.push(...members(v, [...path, i]));
    });
  }
  return out;
}

function broken(args, path) {
  const copy = JSON.parse(JSON.stringify(args)); // (structuredClone keeps shared arrays shared)
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k];
  at[path.at(-1)] = { not: 'this' };
  return copy;
}

async function everyMember(route, args) {
  expectStatus(await srv.post(route, args), 200, 'the good call');
  const wrong = [];
  let checked = 0;
  for (const [pointer, path] of members(args)) {
    if (path[0] === 0) continue; // the judged play
    const prob = expectProblem(await srv.post(route, broken(args, path)), 400, 'invalid-member', pointer);
    checked++;
    if (prob.errors[0].pointer !== pointer) wrong.push(`${pointer} named as ${prob.errors[0].pointer}`);
  }
  assert.deepEqual(wrong, [], `${route}: ${wrong.length} of ${checked} members named wrong`);
  return checked;
}

test('Comp10001-Bo is_valid_play: a broken member is named exactly, at every depth', async () => {
  // a hand, stockpiles with counts, discard piles with cards, build piles
  const args = [[0, '2C', [0, 0]], 0, ['2C', 'AS', '9D', '0D', '0S'],
    [['9C', 8], ['0D', 8], ['3H', 8], ['KD', 8]],
    [[['4S', '3D'], [], [], []], [[], ['QH'], [], []], [[], [], [], []], [[], [], [], ['7C']]],
    [['AC', '2D'], [], [], []]];
  const n = await everyMember('/validate/comp10001bo/is_valid_play', args);
  assert.ok(n >= 40, `${n} members checked`);
});

test('Phazed is_valid_play: a broken member is named exactly, at every depth', async () => {
  // a table with a phase laid, a turn_history of two turns, a discard
  const args = [[4, ['KC', [1, 0, 0]]], 1, [N, [2, [['2S', '2S', 'AS', '5S', '5S', '7S', 'JS']]], N, N],
    [[0, [[2, 'JS'], [5, 'JS']]], [1, [[1, 'XX'], [3, [2, [['2S', '2S', 'AS', '5S', '5S', '7S', 'JS']]]]]]],
    [0, 2, 0, 0], ['5D', '0S', 'JS', 'KC'], 'JS'];
  const n = await everyMember('/validate/phazed/is_valid_play', args);
  assert.ok(n >= 40, `${n} members checked`);
});
