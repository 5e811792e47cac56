// croupier purge and the server's own expiry on a SQLite store
// (tests/http/lib/retention.mjs; PostgreSQL: tests/pg/purge.test.mjs). The
// games' last writes are set in the past with sqlite3.
import test, { after } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { retentionCases } from '../http/lib/retention.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'croupier-purge-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, 'games.db');
const sql = (q) => execFileSync('sqlite3', ['-cmd', '.timeout 5000', file, q], { encoding: 'utf8' }).trim();

test('croupier purge removes the expired games (SQLite), and a server does by itself', { timeout: 120_000 }, async () => {
  await retentionCases(`sqlite:${file}`, {
    age: (id, days) => sql(`UPDATE games SET updated_at = strftime('%s', 'now') - ${days} * 86400 WHERE id = '${id}'`),
    plays: (id) => Number(sql(`SELECT count(*) FROM plays WHERE game_id = '${id}'`)),
  });
});
