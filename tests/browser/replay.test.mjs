// Browser test: replay a game move by move (#game=<id>&at=<n>), the game-over
// summary with "Play again", and the rules panel. Games are dealt and played
// through the API (seeded, bots); what is asserted is what the page shows,
// checked against what the server says (GET /games/{id}?at=N, /plays, /rules).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startAll, stopAll, apiCall, OUT } from './harness.mjs';
import { assertEvery } from '../http/lib/expect.mjs';

let env, page;

before(async () => { env = await startAll(); page = env.page; });
after(async () => {
  assert.deepEqual(env ? env.consoleErrors : [], [], 'no console errors');
  await stopAll(env);
});

const call = (method, p, opts) => apiCall(env, method, p, opts);
const deal = async (body) => { const r = await call('POST', '/games', { body }); assert.equal(r.status, 201, JSON.stringify(r.body)); return r.body; };

const rb = (id) => page.locator(`[data-testid="replay-board"] [data-testid="${id}"]`);
const atShown = (n) => page.waitForFunction((k) => {
  const b = document.querySelector('[data-testid="replay-board"]');
  return b && b.dataset.at === String(k) && b.childElementCount > 0;
}, n);

/** Open a page address with this browser holding `token` for game `id` (none: spectator). */
/** An explanation as the page shows it (card codes as names: 4D -> 4♦). */
const readable = (text) => page.evaluate(async (t) => { const l = await import('/core/log.js'); return l.readable(l.botSays(t)); }, text); // as the page says a bot's line

async function open(hash, id, token) {
  await page.goto('/');
  await page.evaluate(([gid, tok]) => {
    localStorage.clear();
    sessionStorage.clear();
    if (tok) localStorage.setItem(`croupier.token.${gid}`, tok);
  }, [id, token || null]);
  await page.goto(`/${hash}`);
  await page.waitForSelector('body[data-ready="true"]');
}

