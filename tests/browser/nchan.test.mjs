// Browser test: the page, unchanged, through the nginx + nchan profile
// (deploy/nginx-nchan.conf, issue 45 item 2): two people and a spectator at
// one Hanabi table, each in their own browser context, the page and the API
// served by `croupier fcgi` behind nginx and the event streams by nchan. A
// move made in one page shows in the others within 1 s, with one stream
// each and no polling, as against `croupier serve` alone (live.test.mjs).
// Skipped, saying why, where nginx's nchan module is not installed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { openSeatIn, apiCall } from './harness.mjs';
import { nchanMissing, startNchan } from '../http/lib/nchan.mjs';

let n;
let browser;
before(async () => {
  if (nchanMissing) return;
  n = await startNchan();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
after(async () => {
  if (browser) await browser.close();
  if (n) await n.stop();
});

const openSeat = (id, token, label) => openSeatIn(browser, n.base, id, token, label);

const status = (p) => p.page.getByTestId('status').innerText();
const streams = (p) => p.requests.filter((r) => r.path.endsWith('/events'));

async function waitStatusChange(p, was, ms = 1000) {
  const t0 = Date.now();
  await p.page.waitForFunction((b) => document.querySelector('[data-testid="status"]').textContent !== b, was, { timeout: ms });
  return Date.now() - t0;
}

test('the page follows a table live through nchan, unchanged', { skip: nchanMissing || false }, async () => {
  const made = await apiCall({ baseURL: n.base }, 'POST', '/games',
    { body: { game: 'hanabi', seed: 42, players: [{ name: 'Ada' }, { name: 'Bob' }, { bot: 'rules' }] } });
  assert.equal(made.status, 201);
  const { id, seats } = made.body;
  const tokens = Object.fromEntries(seats.filter((s) => s.token).map((s) => [s.seat, s.token]));
  const ada = await openSeat(id, tokens[0], 'ada');
  const bob = await openSeat(id, tokens[1], 'bob');
  const spy = await openSeat(id, null, 'spectator');
  assert.match(await status(ada), /Bob to play/);
  assert.match(await status(bob), /Your turn/);
  await new Promise((r) => setTimeout(r, 1000));

  const adaStatus = await status(ada);
  const spyStatus = await status(spy);
  await bob.page.getByTestId('hb-card-1-0').click();
  await bob.page.getByTestId('hb-play').click();
  assert.ok(await waitStatusChange(ada, adaStatus) < 1000, 'Ada sees the move within 1 s');
  assert.ok(await waitStatusChange(spy, spyStatus) < 1000, 'the spectator too');
  await ada.page.waitForFunction(() => /Your turn/.test(document.querySelector('[data-testid="status"]').textContent), null, { timeout: 2000 });

  const bobStatus = await status(bob);
  await ada.page.getByTestId('hb-card-0-4').click();
  await ada.page.getByTestId('hb-play').click();
  assert.ok(await waitStatusChange(bob, bobStatus) < 1000, 'Bob sees the answer within 1 s');

  for (const p of [ada, bob, spy]) {
    assert.equal(streams(p).length, 1, `${p.label}: one stream, never broken`);
  }
  const spyFaces = await spy.page.locator('[data-testid^="hb-hand-"] .card').evaluateAll((els) => els.map((e) => e.dataset.card));
  assert.ok(spyFaces.length === 15 && spyFaces.every((c) => c === '??'), 'the spectator still sees no card');
  assert.deepEqual([...ada.errors, ...bob.errors, ...spy.errors], []);
  for (const p of [ada, bob, spy]) await p.context.close();
  await new Promise((r) => setTimeout(r, 300)); // nginx logs a stream when it ends
  const log = readFileSync(n.accessLogs[0], 'utf8');
  const served = log.split('\n').filter((l) => l.includes(`/games/${id}/events`));
  assert.ok(served.length >= 3 && served.every((l) => l.includes(`GET /.croupier-nchan/games/${id}/events`)),
    `the three streams were nchan's: ${served.join('\n')}`);
  for (const tok of Object.values(tokens)) assert.ok(!log.includes(tok), 'no token in the access log');
});
