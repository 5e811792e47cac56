// The transport: what a request must be before a handler sees it, over raw
// sockets. A body shorter than its Content-Length, a connection that closes
// mid-body, two Content-Length headers, too many headers: refused, and the
// game is unchanged. Errors civetweb answers itself are problem+json. The
// embedded server's deadlines (headers, keep-alive, bodies) hold.
//
// With CROUPIER_TEST_FRONT=fcgi the same requests go through nginx to
// croupier fcgi: nginx answers some itself (it never passes a request it
// could not read whole), the rest reach croupier; either way nothing may
// change. The last test speaks FastCGI to croupier fcgi directly: a body
// shorter than CONTENT_LENGTH is refused there too.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { useServer, createGame, expectStatus } from './lib/server.mjs';
import { ROOT, assertSchema } from './lib/contract.mjs';
import net from 'node:net';
import { raw, http, fcgiRequest, fcgiBytes } from './lib/raw.mjs';

const srv = useServer();
const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';

function expectRawProblem(r, status, slug, what) {
  assert.equal(r.status, status, `${what}: status ${r.status}, expected ${status}: ${r.text.slice(0, 300)}`);
  assert.match(r.headers['content-type'] || '', /^application\/problem\+json/, `${what}: a problem document`);
  assert.equal(r.json?.status, status, `${what}: problem status`);
  if (slug) assert.equal(r.json.type, `/problems/${slug}`, `${what}: problem type`);
  assert.match(r.json.instance, /^\//, `${what}: instance`);
  assertSchema('Problem', r.json, what);
}

/** A game with a human seat whose turn it is, its token and a legal play. */
async function gameWithPlay(seed) {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed });
  const token = g.seats[0].token;
  const legal = await srv.get(`/games/${g.id}/legal`, { token });
  expectStatus(legal, 200);
  assert.ok(legal.json.plays.length > 0);
  return { id: g.id, token, play: legal.json.plays.at(-1), version: g.version };
}

async function versionOf(id) {
  const r = await srv.get(`/games/${id}`, { token: srv.adminToken });
  expectStatus(r, 200);
  return r.json.version;
}

const host = () => new URL(srv.base).host;

test('a body shorter than its Content-Length is refused, never applied', async () => {
  const g = await gameWithPlay(31);
  // The part sent is itself a whole, legal play: only the length tells it is cut.
  const body = JSON.stringify({ play: g.play });
  const req = http('POST', `/games/${g.id}/plays`, [['Host', host()], ['Authorization', `Bearer ${g.token}`],
    ['Content-Type', 'application/json'], ['Content-Length', String(body.length + 24)]], body);
  const r = await raw(srv.base, [req], { end: 'half' });
  if (viaFcgi) {
    // nginx does not pass on a request whose body never came in full
    assert.ok(r.status === 0 || r.status >= 400, `via nginx: ${r.status} ${r.text.slice(0, 200)}`);
  } else {
    expectRawProblem(r, 400, 'malformed-request', 'short body');
    assert.match(r.json.detail, new RegExp(`${body.length} of the ${body.length + 24} bytes`));
  }
  assert.equal(await versionOf(g.id), g.version, 'the game did not change');
  // and the same play, whole, is accepted: it was the length that was refused
  const ok = await srv.post(`/games/${g.id}/plays`, { play: g.play }, { token: g.token });
  expectStatus(ok, 200);
});

test('a connection closed in the middle of its body changes nothing', async () => {
  const g = await gameWithPlay(32);
  const body = JSON.stringify({ play: g.play });
  const req = http('POST', `/games/${g.id}/plays`, [['Host', host()], ['Authorization', `Bearer ${g.token}`],
    ['Content-Type', 'application/json'], ['Content-Length', String(body.length + 1)]], body);
  await raw(srv.base, [req], { end: 'destroy' });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await versionOf(g.id), g.version, 'the game did not change');
  expectStatus(await srv.get('/healthz'), 200);
});

