// GET /cases/{game}/{fn}: the autograder kit's generated cases
// (docs/autograder.md) against the server's own oracle routes, and the whole
// loop: the generated pytest file run with python3 against a module that
// answers through /validate and /play (tests/http/lib/oracle.py), which
// must pass every case, and against a module with one clause broken, which
// must fail exactly that clause.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';
import { ROOT } from './lib/contract.mjs';

const srv = useServer();
const BIN = path.resolve(ROOT, process.env.CROUPIER_BIN || 'build/croupier');

// Every suite the binary knows: [game, fn, variant, course_name, clauses].
const SUITES = spawnSync(BIN, ['cases', '--list'], { encoding: 'utf8' }).stdout.trim().split('\n').slice(1)
  .map((l) => l.trim().split(/\s+/)).map(([g, f, v, c, k]) => [g, f, v, c, Number(k)]);

const route = (g, fn, v, query = '') => `/cases/${g}/${fn}?variant=${v}${query}`;
const oraclePath = (g, fn, v) => {
  if (fn !== 'play') return `/validate/${g}/${fn}?variant=${v}`;
  return g === 'comp10001bo' && v === 'bonus' ? '/play/comp10001bo/bonus' : `/play/${g}?variant=${v}`;
};
const validPath = (g, v) => `/validate/${g}/is_valid_play?variant=${v}`;

test('the binary lists a suite for every autograder function and variant of both courses', () => {
  const have = SUITES.map(([g, f, v]) => `${g} ${f} ${v}`);
  for (const f of ['match_build', 'match_discard', 'is_valid_play', 'play'])
    for (const v of ['standard', 'bonus']) assert.ok(have.includes(`comp10001bo ${f} ${v}`), `comp10001bo ${f} ${v}`);
  for (const f of ['group_type', 'phase_type', 'is_valid_play', 'score', 'play'])
    for (const v of ['standard', 'bonus']) assert.ok(have.includes(`phazed ${f} ${v}`), `phazed ${f} ${v}`);
  assert.equal(SUITES.length, 18);
});

test('jsonl: n cases numbered 0..n-1, the same for the same seed, a prefix for a smaller n', async () => {
  for (const [g, f, v] of SUITES) {
    const r = await srv.get(route(g, f, v, '&n=12&seed=7'));
    expectStatus(r, 200, `${g} ${f} ${v}`);
    assert.match(r.headers.get('content-type'), /^application\/x-ndjson/);
    const lines = r.text.trim().split('\n');
    assert.equal(lines.length, 12);
    lines.map((l) => JSON.parse(l)).forEach((c, i) => {
      assert.equal(c.id, i);
      assert.ok(Array.isArray(c.args) && typeof c.rule === 'string' && typeof c.why === 'string' && c.why.length > 0);
      assert.ok(f === 'play' ? Array.isArray(c.legal) && !('expected' in c) : 'expected' in c, `${g} ${f}: ${l0(c)}`);
    });
    assert.equal((await srv.get(route(g, f, v, '&n=12&seed=7'))).text, r.text, 'same seed, same cases');
    const five = (await srv.get(route(g, f, v, '&n=5&seed=7'))).text;
    assert.equal(five, lines.slice(0, 5).join('\n') + '\n', 'case i does not depend on n');
    assert.notEqual((await srv.get(route(g, f, v, '&n=12&seed=8'))).text, r.text, 'another seed, other cases');
  }
});
const l0 = (c) => JSON.stringify(c).slice(0, 300);

test('json: the document, and n = the number of clauses covers every clause once', async () => {
  for (const [g, f, v, course, k] of SUITES) {
    const r = await srv.get(route(g, f, v, `&n=${k}&format=json&seed=3`));
    expectStatus(r, 200);
    const d = r.json;
    assert.deepEqual([d.game, d.fn, d.variant, d.course_name, d.seed, d.n], [g, f, v, course, 3, k]);
    assert.equal(d.clauses.length, k);
    assert.ok(d.shapes.params.length >= 1 && 'return' in d.shapes);
    const ids = d.clauses.map((c) => c.id);
    for (const id of ids) assert.match(id, /^[a-z0-9]+(\.[a-z0-9_-]+){2,}$/, `${id}: <game>.<area>.<clause>`);
    assert.deepEqual([...d.cases.map((c) => c.rule)].sort(), [...ids].sort(), `${g} ${f} ${v}: each clause once`);
  }
});

