// The assertions the suites lean on fail when the behaviour is wrong: run on
// wrong input, each must throw (a test of the tests). assertEvery
// (tests/http/lib/expect.mjs) replaces `assert.ok(xs.every(...))`, which
// passes on an empty array; okJson and getOk (tests/http/lib/server.mjs)
// check the status of a reply before its body is read, as
// tests/http/hanabi.test.mjs now does for every GET.
import test from 'node:test';
import assert from 'node:assert/strict';
import { assertEvery } from '../http/lib/expect.mjs';
import { okJson, expectStatus } from '../http/lib/server.mjs';

const hidden = (c) => c === '??';

test('assertEvery fails on nothing, on too few or too many, and on one wrong value', () => {
  // What tests/browser/live.test.mjs and tests/http/hanabi.test.mjs check of
  // a spectator's hands: fifteen cards, every one hidden.
  assertEvery(Array(15).fill('??'), hidden, 'fifteen hidden cards', { length: 15 });
  assertEvery(['??'], hidden, 'one hidden card');
  // A page that drew no card: `[].every(...)` is true, assertEvery is not.
  assert.equal([].every(hidden), true, 'the old form passes on nothing');
  assert.throws(() => assertEvery([], hidden, 'no card drawn'), /no card drawn: expected at least 1/);
  assert.throws(() => assertEvery([], hidden, 'no card', { length: 15 }), /expected 15 values, got 0/);
  // A hand that lost a card, or a reply without the member.
  assert.throws(() => assertEvery(Array(14).fill('??'), hidden, 'a card lost', { length: 15 }), /expected 15 values, got 14/);
  assert.throws(() => assertEvery(undefined, hidden, 'no member'), /no member: expected an array/);
  assert.throws(() => assertEvery({ length: 1, 0: '??' }, hidden, 'not an array'), /expected an array/);
  // A leak: one card shown to a reader who may not see it, named in the message.
  const leaked = [...Array(7).fill('??'), 'R3', ...Array(7).fill('??')];
  assert.throws(() => assertEvery(leaked, hidden, 'spectator', { length: 15 }), /spectator: value 7 fails: "R3"/);
  // The index is passed: events numbered from 1.
  assertEvery([{ n: 1 }, { n: 2 }, { n: 3 }], (e, i) => e.n === i + 1, 'numbered', { min: 3 });
  assert.throws(() => assertEvery([{ n: 1 }, { n: 3 }, { n: 4 }], (e, i) => e.n === i + 1, 'numbered'), /value 1 fails/);
  assert.throws(() => assertEvery([{ n: 1 }], (e, i) => e.n === i + 1, 'numbered', { min: 3 }), /at least 3/);
});

test('okJson fails on another status and on a reply without a JSON body; returns the body', () => {
  const reply = (status, json) => ({ status, json, text: json === undefined ? 'plain text' : JSON.stringify(json) });
  assert.deepEqual(okJson(reply(200, { plays: [] }), 'GET /plays'), { plays: [] });
  const problem = { type: '/problems/not-found', status: 404 };
  // `(await srv.get(p)).json.plays` was undefined here, and a loop over it
  // (or `?? []`) passed; okJson stops at the status.
  assert.throws(() => okJson(reply(404, problem), 'GET /plays'), /GET \/plays expected 200, got 404/);
  assert.throws(() => okJson(reply(403, problem)), /expected 200, got 403/);
  assert.throws(() => okJson(reply(200, undefined), 'GET /x'), /GET \/x a JSON body/);
  assert.throws(() => expectStatus(reply(500, { status: 500 }), 201, 'POST /games'), /POST \/games expected 201, got 500/);
});
