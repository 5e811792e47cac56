// Words, not notation: a game of every table, played to
// its end through the page (the help mode's advice, played as the page
// plays a click: core/game.js sendPlay), with the text a person reads
// scanned after every play: the board, the log and the bots' explanations,
// the hints, the server's refusals (an illegal attempt every few turns),
// the game-over summary and the replay's labels and explanations, and the
// lobby and the Rules panel (no routes, play shapes, braces, reason codes,
// "limit" or "offset" there, nor in the hints and the bots' lines); a hint
// speaks to the player, never in the adviser's "I" or a bot's "its". None may
// hold code notation: brackets, null, pile coordinates ("3,0"), raw card
// codes ("0D", "7H"), "#0", numbered players ("Player 0", "player 2": the
// table names them), "(play 3)".

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startAll, stopAll, settled, OUT, pollPage } from './harness.mjs';

let env, page;
const tid = (id) => page.getByTestId(id);

before(async () => { env = await startAll(); page = env.page; });
after(async () => { await stopAll(env); });

const NOTATION = [
  ['a bracket', /[[\]{}]/],
  ['null or undefined', /\b(null|undefined|NaN)\b/],
  ['a pile coordinate', /\b\d+,\d+\b/],
  ['a raw card code', /\b([A2-9XJQK0][SHDCT]|ZZ|XX|J[123])\b/],
  ['"#n"', /#\d/],
  ['a numbered player', /\b[Pp]layer \d+\b/],
  ['"(play n)"', /\(play \d+\)/],
  ['a reason code', /\((out|deck-exhausted|turn-limit|called-off)\)/],
];

/** The text a person reads now (hidden parts excluded), minus the game id. */
async function text() {
  return page.evaluate(async () => {
    const { app } = await import('/core/state.js');
    return document.body.innerText.split(app.id || '\u0000').join('');
  });
}

// What a player reads in the lobby, the Rules panel, the hints and the bots'
// lines holds no API either: routes, play shapes, braces, reason codes,
// paging (those are docs/api.md's).
const API = [
  ['a route', /\b(GET|POST|PUT|DELETE) |\/games\b|\/rules\/|\.md\b/], ['a reason code', /\breason \d/],
  ['a JSON member', /"[a-z_]+":/], ['a JSON brace', /[{}]/], ['paging', /\b(limit|offset)\b/],
];
function scanApi(t, where) {
  for (const [what, re] of API) {
    const m = re.exec(t);
    if (m) assert.fail(`${where}: ${what} ("${m[0]}") in what a player reads: ${t.split('\n').find((l) => re.test(l))}`);
  }
}

const seen = new Map(); // what was scanned, by where (for the failure message)
function scan(t, where) {
  for (const [what, re] of NOTATION) {
    const m = re.exec(t);
    if (m) {
      const line = t.split('\n').find((l) => re.test(l));
      assert.fail(`${where}: ${what} ("${m[0]}") in a sentence a person reads: ${line}`);
    }
  }
  seen.set(where, (seen.get(where) || 0) + 1);
}

const pageState = () => page.evaluate(async () => {
  const { app, myTurn } = await import('/core/state.js');
  return { state: app.state, you: app.you, mine: myTurn(), busy: app.busy, legal: app.legal };
});

/** A play the rules forbid now (a well-formed one: the server's 422 reason). */
function illegal(game, s, you) {
  if (game === 'comp10001bo') return [0, 'AS', [1, [you, 0]]]; // an ace never goes on a discard pile (or is not held)
  if (game === 'fivecrowns') return s.phase === 'draw' ? { discard: s.hand[0] } : { draw: 'draw' };
  if (game === 'phazed') return [2, s.hand.find((c) => c !== s.discard) || 'ZZ']; // not the discard top (or not the first play)
  // hanabi: a number the next player does not hold
  const other = (you + 1) % s.hands.length;
  const held = new Set(s.hands[other].map((c) => Number(String(c.card || c)[1])));
  const n = [1, 2, 3, 4, 5].find((x) => !held.has(x));
  return n ? { type: 'hint', target: other, number: n } : { type: 'hint', target: you, number: 1 };
}

/** Screenshots at 1280x800 and 375x740 (tests/out/words-<table>-<stage>-<width>.png). */
async function shots(game, variant, stage) {
  for (const [w, hgt] of [[1280, 800], [375, 740]]) {
    await page.setViewportSize({ width: w, height: hgt });
    await page.screenshot({ path: path.join(OUT, `words-${game}-${variant}-${stage}-${w}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

async function deal(game, variant, seed, players) {
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
  await tid('new-game-game').selectOption(game);
  const variants = await tid('new-game-variant').locator('option').evaluateAll((os) => os.map((o) => o.value));
  if (variants.includes(variant)) await tid('new-game-variant').selectOption(variant);
  if (players) await tid('new-game-players').fill(String(players));
  // the lobby, with its list of bots open, is read as a player reads it
  await tid('new-game-bots-about').locator('summary').click();
  // (its sentences: the seats' labels number the seats, "Player 2", as a form does)
  scan((await page.locator('#ng-about, #ng-variant-about, #ng-bots-about').allInnerTexts()).join('\n'), `${game} lobby`);
  scanApi(await page.locator('#setup').innerText(), `${game} lobby`);
  await tid('new-game-name').fill('Ada');
  await tid('new-game-seed').fill(String(seed));
  await tid('new-game-submit').click();
  await page.waitForFunction(() => /#game=/.test(location.hash));
  await tid('board').waitFor();
  await settled(page); // the hash is set and the board shown before the table is drawn
}

const TABLES = [
  ['comp10001bo', 'standard', 3], ['comp10001bo', 'bonus', 4], ['hanabi', 'standard', 5, 3],
  ['hanabi', 'rainbow', 6, 2], ['phazed', 'standard', 7], ['phazed', 'bonus', 8], ['fivecrowns', 'standard', 9],
];

for (const [game, variant, seed, players] of TABLES) {
  test(`${game} ${variant}: a whole game's text holds no code notation`, { timeout: 900000 }, async () => {
    await deal(game, variant, seed, players);
    scan(await text(), `${game} deal`);
    // the table's Rules panel
    await tid('rules-button').click();
    await tid('rules-dialog').getByTestId('rules-bots').waitFor();
    scan(await tid('rules-body').innerText(), `${game} rules`);
    scanApi(await tid('rules-body').innerText(), `${game} rules`);
    await tid('rules-close').click();
    await shots(game, variant, 'start');
    let plays = 0;
    for (; plays < 3000; plays++) {
      const { state, you, mine } = await pageState();
      if (state.over) break;
      assert.ok(mine, 'after the bots, it is our turn');
      if (plays % 7 === 3) { // the server's refusal, in the message bar and by the place
        await page.evaluate(async (p) => (await import('/core/game.js')).sendPlay(p), illegal(game, state, you));
        await page.waitForFunction(() => /Not allowed/.test(document.querySelector('[data-testid="message"]').textContent));
        scan(await text(), `${game} refusal`);
      }
      await tid('hint-button').click();
      await pollPage(page, async () => { const { app } = await import('/core/state.js'); return app.hint !== null; });
      scan(await text(), `${game} hint`);
      const said = await tid('message').innerText();
      scanApi(said, `${game} hint`);
      if (await tid('fc-advice').count()) scanApi(await tid('fc-advice').innerText(), `${game} hint`);
      if (/^Hint/.test(said)) { // the advice speaks to the player, not in the adviser's voice
        assert.match(said, /^Hint: [A-Z]/, `${game} hint: ${said}`);
        assert.doesNotMatch(said, /\b(I|my|me|I recommend)\b/, `${game} hint in the bot's voice: ${said}`);
        assert.doesNotMatch(said, /\b(its phase|it holds|it sees|The computer)\b/, `${game} hint in the bot's voice: ${said}`);
      }
      // the advice, played as a click would (a refresh may have cleared it: ask again)
      const version = await page.evaluate(async () => (await import('/core/state.js')).app.version);
      const played = await page.evaluate(async () => {
        const { app } = await import('/core/state.js');
        if (!app.hint) return false;
        await (await import('/core/game.js')).sendPlay(app.hint.play);
        return true;
      });
      if (!played) continue;
      await pollPage(page, async (v) => { const { app } = await import('/core/state.js'); return app.version !== v; }, version);
      scan(await text(), `${game} after a play`);
      for (const l of (await page.locator('[data-testid="log-explanation"]').allInnerTexts()).slice(-8)) {
        assert.doesNotMatch(l, /\b(I|my|me)\b|The computer/, `${game}: a bot's line out of the log's one voice: ${l}`);
        scanApi(l, `${game} log`);
      }
      if (plays === 40) await shots(game, variant, 'middle');
    }
    assert.ok((await pageState()).state.over, `the game ended (${plays} plays of ours)`);
    await tid('summary').waitFor();
    scan(await text(), `${game} game over`);
    await shots(game, variant, 'over');
    // the replay: its labels and the explanations, move by move
    await tid('summary-replay').click();
    await tid('replay').waitFor();
    const moves = Number(await tid('replay-slider').getAttribute('max')) + 1;
    for (let i = 0; i < moves; i += Math.max(1, Math.floor(moves / 40))) {
      await page.evaluate((k) => { const s = document.querySelector('[data-testid="replay-slider"]'); s.value = String(k); s.dispatchEvent(new Event('input', { bubbles: true })); }, i);
      await page.waitForFunction((k) => new RegExp(`^Move ${k + 1} of`).test(document.querySelector('[data-testid="replay-position"]').textContent), i);
      // The position's label is written before its view is fetched; the board names the play it shows once drawn.
      await pollPage(page, async (k) => { const { app } = await import('/core/state.js'); return document.querySelector('[data-testid="replay-board"]').dataset.at === String(app.replay.plays[k].n); }, i);
      scan(await text(), `${game} replay`);
    }
  });
}

test('every kind of text was read, and no console error but the refusals the browser logs itself', () => {
  for (const [game] of TABLES) {
    for (const where of ['lobby', 'deal', 'rules', 'refusal', 'hint', 'after a play', 'game over', 'replay']) {
      assert.ok(seen.get(`${game} ${where}`) > 0, `${game} ${where} was scanned`);
    }
  }
  assert.deepEqual(env.consoleErrors.filter((e) => !/status of 422/.test(e)), []);
});
