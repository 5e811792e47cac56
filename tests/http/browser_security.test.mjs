// Browser-facing hardening, over the real server (and through nginx +
// FastCGI with CROUPIER_TEST_FRONT=fcgi):
//   - no token in a URL: ?token= is a 400 naming the header, on every route;
//   - the routes that change games take application/json only (a text save
//     to /games/import also needs X-Croupier-Import: text);
//   - CORS: off by default (no Access-Control-* anywhere, preflights
//     refused), --cors ORIGIN allows exactly that origin;
//   - Content-Security-Policy, X-Frame-Options, Referrer-Policy and
//     X-Content-Type-Options on every response, page and API;
//   - the WebSocket takes its token as a subprotocol (never echoed back).
import test, { describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import WebSocket from 'ws';
import { useServer, startServer, request, expectStatus, expectProblem } from './lib/server.mjs';
import { ROOT } from './lib/contract.mjs';

const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';
const ALLOWED = 'http://app.example:8000';
const CREATE = { game: 'hanabi', seed: 5, players: [{ name: 'Ann' }, { bot: 'rules' }] };
const PAGE_CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

const srv = useServer();

/** A raw request (no contract check: OPTIONS preflights are not operations of the contract). */
async function raw(base, method, p, headers = {}, body) {
  const res = await fetch(base + p, { method, headers, body, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const acHeaders = (h) => [...h.keys()].filter((k) => k.startsWith('access-control-'));

/** The head of an event stream (SSE) of a finished game (the stream ends by itself). */
function sseHead(base, id, headers = {}) {
  return new Promise((resolve, reject) => {
    http.get(`${base}/games/${id}/events`, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, headers: new Headers(res.headers) }));
    }).on('error', reject);
  });
}
const FINISHED = { game: 'hanabi', seed: 6, players: [{ bot: 'rules' }, { bot: 'rules' }] };

function assertSecurityHeaders(r, what, csp) {
  assert.equal(r.headers.get('content-security-policy'), csp, `${what}: Content-Security-Policy`);
  assert.equal(r.headers.get('x-frame-options'), 'DENY', `${what}: X-Frame-Options`);
  assert.equal(r.headers.get('referrer-policy'), 'no-referrer', `${what}: Referrer-Policy`);
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff', `${what}: X-Content-Type-Options`);
}

async function gamesCreated(base) {
  const m = await request(base, 'GET', '/metrics');
  return Number(/^croupier_games_created_total (\d+)/m.exec(m.text)[1]);
}

test('?token= is refused on every route, naming the header to use', async () => {
  const g = await srv.post('/games', CREATE);
  expectStatus(g, 201);
  const tok = 'made-up-token-in-a-url';
  for (const [method, p] of [
    ['GET', `/games/${g.json.id}?token=${tok}`], ['GET', `/games/${g.json.id}/legal?token=${tok}`],
    ['GET', `/games/${g.json.id}/events?after=0&token=${tok}`], ['GET', `/games/${g.json.id}/hint?token`],
    ['GET', '/rules?token='], ['GET', `/?token=${tok}`], ['DELETE', `/games/${g.json.id}?token=${tok}`],
    ['POST', `/games/${g.json.id}/resign?token=${tok}`],
  ]) {
    const p400 = expectProblem(await srv.request(method, p), 400, 'invalid-parameter', `${method} ${p}`);
    assert.equal(p400.parameter, 'token', p);
    assert.match(p400.detail, /Authorization: Bearer <token>/, p);
  }
  const post = await srv.post(`/games/${g.json.id}/plays?token=${tok}`, { play: { actionType: 2, target: 0 } });
  expectProblem(post, 400, 'invalid-parameter');
  // Any parameter named like a secret, whatever separates it: ';' too, as
  // some servers and frameworks split queries there.
  for (const [q, name] of [
    [`x=1;token=${tok}`, 'token'], [`after=0;invite=${tok}`, 'invite'], [`session=${tok}`, 'session'],
    [`access_token=${tok}`, 'access_token'], [`a=1&X-Api-Key=${tok}`, 'X-Api-Key'], [`%74oken=${tok}`, 'token'],
    [`limit=5;password=${tok}`, 'password'],
  ]) {
    for (const p of [`/games/${g.json.id}`, '/rules', '/healthz']) {
      const r = expectProblem(await srv.get(`${p}?${q}`), 400, 'invalid-parameter', `${p}?${q}`);
      assert.equal(r.parameter, name, `${p}?${q}`);
    }
  }
  // Other parameters are served.
  expectStatus(await srv.get(`/games/${g.json.id}/plays?after=0&limit=5`), 200);
  // A real token in the header still works, and the game was not touched.
  const me = await srv.get(`/games/${g.json.id}`, { token: g.json.seats[0].token });
  expectStatus(me, 200);
  assert.equal(me.json.you, 0);
  assert.equal(me.json.version, g.json.version);
});

