// Browser test: Phazed against three planner bots, played by clicking: pick up,
// discard, follow the hints (laying a phase and placing cards when the hint says
// so), the log with the bots' explanations, reload, phone width.
//
// The test asks the server for the view and the legal plays only to know what
// to click and what to expect; the assertions are on what the page shows.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startAll, stopAll, apiInPage, logCount, logGrows, OUT } from './harness.mjs';

const SEED = 7; // we lead hand 1; the bots lay phase 1 early
let env, page;
const tid = (id) => page.getByTestId(id);
const api = (p) => apiInPage(page, p);
const view = async () => (await api('/games/{id}')).body;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

before(async () => { env = await startAll(); page = env.page; });
after(async () => { await stopAll(env); });

const shownHand = () => tid('pz-hand').locator('.card').evaluateAll((els) => els.map((e) => e.dataset.card));

/** Click through one play; returns once the log has grown. */
async function clickPlay(play, s) {
  const before = await logCount(page);
  const [t, x] = play;
  if (t === 1) await tid('pz-deck').click();
  else if (t === 2) await tid('pz-discard').click();
  else if (t === 3) {
    const legal = (await api('/games/{id}/legal')).body.plays.filter((p) => p[0] === 3);
    const i = legal.findIndex((p) => same(p, play)); // the hint is exactly one of /legal's
    assert.ok(i >= 0, 'the hinted phase is among the phase buttons');
    await tid(`pz-phase-${i}`).click();
  } else if (t === 4) {
    const [card, [p, g]] = x;
    await tid(`pz-hand-card-${s.hand.indexOf(card)}`).click();
    assert.match(await tid(`pz-group-${p}-${g}`).getAttribute('class'), /\btarget\b/, 'the legal group lights up');
    const legal = (await api('/games/{id}/legal')).body.plays.filter((q) => q[0] === 4 && q[1][0] === card && q[1][1][0] === p && q[1][1][1] === g);
    if (legal.length > 1 && Math.min(...legal.map((q) => q[1][1][2])) === x[1][2]) await tid(`pz-place-start-${p}-${g}`).click();
    else await tid(`pz-group-${p}-${g}`).click();
  } else if (t === 5) {
    await tid(`pz-hand-card-${s.hand.indexOf(x)}`).click();
    await tid('pz-discard-button').click();
  } else if (t === 6) await tid(`pz-skip-${x}`).click();
  await logGrows(page, before);
}

