// Browser test: the Hanabi table at hanab.live's level (with the
// discard pile's colour letters and the negative information as pips): notes
// on cards that follow their card and are kept with the seat, the cards the
// latest clue touched, empathy, colour letters everywhere and the
// colour-blind setting, spectators who see every hand at a table that allows
// it, hypotheticals in the replay of a finished game, pace and efficiency,
// critical cards, hanab.live's keys and its hand direction. What the page
// shows is checked against what the server says (views, /plays), worked out
// here on its own.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startAll, stopAll, apiCall, apiInPage, dealFromLobby, openContext, openGame, openSeatIn, logCount, logGrows, OUT } from './harness.mjs';
import { assertEvery } from '../http/lib/expect.mjs';

let env, page;
const tid = (id) => page.getByTestId(id);
/** The board of a replayed position (the live one is drawn too, under it). */
const rb = { getByTestId: (id) => page.getByTestId('replay-board').getByTestId(id), locator: (sel) => page.getByTestId('replay-board').locator(sel) };
const NAMES = { R: 'red', Y: 'yellow', B: 'blue', G: 'green', W: 'white', M: 'rainbow' };
const letter = (c) => (c === 'M' ? '✦' : c);

before(async () => { env = await startAll(); page = env.page; });
after(async () => { await stopAll(env); });

const call = (method, p, body) => apiCall(env, method, p, { body });

/** Where the cards a record's hint touched are now: later plays and discards
 *  by its target take a card out and shift the ones after it left. */
function touchedNow(plays, hint) {
  let at = [...hint.touched];
  for (const r of plays) {
    if (r.n <= hint.n || r.seat !== hint.play.target || r.play.type === 'hint') continue;
    at = at.filter((i) => i !== r.play.card).map((i) => (i > r.play.card ? i - 1 : i));
  }
  return at;
}

/** Where the card at index i of `seat`'s hand after play n is now. */
function cardNow(plays, seat, i, n) {
  let at = i;
  for (const r of plays) {
    if (r.n <= n || r.seat !== seat || r.play.type === 'hint') continue;
    if (r.play.card === at) return null;
    if (r.play.card < at) at -= 1;
  }
  return at;
}

async function dealLive({ seed = 42, spectators = false } = {}) {
  await dealFromLobby(page, { game: 'hanabi', players: 3, bots: ['rules', 'rules'], seed, spectators });
  await tid('hb-hand-0').waitFor();
}

const latestShown = (seat) => page.locator(`[data-testid="hb-hand-${seat}"] .hb-latest`).evaluateAll((els) => els.map((e) => +e.dataset.testid.split('-').pop()));