test("every expected answer is the oracle route's answer; every legal play is valid and the bot's play is legal", async () => {
  for (const [g, f, v, , k] of SUITES) {
    const { text } = await srv.get(route(g, f, v, `&n=${k}&seed=11`));
    for (const c of text.trim().split('\n').map((l) => JSON.parse(l))) {
      const r = await srv.post(oraclePath(g, f, v), c.args);
      expectStatus(r, 200, `${g} ${f} ${v} case ${c.id}`);
      if (f !== 'play') {
        assert.deepEqual(r.json.result, c.expected, `${g} ${f} ${v} case ${c.id}: ${l0(c)}`);
        continue;
      }
      const inLegal = c.legal.some((p) => JSON.stringify(p) === JSON.stringify(r.json.result));
      assert.ok(inLegal || (c.check && r.json.result[0] === 3), `${g} ${v} case ${c.id}: the bot's ${JSON.stringify(r.json.result)} is legal`);
      // the course's is_valid_play judges the legal plays and the bot's play
      const a = c.args;
      const ctx = g === 'phazed' ? a : g === 'comp10001bo' && v === 'bonus' ? [a[0], a[1], a[4], a[5], a[6]] : a.slice(0, 5);
      for (const p of [...c.legal.slice(0, 4), r.json.result]) {
        if (g === 'comp10001bo' && (p[0] === 4 || p[0] === 5)) continue; // no embargo arguments there
        const ok = await srv.post(validPath(g, v), [p, ...ctx]);
        expectStatus(ok, 200);
        assert.ok(g === 'phazed' ? ok.json.result === true : [1, 2, 3].includes(ok.json.result),
          `${g} ${v} case ${c.id}: ${JSON.stringify(p)} is valid (${ok.json.result})`);
      }
    }
  }
});

test('bad parameters are 400 problems naming the parameter; unknown game, function or suite 404', async () => {
  for (const [q, name] of [['n=0', 'n'], ['n=5001', 'n'], ['n=x', 'n'], ['seed=-1', 'seed'], ['seed=1.5', 'seed'],
    ['format=xml', 'format'], ['variant=rainbow', 'variant']]) {
    const p = expectProblem(await srv.get(`/cases/comp10001bo/match_build?${q}`), 400, 'invalid-parameter', q);
    assert.equal(p.parameter, name, q);
  }
  expectProblem(await srv.get('/cases/nosuch/match_build'), 404, 'not-found');
  expectProblem(await srv.get('/cases/comp10001bo/nosuch'), 404, 'not-found');
  expectProblem(await srv.get('/cases/hanabi/play'), 404, 'not-found');
  const r = await srv.request('POST', '/cases/comp10001bo/match_build', { json: [] });
  assert.equal(r.status, 405);
});

// A child process, awaited without blocking the event loop (a blocked loop
// would let the test client reuse a keep-alive connection the server closed).
function run(cmd, args, { cwd, env = {} } = {}) {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { cwd, env: { ...process.env, ...env } });
    let stdout = '', stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    const t = setTimeout(() => p.kill(), 300_000);
    p.on('close', (status) => { clearTimeout(t); resolve({ status, stdout, stderr }); });
    p.on('error', () => { clearTimeout(t); resolve({ status: -1, stdout, stderr }); });
  });
}
const python = (args, env, cwd) => run('python3', args, { cwd, env: { CROUPIER_URL: srv.base, ...env } });

