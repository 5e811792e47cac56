// croupier purge and the server's own expiry on a PostgreSQL store
// (tests/http/lib/retention.mjs; SQLite: tests/cli/purge.test.mjs). The
// games' last writes are set in the past with psql. A cluster of its own.
import test, { after } from 'node:test';
import { startCluster } from '../http/lib/pg.mjs';
import { retentionCases } from '../http/lib/retention.mjs';

const pg = startCluster();
after(() => pg?.destroy());

test('croupier purge removes the expired games (PostgreSQL), and a server does by itself',
  { skip: !pg && 'no PostgreSQL server binaries (apt-get install postgresql)', timeout: 120_000 }, async () => {
    await retentionCases(pg.url, {
      age: (id, days) => pg.psql(`UPDATE games SET updated_at = now() - interval '${days} days' WHERE id = '${id}'`),
      plays: (id) => Number(pg.psql(`SELECT count(*) FROM plays WHERE game_id = '${id}'`).trim()),
    });
  });
