// Hostile transport, as a request smuggler or a careless client would send
// it: header lines a proxy may read otherwise than we do, chunked bodies that
// end wrongly, request-targets in absolute form, `OPTIONS *`, and secrets in
// a URL. Each is refused (400 problem+json) or answered, never applied, and
// no secret reaches the access log. Runs on `croupier serve` and, with
// CROUPIER_TEST_FRONT=fcgi, through nginx (configured by the shipped
// deploy/nginx-fastcgi.conf) to `croupier fcgi`.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { useServer, startServer, createGame, expectStatus } from './lib/server.mjs';
import { assertSchema } from './lib/contract.mjs';
import { raw, http } from './lib/raw.mjs';

const srv = useServer();
const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';
const host = () => new URL(srv.base).host;

function expectRawProblem(r, status, what) {
  assert.equal(r.status, status, `${what}: status ${r.status}, expected ${status}: ${r.text.slice(0, 300)}`);
  assert.match(r.headers['content-type'] || '', /^application\/problem\+json/, `${what}: a problem document`);
  assert.equal(r.json?.status, status, `${what}: problem status`);
  assertSchema('Problem', r.json, what);
}

async function versionOf(id) {
  const r = await srv.get(`/games/${id}`, { token: srv.adminToken });
  expectStatus(r, 200);
  return r.json.version;
}

/** A game whose seat 0 (a person) is to move, its token and a legal play. */
async function gameWithPlay(seed) {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed });
  const token = g.seats[0].token;
  const legal = await srv.get(`/games/${g.id}/legal`, { token });
  expectStatus(legal, 200);
  return { id: g.id, token, play: legal.json.plays.at(-1), version: g.version };
}

test('malformed header sections and chunked bodies are refused (400) and change nothing', { timeout: 120_000 }, async () => {
  const chunk = (s) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
  const cases = [
    ['a space between Content-Length and its colon', (b, h) => http('POST', h.path, h.base, b)
      .replace(/\r\n\r\n/, `\r\nContent-Length : ${Buffer.byteLength(b)}\r\n\r\n`)],
    ['a header line with an empty name', (b, h) => http('POST', h.path, [...h.base, ['Content-Length', String(Buffer.byteLength(b))]], b)
      .replace(/\r\n\r\n/, '\r\n: v\r\n\r\n')],
    // croupier serve takes a chunked body once its last chunk (0) is in:
    // what follows it civetweb reads two bytes of and tells no one (its
    // API has no call for it), and closes the connection unless they were
    // the final CRLF, so nothing after the last chunk is read as a request
    // (the test after this one); nginx refuses chunked bodies (411)
    ['a NUL byte in a chunked trailer', (b, h) => http('POST', h.path, [...h.base, ['Transfer-Encoding', 'chunked']],
      `${chunk(b)}0\r\nX-T\u0000: y\r\n\r\n`), undefined, 'taken by serve: its last chunk came'],
    ['a chunked body without its final CRLF', (b, h) => http('POST', h.path, [...h.base, ['Transfer-Encoding', 'chunked']],
      `${chunk(b)}0\r\n`), undefined, 'taken by serve: its last chunk came'],
    ['a folded header line', (b, h) => http('POST', h.path, [...h.base, ['Content-Length', String(Buffer.byteLength(b))]], b)
      .replace(/\r\n\r\n/, '\r\nX-A: a\r\n  folded\r\n\r\n')],
    ['a header name with a character names may not hold', (b, h) => http('POST', h.path,
      [...h.base, ['Content-Length', String(Buffer.byteLength(b))], ['X(A)', 'v']], b), 'dropped by nginx'],
    ['a header name with an underscore (a proxy reads X_Token as X-Token)', (b, h) => http('POST', h.path,
      [...h.base, ['Content-Length', String(Buffer.byteLength(b))], ['X_Token', 'v']], b), 'dropped by nginx', 'accepted by serve'],
  ];
  let seed = 200;
  for (const [what, build, nginxDrops, serveTakes] of cases) {
    const g = await gameWithPlay(seed++);
    const body = JSON.stringify({ play: g.play });
    const h = { path: `/games/${g.id}/plays`, base: [['Host', host()], ['Authorization', `Bearer ${g.token}`], ['Content-Type', 'application/json']] };
    const r = await raw(srv.base, [build(body, h)], { end: 'half', timeout: 30_000 });
    if (viaFcgi && nginxDrops) {
      // nginx drops a header line it will not pass on (ignore_invalid_headers)
      // and serves the rest: the line never reaches croupier
      assert.ok([0, 200, 400].includes(r.status), `${what} via nginx: ${r.status} ${r.text.slice(0, 200)}`);
      continue;
    }
    if (!viaFcgi && serveTakes) { // nothing to smuggle here: a token name (RFC 9110), or a body whole to its last chunk
      assert.equal(r.status, 200, `${what}: ${r.text.slice(0, 200)}`);
      continue;
    }
    if (viaFcgi) {
      // nginx refuses what it cannot read (our error pages: problem+json), or
      // drops the bad line and passes a request without it: never a play
      assert.ok(r.status === 0 || (r.status >= 400 && r.status < 500), `${what} via nginx: ${r.status} ${r.text.slice(0, 200)}`);
      if (r.status) assert.match(r.headers['content-type'] || '', /problem\+json/, `${what} via nginx: problem+json`);
    } else {
      expectRawProblem(r, 400, what);
    }
    assert.equal(await versionOf(g.id), g.version, `${what}: the game did not change`);
  }
  // the control: the same play, well formed, is applied
  const g = await gameWithPlay(seed);
  const body = JSON.stringify({ play: g.play });
  const framing = viaFcgi ? [['Content-Length', String(Buffer.byteLength(body))]] : [['Transfer-Encoding', 'chunked']];
  const ok = await raw(srv.base, [http('POST', `/games/${g.id}/plays`, [['Host', host()], ['Authorization', `Bearer ${g.token}`],
    ['Content-Type', 'application/json'], ['Connection', 'close'], ...framing], viaFcgi ? body : `${chunk(body)}0\r\n\r\n`)]);
  assert.equal(ok.status, 200, ok.text.slice(0, 300));
  assert.ok(await versionOf(g.id) > g.version, 'the well-formed play was applied');
});

