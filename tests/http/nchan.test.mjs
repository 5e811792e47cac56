// The nginx + nchan profile (deploy/nginx-nchan.conf, issue 45 item 2): a
// real nginx with Debian's nchan module in front of a real `croupier fcgi
// --nchan-publish`, run from the shipped file's marked lines (beside
// nginx-fastcgi.conf's, as tests/http/lib/server.mjs runs them). A game is
// played through the API; each audience's channel must carry exactly what
// GET /events gives that reader, once and in order, by SSE and WebSocket;
// subscribing is refused without the right token; a Last-Event-ID resumes
// without loss or repeat; no token reaches nginx's access log. Skipped, with
// the reason, only where nginx or its nchan module is not installed
// (`make deps` installs libnginx-mod-nchan).
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { request, expectStatus, startServer } from './lib/server.mjs';
import { sseFrames } from './lib/sse.mjs';
import { nchanMissing, startNchan, waitFor } from './lib/nchan.mjs';

const t = (name, fn) => test(name, { skip: nchanMissing || false }, fn);

const S = {};
before(async () => {
  if (nchanMissing) return;
  S.n = await startNchan();
  S.base = S.n.base;
  S.admin = S.n.admin;
  S.accessLog = S.n.accessLogs[0];
});

after(async () => {
  if (!S.n) return;
  const [r] = await S.n.stop();
  assert.equal(r.code, 0, `croupier fcgi exits 0 on SIGTERM: ${r.stderr.slice(-1500)}`);
});

const get = (p, opts) => request(S.base, 'GET', p, opts);
const post = (p, json, opts = {}) => request(S.base, 'POST', p, { json, ...opts });

/** An SSE subscriber through nginx: frames {id, event, data (text)} as they come. */
function sse(p, headers = {}) {
  const frames = [];
  let req;
  const ready = new Promise((resolve, reject) => {
    req = http.get(S.base + p, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let body = '';
      if (res.statusCode !== 200) {
        res.setEncoding('utf8');
        res.on('data', (d) => { body += d; });
        res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], body }));
        return;
      }
      resolve({ status: 200, type: res.headers['content-type'] });
      sseFrames(res, (f) => frames.push(f));
    });
    req.on('error', (e) => { if (e.code !== 'ECONNRESET') reject(e); });
  });
  return { ready, frames, close: () => req.destroy() };
}

