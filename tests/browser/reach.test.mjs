// Browser test: always in reach. Every game at every table size the server
// allows (GET /rules), played whole through the HTTP API (the person's seat
// follows the hints, the others are bots), and looked at on a desk screen
// (1280x800) and a phone (375x812) at sampled positions of the game: the
// deal, halfway, the fullest table (the largest view: groups laid, long
// piles, big hands) and the person's last play (the last round). At each,
// with no scrolling: the page does not
// scroll sideways, and the seat's own area ([data-area="you"]) and the
// controls of the next play ([data-area="actions"], docs/web-page.md) are
// shown, whole, on the first screen.
//
// Fast by design: the games run through the API (each is dealt twice with
// one seed, once to learn the person's plays and once to replay them and
// stop at the samples), the page is opened only at the samples, in one
// browser with one page per screen size. REACH_SEED picks another seed
// (default 11); REACH_ONLY=<game> looks at one game only;
// REACH_SHOTS=1 saves each look to tests/out/reach-*.png (=full: the whole
// page).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startAll, stopAll, openContext, openGame, apiCall, OUT } from './harness.mjs';

const SCREENS = [{ name: 'desk', width: 1280, height: 800 }, { name: 'phone', width: 375, height: 812 }];
const SEED = Number(process.env.REACH_SEED || 11);
let env;
const pages = {};

before(async () => {
  env = await startAll();
  for (const sc of SCREENS) pages[sc.name] = await openContext(env, sc.name, { width: sc.width, height: sc.height });
});
after(async () => {
  for (const p of Object.values(pages)) await p.context.close();
  await stopAll(env);
});

/** Deal `game` for `n` (seat 0 a person, the rest the first bot that may
 *  sit with people), play the person's seat by its hints (or by `plays`,
 *  those of an earlier deal of the same seed: the bots play the same game
 *  again), and call `at(k, id, token, version)` before the person's k-th
 *  play for each k of `samples`. Resolves to the person's plays and the
 *  size of the view (its JSON) before each. */
async function playThrough(g, n, { samples = new Set(), at = async () => {}, plays = null } = {}) {
  const players = [{ name: 'Ann' }, ...Array.from({ length: n - 1 }, () => ({ bot: g.bots_with_people[0] }))];
  const made = await apiCall(env, 'POST', '/games', { body: { game: g.game, seed: SEED, players } });
  assert.equal(made.status, 201, `${g.game} ${n}: dealt`);
  const { id } = made.body;
  const { token } = made.body.seats[0];
  let { status, version, state } = made.body;
  const mine = [];
  const sizes = [];
  let k = 0;
  while (!status.over) {
    assert.equal(status.current, 0, `${g.game} ${n}: the person's turn after the bots'`);
    sizes.push(JSON.stringify(state).length);
    if (samples.has(k)) await at(k, id, token, version);
    let play;
    if (plays) play = plays[k];
    else {
      const hint = await apiCall(env, 'GET', `/games/${id}/hint`, { token });
      assert.equal(hint.status, 200, `${g.game} ${n}: a hint`);
      ({ play } = hint.body);
    }
    mine.push(play);
    const played = await apiCall(env, 'POST', `/games/${id}/plays`, { token, body: { play } });
    assert.equal(played.status, 200, `${g.game} ${n}: the hint's play is taken (${JSON.stringify(played.body)})`);
    ({ status, version, state } = played.body);
    k += 1;
    assert.ok(k < 3000, `${g.game} ${n}: the game ends`);
  }
  return { plays: mine, sizes };
}

/** Where the page stands at this moment, read in one frame. */
function measure(page) {
  return page.evaluate(() => {
    const box = (el) => {
      const r = el.getBoundingClientRect();
      const st = getComputedStyle(el);
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, visible: r.width > 0 && r.height > 0 && st.visibility !== 'hidden' };
    };
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth, innerHeight, scrollY,
      you: [...document.querySelectorAll('[data-area="you"]')].map(box),
      actions: [...document.querySelectorAll('[data-area="actions"]')].map(box),
    };
  });
}

function inView(m, b) {
  return b.visible && b.top >= 0 && b.bottom <= m.innerHeight && b.left >= 0 && b.right <= m.innerWidth;
}

const px = (b) => `y ${Math.round(b.top)}..${Math.round(b.bottom)}, x ${Math.round(b.left)}..${Math.round(b.right)}`;