// civetweb keeps a connection open after a chunked body only when the
// body ended with its last chunk and the empty line: after a trailer
// section, or a missing final CRLF, it closes it, and a request sent after
// that body is never read (on croupier serve the body itself is taken,
// above). Through nginx chunked bodies are refused (411).
test('nothing after a chunked body\'s last chunk is read as a request unless the body ended with its empty line', { skip: viaFcgi && 'nginx refuses chunked bodies' }, async () => {
  const chunk = (s) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
  const next = `GET /healthz HTTP/1.1\r\nHost: ${host()}\r\n\r\n`;
  let seed = 230;
  for (const [what, end, statuses] of [
    ['the empty line (the control)', '0\r\n\r\n', [200, 200]],
    ['a trailer section', '0\r\nX-A: b\r\n\r\n', [200]],
    ['a trailer with a NUL byte', '0\r\nX-T\u0000: y\r\n\r\n', [200]],
    ['no final CRLF', '0\r\n', [200]],
  ]) {
    const g = await gameWithPlay(seed++);
    const body = JSON.stringify({ play: g.play });
    const r = await raw(srv.base, [http('POST', `/games/${g.id}/plays`, [['Host', host()], ['Authorization', `Bearer ${g.token}`],
      ['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']], `${chunk(body)}${end}`) + next],
    { untilClose: true, timeout: 15_000 });
    assert.deepEqual([...r.raw.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1])), statuses, `${what}: ${r.raw.slice(0, 300)}`);
    assert.ok(statuses.length === 2 || (r.closed && r.ms < 7000), `${what}: the connection is closed after the response (${r.ms} ms)`);
    assert.ok(await versionOf(g.id) > g.version, `${what}: the body, whole to its last chunk, was taken`);
  }
});

test('an HTTP/1.1 request must name its Host, once', { skip: viaFcgi && 'nginx answers these itself' }, async () => {
  expectRawProblem(await raw(srv.base, ['GET /healthz HTTP/1.1\r\n\r\n']), 400, 'no Host');
  expectRawProblem(await raw(srv.base, ['GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n']), 400, 'two Hosts');
  assert.equal((await raw(srv.base, ['GET /healthz HTTP/1.0\r\n\r\n'])).status, 200, 'HTTP/1.0 needs none');
});

