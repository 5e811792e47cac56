// deploy/postgres-schema.sql is today's schema: loaded into an empty
// database, it gives exactly what the server creates on another (pg_dump
// --schema-only of both, and their schema_version rows), and a server
// started on it finds its schema and works.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../http/lib/contract.mjs';
import { startCluster } from '../http/lib/pg.mjs';
import { startServer, request, expectStatus } from '../http/lib/server.mjs';

const pg = startCluster();
after(() => pg?.destroy());

// (pg_dump's own header lines and its random \restrict keys aside)
const schemaOnly = (db) => execFileSync('pg_dump', ['--schema-only', '--no-owner', '--no-privileges', pg.urlOf(db)],
  { encoding: 'utf8' }).split('\n').filter((l) => !/^-- Dumped (from|by)|^\\(un)?restrict /.test(l)).join('\n');

test('deploy/postgres-schema.sql creates what the server creates',
  { skip: !pg && 'no PostgreSQL server binaries (apt-get install postgresql)', timeout: 120_000 }, async () => {
    pg.psql('CREATE DATABASE by_server');
    pg.psql('CREATE DATABASE by_file');
    const s = await startServer({ store: pg.urlOf('by_server') });
    const stopped = await s.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    execFileSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', pg.urlOf('by_file'),
      '-f', path.join(ROOT, 'deploy', 'postgres-schema.sql')]);
    assert.equal(schemaOnly('by_file'), schemaOnly('by_server'), 'the same tables, columns, keys and index');
    const rows = (db) => pg.psql('SELECT version, note FROM schema_version ORDER BY version', db);
    assert.equal(rows('by_file'), rows('by_server'), 'the same schema_version rows');

    // the server takes the database the file made as its own
    const t = await startServer({ store: pg.urlOf('by_file') });
    try {
      const g = await request(t.base, 'POST', '/games', {
        json: { game: 'hanabi', seed: 1, players: [{ name: 'A' }, { bot: 'rules' }] },
      });
      expectStatus(g, 201);
      assert.equal(rows('by_file'), rows('by_server'), 'nothing migrated');
    } finally {
      const r = await t.stop();
      assert.equal(r.code, 0, r.stderr);
    }
  });
