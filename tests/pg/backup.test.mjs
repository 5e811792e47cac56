// Backing up a PostgreSQL store, as docs/operations.md says: pg_dump
// (one consistent snapshot) while a server takes plays, then pg_restore
// into a new database: a server on it has every play acknowledged before
// the dump began, each once. (SQLite: tests/cli/backup.test.mjs.)
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startCluster } from '../http/lib/pg.mjs';
import { startServer } from '../http/lib/server.mjs';
import { startLoad, missing } from '../http/lib/load.mjs';

const pg = startCluster();
after(() => pg?.destroy());
const sh = promisify(execFile);

async function until(load, n) {
  while (load.acked().length <= n) await new Promise((r) => setTimeout(r, 50));
}

test('pg_dump under write load, pg_restore: every play acknowledged before the dump is there',
  { skip: !pg && 'no PostgreSQL server binaries (apt-get install postgresql)', timeout: 300_000 }, async () => {
    const dump = path.join(pg.dir, 'croupier.dump');
    const server = await startServer({ store: pg.url });
    let before;
    try {
      const load = await startLoad(server.base, { games: 4 });
      try {
        await until(load, 40);
        before = load.acked();
        await sh('pg_dump', ['--format=custom', `--file=${dump}`, pg.url]);
        await until(load, load.acked().length + 8);
      } finally {
        await load.stop();
      }
    } finally {
      const s = await server.stop();
      assert.equal(s.code, 0, s.stderr);
    }
    pg.psql('CREATE DATABASE restored');
    await sh('pg_restore', ['--no-owner', `--dbname=${pg.urlOf('restored')}`, dump]);
    const restored = await startServer({ store: pg.urlOf('restored') });
    try {
      const lost = await missing(restored.base, restored.adminToken, before);
      assert.deepEqual(lost, [], `every play acknowledged before the dump is in it (${before.length})`);
    } finally {
      const r = await restored.stop();
      assert.equal(r.code, 0, r.stderr);
    }
  });
