// Browser test: two people at one Hanabi table, each in their own browser
// context (own storage, as two browsers would be), plus a spectator.
// Each page follows the server's event stream (SSE read with fetch, token in
// the Authorization header): a move made in one page shows in the other within
// 1 s, without reloading and without polling.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startAll, stopAll, openSeatIn, OUT } from './harness.mjs';
import { assertEvery } from '../http/lib/expect.mjs';

let env;
before(async () => { env = await startAll(); });
after(async () => { await stopAll(env); });

const openSeat = (id, token, label) => openSeatIn(env.browser, env.baseURL, id, token, label);

const status = (p) => p.page.getByTestId('status').innerText();
const logLen = (p) => p.page.locator('[data-testid="log"] > li').count();
const streams = (p) => p.requests.filter((r) => r.path.endsWith('/events'));
const nonStream = (p, from, to) => p.requests.filter((r) => !r.path.endsWith('/events') && r.t >= from && r.t <= to);

/** Wait (at most `ms`) until the page's status text differs from `before`; return the time taken. */
async function waitStatusChange(p, before, ms = 1000) {
  const t0 = Date.now();
  await p.page.waitForFunction((b) => document.querySelector('[data-testid="status"]').textContent !== b, before, { timeout: ms });
  return Date.now() - t0;
}

test('two people and a spectator follow one Hanabi table live', async () => {
  const res = await fetch(`${env.baseURL}/games`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ game: 'hanabi', seed: 42, players: [{ name: 'Ada' }, { name: 'Bob' }, { bot: 'rules' }] }),
  });
  assert.equal(res.status, 201);
  const created = await res.json();
  const { id } = created;
  const tokens = Object.fromEntries(created.seats.filter((s) => s.token).map((s) => [s.seat, s.token]));
  assert.ok(tokens[0] && tokens[1], 'both people have a seat token');
  assert.equal(created.state.current, 1, 'Bob moves first with this seed');

  const ada = await openSeat(id, tokens[0], 'ada');
  const bob = await openSeat(id, tokens[1], 'bob');
  const spy = await openSeat(id, null, 'spectator');

  // Each page follows one stream; a seat's carries its token in the header, never in the URL.
  await ada.page.waitForFunction(() => true);
  for (const p of [ada, bob, spy]) {
    const s = streams(p);
    assert.equal(s.length, 1, `${p.label}: exactly one event stream`);
    assert.equal(s[0].headers.accept, 'text/event-stream');
    assert.equal(s[0].search, '', `${p.label}: nothing in the stream's query`);
    assertEvery(p.requests, (r) => !/token|Bearer/i.test(r.path + r.search), `${p.label}: no token in a URL`);
  }
  assert.equal(streams(ada)[0].headers.authorization, `Bearer ${tokens[0]}`);
  assert.equal(streams(bob)[0].headers.authorization, `Bearer ${tokens[1]}`);
  assert.equal(streams(spy)[0].headers.authorization, undefined, 'a spectator sends no token');

  assert.match(await status(ada), /Bob to play/);
  assert.match(await status(bob), /Your turn/);

  // The spectator sees no hand at all: every card in every hand is hidden.
  const spyFaces = await spy.page.locator('[data-testid^="hb-hand-"] .card').evaluateAll((els) => els.map((e) => e.dataset.card));
  assertEvery(spyFaces, (c) => c === '??', 'spectator sees only hidden cards (three hands of five)', { length: 15 });
  // Ada sees Bob's cards but not her own.
  const adaOwn = await ada.page.locator('[data-testid="hb-hand-0"] .card').evaluateAll((els) => els.map((e) => e.dataset.card));
  const adaBob = await ada.page.locator('[data-testid="hb-hand-1"] .card').evaluateAll((els) => els.map((e) => e.dataset.card));
  assertEvery(adaOwn, (c) => c === '??', 'Ada sees none of her own cards', { length: 5 });
  assertEvery(adaBob, (c) => /^[RYBGWM][1-5]$/.test(c), 'a seat sees the other hands', { length: 5 });

  // Quiet for 3 s: no page polls.
  await new Promise((r) => setTimeout(r, 3000));
  const quietFrom = Date.now() - 3000;

  // Bob plays his first card through the page.
  const adaStatus = await status(ada);
  const spyStatus = await status(spy);
  const adaLog = await logLen(ada);
  await bob.page.getByTestId('hb-card-1-0').click();
  const moved = Date.now();
  await bob.page.getByTestId('hb-play').click();
  const tookAda = await waitStatusChange(ada, adaStatus);
  const tookSpy = await waitStatusChange(spy, spyStatus);
  assert.ok(Date.now() - moved < 1500, 'both pages updated promptly');
  assert.ok(tookAda < 1000 && tookSpy < 1000);
  for (const p of [ada, spy]) {
    assert.deepEqual(nonStream(p, quietFrom, moved), [], `${p.label}: no requests in the 3 s before the move (no polling)`);
  }
  await ada.page.waitForFunction((n) => document.querySelectorAll('[data-testid="log"] > li').length > n, adaLog, { timeout: 1000 });
  assert.match(await ada.page.locator('[data-testid="log"] > li[data-seat="1"]').last().innerText(), /Bob/);
  // The bot answers at once, so it is Ada's turn now.
  await ada.page.waitForFunction(() => /Your turn/.test(document.querySelector('[data-testid="status"]').textContent), null, { timeout: 1000 });
  await ada.page.screenshot({ path: path.join(OUT, 'live-hanabi-ada.png'), fullPage: true });

  // Ada answers through her page; Bob sees it within 1 s.
  await new Promise((r) => setTimeout(r, 500));
  const bobStatus = await status(bob);
  const bobQuiet = Date.now();
  await ada.page.getByTestId('hb-card-0-4').click();
  const moved2 = Date.now();
  await ada.page.getByTestId('hb-play').click();
  assert.ok(await waitStatusChange(bob, bobStatus) < 1000);
  assert.deepEqual(nonStream(bob, bobQuiet, moved2), [], 'bob: no polling between moves');
  assert.match(await bob.page.locator('[data-testid="log"] > li[data-seat="0"]').last().innerText(), /Ada/);

  // Still one stream each, and the spectator still sees no card.
  for (const p of [ada, bob, spy]) assert.equal(streams(p).length, 1, `${p.label}: never a second stream`);
  const spyFaces2 = await spy.page.locator('[data-testid^="hb-hand-"] .card').evaluateAll((els) => els.map((e) => e.dataset.card));
  assertEvery(spyFaces2, (c) => c === '??', 'after two plays the spectator still sees only hidden cards', { length: 15 });
  await spy.page.screenshot({ path: path.join(OUT, 'live-hanabi-spectator.png'), fullPage: true });

  const errors = [...ada.errors, ...bob.errors, ...spy.errors];
  assert.deepEqual(errors, []);
  for (const p of [ada, bob, spy]) await p.context.close();
});