test('two Content-Length headers are refused, equal or not', async () => {
  const g = await gameWithPlay(33);
  const body = JSON.stringify({ play: g.play });
  for (const [a, b] of [[body.length, body.length], [body.length, body.length + 5], [body.length + 5, body.length]]) {
    const req = http('POST', `/games/${g.id}/plays`, [['Host', host()], ['Authorization', `Bearer ${g.token}`],
      ['Content-Type', 'application/json'], ['Content-Length', String(a)], ['Content-Length', String(b)]], body);
    const r = await raw(srv.base, [req], { timeout: 8000 });
    expectRawProblem(r, 400, 'malformed-request', `Content-Length ${a} and ${b}`); // via nginx: its own, as problem+json
  }
  // Content-Length beside Transfer-Encoding: the other way to disagree on a body's end
  const req = http('POST', `/games/${g.id}/plays`, [['Host', host()], ['Authorization', `Bearer ${g.token}`],
    ['Content-Type', 'application/json'], ['Content-Length', String(body.length)], ['Transfer-Encoding', 'chunked']],
  `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
  const r = await raw(srv.base, [req], { timeout: 8000 });
  // nginx refuses the pair itself, as problem+json (deploy/nginx-fastcgi.conf's error pages)
  expectRawProblem(r, 400, 'malformed-request', 'Content-Length with Transfer-Encoding');
  assert.equal(await versionOf(g.id), g.version, 'the game did not change');
});

test('too many headers are refused (431), even when the token is among them', async () => {
  const g = await gameWithPlay(34);
  const body = JSON.stringify({ play: g.play });
  const filler = Array.from({ length: 70 }, (_, i) => [`X-Filler-${i}`, 'x']);
  // the token comes after the 64th line: dropping lines would make this a spectator's play
  const req = http('POST', `/games/${g.id}/plays`, [['Host', host()], ['Content-Type', 'application/json'],
    ['Content-Length', String(body.length)], ...filler, ['Authorization', `Bearer ${g.token}`]], body);
  const r = await raw(srv.base, [req]);
  expectRawProblem(r, 431, 'request-header-fields-too-large', '75 header lines');
  assert.equal(await versionOf(g.id), g.version, 'the game did not change');
  // a GET too: it is not served with some of its headers dropped
  const get = await raw(srv.base, [http('GET', `/games/${g.id}`, [['Host', host()], ...filler, ['Authorization', `Bearer ${g.token}`]])]);
  expectRawProblem(get, 431, 'request-header-fields-too-large', 'GET with 71 header lines');
});

test('a chunked body is read whole (refused 411 through nginx); one cut before its last chunk is refused', async () => {
  const g = await gameWithPlay(35);
  const body = JSON.stringify({ play: g.play });
  const head = [['Host', host()], ['Authorization', `Bearer ${g.token}`], ['Content-Type', 'application/json'],
    ['Transfer-Encoding', 'chunked']];
  const half = Math.floor(body.length / 2);
  const chunk = (s) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
  const cut = await raw(srv.base, [http('POST', `/games/${g.id}/plays`, head, chunk(body.slice(0, half)) + chunk(body.slice(half)))],
    { end: 'half' });
  if (!viaFcgi) expectRawProblem(cut, 400, 'malformed-request', 'cut chunked body');
  else assert.ok(cut.status === 0 || cut.status >= 400, `via nginx: ${cut.status}`);
  assert.equal(await versionOf(g.id), g.version, 'the game did not change');
  const whole = await raw(srv.base, [http('POST', `/games/${g.id}/plays`, [...head, ['Connection', 'close']],
    `${chunk(body.slice(0, half))}${chunk(body.slice(half))}0\r\n\r\n`)]);
  if (viaFcgi) {
    // deploy/nginx-fastcgi.conf refuses chunked request bodies (411, RFC 9112 6.3)
    expectRawProblem(whole, 411, 'length-required', 'chunked body through nginx');
    assert.equal(await versionOf(g.id), g.version, 'the game did not change');
    return;
  }
  assert.equal(whole.status, 200, `whole chunked body: ${whole.text.slice(0, 300)}`);
  assert.ok(await versionOf(g.id) > g.version, 'the play was applied');
});

test('errors civetweb answers itself are problem+json', { skip: viaFcgi && 'nginx answers these itself' }, async () => {
  const h = [['Host', 'x']];
  const cases = [
    ['a NUL byte in a header', http('GET', '/healthz', [...h, ['X-A', 'a\u0000b']]), 400, 'malformed-request'],
    ['an unknown method', http('BREW', '/healthz', h), 400, 'malformed-request'],
    ['an HTTP/2.0 request line', 'GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n', 505, 'http-version-not-supported'],
    ['no HTTP version', 'GET /healthz\r\nHost: x\r\n\r\n', 400, 'malformed-request'],
    ['a header line without a colon', http('GET', '/healthz', [...h, ['X-A b', '']]).replace('X-A b: ', 'X-A b'), 400, 'malformed-request'],
    ['headers over 16 KiB', http('GET', '/healthz', [...h, ['X-Big', 'a'.repeat(20000)]]), 431, 'request-header-fields-too-large'],
    ['a negative Content-Length', http('POST', '/validate', [...h, ['Content-Length', '-2']], '{}'), 400, 'malformed-request'],
    ['a Content-Length that is not a number', http('POST', '/validate', [...h, ['Content-Length', '2x']], '{}'), 400, 'malformed-request'],
    // civetweb's own 404 (no WebSocket there) is a 404, not a 400 a client would read as "your request is malformed"
    ['a WebSocket upgrade where there is none', http('GET', '/healthz', [...h, ['Upgrade', 'websocket'], ['Connection', 'Upgrade'],
      ['Sec-WebSocket-Version', '13'], ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ==']]), 404, 'not-found'],
  ];
  for (const [what, text, status, slug] of cases) {
    const r = await raw(srv.base, [text], { timeout: 8000 });
    expectRawProblem(r, status, slug, what);
  }
});

// civetweb's own password files: with no document root it looked for
// /.htpasswd on every request and, had one been there, answered every
// request 401 with a Digest challenge. Who may do what is the API's
// business (tokens). Needs root to put the file there for a moment.
const rootOwned = process.getuid?.() === 0 && !existsSync('/.htpasswd');
test('a .htpasswd file does not lock the API', {
  skip: viaFcgi ? 'croupier fcgi has no civetweb' : !rootOwned && 'needs root and no /.htpasswd',
}, async () => {
  writeFileSync('/.htpasswd', 'someone:croupier:0123456789abcdef0123456789abcdef\n');
  try {
    const r = await srv.get('/healthz');
    expectStatus(r, 200, 'GET /healthz with /.htpasswd present');
    const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'] });
    expectStatus(await srv.get(`/games/${g.id}`, { token: g.seats[0].token }), 200, 'a game read');
  } finally {
    rmSync('/.htpasswd', { force: true });
  }
});

// A connection's first request line and headers are bounded by civetweb's
// own request_timeout_ms (10 s: before a request is read civetweb's API
// tells nothing of its connection, so croupier cannot arm a deadline of its
// own); a client that dribbles bytes is cut at the first read after it (the
// bound is civetweb's clock, looked at after each read). The next requests
// of a kept-alive connection, and bodies, have croupier's deadlines.
test('deadlines: a first request line and headers 10 s (civetweb), idle keep-alive 5 s, a body 10 s', { skip: viaFcgi && 'nginx holds slow clients', timeout: 60000 }, async (t) => {
  const g = await gameWithPlay(36);
  const body = JSON.stringify({ play: g.play });
  const [line, idle, slow, trickle, second] = await Promise.all([
    // half a request, then nothing
    raw(srv.base, [`GET /healthz HTTP/1.1\r\nHost: x\r\n`]),
    // one request answered, then an idle kept-alive connection
    raw(srv.base, ['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'], { untilClose: true }),
    // a body that stops after its first bytes
    raw(srv.base, [http('POST', `/games/${g.id}/plays`, [['Host', 'x'], ['Authorization', `Bearer ${g.token}`],
      ['Content-Type', 'application/json'], ['Content-Length', String(body.length)]], body.slice(0, 5))]),
    // headers dribbled a byte at a time, each well within civetweb's per-read timeout
    raw(srv.base, [...'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 0123456789abcdef'].flatMap((c) => [c, 300])),
    // a kept-alive connection's second request, half of it, then nothing:
    // croupier's own deadline (its socket is known since the first request),
    // 5 s after the response; civetweb's own (keep_alive_timeout_ms) would
    // end it 5 s after the last byte, 6 s
    raw(srv.base, ['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 1000, 'GET /healthz HTTP/1.1\r\nHost: x\r\n'], { untilClose: true }),
  ]);
  t.diagnostic(`closed after: half a first request line ${line.ms} ms (status ${line.status}), dribbled first headers ${trickle.ms} ms, `
    + `a kept connection's half second request ${second.ms} ms, idle keep-alive ${idle.ms} ms, a late body ${slow.ms} ms`);
  expectRawProblem(line, 408, 'request-timeout', 'half a request line');
  assert.ok(line.ms >= 9500 && line.ms < 12500, `408 after ${line.ms} ms (civetweb's request_timeout_ms, 10 s)`);
  assert.equal(idle.status, 200);
  assert.ok(idle.closed && idle.ms >= 4500 && idle.ms < 7000, `idle keep-alive closed after ${idle.ms} ms`);
  expectRawProblem(slow, 408, 'request-timeout', 'a late body');
  assert.ok(slow.ms >= 9500 && slow.ms < 12500, `late body: 408 after ${slow.ms} ms`);
  expectRawProblem(trickle, 408, 'request-timeout', 'dribbled headers');
  assert.ok(trickle.ms >= 9500 && trickle.ms < 12500, `dribbled headers cut after ${trickle.ms} ms (10 s, and the read after it)`);
  assert.deepEqual([...second.raw.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1])), [200, 408],
    `a kept-alive connection's late second request: ${second.raw.slice(0, 200)}`);
  assert.ok(second.closed && second.ms >= 4500 && second.ms < 7000, `second request's headers cut after ${second.ms} ms`);
  assert.equal(await versionOf(g.id), g.version, 'the game did not change');
});

