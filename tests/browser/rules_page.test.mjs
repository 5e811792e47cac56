// Browser test: the Rules panel links the game's rules in full (GET
// /rules/{game}'s rules_html), and following the link shows the page the
// server renders from the Markdown of --docs (a page written here, so the
// test does not depend on the wording of docs/rules/): headings, a table,
// lists and the cards drawn where the rules show them, under the page's
// strict CSP, the Markdown's raw HTML left out (cmark's safe mode), and
// only the players' part: what the Markdown has above its mark ("The
// players' page ends here"), the rest (notation, routes) linked. The
// Markdown itself is still served as it is (rules_page).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startAll, stopAll, OUT } from './harness.mjs';

const PAGE = [
  '# Five Crowns', '', 'Eleven rounds; the wild card changes every round.', '',
  '## Scoring', '', '| card | points |', '|---|---|', '| `7H` | 7 |', '| `J1` | 50 |', '',
  '## Rulings', '', '- a page written by this test', '- a run: `["5S", "6S", "7S"]`', '',
  '<script>document.title = "raw HTML ran"</script>', '', '<b id="raw">raw HTML</b> and <img src=x onerror="document.title=1">', '',
  '[a link](javascript:alert(1))', '',
  "<!-- The players' page ends here: what follows is for programs. -->", '',
  '## Notation', '', 'A play is sent as `{"draw": "discard"}` to `POST /games/{id}/plays`.', '',
].join('\n');
let env, page, docs;

before(async () => {
  docs = mkdtempSync(path.join(tmpdir(), 'croupier-docs-'));
  mkdirSync(path.join(docs, 'rules'));
  writeFileSync(path.join(docs, 'rules', 'fivecrowns.md'), PAGE);
  env = await startAll({ docs });
  page = env.page;
});
after(async () => {
  assert.deepEqual(env ? env.consoleErrors : [], [], 'no console errors');
  await stopAll(env);
  rmSync(docs, { recursive: true, force: true });
});

test('the Rules panel links the rules page, and the link shows it rendered as a page', async () => {
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
  await page.getByTestId('new-game-game').selectOption('fivecrowns');
  await page.getByTestId('lobby-rules-button').click();
  const link = page.getByTestId('rules-dialog').getByTestId('rules-page');
  await link.waitFor();
  assert.equal(await link.getAttribute('href'), '/docs/rules/fivecrowns.html');
  assert.doesNotMatch(await link.innerText(), /docs\/|\.md|\.html/, 'the link says what it is, not where');
  const [tab] = await Promise.all([env.context.waitForEvent('page'), link.click()]);
  await tab.waitForLoadState('networkidle');
  assert.equal(new URL(tab.url()).pathname, '/docs/rules/fivecrowns.html');
  const main = tab.getByTestId('rules-page-body');
  assert.equal(await main.locator('h1').innerText(), 'Five Crowns');
  // the players' page: what is above the mark (the notation after it is for programs, linked)
  assert.deepEqual(await main.locator('h2').allInnerTexts(), ['Scoring', 'Rulings']);
  assert.doesNotMatch(await main.innerText(), /POST|\/games|"draw"/, 'no notation or route on the players\' page');
  const more = main.getByTestId('rules-page-more').locator('a');
  assert.equal(await more.innerText(), 'the rules in full');
  assert.equal(new URL(await more.evaluate((a) => a.href)).pathname, '/docs/rules/fivecrowns.md');
  assert.deepEqual(await main.locator('table th').allInnerTexts(), ['card', 'points'], 'a GitHub table is a table');
  assert.equal(await main.locator('ul > li').count(), 2);
  // cards drawn where the rules show them: one in each table row, three for the run
  const rows = main.locator('[data-testid="rules-cards"]');
  assert.equal(await rows.count(), 3);
  assert.deepEqual(await rows.nth(2).locator('.card').evaluateAll((cs) => cs.map((c) => c.dataset.card)), ['5S', '6S', '7S']);
  // the Markdown's raw HTML is left out, and a javascript: link is not a link
  assert.equal(await tab.title(), 'Rules: Five Crowns', 'no raw script ran');
  assert.equal(await main.locator('#raw, script, img').count(), 0, 'no raw HTML element');
  assert.equal(await main.locator('a[href^="javascript"]').count(), 0);
  const res = await fetch(`${env.baseURL}/docs/rules/fivecrowns.html`);
  assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(res.headers.get('content-security-policy'), /default-src 'self'.*object-src 'none'.*frame-ancestors 'none'/);
  assert.doesNotMatch(res.headers.get('content-security-policy'), /unsafe-inline/);
  for (const w of [1280, 375]) {
    await tab.setViewportSize({ width: w, height: 812 });
    assert.equal(await tab.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, `no sideways scroll at ${w} px`);
    await tab.screenshot({ path: path.join(OUT, `rules-page-fivecrowns-${w}.png`), fullPage: true });
  }
  await tab.close();
  assert.equal(await page.getByTestId('rules-dialog').isVisible(), true, 'the panel stays open');
  // the Markdown as it is, for programs
  const md = await fetch(`${env.baseURL}/docs/rules/fivecrowns.md`);
  assert.equal(md.headers.get('content-type'), 'text/markdown; charset=utf-8');
  assert.equal(await md.text(), PAGE);
  assert.equal((await fetch(`${env.baseURL}/docs/rules/chess.html`)).status, 404);
});