// The stream client itself (www/core/events.js is a plain ES module).
test('SSE parser: frames, ids, comments, CRLF and split chunks', async () => {
  const { SSEParser } = await import('../../www/core/events.js');
  const got = [];
  const p = new SSEParser((f) => got.push(f));
  const text = 'retry: 2000\r\n\r\n: keep-alive\nid: 1\nevent: onStart\ndata: {"a":1}\n\nid: 2\r\nevent: play\r\ndata: line1\r\ndata:line2\r\n\r\ndata: no id\n\n';
  for (let i = 0; i < text.length; i += 3) p.feed(text.slice(i, i + 3)); // arbitrary chunk edges
  assert.deepEqual(got, [
    { id: '1', event: 'onStart', data: '{"a":1}' },
    { id: '2', event: 'play', data: 'line1\nline2' },
    { id: '2', event: 'message', data: 'no id' },
  ]);
  assert.equal(p.retry, 2000);
});

test('stream client: 503 honours Retry-After, then resumes with Last-Event-ID', async () => {
  const { followGame } = await import('../../www/core/events.js');
  const calls = [];
  const realFetch = globalThis.fetch;
  const enc = new TextEncoder();
  let news = 0;
  globalThis.fetch = async (url, init) => {
    calls.push({ t: Date.now(), url, headers: { ...init.headers } });
    if (calls.length === 1) return new Response('{}', { status: 503, headers: { 'Retry-After': '1' } });
    if (calls.length === 2) {
      return new Response(new ReadableStream({
        start(c) { c.enqueue(enc.encode('id: 7\nevent: play\ndata: {}\n\n')); c.close(); },
      }), { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
    }
    return new Promise((_, reject) => init.signal.addEventListener('abort', () => reject(new Error('aborted'))));
  };
  try {
    const live = followGame({ id: 'g1', token: 'tok', onNews: () => { news++; } });
    await new Promise((r) => setTimeout(r, 2500));
    live.stop();
  } finally {
    globalThis.fetch = realFetch;
  }
  assert.equal(calls.length, 3, 'refused, streamed, resumed');
  assert.equal(calls[0].url, '/games/g1/events');
  assert.equal(calls[0].headers.Authorization, 'Bearer tok');
  assert.equal(calls[0].headers['Last-Event-ID'], undefined);
  assert.ok(calls[1].t - calls[0].t >= 950, 'waited for Retry-After');
  assert.equal(calls[2].headers['Last-Event-ID'], '7', 'resumed after the last event seen');
  assert.ok(news >= 1, 'events bring news');
});
