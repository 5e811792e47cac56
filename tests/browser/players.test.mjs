// Browser tests of rules for players: the lobby says what
// each game is, what its variants change and which bots are strongest (and
// why one cannot sit beside people), all from GET /rules' guide; the Rules
// panel shows that and no notation, route or play shape; Deal is on the
// first screen at 1280x800 and 375x812 for every game and table size; the
// name field starts empty and a table with friends is not dealt without a
// name (no request sent); the tab's title says when it is your turn.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startAll, stopAll, settled, apiCall, OUT } from './harness.mjs';

let env, page, games;
const tid = (id) => page.getByTestId(id);

before(async () => {
  env = await startAll();
  page = env.page;
  games = (await apiCall(env, 'GET', '/rules')).body.games;
});
after(async () => {
  assert.deepEqual(env ? env.consoleErrors : [], [], 'no console errors');
  await stopAll(env);
});

async function freshLobby() {
  await page.goto('/');
  await page.evaluate(() => { localStorage.clear(); sessionStorage.clear(); });
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
}

// What a player must never read: routes, JSON, play shapes, reason codes.
const API_WORDS = [/\b(GET|POST|PUT|DELETE) \//, /\/games\b/, /[[\]{}]/, /\bnull\b/, /\breason \d/, /\bplay_type\b/,
  /\blimit and offset\b/, /"[a-z_]+":/, /\.md\b/];

function noApi(text, where) {
  for (const re of API_WORDS) {
    const m = re.exec(text);
    if (m) assert.fail(`${where}: "${m[0]}" in what a player reads: ${text.split('\n').find((l) => re.test(l))}`);
  }
}

test('the lobby says what each game is, what the variant changes and the bots strongest first', async () => {
  await freshLobby();
  assert.equal(await tid('new-game-name').inputValue(), '', 'the name field starts empty');
  for (const g of games) {
    await tid('new-game-game').selectOption(g.game);
    assert.ok(g.guide, `${g.game} has a guide`);
    assert.equal(await tid('new-game-about').innerText(), `${g.guide.summary} ${g.guide.length}`);
    for (const v of g.guide.variants) {
      await tid('new-game-variant').selectOption(v.name);
      assert.equal(await tid('new-game-variant-about').innerText(), v.text, `${g.game} ${v.name}: what it changes`);
    }
    assert.deepEqual(g.guide.variants.map((v) => v.name), g.variants, 'every variant, in order');
    assert.deepEqual([...g.guide.bots.map((b) => b.name)].sort(), [...g.bots].sort(), 'every bot once');
    await tid('new-game-bots-about').locator('summary').click();
    const names = await page.locator('[data-testid^="lobby-bot-"]').allInnerTexts();
    assert.deepEqual(names, g.guide.bots.map((b) => b.name), `${g.game}: the bots, strongest first`);
    const about = await tid('new-game-bots-about').innerText();
    for (const b of g.guide.bots) assert.ok(about.includes(b.text), `${g.game}: ${b.name}'s sentence`);
    noApi(await page.locator('#setup').innerText(), `the lobby (${g.game})`);
    await tid('new-game-bots-about').locator('summary').click();
  }
  // Hanabi's info cannot sit beside a person: its seat option says so, the list says why.
  const hb = games.find((g) => g.game === 'hanabi');
  const info = hb.guide.bots.find((b) => b.name === 'info');
  assert.equal(info.with_people, false);
  assert.ok(info.alone && info.alone.length > 20, 'why info is unavailable');
  await tid('new-game-game').selectOption('hanabi');
  const opt = tid('new-game-bot-1').locator('option[value="info"]');
  assert.equal(await opt.isDisabled(), true);
  assert.equal(await opt.innerText(), 'info (not beside people)');
  await tid('new-game-bots-about').locator('summary').click();
  assert.ok((await tid('new-game-bots-about').innerText()).includes(info.alone), 'the reason is in the list');
});