/** A WebSocket subscriber through nginx: the messages' texts. */
function ws(p, token) {
  const msgs = [];
  const w = new WebSocket(S.base.replace('http', 'ws') + p, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const ready = new Promise((resolve) => {
    w.on('open', () => resolve({ status: 101 }));
    w.on('unexpected-response', (_q, res) => { res.resume(); resolve({ status: res.statusCode }); });
    w.on('error', () => resolve({ status: 0 }));
  });
  w.on('message', (m) => msgs.push(String(m)));
  return { ready, msgs, close: () => w.terminate() };
}

/** A two-seat Hanabi game (each seat's view hides its own cards), played `plays` moves by hints. */
async function playGame(id, tokens, plays) {
  for (let i = 0; i < plays; i++) {
    const v = (await get(`/games/${id}`, { token: S.admin })).json.state;
    if (v.over) return;
    const h = await get(`/games/${id}/hint`, { token: tokens[v.current] });
    expectStatus(h, 200, 'hint');
    expectStatus(await post(`/games/${id}/plays`, { play: h.json.play }, { token: tokens[v.current] }), 200, 'play');
  }
}

async function newGame(seed) {
  const g = await post('/games', { game: 'hanabi', seed, players: [{ name: 'A' }, { name: 'B' }] });
  expectStatus(g, 201);
  return { id: g.json.id, tokens: g.json.seats.map((s) => s.token), invites: g.json.seats.map((s) => s.invite) };
}

/** What croupier itself gives each reader: GET /events (the JSON list) and its own SSE data lines. */
async function expected(id, token) {
  const r = await get(`/games/${id}/events`, { token });
  expectStatus(r, 200);
  return r.json;
}

/** A token's SSE stream through nginx once it holds `want` events (then 300 ms more: nothing else comes). */
async function streamOf(id, token, want, what) {
  const s = sse(`/games/${id}/events`, { authorization: `Bearer ${token}` });
  assert.equal((await s.ready).status, 200, what);
  await waitFor(() => s.frames.length >= want.length, 10000, what);
  await new Promise((r) => setTimeout(r, 300));
  return s;
}
const datas = (s) => s.frames.map((f) => JSON.parse(f.data));

t('each seat and the spectators get their own view of every play, once and in order, by SSE and WebSocket', async () => {
  const { id, tokens } = await newGame(71);
  const readers = [tokens[0], tokens[1], undefined];
  const auth = (tok) => (tok ? { authorization: `Bearer ${tok}` } : {});
  const streams = readers.map((tok) => sse(`/games/${id}/events`, auth(tok)));
  const sockets = readers.map((tok) => ws(`/games/${id}/events`, tok));
  for (const s of streams) assert.equal((await s.ready).status, 200, 'SSE subscribed through nchan');
  for (const s of sockets) assert.equal((await s.ready).status, 101, 'WebSocket subscribed through nchan');
  await playGame(id, tokens, 8);
  const want = [];
  for (const tok of readers) want.push(await expected(id, tok));
  assert.ok(want[0].length >= 8, `${want[0].length} events`);
  assert.notDeepEqual(want[0], want[1], 'the two seats see the game differently (their own cards hidden)');
  await waitFor(() => streams.every((s, r) => s.frames.length >= want[r].length) &&
    sockets.every((s, r) => s.msgs.length >= want[r].length), 15000, 'every event on every channel');
  await new Promise((r) => setTimeout(r, 300)); // nothing more comes
  // croupier's own SSE stream of the same readers (a bare Last-Event-ID goes to croupier): the same bytes
  const own = readers.map((tok) => sse(`/games/${id}/events`, { ...auth(tok), 'last-event-id': '0' }));
  await waitFor(() => own.every((s, r) => s.frames.length >= want[r].length), 15000, "croupier's own streams");
  readers.forEach((_, r) => {
    const s = streams[r];
    assert.deepEqual(s.frames.map((f) => JSON.parse(f.data)), want[r], `reader ${r}: exactly its events, once, in order`);
    assert.deepEqual(s.frames.map((f) => f.event), want[r].map((e) => e.event), 'the SSE event names');
    assert.deepEqual(s.frames.map((f) => f.data), own[r].frames.map((f) => f.data), `reader ${r}: croupier's own bytes`);
    assert.ok(s.frames.every((f) => /^\d+:\d+$/.test(f.id)), `nchan's message ids: ${s.frames[0].id}`);
    assert.deepEqual(sockets[r].msgs.map((m) => JSON.parse(m)), want[r], `reader ${r} by WebSocket`);
  });
  for (const s of [...streams, ...own, ...sockets]) s.close();
});

t('a play taken back is published as a rewind: a subscriber that forgets what it says holds the game\'s events', async () => {
  const players = [{ name: 'A' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }];
  let g, tok, play;
  for (let seed = 1; seed < 60 && !play; seed++) {
    g = await post('/games', { game: 'comp10001bo', seed, players });
    expectStatus(g, 201);
    tok = g.json.seats[0].token;
    play = (await get(`/games/${g.json.id}/legal`, { token: tok })).json.plays.find((p) => p[0] === 0 && p[2][0] === 0);
  }
  const id = g.json.id;
  const s = sse(`/games/${id}/events`);
  assert.equal((await s.ready).status, 200);
  const r = await post(`/games/${id}/plays`, { play }, { token: tok });
  expectStatus(r, 200);
  const n = r.json.applied[0].n;
  await waitFor(() => s.frames.length >= n + 1, 10000, 'the play published');
  expectStatus(await request(S.base, 'DELETE', `/games/${id}/plays/${n}`, { token: tok }), 200, 'taken back');
  await waitFor(() => s.frames.some((f) => f.event === 'rewind'), 10000, 'the rewind published');
  // the turn's end: the bots' plays follow under the next epoch
  const end = (await get(`/games/${id}/legal`, { token: tok })).json.plays.find((p) => p[0] === 0 && p[2][0] === 1);
  expectStatus(await post(`/games/${id}/plays`, { play: end }, { token: tok }), 200);
  const want = await expected(id);
  const held = () => {
    const log = [];
    for (const f of s.frames) {
      const d = JSON.parse(f.data);
      if (d.event === 'rewind') log.length = d.to; else log[d.n - 1] = d;
    }
    return log;
  };
  await waitFor(() => JSON.stringify(held()) === JSON.stringify(want), 10000, 'the subscriber holds the game\'s events');
  assert.ok(want.every((e) => e.e === 1), 'every event under epoch 1');
  s.close();
});

t('a subscriber resumes with its Last-Event-ID: nothing lost, nothing twice', async () => {
  const { id, tokens } = await newGame(72);
  const auth = { authorization: `Bearer ${tokens[1]}` };
  await playGame(id, tokens, 4);
  const first = await expected(id, tokens[1]);
  const a = sse(`/games/${id}/events`, auth);
  assert.equal((await a.ready).status, 200);
  await waitFor(() => a.frames.length >= first.length, 10000, 'the first connection has the game so far');
  a.close();
  const k = 2; // reconnect as if the connection broke after the third frame
  await playGame(id, tokens, 4); // and the game went on meanwhile
  const all = await expected(id, tokens[1]);
  const b = sse(`/games/${id}/events`, { ...auth, 'last-event-id': a.frames[k].id });
  assert.equal((await b.ready).status, 200);
  await waitFor(() => b.frames.length >= all.length - (k + 1), 10000, 'the resumed stream');
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(b.frames.map((f) => JSON.parse(f.data)), all.slice(k + 1), 'every event after the third, once');
  b.close();
});

t("a wrong token is refused at subscribe; no other seat's channel can be reached", async () => {
  const { id, tokens } = await newGame(73);
  await playGame(id, tokens, 2);
  for (const bad of ['wrong', tokens[0].slice(0, -1)]) {
    const r = await sse(`/games/${id}/events`, { authorization: `Bearer ${bad}` }).ready;
    assert.equal(r.status, 401, 'SSE refused');
    assert.match(r.type, /^application\/problem\+json/);
    assert.equal(JSON.parse(r.body).type, '/problems/unauthorized');
    assert.equal((await ws(`/games/${id}/events`, bad).ready).status, 401, 'WebSocket refused');
  }
  const adm = await sse(`/games/${id}/events`, { authorization: `Bearer ${S.admin}` }).ready;
  assert.equal(adm.status, 403, 'the admin has no channel (nothing is published in full)');
  // the channels themselves: not reachable from the public server by any name
  for (const p of [`/.croupier-nchan/games/${id}/events`, `/.croupier-nchan/last/croupier:${id}:s1`,
    `/.croupier-nchan/pub/croupier:${id}:s1`, `/.croupier-channel`]) {
    const r = await sse(p, { authorization: `Bearer ${tokens[0]}` }).ready;
    assert.notEqual(r.status, 200, `${p} from outside: ${r.status}`);
  }
  // the channel route names the token's own channel only
  const ch = await get(`/games/${id}/channel`, { token: tokens[0] });
  expectStatus(ch, 200);
  assert.match(ch.json.channel, new RegExp(`^croupier:${id}:s0:[0-9a-f]{8}$`));
  assert.equal(ch.headers.get('x-channel'), ch.json.channel);
  assert.equal((await get(`/games/${id}/channel`)).json.channel, `croupier:${id}:spectators`);
  expectStatus(await get(`/games/${id}/channel`, { token: 'wrong' }), 401);
});

t('a game that does not exist: croupier\'s own 404 at subscribe, by SSE and WebSocket, not nginx\'s 500', async () => {
  for (const headers of [{}, { authorization: `Bearer ${S.admin}` }]) {
    const r = await sse('/games/no-such-game/events', headers).ready;
    assert.equal(r.status, 404, `SSE: ${r.status} ${r.body}`);
    assert.match(r.type, /^application\/problem\+json/);
    const p = JSON.parse(r.body);
    assert.equal(p.type, '/problems/not-found');
    assert.match(p.detail, /no-such-game/, 'the problem names the game');
  }
  assert.equal((await ws('/games/no-such-game/events').ready).status, 404, 'WebSocket: 404 too');
  // and the game that does exist still subscribes (the error path is only the error's)
  const { id } = await newGame(75);
  const ok = sse(`/games/${id}/events`);
  assert.equal((await ok.ready).status, 200);
  ok.close();
});

t('/metrics counts what the publisher sent, and says it is up', async () => {
  const metric = async (name) => {
    const m = new RegExp(`^${name} (\\d+)$`, 'm').exec((await get('/metrics')).text);
    assert.ok(m, `${name} in /metrics`);
    return Number(m[1]);
  };
  const before = await metric('croupier_nchan_published_total');
  const { id, tokens } = await newGame(76);
  await playGame(id, tokens, 3);
  // each event once per audience (two seats and the spectators)
  let events = (await expected(id)).length;
  for (const tk of tokens) events += (await expected(id, tk)).length;
  assert.ok(events >= 3 * 4, `the deal and three plays for each audience (${events})`);
  await waitFor(async () => (await metric('croupier_nchan_published_total')) - before >= events, 10000, 'published');
  assert.equal(await metric('croupier_nchan_up'), 1);
  assert.equal(await metric('croupier_nchan_dropped_total'), 0);
  assert.equal(await metric('croupier_nchan_publish_failures_total'), 0);
});

t('the publisher keeps its connections to nginx: many requests on each', async () => {
  const mark = readFileSync(S.n.internalLog, 'utf8').length;
  const { id, tokens } = await newGame(77);
  const s = sse(`/games/${id}/events`, { authorization: `Bearer ${tokens[0]}` });
  assert.equal((await s.ready).status, 200);
  await playGame(id, tokens, 6);
  const want = await expected(id, tokens[0]);
  await waitFor(() => s.frames.length >= want.length, 10000, "the game's events on the seat's channel");
  s.close();
  const lines = readFileSync(S.n.internalLog, 'utf8').slice(mark).split('\n').filter((l) => l.includes(`croupier:${id}:`));
  const conns = new Set(lines.map((l) => l.split(' ')[0]));
  assert.ok(lines.length >= 20, `the game's publish went through the internal server (${lines.length} requests)`);
  // four publisher threads, a kept connection each (nginx's keepalive_requests
  // opens a new one every 1,000): a connection per request was the old way
  assert.ok(conns.size <= 5, `${lines.length} requests over ${conns.size} connections`);
  assert.ok(lines.length >= 4 * conns.size, `${lines.length} requests over ${conns.size} connections`);
});

t("no token in nginx's access log", async () => {
  const { id, tokens } = await newGame(74);
  const s = sse(`/games/${id}/events`, { authorization: `Bearer ${tokens[0]}` });
  await s.ready;
  await playGame(id, tokens, 2);
  s.close();
  await new Promise((r) => setTimeout(r, 200));
  const log = readFileSync(S.accessLog, 'utf8');
  assert.match(log, new RegExp(`GET /\.croupier-nchan/games/${id}/events`), 'the subscriptions are logged (by the path nginx served them on)');
  for (const tok of [...tokens, S.admin]) assert.ok(!log.includes(tok), 'no token in the access log');
});

t("nginx restarted (its channels gone): the game's next write publishes it again, whole, once", async () => {
  const { id, tokens } = await newGame(75);
  await playGame(id, tokens, 3);
  await S.n.restartNginx();
  const s = sse(`/games/${id}/events`, { authorization: `Bearer ${tokens[0]}` });
  assert.equal((await s.ready).status, 200);
  await playGame(id, tokens, 1);
  const want = await expected(id, tokens[0]);
  await waitFor(() => s.frames.length >= want.length, 10000, 'the whole game again');
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(s.frames.map((f) => JSON.parse(f.data)), want, 'every event, once, in order');
  s.close();
});

t('a publisher that nginx never answers does not slow the plays', async () => {
  // a listener that takes connections and never answers: a frozen nginx
  const held = [];
  const hole = net.createServer((c) => held.push(c));
  await new Promise((r) => hole.listen(0, '127.0.0.1', r));
  const srv = await startServer({ store: `sqlite:${path.join(S.n.dir, 'frozen.db')}`, adminToken: S.admin,
    extraArgs: ['--nchan-publish', `http://127.0.0.1:${hole.address().port}/.croupier-nchan`] });
  try {
    const g = await request(srv.base, 'POST', '/games', { json: { game: 'hanabi', seed: 76, players: [{ name: 'A' }, { name: 'B' }] } });
    expectStatus(g, 201);
    const tokens = g.json.seats.map((x) => x.token);
    for (let i = 0; i < 6; i++) {
      const v = (await request(srv.base, 'GET', `/games/${g.json.id}`, { token: S.admin })).json.state;
      const h = await request(srv.base, 'GET', `/games/${g.json.id}/hint`, { token: tokens[v.current] });
      const t0 = Date.now();
      expectStatus(await request(srv.base, 'POST', `/games/${g.json.id}/plays`, { json: { play: h.json.play }, token: tokens[v.current] }), 200);
      assert.ok(Date.now() - t0 < 1000, `a play answered in ${Date.now() - t0} ms while the publisher waits on nginx`);
    }
    assert.ok(held.length >= 1, 'the publisher did try nginx');
    // and a monitor is told: down, with the failures counted
    const m = async () => (await request(srv.base, 'GET', '/metrics')).text;
    await waitFor(async () => /^croupier_nchan_up 0$/m.test(await m()), 10000, 'croupier_nchan_up 0');
    assert.ok(+/^croupier_nchan_publish_failures_total (\d+)$/m.exec(await m())[1] >= 1, 'failures counted');
  } finally {
    const r = await srv.stop();
    for (const c of held) c.destroy();
    hole.close();
    assert.equal(r.code, 0, `croupier serve exits 0 with its publisher stuck: ${r.stderr.slice(-800)}`);
    assert.match(r.stderr, /nchan at http:\/\/127\.0\.0\.1:\d+\/\.croupier-nchan did not take game/);
  }
});

t("an invite claimed: the seat's former token hears nothing more of it, the new one gets it all", async () => {
  const { id, tokens, invites } = await newGame(77);
  await playGame(id, tokens, 2);
  const before = await expected(id, tokens[1]);
  const old = await streamOf(id, tokens[1], before, 'the seat so far');
  const c = await post(`/games/${id}/seats/1/claim`, { invite: invites[1] });
  expectStatus(c, 200, 'claim');
  const fresh = [tokens[0], c.json.token];
  await playGame(id, fresh, 4);
  const all = await expected(id, fresh[1]);
  assert.ok(all.length > before.length);
  const now = await streamOf(id, fresh[1], all, "the seat's new channel");
  assert.deepEqual(datas(now), all, 'the new token: every event of the seat, once');
  assert.deepEqual(datas(old), before, 'the former token: nothing after the claim');
  assert.equal((await sse(`/games/${id}/events`, { authorization: `Bearer ${tokens[1]}` }).ready).status, 401,
    'the former token is refused at subscribe');
  old.close();
  now.close();
});

t("a person resigns: their seat's channel goes quiet for them, their token follows the spectators'", async () => {
  const { id, tokens } = await newGame(78);
  await playGame(id, tokens, 2);
  const before = await expected(id, tokens[1]);
  const seat = await streamOf(id, tokens[1], before, 'the seat so far');
  expectStatus(await post(`/games/${id}/resign`, undefined, { token: tokens[1] }), 200, 'resign');
  await playGame(id, [tokens[0], tokens[0]], 3); // a bot plays seat 1 now
  const spect = await expected(id, undefined);
  const now = await streamOf(id, tokens[1], spect, "the spectators' channel");
  assert.deepEqual(datas(now), spect, "the resigned token now reads the spectators' events");
  assert.deepEqual(datas(seat), before, "its seat's stream: nothing after the resignation");
  seat.close();
  now.close();
});

t('no resume point a client sends brings nginx down (nchan 1.3.6 aborts on some)', async () => {
  const { id, tokens } = await newGame(79); // no play yet: its channels hold nothing
  const auth = { authorization: `Bearer ${tokens[0]}` };
  const tries = [
    [{ 'last-event-id': '1:0' }, 200], [{ 'last-event-id': '1:0' }, 200], [{ 'last-event-id': '0:9999' }, 200],
    [{ 'last-event-id': '9999999999:9999' }, 200], [{ 'last-event-id': '1:2:3' }, 400], [{ 'last-event-id': '1:[0],' }, 400],
    [{ 'last-event-id': '-1:0' }, 400], [{ 'last-event-id': 'x'.repeat(300) }, 400], [{ 'if-none-match': '1:[0],' }, 400],
  ];
  for (const [h, want] of tries) {
    const s = sse(`/games/${id}/events`, { ...auth, ...h });
    const r = await s.ready;
    s.close();
    assert.equal(r.status, want, `${JSON.stringify(h)}: ${r.status}`);
    if (want === 400) assert.match(r.type, /^application\/problem\+json/);
    expectStatus(await get('/healthz'), 200, `nginx still answers after ${JSON.stringify(h)}`);
  }
  const q = sse(`/games/${id}/events?last_event_id=1:2:3`, auth);
  assert.equal((await q.ready).status, 400, 'a resume point in the query');
  expectStatus(await get('/healthz'), 200);
});