test('notes follow their card and are kept with the seat (another device shows them, a spectator none); the latest clue is marked', async () => {
  const sent = [];
  page.on('request', (r) => sent.push(`${r.url()} ${r.postData() || ''}`));
  await dealLive();
  let plays = (await apiInPage(page, '/games/{id}/plays')).body.plays;
  // The latest clue: seat 2 told us about our 1s.
  const clue = plays.filter((r) => r.play.type === 'hint').pop();
  assert.ok(clue, 'a bot gave a clue before our turn');
  assert.deepEqual(await latestShown(clue.play.target), touchedNow(plays, clue), 'the cards the latest clue touched are marked');
  assert.match(await tid(`hb-card-0-${clue.touched[0]}`).getAttribute('aria-label'), /touched by the latest clue/);

  // A note on player 1's newest card, by right-click; one on our own card 1 by the panel.
  const note = 'keep: 5 save?';
  const notedAfter = plays[plays.length - 1].n;
  await tid('hb-card-1-4').click({ button: 'right' });
  await tid('hb-note-dialog').waitFor();
  await tid('hb-note-input').fill(note);
  await tid('hb-note-save').click();
  assert.equal(await tid('hb-note-1-4').innerText(), note);
  assert.match(await tid('hb-card-1-4').getAttribute('aria-label'), /note: keep: 5 save\?/);
  await tid('hb-card-0-1').click();
  await tid('hb-note-edit').click();
  await tid('hb-note-input').fill('mine');
  await tid('hb-note-save').click();
  assert.equal(await tid('hb-note-0-1').innerText(), 'mine');
  await page.keyboard.press('Escape');

  // Play on (number hints to player 1) until player 1 has moved its cards.
  let where = 4;
  for (let k = 0; k < 4 && where === 4; k++) {
    const before0 = await logCount(page);
    await tid('hb-card-1-0').click();
    await tid('hb-hint-number').click();
    await logGrows(page, before0);
    await page.waitForFunction(() => /Your turn|Game over/.test(document.querySelector('[data-testid="status"]').textContent));
    plays = (await apiInPage(page, '/games/{id}/plays')).body.plays;
    where = cardNow(plays, 1, 4, notedAfter);
    assert.notEqual(where, null, 'the noted card is still in player 1\'s hand');
    const clueNow = plays.filter((r) => r.play.type === 'hint').pop();
    assert.deepEqual(await latestShown(clueNow.play.target), touchedNow(plays, clueNow), 'the marks follow the latest clue');
  }
  assert.ok(where < 4, 'player 1 played or discarded an older card meanwhile');
  assert.equal(await tid(`hb-note-1-${where}`).innerText(), note, 'the note moved with its card');
  const texts = await page.locator('[data-testid="hb-hand-1"] [data-testid^="hb-note-"]').allInnerTexts();
  assert.equal(texts.filter((t) => t === note).length, 1, 'on that card only');
  await page.screenshot({ path: path.join(OUT, 'hanabi-notes-1280.png'), fullPage: true });

  // A reload keeps them; they are kept with the seat on the server, not in
  // this browser: another device of the seat (its token only) shows them;
  // a spectator's browser none, and the server gives a spectator none.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction((w) => document.querySelector(`[data-testid="hb-note-1-${w}"]`)?.textContent === 'keep: 5 save?', where);
  const id = await page.evaluate(() => decodeURIComponent(/game=([^&]+)/.exec(location.hash)[1]));
  assert.equal(await page.evaluate((k) => localStorage.getItem(k), `croupier.notes.${id}`), null, 'nothing of them in this browser');
  const putNotes = sent.filter((x) => /\/notes\//.test(x));
  assert.ok(putNotes.some((x) => x.includes('5 save')) && putNotes.some((x) => x.includes('mine')), 'each note went to the server');
  const token = await page.evaluate((k) => localStorage.getItem(k), `croupier.token.${id}`);
  const server = (await apiCall(env, 'GET', `/games/${id}/notes`, { token })).body;
  assert.deepEqual(server.notes.map((n) => n.text).sort(), ['keep: 5 save?', 'mine']);
  const device = await openSeatIn(env.browser, env.baseURL, id, token, 'second device');
  await device.page.waitForFunction((w) => document.querySelector(`[data-testid="hb-note-1-${w}"]`)?.textContent === 'keep: 5 save?', where);
  assert.equal(await device.page.locator('[data-testid^="hb-note-0-"]').filter({ hasText: 'mine' }).count(), 1, 'our own card\'s note too');
  await device.context.close();
  assert.deepEqual(device.errors, []);
  const other = await openContext(env, 'spectator');
  await other.page.goto(page.url().replace(/&.*$/, ''));
  await other.page.getByTestId('hb-hand-1').waitFor();
  await other.page.waitForTimeout(300);
  assert.equal(await other.page.locator('.hb-note-text:not(.empty)').count(), 0, 'a spectator sees no note');
  assert.deepEqual((await apiCall(env, 'GET', `/games/${id}/notes`)).body, { whose: 'none', notes: [] });
  await other.context.close();
  assert.deepEqual(other.errors, []);
});

test('once the game is over its notes are everyone\'s: a spectator sees each seat\'s, with its writer\'s name', async () => {
  const g = (await call('POST', '/games', { game: 'hanabi', seed: 9, players: [{ name: 'Ada' }, { name: 'Bob' }] })).body;
  const tokens = g.seats.map((x) => x.token);
  // the page's names of the newest dealt cards (hanabi-track.js): d<seat>.<i>
  assert.equal((await apiCall(env, 'PUT', `/games/${g.id}/notes/d0.4`, { token: tokens[0], body: { text: 'chop' } })).status, 200);
  assert.equal((await apiCall(env, 'PUT', `/games/${g.id}/notes/d1.4`, { token: tokens[1], body: { text: '5?' } })).status, 200);
  // each seat plays its oldest card until the game ends (three errors, soon)
  for (let i = 0; i < 120; i++) {
    const v = (await apiCall(env, 'GET', `/games/${g.id}`, { token: tokens[0] })).body;
    if (v.state.over) break;
    assert.equal((await apiCall(env, 'POST', `/games/${g.id}/plays`, { token: tokens[v.state.current], body: { play: { type: 'play', card: 0 } } })).status, 200);
  }
  const other = await openContext(env, 'spectator after the game');
  await other.page.goto(`/#game=${g.id}`);
  await other.page.waitForSelector('body[data-ready="true"]');
  await other.page.getByTestId('hb-hand-1').waitFor();
  await other.page.waitForFunction(() => document.querySelectorAll('.hb-note-text:not(.empty)').length >= 2);
  const shown = (await other.page.locator('.hb-note-text:not(.empty)').allInnerTexts()).sort();
  assert.deepEqual(shown, ['Ada: chop', 'Bob: 5?'], 'every seat\'s note, named');
  await other.context.close();
  assert.deepEqual(other.errors, []);
});

test('a finished game: colour letters on the discard pile, negative information as pips, colour-blind setting, empathy', async () => {
  const g = (await call('POST', '/games', { game: 'hanabi', variant: 'rainbow', seed: 7, players: [{ bot: 'rules' }, { bot: 'rules' }, { bot: 'rules' }] })).body;
  assert.equal(g.state.over, true);
  const s = g.state;
  await openGame(page, g.id);

  // Every discarded card shows its number and its colour letter.
  const minis = await page.locator('[data-testid="hb-discard-pile"] [data-testid="hb-mini"]').evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, '')));
  const want = [...s.discard].map((d) => `${d[1]}${letter(d[0])}`).sort();
  assert.ok(want.length >= 3, 'this game discarded cards');
  assert.deepEqual([...minis].sort(), want, 'each discarded card with its colour letter');

  // Negative information as pips: one per colour and per number ruled out,
  // under the face (never over its number or colour), none cut off.
  let longest = null;
  s.hands.forEach((hand, p) => hand.forEach((slot, i) => {
    const not = [...slot.not.colors, ...slot.not.numbers.map(String)];
    if (!longest || not.length > longest.not.length) longest = { p, i, not };
  }));
  assert.ok(longest.not.length >= 7, `a card with much ruled out (${longest.not})`);
  for (let p = 0; p < s.players; p++) {
    for (let i = 0; i < s.hands[p].length; i++) {
      const pips = await tid(`hb-card-${p}-${i}`).locator('[data-testid="hb-pip"]').evaluateAll((els) => els.map((e) => e.dataset.not));
      assert.deepEqual(pips, [...s.hands[p][i].not.colors, ...s.hands[p][i].not.numbers.map(String)], `card ${p}.${i}: a pip per colour and number ruled out`);
    }
  }
  const fit = await tid(`hb-card-${longest.p}-${longest.i}`).evaluate((b) => {
    const face = b.querySelector('.card').getBoundingClientRect();
    const box = b.getBoundingClientRect();
    const pips = [...b.querySelectorAll('[data-testid="hb-pip"]')].map((e) => e.getBoundingClientRect());
    return {
      inside: pips.every((r) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.bottom <= box.bottom + 0.5),
      below: pips.every((r) => r.top >= face.bottom - 0.5),
      rows: new Set(pips.map((r) => Math.round(r.top))).size,
    };
  });
  assert.ok(fit.inside && fit.below, `every pip inside the card's place and under its face: ${JSON.stringify(fit)}`);

  // The colour-blind setting: another palette, a shape on every card; kept.
  const red = page.locator('[data-testid="hb-discard-pile"] .hb-mini.hb-R, [data-testid^="hb-hand-"] .hb-card.hb-R').first();
  const plain = await red.evaluate((e) => getComputedStyle(e).backgroundColor);
  await tid('hb-colourblind').check();
  assert.notEqual(await red.evaluate((e) => getComputedStyle(e).backgroundColor), plain, 'red changes to the colour-blind palette');
  assert.equal(await red.locator('.hb-shape').first().evaluate((e) => getComputedStyle(e).display), 'inline', 'and carries its shape');
  await page.screenshot({ path: path.join(OUT, 'hanabi-colourblind-1280.png'), fullPage: true });
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await tid('hb-colourblind').isChecked(), true, 'the setting is kept in this browser');
  await tid('hb-colourblind').uncheck();

  // Empathy: player 1's hand as player 1 knows it, by a click; by a press held.
  await tid('hb-empathy-1').click();
  const faces = await page.locator('[data-testid="hb-hand-1"] .card').evaluateAll((els) => els.map((e) => e.dataset.card));
  assert.deepEqual(faces, s.hands[1].map(() => '??'), 'each card as its owner sees it');
  for (let i = 0; i < s.hands[1].length; i++) {
    const slot = s.hands[1][i];
    const may = await tid(`hb-maybe-1-${i}`).getAttribute('title');
    assert.ok(may.includes(`${NAMES[slot.card[0]]} ${slot.card[1]}`), `card ${i}: what it may be includes what it is (${may})`);
    for (const c of slot.not.colors) assert.ok(!may.includes(`${NAMES[c]} `), `card ${i}: not ${c}`);
  }
  await tid('hb-empathy-1').click();
  assert.equal(await page.locator('[data-testid="hb-hand-1"] .card').first().getAttribute('data-card'), s.hands[1][0].card, 'off again');
  const box = await tid('hb-empathy-2').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.waitForFunction(() => document.querySelector('[data-testid="hb-maybe-2-0"]'));
  await page.mouse.up();
  await page.waitForFunction(() => !document.querySelector('[data-testid="hb-maybe-2-0"]'));
});

