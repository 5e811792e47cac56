// The nginx half of the quotas (deploy/nginx-fastcgi.conf, as shipped):
// game creation and imports limited per client address with nginx's own
// limit_req (2 a second, bursts of 20), answered 429 as croupier's
// problem+json (`too-many-requests`) with Retry-After, while the same
// address's other requests, and other addresses, are served. Runs in the
// FastCGI pass (CROUPIER_TEST_FRONT=fcgi); croupier serve has its own
// quotas (--rate-* options) and no nginx in front.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test, before, after } from 'node:test';
import { startServer, request } from './lib/server.mjs';
import { assertMatches, assertSchema } from './lib/contract.mjs';

const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';
const skip = !viaFcgi && 'nginx in front only (CROUPIER_TEST_FRONT=fcgi)';
let server;

before(async () => { if (viaFcgi) server = await startServer({ shippedRates: true }); });
after(async () => {
  if (!server) return;
  const { code } = await server.stop();
  assert.equal(code, 0);
});

/** One request from the local address `from` (127.0.0.x: another client to nginx). */
function from(addr, method, p, json) {
  const body = json === undefined ? undefined : JSON.stringify(json);
  return new Promise((resolve, reject) => {
    const u = new URL(server.base + p);
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method, localAddress: addr, agent: false,
      headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        const headers = new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)]));
        assertMatches(method, p, { status: res.statusCode, headers }, text);
        resolve({ status: res.statusCode, headers, text, json: /json/.test(res.headers['content-type'] || '') ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const game = (seed) => ({ game: 'comp10001bo', seed, players: [{ name: 'A' }, { name: 'B' }, { name: 'C' }, { name: 'D' }] });

test('a burst of game creations from one address is refused 429 past the burst; others are served', { skip }, async () => {
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => from('127.0.0.1', 'POST', '/games', game(i))));
  const made = answers.filter((r) => r.status === 201).length;
  const refused = answers.filter((r) => r.status === 429);
  assert.equal(made + refused.length, 40, `every answer is 201 or 429: ${answers.map((r) => r.status).join(' ')}`);
  assert.ok(made >= 20, `the burst was served: ${made} made`);
  assert.ok(refused.length >= 10, `past the burst, refused: ${refused.length} of 40`);
  for (const r of refused) {
    assert.match(r.headers.get('content-type'), /^application\/problem\+json/);
    assert.equal(r.json.type, '/problems/too-many-requests');
    assert.equal(r.json.title, 'Too many requests', 'the error table\'s title');
    assert.equal(r.json.status, 429);
    assert.equal(r.json.instance, '/games');
    assertSchema('Problem', r.json, '429');
    assert.match(r.headers.get('retry-after') || '', /^\d+$/, 'Retry-After');
  }
  // imports share the quota of the address that is past it: asked at once,
  // five of them; the quota refills 2 a second, so a slow machine may let
  // one or two through to the body's check (400), never most
  const imps = await Promise.all(Array.from({ length: 5 }, () => from('127.0.0.1', 'POST', '/games/import', { state: {} })));
  const impRefused = imps.filter((r) => r.status === 429);
  assert.ok(impRefused.length >= 3, `imports from the same address refused: ${imps.map((r) => r.status).join(' ')}`);
  for (const r of impRefused) assert.equal(r.json.instance, '/games/import');
  // the same address's other requests, and another address's creations, are served meanwhile
  const health = await request(server.base, 'GET', '/healthz');
  assert.equal(health.status, 200);
  const other = await from('127.0.0.2', 'POST', '/games', game(99));
  assert.equal(other.status, 201, `another address creates: ${other.text.slice(0, 200)}`);
  // and a second later, one more is taken (2 a second)
  await new Promise((r) => setTimeout(r, 1100));
  assert.equal((await from('127.0.0.1', 'POST', '/games', game(100))).status, 201, 'the quota refills');
});
