// The SQLite store on a disk that fills (docs/operations.md, a full disk).
//
// Each test mounts a small tmpfs of its own (24 MB; mounting needs root:
// without it the tests are skipped and say why) and runs a real server
// with its store on it, under the write load of four clients that each
// play a game against bots (every other play with an Idempotency-Key,
// whose answers the store keeps too), starting a new game when one ends.
//
// 1. The disk fills (files of 6 and 3 MB take part of it), its WAL kept
//    small by checkpoints (it held all the free space before): every write
//    is then refused with a clean 503 problem (store-full or
//    store-unavailable, Retry-After), /healthz says "writes": "failing" and
//    /metrics croupier_store_writes_failing 1. The 6 MB file is removed
//    under the load: the room goes to plays, not back into the WAL. The
//    load stopped, the other file is removed: without a restart, /healthz
//    says "writes": "ok" and plays are taken. Every play acknowledged
//    before, during and after is in the store, once.
// 2. The watermark: with --store-min-free 12M, new games are refused (503
//    store-full, Retry-After 60) once the disk has less than that free,
//    while the games there go on being played.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, statfsSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, request, expectProblem, expectStatus } from '../http/lib/server.mjs';
import { missing } from '../http/lib/load.mjs';

const SIZE_MB = 24;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mounts = [];
after(() => {
  for (const dir of mounts) {
    try { execFileSync('umount', [dir]); } catch { /* not mounted */ }
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A fresh tmpfs of SIZE_MB: its path, or a string saying why there is none. */
function smallDisk() {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-disk-'));
  mounts.push(dir);
  if (process.getuid?.() !== 0) return { skip: 'mounting a small tmpfs needs root' };
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SIZE_MB}m,mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (e) {
    return { skip: `cannot mount a tmpfs here (${String(e.stderr || e.message).trim()})` };
  }
  return { dir };
}

// Probe once, up front, so that a machine that cannot mount skips with the reason.
const probe = smallDisk();
const skip = probe.skip || false;
if (skip) console.log(`# tests/disk skipped: ${skip}`);

const freeMB = (dir) => { const s = statfsSync(dir); return (s.bavail * s.bsize) / (1 << 20); };

/** Four clients playing games against bots until stop(); what they saw. */
function writeLoad(base) {
  const acked = []; // {id, n, play} of every play answered 200
  const refused = []; // {what, status, type, retryAfter}
  let running = true;
  let k = 0;
  const note = (what, r) => refused.push({ what, status: r.status, type: r.json?.type, retryAfter: r.headers.get('retry-after'), text: r.text.slice(0, 300) });
  async function client(i) {
    let g = null;
    while (running) {
      if (!g) {
        const r = await request(base, 'POST', '/games', {
          json: { game: 'comp10001bo', seed: 1000 * i + k++, players: [{ name: 'P' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] },
        });
        if (r.status === 201) g = { id: r.json.id, token: r.json.seats[0].token };
        else { note('create', r); await sleep(100); }
        continue;
      }
      const legal = await request(base, 'GET', `/games/${g.id}/legal`, { token: g.token });
      expectStatus(legal, 200, 'reads go on');
      if (!legal.json.plays.length) { g = null; continue; }
      const play = legal.json.plays[k++ % legal.json.plays.length];
      const headers = k % 2 ? { 'idempotency-key': randomUUID() } : {};
      const r = await request(base, 'POST', `/games/${g.id}/plays`, { token: g.token, json: { play }, headers });
      if (r.status === 200) acked.push({ id: g.id, n: r.json.applied[0].n, play: r.json.applied[0].play, g });
      else { note('play', r); await sleep(50); }
    }
  }
  const clients = Array.from({ length: 4 }, (_, i) => client(i));
  return { acked, refused, async stop() { running = false; await Promise.all(clients); } };
}

async function health(base) {
  const r = await request(base, 'GET', '/healthz');
  expectStatus(r, 200, '/healthz answers 200 while reads are served');
  return r.json;
}

/** Wait until pred() (polled every 100 ms) or `ms` pass: whether it came. */
async function until(pred, ms) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (await pred()) return true;
  return false;
}

function metric(text, name) {
  const m = new RegExp(`^${name} (-?\\d+)$`, 'm').exec(text);
  assert.ok(m, `no ${name} in /metrics`);
  return Number(m[1]);
}

test('a full disk: writes refused cleanly and said on /healthz; freed room brings them back, no play lost', { skip, timeout: 240_000 }, async () => {
  const { dir } = probe;
  const fillers = [path.join(dir, 'filler-a'), path.join(dir, 'filler-b')];
  writeFileSync(fillers[0], Buffer.alloc(6 << 20, 1));
  writeFileSync(fillers[1], Buffer.alloc(3 << 20, 1));
  const wal = path.join(dir, 't.db-wal');
  const server = await startServer({ store: `sqlite:${path.join(dir, 't.db')}`, extraArgs: ['--store-min-free', '0', '--quota-create', '0'] /* creates by the hundred: not the quota's test */ });
  const loads = [];
  try {
    assert.equal((await health(server.base)).writes, 'ok');
    const load = writeLoad(server.base);
    loads.push(load);
    const full = await until(async () => (await health(server.base)).writes === 'failing', 120_000);
    assert.ok(full, `the disk filled and /healthz said so (${load.acked.length} plays taken, ${freeMB(dir).toFixed(1)} MB free)`);
    const walMB = statSync(wal).size / (1 << 20);
    assert.ok(walMB < SIZE_MB / 4, `the WAL was checkpointed as the disk filled, not grown into it (${walMB.toFixed(1)} MB)`);
    assert.ok(load.refused.length > 0, 'writes were refused');
    for (const r of load.refused) {
      assert.equal(r.status, 503, `a refused write is a 503: ${JSON.stringify(r)}`);
      assert.ok(['/problems/store-full', '/problems/store-unavailable'].includes(r.type), `a refused write says the store: ${JSON.stringify(r)}`);
      assert.match(r.retryAfter || '', /^\d+$/, `with Retry-After: ${JSON.stringify(r)}`);
    }
    assert.ok(load.refused.some((r) => r.type === '/problems/store-full'), 'a full disk is named as such');
    const h = await health(server.base);
    assert.deepEqual([h.status, h.writes, h.new_games], ['ok', 'failing', 'refused']);
    const m = (await request(server.base, 'GET', '/metrics')).text;
    assert.equal(metric(m, 'croupier_store_writes_failing'), 1);
    assert.ok(metric(m, 'croupier_store_write_failures_total') > 0);
    const refusedGame = await request(server.base, 'POST', '/games', { json: { game: 'comp10001bo', players: [{ name: 'P' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] } });
    expectProblem(refusedGame, 503, 'store-full', 'no new game on a full disk');

    // room freed under the load: taken by plays, not by the WAL (left to
    // the writers, a WAL that had filled the disk took it back at once)
    const before = load.acked.length;
    unlinkSync(fillers[0]);
    const used = await until(() => load.acked.length >= before + 600, 60_000);
    await load.stop();
    assert.ok(used, `the room freed under load went to plays (${load.acked.length - before} taken after 6 MB were freed)`);

    // and with no load: the rest freed, writes are taken again
    unlinkSync(fillers[1]);
    const t0 = Date.now();
    const back = await until(async () => (await health(server.base)).writes === 'ok', 20_000);
    assert.ok(back, '/healthz says "writes": "ok" once room was freed, with no restart');
    const again = writeLoad(server.base);
    loads.push(again);
    const played = await until(() => again.acked.length >= 20, 30_000);
    await again.stop();
    assert.ok(played, `plays are taken again (${again.acked.length}; refused: ${JSON.stringify(again.refused.slice(0, 3))})`);
    console.log(`# ${before} plays before the disk filled (WAL ${walMB.toFixed(1)} MB), ${load.acked.length - before} after 6 MB were freed under load; /healthz "ok" ${Date.now() - t0} ms after 3 MB more were freed`);
    const lost = await missing(server.base, server.adminToken, [...load.acked, ...again.acked]);
    assert.deepEqual(lost.slice(0, 5), [], `every acknowledged play is in the store once (${lost.length} not)`);
  } finally {
    for (const l of loads) await l.stop();
    const s = await server.stop();
    assert.equal(s.code, 0, s.stderr);
  }
});

test('--store-min-free: new games refused before the disk fills, the games there go on', { skip, timeout: 240_000 }, async () => {
  const disk = smallDisk();
  assert.ok(disk.dir, disk.skip);
  const server = await startServer({ store: `sqlite:${path.join(disk.dir, 't.db')}`, extraArgs: ['--store-min-free', '12M', '--quota-create', '0'] });
  let load;
  try {
    const kept = []; // games made before, played only once new ones are refused
    for (let i = 0; i < 4; i++) {
      const r = await request(server.base, 'POST', '/games', {
        json: { game: 'comp10001bo', seed: 77 + i, players: [{ name: 'P' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] },
      });
      expectStatus(r, 201);
      kept.push({ id: r.json.id, token: r.json.seats[0].token });
    }
    load = writeLoad(server.base);
    const refusedAt = await until(() => load.refused.some((r) => r.what === 'create'), 120_000);
    await load.stop();
    assert.ok(refusedAt, `new games were refused (${freeMB(disk.dir).toFixed(1)} MB free)`);
    const acked = [...load.acked];
    for (const g of kept) {
      for (let i = 0; i < 5; i++) {
        const legal = await request(server.base, 'GET', `/games/${g.id}/legal`, { token: g.token });
        expectStatus(legal, 200);
        const r = await request(server.base, 'POST', `/games/${g.id}/plays`, { token: g.token, json: { play: legal.json.plays[0] } });
        expectStatus(r, 200, 'a game there goes on');
        acked.push({ id: g.id, n: r.json.applied[0].n, play: r.json.applied[0].play });
      }
    }
    const first = load.refused.find((r) => r.what === 'create');
    assert.deepEqual([first.status, first.type, first.retryAfter], [503, '/problems/store-full', '60'], first.text);
    assert.match(first.text, /--store-min-free/);
    assert.ok(freeMB(disk.dir) > 1, 'the disk is not full');
    let h; // kept for a second: the answer may be of a moment before
    assert.ok(await until(async () => (h = await health(server.base)).new_games === 'refused', 5000), JSON.stringify(h));
    assert.equal(h.writes, 'ok');
    for (const r of load.refused) assert.equal(r.what, 'create', `only new games are refused: ${JSON.stringify(r)}`);
    const imp = await request(server.base, 'POST', '/games/import', { json: {} });
    expectProblem(imp, 503, 'store-full', 'an import is a new game too');
    assert.deepEqual(await missing(server.base, server.adminToken, acked), []);
  } finally {
    await load?.stop();
    const s = await server.stop();
    assert.equal(s.code, 0, s.stderr);
  }
});
