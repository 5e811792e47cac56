// croupier cases (docs/autograder.md) on the command line: the suites it
// lists, its refusals, and for every suite a thousand cases that hold every
// clause at least floor(1000 / clauses) times and whose every argument
// meets the function's stated preconditions, checked by
// tests/cli/lib/preconditions.mjs (written apart from the generator).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkArgs } from './lib/preconditions.mjs';

const BIN = process.env.CROUPIER_BIN || 'build/croupier';
const run = (...args) => spawnSync(BIN, args, { encoding: 'utf8', timeout: 600_000, maxBuffer: 1 << 30 });
const SUITES = run('cases', '--list').stdout.trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/));

test('cases --help, --list, and the refusals (exit 2, naming what is wrong)', () => {
  const h = run('cases', '--help');
  assert.equal(h.status, 0);
  assert.match(h.stdout, /usage: croupier cases --game G --fn F/);
  assert.match(run('help').stdout, /cases +generated cases of an autograder function/);
  const l = run('cases', '--list');
  assert.equal(l.status, 0);
  assert.match(l.stdout, /^game +fn +variant +course name +clauses$/m);
  assert.match(l.stdout, /^comp10001bo +play +bonus +comp10001bo_bonus +\d+$/m);
  assert.equal(SUITES.length, 18);
  for (const [args, msg] of [
    [['--game', 'phazed'], /--game and --fn are required/],
    [['--game', 'nope', '--fn', 'score'], /unknown game 'nope'/],
    [['--game', 'phazed', '--fn', 'nope'], /phazed has no suite of 'nope'/],
    [['--game', 'phazed', '--fn', 'score', '--variant', 'rainbow'], /unknown variant 'rainbow' of phazed/],
    [['--game', 'hanabi', '--fn', 'play'], /hanabi has no suite of 'play'/],
    [['--game', 'phazed', '--fn', 'score', '--n', '0'], /--n takes 1..5000/],
    [['--game', 'phazed', '--fn', 'score', '--n', '5001'], /--n takes 1..5000/],
    [['--game', 'phazed', '--fn', 'score', '--seed', '-1'], /--seed takes 0..2\^53-1/],
    [['--game', 'phazed', '--fn', 'score', '--format', 'xml'], /--format takes jsonl, json or pytest/],
    [['--game', 'phazed', '--fn', 'score', 'extra'], /unexpected argument 'extra'/],
  ]) {
    const r = run('cases', ...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, msg);
  }
});

