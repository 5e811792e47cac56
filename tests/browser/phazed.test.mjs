// Browser test: Phazed against three planner bots, played by clicking: pick up,
// discard, follow the hints (laying a phase and placing cards when the hint says
// so), the log with the bots' explanations, reload, phone width.
//
// The test asks the server for the view and the legal plays only to know what
// to click and what to expect; the assertions are on what the page shows.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startAll, stopAll, apiInPage, apiCall, logCount, logGrows, OUT } from './harness.mjs';

const SEED = 7; // we lead hand 1; the bots lay phase 1 early
const ADMIN = randomBytes(24).toString('base64url');
process.env.CROUPIER_ADMIN_TOKEN = ADMIN; // the server started below reads it: the last test exports a game
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
    assert.ok(i >= 0, 'the hinted phase is among the legal phase plays');
    if (i < 12) assert.match(await tid(`pz-phase-${i}`).getAttribute('class'), /\bhinted\b/, 'marked in the list too');
    assert.match(await tid('pz-phase-hint').getAttribute('class'), /\bhinted\b/, 'the hinted phase on top');
    await tid('pz-phase-hint').click();
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
  assert.match(await tid('message').innerText(), /^Hint: [A-Z]/);
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
  let laid = false, tookBack = false;
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
    if (hnt.play[0] === 3 && !tookBack) {
      // taken back (the Take back button), the hand and table as before it; then laid again
      tookBack = true;
      const undo = tid('undo-button');
      assert.ok(!(await undo.isDisabled()), 'the phase just laid can be taken back');
      const logged = await logCount(page);
      await undo.click();
      await page.waitForFunction(() => /Taken back/.test(document.querySelector('[data-testid="message"]').textContent));
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="log"] > li').length === n - 1, logged);
      assert.deepEqual((await view()).state, s, 'the game as it was before the phase');
      assert.deepEqual(await shownHand(), s.hand, 'the cards back in the hand');
      const [again] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/hint')), tid('hint-button').click()]);
      assert.deepEqual((await again.json()).play, hnt.play, 'the same hint again');
      await page.waitForSelector('[data-testid="pz-phase-hint"].hinted');
      await clickPlay(hnt.play, s);
    }
  }
  v = await view(); s = v.state;
  assert.ok(laid, 'we laid a phase by clicking a "Play phase" button');
  assert.ok(tookBack, 'and took it back once');
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

// A hand that can lay phase 5 (a run of eight) 11,184 ways: six Aces (Wild)
// among eleven cards. The position is a real game's export with cards
// swapped between places (none invented), imported as a new game.
const BIG = ['AS', 'AS', 'AH', 'AH', 'AD', 'AD', '2S', '3H', '4D', '5C', '6S'];

/** A game where Ada (seat 0), after her pick-up, holds `cards` (11) with
 *  `done` phases done (bonus: the list of seven flags). */
async function handGame(cards, done, variant = 'standard') {
  const g = await apiCall(env, 'POST', '/games', { body: { game: 'phazed', variant, seed: 3, players: [{ name: 'Ada' }, { bot: 'greedy' }, { bot: 'greedy' }, { bot: 'greedy' }] } });
  assert.equal(g.status, 201);
  assert.equal((await apiCall(env, 'POST', `/games/${g.body.id}/plays`, { token: g.body.seats[0].token, body: { play: [1, null] } })).status, 200);
  const ex = await apiCall(env, 'GET', `/games/${g.body.id}/export?format=json`, { token: ADMIN });
  assert.equal(ex.status, 200);
  const st = ex.body.state, mine = st.hands[0];
  cards.forEach((want, i) => {
    const place = [st.deck, st.discard_pile, ...st.hands].find((pl) => (pl === mine ? mine.indexOf(want, i) : pl.indexOf(want)) >= 0);
    const from = place === mine ? mine.indexOf(want, i) : place.indexOf(want);
    [place[from], mine[i]] = [mine[i], place[from]];
  });
  st.phase_status[0] = done;
  const imp = await apiCall(env, 'POST', '/games/import', { body: ex.body });
  assert.equal(imp.status, 201);
  return { id: imp.body.id, token: imp.body.seats[0].token };
}

const bigHandGame = () => handGame(BIG, 4);

