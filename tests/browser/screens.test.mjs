// Browser test: screenshots of every table at 1280x800 and
// 375x740, at the start, in the middle and at game over, each game played to
// its end from the page's seat (the hint's play each turn, sent with this
// browser's token: every game, Phazed and Five Crowns included, runs its
// whole course), and in the middle while the bots' moves are played back
// (1280x800 and 375x812, in a browser that does not ask for
// reduced motion). Saved as tests/out/screens/<game>-<variant>-<stage>-<width>.png
// for a person to look at; asserted: each stage shows the table it should
// (your hand at the start and in the middle, the summary at the end, the
// playback's bar and the seat that moved during a playback), and nothing
// scrolls sideways.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startAll, stopAll, apiCall, dealFromLobby, openContext, settled, OUT } from './harness.mjs';

const DIR = path.join(OUT, 'screens');
const SIZES = [[1280, 800], [375, 740]];
const PLAYBACK_SIZES = [[1280, 800], [375, 812]];
let env, page, motion;
const tid = (id) => page.getByTestId(id);

before(async () => {
  env = await startAll();
  page = env.page;
  motion = await openContext(env, 'motion', { reducedMotion: 'no-preference' });
  mkdirSync(DIR, { recursive: true });
});
after(async () => {
  const errors = motion ? motion.errors : [];
  await stopAll(env); // first: an assertion must not leave the server and the browser running
  assert.deepEqual(errors, [], `no console errors while playing back (refused: ${motion ? motion.refused.join(', ') : ''})`);
});

const TABLES = [
  { game: 'comp10001bo', variant: 'standard', hand: 'hand', middle: (s) => Math.min(...s.turns) >= 10 },
  { game: 'comp10001bo', variant: 'bonus', hand: 'hand', middle: (s) => Math.min(...s.turns) >= 10 },
  { game: 'hanabi', variant: 'standard', hand: 'hb-hand-0', middle: (s) => s.deck <= 20 },
  { game: 'hanabi', variant: 'rainbow', hand: 'hb-hand-0', middle: (s) => s.deck <= 25 },
  { game: 'phazed', variant: 'standard', hand: 'pz-hand', middle: (s) => s.hand_number >= 5 },
  { game: 'phazed', variant: 'bonus', hand: 'pz-hand', middle: (s) => s.hand_number >= 5 },
  { game: 'fivecrowns', variant: 'standard', hand: 'fc-hand', middle: (s) => s.round >= 6 },
];

const call = (method, p, opts) => apiCall(env, method, p, opts);

async function shoot(t, stage, ready) {
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });
    await page.goto('about:blank');
    await page.goto(`/#game=${t.id}`);
    await page.waitForSelector('body[data-ready="true"]');
    await tid(ready).waitFor();
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(sideways <= 1, `${t.game} ${t.variant} ${stage} at ${w}px: nothing scrolls sideways (${sideways}px)`);
    await page.screenshot({ path: path.join(DIR, `${t.game}-${t.variant}-${stage}-${w}.png`), fullPage: true });
  }
}

/** During a playback: the page's seat makes the hint's play (through the
 *  page: core/game.js sendPlay) until the bots' plays are played back, and
 *  the second of them is shot at each width. */