test('the pytest file, plain form: every suite passes the server-backed reference', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-kit-'));
  try {
    copyFileSync(path.join(ROOT, 'tests/http/lib/oracle.py'), path.join(dir, 'oracle.py'));
    for (const [g, f, v, course, k] of SUITES) {
      const r = await srv.get(route(g, f, v, `&n=${k}&format=pytest&seed=5`));
      expectStatus(r, 200);
      assert.match(r.headers.get('content-type'), /^text\/x-python/);
      const file = path.join(dir, `test_${course}_${v}.py`);
      writeFileSync(file, r.text);
      const p = await python([file, 'oracle'], { CROUPIER_VARIANT: v }, dir);
      assert.equal(p.status, 0, `${g} ${f} ${v}:\n${p.stdout.slice(-3000)}\n${p.stderr.slice(-2000)}`);
      assert.match(p.stdout, new RegExp(`^${k} passed, 0 failed$`, 'm'));
      assert.match(p.stdout, /^clause +cases +failed$/m);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the pytest file finds a broken clause and names it: a match_build that lets piles wrap', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-kit-'));
  try {
    copyFileSync(path.join(ROOT, 'tests/http/lib/oracle.py'), path.join(dir, 'oracle.py'));
    writeFileSync(path.join(dir, 'wraps.py'), [
      'import oracle',
      'def comp10001bo_match_build(card, pile):',
      "    if pile and {card[0], pile[-1][0]} == {'K', '2'} and (card[1] in 'HD') == (pile[-1][1] in 'HD'):",
      '        return True',
      '    return oracle.comp10001bo_match_build(card, pile)', ''].join('\n'));
    const r = await srv.get(route('comp10001bo', 'match_build', 'standard', '&n=50&format=pytest'));
    writeFileSync(path.join(dir, 't.py'), r.text);
    const p = await python(['t.py', 'wraps'], {}, dir);
    assert.equal(p.status, 1, p.stdout.slice(-2000));
    assert.match(p.stdout, /^comp10001bo\.build\.no-wrap +10 +10 +build piles do not wrap/m);
    for (const other of ['start', 'colour', 'adjacent', 'complete'])
      assert.match(p.stdout, new RegExp(`^comp10001bo\\.build\\.${other} +10 +0$`, 'm'));
    assert.match(p.stdout, /expected: False\n {2}actual: {3}True/);
    assert.match(p.stdout, /^40 passed, 10 failed$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the pytest file under pytest: STUDENT_MODULE, every case a test, the per-clause report at the end', async () => {
  const pytest = ['pytest-3', 'pytest'].find((b) => spawnSync(b, ['--version']).status === 0);
  assert.ok(pytest, 'pytest is missing: make deps installs python3-pytest');
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-kit-'));
  try {
    copyFileSync(path.join(ROOT, 'tests/http/lib/oracle.py'), path.join(dir, 'oracle.py'));
    const r = await srv.get(route('comp10001bo', 'is_valid_play', 'standard', '&n=38&format=pytest'));
    writeFileSync(path.join(dir, 'test_ivp.py'), r.text);
    const p = await run(pytest, ['-q', '-p', 'no:cacheprovider', 'test_ivp.py'], {
      cwd: dir, env: { CROUPIER_URL: srv.base, STUDENT_MODULE: 'oracle' },
    });
    assert.equal(p.status, 0, p.stdout.slice(-3000) + p.stderr.slice(-1000));
    assert.match(p.stdout, /38 passed/);
    assert.match(p.stdout, /Croupier: per-clause report/);
    assert.match(p.stdout, /^comp10001bo\.noplay\.none +2 +0$/m);
    const none = await run(pytest, ['-q', '-p', 'no:cacheprovider', 'test_ivp.py'], { cwd: dir, env: { STUDENT_MODULE: '' } });
    assert.notEqual(none.status, 0, 'no STUDENT_MODULE: the tests fail, saying so');
    assert.match(none.stdout, /set STUDENT_MODULE/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('docs/autograder.md lists every clause of every suite with its sentence, and no other', async () => {
  const { readFileSync } = await import('node:fs');
  const text = readFileSync(path.join(ROOT, 'docs/autograder.md'), 'utf8');
  const block = text.slice(text.indexOf('<!-- clauses:'), text.indexOf('<!-- /clauses -->'));
  const documented = new Map(); // "game fn" -> Map(id -> [sentence, variants])
  let fn = null;
  for (const line of block.split('\n')) {
    const h = /^### (\w+) `(\w+)`$/.exec(line);
    if (h) fn = `${h[1]} ${h[2]}`, documented.set(fn, new Map());
    const row = /^\| `([^`]+)` \| ([a-z, ]+) \| (.*) \|$/.exec(line);
    if (row) documented.get(fn).set(row[1], [row[3].replace(/\\\|/g, '|'), row[2].split(', ')]);
  }
  const known = new Map();
  for (const [g, f, v, , k] of SUITES) {
    const d = (await srv.get(route(g, f, v, `&n=1&format=json`))).json;
    assert.equal(d.clauses.length, k);
    const m = known.get(`${g} ${f}`) ?? new Map();
    known.set(`${g} ${f}`, m);
    for (const c of d.clauses) {
      const e = m.get(c.id) ?? [c.sentence, []];
      assert.equal(e[0], c.sentence, `${c.id}: one sentence in every variant`);
      e[1].push(v);
      m.set(c.id, e);
    }
  }
  assert.deepEqual([...documented.keys()], [...known.keys()], 'one table per function, in the order of --list');
  for (const [key, m] of known) assert.deepEqual([...documented.get(key)], [...m], `${key}: the documented clauses`);
});