test('thousands of phase plays: the hint on top, a short list, pages from the API, usable at 375px', async () => {
  const { id, token } = await bigHandGame();
  await page.goto('/');
  await page.evaluate(([k, t]) => localStorage.setItem(k, t), [`croupier.token.${id}`, token]);
  await page.goto(`/#game=${id}`);
  await tid('pz-phase-plays').waitFor();
  const legal = (await apiCall(env, 'GET', `/games/${id}/legal?limit=5000`, { token })).body;
  const before = legal.plays.filter((p) => p[0] !== 3).length;
  const phases = legal.total - before;
  assert.ok(phases > 4096, `a hand with many phase plays (${phases})`);
  assert.match(await tid('pz-phase-count').innerText(), new RegExp(`${phases.toLocaleString('en')} ways`));
  // the list is a help, folded away until asked for
  assert.equal(await tid('pz-phase-next').isVisible(), false, 'the ways are folded away');
  await tid('pz-phase-ways-toggle').click();
  assert.equal(await tid('pz-phase-next').isVisible(), true);
  const buttons = page.locator('.pz-phase-btn');
  assert.equal(await buttons.count(), 12, 'a short list, not thousands of buttons');
  assert.equal(await tid('pz-phase-range').innerText(), `1–12 of ${phases.toLocaleString('en')}`);
  assert.equal(await tid('pz-phase-prev').isDisabled(), true);

  // the hint's phase play on top, marked
  await Promise.all([page.waitForResponse((r) => r.url().endsWith('/hint')), tid('hint-button').click()]);
  await tid('pz-phase-hint').waitFor();
  const hint = (await apiCall(env, 'GET', `/games/${id}/hint`, { token })).body.play;
  assert.equal(hint[0], 3, 'the planner lays its phase');
  assert.match(await tid('pz-phase-hint').getAttribute('class'), /\bhinted\b/);
  assert.match(await tid('pz-phase-hint').getAttribute('aria-label'), /^Play phase 5: .*\(hint\)$/);
  // the tray takes the hint's cards too
  await tid('pz-tray-hint').click();
  const inTray = await tid('pz-tray-group-0').locator('.card').evaluateAll((els) => els.map((e) => e.dataset.card));
  assert.deepEqual(inTray, hint[1][1][0], "the hint's run, in its order, in the tray");
  await tid('pz-tray-clear').click();
  assert.equal(await tid('pz-tray-group-0').locator('.card').count(), 0);

  // next page: from /legal's first answer; the last page: fetched from the API's pages
  await tid('pz-phase-next').click();
  assert.equal(await tid('pz-phase-range').innerText(), `13–24 of ${phases.toLocaleString('en')}`);
  const label = (p) => `Play phase ${p[1][0]}: `;
  assert.ok((await tid('pz-phase-12').getAttribute('aria-label')).startsWith(label(legal.plays[before + 12])));
  const [res] = await Promise.all([page.waitForResponse((r) => /\/legal\?offset=/.test(r.url())), tid('pz-phase-last').click()]);
  assert.ok(new URL(res.url()).searchParams.get('offset') > 1000, 'a page past the first answer, from the server');
  const lastFrom = Math.floor((phases - 1) / 12) * 12;
  await tid(`pz-phase-${lastFrom}`).waitFor();
  assert.equal(await tid('pz-phase-range').innerText(), `${(lastFrom + 1).toLocaleString('en')}–${phases.toLocaleString('en')} of ${phases.toLocaleString('en')}`);
  const tail = (await apiCall(env, 'GET', `/games/${id}/legal?offset=${before + lastFrom}&limit=12`, { token })).body.plays;
  assert.equal(await buttons.count(), 1 + tail.length, 'the hint and the last page');
  const names = (p) => p[1][1].map((g) => g.join(' ')).join(' ');
  for (let i = 0; i < tail.length; i++) {
    const shown = await tid(`pz-phase-${lastFrom + i}`).locator('.card').evaluateAll((els) => els.map((e) => e.dataset.card).join(' '));
    assert.equal(shown, names(tail[i]), `phase play ${lastFrom + i} as the server lists it`);
  }
  assert.equal(await tid('pz-phase-next').isDisabled(), true);
  await tid('pz-phase-first').click();
  assert.equal(await tid('pz-phase-range').innerText(), `1–12 of ${phases.toLocaleString('en')}`);

  // a phone: no sideways scrolling, the pager within the screen
  await page.setViewportSize({ width: 375, height: 812 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 375px (overflow ${overflow}px)`);
  const box = await tid('pz-phase-pager').boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 375, 'the pager fits the screen');
  await page.screenshot({ path: path.join(OUT, 'phazed-phase-pager-375.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });

  // and the hinted phase is laid by clicking it
  const n = await logCount(page);
  await tid('pz-phase-hint').click();
  await logGrows(page, n);
  const v = (await apiCall(env, 'GET', `/games/${id}`, { token })).body.state;
  assert.deepEqual(v.table[0], [5, hint[1][1]]);
  assert.equal(await tid('pz-phase-plays').count(), 0, 'no phase to lay once it is down');
});

// Phase 1 laid by putting cards into the tray's groups: a wrong selection
// first (the server's reason, naming the group, by the "Lay phase" button),
// then a group short of a card, then the right one, partly by keyboard.
test('a phase laid by choosing its cards, and a wrong choice explained by group', async () => {
  const HAND = ['7S', '7H', '7D', '9C', '9S', 'AH', '2C', '4D', '6H', 'JS', 'QC'];
  const { id, token } = await handGame(HAND, 0);
  await page.goto('/');
  await page.evaluate(([k, t]) => localStorage.setItem(k, t), [`croupier.token.${id}`, token]);
  await page.goto(`/#game=${id}`);
  await tid('pz-tray').waitFor();
  const hand = (await apiCall(env, 'GET', `/games/${id}`, { token })).body.state.hand;
  const card = (c) => tid(`pz-hand-card-${hand.indexOf(c)}`);
  const inGroup = (g) => tid(`pz-tray-group-${g}`).locator('.card').evaluateAll((els) => els.map((e) => e.dataset.card));
  assert.match(await tid('pz-tray-group-0').innerText(), /Group 1 needs a set of 3 of one value/);
  assert.match(await tid('pz-tray-group-1').innerText(), /Group 2 needs a set of 3 of one value/);
  // the list of ways stays a folded help
  assert.equal(await tid('pz-phase-ways').getAttribute('open'), null);

  // a hand card, then a group; and a group, then hand cards
  for (const c of ['7S', '7H', '9C']) { await card(c).click(); await tid('pz-tray-put-0').click(); }
  await tid('pz-tray-put-1').click();
  assert.equal(await tid('pz-tray-put-1').getAttribute('aria-pressed'), 'true');
  for (const c of ['9S', 'AH', '7D']) await card(c).click();
  assert.deepEqual(await inGroup(0), ['7S', '7H', '9C']);
  assert.deepEqual(await inGroup(1), ['9S', 'AH', '7D']);
  assert.equal(await tid('pz-tray-count-1').innerText(), '3 of 3 cards');
  assert.match(await card('7D').getAttribute('aria-label'), /in group 2 of your phase/);

  const refused = async (re) => {
    const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/plays')), tid('pz-tray-lay').click()]);
    assert.equal(res.status(), 422);
    await tid('verdict').waitFor();
    assert.match(await tid('verdict').innerText(), re);
    assert.equal(await page.locator('[data-testid="verdict-anchor"] [data-testid="pz-tray-lay"]').count(), 1, 'the reason by the "Lay phase" button');
  };
  await refused(/group 1 is not a set of one value: 7♠ and 9♣ differ/);
  await page.screenshot({ path: path.join(OUT, 'phazed-tray-refused.png'), fullPage: true });
  await page.setViewportSize({ width: 375, height: 812 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 375px with the tray (overflow ${overflow}px)`);
  await page.screenshot({ path: path.join(OUT, 'phazed-tray-375.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  assert.deepEqual(await inGroup(0), ['7S', '7H', '9C'], 'the tray keeps the choice after a refusal');

  // take back: a placed card in the tray, and one by its hand card
  await tid('pz-tray-card-0-2').click();
  await card('7D').click();
  assert.deepEqual(await inGroup(0), ['7S', '7H']);
  assert.deepEqual(await inGroup(1), ['9S', 'AH']);
  await tid('pz-tray-put-1').click(); // unchoose group 2
  await card('7D').click(); await tid('pz-tray-put-0').click();
  await refused(/group 2 needs 3 cards \(a set of 3 of one value\); it has 2 cards/);

  // the last card by keyboard: Tab to the hand card and Enter, then to "Put here" and Enter
  await card('9C').focus();
  await page.keyboard.press('Enter');
  assert.equal(await card('9C').getAttribute('aria-pressed'), 'true');
  await tid('pz-tray-put-0').focus();
  const focused = () => page.evaluate(() => document.activeElement.dataset.testid);
  const passed = [];
  for (let k = 0; k < 5 && (await focused()) !== 'pz-tray-put-1'; k++) { await page.keyboard.press('Tab'); passed.push(await focused()); }
  assert.deepEqual(passed, ['pz-tray-card-1-0', 'pz-tray-card-1-1', 'pz-tray-put-1'], 'Tab goes through group 2\'s cards to its "Put here"');
  await page.keyboard.press('Enter');
  assert.deepEqual(await inGroup(1), ['9S', 'AH', '9C']);
  const n = await logCount(page);
  await tid('pz-tray-lay').focus();
  await page.keyboard.press('Enter');
  await logGrows(page, n);
  const v = (await apiCall(env, 'GET', `/games/${id}`, { token })).body.state;
  assert.equal(v.table[0][0], 1);
  assert.deepEqual(v.table[0][1].map((g) => [...g].sort()), [['7D', '7H', '7S'], ['9C', '9S', 'AH']]);
  assert.equal(await tid('pz-tray').count(), 0, 'no tray once the phase is down');
  await page.screenshot({ path: path.join(OUT, 'phazed-tray-laid.png'), fullPage: true });
  // the two refusals (422) are the browser's only complaints here
  const refusals = env.consoleErrors.filter((e) => /status of 422/.test(e));
  assert.equal(refusals.length, 2);
  env.consoleErrors.splice(0, env.consoleErrors.length, ...env.consoleErrors.filter((e) => !/status of 422/.test(e)));
});

// The bonus variant: the tray offers the phases not done, and lays the one chosen.
test('bonus: the tray lays the open phase chosen', async () => {
  const done = [true, true, false, false, false, true, false];
  const { id, token } = await handGame(BIG, done, 'bonus');
  await page.goto('/');
  await page.evaluate(([k, t]) => localStorage.setItem(k, t), [`croupier.token.${id}`, token]);
  await page.goto(`/#game=${id}`);
  await tid('pz-tray').waitFor();
  const offered = await page.locator('[data-testid^="pz-tray-phase-"]').evaluateAll((els) => els.map((e) => e.dataset.testid));
  assert.deepEqual(offered, ['pz-tray-phase-3', 'pz-tray-phase-4', 'pz-tray-phase-5', 'pz-tray-phase-7'], 'the open phases');
  await tid('pz-tray-phase-5').click();
  assert.equal(await tid('pz-tray-phase-5').getAttribute('aria-pressed'), 'true');
  assert.match(await tid('pz-tray-group-0').innerText(), /Group 1 needs a run of 8, in order/);
  assert.equal(await tid('pz-tray-group-1').count(), 0, 'phase 5 is one group');
  const hand = (await apiCall(env, 'GET', `/games/${id}`, { token })).body.state.hand;
  await tid('pz-tray-put-0').click();
  const RUN = ['AS', '2S', '3H', '4D', '5C', '6S', 'AH', 'AD'];
  const used = [];
  for (const c of RUN) {
    const i = hand.findIndex((x, k) => x === c && !used.includes(k));
    used.push(i);
    await tid(`pz-hand-card-${i}`).click();
  }
  assert.equal(await tid('pz-tray-count-0').innerText(), '8 of 8 cards');
  const n = await logCount(page);
  await tid('pz-tray-lay').click();
  await logGrows(page, n);
  const v = (await apiCall(env, 'GET', `/games/${id}`, { token })).body.state;
  assert.deepEqual(v.table[0], [5, [RUN]]);
});

test('no console errors while playing Phazed', () => {
  assert.deepEqual(env.consoleErrors, []);
});
