// Service endpoints: /, /openapi.yaml, /openapi.json, /healthz, /metrics,
// /rules, /rules/{game}, the games' rules pages (/docs/rules/{game}.md),
// unknown paths and methods.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { useServer, startServer, request, expectStatus, expectProblem } from './lib/server.mjs';
import { OPENAPI_TEXT, ROOT, doc } from './lib/contract.mjs';

const srv = useServer();

test('GET / is the web page (text/html)', async () => {
  const r = await srv.get('/');
  expectStatus(r, 200);
  assert.match(r.headers.get('content-type'), /^text\/html/);
  assert.match(r.text, /<html|<!doctype html/i);
});

test('GET /healthz', async () => {
  const r = await srv.get('/healthz');
  expectStatus(r, 200);
  assert.equal(r.json.status, 'ok');
  assert.equal(r.json.store, (process.env.CROUPIER_TEST_STORE || 'sqlite').startsWith('postgres') ? 'postgres' : 'sqlite');
  // the release is VERSION's, the commit the one the binary was built from
  // (HEAD or an ancestor of it, "-dirty" if the tree had changes), the
  // same that `croupier --version` names
  assert.equal(r.json.version, readFileSync(path.join(ROOT, 'VERSION'), 'utf8').trim());
  const bin = process.env.CROUPIER_BIN || 'build/croupier';
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  assert.equal(v.stdout, `croupier ${r.json.version} (commit ${r.json.commit})\n`);
  const inGit = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT }).status === 0;
  if (!inGit) return assert.equal(r.json.commit, 'unknown', 'built outside git');
  const m = /^([0-9a-f]{7,40})(-dirty)?$/.exec(r.json.commit);
  assert.ok(m, `commit ${r.json.commit}`);
  const anc = spawnSync('git', ['merge-base', '--is-ancestor', m[1], 'HEAD'], { cwd: ROOT });
  assert.equal(anc.status, 0, `${m[1]} is HEAD or an ancestor of it`);
});

test('GET /openapi.yaml is openapi/openapi.yaml, and parses', async () => {
  const r = await srv.get('/openapi.yaml');
  expectStatus(r, 200);
  assert.match(r.headers.get('content-type'), /^application\/yaml/);
  assert.equal(r.text, OPENAPI_TEXT, 'served document equals the file');
  assert.equal(YAML.parse(r.text).openapi, '3.1.0');
});

test('GET /openapi.json is the same document as JSON', async () => {
  const r = await srv.get('/openapi.json');
  expectStatus(r, 200);
  assert.deepEqual(r.json, doc);
});