test('absolute-form request-targets are served as their path or refused; OPTIONS * is answered', async () => {
  const { port } = new URL(srv.base);
  const own = await raw(srv.base, [`GET http://127.0.0.1:${port}/healthz HTTP/1.1\r\nHost: ${host()}\r\n\r\n`]);
  assert.equal(own.status, 200, `absolute form naming this server: ${own.text.slice(0, 200)}`);
  assert.equal(own.json?.status, 'ok');
  const other = await raw(srv.base, [`GET http://127.0.0.1:9/healthz HTTP/1.1\r\nHost: ${host()}\r\n\r\n`], { timeout: 8000 });
  assert.ok(other.status === 200 || other.status === 400, `another server's port: answered (${other.status})`);
  if (!viaFcgi) expectRawProblem(other, 400, 'absolute form naming another port');
  const star = await raw(srv.base, [`OPTIONS * HTTP/1.1\r\nHost: ${host()}\r\n\r\n`], { timeout: 8000 });
  assert.ok(star.status > 0, `OPTIONS * is answered: ${star.text.slice(0, 200)}`);
  if (!viaFcgi) {
    assert.equal(star.status, 204);
    assert.match(star.headers.allow, /GET/);
  }
  const notOptions = await raw(srv.base, [`GET * HTTP/1.1\r\nHost: ${host()}\r\n\r\n`], { timeout: 8000 });
  assert.ok(notOptions.status >= 400, `GET * is refused: ${notOptions.status}`);
});

// One worker serves every connection here, so each request below meets the
// state the one before it left on that thread: a request answered as its
// connection closed (absolute form, a bad request line) must not make the
// next connection's `OPTIONS *` go unanswered.
test('on one worker thread, OPTIONS * is answered after any kind of refusal', { skip: viaFcgi && 'the embedded server only' }, async () => {
  const one = await startServer({ extraArgs: ['--threads', '1'] });
  try {
    const h = new URL(one.base).host;
    const star = async (after) => {
      const r = await raw(one.base, [`OPTIONS * HTTP/1.1\r\nHost: ${h}\r\n\r\n`], { timeout: 8000 });
      assert.equal(r.status, 204, `OPTIONS * after ${after}: status ${r.status}`);
      assert.match(r.headers.allow || '', /GET/, `OPTIONS * after ${after}: Allow`);
    };
    await star('nothing');
    await star('OPTIONS *');
    expectRawProblem(await raw(one.base, [`GET http://127.0.0.1:9/healthz HTTP/1.1\r\nHost: ${h}\r\n\r\n`], { timeout: 8000 }), 400, 'another port');
    await star('an absolute-form refusal');
    expectRawProblem(await raw(one.base, [`GET * HTTP/1.1\r\nHost: ${h}\r\n\r\n`], { timeout: 8000 }), 400, 'GET *');
    await star('GET *');
    expectRawProblem(await raw(one.base, ['GET /healthz HTTP/1.1\r\nHost : a\r\n\r\n']), 400, 'a space before the colon');
    await star('a header refusal');
    expectRawProblem(await raw(one.base, ['GET /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n']), 400, 'a Content-Length civetweb cannot read');
    await star('a refusal by civetweb');
    assert.equal((await raw(one.base, [`GET /healthz HTTP/1.1\r\nHost: ${h}\r\n\r\n`])).status, 200, 'a request served');
    await star('a request served');
    // on one kept-alive connection: a request served, then OPTIONS *, answered as the connection closes
    const both = await raw(one.base, [`GET /healthz HTTP/1.1\r\nHost: ${h}\r\n\r\n`, 100, `OPTIONS * HTTP/1.1\r\nHost: ${h}\r\n\r\n`], { untilClose: true, timeout: 8000 });
    assert.ok(both.closed, 'the connection is closed after OPTIONS *');
    assert.deepEqual([...both.raw.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1])), [200, 204], `a kept-alive connection: ${both.raw.slice(0, 300)}`);
  } finally {
    const { code } = await one.stop();
    assert.equal(code, 0);
  }
});

