// Browser tests of the keyboard at the tables: each table's hotkeys press
// the control they name (listed in the Rules panel with the page's own),
// and after every play the keyboard's focus is on a control of the board,
// never lost on the page's body, so the next key works at once.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, stopAll, settled, pollPage } from './harness.mjs';

let env, page;
const tid = (id) => page.getByTestId(id);

before(async () => { env = await startAll(); page = env.page; });
after(async () => {
  assert.deepEqual(env ? env.consoleErrors.filter((e) => !/status of 422/.test(e)) : [], [], 'no console errors');
  await stopAll(env);
});

async function deal(game, seed, players) {
  await page.goto('/');
  await page.evaluate(() => { localStorage.clear(); sessionStorage.clear(); });
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
  await tid('new-game-game').selectOption(game);
  if (players) await tid('new-game-players').fill(String(players));
  await tid('new-game-name').fill('Ada');
  await tid('new-game-seed').fill(String(seed));
  await tid('new-game-submit').click();
  await page.waitForFunction(() => /#game=/.test(location.hash));
  await settled(page);
}

const info = () => page.evaluate(async () => {
  const { app, myTurn } = await import('/core/state.js');
  const el = document.activeElement;
  return {
    version: app.version, mine: myTurn(), over: !!(app.status && app.status.over), state: app.state, you: app.you, legal: app.legal,
    focus: el === document.body || !el ? 'body' : (el.dataset.testid || el.id || el.tagName), inBoard: !!el && document.getElementById('board').contains(el),
  };
});

/** Press a key, then wait for the play it made (a new version) to be drawn. */
async function pressPlay(key) {
  const { version } = await info();
  await page.keyboard.press(key);
  await pollPage(page, async (v) => { const { app } = await import('/core/state.js'); return app.version !== v; }, version);
  await settled(page);
}

function focusKept(i, where) {
  assert.notEqual(i.focus, 'body', `${where}: the focus is not lost on the body`);
  assert.ok(i.inBoard, `${where}: the focus is on the board (${i.focus})`);
}

test('the Rules panel lists the table\'s keys and the page\'s', async () => {
  await deal('hanabi', 3, 2);
  await page.keyboard.press('?');
  const dialog = tid('rules-dialog');
  await dialog.getByTestId('rules-keys').waitFor();
  const keys = await dialog.locator('[data-testid="rules-keys"] dt').allInnerTexts();
  for (const k of ['1 to 5', 'P', 'D', 'C', 'N', 'H', 'Esc', '?']) assert.ok(keys.includes(k), `key ${k} is listed`);
  await page.keyboard.press('Escape');
});

test('Hanabi by keys: 1 picks your card 1, P plays it, and the focus stays on the board', async () => {
  await deal('hanabi', 11, 2);
  for (let turn = 0; turn < 4; turn++) {
    const before = await info();
    if (before.over) break;
    assert.ok(before.mine, 'our turn');
    await page.keyboard.press('1');
    assert.equal(await tid(`hb-card-${before.you}-0`).getAttribute('aria-pressed'), 'true', '1 picks card 1');
    await pressPlay(turn % 2 ? 'd' : 'p');
    const i = await info();
    focusKept(i, `hanabi turn ${turn}`);
  }
  // H asks for a hint: the message speaks to the player
  await page.keyboard.press('h');
  await page.waitForFunction(() => /^Hint: [A-Z]/.test(document.querySelector('[data-testid="message"]').textContent));
  assert.doesNotMatch(await tid('message').innerText(), /\b(I|my|me)\b/, 'the hint speaks to the player');
});

test('Comp10001-Bo by keys: a digit picks a card, a digit plays it on a build pile', async () => {
  await deal('comp10001bo', 5);
  let made = 0;
  for (let n = 0; n < 12 && made < 3; n++) {
    const s = await info();
    if (s.over || !s.mine) break;
    // a legal play from the hand onto a build pile: its hand place and pile
    const hand = s.state.hand || s.state.hands?.[s.you] || [];
    const p = s.legal.find((q) => q[0] === 0 && Array.isArray(q[2]) && q[2][0] === 0 && hand.indexOf(q[1]) >= 0 && hand.indexOf(q[1]) < 5);
    if (!p) break;
    await page.keyboard.press(String(hand.indexOf(p[1]) + 1));
    assert.equal(await tid(`hand-card-${hand.indexOf(p[1])}`).getAttribute('aria-pressed'), 'true', 'the card is picked');
    await pressPlay(String(p[2][1] + 1));
    made++;
    focusKept(await info(), `comp10001bo play ${made}`);
  }
  assert.ok(made > 0, 'a play was made by keys');
});

test('Phazed and Five Crowns by keys: D picks up, a digit (or X) discards, the focus stays', async () => {
  await deal('phazed', 7, 2);
  let s = await info();
  assert.ok(s.mine);
  await pressPlay('d');
  focusKept(await info(), 'phazed after the pick-up');
  await page.keyboard.press('1');
  await pressPlay('x');
  focusKept(await info(), 'phazed after the discard');

  await deal('fivecrowns', 9, 2);
  s = await info();
  assert.ok(s.mine);
  await pressPlay('d');
  s = await info();
  focusKept(s, 'five crowns after the draw');
  assert.match(s.focus, /^fc-hand-card-\d+$/, 'the focus on a card to discard');
  await pressPlay('1');
  focusKept(await info(), 'five crowns after the discard');
});