/** Open the game on a page and check it; returns the faults found. */
async function look(sc, g, id, token, version, what) {
  const { page } = pages[sc.name];
  if (!page.url().endsWith(`#game=${id}`)) { // a new game; later samples of it come live to the open page
    if (page.url() === 'about:blank') await page.goto('/');
    await page.evaluate(([k, t]) => localStorage.setItem(k, t), [`croupier.token.${id}`, token]);
    await openGame(page, id);
    await page.evaluate(() => window.scrollTo(0, 0));
  }
  await page.waitForFunction((v) => document.querySelector('[data-testid="game-version"]')?.textContent === v
    && !document.querySelector('[data-testid="board"]').hasAttribute('aria-busy')
    && document.querySelector('[data-area="you"]'), String(version));
  if (g.game === 'hanabi' && await page.getAttribute('[data-testid="hb-card-0-0"]', 'aria-pressed') !== 'true') {
    // Hanabi's next play starts from a card: choose your first, as a tap would
    // (a click in place, no scrolling), and its actions open.
    await page.evaluate(() => document.querySelector('[data-testid="hb-card-0-0"]').click());
    await page.waitForSelector('[data-testid="hb-actions"]');
  }
  const m = await measure(page);
  const faults = [];
  if (m.scrollWidth > m.innerWidth) faults.push(`${what}: the page scrolls sideways (${m.scrollWidth} px wide in ${m.innerWidth})`);
  if (m.you.length !== 1) faults.push(`${what}: ${m.you.length} areas marked "you"`);
  if (!m.actions.length) faults.push(`${what}: no area marked "actions"`);
  for (const b of m.you) if (!inView(m, b)) faults.push(`${what}: your area is not on the first screen (${px(b)} of ${m.innerWidth}x${m.innerHeight})`);
  m.actions.forEach((b, i) => { if (!inView(m, b)) faults.push(`${what}: actions ${i} not on the first screen (${px(b)} of ${m.innerWidth}x${m.innerHeight})`); });
  if (process.env.REACH_SHOTS) await page.screenshot({ path: path.join(OUT, `reach-${what.replace(/[^a-z0-9]+/gi, '-')}.png`), fullPage: process.env.REACH_SHOTS === 'full' });
  return faults;
}

test('always in reach: every game, every table size, whole games, desk and phone', async () => {
  const t0 = Date.now();
  const games = (await apiCall(env, 'GET', '/rules')).body.games;
  assert.deepEqual(games.map((g) => g.game).sort(), ['comp10001bo', 'fivecrowns', 'hanabi', 'phazed'], 'every game of the catalogue is measured');
  const setups = games.filter((g) => !process.env.REACH_ONLY || g.game === process.env.REACH_ONLY).flatMap((g) => Array.from({ length: g.players.max - g.players.min + 1 }, (_, i) => ({ g, n: g.players.min + i })));
  // First pass, all at once and beside the looks: the person's plays in each game.
  const first = setups.map(({ g, n }) => playThrough(g, n));
  for (const p of first) p.catch(() => {}); // a failure is met where it is awaited
  const faults = [];
  let looks = 0;
  for (let s = 0; s < setups.length; s++) {
    const { g, n } = setups[s];
    const { plays, sizes } = await first[s];
    const len = plays.length;
    // The deal, halfway, the fullest table (the largest view: groups laid,
    // long piles, big hands) and the person's last play.
    const fullest = sizes.indexOf(Math.max(...sizes));
    const samples = new Set([0, Math.floor(len / 2), fullest, len - 1]);
    const again = await playThrough(g, n, {
      samples,
      plays,
      at: async (k, id, token, version) => {
        const found = await Promise.all(SCREENS.map((sc) => look(sc, g, id, token, version, `${g.game} ${n}p play ${k}/${len} ${sc.name}`)));
        faults.push(...found.flat());
        looks += SCREENS.length;
      },
    });
    assert.equal(again.plays.length, len, `${g.game} ${n}: the same seed plays the same game`);
    if (process.env.REACH_SHOTS) console.log(`# ${g.game} ${n} done at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  console.log(`# ${looks} looks at ${setups.length} set-ups in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  assert.deepEqual(faults, []);
  assert.deepEqual([...pages.desk.errors, ...pages.phone.errors], [], 'no console errors');
});