test('play Phazed against planner bots in the browser', async () => {
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
  await tid('new-game-game').selectOption('phazed');
  assert.equal(await tid('new-game-players').inputValue(), '4', 'four players by default');
  assert.equal(await page.locator('[data-testid^="new-game-bot-"]').count(), 3);
  for (const i of [1, 2, 3]) await tid(`new-game-bot-${i}`).selectOption('planner');
  await tid('new-game-name').fill('Ada');
  await tid('new-game-seed').fill(String(SEED));
  await tid('new-game-submit').click();
  await page.waitForFunction(() => /#game=/.test(location.hash));
  await tid('pz-hand').waitFor();

  let v = await view();
  const you = v.you;
  let s = v.state;
  assert.equal(you, 0);
  assert.equal(s.current, you);
  assert.equal(s.turn_phase, 'pick-up');
  assert.deepEqual(await shownHand(), s.hand, 'the hand, as dealt');
  assert.equal(s.hand.length, 10);
  assert.equal(await tid('pz-discard').locator('.card').getAttribute('data-card'), s.discard, 'discard top shown');
  assert.match(await tid('pz-hand-number').innerText(), /Hand 1 of 20/);
  assert.match(await tid('status').innerText(), /Your turn · hand 1\/20 · pick up/);
  assert.doesNotMatch(await tid('pz-hand-card-0').getAttribute('class'), /\bplayable\b/, 'no discard offered before picking up');

  // Sorting by value, then back.
  await tid('pz-sort-value').click();
  const byValue = await shownHand();
  const V = '234567890JQKA';
  assert.deepEqual(byValue.map((c) => V.indexOf(c[0])), [...byValue.map((c) => V.indexOf(c[0]))].sort((a, b) => a - b));
  await tid('pz-sort-dealt').click();

  // Hint: the suggested pile is highlighted.
  const [hintRes] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/hint')), tid('hint-button').click()]);
  const hint = await hintRes.json();
  assert.ok(hint.play[0] === 1 || hint.play[0] === 2);
  await page.waitForSelector('.hinted');
  assert.match(await tid(hint.play[0] === 1 ? 'pz-deck' : 'pz-discard').getAttribute('class'), /\bhinted\b/);
  assert.match(await tid('message').innerText(), /Hint \(planner\)/);
  await page.screenshot({ path: path.join(OUT, 'phazed-hint.png'), fullPage: true });

  // A whole turn by clicking: draw from the deck, then discard a legal card.
  let legal = (await api('/games/{id}/legal')).body.plays;
  assert.ok(legal.some((p) => p[0] === 1));
  let before = await logCount(page);
  await tid('pz-deck').click();
  await logGrows(page, before);
  s = (await view()).state;
  assert.equal(s.turn_phase, 'play');
  assert.deepEqual(await shownHand(), s.hand);
  assert.equal(s.hand.length, 11);
  assert.match(await page.locator('[data-testid="log"] > li').last().innerText(), /drew from the deck/);
  legal = (await api('/games/{id}/legal')).body.plays;
  const disc = legal.find((p) => p[0] === 5);
  const i = s.hand.indexOf(disc[1]);
  await tid(`pz-hand-card-${i}`).click();
  assert.equal(await tid(`pz-hand-card-${i}`).getAttribute('aria-pressed'), 'true');
  assert.match(await tid('pz-discard').getAttribute('class'), /\btarget\b/);
  before = await logCount(page);
  await tid('pz-discard-button').click();
  await logGrows(page, before);
  const mine = page.locator(`[data-testid="log"] > li[data-seat="${you}"]`);
  assert.ok((await mine.last().innerText()).replace(/\s+/g, '').includes('discarded'));

  // The bots played in the same request; their plays are explained in the log.
  v = await view(); s = v.state;
  assert.equal(s.current, you);
  const botExpl = page.locator(`[data-testid="log"] > li:not([data-seat="${you}"]) [data-testid="log-explanation"]`);
  assert.ok(await botExpl.count() >= 3, 'each bot play comes with an explanation');
  assert.match(await tid('log').innerText(), /played phase 1/);
  for (let p = 1; p < 4; p++) {
    if (s.table[p][0] === null) continue;
    assert.match(await tid(`pz-phase-label-${p}`).innerText(), new RegExp(`Phase ${s.table[p][0]}`));
    assert.equal(await tid(`pz-table-${p}`).locator('.card').count(), s.table[p][1].flat().length, 'the laid groups are shown');
  }
  await tid('pz-discard').locator('.card').waitFor();
  assert.equal(await tid('pz-discard').locator('.card').getAttribute('data-card'), s.discard);

  // Follow the hints by clicking until we have laid our phase (and finished that turn).
  let laid = false;
  let laidHand = null;
  for (let k = 0; k < 200; k++) {
    v = await view(); s = v.state;
    if (s.over || (laid && s.turn_phase === 'pick-up')) break;
    assert.equal(s.current, you, 'bots move inside our requests');
    const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/hint')), tid('hint-button').click()]);
    const hnt = await res.json();
    if (hnt.play[0] === 3) {
      laidHand = s.hand_number;
      await page.screenshot({ path: path.join(OUT, 'phazed-phase-offer.png'), fullPage: true });
      laid = true;
    }
    await clickPlay(hnt.play, s);
  }
  v = await view(); s = v.state;
  assert.ok(laid, 'we laid a phase by clicking a "Play phase" button');
  if (s.hand_number === laidHand && s.table[you][0] !== null) {
    assert.match(await tid(`pz-phase-label-${you}`).innerText(), new RegExp(`Phase ${s.table[you][0]}`));
    assert.match(await tid(`pz-progress-${you}`).getAttribute('aria-label'), new RegExp(`Phase ${s.phase_status[you]} of 7 done`));
  }
  assert.equal(await tid(`player-${you}`).evaluate((el) => /\bnull\b/.test(el.textContent)), false, 'no stray "null" text');
  await page.screenshot({ path: path.join(OUT, 'phazed-desktop.png'), fullPage: true });

  // Reload: the same game, hand and log (with the explanations).
  const beforeReload = {
    hash: await page.evaluate(() => location.hash), hand: await shownHand(),
    log: await logCount(page), explained: await botExpl.count(), version: await tid('game-version').innerText(),
  };
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await tid('pz-hand').waitFor();
  assert.equal(await page.evaluate(() => location.hash), beforeReload.hash);
  assert.match(await tid('message').innerText(), /resumed/i);
  assert.deepEqual(await shownHand(), beforeReload.hand);
  assert.equal(await tid('game-version').innerText(), beforeReload.version);
  if (s.hand_number === 1) { // after hand 1, GET /plays holds this hand only
    assert.equal(await logCount(page), beforeReload.log, 'the history of this hand comes back');
    assert.equal(await botExpl.count(), beforeReload.explained, 'explanations survive the reload');
  }
  // It plays on after the reload.
  before = await logCount(page);
  await tid('pz-deck').click();
  await logGrows(page, before);

  // Phone width.
  await page.setViewportSize({ width: 375, height: 812 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 375px (overflow ${overflow}px)`);
  await page.screenshot({ path: path.join(OUT, 'phazed-375.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('no console errors while playing Phazed', () => {
  assert.deepEqual(env.consoleErrors, []);
});
