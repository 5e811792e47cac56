// Browser test: Five Crowns against the strategy bot, played by clicking,
// with help mode, going out, save to a file, reload, and resume from a file.
//
// The test asks the server for the legal plays and the help-mode advice only to
// know what to click; the assertions are on what the page shows.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startAll, stopAll, apiInPage, logCount, logGrows, OUT, FIXTURES, pollPage } from './harness.mjs';

const SEED = 5; // the bot starts round 1; following the advice, we go out on our second turn
let env, page;
const tid = (id) => page.getByTestId(id);
const api = (p) => apiInPage(page, p);
const view = async () => (await api('/games/{id}')).body;
const squash = (s) => s.replace(/\s+/g, '');
const SUIT = { S: '♠', C: '♣', D: '♦', H: '♥', T: 'ψ' };
const shown = (c) => (/^J[123]$/.test(c) ? '★Joker' : `${c[0] === 'X' ? '10' : c[0]}${SUIT[c[1]]}`);

before(async () => { env = await startAll(); page = env.page; });
after(async () => { await stopAll(env); });

/** The page's order of our hand: by suit (SCDHT), then rank, wild cards (the round's wild rank, jokers) last. */
function sortedHand(hand, wild) {
  const key = (c) => {
    if (/^J[123]$/.test(c)) return 2000 + +c[1];
    const k = 'SCDHT'.indexOf(c[1]) * 20 + '3456789XJQK'.indexOf(c[0]);
    return c[0] === wild ? 1000 + k : k;
  };
  return hand.map((c, i) => [c, i]).sort((a, b) => key(a[0]) - key(b[0]) || a[1] - b[1]).map(([c]) => c);
}

/** Hand cards as shown: "7♥" etc. (wild marks stripped). */
async function shownHand(testid) {
  return page.getByTestId(testid).locator('.card').evaluateAll((els) => els.map((e) => e.dataset.card));
}

