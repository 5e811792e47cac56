// A store URL's password is never printed, and every start-up error of
// serve, fcgi, purge and backup is one line (docs/operations.md). Stores
// that cannot be opened: a PostgreSQL port where nothing listens (libpq's
// message has two lines, one more per address tried), a URL libpq cannot
// read (its message quotes the password), a scheme no back end serves.
// With a running PostgreSQL: tests/pg/secrets.test.mjs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const BIN = process.env.CROUPIER_BIN || 'build/croupier';
const SECRET = 's3cret-Pw';
const urls = [
  `postgres://croupier:${SECRET}@127.0.0.1:1/croupier`,
  `postgresql://croupier:${SECRET}@localhost:1/croupier?connect_timeout=2`,
  `postgres://croupier@127.0.0.1:1/croupier?password=${SECRET}&sslmode=disable`,
  `postgres://croupier@127.0.0.1:1/croupier?sslpassword=${encodeURIComponent(SECRET)}`,
  `postgres://croupier:${SECRET}%zz@127.0.0.1:1/croupier`, // "invalid percent-encoded token: ..."
  `postgres://croupier:${SECRET}@127.0.0.1:1/croupier?no_such_parameter=1`,
  `mysql://croupier:${SECRET}@127.0.0.1/croupier`,
];

test('no password of a store URL in any start-up error, and each is one line', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-url-'));
  try {
    for (const url of urls) {
      for (const argv of [['serve', '--store', url], ['fcgi', '--store', url], ['purge', '--store', url],
        ['purge', '--dry-run', '--store', url], ['backup', '--store', url, path.join(dir, 'b.db')]]) {
        const r = spawnSync(BIN, argv, { encoding: 'utf8', env: { ...process.env, GATEWAY_INTERFACE: '' }, timeout: 20_000 });
        const what = `croupier ${argv.join(' ')}`;
        assert.notEqual(r.status, 0, `${what} fails`);
        assert.equal(r.stdout, '', `${what}: nothing on stdout`);
        assert.ok(!r.stderr.includes(SECRET) && !r.stderr.includes('s3cret'), `${what}: no password: ${r.stderr}`);
        assert.equal(r.stderr.split('\n').length, 2, `${what}: one line: ${JSON.stringify(r.stderr)}`);
        assert.match(r.stderr, new RegExp(`^croupier ${argv[0]}: `), what);
        if (argv[0] !== 'backup' || url.startsWith('mysql')) assert.match(r.stderr, /\[redacted\]/, `${what}: says where it was: ${r.stderr}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
