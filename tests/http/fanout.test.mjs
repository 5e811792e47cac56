// Events written once per audience (issue 45 item 1, api/fanout.h): many
// streams of two seats and of the spectators follow one Hanabi game (each
// seat sees the others' cards, not its own), while the seats play. Every
// stream must receive exactly its own reader's events, as GET /events
// answers that reader (so an audience's bytes never reach another), every
// stream of one audience the same bytes, and the server must load the
// events about once per audience and write, not once per stream
// (croupier_event_builds_total).
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus } from './lib/server.mjs';
import { follow, followWs } from './lib/sse.mjs';

// 23 streams from one address: more than the default 16 allow
const srv = useServer({ extraArgs: ['--threads', '64', '--max-streams-per-client', '32'] });
const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';

/** An SSE stream of a reader (a seat's token, or none), lib/sse.mjs. */
const sse = (path, token) => follow(srv.base + path, token ? { authorization: `Bearer ${token}` } : {});

const metric = async (name) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec((await srv.get('/metrics')).text)?.[1]);

test('each audience gets its own events, the same bytes for all its streams, built once per write', async () => {
  const g = await srv.post('/games', { game: 'hanabi', seed: 45, players: [{ name: 'A' }, { name: 'B' }] });
  expectStatus(g, 201);
  const id = g.json.id;
  const tokens = g.json.seats.map((s) => s.token);
  const readers = [tokens[0], tokens[1], undefined]; // seat 0, seat 1, spectators
  const per = [5, 5, 10];
  const streams = [];
  readers.forEach((tok, r) => { for (let i = 0; i < per[r]; i++) streams.push({ r, s: sse(`/games/${id}/events`, tok) }); });
  await Promise.all(streams.map((x) => x.s.ready));
  const sockets = viaFcgi ? [] : readers.map((tok, r) => ({ r, w: followWs(srv.base.replace('http', 'ws') + `/games/${id}/ws`, tok) }));
  await Promise.all(sockets.map((x) => x.w.ready));
  const builds0 = await metric('croupier_event_builds_total');
  const PLAYS = 12;
  let plays = 0;
  for (; plays < PLAYS; plays++) {
    const v = (await srv.get(`/games/${id}`, { token: srv.adminToken })).json.state;
    if (v.over) break;
    const h = await srv.get(`/games/${id}/hint`, { token: tokens[v.current] });
    expectStatus(h, 200, 'hint');
    expectStatus(await srv.post(`/games/${id}/plays`, { play: h.json.play }, { token: tokens[v.current] }), 200, 'play');
  }
  assert.ok(plays >= 6, `${plays} plays made`);
  const expected = [];
  for (const tok of readers) {
    const r = await srv.get(`/games/${id}/events`, { token: tok });
    expectStatus(r, 200);
    expected.push(r.json);
  }
  await Promise.all(streams.map((x) => x.s.arrival(expected[x.r].at(-1).n, 15000)));
  const builds = (await metric('croupier_event_builds_total')) - builds0;
  for (const { r, s } of streams) {
    assert.deepEqual(s.frames.map((e) => e.data), expected[r], `a stream of reader ${r}: exactly that reader's events`);
    assert.deepEqual(s.frames.map((e) => e.id), expected[r].map((e) => e.n));
  }
  // one audience, one text; the seats' differ (each hides that seat's own cards)
  for (let r = 0; r < readers.length; r++) {
    const texts = new Set(streams.filter((x) => x.r === r).map((x) => x.s.frames.map((f) => f.text).join('\n\n')));
    assert.equal(texts.size, 1, `every stream of reader ${r} got the same bytes`);
  }
  const text = (r) => streams.find((x) => x.r === r).s.frames.map((f) => f.text).join('\n\n');
  assert.notEqual(text(0), text(1), 'the seats see the game differently (the test can tell audiences apart)');
  assert.notEqual(text(0), text(2));
  // written once per audience and write, not once per stream: 20 streams
  // would make 20 loads a write
  assert.ok(builds < (streams.length * plays) / 2, `${builds} builds for ${plays} plays and ${streams.length} streams`);
  for (const { r, w } of sockets) {
    const want = expected[r].map(({ n, ...rest }) => rest); // wire events carry no "n"
    for (let t0 = Date.now(); w.msgs.length < want.length && Date.now() - t0 < 15000;) await new Promise((res) => setTimeout(res, 100));
    assert.deepEqual(w.msgs, want, `the WebSocket of reader ${r}: exactly that reader's events`);
    w.ws.close();
  }
  streams.forEach((x) => x.s.close());
  // the audiences' buffers go with their last stream
  for (let t0 = Date.now(); Date.now() - t0 < 10000;) {
    if ((await metric('croupier_event_buffers')) === 0) break;
    await new Promise((res) => setTimeout(res, 200));
  }
  assert.equal(await metric('croupier_event_buffers'), 0, 'no event buffer left once every stream is gone');
});
