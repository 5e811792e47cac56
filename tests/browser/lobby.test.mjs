// Browser tests of the lobby and of the page's words: the Players
// field hides where the table size is fixed, table sizes are bounded by
// GET /rules before the API is asked, "New game" stays readable on hover, the
// default name never gives "You's", and players are numbered from 0 as in the
// explanations. Also checks how www/ is built: an entry module and small ES
// modules, each served as JavaScript under the page's CSP.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startAll, stopAll, settled, ROOT, OUT } from './harness.mjs';

let env, page;
const tid = (id) => page.getByTestId(id);

before(async () => { env = await startAll(); page = env.page; });
after(async () => { await stopAll(env); });

async function openLobby() {
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
}

/** Every .js file under www/, relative to www/. */
function wwwScripts(dir = path.join(ROOT, 'www'), rel = '') {
  return readdirSync(dir).flatMap((f) => {
    const full = path.join(dir, f);
    if (statSync(full).isDirectory()) return wwwScripts(full, `${rel}${f}/`);
    return f.endsWith('.js') ? [`${rel}${f}`] : [];
  });
}

test('www/ is an entry module and small ES modules, one per game table, served as JavaScript', async () => {
  const html = readFileSync(path.join(ROOT, 'www', 'index.html'), 'utf8');
  assert.match(html, /<script type="module" src="\/app\.js"><\/script>/);
  const files = wwwScripts();
  for (const game of ['comp10001bo', 'hanabi', 'phazed', 'fivecrowns']) assert.ok(files.includes(`tables/${game}.js`), `a module for ${game}`);
  const registry = readFileSync(path.join(ROOT, 'www', 'tables', 'registry.js'), 'utf8');
  for (const game of ['comp10001bo', 'hanabi', 'phazed', 'fivecrowns']) assert.match(registry, new RegExp(`\\b${game}:`), `${game} is in the registry`);
  for (const f of files) {
    const lines = readFileSync(path.join(ROOT, 'www', f), 'utf8').split('\n').length;
    assert.ok(lines < 500, `www/${f} has ${lines} lines (keep each module well under 600)`);
    const res = await fetch(`${env.baseURL}/${f}`);
    assert.equal(res.status, 200, `GET /${f}`);
    assert.match(res.headers.get('content-type'), /^text\/javascript/, `/${f} is served as JavaScript`);
    assert.match(res.headers.get('content-security-policy') || '', /default-src 'self'/);
  }
});

test('the Players field is hidden where the table size is fixed (Comp10001-Bo)', async () => {
  await openLobby();
  await tid('new-game-game').selectOption('comp10001bo');
  assert.equal(await tid('new-game-players').isVisible(), false, 'no Players field for a 4-player-only game');
  assert.equal(await page.locator('#ng-players-field').evaluate((e) => getComputedStyle(e).display), 'none');
  assert.equal(await page.locator('[data-testid^="new-game-bot-"]').count(), 3, 'three bot seats');
  await tid('new-game-game').selectOption('hanabi');
  assert.equal(await tid('new-game-players').isVisible(), true, 'Hanabi asks how many play');
  assert.equal((await tid('new-game-players-range').innerText()).trim(), '(2 to 5)');
});

test('table sizes outside GET /rules bounds are refused in the lobby, before the API', async () => {
  await openLobby();
  const { games } = await (await fetch(`${env.baseURL}/rules`)).json();
  const hb = games.find((g) => g.game === 'hanabi');
  let posts = 0;
  page.on('request', (r) => { if (r.method() === 'POST' && new URL(r.url()).pathname === '/games') posts++; });
  await tid('new-game-game').selectOption('hanabi');
  for (const bad of [String(hb.players.max + 4), String(hb.players.min - 1), '0']) {
    await tid('new-game-players').fill(bad);
    const seats = await page.locator('[data-testid^="new-game-bot-"]').count();
    assert.ok(seats >= hb.players.min - 1 && seats <= hb.players.max - 1, `${seats} bot seats for "${bad}" players`);
    await tid('new-game-submit').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="message"]').className.includes('message-error'));
    assert.match(await tid('message').innerText(), new RegExp(`${hb.players.min} to ${hb.players.max} players`));
    assert.equal(await page.evaluate(() => location.hash), '', 'no game was created');
    await page.evaluate(() => { document.querySelector('[data-testid="message"]').className = 'message'; });
  }
  assert.equal(posts, 0, 'the API was never asked');
  // In range: the seats are numbered as the explanations number players, from 1 (you are player 1).
  await tid('new-game-players').fill(String(hb.players.max));
  assert.equal(await page.locator('[data-testid^="new-game-bot-"]').count(), hb.players.max - 1);
  const labels = await page.locator('#ng-bot-list label').allInnerTexts();
  assert.deepEqual(labels, Array.from({ length: hb.players.max - 1 }, (_, i) => `Player ${i + 2}`));
});

test('"New game" stays readable on hover, and the default name never gives "You\'s"', async () => {
  await openLobby();
  await tid('new-game-game').selectOption('comp10001bo');
  await tid('new-game-name').fill('You');
  await tid('new-game-seed').fill('7');
  await tid('new-game-submit').click();
  await page.waitForFunction(() => /#game=/.test(location.hash));
  await settled(page); // the table drawn, so that its text is read below
  const toggle = tid('new-game-toggle');
  await toggle.hover();
  const ratio = await toggle.evaluate((el) => {
    const rgba = (s) => { const m = s.match(/[\d.]+/g).map(Number); return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 }; };
    const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1 });
    const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
    const bg = over(rgba(getComputedStyle(el).backgroundColor), rgba(getComputedStyle(el.parentElement).backgroundColor));
    const fg = over(rgba(getComputedStyle(el).color), bg);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
  });
  assert.ok(ratio >= 4.5, `hovered "New game" contrast ${ratio.toFixed(2)}:1 is at least 4.5:1`);
  await page.screenshot({ path: path.join(OUT, 'lobby-new-game-hover.png') });
  // The log's words for a play onto this tab's discard pile, by another player.
  const words = await page.evaluate(async () => {
    const { BO } = await import('/tables/comp10001bo.js');
    return [BO.describePlay([0, '2H', [1, [0, 1]]], 2), BO.describePlay([1, ['3S', [0, 2]], [0, 0]], 1)];
  });
  assert.match(words[0], /to your discard pile/);
  assert.match(words[1], /from your discard pile/);
  assert.doesNotMatch(`${words.join(' ')} ${await page.locator('body').innerText()}`, /You's/);
});

test('no console errors in the lobby tests', () => {
  assert.deepEqual(env.consoleErrors, []);
});