test('spectators see every hand at a table that allows it, and none at one that does not', async () => {
  for (const spectators of [true, false]) {
    await dealLive({ seed: 9, spectators });
    const spy = await openContext(env, 'spectator');
    await spy.page.goto(page.url());
    await spy.page.getByTestId('hb-hand-0').waitFor();
    const shown = await spy.page.locator('[data-testid^="hb-hand-"] .card').evaluateAll((els) => els.map((e) => e.dataset.card));
    const view = (await call('GET', `/games/${page.url().split('#game=')[1]}`)).body.state;
    assert.deepEqual(shown, view.hands.flat().map((x) => x.card), 'the spectator is shown what the server gives a spectator');
    if (spectators) {
      assertEvery(shown, (c) => /^[RYBGWM][1-5]$/.test(c), 'every hand, ours included');
      assert.match(await spy.page.getByTestId('hb-watching').innerText(), /every hand is shown/);
      await spy.page.screenshot({ path: path.join(OUT, 'hanabi-spectator-all-1280.png'), fullPage: true });
    } else {
      assertEvery(shown, (c) => c === '??', 'no hand card to a spectator');
      assert.match(await spy.page.getByTestId('hb-watching').innerText(), /see no hand cards/);
    }
    await spy.context.close();
    assert.deepEqual(spy.errors, []);
  }
});