/** A croupier fcgi of its own on a Unix socket (extra: more options): {sock, env, stop}. */
async function lonelyFcgi(name, extra = []) {
  const bin = path.resolve(ROOT, process.env.CROUPIER_BIN || 'build/croupier');
  const dir = mkdtempSync(path.join(tmpdir(), `croupier-fcgi-${name}-`));
  const sock = path.join(dir, 'fcgi.sock');
  const proc = spawn(bin, ['fcgi', '--listen', sock, ...extra, '--store', `sqlite:${path.join(dir, 't.db')}`],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = async () => {
    proc.kill('SIGTERM');
    await new Promise((r) => (proc.exitCode !== null ? r() : proc.on('exit', r)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('croupier fcgi did not start')), 10000);
      proc.stdout.on('data', (d) => { if (/FastCGI on/.test(String(d))) { clearTimeout(t); resolve(); } });
      proc.on('exit', () => { clearTimeout(t); reject(new Error('croupier fcgi exited')); });
    });
  } catch (e) {
    await stop();
    throw e;
  }
  // the parameters nginx would send
  const env = (method, uri, more = {}) => ({ REQUEST_METHOD: method, DOCUMENT_URI: uri, REQUEST_URI: uri,
    QUERY_STRING: '', REMOTE_ADDR: '127.0.0.1', SERVER_PROTOCOL: 'HTTP/1.1', ...more });
  return { sock, env, stop };
}

