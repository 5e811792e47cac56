// Invites are claimed once, in separate browsers (contexts): Ada
// creates a table and invites Bob and Cy; Bob opens his link and takes the
// seat; Eve, a third browser, opens the same link, is told the seat is
// taken and that Ada invited, and watches; Ada's page shows Bob joined. Ada
// gives Cy's seat a new link: the old one is refused as replaced, the new
// one seats Eve. Then Bob is gone: Ada gives his seat a new link; opened by
// a browser that sits at the table already (Ada's, Eve's) it changes
// nothing and says whose link it is; a fourth browser takes the seat over,
// and Bob's page is told its seat was taken and drops to watching.
// Before the fix a used link kept working: a third browser took the seat
// and neither browser was told.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startAll, stopAll, openContext, OUT, pollPage } from './harness.mjs';

let env;
let ada, bob, eve;

before(async () => {
  env = await startAll();
  ada = { context: env.context, page: env.page, errors: env.consoleErrors, label: 'ada' };
  bob = await openContext(env, 'bob');
  eve = await openContext(env, 'eve');
});
after(async () => { await stopAll(env); });

const ready = (p) => p.waitForSelector('body[data-ready="true"]');
const pageApp = (p) => p.evaluate(async () => {
  const { app } = await import('/core/state.js');
  return { id: app.id, you: app.you, token: app.token, seats: app.seats };
});
const message = (p) => p.getByTestId('message').innerText();
const waitMessage = (p, re) => p.waitForFunction((src) => new RegExp(src).test(document.querySelector('[data-testid="message"]').textContent), re.source);

let id;
const links = {};

