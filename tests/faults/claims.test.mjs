// Who may take over an Idempotency-Key's claim (api/idem.c): only a claim
// whose request is gone. Two servers on one store:
//   - server A, stopped (SIGSTOP) in the middle of a keyed request, still
//     runs: B answers the same request 409 `idempotency-key-in-flight`,
//     again and again, and does not run it;
//   - a claim whose owner is on another host (B cannot tell whether it
//     runs) is held until its lease ends, then B takes it over and runs the
//     request; A, resumed, finds the key answered and gives B's answer:
//     one game, whoever wrote it;
//   - a request that runs longer than the lease keeps its claim: A renews
//     it while it runs (PostgreSQL: A's write waits for a row lock held by
//     the test, past the 10 s lease), and B still answers 409 after the
//     lease would have ended, then the stored answer once A is done.
// Bounded: about 30 s.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCluster } from '../http/lib/pg.mjs';
import { startServer, request, expectStatus, expectProblem } from '../http/lib/server.mjs';

const LEASE_S = 10; // api/idem.c
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dir = mkdtempSync(path.join(tmpdir(), 'croupier-claims-'));
const cleanups = [];
after(async () => {
  for (const f of cleanups.reverse()) await f();
  rmSync(dir, { recursive: true, force: true });
});

async function servers(store, extraArgs = []) {
  const a = await startServer({ store, extraArgs });
  const b = await startServer({ store, extraArgs });
  cleanups.push(async () => {
    for (const s of [a, b]) {
      try { s.proc.kill('SIGCONT'); } catch { /* gone */ }
      await s.stop();
    }
  });
  return [a, b];
}

// A game of bots only, played to its end by the POST: long enough (tens
// of ms of bots' thinking between the claim and the write) to stop its
// server in the middle of it.
const slowCreate = (seed) => ({ game: 'fivecrowns', seed, players: Array.from({ length: 5 }, () => ({ bot: 'strategy' })) });

/**
 * Send a keyed create to A and stop A while it holds the key's claim
 * (claims() > 0); tries again with another seed when A was stopped before
 * its claim or after its answer. {pending (A's answer, once resumed), key,
 * json}.
 */
async function stopMidRequest(a, claims) {
  for (let attempt = 0; attempt < 40; attempt++) {
    const key = `"${randomUUID()}"`, json = slowCreate(3000 + attempt);
    const pending = request(a.base, 'POST', '/games', { json, headers: { 'idempotency-key': key }, timeout: 60_000 });
    await sleep(15 + (attempt % 5) * 10);
    a.proc.kill('SIGSTOP');
    if (claims() > 0) return { pending, key, json };
    a.proc.kill('SIGCONT');
    await pending;
  }
  assert.fail('could not stop the server while it held a claim');
}

test('a live owner keeps its claim; another host\'s only until its lease ends; the write decides', { timeout: 120_000 }, async () => {
  const file = path.join(dir, 'claims.db');
  const [a, b] = await servers(`sqlite:${file}`);
  const sql = (q) => execFileSync('sqlite3', ['-cmd', '.timeout 5000', file, q], { encoding: 'utf8' }).trim();
  const { pending, key, json } = await stopMidRequest(a, () => Number(sql('SELECT count(*) FROM idempotency_claims')));
  const send = () => request(b.base, 'POST', '/games', { json, headers: { 'idempotency-key': key }, timeout: 20_000 });
  // A is stopped, not dead: its claim holds
  for (let i = 0; i < 3; i++) {
    const r = await send();
    expectProblem(r, 409, 'idempotency-key-in-flight', `A stopped, try ${i}`);
    await sleep(500);
  }
  // the claim as a process of another host would hold it, 2 s of lease left
  sql("UPDATE idempotency_claims SET owner = 'ffffffffffffffff.1.1:1'," +
    " expires_at = CAST(strftime('%s', 'now') AS INTEGER) + 2");
  const held = await send();
  expectProblem(held, 409, 'idempotency-key-in-flight', 'another host\'s claim, within its lease');
  let taken;
  for (let i = 0; i < 40 && !taken; i++) {
    await sleep(250);
    const r = await send();
    if (r.status !== 409) taken = r;
  }
  assert.ok(taken, 'taken over once the lease ended');
  expectStatus(taken, 201, 'B ran the request');
  assert.equal(taken.headers.get('idempotent-replayed'), null, 'B ran it: not a replay');
  // A resumes: its write finds the key answered, and A answers B's answer
  a.proc.kill('SIGCONT');
  const first = await pending;
  expectStatus(first, 201, 'A, resumed');
  assert.equal(first.text, taken.text, 'A answers what B stored');
  assert.equal(first.headers.get('idempotent-replayed'), 'true');
  assert.equal(sql(`SELECT count(*) FROM games WHERE json_extract(meta, '$.seed') = ${json.seed}`), '1', 'one game');
});

const pg = startCluster();
if (pg) cleanups.push(() => pg.destroy());

test('a request that runs past the lease keeps its claim (renewed while it runs)',
  { skip: !pg && 'no PostgreSQL server binaries (apt-get install postgresql)', timeout: 120_000 }, async () => {
    // statements may wait for a lock up to 40 s here (the test holds one)
    const store = `${pg.url}&options=-c%20statement_timeout%3D40000`;
    const [a, b] = await servers(store);
    const g = await request(a.base, 'POST', '/games', {
      json: { game: 'comp10001bo', seed: 5, players: [{ name: 'P' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] },
    });
    expectStatus(g, 201);
    const token = g.json.seats[0].token;
    const legal = (await request(a.base, 'GET', `/games/${g.json.id}/legal`, { token })).json.plays;
    // the game's row locked by a session of the test's: A's write waits
    const locker = spawn('psql', ['-X', '-q', '-d', pg.url], { stdio: ['pipe', 'ignore', 'inherit'] });
    cleanups.push(() => { if (locker.exitCode === null) locker.kill(); });
    locker.stdin.write(`BEGIN; SELECT 1 FROM games WHERE id = '${g.json.id}' FOR UPDATE;\n`);
    await sleep(500);
    const key = `"${randomUUID()}"`, json = { play: legal[0] }, p = `/games/${g.json.id}/plays`;
    const t0 = Date.now();
    const pending = request(a.base, 'POST', p, { token, json, headers: { 'idempotency-key': key }, timeout: 60_000 });
    await sleep(LEASE_S * 1000 + 2500); // past the lease A's claim started with
    const r = await request(b.base, 'POST', p, { token, json, headers: { 'idempotency-key': key }, timeout: 20_000 });
    expectProblem(r, 409, 'idempotency-key-in-flight', `B, ${Date.now() - t0} ms after A began: A's claim was renewed`);
    locker.stdin.end('COMMIT;\n');
    const first = await pending;
    expectStatus(first, 200, 'A, once the lock is gone');
    const again = await request(b.base, 'POST', p, { token, json, headers: { 'idempotency-key': key } });
    expectStatus(again, 200);
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
  });