test('hypotheticals: from a move of a finished game, other plays on its deck, marked as not the real game', async () => {
  const g = (await call('POST', '/games', { game: 'hanabi', variant: 'standard', seed: 7, players: [{ bot: 'conventions' }, { bot: 'rules' }] })).body;
  const real = (await call('GET', `/games/${g.id}/plays`)).body.plays;
  const at = 10;
  const there = (await call('GET', `/games/${g.id}?at=${at}`)).body.state;
  await openGame(page, `${g.id}&at=${at}`);
  await tid('hb-hypo-start').click();
  const board = page.getByTestId('hb-hypo-board');
  await board.waitFor();
  assert.match(await tid('hb-hypo-banner').innerText(), /Hypothetical — not the real game/);
  assert.equal(await tid('replay-board').isVisible(), false, 'the real replay steps aside');
  const hb = (id) => board.getByTestId(id);
  // The position is the real one after move 10, every hand on view.
  for (let p = 0; p < 2; p++) {
    const faces = await board.locator(`[data-testid="hb-hand-${p}"] .card`).evaluateAll((els) => els.map((e) => e.dataset.card));
    assert.deepEqual(faces, there.hands[p].map((x) => x.card), `player ${p}'s hand after move ${at}`);
  }
  // The next card of the real deck, as the real game drew it.
  const drawnNext = real.find((r) => r.n > at && r.drew);
  assert.match(await tid('hb-hypo-deck').innerText(), new RegExp(`Next from the deck: ${drawnNext.drew}`));

  // Try a play the real game did not make: the current player plays card 1.
  const cur = there.current;
  const realNext = real.find((r) => r.n === at + 1);
  const tryCard = realNext.play.type === 'play' && realNext.play.card === 0 ? 1 : 0;
  await hb(`hb-card-${cur}-${tryCard}`).click();
  await hb('hb-play').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="hb-hypo-list"]'));
  const first = await tid('hb-hypo-list').innerText();
  assert.match(first, new RegExp(`played card ${tryCard + 1}: ${there.hands[cur][tryCard].card}`), 'the try, with the card it was');
  assert.match(await tid('replay-status').innerText(), /Hypothetical/);
  // Then a hint by the other player.
  await page.waitForFunction((p) => document.querySelector(`[data-testid="hb-hypo-board"] [data-testid="player-${p}"] .badge-turn`), 1 - cur);
  await hb(`hb-card-${cur}-0`).click();
  await hb('hb-hint-number').click();
  await page.waitForFunction(() => /Try 2 of 2/.test(document.querySelector('[data-testid="hb-hypo-banner"]').textContent));
  await page.screenshot({ path: path.join(OUT, 'hanabi-hypothetical-1280.png'), fullPage: true });

  // Step back and forth (buttons and arrow keys).
  await tid('hb-hypo-back').click();
  await page.waitForFunction(() => /Try 1 of 2/.test(document.querySelector('[data-testid="hb-hypo-banner"]').textContent));
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => /At the real position, 2 tries ahead/.test(document.querySelector('[data-testid="hb-hypo-banner"]').textContent));
  const back = await board.locator(`[data-testid="hb-hand-${cur}"] .card`).evaluateAll((els) => els.map((e) => e.dataset.card));
  assert.deepEqual(back, there.hands[cur].map((x) => x.card), 'back at the real position');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => /Try 1 of 2/.test(document.querySelector('[data-testid="hb-hypo-banner"]').textContent));
  // A different play from here: the hypothetical branches.
  await hb(`hb-card-${1 - cur}-1`).click();
  await hb('hb-discard').click();
  await page.waitForFunction(() => /Try 2 of 2/.test(document.querySelector('[data-testid="hb-hypo-banner"]').textContent));
  const tries = await tid('hb-hypo-list').locator('li').allInnerTexts();
  assert.equal(tries.length, 2, 'the first try kept, the second replaced');
  assert.match(tries[0], new RegExp(`played card ${tryCard + 1}`));
  assert.match(tries[1], /discarded card 2/);
  await tid('hb-hypo-back').click();
  await tid('hb-hypo-back').click();
  await page.waitForFunction(() => /At the real position, 2 tries ahead/.test(document.querySelector('[data-testid="hb-hypo-banner"]').textContent));
  await tid('hb-hypo-forward').click();
  await page.waitForFunction(() => /Try 1 of 2/.test(document.querySelector('[data-testid="hb-hypo-banner"]').textContent));

  // The real game never changed.
  const after0 = (await call('GET', `/games/${g.id}/plays`)).body.plays;
  assert.deepEqual(after0, real, 'the real game is as it was');
  await tid('hb-hypo-leave').click();
  assert.equal(await tid('hb-hypo-board').count(), 0);
  assert.ok(await tid('replay-board').isVisible());
  assert.match(await tid('replay-position').innerText(), new RegExp(`Move ${at} of ${real.length}`));
});

