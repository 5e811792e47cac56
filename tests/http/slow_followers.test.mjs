// A slow follower never slows anyone else (issue 45 item 4, croupier serve):
// a crowd of followers that stop reading (SSE and WebSocket, half each, on
// 4 KiB sockets: lib/stalled.mjs), while a person plays a whole Five Crowns game against
// six bots and other followers (seat and spectators, SSE and WebSocket)
// read it. Each reading follower must get every event, exactly as GET
// /events answers its reader; each stalled one must be cut off by the
// server (its write timeout: /metrics croupier_streams_cut_total, and its
// slot given back), never left to hold its output.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useServer, expectStatus } from './lib/server.mjs';
import { follow, followWs } from './lib/sse.mjs';
import { stalledFollowers } from './lib/stalled.mjs';

const STALLED = Number(process.env.CROUPIER_TEST_STALLED || 100);
const srv = useServer({ extraArgs: ['--max-streams', '200', '--max-streams-per-client', '200'] });
const skip = process.env.CROUPIER_TEST_FRONT === 'fcgi' && 'croupier serve\'s streams (FastCGI has no WebSocket)';


const metrics = async () => (await srv.get('/metrics')).text;
const value = (text, re) => Number(re.exec(text)?.[1] ?? NaN);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The events of game id after `after` as the reader of `token` may see them
 * now (GET /events, page by page). */
async function allEvents(id, token, after = 0) {
  const out = [];
  for (;;) {
    const r = await srv.get(`/games/${id}/events?after=${out.at(-1)?.n ?? after}&limit=1000`, { token });
    expectStatus(r, 200);
    if (!r.json.length) return out;
    out.push(...r.json);
  }
}

test(`${STALLED} followers that never read are cut off; every other follower gets every event`, { skip, timeout: 240_000 }, async () => {
  const created = await srv.post('/games', { game: 'fivecrowns', seed: 9, players: [{ name: 'Ann' }, ...Array(6).fill({ bot: 'strategy' })] });
  expectStatus(created, 201);
  const id = created.json.id, token = created.json.seats[0].token;
  const m0 = await metrics();
  const open0 = value(m0, /^croupier_streams_open (\d+)/m);
  const cut0 = value(m0, /^croupier_streams_cut_total\{kind="sse"\} (\d+)/m) + value(m0, /^croupier_streams_cut_total\{kind="websocket"\} (\d+)/m);
  const { port } = new URL(srv.base);
  const stalled = await stalledFollowers(+port, STALLED, `/games/${id}/events`, `/games/${id}/ws`);
  try {
    for (let t0 = Date.now(); value(await metrics(), /^croupier_streams_open (\d+)/m) < open0 + STALLED;) {
      assert.ok(Date.now() - t0 < 30_000, 'the stalled followers\' streams opened');
      await sleep(100);
    }
    // the followers that read: the seat and a spectator, each by SSE and by WebSocket
    const url = `${srv.base}/games/${id}/events`;
    const readers = [
      { token, s: follow(url, { authorization: `Bearer ${token}` }) },
      { token: undefined, s: follow(url) },
      { token: undefined, s: follow(url) },
    ];
    const sockets = [{ token, w: followWs(srv.base.replace('http', 'ws') + `/games/${id}/ws`, token) }, { token: undefined, w: followWs(srv.base.replace('http', 'ws') + `/games/${id}/ws`) }];
    await Promise.all([...readers.map((r) => r.s.ready), ...sockets.map((x) => x.w.ready)]);
    // the whole game, the person playing as the readers follow; each
    // reader's events read by GET as they happen (once it is over, every
    // card and the bots' reasoning show in GET: not what was streamed before)
    const expected = new Map([[token, []], [undefined, []]]);
    const catchUp = async () => {
      for (const [t, list] of expected) list.push(...await allEvents(id, t, list.at(-1)?.n ?? 0));
      await Promise.all(readers.map((r) => r.s.arrival(expected.get(r.token).at(-1).n, 60_000)));
    };
    await catchUp();
    let plays = 0;
    for (;;) {
      const legal = await srv.get(`/games/${id}/legal`, { token });
      if (!legal.json.plays.length) break;
      expectStatus(await srv.post(`/games/${id}/plays`, { play: legal.json.plays[0] }, { token }), 200);
      plays++;
      await catchUp();
    }
    assert.ok(plays > 10, `${plays} plays`);
    for (const r of readers) {
      assert.deepEqual(r.s.frames.map((f) => f.data), expected.get(r.token), 'an SSE follower got every event of its reader, once, in order');
      r.s.close();
    }
    for (const { token: t, w } of sockets) {
      const want = expected.get(t).map(({ n, ...e }) => e);
      for (let t0 = Date.now(); w.msgs.length < want.length && Date.now() - t0 < 60_000;) await sleep(100);
      assert.deepEqual(w.msgs, want, 'a WebSocket follower got every event of its reader, once, in order');
      w.ws.close();
    }
    // every stalled follower cut off (its output backed up: the write
    // timeout, 10 s, runs from then), and its slot given back; 90 s is the
    // bound of this wait, where an uncut stream would stay open until idle
    const stalledOpen = async () => value(await metrics(), /^croupier_streams_open (\d+)/m) - open0;
    let m;
    for (const t0 = Date.now(); ; await sleep(500)) {
      m = await metrics();
      const cut = value(m, /^croupier_streams_cut_total\{kind="sse"\} (\d+)/m) + value(m, /^croupier_streams_cut_total\{kind="websocket"\} (\d+)/m) - cut0;
      if (cut >= STALLED && (await stalledOpen()) <= 0) break;
      assert.ok(Date.now() - t0 < 90_000, `the stalled followers cut off: ${cut} of ${STALLED} (${/^croupier_streams_cut_total.*$/gm[Symbol.match](m).join(", ")}), ${await stalledOpen()} streams still open`);
    }
    assert.equal(value(m, /^croupier_streams_cut_total\{kind="sse"\} (\d+)/m) + value(m, /^croupier_streams_cut_total\{kind="websocket"\} (\d+)/m) - cut0, STALLED,
      'exactly the stalled followers were cut off, none of the readers');
    expectStatus(await srv.get('/healthz'), 200);
  } finally {
    stalled.kill('SIGKILL');
  }
});