test('no secret reaches the access log: query values named like a token are redacted, on every route', async (t) => {
  const dir = process.env.CROUPIER_TEST_ACCESS_LOG_DIR;
  if (!dir) return t.skip('run with CROUPIER_TEST_ACCESS_LOG_DIR (tests/run.sh does)');
  const g = await gameWithPlay(250);
  // a made-up secret: tests/access-log greps every log for the tokens the
  // run issued, and the control line below must not give it one
  const secret = `adm-${randomBytes(12).toString('base64url')}`;
  const names = ['token', 'access_token', 'adminToken', 'X-Api-Key', 'password', 'invite', '%74oken'];
  const paths = ['/healthz', `/games/${g.id}`, `/games/${g.id}/export`, '/nosuchroute', '/validate/comp10001bo/is_valid_play'];
  for (const p of paths) {
    for (const n of names) {
      const r = await fetch(`${srv.base}${p}?${n}=${secret}&page=2`); // any answer: the log is the point
      assert.ok(r.status >= 200, `${p}?${n}= answered`);
      await r.arrayBuffer();
      // ';' separates parameters too, in the query and in a path
      for (const q of [`${p}?page=1;${n}=${secret}`, `${p};${n}=${secret}`]) {
        const s = await fetch(`${srv.base}${q}`);
        assert.ok(s.status >= 200, `${q} answered`);
        await s.arrayBuffer();
      }
    }
  }
  // a control: the same value under a harmless name is logged as sent, so
  // the grep below would see a secret that got through
  await (await fetch(`${srv.base}/healthz?harmless=${secret}`)).arrayBuffer();
  await new Promise((r) => setTimeout(r, 300));
  // this front's logs only: the folder is shared by every pass of make test
  const mine = viaFcgi ? /^nginx-.*\.log$/ : /^civetweb-.*\.log$/;
  const logs = readdirSync(dir).filter((f) => mine.test(f)).map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n');
  assert.match(logs, new RegExp(`/games/${g.id}/export`), 'the requests were logged');
  const lines = logs.split('\n').filter((l) => l.includes(secret));
  if (viaFcgi) {
    // nginx's log format (deploy/nginx-fastcgi.conf) keeps no query string at all
    assert.deepEqual(lines, [], 'no line carries the value');
    assert.doesNotMatch(logs, /\?/, 'no query string in nginx\'s log');
  } else {
    assert.equal(lines.length, 1, `only the control line carries the value: ${lines.slice(0, 3).join(' | ')}`);
    assert.match(lines[0], /harmless=/);
    assert.ok(logs.includes('token=[redacted]&page=2'), 'the redacted parameter is marked, the others kept');
  }
});

// Request lines that cannot be read. Through nginx (deploy/nginx-fastcgi.conf)
// these were answered 500 in HTML: its error pages were named locations, and
// a request whose line was not read has no URI to jump from.
test('malformed request lines are answered 4xx (or 505) as problem+json, never 500', async () => {
  const lines = [
    'GET * HTTP/1.1', 'OPTIONS * HTTP/1.1', 'PRI * HTTP/2.0', 'get /healthz HTTP/1.1', 'G@T /healthz HTTP/1.1',
    'GET /a b HTTP/1.1', 'GET /healthz?x=1 y HTTP/1.1', 'GET /healthz HTTP/1.1 x', 'GET healthz HTTP/1.1',
    '/healthz HTTP/1.1', 'GET /\u0001 HTTP/1.1', 'GET\t/healthz HTTP/1.1', 'GET /healthz HTTP/1.1\u0000',
    'GET /healthz FOO/1.1', 'GET /healthz HTTP/9.9', 'GET /%zz HTTP/1.1',
  ];
  for (const line of lines) {
    const r = await raw(srv.base, [`${line}\r\nHost: ${host()}\r\n\r\n`], { timeout: 8000 });
    const what = JSON.stringify(line);
    if (!viaFcgi && line === 'OPTIONS * HTTP/1.1') { assert.equal(r.status, 204, what); continue; }
    assert.ok((r.status >= 400 && r.status < 500) || r.status === 505, `${what}: status ${r.status}: ${r.text.slice(0, 120)}`);
    expectRawProblem(r, r.status, what);
  }
});

// nginx's error log writes the whole request line (its query string with
// it) beside every error of a request: deploy/nginx-fastcgi.conf keeps only
// nginx's own failures there, so that no query string is kept.
test('nginx keeps no query string in its error logs', { skip: !viaFcgi && 'nginx in front only' }, async () => {
  const secret = `sec-${randomBytes(12).toString('base64url')}`;
  // a body over client_max_body_size: nginx refuses it (413) and reports an error
  const big = await raw(srv.base, [`POST /games?token=${secret}&page=2 HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\n`
    + 'Content-Length: 2000000\r\n\r\n{'], { timeout: 8000 });
  assert.equal(big.status, 413, big.text.slice(0, 200));
  // a request line nginx cannot read, and headers it will not read
  await raw(srv.base, [`GET /a b?token=${secret} HTTP/1.1\r\nHost: ${host()}\r\n\r\n`], { timeout: 8000 });
  await raw(srv.base, [`GET /healthz?token=${secret} HTTP/1.1\r\nHost: ${host()}\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`], { timeout: 8000 });
  await new Promise((r) => setTimeout(r, 300));
  const logs = srv.server.errorLogs();
  assert.doesNotMatch(logs, new RegExp(secret), `no error log line carries the query: ${logs.split('\n').filter((l) => l.includes(secret)).slice(0, 2).join(' | ')}`);
  assert.doesNotMatch(logs, /request: "[^"]*\?/, 'no request line with a query string');
});