const COPIES = { 1: 3, 2: 2, 3: 2, 4: 2, 5: 1 };

/** The best each firework can still reach, worked out here from the discard pile. */
function reachable(s) {
  const out = {};
  for (const c of Object.keys(s.fireworks)) {
    out[c] = 5;
    for (let r = 5; r >= 1; r--) if (s.discard.filter((d) => d === `${c}${r}`).length === COPIES[r]) out[c] = r - 1;
  }
  return out;
}

test('pace and efficiency, as hanab.live defines them, at every few moves of a game', async () => {
  const g = (await call('POST', '/games', { game: 'hanabi', variant: 'rainbow', seed: 7, players: [{ bot: 'rules' }, { bot: 'rules' }, { bot: 'rules' }] })).body;
  const plays = (await call('GET', `/games/${g.id}/plays`)).body.plays;
  let checkedLost = false;
  for (const at of [3, 12, 25, Math.max(...plays.filter((r) => r.drew).map((r) => r.n)) - 1]) {
    const s = (await call('GET', `/games/${g.id}?at=${at}`)).body.state;
    await openGame(page, `${g.id}&at=${at}`);
    const top = reachable(s);
    const max = Object.values(top).reduce((x, y) => x + y, 0);
    const pace = s.score + s.deck + s.players - max;
    assert.ok(s.deck > 0);
    assert.equal(await rb.getByTestId('hb-pace').innerText(), `Pace ${pace}`, `move ${at}: score ${s.score} + deck ${s.deck} + ${s.players} players − max ${max}`);
    // Efficiency: cards played or clued (and not surely trash) per clue lost.
    const past = plays.filter((r) => r.n <= at);
    let tokens = 8;
    let lost = 0;
    for (const r of past) {
      if (r.play.type === 'hint') { lost++; tokens--; } else if (r.play.type === 'discard') tokens++;
      else if (!r.correct) lost++;
      else if (r.card[1] === '5') { if (tokens === 8) lost++; else tokens++; }
    }
    const clued = s.hands.flat().filter((x) => x.touched.colors.length + x.touched.numbers.length > 0 &&
      x.possible.colors.some((c) => x.possible.numbers.some((n) => n > (s.fireworks[c] || 0) && n <= top[c]))).length;
    const gotten = Math.min(s.score + clued, max);
    const shown = await rb.getByTestId('hb-efficiency').getAttribute('data-efficiency');
    if (lost) {
      assert.equal(shown, (gotten / lost).toFixed(2), `move ${at}: ${gotten} cards gotten / ${lost} clues lost`);
      assert.match(await rb.getByTestId('hb-efficiency').innerText(), new RegExp(`^Efficiency ${(gotten / lost).toFixed(2)}`));
      checkedLost = true;
    } else assert.equal(shown, '');
  }
  assert.ok(checkedLost, 'a position with clues spent');
  // At the end there is no pace (the deck is out).
  await openGame(page, g.id);
  assert.equal(await page.getByTestId('board').getByTestId('hb-pace').innerText(), 'Pace —');
});

test('critical cards (the last copy of a card still needed) are marked, worked out from the discard pile and fireworks', async () => {
  const g = (await call('POST', '/games', { game: 'hanabi', variant: 'rainbow', seed: 7, players: [{ bot: 'rules' }, { bot: 'rules' }, { bot: 'rules' }] })).body;
  const plays = (await call('GET', `/games/${g.id}/plays`)).body.plays;
  let nonFive = 0;
  let marked = 0;
  for (const at of [2, 15, 30, plays.length - 2]) {
    const s = (await call('GET', `/games/${g.id}?at=${at}`)).body.state;
    await openGame(page, `${g.id}&at=${at}`);
    const top = reachable(s);
    for (let p = 0; p < s.players; p++) {
      const want = [];
      s.hands[p].forEach((x, i) => {
        const c = x.card;
        const left = COPIES[+c[1]] - s.discard.filter((d) => d === c).length;
        if (+c[1] > (s.fireworks[c[0]] || 0) && +c[1] <= top[c[0]] && left === 1) want.push(i);
      });
      const shown = await rb.locator(`[data-testid="hb-hand-${p}"] [data-testid="hb-critical"]`)
        .evaluateAll((els) => els.map((e) => +e.closest('[data-testid^="hb-card-"]').dataset.testid.split('-').pop()));
      assert.deepEqual(shown, want, `move ${at}, player ${p}: the critical cards`);
      for (const i of want) {
        assert.match(await rb.getByTestId(`hb-card-${p}-${i}`).getAttribute('aria-label'), /critical: the last copy/);
        if (s.hands[p][i].card[1] !== '5') nonFive++;
      }
      marked += want.length;
    }
  }
  assert.ok(marked > 0 && nonFive > 0, `critical cards seen (${marked}, ${nonFive} of them not a 5)`);
});