test('Ada invites Bob and Cy; Bob takes his seat; Eve opens the same link and is told it is taken and who invited', async () => {
  const p = ada.page;
  await p.goto('/');
  await ready(p);
  await p.getByTestId('new-game-game').selectOption('comp10001bo');
  await p.getByTestId('new-game-seat-0').selectOption('@me');
  await p.getByTestId('new-game-bot-1').selectOption('@invite');
  await p.getByTestId('new-game-friend-1').fill('Bob');
  await p.getByTestId('new-game-bot-2').selectOption('@invite');
  await p.getByTestId('new-game-friend-2').fill('Cy');
  await p.getByTestId('new-game-name').fill('Ada');
  await p.getByTestId('new-game-seed').fill('11');
  await p.getByTestId('new-game-submit').click();
  await p.waitForFunction(() => /#game=/.test(location.hash));
  id = decodeURIComponent(/game=([^&]+)/.exec(await p.evaluate(() => location.hash))[1]);
  for (const n of [1, 2]) links[n] = await p.getByTestId(`invite-link-${n}`).inputValue();
  assert.match(links[1], /#game=[^&]+&seat=1&invite=[^&]+$/);

  await bob.page.goto(links[1]);
  await ready(bob.page);
  await bob.page.getByTestId('board').waitFor();
  await waitMessage(bob.page, /Welcome, Bob/);
  assert.equal((await pageApp(bob.page)).you, 1, 'Bob sits at seat 1');
  assert.doesNotMatch(await bob.page.evaluate(() => location.href), /invite|seat=/, 'the invite left the address bar');

  await eve.page.goto(links[1]);
  await ready(eve.page);
  await eve.page.getByTestId('board').waitFor();
  await waitMessage(eve.page, /taken/);
  assert.match(await message(eve.page), /Bob's seat is taken: its invite link has been used already; ask Ada, who invited you, for a new link\. You can watch the game\./);
  const e = await pageApp(eve.page);
  assert.equal(e.you, null, 'Eve watches');
  assert.equal(e.token, null);
  assert.equal(await eve.page.evaluate((k) => localStorage.getItem(k), `croupier.token.${id}`), null, 'and holds no token');
  assert.equal((await pageApp(bob.page)).you, 1, 'Bob still holds his seat');
  await eve.page.screenshot({ path: path.join(OUT, 'invites-taken-1280.png') });
  await eve.page.setViewportSize({ width: 375, height: 740 });
  await eve.page.screenshot({ path: path.join(OUT, 'invites-taken-375.png') });
  await eve.page.setViewportSize({ width: 1280, height: 900 });

  // Ada's panel says Bob joined (the claim's version frame on her event stream refreshes it)
  await p.getByTestId('invite-status-1').waitFor({ timeout: 10000 });
  assert.match(await p.getByTestId('invite-row-1').innerText(), /Bob has joined the table/);
  assert.equal(await p.getByTestId('invite-link-2').count(), 1, "Cy's link is still offered");
  await p.screenshot({ path: path.join(OUT, 'invites-host-1280.png') });
  await p.setViewportSize({ width: 375, height: 740 });
  await p.getByTestId('invites').scrollIntoViewIfNeeded();
  await p.screenshot({ path: path.join(OUT, 'invites-host-375.png') });
  assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling at 375 px');
  await p.setViewportSize({ width: 1280, height: 900 });
});

test("a new link for Cy's unclaimed seat replaces the old one; Eve takes the seat with it", async () => {
  const p = ada.page;
  await p.getByTestId('invite-new-2').click();
  await p.waitForFunction((old) => document.querySelector('[data-testid="invite-link-2"]').value !== old, links[2]);
  const fresh = await p.getByTestId('invite-link-2').inputValue();
  await eve.page.goto(links[2]);
  await ready(eve.page);
  await waitMessage(eve.page, /replaced/);
  assert.match(await message(eve.page), /replaced by a newer one; ask Ada, who invited you, for a new link/);
  assert.equal((await pageApp(eve.page)).you, null);
  await eve.page.goto(fresh);
  await ready(eve.page);
  await waitMessage(eve.page, /Welcome, Cy/);
  // The welcome is said before the game is loaded again (core/invite.js,
  // then app.js's loadGame): wait for the seat, then say what is there.
  await pollPage(eve.page, async () => { const { app } = await import('/core/state.js'); return app.you === 2; });
  assert.equal((await pageApp(eve.page)).you, 2, 'Eve plays seat 2 now');
  links[2] = fresh;
});

test("Bob has gone: Ada gives his seat a new link; nobody trades a seat they hold; a new browser takes Bob's over and Bob's page is told", async () => {
  const p = ada.page;
  await p.getByTestId('invite-replace-1').click();
  await p.getByTestId('invite-link-1').waitFor();
  const fresh = await p.getByTestId('invite-link-1').inputValue();
  assert.notEqual(fresh, links[1]);
  assert.match(await p.getByTestId('invite-row-1').innerText(), /whoever opens it takes the seat over/);
  // Ada opens it herself: she keeps her seat and is told the link is Bob's
  await p.goto(fresh);
  await ready(p);
  await waitMessage(p, /already sit/);
  assert.match(await message(p), /You already sit at this table as Ada\. This link is for Bob's seat: send it to them\./);
  assert.equal((await pageApp(p)).you, 0);
  // Eve, who holds Cy's seat, the same
  await eve.page.goto(fresh);
  await ready(eve.page);
  await waitMessage(eve.page, /already sit/);
  assert.equal((await pageApp(eve.page)).you, 2);
  // Bob is still seated until the link is used
  assert.equal((await pageApp(bob.page)).you, 1);
  const dee = await openContext(env, 'dee');
  await dee.page.goto(fresh);
  await ready(dee.page);
  await waitMessage(dee.page, /Welcome, Bob/);
  assert.equal((await pageApp(dee.page)).you, 1, 'the new browser holds seat 1');
  // Bob's page: its token no longer names a seat; it says so and watches
  await waitMessage(bob.page, /taken in another browser/);
  await pollPage(bob.page, async () => { const { app } = await import('/core/state.js'); return app.you === null; });
  assert.equal(await bob.page.evaluate((k) => localStorage.getItem(k), `croupier.token.${id}`), null, 'Bob forgot the dead token');
  await bob.page.screenshot({ path: path.join(OUT, 'invites-replaced-1280.png') });
  assert.deepEqual(dee.errors, []);
  await dee.context.close();
});

test('no console errors in the invite tests but the refusals the browser logs itself', () => {
  const refused = (x) => /status of (401|403|409)/.test(x);
  assert.deepEqual([...ada.errors, ...bob.errors, ...eve.errors].filter((x) => !refused(x)), []);
});
