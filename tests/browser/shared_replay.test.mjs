// Browser test: a shared replay (core/sharedreplay.js) between two browsers
// (two contexts, each its own storage). One shares a finished game's replay
// and leads; the other opens the link (the replay's id only, no secret) and
// follows the move shown, browses alone and follows again, asks to lead and
// is handed the lead.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, stopAll, apiCall, openContext } from './harness.mjs';

let env, lead, other;

before(async () => {
  env = await startAll();
  lead = env.page;
  other = await openContext(env, 'follower');
});
after(async () => {
  assert.deepEqual(env ? [...env.consoleErrors, ...(other ? other.errors : [])] : [], [], 'no console errors');
  if (other) await other.context.close();
  await stopAll(env);
});

const atShown = (page, n) => page.waitForFunction((k) => {
  const b = document.querySelector('[data-testid="replay-board"]');
  return b && b.dataset.at === String(k) && b.childElementCount > 0;
}, n);
const statusHas = (page, text) => page.waitForFunction((t) => (document.querySelector('[data-testid="shared-status"]')?.textContent || '').includes(t), text);

test('one browser leads a shared replay, another follows each move, browses alone, follows again, and takes the lead', async () => {
  const r = await apiCall(env, 'POST', '/games', { body: { game: 'hanabi', variant: 'standard', seed: 7, players: [{ bot: 'conventions' }, { bot: 'rules' }] } });
  assert.equal(r.status, 201);
  const g = r.body;
  assert.equal(g.state.over, true, 'a table of bots plays to the end at once');
  const plays = (await apiCall(env, 'GET', `/games/${g.id}/plays`)).body.plays;
  const n = (i) => plays[i].n;

  // The leader opens the replay and shares it, under the name the lobby kept.
  await lead.goto(`/#game=${g.id}&at=-1`);
  await lead.waitForSelector('body[data-ready="true"]');
  await lead.evaluate(() => localStorage.setItem('croupier.name', 'Ada'));
  await atShown(lead, -1);
  await lead.getByTestId('share-button').click();
  await statusHas(lead, 'You lead');
  const link = await lead.getByTestId('shared-link').inputValue();
  const m = /\/#replay=([A-Za-z0-9_-]+)$/.exec(link);
  assert.ok(m, `the link holds the replay's id only: ${link}`);
  const rid = m[1];
  const secret = await lead.evaluate((k) => JSON.parse(localStorage.getItem(k)).token, `croupier.replay.${rid}`);
  assert.ok(secret && !link.includes(secret), 'the leader\'s token is not in the link');
  assert.ok(!(await lead.evaluate(() => location.href)).includes(secret), 'nor in the address');

  // The other browser opens the link and follows.
  await other.page.goto(link.replace(/^https?:\/\/[^/]+/, ''));
  await other.page.waitForSelector('body[data-ready="true"]');
  await statusHas(other.page, 'Following Ada');
  await atShown(other.page, -1);
  assert.equal(await other.page.getByTestId('replay-next').isDisabled(), true, 'the step controls are the leader\'s');
  assert.equal(await other.page.getByTestId('share-button').isVisible(), false);
  for (let i = 0; i < 3; i++) {
    await lead.getByTestId('replay-next').click();
    await atShown(lead, n(i));
    await atShown(other.page, n(i)); // the follower shows each move the leader shows
  }
  await lead.getByTestId('replay-slider').fill(String(6));
  await atShown(lead, n(6));
  await atShown(other.page, n(6));
  assert.equal((await apiCall(env, 'GET', `/replays/${rid}`)).body.ply, n(6));

  // Browse alone: the follower's own steps; the leader's moves wait.
  await other.page.getByTestId('shared-toggle').click();
  await statusHas(other.page, 'Browsing alone');
  assert.equal(await other.page.getByTestId('replay-next').isDisabled(), false);
  await other.page.getByTestId('replay-first').click();
  await atShown(other.page, -1);
  await lead.getByTestId('replay-next').click();
  await atShown(lead, n(7));
  await statusHas(other.page, `is at play ${n(7)}`);
  await other.page.waitForTimeout(300);
  assert.equal(await other.page.getByTestId('replay-board').getAttribute('data-at'), '-1', 'browsing alone stays put');
  assert.equal((await apiCall(env, 'GET', `/replays/${rid}`)).body.ply, n(7), 'a follower\'s steps move nobody');
  // Follow again: the leader's move.
  await other.page.getByTestId('shared-toggle').click();
  await statusHas(other.page, 'Following');
  await atShown(other.page, n(7));

  // Hand-over: the follower asks, the leader hands over; the roles swap.
  // It asks under the name it types (the leader reads it), and leads under it.
  assert.equal(await other.page.getByTestId('shared-name').inputValue(), '', 'no name kept in the follower\'s browser');
  await other.page.getByTestId('shared-name').fill('Bea');
  await other.page.getByTestId('shared-ask').click();
  const hand = lead.locator('[data-testid^="shared-handover-"]');
  await hand.first().waitFor();
  assert.match(await lead.getByTestId('shared-candidates').innerText(), /^Bea asks to lead/);
  await hand.first().click();
  await statusHas(other.page, 'You lead');
  await statusHas(lead, 'Following Bea');
  assert.equal(await other.page.evaluate(() => localStorage.getItem('croupier.name')), 'Bea', 'the typed name is kept');
  assert.equal(await lead.getByTestId('replay-next').isDisabled(), true, 'the old leader follows now');
  await other.page.getByTestId('replay-next').click();
  await atShown(other.page, n(8));
  await atShown(lead, n(8));
});
