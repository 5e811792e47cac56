// A game is its folder (docs/engine-guide.md, "Adding a game, step by
// step"): the guide's steps for the example game, tests/example/takeaway/,
// run as the guide writes them in a copy of this tree; the files they
// change outside the game's folder are counted (the guide's number is the
// most allowed); then the copy is built and every generic suite runs on it
// with the fifth game in the registry: the engine's unit tests that hold
// every game of the registry, the HTTP files that hold every game of
// GET /rules to the contract, and the example's page test. A step the
// guide leaves out (a list of games somewhere else) fails one of them.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FOLDER = 'engine/takeaway/';

/** The guide's steps and its number: {script, most}. */
export function guideSteps(text) {
  const m = /<!-- example-game:[^>]*files changed outside the folder: (\d+) -->\n```sh\n([\s\S]*?)```/.exec(text);
  assert.ok(m, 'docs/engine-guide.md has the example game\'s steps (a marked sh block)');
  return { most: Number(m[1]), script: m[2] };
}

/** Every file under dir (but build/, node_modules/, tests/out/), path -> hash. */
function snapshot(dir, rel = '', out = new Map()) {
  for (const f of readdirSync(path.join(dir, rel))) {
    const r = rel ? `${rel}/${f}` : f;
    if (['build', 'node_modules', 'tests/out', '.git'].includes(r)) continue;
    const full = path.join(dir, r);
    if (statSync(full).isDirectory()) snapshot(dir, r, out);
    else out.set(r, createHash('sha1').update(readFileSync(full)).digest('hex'));
  }
  return out;
}

/** The files added, changed or removed between two snapshots outside `folder`. */
export function changedOutside(before, after, folder) {
  const all = new Set([...before.keys(), ...after.keys()]);
  return [...all].filter((f) => before.get(f) !== after.get(f) && !f.startsWith(folder)).sort();
}

test('the counting reads the guide and sees a change anywhere outside the folder', () => {
  const { most, script } = guideSteps(readFileSync(path.join(ROOT, 'docs', 'engine-guide.md'), 'utf8'));
  assert.ok(most >= 1 && /engine\/registry\.c/.test(script), 'the steps name the registry');
  const before = new Map([['README.md', 'a'], ['engine/registry.c', 'b']]);
  const after = new Map([['README.md', 'a2'], ['engine/registry.c', 'b2'], [`${FOLDER}x.c`, 'c'], ['NEWS', 'd']]);
  assert.deepEqual(changedOutside(before, after, FOLDER), ['NEWS', 'README.md', 'engine/registry.c']);
  assert.deepEqual(changedOutside(before, new Map([['engine/registry.c', 'b']]), FOLDER), ['README.md'], 'a removed file counts');
});

test('the example game, added as the guide says, passes every generic suite', { timeout: 900_000 }, (t) => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'croupier-example-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  const run = (cmd, args, opts = {}) => {
    const r = spawnSync(cmd, args, { cwd: tmp, encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
    assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: exit ${r.status}\n${(r.stdout || '').slice(-3000)}\n${(r.stderr || '').slice(-3000)}`);
    return r.stdout;
  };
  // the tree as git has it (with the files not yet committed), and the
  // release build's objects, so that only what the steps change is compiled
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT }).toString().split('\0').filter((f) => f && existsSync(path.join(ROOT, f)));
  execFileSync('bash', ['-c', 'tar --null -T - -cf - | tar -xf - -C "$0"', tmp], { cwd: ROOT, input: files.join('\0') });
  for (const d of ['engine', 'api', 'cli', 'gen']) if (existsSync(path.join(ROOT, 'build', d))) execFileSync('cp', ['-a', '--parents', `build/${d}`, tmp], { cwd: ROOT });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(tmp, 'node_modules'));

  const { most, script } = guideSteps(readFileSync(path.join(tmp, 'docs', 'engine-guide.md'), 'utf8'));
  const before = snapshot(tmp);
  run('bash', ['-e', '-c', script]);
  const outside = changedOutside(before, snapshot(tmp), FOLDER);
  assert.ok(outside.length <= most, `the steps changed ${outside.length} files outside ${FOLDER} (the guide says ${most}): ${outside.join(', ')}`);
  assert.ok(existsSync(path.join(tmp, FOLDER, 'takeaway_game.c')), 'the folder is there');

  const units = ['test_games', 'test_snapshot', 'test_cases', 'test_rules', 'test_json_out', 'test_stack'];
  run('make', ['-s', '-j2', 'build/croupier', ...units.map((u) => `build/tests/${u}`)]);
  const games = run('build/croupier', ['games']);
  assert.match(games, /\btakeaway\b/, `croupier games lists the example: ${games}`);
  for (const u of units) run(`build/tests/${u}`, []);
  const self = run('build/croupier', ['selfplay', '--game', 'takeaway', '--games', '20', '--bots', 'perfect,random', '--quiet']);
  assert.match(self, /Take-away \(standard\), 20 games[\s\S]*endings: won 20 /, `selfplay plays the example to its end: ${self}`);
  // the HTTP files that hold every served game, and the page; a node:test
  // child told it runs under this file's runner (NODE_TEST_CONTEXT) reports
  // to it and exits 0 whatever failed: not told here
  const childEnv = { ...process.env };
  delete childEnv.NODE_TEST_CONTEXT;
  delete childEnv.CROUPIER_BIN;
  run('node', ['--test', '--test-reporter=dot', 'tests/http/registry_contract.test.mjs', 'tests/http/status.test.mjs',
    'tests/http/privacy.test.mjs', 'tests/http/docs_examples.test.mjs', 'tests/http/service.test.mjs',
    'tests/example/takeaway/page.test.mjs'], { env: childEnv });
});
