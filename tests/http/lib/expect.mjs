// expect.mjs: assertions that cannot pass on nothing.
//
// `assert.ok(xs.every(p))` holds for an empty `xs`: a page that drew no card,
// a reply without the member, a log that lost its plays would all pass "every
// card is hidden". assertEvery says how many values there must be (at least
// one unless told otherwise) and names the first that fails. It imports
// nothing heavy, so the browser tests use it too; tests/repo/expect.test.mjs
// runs it on wrong input.
import assert from 'node:assert/strict';

/**
 * Assert that `values` is an array of `length` values (or at least `min`,
 * default 1) and that `pred` holds for each; `what` names them in the message.
 */
export function assertEvery(values, pred, what, { length, min = 1 } = {}) {
  assert.ok(Array.isArray(values), `${what}: expected an array, got ${JSON.stringify(values)?.slice(0, 200)}`);
  if (length !== undefined) {
    assert.equal(values.length, length, `${what}: expected ${length} values, got ${values.length}`);
  } else {
    assert.ok(values.length >= min, `${what}: expected at least ${min} value(s), got ${values.length}`);
  }
  const i = values.findIndex((v, k) => !pred(v, k, values));
  assert.ok(i < 0, `${what}: value ${i} fails: ${JSON.stringify(values[i])?.slice(0, 300)} (of ${JSON.stringify(values).slice(0, 300)})`);
}