test('replay a finished Hanabi game: position, steps, explanations, the hands at the end', async () => {
  const g = await deal({ game: 'hanabi', variant: 'standard', seed: 7, players: [{ bot: 'conventions' }, { bot: 'rules' }] });
  assert.equal(g.state.over, true, 'a table of bots plays to the end at once');
  const plays = (await call('GET', `/games/${g.id}/plays`)).body.plays;
  const byN = new Map(plays.map((p) => [p.n, p]));
  const at3 = (await call('GET', `/games/${g.id}?at=3`)).body.state;

  await open(`#game=${g.id}&at=3`, g.id, null);
  await atShown(3);
  assert.ok(await page.getByTestId('replay').isVisible());
  assert.equal(await page.getByTestId('game').isVisible(), false, 'the live table steps aside');
  // The board is the position after play 3, as the server rebuilds it.
  assert.equal(await rb('hb-hints').innerText(), `Hints ${at3.hints}/${at3.max_hints}`);
  assert.equal(await rb('hb-deck').innerText(), `Deck ${at3.deck} cards`);
  for (let p = 0; p < 2; p++) {
    const shown = await page.locator(`[data-testid="replay-board"] [data-testid="hb-hand-${p}"] .card`).evaluateAll((els) => els.map((e) => e.dataset.card));
    assert.deepEqual(shown, at3.hands[p].map((x) => x.card), `player ${p}'s hand after play 3`);
  }
  assert.equal(await page.getByTestId('replay-explanation').innerText(), await readable(byN.get(3).explanation), 'the move\'s explanation');
  assert.match(await page.getByTestId('replay-position').innerText(), new RegExp(`of ${plays.length}`));

  // Next / previous with the buttons and the arrow keys; the address follows.
  await page.getByTestId('replay-next').click();
  await atShown(4);
  assert.equal(await page.getByTestId('replay-explanation').innerText(), await readable(byN.get(4).explanation));
  assert.match(await page.evaluate(() => location.hash), /&at=4$/);
  await page.keyboard.press('ArrowLeft');
  await atShown(3);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await atShown(5);
  assert.equal(await page.getByTestId('replay-explanation').innerText(), await readable(byN.get(5).explanation));
  await page.getByTestId('replay-prev').click();
  await atShown(4);
  const at4 = (await call('GET', `/games/${g.id}?at=4`)).body.state;
  assert.equal(await rb('hb-score').innerText(), `Score ${at4.score}/${at4.max_score}`);
  await page.getByTestId('replay-first').click();
  await atShown(-1);
  assert.match(await page.getByTestId('replay-move').innerText(), /deal/i);
  assert.equal(await page.getByTestId('replay-prev').isDisabled(), true);
  await page.screenshot({ path: path.join(OUT, 'replay-hanabi-1280.png'), fullPage: true });

  // The end: what each player held, from the finished game's view.
  const last = plays[plays.length - 1].n;
  await page.getByTestId('replay-last').click();
  await atShown(last);
  assert.equal(await page.getByTestId('replay-next').isDisabled(), true);
  const end = g.state;
  for (let p = 0; p < 2; p++) {
    const held = (await page.getByTestId('replay-end').getByTestId(`final-hand-${p}`).locator('.final-card').allInnerTexts()).map((x) => x.trim());
    assert.deepEqual(held, end.hands[p].map((x) => x.card), `what player ${p} held at the end`);
  }
  // Clicking a card of the replayed table does nothing (read-only).
  const said = await page.getByTestId('message').innerText();
  await rb('hb-card-0-0').click({ force: true });
  await page.waitForTimeout(100);
  assert.equal(await page.getByTestId('message').innerText(), said, 'no message: the click did nothing');
  assert.equal(await rb('hb-card-0-0').getAttribute('aria-pressed'), 'false', 'nothing selected');

  await page.setViewportSize({ width: 375, height: 800 });
  assert.ok(await page.getByTestId('replay').evaluate((el) => el.getBoundingClientRect().right <= 375), 'the replay fits a phone');
  await page.screenshot({ path: path.join(OUT, 'replay-hanabi-375.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });

  // Back to the game: the summary of a finished game offers the replay again.
  await page.getByTestId('replay-exit').click();
  await page.getByTestId('summary').waitFor();
  assert.equal(await page.getByTestId('replay').isVisible(), false);
  assert.match(await page.getByTestId('summary-result').innerText(), new RegExp(`Score ${end.score} of ${end.max_score}`));
  await page.getByTestId('summary-replay').click();
  await atShown(-1);
});

test('every table replays through its own renderer', async () => {
  const tables = [
    { game: 'comp10001bo', players: [{ bot: 'planner' }, { bot: 'standard' }, { bot: 'random' }, { bot: 'planner' }], testid: 'player-0' },
    { game: 'phazed', players: [{ bot: 'planner' }, { bot: 'random' }] },
    { game: 'fivecrowns', players: [{ bot: 'strategy' }, { bot: 'greedy' }] },
  ];
  for (const t of tables) {
    const g = await deal({ game: t.game, variant: 'standard', seed: 4, players: t.players });
    const plays = (await call('GET', `/games/${g.id}/plays`)).body.plays;
    await open(`#game=${g.id}&at=${plays[5].n}`, g.id, null);
    await atShown(plays[5].n);
    assert.equal(await page.getByTestId('replay-board').getAttribute('data-game'), t.game);
    assert.ok((await page.getByTestId('replay-board').innerText()).length > 20, `${t.game}: the table is drawn`);
    assert.equal(await page.getByTestId('replay-explanation').innerText(), await readable(plays[5].explanation), `${t.game}: the bot's explanation`);
    await page.keyboard.press('ArrowRight');
    await atShown(plays[6].n);
    if (t.game === 'phazed') {
      // the finished game's last position shows every hand, face up
      const last = plays[plays.length - 1].n;
      await page.getByTestId('replay-last').click();
      await atShown(last);
      const end = (await call('GET', `/games/${g.id}?at=${last}`)).body.state;
      assert.ok(Array.isArray(end.hands), 'the server shows every hand of a finished game');
      const held = await page.locator('[data-testid="replay-board"] [data-testid="pz-hand-1"] .card').evaluateAll((els) => els.map((e) => e.dataset.card));
      assert.deepEqual(held, end.hands[1], "the other player's hand at the end, as the server shows it");
      await page.screenshot({ path: path.join(OUT, 'replay-phazed-1280.png'), fullPage: true });
    }
  }
});

test('a person replaying a running game sees only what they could see then', async () => {
  const g = await deal({ game: 'hanabi', variant: 'standard', seed: 11, players: [{ name: 'Ann' }, { bot: 'rules' }] });
  const token = g.seats[0].token;
  // Ann plays twice (the bot answers each time).
  for (let i = 0; i < 2; i++) {
    const v = (await call('GET', `/games/${g.id}`, { token })).body;
    const legal = (await call('GET', `/games/${g.id}/legal`, { token })).body.plays;
    const hint = legal.find((p) => p.type === 'hint') || legal[0];
    const r = await call('POST', `/games/${g.id}/plays`, { token, body: { play: hint } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(v.state.over, false);
  }
  const plays = (await call('GET', `/games/${g.id}/plays`, { token })).body.plays;
  const n = plays[1].n;
  const server = (await call('GET', `/games/${g.id}?at=${n}`, { token })).body;
  assert.equal(server.you, 0);
  assertEvery(server.state.hands[0], (x) => x.card === '??', 'the server hides Ann\'s own cards');

  await open(`#game=${g.id}&at=${n}`, g.id, token);
  await atShown(n);
  for (let p = 0; p < 2; p++) {
    const shown = await page.locator(`[data-testid="replay-board"] [data-testid="hb-hand-${p}"] .card`).evaluateAll((els) => els.map((e) => e.dataset.card));
    assert.deepEqual(shown, server.state.hands[p].map((x) => x.card), `player ${p}'s cards as Ann saw them`);
  }
  // Nothing of Ann's own hand in the whole page at that position.
  const own = await page.locator('[data-testid="replay-board"] [data-testid="hb-hand-0"] .card').evaluateAll((els) => els.map((e) => e.dataset.card));
  assertEvery(own, (c) => c === '??', 'own cards hidden in the replay');
  // The link carries no token.
  assert.doesNotMatch(await page.evaluate(() => location.href), /token/);
  // The live table is still playable after leaving the replay.
  await page.getByTestId('replay-exit').click();
  await page.waitForFunction(() => !document.querySelector('[data-testid="hint-button"]').disabled);
  assert.equal(await page.getByTestId('replay-board').innerHTML(), '', 'the replayed table is gone');
  // The game view's Replay button opens the replay at the deal.
  await page.getByTestId('replay-button').click();
  await atShown(-1);
  assert.match(await page.evaluate(() => location.hash), /&at=-1$/);
  assert.equal(await page.getByTestId('hint-button').isVisible(), false);
});

test('game over: summary, per-round table, play again with the same seats', async () => {
  const BOTS = ['strategy', 'greedy', 'strategy', 'greedy', 'strategy'];
  const g = await deal({ game: 'fivecrowns', variant: 'standard', seed: 5, options: { open: false }, players: BOTS.map((bot) => ({ bot })) });
  assert.equal(g.state.over, true);
  await open(`#game=${g.id}`, g.id, null);
  await page.getByTestId('summary').waitFor();
  const s = g.state;
  // the result said once: in the summary, not again in the status line or the message bar
  const result = await page.getByTestId('summary-result').innerText();
  assert.match(result, new RegExp(`^Game over: ${g.seats[s.winner].name}( \\d)? won`)); // the page numbers bots of one name
  const said = await page.evaluate((t) => document.body.innerText.split(t).length - 1, result);
  assert.equal(said, 1, 'the result sentence is on the page once');
  assert.equal(await page.getByTestId('status').innerText(), 'Game over');
  assert.equal(await page.locator('.summary tr.winner').count(), 1, "the winner's row marked");
  for (let p = 0; p < BOTS.length; p++) {
    const row = await page.getByTestId(`summary-row-${p}`).innerText();
    assert.match(row, new RegExp(`\\b${s.scores[p]}\\b`), `player ${p}'s score`);
  }
  assert.equal(await page.locator('[data-testid="summary-rounds"] tbody tr').count(), s.rounds.length, 'one row per round');
  assert.doesNotMatch(await page.getByTestId('summary').innerText(), /\b(null|undefined)\b/);
  const r1 = await page.locator('[data-testid="summary-rounds"] tbody tr').first().innerText();
  assert.match(r1, new RegExp(`${s.rounds[0].points[0]}\\s+${s.rounds[0].points[1]}`));
  await page.screenshot({ path: path.join(OUT, 'summary-fivecrowns-1280.png'), fullPage: true });
  await page.setViewportSize({ width: 375, height: 800 });
  assert.ok(await page.getByTestId('summary').evaluate((el) => el.scrollWidth <= el.clientWidth + 1 && el.getBoundingClientRect().right <= 375), 'the summary fits a phone');
  await page.screenshot({ path: path.join(OUT, 'summary-fivecrowns-375.png'), fullPage: true });
  // every column of its tables too, five players and the rounds' notes (no sideways scrolling inside)
  const hidden = await page.locator('.summary .summary-scroll').evaluateAll((els) => els.map((e) => e.scrollWidth - e.clientWidth));
  assert.ok(hidden.length >= 2 && hidden.every((d) => d <= 1), `the summary's tables show every column at 375 px (hidden: ${hidden} px)`);
  await page.setViewportSize({ width: 1280, height: 900 });

  await page.getByTestId('summary-play-again').click();
  await page.waitForFunction((old) => /#game=/.test(location.hash) && !location.hash.includes(old), g.id);
  const id2 = await page.evaluate(() => decodeURIComponent(/game=([^&]+)/.exec(location.hash)[1]));
  const g2 = (await call('GET', `/games/${id2}`)).body;
  assert.equal(g2.game, 'fivecrowns');
  assert.equal(g2.variant, 'standard');
  assert.deepEqual(g2.seats.map((x) => x.bot), BOTS, 'the same bots in the same seats');
  assert.equal(g2.state.open, false, 'the same options');
});

test('play again at a table of people: same names, new tokens, invite links', async () => {
  const g = await deal({ game: 'hanabi', variant: 'rainbow', seed: 3, players: [{ name: 'Ann' }, { name: 'Bob' }, { bot: 'rules' }] });
  const [ann, bob] = [g.seats[0].token, g.seats[1].token];
  // Both people resign: the bots finish the game for them.
  assert.equal((await call('POST', `/games/${g.id}/resign`, { token: bob })).status, 200);
  assert.equal((await call('POST', `/games/${g.id}/resign`, { token: ann })).status, 200);
  const end = (await call('GET', `/games/${g.id}`, { token: ann })).body;
  assert.equal(end.state.over, true);

  await open(`#game=${g.id}`, g.id, ann);
  await page.getByTestId('summary').waitFor();
  await page.getByTestId('final-hands').waitFor();
  await page.screenshot({ path: path.join(OUT, 'summary-hanabi-1280.png'), fullPage: true });
  await page.getByTestId('summary-play-again').click();
  await page.waitForFunction((old) => /#game=/.test(location.hash) && !location.hash.includes(old), g.id);
  const id2 = await page.evaluate(() => decodeURIComponent(/game=([^&]+)/.exec(location.hash)[1]));
  const mine = await page.evaluate((i) => localStorage.getItem(`croupier.token.${i}`), id2);
  assert.ok(mine && mine !== ann, 'a new token for Ann, kept by this browser');
  const g2 = (await call('GET', `/games/${id2}`, { token: mine })).body;
  assert.equal(g2.you, 0);
  assert.equal(g2.variant, 'rainbow');
  assert.deepEqual(g2.seats.map((x) => [x.name, x.bot || null]), [['Ann', null], ['Bob', null], ['rules bot', 'rules']]);
  // Bob's new seat: an invite link with its invite in the fragment.
  await page.getByTestId('invite-link-1').waitFor();
  const link = await page.getByTestId('invite-link-1').inputValue();
  const m = /#game=([^&]+)&seat=1&invite=([^&]+)$/.exec(link);
  assert.ok(m && decodeURIComponent(m[1]) === id2, link);
  const claimed = await fetch(`${env.baseURL}/games/${id2}/seats/1/claim`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ invite: decodeURIComponent(m[2]) }),
  });
  assert.equal(claimed.status, 200);
  assert.equal((await call('GET', `/games/${id2}`, { token: (await claimed.json()).token })).body.you, 1, 'the link seats Bob');
});

test('the rules panel, in the lobby and at the table, drawn from GET /rules/{game}', async () => {
  const doc = (await call('GET', '/rules/fivecrowns')).body;
  await page.goto('/');
  await page.evaluate(() => { localStorage.clear(); sessionStorage.clear(); });
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
  await page.getByTestId('new-game-game').selectOption('fivecrowns');
  await page.getByTestId('lobby-rules-button').click();
  const dialog = page.getByTestId('rules-dialog');
  await dialog.getByTestId('rules-turn').waitFor();
  assert.equal(await page.getByTestId('rules-title').innerText(), `Rules: ${doc.title}`);
  const items = await dialog.locator('[data-testid="rules-turn"] li').allInnerTexts();
  assert.deepEqual(items, doc.guide.turn, 'every line of the turn, in players\' words, in order');
  assert.doesNotMatch(await page.getByTestId('rules-body').innerText(), /\b(null|undefined)\b|\[object/);
  for (const b of doc.guide.bots) assert.equal(await dialog.getByTestId(`rules-bot-${b.name}`).innerText(), b.name);
  await page.screenshot({ path: path.join(OUT, 'rules-fivecrowns-1280.png') });
  await page.setViewportSize({ width: 375, height: 800 });
  await page.screenshot({ path: path.join(OUT, 'rules-fivecrowns-375.png') });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.keyboard.press('Escape');
  assert.equal(await dialog.isVisible(), false, 'Escape closes the panel');

  // At a Hanabi table: the table's Rules button, with the bots' conventions.
  const hb = (await call('GET', '/rules/hanabi')).body;
  const g = await deal({ game: 'hanabi', variant: 'standard', seed: 2, players: [{ bot: 'rules' }, { bot: 'rules' }] });
  await page.goto(`/#game=${g.id}`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.getByTestId('rules-button').click();
  await dialog.getByTestId('rules-conventions').waitFor();
  assert.equal(await page.getByTestId('rules-title').innerText(), 'Rules: Hanabi');
  assert.equal(await dialog.locator('[data-testid="rules-conventions"] li').count(), hb.conventions.rules.length);
  await page.getByTestId('rules-close').click();
  assert.equal(await dialog.isVisible(), false);
});
