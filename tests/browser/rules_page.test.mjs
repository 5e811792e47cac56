// Browser test: the Rules panel links the game's rules in words (GET
// /rules/{game}'s rules_page), and following the link shows the page the
// server serves from --docs (a page written here, so the test does not
// depend on the wording of docs/rules/).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startAll, stopAll } from './harness.mjs';

const PAGE = '# Five Crowns\n\nEleven rounds; the wild card changes every round.\n\n## Rulings\n\n- a page written by this test\n';
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

test('the Rules panel links the rules page, and the link shows it', async () => {
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
  await page.getByTestId('new-game-game').selectOption('fivecrowns');
  await page.getByTestId('lobby-rules-button').click();
  const link = page.getByTestId('rules-dialog').getByTestId('rules-page');
  await link.waitFor();
  assert.equal(await link.getAttribute('href'), '/docs/rules/fivecrowns.md');
  assert.equal(await link.innerText(), 'docs/rules/fivecrowns.md');
  const [tab] = await Promise.all([env.context.waitForEvent('page'), link.click()]);
  await tab.waitForLoadState();
  assert.equal(new URL(tab.url()).pathname, '/docs/rules/fivecrowns.md');
  assert.equal((await tab.locator('body').innerText()).trimEnd(), PAGE.trimEnd(), 'the browser shows the page as text');
  await tab.close();
  assert.equal(await page.getByTestId('rules-dialog').isVisible(), true, 'the panel stays open');
});
