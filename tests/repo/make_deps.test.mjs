// Plain `make` on a machine without the build's -dev packages stops at once
// with one line that says to run `make deps-build`, not at the compiler's
// first "No such file". The machine is made to lack civetweb.h by a
// compiler that finds a civetweb.h that cannot be included (-I before the
// system's); the build goes to a fresh BUILD_DIR, so nothing of build/ is
// touched. And with the real compiler the check passes without a word.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const make = (args) => spawnSync('make', ['--no-print-directory', ...args], {
  cwd: ROOT, encoding: 'utf8', timeout: 60000, env: { ...process.env, MAKEFLAGS: '' },
});

test('plain make without civetweb.h says in one line to run make deps-build', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-nodeps-'));
  try {
    writeFileSync(path.join(dir, 'civetweb.h'), '#error not installed\n');
    const out = path.join(dir, 'build');
    const r = make([`BUILD_DIR=${out}`, `CC=cc -I${dir}`]);
    assert.notEqual(r.status, 0, 'make fails');
    const ours = r.stderr.split('\n').filter((l) => l.startsWith('croupier:'));
    assert.equal(ours.length, 1, r.stderr);
    assert.match(ours[0], /^croupier: missing civetweb\.h: run 'make deps-build'/);
    assert.doesNotMatch(r.stdout + r.stderr, /No such file|fatal error|#error/, 'no compiler error');
    assert.ok(!existsSync(path.join(out, 'croupier')), 'nothing built');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with the build headers there, the check says nothing', () => {
  const r = make(['deps-check']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout + r.stderr, '');
});
