// Shared set-up for the browser tests (not a test file itself): the real
// server on a free port with a throwaway SQLite store, and Debian's headless
// Chromium through playwright-core. Same recipe as play.test.mjs.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const OUT = path.join(ROOT, 'tests', 'out');
/** Five Crowns saves of other programs (tests/fixtures/fivecrowns/README.md). */
export const FIXTURES = path.join(ROOT, 'tests', 'fixtures', 'fivecrowns');
const BIN = process.env.CROUPIER_BIN || 'build/croupier';
/** The page plays the bots' moves back one at a time (www/core/playback.js)
 *  unless the reader prefers reduced motion. These tests read the table
 *  after each play, so their browsers ask for reduced motion and are shown
 *  the end at once; playback.test.mjs (and screens.test.mjs's playback
 *  stage) open browsers that do not. */
export const REDUCED = 'reduce';

/** Start the server on `listen` with env's store; resolves to its base URL. */
function serve(env, listen, extra = []) {
  env.server = spawn(BIN, ['serve', '--listen', listen, '--store', `sqlite:${env.tmp}/t.db`, '--www', 'www', ...extra],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not say it was listening within 10 s:\n${env.log}`)), 10000);
    let buf = '';
    env.server.stdout.on('data', (d) => {
      buf += d; env.log += d;
      const m = /croupier: listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(buf);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    env.server.stderr.on('data', (d) => { env.log += d; });
    env.server.on('error', (e) => { clearTimeout(timer); reject(new Error(`cannot start ${BIN}: ${e.message}`)); });
    env.server.on('exit', (code, sig) => { clearTimeout(timer); reject(new Error(`server exited (${code ?? sig}) before listening:\n${env.log}`)); });
  });
}

/** `accessLog: true` also has the server write its access log (env.accessLog);
 *  `docs: DIR` serves the rules pages of DIR (croupier serve --docs). */
export async function startAll({ accessLog = false, docs } = {}) {
  const env = { server: null, log: '', baseURL: null, tmp: null, browser: null, context: null, page: null, consoleErrors: [], accessLog: null };
  env.tmp = mkdtempSync(path.join(tmpdir(), 'croupier-browser-'));
  const extra = [];
  if (accessLog) { env.accessLog = path.join(env.tmp, 'access.log'); extra.push('--access-log', env.accessLog); }
  if (docs) extra.push('--docs', docs);
  env.serveExtra = extra;
  env.baseURL = await serve(env, '127.0.0.1:0', extra);
  mkdirSync(OUT, { recursive: true });
  env.browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  env.context = await env.browser.newContext({ baseURL: env.baseURL, viewport: { width: 1280, height: 900 }, acceptDownloads: true, reducedMotion: REDUCED });
  env.page = await env.context.newPage();
  env.page.on('console', (msg) => { if (msg.type() === 'error') env.consoleErrors.push(`console: ${msg.text()}`); });
  env.page.on('pageerror', (err) => env.consoleErrors.push(`page error: ${err.message}`));
  env.page.setDefaultTimeout(10000);
  return env;
}

/** The server goes away (as a crash or a restart would take it). */
export async function stopServer(env) {
  const { server } = env;
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  }
}

/** The server comes back on the same address, with the same store. */
export async function restartServer(env) {
  await stopServer(env);
  const url = await serve(env, env.baseURL.replace(/^http:\/\//, ''), env.serveExtra);
  assert.equal(url, env.baseURL, 'the server is back on its address');
}

export async function stopAll(env) {
  if (!env) return;
  if (env.browser) await env.browser.close();
  await stopServer(env);
  if (env.tmp) rmSync(env.tmp, { recursive: true, force: true });
}

/** Call the server's API from the test (not the page): {status, body}. */
export async function apiCall(env, method, p, { token, body } = {}) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(env.baseURL + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Deal a game from the lobby's form as a person would: `bots` names the
 *  bot of seats 1, 2, ... (the lobby's default where not given). Resolves
 *  once the page shows the game (#game=<id>) and has drawn it. */
export async function dealFromLobby(page, { game, variant, players, bots = [], seed, spectators = false }) {
  const tid = (id) => page.getByTestId(id);
  await page.goto('/');
  await page.waitForSelector('body[data-ready="true"]');
  await tid('new-game-game').selectOption(game);
  if (variant) await tid('new-game-variant').selectOption(variant);
  if (players !== undefined && await tid('new-game-players').isVisible()) await tid('new-game-players').fill(String(players));
  for (let i = 0; i < bots.length; i++) if (bots[i]) await tid(`new-game-bot-${i + 1}`).selectOption(bots[i]);
  if (seed !== undefined) await tid('new-game-seed').fill(String(seed));
  if (spectators) await tid('new-game-spectators').check();
  await tid('new-game-submit').click();
  await page.waitForFunction(() => /#game=/.test(location.hash));
  await settled(page);
}

/** Open game `id` (a path's hash, e.g. `${id}&at=3`) and wait until the page
 *  shows it. On a page already open, `data-ready` is true from the start and
 *  the last game stays drawn until the hash change has loaded this one:
 *  the game's id on the page (render() writes it with the table) is the
 *  sign. */
export async function openGame(page, hash) {
  const id = hash.replace(/&.*$/, '');
  await page.goto(`/#game=${hash}`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction((want) => document.querySelector('[data-testid="game-id"]')?.textContent === want, id);
  await settled(page);
}

/** Call the API from inside the page with this tab's seat token. */
export function apiInPage(page, p, method = 'GET') {
  return page.evaluate(async ([p, method]) => {
    const id = /game=([^&]+)/.exec(location.hash)[1];
    const key = `croupier.token.${decodeURIComponent(id)}`;
    const token = localStorage.getItem(key) || sessionStorage.getItem(key);
    const res = await fetch(p.replace('{id}', id), { method, headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
    return { status: res.status, body: await res.json() };
  }, [p, method]);
}

export const logCount = (page) => page.locator('[data-testid="log"] > li').count();

/** Wait until the page has drawn every update under way: the board is
 *  aria-busy from a play's sending, news from the server or a game's opening
 *  until the table is redrawn (www/core/game.js beginUpdate). The log grows,
 *  and the hash and the game's id change, before the redraw. */
export const settled = (page) => page.waitForFunction(() => {
  const board = document.querySelector('[data-testid="board"]');
  return board && !board.hasAttribute('aria-busy');
});

/** Wait until `fn(arg)`, run in the page, gives a truthy value: an async
 *  function may await there (the page's state: `(await
 *  import('/core/state.js')).app`). Playwright's waitForFunction does not
 *  await a predicate's promise (a promise is truthy: an async predicate
 *  returns at once), and the page's CSP refuses a predicate built from a
 *  string; so each poll is an evaluate of its own, every 25 ms. A poll that
 *  meets a navigation under way is tried again. */
export async function pollPage(page, fn, arg, { timeout = 30000 } = {}) {
  const end = Date.now() + timeout;
  for (;;) {
    let ok = false;
    try { ok = await page.evaluate(fn, arg); } catch (err) {
      if (!/context was destroyed|navigat/i.test(String(err && err.message))) throw err;
    }
    if (ok) return ok;
    if (Date.now() > end) throw new Error(`pollPage: not true within ${timeout} ms: ${fn}`);
    await new Promise((r) => { setTimeout(r, 25); });
  }
}

/** Wait until the log has more than n entries and the table that goes with
 *  them is drawn. */
export async function logGrows(page, n) {
  await page.waitForFunction((k) => document.querySelectorAll('[data-testid="log"] > li').length > k, n);
  await settled(page);
}

/** Another browser (its own storage, as a second person's browser would be):
 *  a fresh context on the same server, with its console errors and every
 *  request URL it sent recorded. */
export async function openContext(env, label, { width = 1280, height = 900, reducedMotion = REDUCED } = {}) {
  const context = await env.browser.newContext({ baseURL: env.baseURL, viewport: { width, height }, reducedMotion });
  const errors = [];
  const urls = [];
  const log = []; // timed requests, for diagnosing a failure
  const refused = []; // the answers of 400 and above: "status METHOD path"
  const watch = (page) => {
    page.setDefaultTimeout(10000);
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`${label} console: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`${label} page error: ${e.message}`));
    page.on('request', (r) => { urls.push(r.url()); log.push(`${Date.now()} ${r.method()} ${r.url()}`); });
    page.on('requestfinished', (r) => log.push(`${Date.now()} done ${r.method()} ${r.url()}`));
    page.on('requestfailed', (r) => log.push(`${Date.now()} failed ${r.method()} ${r.url()} ${r.failure() && r.failure().errorText}`));
    // which request a console's "Failed to load resource" was (Chromium's line names no URL)
    page.on('response', (r) => { if (r.status() >= 400) refused.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`); });
  };
  context.on('page', watch);
  const page = await context.newPage();
  return { context, page, errors, urls, log, refused, label };
}

/** Open the game in a fresh browser context; with a token, the page holds
 *  that seat exactly as after creating the game (localStorage): live.test.mjs,
 *  nchan.test.mjs. Its requests to the game are recorded (time, path, query,
 *  headers). */
export async function openSeatIn(browser, baseURL, id, token, label) {
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 900 }, reducedMotion: REDUCED });
  if (token) {
    await context.addInitScript(([k, t]) => { localStorage.setItem(k, t); }, [`croupier.token.${id}`, token]);
  }
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`${label} console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`${label} page error: ${e.message}`));
  const requests = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith(`/games/${id}`)) {
      requests.push({ t: Date.now(), path: u.pathname, search: u.search, headers: r.headers() });
    }
  });
  await page.goto(`/#game=${encodeURIComponent(id)}`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.getByTestId('hb-hand-0').waitFor();
  return { context, page, errors, requests, label };
}
