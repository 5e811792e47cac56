// Browser-facing hardening in a real browser (Debian's Chromium):
//   - the page works under its Content-Security-Policy (no violation), and
//     sends its seat token only in the Authorization header, never in a URL;
//   - another site cannot frame it;
//   - CORS: with `serve --cors ORIGIN`, a page of ORIGIN calls the API and
//     reads ETag/Location; a page of any other origin cannot, and neither its
//     fetches nor its forms (text/plain, urlencoded) create a game.
// Two small Node servers play the other sites (two origins: 127.0.0.1 on
// two ports).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT } from './harness.mjs';

const BIN = process.env.CROUPIER_BIN || 'build/croupier';
let server, serverLog = '', base, tmp, browser, context;
let allowed, other; // {server, origin}
const CREATE = { game: 'hanabi', seed: 9, players: [{ name: 'Ann' }, { bot: 'rules' }] };

function site(html) {
  return new Promise((resolve) => {
    const s = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html(req.url));
    });
    s.listen(0, '127.0.0.1', () => resolve({ server: s, origin: `http://127.0.0.1:${s.address().port}` }));
  });
}

before(async () => {
  allowed = await site(() => '<!doctype html><title>allowed site</title>');
  other = await site((url) => url.startsWith('/frame')
    ? `<!doctype html><title>framing site</title><iframe id="f" src="${base}/"></iframe>`
    : '<!doctype html><title>other site</title>');
  tmp = mkdtempSync(path.join(tmpdir(), 'croupier-browser-sec-'));
  server = spawn(BIN, ['serve', '--listen', '127.0.0.1:0', '--store', `sqlite:${tmp}/t.db`, '--www', 'www', '--cors', allowed.origin],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server not listening:\n${serverLog}`)), 10000);
    server.stdout.on('data', (d) => {
      serverLog += d;
      const m = /croupier: listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serverLog);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    server.stderr.on('data', (d) => { serverLog += d; });
    server.on('exit', (code, sig) => { clearTimeout(timer); reject(new Error(`server exited (${code ?? sig}):\n${serverLog}`)); });
  });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Every CSP violation of any page, reported by the page itself.
  await context.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
});

after(async () => {
  if (browser) await browser.close();
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (server.exitCode === null) server.kill('SIGKILL');
  }
  for (const s of [allowed, other]) if (s) s.server.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function gamesCreated() {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^croupier_games_created_total (\d+)/m.exec(text)[1]);
}

test('the page works under its CSP and sends its token only in the Authorization header', async () => {
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  const requests = [];
  page.on('request', (r) => requests.push({ url: r.url(), auth: r.headers().authorization || null }));
  const doc = await page.goto(`${base}/`);
  const csp = doc.headers()['content-security-policy'];
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.equal(doc.headers()['x-frame-options'], 'DENY');
  assert.equal(doc.headers()['referrer-policy'], 'no-referrer');
  await page.waitForSelector('body[data-ready="true"]');
  await page.getByTestId('new-game-game').selectOption('hanabi');
  await page.getByTestId('new-game-submit').click();
  await page.getByTestId('board').waitFor();
  await page.waitForFunction(() => /#game=/.test(location.hash));
  // Ask for a hint: one more request that needs the token.
  const hint = page.getByTestId('hint-button');
  await hint.waitFor();
  const id = decodeURIComponent(/game=([^&]+)/.exec(await page.evaluate(() => location.hash))[1]);
  const token = await page.evaluate((k) => localStorage.getItem(`croupier.token.${k}`) || sessionStorage.getItem(`croupier.token.${k}`), id);
  assert.ok(token, 'the page holds a seat token');
  await page.waitForFunction(() => !document.querySelector('[data-testid="hint-button"]').disabled);
  const hinted = page.waitForResponse((r) => r.url().endsWith('/hint'));
  await hint.click();
  assert.equal((await hinted).status(), 200);
  await page.waitForTimeout(300);
  const withToken = requests.filter((r) => r.auth === `Bearer ${token}`);
  assert.ok(withToken.length >= 2, `the page sends the token in Authorization (${withToken.length} requests)`);
  for (const r of requests) assert.ok(!r.url.includes(token), `no token in a URL: ${r.url}`);
  assert.deepEqual(await page.evaluate(() => window.__violations), [], 'no CSP violation');
  assert.deepEqual(errors, [], 'no console error');
  await page.close();
});

test('another site cannot frame the page', async () => {
  const page = await context.newPage();
  await page.goto(`${other.origin}/frame`);
  await page.waitForTimeout(500);
  const frame = page.frames().find((f) => f !== page.mainFrame());
  assert.ok(frame, 'the iframe exists');
  const inside = await frame.$('#new-game-form').catch(() => null);
  assert.equal(inside, null, 'the page is not shown inside another site');
  await page.close();
});

test('CORS: the --cors origin may call the API and read ETag and Location', async () => {
  const page = await context.newPage();
  await page.goto(`${allowed.origin}/`);
  const out = await page.evaluate(async ([api, body]) => {
    const c = await fetch(`${api}/games`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const created = await c.json();
    const token = created.seats[0].token;
    const g = await fetch(`${api}/games/${created.id}`, { headers: { authorization: `Bearer ${token}` } });
    const view = await g.json();
    return { status: c.status, location: c.headers.get('location'), getStatus: g.status, etag: g.headers.get('etag'), you: view.you };
  }, [base, CREATE]);
  assert.equal(out.status, 201);
  assert.match(out.location, /^\/games\//);
  assert.equal(out.getStatus, 200);
  assert.match(out.etag, /^"\d+"$/);
  assert.equal(out.you, 0);
  await page.close();
});

test('CORS: another origin can neither read the API nor create a game by fetch or form', async () => {
  const page = await context.newPage();
  await page.goto(`${other.origin}/`);
  const before0 = await gamesCreated();
  const fetched = await page.evaluate(async ([api, body]) => {
    const results = [];
    for (const init of [
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, // preflighted
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(body) },       // simple request
      { method: 'POST', mode: 'no-cors', body: new Blob([JSON.stringify(body)]) },                    // no Content-Type at all
      { method: 'GET' },
    ]) {
      try {
        const r = await fetch(`${api}${init.method === 'GET' ? '/rules' : '/games'}`, init);
        results.push(r.type === 'opaque' ? 'opaque' : `read ${r.status}`);
      } catch (e) {
        results.push('blocked');
      }
    }
    return results;
  }, [base, CREATE]);
  assert.deepEqual(fetched, ['blocked', 'blocked', 'opaque', 'blocked'], 'nothing readable');
  // Forms: text/plain and urlencoded bodies shaped to parse as JSON.
  for (const enctype of ['text/plain', 'application/x-www-form-urlencoded']) {
    const p = await context.newPage();
    await p.goto(`${other.origin}/`);
    const nav = p.waitForNavigation();
    await p.evaluate(([api, enctype, body]) => {
      const f = document.createElement('form');
      f.method = 'POST';
      f.action = `${api}/games`;
      f.enctype = enctype;
      const json = JSON.stringify(body);
      const i = document.createElement('input');
      i.name = json.slice(0, -1) + ',"x":"';
      i.value = '"}';
      f.append(i);
      document.body.append(f);
      f.submit();
    }, [base, enctype, CREATE]);
    const res = await nav;
    assert.equal(res.status(), 415, `a ${enctype} form is refused`);
    await p.close();
  }
  await page.waitForTimeout(200);
  assert.equal(await gamesCreated(), before0, 'no game was created from the other origin');
  await page.close();
});
