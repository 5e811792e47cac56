// Browser test: screenshots of every table (issue 30 item 7) at 1280x800 and
// 375x740, at the start, in the middle and at game over, each game played to
// its end from the page's seat (the hint's play each turn, sent with this
// browser's token: every game, Phazed and Five Crowns included, runs its
// whole course). Saved as tests/out/screens/<game>-<variant>-<stage>-<width>.png
// for a person to look at; asserted: each stage shows the table it should
// (your hand at the start and in the middle, the summary at the end), and
// nothing scrolls sideways.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startAll, stopAll, apiCall, dealFromLobby, OUT } from './harness.mjs';

const DIR = path.join(OUT, 'screens');
const SIZES = [[1280, 800], [375, 740]];
let env, page;
const tid = (id) => page.getByTestId(id);

before(async () => { env = await startAll(); page = env.page; mkdirSync(DIR, { recursive: true }); });
after(async () => { await stopAll(env); });

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
    const end = await playUntil(t, () => false);
    assert.equal(end.over, true);
    await shoot(t, 'over', 'summary');
    assert.match(await tid('summary-result').innerText(), /Game over/);
    assert.deepEqual(env.consoleErrors, [], 'no console errors');
  });
}
