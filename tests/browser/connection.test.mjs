// Browser test: the connection's state is always on view.
// The real server goes away under a game being played and comes back on the
// same address with the same store: the page says "Reconnecting…" (in the
// game's heading and in the message bar), refuses a play meanwhile with a
// clear message and sends nothing, and once the event stream is back clears
// the notice and the stale "could not reach the server" error, and plays on.
// The browser going off line (the 'offline' event) is said at once; a server
// gone silent with the connection open, once its keep-alive is overdue; a
// play slow to answer keeps the board busy and the Hint button off.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startAll, stopAll, stopServer, restartServer, apiInPage, dealFromLobby, logCount, logGrows, OUT } from './harness.mjs';

let env, page;
const tid = (id) => page.getByTestId(id);
const posts = [];

before(async () => {
  env = await startAll();
  page = env.page;
  page.on('request', (r) => { if (r.method() === 'POST') posts.push(r.url()); });
});
after(async () => { await stopAll(env); });

const textOf = (id) => page.evaluate((t) => document.querySelector(`[data-testid="${t}"]`).textContent, id);
const waitText = (id, re) => page.waitForFunction(([t, src]) => {
  const el = document.querySelector(`[data-testid="${t}"]`);
  return el && !el.hidden && new RegExp(src).test(el.textContent);
}, [id, re.source]);

async function dealHanabi() {
  await dealFromLobby(page, { game: 'hanabi', players: 2, bots: ['rules'], seed: 11 });
  await tid('hb-hand-0').waitFor();
}

test('the server goes away and comes back: notice, refused play, stale error cleared', async () => {
  await dealHanabi();
  await waitText('connection', /^Live$/);
  assert.match(await tid('status').innerText(), /Your turn/);
  const before0 = (await apiInPage(page, '/games/{id}')).body.version;

  const lostAt = Date.now();
  await stopServer(env);
  await waitText('connection', /Reconnecting/);
  // Measured, not asserted (no timing assertions): the page waits 1 s of no stream.
  console.log(`# "Reconnecting…" shown ${Date.now() - lostAt} ms after the server stopped`);
  await waitText('message', /Reconnecting to the server/);
  await page.screenshot({ path: path.join(OUT, 'connection-lost-1280.png') });

  // A request that fails leaves an error; a play is refused and not sent.
  await tid('hint-button').click();
  await waitText('message', /Could not reach the server/);
  const postsBefore = posts.length;
  await tid('hb-card-0-0').click();
  await tid('hb-play').click();
  await waitText('message', /Not sent: the connection to the server is lost, so nothing was played/);
  assert.equal(posts.length, postsBefore, 'no play was sent while the connection was lost');

  await restartServer(env);
  await waitText('connection', /^Live$/);
  await page.waitForFunction(() => !/Reconnecting|Could not reach|Not sent/.test(document.querySelector('[data-testid="message"]').textContent));
  assert.equal(await textOf('connection'), 'Live');
  assert.equal((await apiInPage(page, '/games/{id}')).body.version, before0, 'nothing was played while away');

  // Playing goes on: the card chosen before is still chosen; Play again.
  assert.equal(await tid('hb-card-0-0').getAttribute('aria-pressed'), 'true', 'the refused play kept its card');
  const n = await logCount(page);
  await tid('hb-play').click();
  await logGrows(page, n);
  assert.ok((await apiInPage(page, '/games/{id}')).body.version > before0, 'the play is made once back');
});

test('a server gone silent (the connection open, nothing coming) is noticed after its keep-alive is overdue', async () => {
  await dealHanabi();
  await waitText('connection', /^Live$/);
  env.server.kill('SIGSTOP'); // the socket stays open; not a byte more
  try {
    const since = Date.now();
    // The server's keep-alive comes every 15 s; the page ends a stream quiet for 25 s.
    await page.waitForFunction(() => /Reconnecting/.test(document.querySelector('[data-testid="connection"]').textContent), null, { timeout: 45000 });
    console.log(`# silent server noticed after ${Date.now() - since} ms`);
  } finally {
    env.server.kill('SIGCONT');
  }
  await waitText('connection', /^Live$/);
});

test('a play slow to answer: the board is busy and no hint can be asked until the answer is drawn', async () => {
  await dealHanabi();
  await waitText('connection', /^Live$/);
  let release;
  const held = new Promise((r) => { release = r; });
  const hold = async (route) => {
    if (route.request().method() === 'POST') await held;
    await route.continue();
  };
  await page.route('**/plays', hold);
  try {
    assert.equal(await tid('hint-button').isDisabled(), false, 'Hint is offered on our turn');
    const n = await logCount(page);
    await tid('hb-card-0-0').click();
    await tid('hb-play').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="board"]').getAttribute('aria-busy') === 'true');
    assert.equal(await tid('hint-button').isDisabled(), true, 'no hint while the play is on its way (it would not be sent)');
    assert.equal(await tid('hint-near-hand').isDisabled(), true, 'nor from the Hint button by the hand (a phone\'s)');
    release();
    await logGrows(page, n);
    const v = (await apiInPage(page, '/games/{id}')).body;
    if (!v.status.over && v.status.current === v.you) {
      assert.equal(await tid('hint-button').isDisabled(), false, 'Hint is offered again once the answer is drawn');
    }
  } finally {
    release();
    await page.unroute('**/plays', hold);
  }
});

test('phone: the notice shows by the hand; the browser going off line is said at once', async () => {
  await page.setViewportSize({ width: 375, height: 740 });
  await dealHanabi();
  await waitText('connection', /^Live$/);
  await env.context.setOffline(true);
  await waitText('connection', /Reconnecting/);
  await waitText('message-near-hand', /Reconnecting to the server/);
  const near = await tid('message-near-hand').boundingBox();
  const hand = await tid('hb-hand-0').boundingBox();
  assert.ok(near.y >= hand.y + hand.height, 'the notice is under the hand, in the page');
  assert.equal(await tid('message-near-hand').evaluate((e) => getComputedStyle(e).position), 'static', 'the notice floats over nothing');
  await page.screenshot({ path: path.join(OUT, 'connection-lost-375.png') });
  await env.context.setOffline(false);
  await waitText('connection', /^Live$/);
  await page.waitForFunction(() => !/Reconnecting/.test(document.querySelector('[data-testid="message-near-hand"]').textContent));
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('no console errors beyond the refused connections', () => {
  // While the server is down the browser logs each refused request itself.
  const ours = env.consoleErrors.filter((e) => !/Failed to load resource|ERR_CONNECTION_REFUSED|ERR_INTERNET_DISCONNECTED/.test(e));
  assert.deepEqual(ours, []);
});