test('our own cards are marked critical only when the clues told them in full', async (t) => {
  await dealLive({ seed: 5 });
  let known = 0;
  for (let turn = 0; turn < 8; turn++) {
    await page.waitForFunction(() => /Your turn|Game over/.test(document.querySelector('[data-testid="status"]').textContent));
    const s = (await apiInPage(page, '/games/{id}')).body.state;
    if (s.over) break;
    const top = reachable(s);
    const want = [];
    s.hands[0].forEach((x, i) => {
      assert.equal(x.card, '??', 'our cards are hidden from us');
      if (x.possible.colors.length !== 1 || x.possible.numbers.length !== 1) return;
      known++;
      const c = `${x.possible.colors[0]}${x.possible.numbers[0]}`;
      const left = COPIES[+c[1]] - s.discard.filter((d) => d === c).length;
      if (+c[1] > (s.fireworks[c[0]] || 0) && +c[1] <= top[c[0]] && left === 1) want.push(i);
    });
    const shown = await page.locator('[data-testid="hb-hand-0"] [data-testid="hb-critical"]')
      .evaluateAll((els) => els.map((e) => +e.closest('[data-testid^="hb-card-"]').dataset.testid.split('-').pop()));
    assert.deepEqual(shown, want, `turn ${turn}: our critical cards, by what the clues told`);
    // Tell player 1 about a number, so that the bots keep cluing us.
    const before0 = await logCount(page);
    if (s.hints > 0) {
      await tid(`hb-card-1-${turn % s.hands[1].length}`).click();
      await tid('hb-hint-number').click();
    } else {
      await tid('hb-card-0-0').click();
      await tid('hb-discard').click();
    }
    await logGrows(page, before0);
  }
  t.diagnostic(`own cards known in full, over the turns: ${known}`);
});

test('hanab.live\'s keys: ; chooses a teammate, a digit or Q-Y the clue, Ctrl+Enter gives it; A or D then a slot plays or discards', async () => {
  await dealLive({ seed: 42 });
  const ourTurn = () => page.waitForFunction(() => /Your turn|Game over/.test(document.querySelector('[data-testid="status"]').textContent));
  const last0 = async () => (await apiInPage(page, '/games/{id}/plays')).body.plays.filter((r) => r.seat === 0).pop();
  await ourTurn();
  let s = (await apiInPage(page, '/games/{id}')).body.state;
  await page.keyboard.press(';');
  assert.match(await tid('hb-key-panel').innerText(), /^Clue .+:/);
  assert.match(await tid('player-1').getAttribute('class'), /hb-key-target/, '; chooses the next player');
  await page.keyboard.press(';');
  assert.match(await tid('player-2').getAttribute('class'), /hb-key-target/, 'and again the one after');
  await page.keyboard.press('Tab');
  assert.match(await tid('player-1').getAttribute('class'), /hb-key-target/, 'Tab cycles once a teammate is chosen');
  assert.doesNotMatch(await tid('player-2').getAttribute('class'), /hb-key-target/);
  const number = +s.hands[1][0].card[1];
  await page.keyboard.press(String(number));
  assert.match(await tid('hb-key-panel').innerText(), new RegExp(`their ${number}s`));
  assert.equal(await tid('hb-card-0-0').getAttribute('aria-pressed'), 'false', 'the digit chose a clue, not our card');
  let before0 = await logCount(page);
  await page.keyboard.press('Control+Enter');
  await logGrows(page, before0);
  let mine = await last0();
  assert.deepEqual(mine.play, { type: 'hint', target: 1, number }, 'Ctrl+Enter gave the clue');
  assert.equal(await tid('hb-key-panel').count(), 0, 'the choice is gone with the clue');

  // A colour key picks the next player when none is chosen; Esc forgets it.
  await ourTurn();
  await page.keyboard.press('w');
  assert.match(await tid('hb-key-panel').innerText(), /their yellow cards/);
  assert.match(await tid('player-1').getAttribute('class'), /hb-key-target/);
  await page.keyboard.press('Escape');
  assert.equal(await tid('hb-key-panel').count(), 0);

  // A then a slot number plays it; - (or D) then a number discards.
  await page.keyboard.press('a');
  assert.match(await tid('hb-key-panel').innerText(), /Play which card\?/);
  before0 = await logCount(page);
  await page.keyboard.press('1');
  await logGrows(page, before0);
  mine = await last0();
  assert.deepEqual(mine.play, { type: 'play', card: 0 }, 'a then 1 plays card 1');
  await ourTurn();
  s = (await apiInPage(page, '/games/{id}')).body.state;
  if (!s.over && s.hints < 8) {
    await page.keyboard.press('-');
    assert.match(await tid('hb-key-panel').innerText(), /Discard which card\?/);
    before0 = await logCount(page);
    await page.keyboard.press('2');
    await logGrows(page, before0);
    assert.deepEqual((await last0()).play, { type: 'discard', card: 1 }, '- then 2 discards card 2');
  }
  // The Rules panel lists them.
  await page.keyboard.press('?');
  const keys = await page.locator('[data-testid="rules-keys"] dt').allInnerTexts();
  for (const k of ['A or +, then 1-5', 'D or -, then 1-5', ';', 'Q W E R T Y', 'Ctrl+Enter']) assert.ok(keys.includes(k), `key ${k} is listed`);
  await page.keyboard.press('Escape');
});

