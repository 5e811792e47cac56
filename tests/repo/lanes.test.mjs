// The lanes of the HTTP suite (tests/http/lanes.mjs, docs/testing.md): the
// FastCGI pass and the PostgreSQL pass of `make test` run a list of files,
// not the whole folder, so a file renamed or added must not drop out of the
// pass its subject needs. Checked here:
//   - every file a lane names exists, once;
//   - a file with a test that runs only through nginx + FastCGI (a skip
//     unless CROUPIER_TEST_FRONT is fcgi) is in the front lane, and one that
//     reads CROUPIER_TEST_STORE (a test that changes with the store) is in
//     the store lane: it would run nowhere else on that axis.
// The rules are run first on made-up files, so a rule that stops seeing its
// case fails here rather than letting everything through.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LANES, laneFiles } from '../http/lanes.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const HTTP = path.join(ROOT, 'tests', 'http');

// The lane a file's text says it needs, by the rules above (a list, maybe empty).
function lanesNeeded(text) {
  const need = [];
  const readsFront = /CROUPIER_TEST_FRONT/.test(text);
  // "skip: !viaFcgi && ..." or a skip unless the front is fcgi.
  if (readsFront && /skip\b[^\n]*!\s*viaFcgi|skip\s*=\s*!\s*viaFcgi/.test(text)) need.push('front');
  if (/CROUPIER_TEST_STORE/.test(text)) need.push('store');
  return need;
}

test('the rules see their cases (made-up files)', () => {
  const front = "const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';\ntest('x', { skip: !viaFcgi && 'nginx only' }, () => {});";
  const front2 = "const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';\nconst skip = !viaFcgi && 'nginx only';";
  const either = "const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';\ntest('x', { skip: viaFcgi && 'no WebSocket' }, () => {});";
  const store = "const store = process.env.CROUPIER_TEST_STORE || 'sqlite:';";
  assert.deepEqual(lanesNeeded(front), ['front']);
  assert.deepEqual(lanesNeeded(front2), ['front']);
  assert.deepEqual(lanesNeeded(either), [], 'a test skipped through FastCGI runs in the full pass: no lane needed');
  assert.deepEqual(lanesNeeded(store), ['store']);
  assert.deepEqual(lanesNeeded(front + '\n' + store), ['front', 'store']);
  assert.deepEqual(lanesNeeded("test('plain', () => {});"), []);
});

test('every file a lane names exists, once, and no lane is empty', () => {
  for (const [lane, names] of Object.entries(LANES)) {
    assert.ok(names.length > 0, `lane ${lane} names files`);
    assert.equal(new Set(names).size, names.length, `lane ${lane} names each file once`);
    for (const f of laneFiles(lane)) assert.ok(existsSync(path.join(ROOT, f)), `lane ${lane}: ${f} exists`);
  }
});

test('a file whose tests change with an axis is in that axis\'s lane', () => {
  const files = readdirSync(HTTP).filter((f) => f.endsWith('.test.mjs'));
  assert.ok(files.length > 20, `tests/http has its files (${files.length})`);
  const missing = [];
  let needing = 0;
  for (const f of files) {
    const need = lanesNeeded(readFileSync(path.join(HTTP, f), 'utf8'));
    needing += need.length;
    for (const lane of need) {
      if (!LANES[lane].includes(f.replace(/\.test\.mjs$/, ''))) missing.push(`${f} (${lane})`);
    }
  }
  assert.ok(needing >= 2, 'some files need a lane (the rules still see the suite)');
  assert.deepEqual(missing, [], 'add these to tests/http/lanes.mjs');
});