test('the routes that create or change games take application/json only', async () => {
  const before0 = await gamesCreated(srv.base);
  const body = JSON.stringify(CREATE);
  // What a cross-site form (or a no-cors fetch) can send without a preflight.
  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
    const r = await srv.request('POST', '/games', { body: contentType ? body : new TextEncoder().encode(body), contentType });
    const p = expectProblem(r, 415, 'unsupported-media-type', `POST /games as ${contentType}`);
    assert.match(p.detail, /Content-Type: application\/json/, 'the detail names what to send');
  }
  expectProblem(await srv.request('POST', '/games/import', { body, contentType: 'text/plain; charset=utf-8' }), 415, 'unsupported-media-type');
  expectProblem(await srv.request('POST', '/games/import', { body, contentType: 'application/x-www-form-urlencoded' }), 415, 'unsupported-media-type');
  assert.equal(await gamesCreated(srv.base), before0, 'no game was created');
  const g = await srv.request('POST', '/games', { body, contentType: 'application/json; charset=utf-8' });
  expectStatus(g, 201);
  const token = g.json.seats[0].token;
  const play = JSON.stringify({ play: { actionType: 2, target: 0 } });
  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
    expectProblem(await srv.request('POST', `/games/${g.json.id}/plays`, { body: play, contentType, token }), 415, 'unsupported-media-type');
  }
  assert.equal((await srv.get(`/games/${g.json.id}`)).json.version, g.json.version, 'no play was made');
  // The stateless validators still read what curl -d sends (api.md's example).
  const v = await srv.request('POST', '/validate/comp10001bo/match_build', { body: '["2C", []]', contentType: 'application/x-www-form-urlencoded' });
  expectStatus(v, 200);
});

test('a text save is imported only with X-Croupier-Import: text', async () => {
  const fc = await srv.post('/games', { game: 'fivecrowns', seed: 3, players: [{ name: 'Ann' }, { bot: 'greedy' }] });
  expectStatus(fc, 201);
  const saved = await srv.get(`/games/${fc.json.id}/export?format=fivecrowns-text`, { token: srv.adminToken });
  expectStatus(saved, 200);
  const no = expectProblem(await srv.request('POST', '/games/import', { body: saved.text, contentType: 'text/plain' }), 415, 'unsupported-media-type');
  assert.match(no.detail, /X-Croupier-Import: text/);
  expectProblem(await srv.request('POST', '/games/import', { body: saved.text, contentType: 'text/plain', headers: { 'x-croupier-import': 'yes' } }), 415, 'unsupported-media-type');
  const ok = await srv.request('POST', '/games/import', { body: saved.text, contentType: 'text/plain; charset=utf-8', headers: { 'x-croupier-import': 'text' } });
  expectStatus(ok, 201);
  assert.equal(ok.json.game, 'fivecrowns');
});

