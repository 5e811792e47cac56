// Browser test: a phone (375x740), every game at every table size the lobby
// allows (GET /rules). Right after the deal, and again after a reload, with
// no scrolling by the test: your own hand and what you do with it (the piles
// you play to, Play/Discard, Go out) lie on the first screen, and nothing
// covers them (the point at the middle of each is that element itself, not
// a message over it). Messages take their place in the page, by the hand.
// Every control on the screen is a touch target of at least 44 x 44 px.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startAll, stopAll, apiInPage, dealFromLobby, OUT } from './harness.mjs';

const W = 375;
const H = 740;
let env, page;
const tid = (id) => page.getByTestId(id);

before(async () => {
  env = await startAll();
  page = env.page;
  await page.setViewportSize({ width: W, height: H });
});
after(async () => { await stopAll(env); });

/** The elements (test ids) that must be on the first screen, uncovered. */
async function onFirstScreen(ids, what) {
  const found = await page.evaluate((list) => list.map((id) => {
    const el = document.querySelector(`[data-testid="${id}"]`);
    if (!el) return { id, missing: true };
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    const top = document.elementFromPoint(x, y);
    return { id, top: r.top, bottom: r.bottom, left: r.left, right: r.right, uncovered: !!top && el.contains(top) };
  }), ids);
  for (const f of found) {
    assert.ok(!f.missing, `${what}: ${f.id} is on the table`);
    assert.ok(f.top >= 0 && f.bottom <= H && f.left >= 0 && f.right <= W,
      `${what}: ${f.id} lies on the first screen (y ${Math.round(f.top)}..${Math.round(f.bottom)} of ${H})`);
    assert.ok(f.uncovered, `${what}: nothing covers ${f.id}`);
  }
}

/** Every control a finger may tap on the screen shown is at least 44 x 44
 *  px (a checkbox or a radio through its label; a link inside a sentence is
 *  not a target of its own). */
async function touchTargets(what) {
  const small = await page.evaluate(() => {
    const shown = (e) => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden' && !e.closest('[hidden], .visually-hidden');
    return [...document.querySelectorAll('button, a.btn, a.skip-link, select, input, summary, [role="button"]')].filter(shown).map((e) => {
      const t = e.matches('input[type="checkbox"], input[type="radio"]') ? (e.closest('label') || document.querySelector(`label[for="${e.id}"]`) || e) : e;
      const r = t.getBoundingClientRect();
      return { id: e.dataset.testid || e.id || `${e.tagName.toLowerCase()} "${e.textContent.trim().slice(0, 24)}"`, w: Math.round(r.width), h: Math.round(r.height) };
    }).filter((x) => x.w > 2 && (x.w < 44 || x.h < 44)); // (a 1 px skip link off screen is no target)
  });
  assert.deepEqual(small, [], `${what}: touch targets under 44 x 44 px`);
}