test('play Five Crowns against the strategy bot in the browser', async () => {
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
  await tid('new-game-game').selectOption('fivecrowns');
  assert.equal(await tid('new-game-players').inputValue(), '2', 'two players by default');
  assert.equal(await page.locator('[data-testid^="new-game-bot-"]').count(), 1);
  assert.ok(await tid('new-game-call').isVisible(), 'the coin-toss call is offered');
  assert.equal(await tid('new-game-open').isChecked(), false, 'a closed table by default (rulings: a game of hidden cards)');
  assert.match(await page.locator('label[for="ng-opt-open"]').innerText(), /course program's open table/);
  await tid('new-game-open').check(); // this test plays the open table; the last one a closed one
  await tid('new-game-call').selectOption('heads');
  await tid('new-game-name').fill('Ada');
  await tid('new-game-bot-1').selectOption('strategy');
  await tid('new-game-seed').fill(String(SEED));
  await page.screenshot({ path: path.join(OUT, 'fivecrowns-form.png'), fullPage: true });
  await tid('new-game-submit').click();
  await page.waitForFunction(() => /#game=/.test(location.hash));
  await tid('fc-hand').waitFor();

  let v = await view();
  const you = v.you;
  let s = v.state;
  assert.equal(you, 0);
  assert.equal(s.round, 1);
  assert.deepEqual(s.toss, { call: 'heads', result: s.toss.result });
  assert.match(await tid('fc-toss').innerText(), new RegExp(`called heads, it came up ${s.toss.result}`));
  assert.match(await tid('fc-round').innerText(), /Round 1 of 11/);
  assert.match(await tid('fc-wild').innerText(), /Wild: 3s/);

  // Open table: both hands on view, the draw pile listed but collapsed.
  assert.deepEqual(await shownHand('fc-hand'), sortedHand(s.hand, s.wild_rank), 'our hand sorted, wild cards last');
  assert.deepEqual(await shownHand('fc-hand-1'), s.hands[1]);
  assert.equal(await tid('fc-draw-pile-list').getAttribute('open'), null, 'draw pile list collapsed');
  assert.ok(!(await tid('fc-draw-pile-list').locator('.card').first().isVisible()));
  assert.equal(squash(await tid('fc-discard-pile').innerText()).replace(/wild/, ''), `${shown(s.discard_top)}${s.discard_count}`.replace('★Joker', '★Joker'));
  // Wild cards and jokers are marked.
  for (const [i, c] of s.hand.entries()) {
    const cls = await tid(`fc-hand-card-${i}`).locator('.card').getAttribute('class');
    assert.equal(/\bfc-wild\b/.test(cls), c[0] === s.wild_rank && !/^J[123]$/.test(c), `wild mark on ${c}`);
    assert.equal(/\bfc-joker\b/.test(cls), /^J[123]$/.test(c), `joker mark on ${c}`);
  }

  // The bot moved first: its draw and discard are explained in the log.
  const botExpl = page.locator(`[data-testid="log"] > li:not([data-seat="${you}"]) [data-testid="log-explanation"]`);
  assert.ok(await botExpl.count() >= 2, 'the bot explained its draw and its discard');
  assert.match(await botExpl.first().innerText(), /^(draws|takes) /, 'in the log\'s one voice: the play without a subject, no "The computer"');

  // Play by clicking, following the help-mode advice, until we have gone out once
  // and round 2 has begun.
  let wentOut = false;
  let hintShots = 0;
  for (let k = 0; k < 30; k++) {
    v = await view(); s = v.state;
    if (s.over || (wentOut && s.round >= 2 && s.current === you && s.phase === 'draw')) break;
    assert.equal(s.current, you, 'bots move inside our requests: it is always our turn here');
    const legal = (await api('/games/{id}/legal')).body.plays;

    // Help: the advice panel shows the arrangement and the reasons.
    const [hintRes] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/hint')), tid('hint-button').click()]);
    const hint = await hintRes.json();
    await tid('fc-advice').waitFor();
    const adv = await tid('fc-advice').innerText();
    // (the page names "player 2" as the table does: compare what follows)
    const tail = (x) => x.replace(/^.*\b[Pp]layer \d+('s)?/, '');
    // the panel says the instruction in bold, then the line's reason (after its ": ")
    const reasonTail = (x) => { assert.match(x, /^(Take|Draw|Discard) .*?: /, `said to the player: ${x}`); return tail(x.slice(x.indexOf(': ') + 3)); };
    assert.ok(adv.includes(tail(hint.arrangement.why)), 'advice shows how to arrange the hand');
    assert.equal(await tid('fc-advice-arrangement').locator('.fc-run').count(), hint.arrangement.runs.length);
    assert.equal(await tid('fc-advice-arrangement').locator('.fc-book').count(), hint.arrangement.books.length);
    if (hint.draw) assert.ok(adv.includes(reasonTail(hint.draw.why)), adv);
    if (hint.discard) assert.ok(adv.includes(reasonTail(hint.discard.why)), adv);
    assert.ok(adv.includes(tail(hint.go_out_why)));
    // Before the draw nobody goes out: no "Do not go out yet." before advice to go out after the draw.
    if (hint.draw) assert.doesNotMatch(await tid('fc-advice-go-out').innerText(), /^(Go out|Do not go out yet)\./);
    if (hintShots++ === 0) await page.screenshot({ path: path.join(OUT, 'fivecrowns-hint.png'), fullPage: true });

    const before = await logCount(page);
    const play = hint.play;
    if (play.draw) {
      assert.equal(s.phase, 'draw');
      assert.match(await tid(play.draw === 'draw' ? 'fc-draw-pile' : 'fc-discard-pile').getAttribute('class'), /\bhinted\b/);
      assert.doesNotMatch(await tid(`fc-hand-card-0`).getAttribute('class'), /\bplayable\b/, 'no discard offered before drawing');
      await tid(play.draw === 'draw' ? 'fc-draw-pile' : 'fc-discard-pile').click();
      await logGrows(page, before);
      const last = page.locator(`[data-testid="log"] > li[data-seat="${you}"]`).last();
      assert.match(await last.innerText(), play.draw === 'draw' ? /drew from the draw pile/ : /took .* from the discard pile/);
    } else {
      assert.equal(s.phase, 'discard');
      const canGoOut = legal.some((p) => p.go_out);
      // Go out is always offered (the server judges a claim); the note says whether it can be done.
      assert.match(await page.locator('.fc-go-out-row .fc-note').innerText(), canGoOut ? /You can go out/ : /Going out needs/);
      const i = s.hand.indexOf(play.discard);
      if (play.go_out) {
        await tid('fc-go-out').click();
        assert.equal(await tid('fc-go-out').getAttribute('aria-pressed'), 'true');
        assert.match(await tid(`fc-hand-card-${i}`).getAttribute('class'), /\btarget\b/);
        await page.screenshot({ path: path.join(OUT, 'fivecrowns-go-out.png'), fullPage: true });
        wentOut = true;
      }
      await tid(`fc-hand-card-${i}`).click();
      await logGrows(page, before);
      const last = page.locator(`[data-testid="log"] > li[data-seat="${you}"]`).last();
      assert.ok(squash(await last.innerText()).includes(`discarded${shown(play.discard)}`));
      if (play.go_out) assert.match(await last.innerText(), /and went out/);
    }
  }
  assert.ok(wentOut, 'we went out by the toggle');
  v = await view(); s = v.state;
  assert.ok(s.round >= 2);

  // The finished round: points per player, the lay-outs, a round-end line in the log.
  assert.ok(await tid('fc-round-1').isVisible());
  const r1 = s.rounds[0];
  assert.equal(squash(await tid('fc-round-1').textContent()), squash(`1 (wild 3s) ${r1.points.map((p, i) => `${p}${r1.went_out === i ? 'out' : ''}`).join(' ')}`));
  assert.match(await page.getByTestId('log-round-end').first().innerText(), /Round 1 over/);
  assert.equal(await tid(`fc-score-0`).innerText(), String(s.scores[0]));
  assert.equal(await tid(`fc-score-1`).innerText(), String(s.scores[1]));
  assert.match(await tid('status').innerText(), new RegExp(`round ${s.round}/11`));
  await page.screenshot({ path: path.join(OUT, 'fivecrowns-desktop.png'), fullPage: true });

  // Save: the download is the seed's text format for this very position.
  const [download] = await Promise.all([page.waitForEvent('download'), tid('fc-save').click()]);
  const saved = readFileSync(await download.path(), 'utf8');
  assert.match(saved, new RegExp(`^Round: ${s.round}\\b`));
  assert.match(saved, new RegExp(`Human:\\s*\\n\\s*Score: ${s.scores[0]}\\s*\\n\\s*Hand: ${s.hand.join(' ')}`));
  assert.match(download.suggestedFilename(), /\.txt$/);

  // Reload: the same game, hands, scores and explained log.
  const beforeReload = {
    hash: await page.evaluate(() => location.hash), hand: await shownHand('fc-hand'),
    log: await logCount(page), explained: await botExpl.count(), version: await tid('game-version').innerText(),
  };
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.evaluate(() => location.hash), beforeReload.hash);
  assert.match(await tid('message').innerText(), /resumed/i);
  assert.deepEqual(await shownHand('fc-hand'), beforeReload.hand);
  assert.equal(await tid('game-version').innerText(), beforeReload.version);
  assert.equal(await logCount(page), beforeReload.log);
  assert.equal(await botExpl.count(), beforeReload.explained, 'explanations survive the reload');

  // Phone width.
  await page.setViewportSize({ width: 375, height: 812 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 375px (overflow ${overflow}px)`);
  await page.screenshot({ path: path.join(OUT, 'fivecrowns-375.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('resume Five Crowns from a save file', async () => {
  await tid('new-game-toggle').click();
  await tid('resume-file').waitFor();
  const oldHash = await page.evaluate(() => location.hash);
  await tid('resume-file').setInputFiles(path.join(FIXTURES, 'case2.txt'));
  await page.waitForFunction((h) => location.hash !== h && /#game=/.test(location.hash), oldHash);
  // The message is said once the imported game is on the board (the old
  // game's board may still be showing when the hash changes).
  await page.waitForFunction(() => /Resumed Five Crowns from case2\.txt/.test(
    document.querySelector('[data-testid="message"]').textContent), null, { timeout: 10000 });
  await tid('fc-hand').waitFor();
  const v = await view();
  assert.equal(v.state.round, 3);
  assert.deepEqual(v.state.scores, [10, 6], 'Human 10, Computer 6');
  assert.match(await tid('fc-round').innerText(), /Round 3 of 11/);
  assert.match(await tid('fc-wild').innerText(), /Wild: 5s/);
  // The save's 9C 8H 9D 9H JH, grouped as the arranger finds it: the book of 9s, then the rest sorted.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="fc-hand"] .fc-hand-group').length > 1);
  assert.deepEqual(await shownHand('fc-hand'), ['9C', '9D', '9H', '8H', 'JH']);
  assert.equal(await tid('fc-hand-group-0').getAttribute('data-kind'), 'book');
  assert.equal(v.state.open, false, 'a resumed save is a closed table too');
  assert.equal(await tid('fc-hand-1').locator('.fc-back').count(), 5, "the computer's 5 cards face down");
  assert.equal(await tid('fc-score-0').innerText(), '10');
  assert.equal(await tid('fc-score-1').innerText(), '6');
  assert.equal(squash(await tid('fc-discard-pile').innerText()), '9ψ18');
  assert.match(await tid('status').innerText(), /Your turn/);
  // It plays on: take the 9 of tridents, which makes a book of 9s.
  const before = await logCount(page);
  await tid('fc-discard-pile').click();
  await logGrows(page, before);
  assert.match(await tid('log').innerText(), /took 9ψ from the discard pile/);
  await page.screenshot({ path: path.join(OUT, 'fivecrowns-resumed.png'), fullPage: true });

  // An untidy save loads with its warnings shown; a broken one is refused with the line.
  await tid('new-game-toggle').click();
  await tid('resume-file').setInputFiles(path.join(FIXTURES, 'case3.txt'));
  await page.waitForFunction(() => /Resumed Five Crowns from case3\.txt/.test(document.querySelector('[data-testid="message"]').textContent));
  assert.match(await tid('message').innerText(), /5H appears 3 times/);
  assert.match(await tid('message').getAttribute('class'), /message-warning/);
  await tid('new-game-toggle').click();
  await tid('resume-file').setInputFiles(path.join(FIXTURES, 'bad-hand-size-round10.txt'));
  await page.waitForFunction(() => /Could not resume/.test(document.querySelector('[data-testid="message"]').textContent));
  assert.match(await tid('message').innerText(), /line 9/);
  // Chromium logs the 400 itself ("Failed to load resource"); that one is expected.
  env.consoleErrors.splice(0, env.consoleErrors.length, ...env.consoleErrors.filter((e) => !/status of 400/.test(e)));
});

test('a closed table hides the other hand', async () => {
  await tid('new-game-game').selectOption('fivecrowns');
  assert.equal(await tid('new-game-open').isChecked(), false);
  await tid('new-game-call').selectOption('tails');
  await tid('new-game-seed').fill(String(SEED));
  await tid('new-game-submit').click();
  await page.waitForFunction(() => /New Five Crowns game/.test(document.querySelector('[data-testid="message"]').textContent));
  const v = await view();
  assert.equal(v.state.open, false);
  assert.equal(v.state.hands[1], null);
  assert.equal(await tid('fc-hand-1').locator('.fc-back').count(), v.state.hand_sizes[1], 'face-down cards only');
  assert.equal(await tid('fc-hand-1').locator('[data-card]').count(), 0);
  assert.equal(await tid('fc-draw-pile-list').count(), 0, 'no draw pile list');
  assert.match(await tid('fc-toss').innerText(), /called tails/);
  // A few turns by the advice: the log names our own blind draws, never the bot's.
  for (let k = 0; k < 6; k++) {
    const s = (await view()).state;
    if (s.over || s.current !== v.you) break;
    const hint = (await api('/games/{id}/hint')).body;
    const version = (await view()).version;
    await page.evaluate(async (p) => (await import('/core/game.js')).sendPlay(p), hint.play);
    await pollPage(page, async (x) => { const { app } = await import('/core/state.js'); return app.version !== x; }, version);
  }
  const draws = await page.locator('[data-testid="log"] > li').evaluateAll((els) => els
    .filter((e) => /drew from the draw pile/.test(e.querySelector('[data-testid="log-play"]').textContent))
    .map((e) => ({ seat: Number(e.dataset.seat), text: e.querySelector('[data-testid="log-play"]').textContent })));
  assert.ok(draws.some((d) => d.seat === 1), "the bot drew blind at least once");
  for (const d of draws) {
    if (d.seat === 1) assert.equal(d.text.trim(), 'drew from the draw pile', `the bot's blind draw is not named: ${d.text}`);
  }
});

test('no console errors while playing Five Crowns', () => {
  assert.deepEqual(env.consoleErrors, []);
});