test('GET /rules lists comp10001bo with variants, 4..4 players, bots and functions', async () => {
  const r = await srv.get('/rules');
  expectStatus(r, 200);
  const g = r.json.games.find((x) => x.game === 'comp10001bo');
  assert.ok(g, `comp10001bo in ${r.text}`);
  assert.equal(g.title, 'Comp10001-Bo');
  assert.equal(g.variants[0], 'standard', 'standard is the default variant');
  assert.deepEqual({ min: g.players.min, max: g.players.max }, { min: 4, max: 4 });
  assert.ok(g.bots.length >= 1, 'at least one bot');
  const paths = g.functions.map((f) => f.path).sort();
  for (const p of ['/validate/comp10001bo/match_build', '/validate/comp10001bo/match_discard',
    '/validate/comp10001bo/is_valid_play', '/play/comp10001bo']) {
    assert.ok(paths.includes(p), `function ${p} listed: ${paths}`);
    assert.ok(doc.paths[p], `function ${p} is described in openapi.yaml`);
  }
  for (const f of g.functions) {
    assert.ok(doc.paths[f.path], `every listed function is in openapi.yaml: ${f.path}`);
    assert.match(f.signature, /^comp10001bo_\w+\(/);
  }
});

test('GET /rules/comp10001bo', async () => {
  const r = await srv.get('/rules/comp10001bo');
  expectStatus(r, 200);
  assert.equal(r.json.game, 'comp10001bo');
  assert.equal(r.json.title, 'Comp10001-Bo');
  assert.ok(r.json.variants.includes('standard'));
  assert.deepEqual({ min: r.json.players.min, max: r.json.players.max }, { min: 4, max: 4 });
  const cat = (await srv.get('/rules')).json.games.find((x) => x.game === 'comp10001bo');
  const names = r.json.bots.map((b) => (typeof b === 'string' ? b : b.name));
  assert.deepEqual(names, cat.bots, 'same bots as the catalogue');
  assert.deepEqual(r.json.variants, cat.variants, 'same variants as the catalogue');
});

// The pages are the repository's docs/rules/<game>.md: every game must have
// its page, and the server (started in the repository: --docs docs) must
// serve it byte for byte.
const RULES_DIR = path.join(ROOT, 'docs', 'rules');
test('every game of GET /rules links its rules page, and the server serves it', async () => {
  const games = (await srv.get('/rules')).json.games;
  assert.ok(games.length >= 4, 'the games are listed');
  for (const g of games) {
    const want = `/docs/rules/${g.game}.md`;
    assert.equal(g.rules_page, want, `GET /rules: ${g.game}'s rules_page`);
    assert.equal((await srv.get(`/rules/${g.game}`)).json.rules_page, want, `GET /rules/${g.game}: rules_page`);
    const file = path.join(RULES_DIR, `${g.game}.md`);
    assert.ok(existsSync(file), `docs/rules/${g.game}.md is in the repository`);
    const r = await srv.get(want);
    expectStatus(r, 200, want);
    assert.match(r.headers.get('content-type'), /^text\/markdown; charset=utf-8$/);
    assert.equal(r.text, readFileSync(file, 'utf8'), `${want} is docs/rules/${g.game}.md as it is`);
    // rendered as a page: every heading of the Markdown a heading, its tables tables
    const html = `/docs/rules/${g.game}.html`;
    assert.equal(g.rules_html, html, `GET /rules: ${g.game}'s rules_html`);
    const p = await srv.get(html);
    expectStatus(p, 200, html);
    assert.match(p.headers.get('content-type'), /^text\/html; charset=utf-8$/);
    assert.match(p.headers.get('content-security-policy'), /^default-src 'self'/);
    // the players' part: the Markdown up to its mark (what follows is for programs)
    const full = readFileSync(file, 'utf8');
    const mark = full.indexOf("<!-- The players' page ends here");
    assert.ok(mark > 0, `docs/rules/${g.game}.md marks where the players' page ends`);
    const md = full.slice(0, mark).replace(/```[\s\S]*?```/g, '');
    assert.equal((p.text.match(/<h2>/g) || []).length, (md.match(/^## /gm) || []).length, `${html}: the sections`);
    assert.equal((p.text.match(/<table>/g) || []).length, (md.match(/^\|[-| :]+\|$/gm) || []).length, `${html}: the tables`);
    // what a player reads there holds no API: routes, JSON members or shapes, reason codes
    const body = p.text.slice(p.text.indexOf('<main'), p.text.indexOf('</main>')).replace(/<a href="[^"]*"/g, '<a').replace(/<[^>]+>/g, ' ')
      .replace(/&quot;/g, '"');
    for (const [what, re] of [['a route', /\b(GET|POST) \/|\/games\b/], ['a JSON member', /"[a-z_]+":/], ['a JSON shape', /[{}]|\[\d/],
      ['a reason code', /\breason \d/], ['paging', /\b(limit|offset)\b/]]) {
      const m = re.exec(body);
      assert.equal(m, null, `${html}: ${what} ("${m && m[0]}") in the players' page: ${m && body.slice(Math.max(0, m.index - 60), m.index + 60)}`);
    }
    assert.match(p.text, new RegExp(`<a href="${g.game}\\.md">the rules in full</a>`), `${html} links the rules in full`);
  }
});

test('rules pages: only a registered game\'s page, from --docs, never another file', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-docs-'));
  mkdirSync(path.join(dir, 'rules'));
  const page = '# Hanabi\n\nA page made by this test: `GET /docs/rules/hanabi.md` serves it ✓\n';
  writeFileSync(path.join(dir, 'rules', 'hanabi.md'), page);
  writeFileSync(path.join(dir, 'rules', 'nosuchgame.md'), 'not a game of the registry\n');
  writeFileSync(path.join(dir, 'secret.md'), 'outside rules/\n');
  const s = await startServer({ extraArgs: ['--docs', dir] });
  try {
    const r = await request(s.base, 'GET', '/docs/rules/hanabi.md');
    expectStatus(r, 200);
    assert.equal(r.text, page, 'the file as it is, UTF-8 included');
    assert.equal(r.headers.get('cache-control'), 'no-cache');
    // installed elsewhere, or not at all: a 404 that says how to serve it
    const missing = expectProblem(await request(s.base, 'GET', '/docs/rules/phazed.md'), 404, 'not-found');
    assert.match(missing.detail, /--docs/);
    // a file that is there but is no game's page, names without .md, other files
    for (const p of ['/docs/rules/nosuchgame.md', '/docs/rules/nosuchgame.html', '/docs/rules/hanabi.htm', '/docs/rules/hanabi', '/docs/rules/hanabi.md.md',
      '/docs/rules/.md', '/docs/secret.md', '/docs/rules/..%2Fsecret.md', '/docs/rules/%2E%2E/secret.md']) {
      expectProblem(await request(s.base, 'GET', p), 404, 'not-found', p);
    }
    expectProblem(await request(s.base, 'POST', '/docs/rules/hanabi.md', { json: {} }), 405, 'method-not-allowed');
  } finally {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('GET /rules/{unknown game} -> 404', async () => {
  const p = expectProblem(await srv.get('/rules/nosuchgame'), 404, 'not-found');
  assert.equal(p.instance, '/rules/nosuchgame');
});

test('405 with Allow for methods a path does not have', async () => {
  // assertMatches checks Allow equals the documented methods of the path.
  for (const [m, p] of [['DELETE', '/rules'], ['POST', '/rules'], ['PUT', '/games'], ['GET', '/games'],
    ['POST', '/healthz'], ['PUT', '/games/AAAAAAAAAAAAAAAAAAAAAAAA'], ['DELETE', '/validate'],
    ['GET', '/validate/comp10001bo/match_build'], ['PATCH', '/games/AAAAAAAAAAAAAAAAAAAAAAAA/plays']]) {
    const r = await srv.request(m, p);
    expectProblem(r, 405, 'method-not-allowed', `${m} ${p}`);
    assert.ok(r.headers.get('allow'), `${m} ${p} Allow`);
  }
  const r = await srv.request('DELETE', '/rules');
  assert.match(r.headers.get('allow'), /^GET$/);
});

test('unknown paths -> 404 problem, never HTML or plain text', async () => {
  for (const p of ['/nope', '/games/AAAAAAAAAAAAAAAAAAAAAAAA/nope', '/validate/comp10001bo/nope',
    '/validate/nosuchgame/match_build', '/play/nosuchgame', '/rules/comp10001bo/extra']) {
    const method = p.startsWith('/validate') || p.startsWith('/play') ? 'POST' : 'GET';
    const r = await srv.request(method, p, method === 'POST' ? { json: [] } : {});
    expectProblem(r, 404, 'not-found', p);
  }
});

test('GET /metrics: Prometheus text with request counters', async () => {
  await srv.get('/healthz');
  const r = await srv.get('/metrics');
  expectStatus(r, 200);
  assert.match(r.headers.get('content-type'), /^text\/plain/);
  assert.match(r.text, /^croupier_http_requests_total\{[^}]*status="200"[^}]*\} [0-9.e+]+$/m);
  const n = Number(/^croupier_http_requests_total\{[^}]*status="200"[^}]*\} ([0-9.e+]+)$/m.exec(r.text)[1]);
  assert.ok(n >= 1, 'at least one 200 counted');
  assert.match(r.text, /^croupier_http_request_duration_seconds_sum(\{[^}]*\})? [0-9.e+-]+$/m);
  assert.match(r.text, /^croupier_http_request_duration_seconds_count(\{[^}]*\})? [0-9.e+]+$/m);
  assert.match(r.text, /^croupier_games_created_total(\{[^}]*\})? [0-9.e+]+$/m);
  // A 404 is counted under its status.
  await srv.get('/nope');
  const r2 = await srv.get('/metrics');
  assert.match(r2.text, /^croupier_http_requests_total\{[^}]*status="404"[^}]*\} [1-9][0-9.e+]*$/m);
});

test('--body-limit is configurable (413 above it, JSON below it)', async () => {
  const small = await startServer({ extraArgs: ['--body-limit', '2048'] });
  try {
    const pad = (n) => JSON.stringify(['2C', [], 'x'.repeat(n)]);
    const big = await request(small.base, 'POST', '/validate/comp10001bo/match_build', { body: pad(3000), contentType: 'application/json' });
    const p = expectProblem(big, 413, 'payload-too-large');
    assert.equal(p.instance, '/validate/comp10001bo/match_build');
    const ok = await request(small.base, 'POST', '/validate/comp10001bo/match_build', { body: pad(1000), contentType: 'application/json' });
    expectProblem(ok, 400, 'invalid-member', 'under the limit: parsed (then an extra argument)');
  } finally {
    const { code } = await small.stop();
    assert.equal(code, 0, 'clean shutdown');
  }
});