test('hand direction: hanab.live\'s newest card on the left, numbered 1, kept in this browser; keys and words follow it', async () => {
  await dealLive({ seed: 42 });
  await page.waitForFunction(() => /Your turn/.test(document.querySelector('[data-testid="status"]').textContent));
  const order = (p) => page.locator(`[data-testid="hb-hand-${p}"] [data-testid^="hb-card-"]`).evaluateAll((els) => els.map((e) => e.dataset.testid));
  const nums = (p) => page.locator(`[data-testid="hb-hand-${p}"] .hb-pos`).evaluateAll((els) => els.map((e) => e.textContent.replace(/\D/g, '')));
  assert.deepEqual(await order(1), [0, 1, 2, 3, 4].map((i) => `hb-card-1-${i}`), 'oldest on the left by default');
  assert.deepEqual(await nums(1), ['1', '2', '3', '4', '5']);
  await tid('hb-newest-left').check();
  assert.deepEqual(await order(1), [4, 3, 2, 1, 0].map((i) => `hb-card-1-${i}`), 'the newest on the left');
  assert.deepEqual(await nums(1), ['1', '2', '3', '4', '5'], 'numbered from the left');
  assert.match(await tid('hb-card-0-4').getAttribute('aria-label'), /^Your card 1 \(newest\)/);
  assert.match(await tid('hb-card-0-0').getAttribute('aria-label'), /^Your card 5 \(oldest\)/);
  assert.equal(await page.evaluate(() => localStorage.getItem('croupier.hanabi.direction')), 'newest');
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(() => /Your turn/.test(document.querySelector('[data-testid="status"]').textContent));
  assert.equal(await tid('hb-newest-left').isChecked(), true, 'kept in this browser');
  assert.deepEqual(await order(0), [4, 3, 2, 1, 0].map((i) => `hb-card-0-${i}`));
  // The page's key 1 picks card 1: the newest; the panel and the log say so.
  await page.keyboard.press('1');
  assert.equal(await tid('hb-card-0-4').getAttribute('aria-pressed'), 'true', '1 picks the newest card');
  assert.match(await tid('hb-actions').innerText(), /Your card 1:/);
  await page.keyboard.press('Escape');
  // a then 5 plays card 5, the oldest (index 0); the log says "card 5".
  const before0 = await logCount(page);
  await page.keyboard.press('a');
  await page.keyboard.press('5');
  await logGrows(page, before0);
  const mine = (await apiInPage(page, '/games/{id}/plays')).body.plays.filter((r) => r.seat === 0).pop();
  assert.deepEqual(mine.play, { type: 'play', card: 0 });
  assert.match(await tid(`log-entry-${mine.n}`).innerText(), /played card 5/, 'the log counts from the newest too');
  await tid('hb-newest-left').uncheck();
  assert.deepEqual(await order(1), [0, 1, 2, 3, 4].map((i) => `hb-card-1-${i}`), 'back to the oldest on the left');
});

test('with the newest card on the left the bots\' and the hints\' words number the cards as the page does', async () => {
  // Both bots that explain by card number, newest on the left; we follow the
  // hint each turn until the bots' plays and discards (counted from the
  // newest) and a clue's touched cards were compared with the log's words.
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
  await page.evaluate(() => localStorage.setItem('croupier.hanabi.direction', 'newest'));
  await dealFromLobby(page, { game: 'hanabi', players: 3, bots: ['conventions', 'rules'], seed: 5 });
  await tid('hb-hand-0').waitFor();
  const nums = (t) => { const m = /\bcards? (\d+(?:, \d+)*)/.exec(t); return m ? m[1] : null; };
  const done = new Set();
  let compared = 0, moved = 0, clues = 0;
  for (let turn = 0; turn < 10 && (moved < 2 || clues < 1); turn++) {
    await page.waitForFunction(() => /Your turn|Game over/.test(document.querySelector('[data-testid="status"]').textContent));
    if (/Game over/.test(await tid('status').innerText())) break;
    const plays = (await apiInPage(page, '/games/{id}/plays')).body.plays;
    for (const rec of plays.filter((r) => r.seat !== 0 && r.explanation && !done.has(r.n))) {
      done.add(rec.n);
      const entry = tid(`log-entry-${rec.n}`);
      const shown = nums(await entry.getByTestId('log-play').innerText());
      const why = nums(await entry.getByTestId('log-explanation').innerText());
      if (shown === null || why === null) continue;
      assert.equal(why, shown, `play ${rec.n}: the bot's words and the log number the cards alike`);
      compared++;
      if (rec.play.type === 'hint') clues++;
      else if (+shown !== rec.play.card + 1) moved++;
    }
    // The hint: where its reason names a card of ours, the same number as its instruction.
    const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/hint')), tid('hint-button').click()]);
    const hint = (await res.json()).play;
    await page.waitForFunction(() => /^Hint:/.test(document.querySelector('[data-testid="message"]').textContent));
    const said = await tid('message').innerText();
    const m = /^Hint: (?:Play|Discard) your card (\d+): .*\bcard (\d+)\b/.exec(said);
    if (m) assert.equal(m[2], m[1], `the hint's reason names its card as its instruction does: ${said}`);
    // Follow it, as a player would: its card, then its marked button.
    await page.locator('#board .hb-slot.hinted').first().waitFor();
    await page.locator('#board .hb-slot.hinted').first().click();
    const button = page.locator('[data-testid="hb-actions"] .btn.hinted').first();
    const before = await logCount(page);
    await button.click();
    await logGrows(page, before);
    assert.ok(hint, 'a hint was given');
  }
  assert.ok(moved >= 2 && clues >= 1, `compared ${compared}: ${moved} plays or discards counted from the newest, ${clues} clues`);
  await page.evaluate(() => localStorage.removeItem('croupier.hanabi.direction'));
});

