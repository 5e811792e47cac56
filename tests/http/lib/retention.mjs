// retention.mjs: games expire (docs/operations.md, retention), on any
// store: tests/cli/purge.test.mjs runs it on SQLite, tests/pg/purge.test.mjs
// on PostgreSQL. The games' last writes are set in the past with the
// store's own tool (sqlite3, psql): `db.age(id, days)`; `db.plays(id)`
// counts a game's rows in the play log.
//
// Four games: F finished (bots only: played to its end by the POST) and
// last written 40 days ago; U1 unfinished, 40 days; U2 unfinished, 100
// days; R finished, today. `croupier purge --dry-run` names F (finished
// over 30 days ago) and U2 (no write for 90 days) and removes nothing;
// `croupier purge` removes them (their plays too) and keeps U1 and R;
// `--finished 0 --idle 30` then takes U1. A server started with the
// default policy removes R once it is aged, by itself, soon after it starts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startServer, request, expectStatus } from './server.mjs';

const BIN = process.env.CROUPIER_BIN || 'build/croupier';
const sh = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const bots = { game: 'comp10001bo', players: [{ bot: 'random' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] };
const person = { game: 'comp10001bo', players: [{ name: 'P' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] };

async function purge(store, ...args) {
  return sh(BIN, ['purge', '--store', store, ...args], { encoding: 'utf8' });
}

export async function retentionCases(store, db) {
  const keep = await startServer({ store, extraArgs: ['--expire-finished', '0', '--expire-idle', '0'] });
  const status = async (id) => (await request(keep.base, 'GET', `/games/${id}`, { token: keep.adminToken })).status;
  const ids = {};
  try {
    for (const [name, body, seed] of [['F', bots, 1], ['U1', person, 2], ['U2', person, 3], ['R', bots, 4]]) {
      const r = await request(keep.base, 'POST', '/games', { json: { ...body, seed } });
      expectStatus(r, 201);
      ids[name] = r.json.id;
      assert.equal(r.json.status.over, body === bots, `${name} is ${body === bots ? '' : 'not '}over`);
    }
    assert.ok(db.plays(ids.F) > 0);
    db.age(ids.F, 40);
    db.age(ids.U1, 40);
    db.age(ids.U2, 100);

    let { stdout } = await purge(store, '--dry-run');
    assert.match(stdout, new RegExp(`^would remove ${ids.F} \\(finished; last written \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\)$`, 'm'));
    assert.match(stdout, new RegExp(`^would remove ${ids.U2} \\(idle; `, 'm'));
    assert.doesNotMatch(stdout, new RegExp(`${ids.U1}|${ids.R}`));
    assert.match(stdout, /^croupier purge: 2 games would be removed \(1 finished, 1 idle\), \d+ kept; a dry run: nothing was removed$/m);
    for (const id of Object.values(ids)) assert.equal(await status(id), 200, 'a dry run removes nothing');

    ({ stdout } = await purge(store));
    assert.match(stdout, new RegExp(`^removed ${ids.F} \\(finished; `, 'm'));
    assert.match(stdout, new RegExp(`^removed ${ids.U2} \\(idle; `, 'm'));
    assert.match(stdout, /^croupier purge: 2 games removed \(1 finished, 1 idle\), \d+ kept$/m);
    assert.deepEqual([await status(ids.F), await status(ids.U2), await status(ids.U1), await status(ids.R)], [404, 404, 200, 200]);
    assert.equal(db.plays(ids.F), 0, 'its plays went with it');
    assert.equal(db.plays(ids.U2), 0);

    ({ stdout } = await purge(store, '--finished', '0', '--idle', '30'));
    assert.match(stdout, new RegExp(`^removed ${ids.U1} \\(idle; `, 'm'));
    assert.equal(await status(ids.U1), 404);
    assert.equal(await status(ids.R), 200, 'a game played today stays');
  } finally {
    const r = await keep.stop();
    assert.equal(r.code, 0, r.stderr);
  }

  db.age(ids.R, 31);
  const server = await startServer({ store }); // the defaults: finished after 30 days, idle after 90
  try {
    let gone = false;
    for (const end = Date.now() + 30_000; !gone && Date.now() < end; await sleep(200))
      gone = (await request(server.base, 'GET', `/games/${ids.R}`, { token: server.adminToken })).status === 404;
    assert.ok(gone, 'the server removed the aged finished game by itself');
  } finally {
    const r = await server.stop();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^croupier: 1 games expired \(1 finished, 0 idle\)$/m);
  }
  const bad = await sh(BIN, ['purge', '--store', store, '--idle', 'x']).catch((e) => e);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^croupier purge: --idle takes 0\.\.36500 days\n$/);
}