test('security headers on every response: page files, API, errors, 204 and 304', async () => {
  const g = await srv.post('/games', CREATE);
  const id = g.json.id;
  const token = g.json.seats[0].token;
  const page = [['GET', '/'], ['GET', '/index.html'], ['GET', '/app.js'], ['GET', '/style.css'], ['HEAD', '/']];
  for (const [m, p] of page) assertSecurityHeaders(await raw(srv.base, m, p), `${m} ${p}`, PAGE_CSP);
  const api = [
    await srv.get('/healthz'), await srv.get('/rules'), await srv.get('/openapi.yaml'), await srv.get('/metrics'), g,
    await srv.get(`/games/${id}`, { token }), await srv.get(`/games/${id}`, { headers: { 'if-none-match': `"${g.json.version}"` } }),
    await srv.get('/nothing/here'), await srv.request('PUT', '/games'), await srv.get(`/games/${id}?token=x`),
    await srv.request('POST', '/games', { body: 'x', contentType: 'text/plain' }), await srv.get(`/games/${id}/hint`),
    await srv.del(`/games/${id}`, { token }),
  ];
  assert.deepEqual(api.map((r) => r.status), [200, 200, 200, 200, 201, 200, 304, 404, 405, 400, 415, 401, 204]);
  for (const r of api) assertSecurityHeaders(r, `${r.status} ${r.res.url}`, API_CSP);
  const done = await srv.post('/games', FINISHED);
  const sse = await sseHead(srv.base, done.json.id);
  assert.equal(sse.status, 200);
  assert.match(sse.headers.get('content-type'), /^text\/event-stream/);
  assertSecurityHeaders(sse, 'an event stream', API_CSP);
});

