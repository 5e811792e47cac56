// tests/soak/cli.mjs's own command line (`make soak`): --help lists every
// option it accepts, and a wrong option is refused with exit 2 and one
// line naming it, not a stack trace. No server is started for either.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('./cli.mjs', import.meta.url));
const run = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000 });

test('soak --help lists every option the parser accepts, exit 0', () => {
  const r = run('--help');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^usage: node tests\/soak\/cli\.mjs/);
  assert.match(r.stdout, /games finished: N, plays: N, failures: N/);
  // the parser's options, read from the source: each must be in the text
  const src = readFileSync(CLI, 'utf8');
  const block = src.slice(src.indexOf('options: {'), src.indexOf('}));'));
  const names = [...block.matchAll(/^\s+'?([a-z][a-z-]*)'?: \{ type:/gm)].map((m) => m[1]);
  assert.ok(names.length >= 15, `options read from cli.mjs: ${names.join(', ')}`);
  for (const n of names) assert.match(r.stdout, new RegExp(`--${n}\\b`), `--help does not mention --${n}`);
  assert.equal(run('-h').stdout, r.stdout);
});

test('soak refuses an unknown option or a missing value with exit 2, naming it', () => {
  for (const [args, named] of [[['--bogus'], /--bogus/], [['--games'], /--games/]]) {
    const r = run(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, named);
    assert.match(r.stderr, /--help lists the options/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'a stack trace');
    assert.equal(r.stdout, '');
  }
  const bad = run('--games', 'many');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--games: a whole number, not many/);
});
