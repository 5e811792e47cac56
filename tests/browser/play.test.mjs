// Browser test of the bundled web page (www/) against the real server.
//
// Starts build/croupier (or $CROUPIER_BIN) on a free port with a throwaway
// SQLite store, drives Debian's headless Chromium (or $CHROMIUM) through
// playwright-core, and plays Comp10001-Bo the way a person would: by clicking
// cards and piles. The test asks the server which plays are legal (GET /legal)
// only to know what to click; every assertion is on what the page shows.
// Screenshots go to tests/out/ (gitignored).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { REDUCED, settled } from './harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = path.join(ROOT, 'tests', 'out');
const BIN = process.env.CROUPIER_BIN || 'build/croupier';
const SEED = 20240607;

let server, serverLog = '', baseURL, tmp, browser, context, page;
const consoleErrors = [];

function startServer() {
  tmp = mkdtempSync(path.join(tmpdir(), 'croupier-browser-'));
  server = spawn(BIN, ['serve', '--listen', '127.0.0.1:0', '--store', `sqlite:${tmp}/t.db`, '--www', 'www'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not say it was listening within 10 s:\n${serverLog}`)), 10000);
    let buf = '';
    server.stdout.on('data', (d) => {
      buf += d; serverLog += d;
      const m = /croupier: listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(buf);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    server.stderr.on('data', (d) => { serverLog += d; });
    server.on('error', (e) => { clearTimeout(timer); reject(new Error(`cannot start ${BIN}: ${e.message}`)); });
    server.on('exit', (code, sig) => { clearTimeout(timer); reject(new Error(`server exited (${code ?? sig}) before listening:\n${serverLog}`)); });
  });
}

before(async () => {
  baseURL = await startServer();
  mkdirSync(OUT, { recursive: true });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 900 }, reducedMotion: REDUCED });
  page = await context.newPage();
  page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(`console: ${msg.text()}`); });
  page.on('pageerror', (err) => consoleErrors.push(`page error: ${err.message}`));
  page.setDefaultTimeout(10000);
});

after(async () => {
  if (browser) await browser.close();
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  }
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

// --- helpers -----------------------------------------------------------------

const tid = (id) => page.getByTestId(id);

/** Call the API from inside the page with this tab's seat token. */
function apiInPage(p, method = 'GET') {
  return page.evaluate(async ([p, method]) => {
    const id = /game=([^&]+)/.exec(location.hash)[1];
    const key = `croupier.token.${decodeURIComponent(id)}`;
    const token = localStorage.getItem(key) || sessionStorage.getItem(key);
    const res = await fetch(p.replace('{id}', id), { method, headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
    return { status: res.status, body: await res.json() };
  }, [p, method]);
}

const RANK = { A: 'A', 0: '10', J: 'J', Q: 'Q', K: 'K' };
const SUIT = { S: '♠', H: '♥', D: '♦', C: '♣' };
const NAME = { A: 'ace', 0: '10', J: 'jack', Q: 'queen', K: 'king' };
const SUITNAME = { S: 'spades', H: 'hearts', D: 'diamonds', C: 'clubs' };
const shown = (c) => `${RANK[c[0]] || c[0]}${SUIT[c[1]]}`;         // "10♥"
const spoken = (c) => `${NAME[c[0]] || c[0]} of ${SUITNAME[c[1]]}`; // "10 of hearts"
const squash = (s) => s.replace(/\s+/g, '');

/** What the log says for a play of ours: "7♥ from hand to build pile 2" (piles count from 1, as in the explanations). */
function expectedLogText(play, you) {
  const [type, src, d] = play;
  const dest = d[0] === 0 ? `build pile ${d[1] + 1}`
    : d[1][0] === you ? `own discard pile ${d[1][1] + 1}` : `discard pile ${d[1][1] + 1}`;
  if (type === 0) return `${shown(src)} from hand to ${dest}`;
  if (type === 2) return `${shown(src)} from stockpile to ${dest}`;
  if (type === 1) return `${shown(src[0])} from`;
  return 'no play possible';
}

/** Prefer plays that keep the turn going, so several clicks happen in one turn. */
function choosePlay(plays, state) {
  const rank = (p) => {
    if (p[0] === 2) return 0;                                   // stockpile first, as a player would
    if (p[0] === 0 && p[2][0] === 0) return 1;                  // hand to a build pile
    if (p[0] === 0 && p[2][0] === 1 && state.discard_piles[p[2][1][0]][p[2][1][1]].length === 0) return 3;
    if (p[0] === 0) return 2;
    if (p[0] === 1) return 4;
    return 5;
  };
  return [...plays].sort((a, b) => rank(a) - rank(b))[0];
}

function sourceTestId(play, state, you) {
  const [type, src] = play;
  if (type === 0) return `hand-card-${state.hand.indexOf(src)}`;
  if (type === 1) return `discard-pile-${src[1][0]}-${src[1][1]}`;
  if (type === 2) return `stockpile-${you}`;
  return null;
}
function destTestId(play) {
  const d = play[2];
  return d[0] === 0 ? `build-pile-${d[1]}` : `discard-pile-${d[1][0]}-${d[1][1]}`;
}

async function logCount() { return page.locator('[data-testid="log"] > li').count(); }

// --- tests -------------------------------------------------------------------

test('play Comp10001-Bo against three bots in the browser', async () => {
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');

  // The new-game form comes from GET /rules.
  const gameSel = tid('new-game-game');
  await assert.doesNotReject(gameSel.locator('option[value="comp10001bo"]').waitFor({ state: 'attached' }));
  assert.equal(await gameSel.locator('option[value="comp10001bo"]').textContent(), 'Comp10001-Bo');
  await gameSel.selectOption('comp10001bo');
  await tid('new-game-variant').selectOption('standard');
  await tid('new-game-name').fill('Ada');
  for (const i of [1, 2, 3]) {
    const options = await tid(`new-game-bot-${i}`).locator('option').allTextContents();
    assert.ok(options.length > 0, `seat ${i + 1} offers bot strategies`);
    await tid(`new-game-bot-${i}`).selectOption(options[(i - 1) % options.length]);
  }
  await tid('new-game-seed').fill(String(SEED));
  await tid('new-game-submit').click();

  // The table appears with our hand of five cards and every stockpile's top card.
  await tid('board').waitFor();
  await page.waitForFunction(() => /#game=/.test(location.hash));
  await settled(page); // the hash is set before the table is drawn
  const game = await apiInPage('/games/{id}');
  assert.equal(game.status, 200);
  const you = game.body.you;
  assert.equal(you, 0, 'the human is seat 0');
  let state = game.body.state;
  assert.equal(state.hand.length, 5);
  const handButtons = page.locator('[data-testid^="hand-card-"]');
  assert.equal(await handButtons.count(), 5, 'five cards in hand');
  for (let i = 0; i < 5; i++) {
    const b = tid(`hand-card-${i}`);
    assert.equal(squash(await b.innerText()), shown(state.hand[i]));
    assert.equal(await b.getAttribute('aria-label'), `${spoken(state.hand[i])}, your hand`);
  }
  for (let s = 0; s < 4; s++) {
    const top = state.stockpiles[s].top;
    const text = squash(await tid(`stockpile-${s}`).innerText());
    assert.ok(text.startsWith(shown(top)), `stockpile ${s} shows ${shown(top)} (shows ${text})`);
    assert.ok(text.endsWith(String(state.stockpiles[s].count)), 'stockpile shows its count');
  }
  for (let b = 0; b < 4; b++) assert.ok(await tid(`build-pile-${b}`).isVisible());
  assert.match(await tid('status').innerText(), /Your turn/);
  assert.match(await tid('draw-pile').innerText(), new RegExp(`Draw pile: ${state.draw_pile} cards`));

  // Play by clicking until the turn passes to the bots (at most 5 plays).
  let myPlays = 0;
  for (let k = 0; k < 6; k++) {
    const legal = (await apiInPage('/games/{id}/legal')).body.plays;
    state = (await apiInPage('/games/{id}')).body.state;
    if (state.over || state.current !== you) break;
    const play = choosePlay(legal, state);
    const before = await logCount();
    if (play[0] === 3) {
      await tid('pass-button').click();
    } else {
      const src = tid(sourceTestId(play, state, you));
      const dst = tid(destTestId(play));
      if (k === 1) { // once with the keyboard: focus and press Enter
        await src.focus(); await page.keyboard.press('Enter');
      } else {
        await src.click();
      }
      assert.match(await dst.getAttribute('class'), /\btarget\b/, `${destTestId(play)} lights up as a legal destination`);
      if (k === 0) await page.screenshot({ path: path.join(OUT, 'play-selected.png') });
      assert.match(await dst.getAttribute('aria-label'), /legal destination/);
      if (k === 1) { await dst.focus(); await page.keyboard.press('Enter'); } else await dst.click();
    }
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="log"] > li').length > n, before);
    await settled(page); // the log grows before the legal plays are fetched and the table drawn
    myPlays++;
    const mine = page.locator(`[data-testid="log"] > li[data-seat="${you}"]`).last();
    assert.ok((await mine.innerText()).includes(expectedLogText(play, you)),
      `log shows our play: "${expectedLogText(play, you)}" in "${await mine.innerText()}"`);
    if (await page.locator(`[data-testid="log"] > li:not([data-seat="${you}"])`).count() > 0) break;
  }
  assert.ok(myPlays >= 1, 'made at least one play by clicking');

  // The bots then played, each with a one-line explanation, and a turn end is marked.
  const botEntries = page.locator(`[data-testid="log"] > li:not([data-seat="${you}"])`);
  assert.ok(await botEntries.count() >= 3, 'three bots have played');
  const explained = botEntries.locator('[data-testid="log-explanation"]');
  assert.ok(await explained.count() >= 3, 'bot plays carry explanations');
  assert.ok((await explained.first().innerText()).trim().length > 3);
  assert.ok(await page.locator('[data-testid="log-turn-end"]').count() >= 1, 'turn-ending plays are marked');

  state = (await apiInPage('/games/{id}')).body.state;
  if (!state.over) {
    // Hint: the recommended source and destination are highlighted, the reason shown.
    assert.match(await tid('status').innerText(), /Your turn/);
    const [hintRes] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/hint')),
      tid('hint-button').click(),
    ]);
    const hint = await hintRes.json();
    await page.waitForFunction(() => /Hint/.test(document.querySelector('[data-testid="message"]').textContent));
    const msg = await tid('message').innerText();
    // card codes read as names on the page (AS -> A♠), as in the log
    const shown = await page.evaluate(async (t) => (await import('/core/log.js')).readable(t), hint.explanation);
    // said to the player: the play as an instruction, then the reason after the adviser's play
    assert.match(msg, /^Hint: [A-Z]/);
    const cut = /: | because /.exec(shown);
    const reason = cut ? shown.slice(cut.index + cut[0].length).replace(/\bmy\b/g, 'your').replace(/\bI\b/g, 'you').split(' ').slice(0, 4).join(' ') : '';
    assert.ok(msg.includes(reason), `message shows the hint's reason (${reason}): ${msg}`);
    if (hint.play[0] !== 3) {
      const hinted = await page.locator('.hinted').evaluateAll((els) => els.map((e) => e.dataset.testid));
      assert.ok(hinted.includes(destTestId(hint.play)), `hint destination highlighted (${hinted})`);
      const srcId = sourceTestId(hint.play, state, you);
      if (hint.play[0] === 0) assert.ok(hinted.some((t) => t.startsWith('hand-card-')), 'hint source highlighted');
      else assert.ok(hinted.includes(srcId), `hint source ${srcId} highlighted (${hinted})`);
    }
  }
  await page.screenshot({ path: path.join(OUT, 'play-desktop.png'), fullPage: true });

  // One numbering: where a bot's explanation names the build pile it
  // played to, the log's own words name the same pile.
  let compared = 0;
  for (const li of await page.locator('[data-testid="log"] > li').all()) {
    if (!(await li.getByTestId('log-explanation').count())) continue;
    const words = /to build pile (\d+)/.exec(await li.getByTestId('log-play').innerText());
    const why = /onto (?:empty )?build pile (\d+)/.exec(await li.getByTestId('log-explanation').innerText());
    if (!words || !why) continue;
    assert.equal(words[1], why[1], `log and explanation name the same build pile: ${await li.innerText()}`);
    compared++;
  }
  assert.ok(compared > 0, 'some bot play to a build pile was explained');

  // Reload: the game resumes from the URL hash and the seat token in sessionStorage.
  const beforeReload = {
    hash: await page.evaluate(() => location.hash),
    hand: await handButtons.allInnerTexts(),
    version: await tid('game-version').innerText(),
    status: await tid('status').innerText(),
  };
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.evaluate(() => location.hash), beforeReload.hash);
  assert.ok(await tid('board').isVisible(), 'the table is shown again');
  assert.ok(!(await tid('new-game').isVisible()), 'no new-game form after a reload');
  assert.deepEqual(await handButtons.allInnerTexts(), beforeReload.hand, 'same hand after reload');
  assert.equal(await tid('game-version').innerText(), beforeReload.version);
  assert.equal(await tid('status').innerText(), beforeReload.status);
  assert.match(await tid('message').innerText(), /resumed/i);
  assert.ok(await logCount() >= myPlays + 3, 'the play log is restored from the history');
  assert.ok(await page.locator('[data-testid="log-turn-end"]').count() >= 4, 'turn ends are marked in the restored log');

  // Narrow phone screen: nothing overflows sideways.
  await page.setViewportSize({ width: 375, height: 812 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 375px (overflow ${overflow}px)`);
  await page.screenshot({ path: path.join(OUT, 'play-375.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('a stale page reloads the game and says so', async (t) => {
  const view = (await apiInPage('/games/{id}')).body;
  const legal = (await apiInPage('/games/{id}/legal')).body.plays;
  const clickable = legal.filter((p) => p[0] === 0 || p[0] === 2);
  if (view.state.over || view.state.current !== view.you || clickable.length < 2) {
    t.skip('game not in a state where this can be shown');
    return;
  }
  // The page follows the game's event stream and would hear of the play at
  // once: cut it off (a request to /events now hangs, as over a dropped
  // connection) and stop the open one, so the page stays stale.
  const silent = (url) => url.pathname.endsWith('/events');
  await page.route(silent, () => {});
  await page.evaluate(async () => (await import('/core/game.js')).stopLive());
  // Behind the page's back (as another tab would), make a play.
  const status = await page.evaluate(async ([play, version]) => {
    const id = /game=([^&]+)/.exec(location.hash)[1];
    const key = `croupier.token.${decodeURIComponent(id)}`;
    const token = localStorage.getItem(key) || sessionStorage.getItem(key);
    const res = await fetch(`/games/${id}/plays`, {
      method: 'POST', cache: 'no-store', body: JSON.stringify({ play }),
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'If-Match': `"${version}"` },
    });
    return res.status;
  }, [choosePlay(legal, view.state), view.version]);
  assert.equal(status, 200);
  const fresh = (await apiInPage('/games/{id}')).body;

  // The page still shows the old table; a play from it is stale (412).
  const errorsBefore = consoleErrors.length;
  const p = clickable.find((x) => JSON.stringify(x) !== JSON.stringify(choosePlay(legal, view.state)));
  await tid(sourceTestId(p, view.state, view.you)).click();
  await tid(destTestId(p)).click();
  await page.waitForFunction(() => /reloaded/.test(document.querySelector('[data-testid="message"]').textContent));
  assert.equal(await tid('game-version').innerText(), String(fresh.version), 'the page now shows the current version');
  assert.match(await tid('message').getAttribute('class'), /message-error/);
  // Chromium logs the 412 response itself ("Failed to load resource"); that one is expected.
  const extra = consoleErrors.splice(errorsBefore);
  consoleErrors.push(...extra.filter((e) => !/status of 412/.test(e)));
  await page.unroute(silent);
});

test('a play of the turn is taken back: the Take back button, then the U key', async () => {
  // a new table whose person holds two cards for the build piles, opened as its seat
  let g = null, plays = [];
  for (let seed = 1; seed < 60 && !g; seed++) {
    const res = await fetch(`${baseURL}/games`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ game: 'comp10001bo', seed, players: [{ name: 'Ada' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] }),
    });
    const c = await res.json();
    const l = await (await fetch(`${baseURL}/games/${c.id}/legal`, { headers: { Authorization: `Bearer ${c.seats[0].token}` } })).json();
    plays = l.plays.filter((p) => p[0] === 0 && p[2][0] === 0);
    if (new Set(plays.map((p) => p[1])).size >= 2) g = c;
  }
  assert.ok(g, 'a seed with two build cards');
  await page.goto('/');
  await page.evaluate(([id, token]) => localStorage.setItem(`croupier.token.${id}`, token), [g.id, g.seats[0].token]);
  await page.goto(`/#game=${g.id}`);
  await page.waitForSelector('body[data-ready="true"]');
  await settled(page);
  // a spectator in another browser follows the table live
  const other = await browser.newContext({ baseURL, viewport: { width: 1280, height: 900 }, reducedMotion: REDUCED });
  const watcher = await other.newPage();
  await watcher.goto(`/#game=${g.id}`);
  await watcher.waitForSelector('body[data-ready="true"]');
  await settled(watcher);
  const watchedLog = () => watcher.locator('[data-testid="log"] > li').count();
  const undoBtn = tid('undo-button');
  assert.ok(await undoBtn.isVisible(), 'the Bo table offers to take back');
  assert.ok(await undoBtn.isDisabled(), 'nothing to take back before a play');
  const start = (await apiInPage('/games/{id}')).body;
  for (const how of ['button', 'key']) {
    const state = (await apiInPage('/games/{id}')).body.state;
    const play = plays.find((p) => state.hand.includes(p[1]));
    const logBefore = await logCount();
    await tid(sourceTestId(play, state, 0)).click();
    await tid(destTestId(play)).click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="log"] > li').length === n + 1, logBefore);
    await settled(page);
    await watcher.waitForFunction((n) => document.querySelectorAll('[data-testid="log"] > li').length === n + 1, logBefore);
    assert.ok(!(await undoBtn.isDisabled()), 'our play kept the turn: it can be taken back');
    if (how === 'button') await undoBtn.click();
    else { await page.locator('body').focus(); await page.keyboard.press('u'); }
    await page.waitForFunction(() => /Taken back/.test(document.querySelector('[data-testid="message"]').textContent));
    await settled(page);
    const now = (await apiInPage('/games/{id}')).body;
    assert.deepEqual(now.state, start.state, `taken back by ${how}: the game as it was`);
    assert.equal(await logCount(), logBefore, 'the log no longer shows it');
    assert.equal(await page.locator('[data-testid^="hand-card-"]').count(), 5, 'the card is back in the hand');
    assert.equal(await tid('game-version').innerText(), String(now.version));
    assert.ok(await undoBtn.isDisabled());
    // the spectator's screen follows: the play gone from its log, the version the new one
    await watcher.waitForFunction((v) => document.querySelector('[data-testid="game-version"]').textContent.trim() === String(v), now.version);
    await settled(watcher);
    assert.equal(await watchedLog(), logBefore, `the spectator's log drops the play taken back (${how})`);
    assert.equal(await watcher.locator('[data-testid="undo-button"]').isDisabled(), true, 'a spectator takes nothing back');
  }
  await other.close();
});

test('no console errors while playing', () => {
  assert.deepEqual(consoleErrors, []);
});