test('the page fits its policy: no inline script, inline style, style attribute or handler attribute', () => {
  const html = readFileSync(path.join(ROOT, 'www', 'index.html'), 'utf8');
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    assert.match(m[1], /\bsrc=/, 'every script is a file');
    assert.equal(m[2].trim(), '', 'no inline script');
  }
  assert.doesNotMatch(html, /<style\b/i, 'no <style> element');
  assert.doesNotMatch(html, /\sstyle=/i, 'no style attribute');
  assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline event handler');
  assert.doesNotMatch(html, /(src|href)=["']?(https?:)?\/\//i, 'nothing from another origin');
  const js = readFileSync(path.join(ROOT, 'www', 'app.js'), 'utf8');
  assert.doesNotMatch(js, /\beval\(|new Function\(|\.innerHTML\s*=|setAttribute\(\s*['"]style/, 'nothing the policy forbids');
  assert.doesNotMatch(js, /[?&]token=/, 'the page never puts a token in a URL');
});

test('CORS off by default: no Access-Control-* header anywhere, preflights refused', async () => {
  const g = await srv.post('/games', CREATE);
  const origin = { origin: ALLOWED };
  for (const p of ['/', '/rules', `/games/${g.json.id}`, '/nothing']) {
    const r = await raw(srv.base, 'GET', p, origin);
    assert.deepEqual(acHeaders(r.headers), [], `GET ${p}`);
    assert.doesNotMatch(r.headers.get('vary') || '', /origin/i, `GET ${p}: nothing varies by Origin`);
  }
  const post = await raw(srv.base, 'POST', '/games', { ...origin, 'content-type': 'application/json' }, JSON.stringify(CREATE));
  assert.equal(post.status, 201);
  assert.deepEqual(acHeaders(post.headers), []);
  for (const p of ['/games', `/games/${g.json.id}/plays`, '/games/import']) {
    const pre = await raw(srv.base, 'OPTIONS', p, { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' });
    assert.deepEqual(acHeaders(pre.headers), [], `preflight ${p}: no allow headers`);
    assert.ok(pre.status >= 400, `preflight ${p}: refused (${pre.status})`);
  }
});

describe('with --cors ORIGIN', () => {
  let s;
  before(async () => { s = await startServer({ extraArgs: ['--cors', ALLOWED] }); });
  after(async () => {
    const { code, stderr } = await s.stop();
    assert.equal(code, 0, stderr);
  });

  test('preflights from ORIGIN are answered with the allowed methods and headers', async () => {
    const g = await request(s.base, 'POST', '/games', { json: CREATE });
    for (const [p, methods] of [['/games', 'POST'], [`/games/${g.json.id}`, 'DELETE, GET'], [`/games/${g.json.id}/plays`, 'GET, POST'], ['/games/import', 'POST']]) {
      const r = await raw(s.base, 'OPTIONS', p, { origin: ALLOWED, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, if-match' });
      assert.equal(r.status, 204, `preflight ${p}: ${r.text}`);
      assert.equal(r.headers.get('access-control-allow-origin'), ALLOWED);
      const listed = r.headers.get('access-control-allow-methods').split(',').map((m) => m.trim());
      for (const m of methods.split(', ')) assert.ok(listed.includes(m), `${p}: ${m} among the path's methods (${listed})`);
      assert.ok(!listed.includes('PUT') && !listed.includes('PATCH'), `${p}: only the path's methods`);
      const allowed = r.headers.get('access-control-allow-headers').split(',').map((x) => x.trim().toLowerCase());
      for (const h of ['authorization', 'content-type', 'if-match', 'if-none-match', 'x-croupier-import', 'last-event-id']) assert.ok(allowed.includes(h), `${p}: ${h}`);
      assert.match(r.headers.get('access-control-max-age'), /^\d+$/);
      assert.match(r.headers.get('vary'), /\bOrigin\b/);
      assert.equal(r.headers.get('access-control-allow-credentials'), null, 'no credentials mode');
      assertSecurityHeaders(r, `preflight ${p}`, API_CSP);
    }
  });

  test('responses to ORIGIN carry Access-Control-Allow-Origin, Vary: Origin and expose ETag and Location', async () => {
    const created = await raw(s.base, 'POST', '/games', { origin: ALLOWED, 'content-type': 'application/json' }, JSON.stringify(CREATE));
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('access-control-allow-origin'), ALLOWED);
    assert.match(created.headers.get('vary'), /\bOrigin\b/);
    const exposed = created.headers.get('access-control-expose-headers').split(',').map((x) => x.trim().toLowerCase());
    assert.ok(exposed.includes('etag') && exposed.includes('location'));
    const { id, seats } = JSON.parse(created.text);
    const got = await raw(s.base, 'GET', `/games/${id}`, { origin: ALLOWED, authorization: `Bearer ${seats[0].token}` });
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('access-control-allow-origin'), ALLOWED);
    const err = await raw(s.base, 'GET', `/games/${id}/hint`, { origin: ALLOWED });
    assert.equal(err.status, 401);
    assert.equal(err.headers.get('access-control-allow-origin'), ALLOWED, 'errors are readable too');
    const done = await request(s.base, 'POST', '/games', { json: FINISHED });
    const sse = await sseHead(s.base, done.json.id, { origin: ALLOWED });
    assert.equal(sse.headers.get('access-control-allow-origin'), ALLOWED, 'the event stream too');
  });

  test('another origin gets nothing: no Access-Control-* header, preflight refused', async () => {
    for (const origin of ['http://evil.example', 'http://app.example:8001', 'https://app.example:8000', 'null']) {
      const pre = await raw(s.base, 'OPTIONS', '/games', { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' });
      assert.ok(pre.status >= 400, `${origin}: preflight refused (${pre.status})`);
      assert.deepEqual(acHeaders(pre.headers), [], `${origin}: preflight`);
      const r = await raw(s.base, 'GET', '/rules', { origin });
      assert.deepEqual(acHeaders(r.headers), [], `${origin}: GET`);
      assert.match(r.headers.get('vary'), /\bOrigin\b/, 'the answer varies by Origin (caches)');
    }
    const none = await raw(s.base, 'GET', '/rules');
    assert.deepEqual(acHeaders(none.headers), [], 'no Origin, no CORS header');
  });
});

test('--cors takes one origin, nothing else', async () => {
  for (const bad of ['*', 'null', 'http://a.example/', 'http://a.example/path', 'ftp://a.example', 'a.example', 'http://u@a.example', 'http://a.example:80:80']) {
    await assert.rejects(startServer({ extraArgs: ['--cors', bad] }), /exited/, bad);
  }
});

describe('WebSocket token', { skip: viaFcgi && 'FastCGI has no WebSocket (the embedded server serves it)' }, () => {
  let s;
  before(async () => { s = await startServer({ extraArgs: ['--threads', '1'] }); });
  after(async () => { await s.stop(); });

  /** Open a WebSocket; messages are kept from the first one on. */
  function open(url, protocols = [], options = {}) {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, protocols, options);
      const inbox = [];
      const waiters = [];
      let upgrade;
      ws.on('message', (m) => { inbox.push(String(m)); for (const w of waiters.splice(0)) w(); });
      ws.on('upgrade', (res) => { upgrade = res; });
      ws.on('open', () => resolve({
        ws, upgrade, inbox,
        async next(pred, ms = 5000) {
          const t0 = Date.now();
          for (;;) {
            const i = inbox.findIndex(pred);
            if (i >= 0) return inbox[i];
            if (Date.now() - t0 > ms) throw new Error(`no matching message; got ${inbox.join(' | ')}`);
            await new Promise((r) => { waiters.push(r); setTimeout(r, 200); });
          }
        },
      }));
      ws.on('unexpected-response', (_q, res) => {
        let b = '';
        res.on('data', (d) => { b += d; });
        res.on('end', () => reject(new Error(`refused ${res.statusCode} ${b}`)));
      });
      ws.on('error', reject);
    });
  }

  /** A WebSocket upgrade request whose refusal is read as plain HTTP. */
  function upgradeRefusal(base, p) {
    return new Promise((resolve, reject) => {
      const req = http.request(base + p, { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => { text += d; });
        res.on('end', () => resolve({ status: res.statusCode, headers: new Headers(res.headers), text }));
      });
      req.on('upgrade', () => reject(new Error('upgraded')));
      req.on('error', reject);
      req.end();
    });
  }

  test('offered as a subprotocol beside "croupier": the seat plays, the token is not echoed', async () => {
    const g = await request(s.base, 'POST', '/games', { json: CREATE });
    const token = g.json.seats[0].token;
    const url = `${s.base.replace('http', 'ws')}/games/${g.json.id}/ws`;
    const seat = await open(url, ['croupier', `croupier.token.${token}`]);
    assert.equal(seat.ws.protocol, 'croupier');
    assert.equal(seat.upgrade.headers['sec-websocket-protocol'], 'croupier');
    assert.ok(!JSON.stringify(seat.upgrade.headers).includes(token), 'no header of the upgrade holds the token');
    await seat.next((m) => m === '{"event": "turn"}');
    seat.ws.close();
    // The same worker next serves clients that offer no subprotocol: they
    // must not be answered one (civetweb would repeat the last one).
    for (let i = 0; i < 3; i++) {
      const spectator = await open(url);
      assert.equal(spectator.ws.protocol, '');
      assert.match(await spectator.next(() => true), /"event": "onStart"/);
      assert.ok(!JSON.stringify(spectator.upgrade.headers).includes('croupier'), 'no subprotocol for who offered none');
      spectator.ws.close();
      const again = await open(url, ['croupier', `croupier.token.${token}`]);
      assert.equal(again.ws.protocol, 'croupier');
      again.ws.close();
    }
  });

  test('refusals: ?token=, a token subprotocol without "croupier", a bad token', async () => {
    const g = await request(s.base, 'POST', '/games', { json: CREATE });
    const url = `${s.base.replace('http', 'ws')}/games/${g.json.id}/ws`;
    await assert.rejects(open(`${url}?token=made-up-token-in-a-url`), /refused 400 .*"parameter":"token"/);
    await assert.rejects(open(`${url}?x=1;invite=made-up-invite`), /refused 400 .*"parameter":"invite"/);
    await assert.rejects(open(`${url}?session=made-up`), /refused 400 .*"parameter":"session"/);
    await assert.rejects(open(url, [`croupier.token.${g.json.seats[0].token}`]), /refused 400 .*croupier/);
    await assert.rejects(open(url, ['croupier', 'croupier.token.not-a-token']), /refused 401/);
    const refused = await upgradeRefusal(s.base, `/games/${g.json.id}/ws?token=x`);
    assert.equal(refused.status, 400);
    assert.match(refused.text, /Authorization: Bearer/);
    assertSecurityHeaders(refused, 'a refused upgrade', API_CSP);
  });
});