test('FastCGI: a body shorter than CONTENT_LENGTH is refused, never applied', { timeout: 30000 }, async () => {
  const { sock, env, stop } = await lonelyFcgi('raw');
  try {
    const create = JSON.stringify({ game: 'comp10001bo', seed: 37, players: [{ name: 'Ann' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] });
    const g = await fcgiRequest(sock, env('POST', '/games', { CONTENT_TYPE: 'application/json', CONTENT_LENGTH: create.length }), create);
    assert.equal(g.status, 201, g.text);
    const token = g.json.seats[0].token;
    const legal = await fcgiRequest(sock, env('GET', `/games/${g.json.id}/legal`, { HTTP_AUTHORIZATION: `Bearer ${token}` }));
    const play = JSON.stringify({ play: legal.json.plays.at(-1) });
    const auth = { HTTP_AUTHORIZATION: `Bearer ${token}`, CONTENT_TYPE: 'application/json' };
    const short = await fcgiRequest(sock, env('POST', `/games/${g.json.id}/plays`, { ...auth, CONTENT_LENGTH: play.length + 24 }), play);
    assert.equal(short.status, 400, short.text);
    assert.match(short.headers['content-type'], /^application\/problem\+json/);
    assert.equal(short.json.type, '/problems/malformed-request');
    const illegal = JSON.stringify({ play: [0, 'AS', [1, [0, 0]]] }); // an ace never goes on a discard pile
    const no = await fcgiRequest(sock, env('POST', `/games/${g.json.id}/plays`, { ...auth, CONTENT_LENGTH: illegal.length }), illegal);
    assert.equal(no.headers.status, '422 Unprocessable Content', 'the Status line carries the reason phrase');
    const bad = await fcgiRequest(sock, env('POST', `/games/${g.json.id}/plays`, { ...auth, CONTENT_LENGTH: '12x' }), play);
    assert.equal(bad.status, 400, bad.text);
    const big = await fcgiRequest(sock, env('POST', `/games/${g.json.id}/plays`, { ...auth, CONTENT_LENGTH: 1 << 30 }), play);
    assert.equal(big.status, 413, big.text);
    const many = {};
    for (let i = 0; i < 70; i++) many[`HTTP_X_FILLER_${i}`] = 'x';
    const crowded = await fcgiRequest(sock, env('POST', `/games/${g.json.id}/plays`, { ...many, ...auth, CONTENT_LENGTH: play.length }), play);
    assert.equal(crowded.status, 431, crowded.text);
    const view = await fcgiRequest(sock, env('GET', `/games/${g.json.id}`, { HTTP_AUTHORIZATION: `Bearer ${token}` }));
    assert.equal(view.json.version, g.json.version, 'the game did not change');
    // the bytes beyond CONTENT_LENGTH are not part of the body
    const extra = await fcgiRequest(sock, env('POST', `/games/${g.json.id}/plays`, { ...auth, CONTENT_LENGTH: play.length }), `${play}garbage`);
    assert.equal(extra.status, 200, extra.text);
  } finally {
    await stop();
  }
});

test('a Transfer-Encoding other than chunked is refused (400) and the connection closed: its body is never the next request', async () => {
  const g = await gameWithPlay(38);
  const smuggled = `GET /games/${g.id} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`;
  for (const te of ['identity', 'gzip', 'chunked, identity', 'identity, chunked', 'chunked, chunked', 'x-custom']) {
    for (const method of ['POST', 'GET']) {
      const body = method === 'POST' ? `${JSON.stringify({ play: g.play })}` : '';
      const req = http(method, method === 'POST' ? `/games/${g.id}/plays` : '/healthz', [['Host', host()], ['Authorization', `Bearer ${g.token}`],
        ['Content-Type', 'application/json'], ['Transfer-Encoding', te]], body + smuggled);
      const r = await raw(srv.base, [req], { untilClose: true, timeout: 8000 });
      const what = `${method} with Transfer-Encoding: ${te}`;
      expectRawProblem(r, 400, 'malformed-request', what);
      assert.ok(r.closed, `${what}: the connection is closed`);
      assert.equal([...r.raw.matchAll(/HTTP\/1\.1 \d{3}/g)].length, 1, `${what}: one answer, none to the bytes after the headers: ${r.raw.slice(0, 400)}`);
    }
  }
  assert.equal(await versionOf(g.id), g.version, 'the game did not change');
});

test('HEAD of an event stream is its head alone: no body, no stream slot', async () => {
  const g = await gameWithPlay(39);
  const head = http('HEAD', `/games/${g.id}/events`, [['Host', host()], ['Accept', 'text/event-stream']]);
  const next = http('GET', '/healthz', [['Host', host()], ['Connection', 'close']]);
  // the second request on the same connection is answered only if the first ended with its head
  const r = await raw(srv.base, [head + next], { untilClose: true, timeout: 8000 });
  const answers = r.raw.split(/(?=HTTP\/1\.1 \d{3})/);
  assert.equal(answers.length, 2, `two answers, the HEAD's without a body: ${r.raw.slice(0, 400)}`);
  assert.match(answers[0], /^HTTP\/1\.1 200/);
  assert.match(answers[0], /\r\ncontent-type: text\/event-stream/i);
  assert.doesNotMatch(answers[0], /\r\ncontent-length: (?!0\r)/i, 'no length but the 0 of an empty body, if any');
  assert.ok(answers[0].endsWith('\r\n\r\n'), `nothing after the HEAD's head: ${JSON.stringify(answers[0].slice(-80))}`);
  assert.match(answers[1], /^HTTP\/1\.1 200/);
  assert.match(answers[1], /"status":"ok"/);
});

// croupier fcgi's own socket, spoken to directly (a misconfigured web server,
// or anyone who reaches it): half a request must not hold a thread. Before,
// libfcgi read its parameters and body with no deadline, and a handful of
// half-sent requests starved every thread.
test('FastCGI: half-sent requests are timed out; the threads go on serving', { timeout: 60000 }, async () => {
  const { sock, env, stop } = await lonelyFcgi('half', ['--threads', '2']);
  const held = [];
  try {
    // more half-sent requests than threads: the request's first record, and a
    // few bytes of its parameters
    const t0 = Date.now();
    for (let i = 0; i < 3; i++) {
      const s = net.connect({ path: sock });
      s.closedAt = null;
      s.on('close', () => { s.closedAt = Date.now() - t0; });
      s.on('error', () => {});
      s.on('connect', () => s.write(fcgiBytes(env('GET', '/healthz')).subarray(0, 20)));
      held.push(s);
    }
    await new Promise((res) => setTimeout(res, 200));
    // another client is served all the same, once the deadlines (5 s) free the threads
    const ok = await fcgiRequest(sock, env('GET', '/healthz'), '', { timeout: 15000 });
    assert.equal(ok.status, 200, ok.text);
    for (const s of held) { // the third one was taken when the first two were cut: 5 s later
      while (s.closedAt === null && Date.now() - t0 < 15000) await new Promise((res) => setTimeout(res, 100));
      assert.ok(s.closedAt !== null, `a half-sent request's connection is closed (${Date.now() - t0} ms)`);
    }
    // a body that stops short of its CONTENT_LENGTH, without its end: 408 after 10 s
    const body = JSON.stringify({ game: 'comp10001bo', seed: 1, players: [{ name: 'A' }, { name: 'B' }, { name: 'C' }, { name: 'D' }] });
    const r = await fcgiRequest(sock, env('POST', '/games', { CONTENT_TYPE: 'application/json', CONTENT_LENGTH: body.length + 50 }), body,
      { cut: true, timeout: 15000 });
    assert.equal(r.status, 408, `a body that never ends: ${r.text}`);
    assert.equal(r.json?.type, '/problems/request-timeout');
  } finally {
    for (const s of held) s.destroy();
    await stop();
  }
});
