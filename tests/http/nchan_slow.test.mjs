// A slow follower never slows anyone else, through nginx + nchan (issue 45
// item 4; tests/http/slow_followers.test.mjs is the same for croupier
// serve): a crowd of followers that stop reading (SSE and WebSocket, half
// each, on sockets that take 4 KiB: one Python process holds them all, as
// Node cannot set SO_RCVBUF) subscribe through nginx while a person plays a
// whole Five Crowns game against six bots and other followers (the seat and
// spectators, SSE and WebSocket) read it. Each reading follower must get
// every event exactly as GET /events gives its reader, none late past a
// bound; each stalled one must be cut off by nginx (deploy/nginx-fastcgi.conf's
// send_timeout, 10 s between two writes) rather than held, and nginx's
// memory must stay bounded while they stall. Skipped where nginx or its
// nchan module is missing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { request, expectStatus } from './lib/server.mjs';
import { follow } from './lib/sse.mjs';
import { stalledFollowers } from './lib/stalled.mjs';
import { nchanMissing, startNchan } from './lib/nchan.mjs';

const STALLED = Number(process.env.CROUPIER_TEST_STALLED || 100);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rssKb = (pid) => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

// nginx's connections on its port that are open (ESTABLISHED, /proc/net/tcp)
// from its side: one it has closed leaves that state at once, though its FIN
// waits behind the data a reader that never reads does not take (so the
// reader itself would not see the close without reading).
function established(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)
    .filter((l) => { const f = l.trim().split(/\s+/); return f[1] && f[1].endsWith(`:${hex}`) && f[3] === '01'; }).length;
}

test(`through nchan, ${STALLED} followers that never read are cut off by nginx; every other follower gets every event`,
  { skip: nchanMissing || false, timeout: 240_000 }, async () => {
    // nginx's send buffers small (the test's listen line: on loopback the
    // kernel would otherwise take a whole game for a reader that never reads,
    // where a real network's slow reader backs up at once)
    const n = await startNchan({ connections: 2 * STALLED + 256, sndbuf: '16k' });
    const stalled = [];
    try {
      const get = (p, opts) => request(n.base, 'GET', p, opts);
      const created = await request(n.base, 'POST', '/games', { json: { game: 'fivecrowns', seed: 9, players: [{ name: 'Ann' }, ...Array(6).fill({ bot: 'strategy' })] } });
      expectStatus(created, 201);
      const id = created.json.id, token = created.json.seats[0].token;
      const nginxPid = n.nginxPids()[0];
      const rss0 = rssKb(nginxPid);
      const { port } = new URL(n.base);
      const open0 = established(+port);
      stalled.push(await stalledFollowers(+port, STALLED, `/games/${id}/events`));
      for (const t0 = Date.now(); established(+port) < open0 + STALLED; await sleep(100)) {
        assert.ok(Date.now() - t0 < 30_000, `nginx holds the stalled followers (${established(+port)} of ${open0 + STALLED})`);
      }
      // the followers that read: the seat and a spectator by SSE, the same by WebSocket
      const url = `${n.base}/games/${id}/events`;
      const readers = [
        { token, s: follow(url, { authorization: `Bearer ${token}` }, { idFromData: true }) },
        { token: undefined, s: follow(url, {}, { idFromData: true }) },
      ];
      const sockets = [token, undefined].map((t) => {
        const w = { token: t, msgs: [] };
        w.ws = new WebSocket(url.replace('http', 'ws'), t ? { headers: { authorization: `Bearer ${t}` } } : {});
        w.ready = new Promise((resolve, reject) => { w.ws.on('open', resolve); w.ws.on('error', reject); });
        w.ws.on('message', (m) => w.msgs.push(JSON.parse(String(m))));
        return w;
      });
      await Promise.all([...readers.map((r) => r.s.ready), ...sockets.map((w) => w.ready)]);
      // the whole game; each reader's events read by GET as they happen
      const expected = new Map([[token, []], [undefined, []]]);
      const lags = [];
      const catchUp = async (t0) => {
        for (const [t, list] of expected) {
          const r = await get(`/games/${id}/events?after=${list.at(-1)?.n ?? 0}&limit=1000`, { token: t });
          expectStatus(r, 200);
          list.push(...r.json);
        }
        const at = await Promise.all(readers.map((r) => r.s.arrival(expected.get(r.token).at(-1).n, 30_000)));
        if (t0 !== undefined) lags.push(Math.max(...at) - t0);
      };
      await catchUp();
      let plays = 0, lastPlay = performance.now();
      for (;;) {
        const legal = await get(`/games/${id}/legal`, { token });
        if (!legal.json.plays.length) break;
        const t0 = performance.now();
        expectStatus(await request(n.base, 'POST', `/games/${id}/plays`, { json: { play: legal.json.plays[0] }, token }), 200);
        plays++;
        lastPlay = performance.now();
        await catchUp(t0);
      }
      assert.ok(plays > 10, `${plays} plays`);
      for (const r of readers) {
        assert.deepEqual(r.s.frames.map((f) => f.data), expected.get(r.token), 'an SSE follower got every event of its reader, once, in order');
        r.s.close();
      }
      for (const w of sockets) {
        const want = expected.get(w.token);
        for (const t0 = Date.now(); w.msgs.length < want.length && Date.now() - t0 < 30_000;) await sleep(100);
        assert.deepEqual(w.msgs, want, 'a WebSocket follower got every event of its reader, once, in order');
        w.ws.close();
      }
      lags.sort((a, b) => a - b);
      const p99 = lags[Math.min(lags.length - 1, Math.ceil(0.99 * lags.length) - 1)];
      assert.ok(p99 < 2000, `a play reached the reading followers within 2 s while ${STALLED} stalled (p99 ${p99.toFixed(0)} ms)`);
      const events = expected.get(undefined).length;
      assert.ok(events > 100, `a game long enough to fill the stalled sockets (${events} events)`);
      // nginx's memory while they stall: what it queued for them, bounded
      const grown = rssKb(nginxPid) - rss0;
      assert.ok(grown < 64 * 1024, `nginx grew ${grown} KB holding ${STALLED} stalled followers`);
      // every stalled follower cut off by nginx: send_timeout, 10 s after
      // its last write went through; 60 s from the game's end is the bound
      // of this wait, where an uncut one would be held for ever
      for (;; await sleep(1000)) {
        const held = established(+port) - open0;
        if (held <= 0) break;
        assert.ok(performance.now() - lastPlay < 60_000, `the stalled followers cut off: ${held} of ${STALLED} still held`);
      }
      const cutAfter = (performance.now() - lastPlay) / 1000;
      assert.ok(cutAfter > 5, `not before nginx's send_timeout could have run (${cutAfter.toFixed(1)} s after the game)`);
      expectStatus(await get('/healthz'), 200);
    } finally {
      for (const p of stalled) p.kill('SIGKILL');
      const [r] = await n.stop();
      assert.equal(r.code, 0, `croupier fcgi exits 0: ${r.stderr.slice(-1500)}`);
    }
  });