test('the Rules panel speaks to players: the guide, the bots and the keys, no notation', async () => {
  await freshLobby();
  for (const g of games) {
    const doc = (await apiCall(env, 'GET', `/rules/${g.game}`)).body;
    await tid('new-game-game').selectOption(g.game);
    await tid('lobby-rules-button').click();
    const dialog = tid('rules-dialog');
    await dialog.getByTestId('rules-bots').waitFor();
    assert.equal(await tid('rules-summary').innerText(), doc.guide.summary);
    assert.deepEqual(await dialog.locator('[data-testid="rules-turn"] li').allInnerTexts(), doc.guide.turn);
    assert.deepEqual(await dialog.locator('[data-testid="rules-winning"] li').allInnerTexts(), doc.guide.winning);
    assert.deepEqual(await dialog.locator('[data-testid^="rules-bot-"]').allInnerTexts(), doc.guide.bots.map((b) => b.name));
    const body = await tid('rules-body').innerText();
    noApi(body, `the Rules panel (${g.game})`);
    assert.ok(!body.includes(JSON.stringify(doc.plays.examples[0].play)), 'no play shape');
    for (const w of [1280, 375]) {
      await page.setViewportSize({ width: w, height: 812 });
      await page.screenshot({ path: path.join(OUT, `players-rules-${g.game}-${w}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.keyboard.press('Escape');
  }
});

test('Deal is on the first screen at 1280x800 and 375x812, for every game at its largest table', async () => {
  for (const [w, hgt] of [[1280, 800], [375, 812]]) {
    await page.setViewportSize({ width: w, height: hgt });
    await freshLobby();
    for (const g of games) {
      await tid('new-game-game').selectOption(g.game);
      if (await tid('new-game-players').isVisible()) await tid('new-game-players').fill(String(g.players.max));
      await tid('new-game-bots-about').locator('summary').click(); // the longest the form gets
      const r = await tid('new-game-submit').evaluate((b) => { const x = b.getBoundingClientRect(); return { top: x.top, bottom: x.bottom, left: x.left, right: x.right }; });
      assert.ok(r.top >= 0 && r.bottom <= hgt && r.left >= 0 && r.right <= w, `${g.game} at ${w}x${hgt}: Deal at ${JSON.stringify(r)}`);
      const hit = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.dataset.testid, { x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2 });
      assert.equal(hit, 'new-game-submit', `${g.game} at ${w}x${hgt}: nothing covers Deal`);
      await tid('new-game-bots-about').locator('summary').click();
    }
    await page.screenshot({ path: path.join(OUT, `players-lobby-${w}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('a table with friends needs a name: a clear message and no request', async () => {
  await freshLobby();
  await tid('new-game-game').selectOption('hanabi');
  await tid('new-game-bot-1').selectOption('@invite');
  const posts = [];
  const seen = (req) => { if (req.method() === 'POST') posts.push(req.url()); };
  page.on('request', seen);
  await tid('new-game-submit').click();
  await page.waitForFunction(() => /name/.test(document.querySelector('[data-testid="message"]').textContent));
  assert.match(await tid('message').innerText(), /your name/i);
  assert.equal(await page.evaluate(() => document.activeElement.dataset.testid), 'new-game-name', 'the name field is focused');
  assert.deepEqual(posts, [], 'no request was sent');
  assert.doesNotMatch(await page.evaluate(() => location.hash), /game=/);
  await tid('new-game-name').fill('Ada');
  await tid('new-game-submit').click();
  await page.waitForFunction(() => /#game=/.test(location.hash));
  page.off('request', seen);
  assert.equal(posts.filter((u) => u.endsWith('/games')).length, 1, 'with a name, it is dealt');
  const id = await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('game'));
  const seats = (await apiCall(env, 'GET', `/games/${id}`)).body.seats;
  assert.equal(seats[0].name, 'Ada');
});

test('the tab title says when it is your turn', async () => {
  await freshLobby();
  const lobbyTitle = await page.title();
  assert.doesNotMatch(lobbyTitle, /your turn/i);
  await tid('new-game-game').selectOption('comp10001bo');
  await tid('new-game-seed').fill('3');
  await tid('new-game-submit').click();
  await page.waitForFunction(() => /#game=/.test(location.hash));
  await settled(page);
  assert.equal(await page.title(), 'Your turn · Comp10001-Bo · Croupier');
  // a game of bots only, over: no turn of yours
  const done = (await apiCall(env, 'POST', '/games', { body: { game: 'hanabi', seed: 4, players: [{ bot: 'rules' }, { bot: 'rules' }] } })).body;
  await page.goto(`/#game=${done.id}`);
  await page.waitForSelector('body[data-ready="true"]');
  await settled(page);
  await page.waitForFunction(() => /Game over/.test(document.title));
  assert.equal(await page.title(), 'Game over · Hanabi · Croupier');
});
