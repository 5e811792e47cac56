// A PostgreSQL store URL with a password (user:PASSWORD@ and ?password=):
// the server starts on it and prints where it listens and on what store
// with the password redacted; /healthz, /metrics, its answers and its logs
// never hold it; croupier purge neither; and once the cluster is stopped,
// the start-up error (libpq's message has two lines) is one line without
// it. The cluster trusts local connections, so any password is taken.
// Without a running store: tests/cli/store_url.test.mjs.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { startCluster } from '../http/lib/pg.mjs';
import { request, expectStatus } from '../http/lib/server.mjs';

const BIN = process.env.CROUPIER_BIN || 'build/croupier';
const pg = startCluster();
after(() => pg?.destroy());
const SECRET = 'pw-9f2c1e7a';
const skip = !pg && 'no PostgreSQL server binaries (apt-get install postgresql)';

/** `croupier serve` on url: {base, out (stdout so far), stop() -> {code, stderr}}. */
async function serve(url) {
  const proc = spawn(BIN, ['serve', '--listen', '127.0.0.1:0', '--store', url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  proc.stderr.on('data', (d) => { err += d; });
  const base = await new Promise((resolve, reject) => {
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  return {
    base, out: () => out,
    async stop() { proc.kill('SIGTERM'); const code = await new Promise((r) => proc.on('exit', r)); return { code, stderr: err }; },
  };
}

test('a store URL\'s password: in no message, no answer, no log', { skip, timeout: 120_000 }, async () => {
  const withUser = pg.url.replace('postgres://croupier@', `postgres://croupier:${SECRET}@`);
  const withQuery = `${pg.url}&password=${SECRET}`;
  for (const url of [withUser, withQuery]) {
    const s = await serve(url);
    let seen = '';
    try {
      assert.match(s.out(), /\(store postgres:\/\/croupier[^ ]*\[redacted\]/);
      for (const p of ['/healthz', '/metrics', '/games/nosuchgame0000000']) {
        const r = await request(s.base, 'GET', p);
        seen += r.text;
      }
      const g = await request(s.base, 'POST', '/games', { json: { game: 'comp10001bo', players: [{ name: 'P' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] } });
      expectStatus(g, 201);
      seen += g.text;
    } finally {
      const r = await s.stop();
      assert.equal(r.code, 0, r.stderr);
      seen += s.out() + r.stderr;
    }
    assert.ok(!seen.includes(SECRET), `the password is in: ${seen.slice(0, 400)}`);
    const purge = spawnSync(BIN, ['purge', '--dry-run', '--store', url], { encoding: 'utf8' });
    assert.equal(purge.status, 0, purge.stderr);
    assert.ok(!(purge.stdout + purge.stderr).includes(SECRET), purge.stdout + purge.stderr);
  }
  pg.stop();
  for (const cmd of ['serve', 'fcgi', 'purge']) {
    const r = spawnSync(BIN, [cmd, '--store', withUser], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 1, r.stderr);
    assert.ok(!r.stderr.includes(SECRET), r.stderr);
    assert.match(r.stderr, /^croupier \w+: --store postgres:\/\/croupier:\[redacted\]@\/croupier\?host=[^ ]+: postgres: connect: [^\n]+\n$/);
  }
});
