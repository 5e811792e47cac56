// The nginx + nchan profile past one process (issue 45 item 2): two
// `croupier fcgi` processes on one PostgreSQL store behind one nginx (the
// first publishes, the other's writes reach it by LISTEN/NOTIFY), and two
// nginx servers sharing their channels through one Redis (Debian's
// redis-server on loopback). Each skipped, saying why, where nchan,
// PostgreSQL or redis-server is missing (`make deps` installs them).
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request, expectStatus } from './lib/server.mjs';
import { sseFrames } from './lib/sse.mjs';
import { nchanMissing, startNchan, waitFor } from './lib/nchan.mjs';
import { startCluster } from './lib/pg.mjs';

const REDIS = '/usr/bin/redis-server';

/** An SSE subscriber: its frames as they come. */
function follow(base, p, token, extra = {}) {
  const frames = [];
  let req;
  const ready = new Promise((resolve, reject) => {
    req = http.get(base + p, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}`, ...extra } }, (res) => {
      resolve(res.statusCode);
      if (res.statusCode === 200) sseFrames(res, (f) => frames.push(f)); else res.resume();
    });
    req.on('error', (e) => { if (e.code !== 'ECONNRESET') reject(e); });
  });
  const f = { ready, frames, close: () => req.destroy() };
  streams.add(f);
  return f;
}

// Every stream a test opened, closed in its `finally` whatever failed: an
// open socket would keep this file's process (and the suite) waiting.
const streams = new Set();
const closeAll = () => { for (const f of streams) f.close(); streams.clear(); };

/** One move of a two-seat Hanabi game by its hint, sent to `base`. */
async function move(base, id, tokens, admin) {
  const v = (await request(base, 'GET', `/games/${id}`, { token: admin })).json.state;
  const h = await request(base, 'GET', `/games/${id}/hint`, { token: tokens[v.current] });
  expectStatus(h, 200, 'hint');
  expectStatus(await request(base, 'POST', `/games/${id}/plays`, { json: { play: h.json.play }, token: tokens[v.current] }), 200, 'play');
}

async function newGame(base, seed) {
  const g = await request(base, 'POST', '/games', { json: { game: 'hanabi', seed, players: [{ name: 'A' }, { name: 'B' }] } });
  expectStatus(g, 201);
  return { id: g.json.id, tokens: g.json.seats.map((s) => s.token) };
}

const events = async (base, id, token) => (await request(base, 'GET', `/games/${id}/events`, { token })).json;

test('two croupier processes on one PostgreSQL, one nginx: every play of either reaches the channels at once, once, in order', {
  skip: nchanMissing || false,
}, async (t) => {
  const pg = await startCluster();
  if (!pg) { t.skip('PostgreSQL is not installed (make deps)'); return; }
  let n;
  try {
    n = await startNchan({ procs: 2, store: pg.url });
    const { id, tokens } = await newGame(n.base, 81);
    const s = [0, 1].map((k) => follow(n.base, `/games/${id}/events`, tokens[k]));
    for (const x of s) assert.equal(await x.ready, 200);
    // nginx sends the requests to the two processes in turn; each play must
    // be on both channels before the next is made, whichever process wrote it
    for (let i = 0; i < 8; i++) {
      await move(n.base, id, tokens, n.admin);
      const want = await Promise.all([0, 1].map((k) => events(n.base, id, tokens[k])));
      await waitFor(() => s.every((x, k) => x.frames.length >= want[k].length), 5000, `play ${i + 1} on both channels`);
    }
    await new Promise((r) => setTimeout(r, 300));
    for (const k of [0, 1]) {
      assert.deepEqual(s[k].frames.map((f) => JSON.parse(f.data)), await events(n.base, id, tokens[k]), `seat ${k}: every event once, in order`);
      s[k].close();
    }
  } finally {
    // everything stopped first, the exits asserted last: a failed assert
    // must not leave a cluster or a socket holding the suite open
    closeAll();
    const exits = n ? await n.stop() : [];
    await pg.stop();
    for (const r of exits) assert.equal(r.code, 0, r.stderr.slice(-800));
  }
});

test('two nginx servers on one Redis: a follower of either gets the channel, and resumes on the other', {
  skip: nchanMissing || (!existsSync(REDIS) && 'redis-server is not installed (make deps)') || false,
}, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-redis-'));
  const port = 10000 + Math.floor(Math.random() * 10000); // below the ephemeral ports (a bench's TIME_WAITs)
  const redis = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' });
  let n;
  try {
    n = await startNchan({ nginxes: 2, redis: `redis://127.0.0.1:${port}` });
    const { id, tokens } = await newGame(n.bases[0], 82);
    const a = follow(n.bases[1], `/games/${id}/events`, tokens[0]);
    assert.equal(await a.ready, 200, 'subscribed on the second nginx');
    for (let i = 0; i < 4; i++) await move(n.bases[0], id, tokens, n.admin);
    let want = await events(n.bases[0], id, tokens[0]);
    await waitFor(() => a.frames.length >= want.length, 10000, 'the events through Redis');
    assert.deepEqual(a.frames.map((f) => JSON.parse(f.data)), want, 'every event once, in order, on the other nginx');
    a.close();
    for (let i = 0; i < 3; i++) await move(n.bases[0], id, tokens, n.admin);
    want = await events(n.bases[0], id, tokens[0]);
    const b = follow(n.bases[0], `/games/${id}/events`, tokens[0], { 'last-event-id': a.frames[1].id });
    assert.equal(await b.ready, 200);
    await waitFor(() => b.frames.length >= want.length - 2, 10000, 'the resumed stream on the first nginx');
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(b.frames.map((f) => JSON.parse(f.data)), want.slice(2), 'resumed on the first nginx: nothing lost, nothing twice');
    b.close();
  } finally {
    closeAll();
    let exits = [];
    try { if (n) exits = await n.stop(); } finally {
      redis.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
    for (const r of exits) assert.equal(r.code, 0, r.stderr.slice(-800));
  }
});