/** Click at an element's middle as a finger would, without scrolling to it. */
async function tap(id) {
  const box = await tid(id).boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

const deal = (game, players, seed) => dealFromLobby(page, { game, players, seed });

/** What a game's table must show on the first screen (its hand, its actions). */
async function firstScreen(game, you, what) {
  const own = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const s = (await apiInPage(page, '/games/{id}')).body.state;
  if (game === 'comp10001bo') {
    await onFirstScreen(['hand', ...own('hand-card-', s.hand.length), ...own('build-pile-', 4), `stockpile-${you}`, ...own(`discard-pile-${you}-`, 4)], what);
  } else if (game === 'phazed') {
    await onFirstScreen(['pz-hand', ...own('pz-hand-card-', s.hand.length), 'pz-deck', 'pz-discard'], what);
  } else if (game === 'fivecrowns') {
    await onFirstScreen(['fc-hand', ...own('fc-hand-card-', s.hand.length), 'fc-draw-pile', 'fc-discard-pile'], what);
  } else if (game === 'hanabi') {
    await onFirstScreen([`hb-hand-${you}`, ...own(`hb-card-${you}-`, s.hands[you].length)], what);
  }
}

const rules = async () => (await (await fetch(`${env.baseURL}/rules`)).json()).games;

test('phone: your hand and its actions on the first screen, every game and table size', async () => {
  const games = await rules();
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
  await touchTargets('the lobby');
  assert.deepEqual(games.map((g) => g.game).sort(), ['comp10001bo', 'fivecrowns', 'hanabi', 'phazed'], 'every game of the catalogue is measured');
  let setups = 0;
  for (const g of games) {
    for (let n = g.players.min; n <= g.players.max; n++) {
      const what = `${g.game}, ${n} players`;
      await deal(g.game, n, 3);
      await page.waitForSelector('#board [data-testid^="player-"]');
      const you = (await apiInPage(page, '/games/{id}')).body.you;
      assert.equal(you, 0, `${what}: we hold seat 0`);
      await firstScreen(g.game, you, `${what}, after the deal`);
      await touchTargets(`${what}, after the deal`);
      // The message of the deal is in the page, by the hand: not over the table.
      assert.match(await tid('message-near-hand').innerText(), /dealt/);
      assert.equal(await tid('message-near-hand').evaluate((e) => getComputedStyle(e).position), 'static', `${what}: the message floats over nothing`);
      await page.screenshot({ path: path.join(OUT, `phone-${g.game}-${n}p-740.png`) });

      // The actions that come with a choice.
      if (g.game === 'hanabi') {
        await tap(`hb-card-${you}-0`);
        await onFirstScreen(['hb-play', 'hb-discard'], `${what}, a card chosen`);
      } else if (g.game === 'fivecrowns') {
        await tap('fc-draw-pile');
        await page.waitForFunction(() => document.querySelector('[data-testid="fc-go-out"]'));
        await firstScreen(g.game, you, `${what}, drawn`);
        await onFirstScreen(['fc-go-out'], `${what}, drawn`);
      }

      // Opened again (a link, "My games"): the table from the top of the page.
      const url = page.url();
      await page.goto('about:blank');
      await page.goto(url);
      await page.waitForSelector('body[data-ready="true"]');
      await page.waitForSelector('#board [data-testid^="player-"]');
      assert.equal(await page.evaluate(() => window.scrollY), 0);
      await firstScreen(g.game, you, `${what}, opened again`);
      setups += 1;
    }
  }
  console.log(`# ${setups} set-ups measured at ${W}x${H}`);
  assert.equal(setups, games.reduce((k, g) => k + g.players.max - g.players.min + 1, 0));
});

test('phone: a refused play\'s message shows by the hand, over nothing', async () => {
  await deal('comp10001bo', 4, 5);
  await tid('hand').waitFor();
  const s = (await apiInPage(page, '/games/{id}')).body.state;
  const plays = (await apiInPage(page, '/games/{id}/legal')).body.plays;
  const i = s.hand.findIndex((c) => !plays.some((p) => p[0] === 0 && p[1] === c && p[2][0] === 0));
  await tap(`hand-card-${i}`);
  await tap('build-pile-0'); // refused by the server
  // both boxes read in the same frame, once the message is there and the hand
  // drawn (a render in between, under a loaded machine, left no hand to measure)
  const [near, hand] = await (await page.waitForFunction(() => {
    const n = document.querySelector('[data-testid="message-near-hand"]');
    const hd = document.querySelector('[data-testid="hand"]');
    if (!n || !hd || !/Not allowed/.test(n.textContent)) return null;
    const box = (e) => { const r = e.getBoundingClientRect(); return { y: r.y, height: r.height }; };
    return hd.getBoundingClientRect().height > 0 ? [box(n), box(hd)] : null;
  })).jsonValue();
  assert.ok(near.y >= hand.y + hand.height - 1, 'the message is under the hand');
  assert.ok(near.y + near.height <= H, 'and on the first screen');
  assert.equal(await tid('message').evaluate((e) => e.getBoundingClientRect().width), 1, 'the bar above the table is for screen readers only');
  assert.match(await tid('message').textContent(), /Not allowed/, 'which still hear it');
  await onFirstScreen(['hand', `hand-card-${i}`, 'build-pile-0'], 'after a refused play');
  // The reason by the pile takes its own room: it overlaps no part of the table.
  await tid('verdict').waitFor();
  const overlapped = await page.evaluate(() => {
    const v = document.querySelector('[data-testid="verdict"]');
    const a = v.getBoundingClientRect();
    return [...document.querySelectorAll('#board [data-testid]')].filter((el) => !el.contains(v) && !v.contains(el)).filter((el) => {
      const b = el.getBoundingClientRect();
      return b.width > 0 && b.height > 0 && a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    }).map((el) => el.dataset.testid);
  });
  assert.deepEqual(overlapped, [], 'the verdict covers nothing');
  await page.screenshot({ path: path.join(OUT, 'phone-message-740.png') });
  // The first tap after the refusal hits what it was aimed at: another card
  // of the hand, under the verdict, pressed where it is now (the verdict goes
  // with the click, not with the press before it: nothing moves under the finger).
  const k = (i + 1) % s.hand.length;
  await tap(`hand-card-${k}`);
  assert.match(await tid(`hand-card-${k}`).getAttribute('class'), /\bselected\b/, 'the tap picked the card it was aimed at');
  assert.equal(await tid('verdict').count(), 0, 'and the verdict went with it');
});

test('no console errors on the phone', () => {
  // The refused play above is a 422 the browser itself logs.
  assert.deepEqual(env.consoleErrors.filter((e) => !/status of 422/.test(e)), []);
});