test('the hint stays marked while one of its cards is picked, and its action button is marked', async () => {
  // Play each turn as the hint says (through the page) until hints of both
  // kinds, a play or discard of ours and a clue to a teammate, were checked.
  await dealLive({ seed: 11 });
  const seen = new Set();
  for (let turn = 0; turn < 12 && seen.size < 2; turn++) {
    await page.waitForFunction(() => /Your turn|Game over/.test(document.querySelector('[data-testid="status"]').textContent));
    if (/Game over/.test(await tid('status').innerText())) break;
    const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/hint')), tid('hint-button').click()]);
    const play = (await res.json()).play;
    await page.locator('#board .hinted').first().waitFor();
    const cards = await page.locator('#board .hb-slot.hinted').evaluateAll((els) => els.map((e) => e.dataset.testid));
    assert.ok(cards.length > 0, 'the hint marks its cards');
    await tid(cards[0]).click();
    assert.deepEqual(await page.locator('#board .hb-slot.hinted').evaluateAll((els) => els.map((e) => e.dataset.testid)), cards, 'picking one of them keeps the hint');
    const marked = await page.locator('[data-testid="hb-actions"] .btn.hinted').evaluateAll((els) => els.map((e) => [e.dataset.testid, e.getAttribute('aria-label')]));
    assert.equal(marked.length, 1, `one action button marked (${JSON.stringify(marked)})`);
    const want = play.type === 'play' ? 'hb-play' : play.type === 'discard' ? 'hb-discard' : play.color !== undefined && play.color !== null ? /^hb-hint-color/ : 'hb-hint-number';
    if (typeof want === 'string') assert.equal(marked[0][0], want); else assert.match(marked[0][0], want);
    assert.match(marked[0][1], /\(the hint\)$/, 'and says so');
    seen.add(play.type === 'hint' ? 'clue' : 'own');
    const before = (await apiCall(env, 'GET', `/games/${await page.evaluate(() => decodeURIComponent(/game=([^&]+)/.exec(location.hash)[1]))}`)).body.version;
    await tid(marked[0][0]).click();
    await page.waitForFunction((v) => +document.querySelector('[data-testid="game-version"]').textContent > v, before);
  }
  assert.equal(seen.size, 2, `both kinds of hint checked (${[...seen]})`);
});

test('a clue previews the cards it would touch before it is given: its button hovered or focused, or chosen by the keys', async () => {
  await dealLive({ seed: 7 });
  await page.waitForFunction(() => /Your turn/.test(document.querySelector('[data-testid="status"]').textContent));
  const view = (await apiInPage(page, '/games/{id}')).body.state;
  const theirs = view.hands[1].map((x) => x.card);
  await tid('hb-card-1-0').click();
  const number = +theirs[0][1];
  const want = theirs.map((c, j) => (+c[1] === number ? `hb-card-1-${j}` : null)).filter(Boolean);
  assert.ok(Number.isInteger(number) && want.length >= 1 && want.includes('hb-card-1-0'), `the clue touches the picked card at least (${theirs})`);
  const shown = () => page.locator('#board .hb-preview').evaluateAll((els) => els.map((e) => e.dataset.testid));
  assert.deepEqual(await shown(), [], 'nothing previewed before a clue is pointed at');
  await tid('hb-hint-number').hover();
  assert.deepEqual(await shown(), want, `the number clue's preview: every ${number} of theirs`);
  await page.mouse.move(0, 0);
  assert.deepEqual(await shown(), [], 'gone when the pointer leaves');
  await tid('hb-hint-number').focus();
  assert.deepEqual(await shown(), want, 'and while the button has the focus');
  await tid('hb-hint-number').blur();
  // hanab.live's keys: ; the next teammate (seat 1), the digit of the number
  await page.keyboard.press('Escape');
  await page.locator('#board').focus();
  await page.keyboard.press(';');
  await page.keyboard.press(String(number));
  await tid('hb-key-give').waitFor();
  assert.deepEqual(await shown(), want, 'a clue chosen by the keys previews the same cards');
  await page.keyboard.press('Escape');
  assert.deepEqual(await shown(), [], 'Esc: no preview');
});

test('no console errors on the Hanabi table', () => {
  assert.deepEqual(env.consoleErrors, []);
});