test('--stats: every clause with its count and sentence; --out writes the file', () => {
  const r = run('cases', '--game', 'phazed', '--fn', 'phase_type', '--n', '24', '--stats');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^phazed_phase_type \(standard\): 24 cases, seed 1, 12 clauses, at least 2 cases each$/m);
  assert.match(r.stdout, /^phazed\.phase\.run-before-set +2 +\[\]:2 +phase 7 is the run first, then the set$/m);
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-cases-'));
  try {
    const file = path.join(dir, 'test_score.py');
    const w = run('cases', '--game', 'phazed', '--fn', 'score', '--n', '9', '--format', 'pytest', '--out', file);
    assert.equal(w.status, 0, w.stderr);
    assert.equal(w.stdout, '');
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^#!\/usr\/bin\/env python3\n# croupier cases --game phazed --fn score --variant standard --n 9 --seed 1 --format pytest\n/);
    const c = spawnSync('python3', ['-c', 'import ast, sys; ast.parse(open(sys.argv[1]).read())', file], { encoding: 'utf8' });
    assert.equal(c.status, 0, c.stderr);
    const j = spawnSync('python3', ['-c', 'import runpy, sys, json; m = runpy.run_path(sys.argv[1]); print(len(json.loads(m["SUITE_JSON"])["cases"]))', file], { encoding: 'utf8' });
    assert.equal(j.stdout.trim(), '9', j.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every suite: 1,000 cases hold each clause floor(1000 / clauses) times, and every input meets the preconditions', () => {
  for (const [game, fn, variant, , k] of SUITES) {
    const r = run('cases', '--game', game, '--fn', fn, '--variant', variant, '--n', '1000', '--seed', '2', '--format', 'json');
    assert.equal(r.status, 0, `${game} ${fn} ${variant}: ${r.stderr}`);
    const d = JSON.parse(r.stdout);
    assert.equal(d.clauses.length, Number(k));
    const count = new Map(d.clauses.map((c) => [c.id, 0]));
    for (const c of d.cases) {
      assert.ok(count.has(c.rule), `${game} ${fn} ${variant} case ${c.id}: rule ${c.rule} is a clause of the suite`);
      count.set(c.rule, count.get(c.rule) + 1);
      const bad = checkArgs(game, fn, variant, c.args);
      assert.deepEqual(bad, [], `${game} ${fn} ${variant} case ${c.id} (${c.rule}): ${JSON.stringify(c.args).slice(0, 1500)}`);
    }
    const least = Math.floor(1000 / d.clauses.length);
    for (const [id, n] of count) assert.ok(n >= least, `${game} ${fn} ${variant}: ${id} ${n} times, fewer than ${least}`);
  }
});

test('the precondition checker can fail: it refuses inputs that break them', () => {
  const E4 = () => [[], [], [], []];
  const table = [['9C', 8], ['0D', 8], ['3H', 8], ['KD', 8]];
  assert.deepEqual(checkArgs('comp10001bo', 'match_build', 'standard', ['3C', ['2C', '3C']]), []);
  assert.notDeepEqual(checkArgs('comp10001bo', 'match_build', 'standard', ['3C', ['3C', '4C']]), []); // starts with a 3
  assert.notDeepEqual(checkArgs('comp10001bo', 'match_build', 'standard', ['3C', ['2C', 'AC']]), []); // an Ace stays nowhere
  assert.notDeepEqual(checkArgs('comp10001bo', 'match_build', 'standard', ['ZZ', []]), []); // no joker in standard
  assert.notDeepEqual(checkArgs('comp10001bo', 'match_discard', 'standard', ['3C', ['AS'], 0, 0]), []);
  assert.notDeepEqual(checkArgs('comp10001bo', 'is_valid_play', 'standard',
    [[0, '2C', [0, 0]], 0, ['2C', '2C', '2C'], table, [E4(), E4(), E4(), E4()], E4()]), []); // three 2C
  assert.notDeepEqual(checkArgs('comp10001bo', 'play', 'standard',
    [0, [], table, [E4(), E4(), E4(), E4()], E4(), [0, 1, 2, 3, 4].map(() => [0, [0, '5S', [1, [0, 0]]]])]), []); // 5 plays made
  const state = [1, [[null, []], [null, []], [null, []], [null, []]], [[0, [[1, 'XX'], [5, 'JS']]]], [0, 0, 0, 0],
    ['2C', '3C', '4C', '5C', '6C', '7C', '8C', '9C', '0C', 'JC'], 'JS'];
  assert.deepEqual(checkArgs('phazed', 'play', 'standard', state), []);
  assert.notDeepEqual(checkArgs('phazed', 'play', 'standard', [...state.slice(0, 4), state[4].slice(1), 'JS']), []); // 9 cards
  assert.notDeepEqual(checkArgs('phazed', 'play', 'standard', [...state.slice(0, 5), '2D']), []); // not the card discarded
  assert.notDeepEqual(checkArgs('phazed', 'play', 'standard', [2, ...state.slice(1)]), []); // out of turn
  assert.notDeepEqual(checkArgs('phazed', 'play', 'standard',
    [1, [[1, [['2S', '2S', '2C'], ['5S', '5S', '5D']]], [null, []], [null, []], [null, []]], ...state.slice(2)]), []); // no phase in history
  assert.notDeepEqual(checkArgs('phazed', 'group_type', 'standard', [['2S', '2S', '2S']]), []);
});

test("the pytest file's own Phazed checker (phase plays) agrees with the engine on every group and phase suite", () => {
  // the harness's group_types / phase_types judge students' phase plays;
  // here they are the student, graded by the engine's own cases
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-harness-'));
  try {
    writeFileSync(path.join(dir, 'harness_rules.py'), [
      'import importlib.util, os',
      "spec = importlib.util.spec_from_file_location('h', os.environ['HARNESS'])",
      'h = importlib.util.module_from_spec(spec)',
      'spec.loader.exec_module(h)',
      'phazed_group_type = h.group_types',
      'phazed_phase_type = h.phase_types', ''].join('\n'));
    for (const fn of ['group_type', 'phase_type']) for (const variant of ['standard', 'bonus']) {
      const file = path.join(dir, `test_${fn}_${variant}.py`);
      const w = run('cases', '--game', 'phazed', '--fn', fn, '--variant', variant, '--n', '600', '--seed', '4', '--format', 'pytest', '--out', file);
      assert.equal(w.status, 0, w.stderr);
      const p = spawnSync('python3', [file, 'harness_rules'], {
        cwd: dir, encoding: 'utf8', env: { ...process.env, HARNESS: path.resolve('cli/kit_harness.py') },
      });
      assert.equal(p.status, 0, `${fn} ${variant}:\n${p.stdout.slice(-3000)}${p.stderr.slice(-1000)}`);
      assert.match(p.stdout, /^600 passed, 0 failed$/m);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
