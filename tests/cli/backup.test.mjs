// croupier backup --store sqlite:PATH FILE: a consistent copy of a live
// SQLite store. Under a steady write load (four games played at once), the
// backup is taken; the load goes on; a server started on the copy has
// every play that was acknowledged before the backup began, each once, and
// the copy opens on its own (one file, no WAL beside it). A PostgreSQL URL
// is refused with the pg_dump command to use (tests/pg/backup.test.mjs
// does that under load), and an existing FILE is never overwritten.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer } from '../http/lib/server.mjs';
import { startLoad, missing } from '../http/lib/load.mjs';

const BIN = process.env.CROUPIER_BIN || 'build/croupier';
const dir = mkdtempSync(path.join(tmpdir(), 'croupier-backup-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Wait until `load` has acknowledged more than n plays. */
async function until(load, n) {
  while (load.acked().length <= n) await new Promise((r) => setTimeout(r, 50));
}

test('a backup under write load has every play acknowledged before it began', { timeout: 300_000 }, async () => {
  const live = path.join(dir, 'live.db');
  const copy = path.join(dir, 'copy.db');
  const server = await startServer({ store: `sqlite:${live}` });
  let before, stdout;
  try {
    const load = await startLoad(server.base, { games: 4 });
    try {
      await until(load, 40);
      before = load.acked();
      ({ stdout } = await promisify(execFile)(BIN, ['backup', '--store', `sqlite:${live}`, copy]));
      await until(load, load.acked().length + 8); // the load went on past the backup
    } finally {
      await load.stop();
    }
  } finally {
    const s = await server.stop();
    assert.equal(s.code, 0, s.stderr);
  }
  assert.match(stdout, /schema 5, \d+ games, \d+ plays/);
  assert.ok(!existsSync(`${copy}-wal`), 'the copy is one file');
  assert.equal(spawnSync('sqlite3', [copy, 'PRAGMA journal_mode'], { encoding: 'utf8' }).stdout.trim(), 'delete');
  const restored = await startServer({ store: `sqlite:${copy}` });
  try {
    const lost = await missing(restored.base, restored.adminToken, before);
    assert.deepEqual(lost, [], `every play acknowledged before the backup is in it (${before.length})`);
  } finally {
    const r = await restored.stop();
    assert.equal(r.code, 0, r.stderr);
  }
});

test('backup refuses to overwrite a file, and sends PostgreSQL to pg_dump', () => {
  const live = path.join(dir, 'other.db');
  spawnSync(BIN, ['backup', '--store', `sqlite:${live}`, path.join(dir, 'never.db')]);
  const taken = path.join(dir, 'taken.db');
  writeFileSync(taken, 'precious');
  let r = spawnSync(BIN, ['backup', '--store', `sqlite:${path.join(dir, 'copy.db')}`, taken], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /exists/);
  r = spawnSync(BIN, ['backup', '--store', 'postgres://croupier@/croupier', path.join(dir, 'pg.dump')], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /pg_dump --format=custom/);
  r = spawnSync(BIN, ['backup', '--store', `sqlite:${path.join(dir, 'nothing-here.db')}`, path.join(dir, 'x.db')], { encoding: 'utf8' });
  assert.equal(r.status, 1, 'not a croupier store');
  assert.ok(!existsSync(path.join(dir, 'x.db')));
  assert.equal(spawnSync(BIN, ['backup', '--help'], { encoding: 'utf8' }).status, 0);
});
