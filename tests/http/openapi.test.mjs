// The OpenAPI document itself: valid OpenAPI 3.1, every route described,
// every error a problem document; and the contract oracle can fail.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { doc, OPENAPI_TEXT, assertMatches, assertSchema, matchesSchema, findPathTemplate } from './lib/contract.mjs';
import { loadOpenapi, parseOpenapi, OPENAPI_PATH } from './lib/openapi_doc.mjs';

const fakeRes = (status, headers = {}) => ({ status, headers: new Headers(headers) });

test('openapi.yaml is a valid OpenAPI 3.1 document', async () => {
  const v = new Validator();
  const res = await v.validate(OPENAPI_TEXT);
  assert.equal(res.valid, true, JSON.stringify(res.errors, null, 2));
  assert.equal(v.version, '3.1');
  assert.equal(doc.openapi, '3.1.0');
});

test('the parse the tests share (tests/out/openapi.json) is the YAML\'s, and a stale one is parsed again', async () => {
  const parsed = await parseOpenapi(OPENAPI_TEXT);
  assert.deepEqual(doc, parsed, 'the document the contract checks against is the YAML\'s parse');
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-openapi-'));
  try {
    const cachePath = path.join(dir, 'openapi.json');
    const first = await loadOpenapi({ cachePath });
    assert.equal(first.cached, false, 'no cache yet: parsed');
    assert.deepEqual(first.doc, parsed);
    const again = await loadOpenapi({ cachePath });
    assert.equal(again.cached, true, 'the cache just written is used');
    assert.deepEqual(again.doc, parsed);
    // A cache of another YAML (an edit since it was written) is not used.
    const stale = JSON.parse(readFileSync(cachePath, 'utf8'));
    writeFileSync(cachePath, JSON.stringify({ sha256: '0'.repeat(64), doc: { ...stale.doc, openapi: 'stale' } }));
    const fresh = await loadOpenapi({ cachePath });
    assert.equal(fresh.cached, false, 'a cache of another YAML is parsed again');
    assert.equal(fresh.doc.openapi, parsed.openapi);
    // An edited YAML misses the cache of the old one.
    const yamlPath = path.join(dir, 'edited.yaml');
    writeFileSync(yamlPath, readFileSync(OPENAPI_PATH, 'utf8').replace(/^openapi: .*$/m, 'openapi: 3.1.1'));
    const edited = await loadOpenapi({ cachePath, yamlPath });
    assert.equal(edited.cached, false);
    assert.equal(edited.doc.openapi, '3.1.1');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every route is described (the games\' functions: registry_contract.test.mjs)', () => {
  const want = {
    '/': ['get'], '/openapi.yaml': ['get'], '/healthz': ['get'], '/metrics': ['get'],
    '/rules': ['get'], '/rules/{game}': ['get'], '/docs/rules/{page}': ['get'], '/games': ['post'],
    '/games/{id}': ['get', 'delete'], '/games/{id}/plays': ['get', 'post'],
    '/games/{id}/legal': ['get'], '/games/{id}/hint': ['get'], '/games/{id}/export': ['get'],
    '/validate': ['post'], '/games/{id}/events': ['get'], '/games/{id}/ws': ['get'],
    '/games/import': ['post'],
  };
  for (const [p, methods] of Object.entries(want)) {
    assert.ok(doc.paths[p], `path ${p} described`);
    for (const m of methods) assert.ok(doc.paths[p][m], `${m.toUpperCase()} ${p} described`);
  }
  assert.ok(doc.paths['/games/{id}/export'].get.parameters.find((p) => p.name === 'format').schema.enum.includes('json'));
});

test('every error response is application/problem+json built on Problem', () => {
  const resolve = (r) => (r.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r);
  let n = 0;
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(item)) {
      if (typeof op !== 'object' || !op.responses) continue;
      assert.ok(op.responses.default, `${m} ${p} has a default (problem) response`);
      for (const [status, r0] of Object.entries(op.responses)) {
        if (status !== 'default' && Number(status) < 400) continue;
        const r = resolve(r0);
        const ct = Object.keys(r.content || {});
        assert.deepEqual(ct, ['application/problem+json'], `${m} ${p} ${status}`);
        assert.match(JSON.stringify(r.content['application/problem+json'].schema), /#\/components\/schemas\/Problem"/, `${m} ${p} ${status}`);
        n++;
      }
    }
  }
  assert.ok(n > 40);
  for (const member of ['type', 'title', 'status', 'detail', 'instance', 'errors', 'rule', 'legal', 'version']) {
    assert.ok(doc.components.schemas.Problem.properties[member], `Problem.${member}`);
  }
});

test('security schemes, ETag, If-Match, If-None-Match, Location and Allow are documented', () => {
  const ss = doc.components.securitySchemes;
  assert.equal(ss.seatToken.scheme, 'bearer');
  assert.equal(ss.adminToken.scheme, 'bearer');
  assert.equal(doc.paths['/games/{id}'].get.responses['200'].headers.ETag.$ref, '#/components/headers/ETag');
  assert.ok(doc.paths['/games/{id}/plays'].post.parameters.some((p) => p.$ref === '#/components/parameters/IfMatch'));
  assert.ok(doc.paths['/games/{id}'].get.parameters.some((p) => p.$ref === '#/components/parameters/IfNoneMatch'));
  assert.equal(doc.paths['/games'].post.responses['201'].headers.Location.$ref, '#/components/headers/Location');
  assert.ok(doc.components.responses.MethodNotAllowed.headers.Allow);
  assert.deepEqual(doc.paths['/games/{id}/plays'].post.security, [{ seatToken: [] }]);
});

test('path templates are found for concrete paths', () => {
  assert.equal(findPathTemplate('/games'), '/games');
  assert.equal(findPathTemplate('/games/abcDEF0123456789xyz/plays'), '/games/{id}/plays');
  assert.equal(findPathTemplate('/games/abcDEF0123456789xyz?after=1'), '/games/{id}');
  assert.equal(findPathTemplate('/rules/comp10001bo'), '/rules/{game}');
  assert.equal(findPathTemplate('/validate/comp10001bo/match_build'), '/validate/comp10001bo/match_build');
  assert.equal(findPathTemplate('/games/x/nope'), null);
});

// The oracle must be able to fail: feed it responses that break the contract.
test('the contract oracle rejects responses that break the contract', () => {
  const json = { 'content-type': 'application/json; charset=utf-8' };
  const problem = { 'content-type': 'application/problem+json' };
  const okResult = '{"result":true}';
  assertMatches('POST', '/validate/comp10001bo/match_build', fakeRes(200, json), okResult);
  assert.throws(() => assertMatches('POST', '/validate/comp10001bo/match_build', fakeRes(200, json), '{"result":1}'));
  assert.throws(() => assertMatches('POST', '/validate/comp10001bo/match_discard', fakeRes(200, json), '{"result":3}'));
  assert.throws(() => assertMatches('POST', '/validate/comp10001bo/match_build', fakeRes(200, { 'content-type': 'text/plain' }), okResult));
  assert.throws(() => assertMatches('POST', '/validate/comp10001bo/match_build', fakeRes(201, json), okResult));
  const p404 = JSON.stringify({ type: '/problems/not-found', title: 'Not found', status: 404, detail: 'no such game', instance: '/games/x' });
  assertMatches('GET', '/games/abcdefghijklmnopqrst', fakeRes(404, problem), p404);
  assert.throws(() => assertMatches('GET', '/games/abcdefghijklmnopqrst', fakeRes(404, json), p404), /Content-Type/);
  assert.throws(() => assertMatches('GET', '/games/abcdefghijklmnopqrst', fakeRes(404, problem), 'Not Found'));
  assert.throws(() => assertMatches('GET', '/games/abcdefghijklmnopqrst', fakeRes(404, problem), p404.replace('"status":404', '"status":400')));
  const p405 = JSON.stringify({ type: '/problems/method-not-allowed', title: 'Method not allowed', status: 405, detail: 'x', instance: '/games' });
  assertMatches('PUT', '/games', fakeRes(405, { ...problem, allow: 'POST' }), p405);
  assert.throws(() => assertMatches('PUT', '/games', fakeRes(405, problem), p405), /Allow/);
  assert.throws(() => assertMatches('PUT', '/games', fakeRes(405, { ...problem, allow: 'GET, POST' }), p405), /Allow/);
  assert.throws(() => assertMatches('PUT', '/games', fakeRes(200, json), '{}'));
  assert.throws(() => assertMatches('GET', '/no/such/path', fakeRes(200, json), '{}'));
  assert.throws(() => assertMatches('DELETE', '/games/abcdefghijklmnopqrst', fakeRes(204, {}), 'x'));
  assertMatches('DELETE', '/games/abcdefghijklmnopqrst', fakeRes(204, {}), '');
  // ETag is required on GET /games/{id}.
  assert.throws(() => assertMatches('GET', '/games/abcdefghijklmnopqrst', fakeRes(200, json), '{}'), /ETag/);
});

test('Comp10001boView and Comp10001boPlay schemas', () => {
  const empty4 = () => [[], [], [], []];
  const view = {
    game: 'comp10001bo', variant: 'standard', seat: 0, current: 0, turn: 0, turns: [0, 0, 0, 0],
    plays_this_turn: 0, over: false, result: 'playing', winner: null, draw_pile: 52, hand_sizes: [5, 5, 5, 5],
    hand: ['2C', 'AS', '9D', '0D', '0S'],
    stockpiles: [{ top: '9C', count: 8 }, { top: '0D', count: 8 }, { top: '3H', count: 8 }, { top: 'KD', count: 8 }],
    discard_piles: [empty4(), empty4(), empty4(), empty4()], build_piles: empty4(),
  };
  assertSchema('Comp10001boView', view);
  assertSchema('GameView', view);
  assert.ok(!matchesSchema('GameView', { ...view, hand: ['1C'] }), 'bad card');
  assert.ok(!matchesSchema('GameView', { ...view, turns: [0, 0, 0] }), 'turns of 4');
  assert.ok(!matchesSchema('GameView', { ...view, result: 'done' }), 'result enum');
  assert.ok(matchesSchema('GameView', { game: 'othergame', anything: 1 }), 'a game without its own schema is generic');
  assert.ok(!matchesSchema('GameView', { game: 'hanabi', anything: 1 }), 'hanabi views follow HanabiView');
  for (const p of [[0, '2C', [0, 0]], [1, ['2C', [1, 0]], [1, [0, 3]]], [2, 'KC', [0, 1]], [3, null, [null, null]]]) {
    assertSchema('Comp10001boPlay', p);
  }
  for (const p of [[0, '2C', [0, 4]], [1, '2C', [0, 0]], [3, null, null], [0, '2C'], [true, '2C', [0, 0]]]) {
    assert.ok(!matchesSchema('Comp10001boPlay', p), JSON.stringify(p));
  }
});
