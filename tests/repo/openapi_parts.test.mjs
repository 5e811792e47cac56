// openapi/openapi.yaml is written by `make openapi` (openapi/assemble.py)
// from openapi/base.yaml and each game's engine/<game>/openapi.yaml: the
// committed document is what they make, and the check sees a part edited
// without `make openapi`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const check = (root) => spawnSync('python3', [path.join(root, 'openapi', 'assemble.py'), '--check'], { encoding: 'utf8' });

test('openapi/openapi.yaml is what make openapi writes', () => {
  const r = check(ROOT);
  assert.equal(r.status, 0, r.stderr);
  const parts = readdirSync(path.join(ROOT, 'engine')).filter((g) => existsSync(path.join(ROOT, 'engine', g, 'openapi.yaml')));
  assert.deepEqual(parts.sort(), ['comp10001bo', 'fivecrowns', 'hanabi', 'phazed'], 'every game has its part');
});

test('a game\'s part edited without make openapi fails the check, and make openapi mends it', (t) => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'croupier-openapi-'));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));
  cpSync(path.join(ROOT, 'openapi'), path.join(tmp, 'openapi'), { recursive: true });
  for (const g of ['comp10001bo', 'fivecrowns', 'hanabi', 'phazed'])
    cpSync(path.join(ROOT, 'engine', g, 'openapi.yaml'), path.join(tmp, 'engine', g, 'openapi.yaml'));
  assert.equal(check(tmp).status, 0, 'the copy is up to date');
  appendFileSync(path.join(tmp, 'engine', 'hanabi', 'openapi.yaml'), '  HanabiExtra:\n    type: string\n');
  const r = check(tmp);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /run make openapi/);
  assert.equal(spawnSync('python3', [path.join(tmp, 'openapi', 'assemble.py')]).status, 0);
  assert.equal(check(tmp).status, 0, 'written again, it is up to date');
});