async function shootPlayback(t) {
  const p = motion.page;
  for (const [w, h] of PLAYBACK_SIZES) {
    await p.setViewportSize({ width: w, height: h });
    await p.goto('/');
    await p.evaluate(([id, tok]) => localStorage.setItem(`croupier.token.${id}`, tok), [t.id, t.token]);
    await p.goto(`/#game=${t.id}`);
    await p.waitForSelector('body[data-ready="true"]');
    await settled(p);
    let shown = false;
    for (let k = 0; k < 8 && !shown; k++) {
      await p.evaluate(async (tok) => {
        const { app } = await import('/core/state.js');
        // only on our turn, the page idle: a hint asked otherwise is a 409 (and a console error)
        if (app.status.over || app.status.current !== app.you || app.busy) return;
        const hint = await (await fetch(`/games/${app.id}/hint`, { headers: { Authorization: `Bearer ${tok}` } })).json();
        await (await import('/core/game.js')).sendPlay(hint.play);
      }, t.token);
      // A past position on the board: the second play shown, or the first of two.
      shown = await p.waitForFunction(() => {
        const b = document.querySelector('[data-testid="board"]');
        const m = / · (\d+) of (\d+)$/.exec(document.querySelector('[data-testid="playback-position"]').textContent);
        return b.dataset.at !== undefined && !!m && Number(m[1]) >= Math.min(2, Number(m[2]) - 1);
      }, null, { timeout: 3000 }).then(() => true, () => false);
      if (!shown) await settled(p);
    }
    assert.ok(shown, `${t.game} ${t.variant}: a playback at ${w}px`);
    assert.ok(await p.getByTestId('playback').isVisible(), 'the playback\'s bar shows');
    assert.equal(await p.locator('#board .moved-seat').count(), 1, 'the seat that moved is marked');
    const sideways = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(sideways <= 1, `${t.game} ${t.variant} playback at ${w}px: nothing scrolls sideways (${sideways}px)`);
    await p.screenshot({ path: path.join(DIR, `${t.game}-${t.variant}-playback-${w}.png`) });
    // the rest at once; on a loaded machine the last of a few plays may have
    // been shown meanwhile (the playback then ended by itself: Skip's own
    // behaviour is tests/browser/playback.test.mjs's)
    const skip = p.getByTestId(w < 900 ? 'playback-skip-near-hand' : 'playback-skip');
    if (await skip.isVisible()) {
      await skip.click({ timeout: 3000 }).catch(async (e) => {
        if (await p.getByTestId('playback').isVisible()) throw e;
      });
    }
    await settled(p);
    assert.equal(await p.getByTestId('playback').isHidden(), true, 'the playback is over');
  }
}

/** Our seat plays the hint's play until `until(state)` holds or the game ends. */
async function playUntil(t, until) {
  for (let guard = 0; guard < 3000; guard++) {
    const v = (await call('GET', `/games/${t.id}`, { token: t.token })).body;
    if (v.state.over || until(v.state)) return v.state;
    assert.equal(v.state.current, v.you, `${t.game}: the bots have moved; it is our turn`);
    const hint = await call('GET', `/games/${t.id}/hint`, { token: t.token });
    assert.equal(hint.status, 200, JSON.stringify(hint.body));
    const r = await call('POST', `/games/${t.id}/plays`, { token: t.token, body: { play: hint.body.play } });
    assert.equal(r.status, 200, `${t.game}: the hint's play is made (${JSON.stringify(r.body)})`);
  }
  throw new Error(`${t.game} ${t.variant}: no end after 3000 plays`);
}

for (const t of TABLES) {
  test(`${t.game} ${t.variant}: start, middle and game over at both widths`, async () => {
    env.consoleErrors.length = 0;
    await page.setViewportSize({ width: 1280, height: 800 });
    await dealFromLobby(page, { game: t.game, variant: t.variant, seed: 21 });
    t.id = decodeURIComponent(/#game=([^&]+)/.exec(page.url())[1]);
    t.token = await page.evaluate((id) => localStorage.getItem(`croupier.token.${id}`), t.id);
    assert.ok(t.token, 'the page holds our seat');

    await shoot(t, 'start', t.hand);
    const mid = await playUntil(t, t.middle);
    assert.equal(mid.over, false, `${t.game} ${t.variant}: the middle comes before the end`);
    await shoot(t, 'middle', t.hand);
    await shootPlayback(t);
    const end = await playUntil(t, () => false);
    assert.equal(end.over, true);
    await shoot(t, 'over', 'summary');
    assert.match(await tid('summary-result').innerText(), /Game over/);
    assert.deepEqual(env.consoleErrors, [], 'no console errors');
  });
}
