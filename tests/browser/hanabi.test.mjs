// Browser test: Hanabi (rainbow variant) against two rule bots, played by clicking.
//
// The test asks the server which plays are legal (GET /legal) only to know what
// to click; the assertions are on what the page shows. Screenshots go to tests/out/.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startAll, stopAll, apiInPage, logCount, logGrows, OUT } from './harness.mjs';

const SEED = 42; // seat 2 starts and hints us about our 1s before our first turn
let env, page;
const tid = (id) => page.getByTestId(id);
const api = (p) => apiInPage(page, p);

before(async () => { env = await startAll(); page = env.page; });
after(async () => { await stopAll(env); });

async function view() { return (await api('/games/{id}')).body; }
async function legal() { return (await api('/games/{id}/legal')).body.plays; }

test('play Hanabi (rainbow) against two bots in the browser', async () => {
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
  await tid('new-game-game').selectOption('hanabi');
  await tid('new-game-variant').selectOption('rainbow');
  await tid('new-game-players').fill('3');
  await tid('new-game-name').fill('Ada');
  assert.equal(await tid('new-game-bot-1').inputValue(), 'conventions', 'the default bot is the first GET /rules lists');
  assert.equal(await page.locator('[data-testid^="new-game-bot-"]').count(), 2, 'two bot seats for three players');
  // This scripted deal was written for the rules bots (their first move hints our 1s).
  await tid('new-game-bot-1').selectOption('rules');
  await tid('new-game-bot-2').selectOption('rules');
  assert.ok(await tid('new-game-end').isVisible(), 'the end-of-game option is offered');
  await tid('new-game-seed').fill(String(SEED));
  await tid('new-game-submit').click();
  await page.waitForFunction(() => /#game=/.test(location.hash));
  await tid('hb-hand-0').waitFor();

  let v = await view();
  const you = v.you;
  assert.equal(you, 0);
  let s = v.state;
  assert.equal(s.variant, 'rainbow');
  assert.equal(s.hands[0].length, 5, 'five cards each with three players');

  // Our own cards are hidden: every face says "??", and the bot's hint shows as marks.
  for (let i = 0; i < 5; i++) {
    const b = tid(`hb-card-0-${i}`);
    assert.equal(await b.locator('.card').getAttribute('data-card'), '??', `own card ${i} is hidden`);
    const touched = s.hands[0][i].touched;
    const chips = (await b.getByTestId('hb-touched').innerText()).replace(/\s+/g, '');
    assert.equal(chips, [...touched.colors, ...touched.numbers].join(''), `card ${i} shows what the hints said`);
    const label = await b.getAttribute('aria-label');
    if (touched.numbers.length) assert.match(label, new RegExp(`hinted: ${touched.numbers[0]}`));
    else assert.match(label, /no hint yet/);
  }
  const hintedOwn = s.hands[0].findIndex((c) => c.touched.numbers.length + c.touched.colors.length > 0);
  assert.ok(hintedOwn >= 0, 'the first bot hinted one of our cards');
  // Negative information, compactly: cards the 1s hint did not touch are "not 1".
  const untouched = s.hands[0].findIndex((c) => c.not.numbers.includes(1));
  assert.equal(await tid(`hb-card-0-${untouched}`).locator('[data-testid="hb-pip"][data-not="1"]').count(), 1, 'a crossed 1 pip');

  // Everyone else's cards are on view, rainbow cards with a gradient.
  let rainbowSeen = false;
  for (const p of [1, 2]) {
    for (let i = 0; i < s.hands[p].length; i++) {
      const face = tid(`hb-card-${p}-${i}`).locator('.card');
      assert.equal(await face.getAttribute('data-card'), s.hands[p][i].card);
      if (s.hands[p][i].card[0] === 'M') {
        rainbowSeen = true;
        assert.match(await face.evaluate((e) => getComputedStyle(e).backgroundImage), /gradient/);
      }
    }
  }
  assert.ok(rainbowSeen, 'this deal shows at least one rainbow card');

  // Tokens, deck, score, fireworks, turn.
  assert.equal(await tid('hb-hints').innerText(), `Hints ${s.hints}/8`);
  assert.equal(await tid('hb-errors').innerText(), 'Errors 0/3');
  assert.equal(await tid('hb-deck').innerText(), `Deck ${s.deck} cards`);
  assert.equal(await tid('hb-score').innerText(), `Score 0/30`);
  assert.equal(await page.locator('[data-testid^="hb-firework-"]').count(), 6, 'six firework piles with rainbow');
  assert.match(await tid('status').innerText(), /Your turn/);

  // The bot's hint is in the log with its explanation.
  const botEntry = page.locator(`[data-testid="log"] > li:not([data-seat="${you}"])`).first();
  assert.match(await botEntry.innerText(), /hinted you about your 1s/);
  assert.ok((await botEntry.getByTestId('log-explanation').innerText()).length > 5);
  // One numbering: cards count from 1 (card 1 = oldest) on the table, in
  // the log and in the explanations; players count from 0 everywhere.
  assert.equal(await tid('hb-card-0-0').locator('.hb-pos').innerText(), '1');
  assert.match(await tid('hb-card-0-0').getAttribute('aria-label'), /^Your card 1 \(oldest\)/);
  {
    const cardsIn = (text) => { const m = /\(cards? ([\d, ]+)\)/.exec(text); return m ? m[1] : null; };
    const logWords = cardsIn(await botEntry.getByTestId('log-play').innerText());
    const why = cardsIn(await botEntry.getByTestId('log-explanation').innerText());
    assert.ok(logWords, 'the log names the cards a hint touched');
    if (why) assert.equal(logWords, why, 'the log and the explanation number the touched cards alike');
    const touchedNow = s.hands[0].map((c, i) => (c.touched.numbers.includes(1) ? i + 1 : 0)).filter(Boolean).join(', ');
    assert.equal(logWords, touchedNow);
  }

  // Help: the Hint button names a play and highlights the card.
  const [hintRes] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/hint')), tid('hint-button').click()]);
  const hint = await hintRes.json();
  await page.waitForFunction(() => /Hint/.test(document.querySelector('[data-testid="message"]').textContent));
  // said to the player: the play as an instruction, then the adviser's reason ("Play your card 2: the clues prove it fits")
  const msg = await tid('message').innerText();
  assert.match(msg, /^Hint: [A-Z]/);
  assert.doesNotMatch(msg, /\b(I|my)\b/);
  const m = /: | because /.exec(hint.explanation);
  if (m) {
    const reason = hint.explanation.slice(m.index + m[0].length).split(' ').slice(0, 3).join(' ').replace(/\bmy\b/g, 'your').replace(/\bI\b/g, 'you');
    assert.ok(msg.includes(reason), `the reason "${reason}" is in "${msg}"`);
  }
  if (hint.play.type === 'play' || hint.play.type === 'discard') {
    assert.match(await tid(`hb-card-0-${hint.play.card}`).getAttribute('class'), /\bhinted\b/);
    assert.match(await tid('message').innerText(), new RegExp(`your card ${hint.play.card + 1}\\b`));
    const said = /^(Play|Discard) your (chop, )?card (\d+)/.exec(hint.explanation || '');
    assert.ok(said, `the engine says the hint to the player: ${hint.explanation}`);
    assert.equal(Number(said[3]), hint.play.card + 1, 'the hint and its explanation name the same card');
  }
  await page.screenshot({ path: path.join(OUT, 'hanabi-start.png'), fullPage: true });

  // 1. Play the card the hint touched: click it, then "Play".
  let before = await logCount(page);
  await tid(`hb-card-0-${hintedOwn}`).click();
  assert.equal(await tid(`hb-card-0-${hintedOwn}`).getAttribute('aria-pressed'), 'true');
  assert.ok(await tid('hb-play').isEnabled());
  assert.ok(await tid('hb-discard').isEnabled() === (s.hints < 8));
  await page.screenshot({ path: path.join(OUT, 'hanabi-selected.png') });
  await tid('hb-play').click();
  await logGrows(page, before);
  const mine = page.locator(`[data-testid="log"] > li[data-seat="${you}"]`).last();
  assert.match(await mine.innerText(), new RegExp(`played card ${hintedOwn + 1}: ✦?[RYBGWM]?1 ✓`));
  await page.waitForFunction(() => /Your turn/.test(document.querySelector('[data-testid="status"]').textContent));
  v = await view(); s = v.state;
  assert.equal(s.score, 1);
  assert.equal(await tid('hb-score').innerText(), 'Score 1/30');

  // 2. Give a hint by clicking another player's card. A rainbow card offers a choice of colour.
  let plays = await legal();
  let target = null;
  for (const p of [1, 2]) {
    const i = s.hands[p].findIndex((c) => c.card[0] === 'M');
    if (i >= 0 && plays.some((q) => q.type === 'hint' && q.target === p)) { target = { p, i }; break; }
  }
  assert.ok(target, 'a rainbow card in another hand to hint');
  await tid(`hb-card-${target.p}-${target.i}`).click();
  for (const c of ['R', 'Y', 'B', 'G', 'W']) assert.ok(await tid(`hb-hint-color-${c}`).isVisible(), `colour ${c} offered for a rainbow card`);
  assert.equal(await tid('hb-hint-color').count(), 0, 'rainbow itself cannot be named');
  assert.ok(await tid('hb-hint-number').isVisible());
  const colourPlay = plays.find((q) => q.type === 'hint' && q.target === target.p && q.color);
  before = await logCount(page);
  await tid(`hb-hint-color-${colourPlay.color}`).click();
  await logGrows(page, before);
  const names = { R: 'red', Y: 'yellow', B: 'blue', G: 'green', W: 'white' };
  assert.match(await page.locator(`[data-testid="log"] > li[data-seat="${you}"]`).last().innerText(), new RegExp(`hinted .* about their ${names[colourPlay.color]}`));
  await page.waitForFunction(() => /Your turn|Game over/.test(document.querySelector('[data-testid="status"]').textContent));

  // 3. A number hint through the keyboard: focus a card, Enter, then the number button.
  v = await view(); s = v.state;
  plays = await legal();
  const numHint = plays.find((q) => q.type === 'hint' && q.number);
  if (numHint) {
    const i = s.hands[numHint.target].findIndex((c) => +c.card[1] === numHint.number);
    await tid(`hb-card-${numHint.target}-${i}`).focus();
    await page.keyboard.press('Enter');
    await tid('hb-hint-number').focus();
    before = await logCount(page);
    await page.keyboard.press('Enter');
    await logGrows(page, before);
    assert.match(await page.locator(`[data-testid="log"] > li[data-seat="${you}"]`).last().innerText(), new RegExp(`about their ${numHint.number}s`));
    await page.waitForFunction(() => /Your turn|Game over/.test(document.querySelector('[data-testid="status"]').textContent));
  }

  // 4. Discard (legal below 8 hint tokens): the oldest card.
  v = await view(); s = v.state;
  plays = await legal();
  if (plays.some((q) => q.type === 'discard' && q.card === 0)) {
    before = await logCount(page);
    await tid('hb-card-0-0').click();
    await tid('hb-discard').click();
    await logGrows(page, before);
    assert.match(await page.locator(`[data-testid="log"] > li[data-seat="${you}"]`).last().innerText(), /discarded card 1: ✦?[RYBGW]?\d/);
    await page.waitForFunction(() => /Your turn|Game over/.test(document.querySelector('[data-testid="status"]').textContent));
    v = await view(); s = v.state;
    assert.equal(await page.getByTestId('hb-discard-pile').locator('.hb-mini').count(), s.discard.length, 'every discarded card is shown');
  }

  // Bots explain each move.
  const botExplained = page.locator(`[data-testid="log"] > li:not([data-seat="${you}"]) [data-testid="log-explanation"]`);
  assert.ok(await botExplained.count() >= 6, 'bots explain their plays');
  await page.screenshot({ path: path.join(OUT, 'hanabi-desktop.png'), fullPage: true });

  // Reload: the game, our hint marks and the explained log come back.
  const beforeReload = {
    hash: await page.evaluate(() => location.hash),
    own: await tid('hb-hand-0').innerText(),
    version: await tid('game-version').innerText(),
    log: await logCount(page),
    explained: await botExplained.count(),
  };
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.evaluate(() => location.hash), beforeReload.hash);
  assert.match(await tid('message').innerText(), /resumed/i);
  assert.equal(await tid('hb-hand-0').innerText(), beforeReload.own);
  assert.equal(await tid('game-version').innerText(), beforeReload.version);
  assert.equal(await logCount(page), beforeReload.log, 'the log is restored');
  assert.equal(await botExplained.count(), beforeReload.explained, 'with the bots\' explanations');

  // Phone width: nothing overflows sideways.
  await page.setViewportSize({ width: 375, height: 812 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 375px (overflow ${overflow}px)`);
  await page.screenshot({ path: path.join(OUT, 'hanabi-375.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('no console errors while playing Hanabi', () => {
  assert.deepEqual(env.consoleErrors, []);
});
