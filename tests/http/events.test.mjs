// Events (JSON and Server-Sent Events), the WebSocket protocol, and
// export/import of stored games, on the generic mechanism every game uses
// (checked here with comp10001bo, whose events are its history records).
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import WebSocket from 'ws';
import { useServer, expectStatus, expectProblem, createGame } from './lib/server.mjs';

const srv = useServer();

test('GET /events lists the history as numbered events; after= filters; bad after is a 400', async () => {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed: 11 });
  const token = g.seats[0].token;
  const legal = await srv.get(`/games/${g.id}/legal`, { token });
  const r = await srv.post(`/games/${g.id}/plays`, { play: legal.json.plays.at(-1) }, { token });
  expectStatus(r, 200);
  const all = await srv.get(`/games/${g.id}/events`);
  expectStatus(all, 200);
  assert.ok(Array.isArray(all.json));
  assert.equal(all.json.length, r.json.applied.length, 'one event per play so far');
  all.json.forEach((ev, i) => {
    assert.equal(ev.n, i + 1);
    assert.equal(ev.event, 'play');
    assert.deepEqual(ev.play, r.json.applied[i].play);
  });
  const tail = await srv.get(`/games/${g.id}/events?after=2`);
  assert.deepEqual(tail.json, all.json.slice(2));
  const none = await srv.get(`/games/${g.id}/events?after=100000`);
  assert.deepEqual(none.json, []);
  expectProblem(await srv.get(`/games/${g.id}/events?after=-1`), 400, 'invalid-parameter');
  expectProblem(await srv.get(`/games/${g.id}/events?after=x`), 400, 'invalid-parameter');
  expectProblem(await srv.get(`/games/nosuchgame/events`), 404, 'not-found');
  expectProblem(await srv.get(`/games/${g.id}/events`, { token: 'wrong' }), 401, 'unauthorized');
});

/** Read an SSE stream until `until(events)` or timeout; returns parsed events. */
function readSSE(url, headers, until, ms = 8000) {
  return new Promise((resolve, reject) => {
    const events = [];
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) { reject(new Error(`status ${res.statusCode}`)); return; }
      assert.match(res.headers['content-type'], /^text\/event-stream/);
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const f = {};
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) continue;
            const k = line.slice(0, line.indexOf(':'));
            f[k] = line.slice(line.indexOf(':') + 1).trim();
          }
          if (f.data) events.push({ id: Number(f.id), event: f.event, data: JSON.parse(f.data) });
          if (until(events)) { req.destroy(); resolve(events); }
        }
      });
      res.on('end', () => resolve(events));
    });
    req.on('error', (e) => (e.code === 'ECONNRESET' ? resolve(events) : reject(e)));
    setTimeout(() => { req.destroy(); resolve(events); }, ms);
  });
}

test('SSE: the stream replays past events, follows new ones live, and ends with the game', async () => {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed: 12 });
  const token = g.seats[0].token;
  // A finished game: the stream sends everything and ends by itself.
  const done = await createGame(srv, { players: ['bot', 'bot', 'bot', 'bot'], seed: 13 });
  const finished = await readSSE(`${srv.base}/games/${done.id}/events`, {}, () => false);
  assert.equal(finished.length, done.applied.length, 'every play of the finished game, then the end');
  finished.forEach((f, i) => { assert.equal(f.id, i + 1); assert.equal(f.event, 'play'); assert.equal(f.data.n, i + 1); });
  // Last-Event-ID resumes after that event.
  const resumed = await readSSE(`${srv.base}/games/${done.id}/events`, { 'last-event-id': '3' }, () => false);
  assert.equal(resumed[0].id, 4);
  // Live: open the stream, then play; the play and the bots' replies arrive.
  const live = readSSE(`${srv.base}/games/${g.id}/events`, {}, (evs) => evs.some((e) => e.data.seat === 1));
  await new Promise((r) => setTimeout(r, 300));
  const legal = await srv.get(`/games/${g.id}/legal`, { token });
  const r = await srv.post(`/games/${g.id}/plays`, { play: legal.json.plays.at(-1) }, { token });
  expectStatus(r, 200);
  const got = await live;
  assert.deepEqual(got[0].data.play, legal.json.plays.at(-1), 'my play arrives first');
  assert.ok(got.some((e) => e.data.seat === 1), 'then the next seat\'s plays');
});

/** Open a WebSocket; `protocols` as a browser offers them, `options` (headers) as a program sends them. */
function wsOpen(url, protocols = [], options = {}) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, options);
    const inbox = [];
    const waiters = [];
    ws.on('message', (m) => {
      inbox.push(m.toString());
      for (const w of waiters.splice(0)) w();
    });
    ws.on('open', () => resolve({
      ws, inbox,
      async next(pred, ms = 5000) {
        const t0 = Date.now();
        for (;;) {
          const i = inbox.findIndex((m) => pred(JSON.parse(m), m));
          if (i >= 0) return inbox.splice(0, i + 1).at(-1);
          if (Date.now() - t0 > ms) throw new Error(`no matching message; got ${inbox.join(' | ')}`);
          await new Promise((r) => { waiters.push(r); setTimeout(r, 200); });
        }
      },
    }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => reject(new Error(`refused ${res.statusCode} ${body}`)));
    });
    ws.on('error', reject);
  });
}

const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';
test('WebSocket: events pushed, "turn" asked, actions played, refusals explained', { skip: viaFcgi && 'FastCGI has no WebSocket (the embedded server serves it)' }, async () => {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed: 14 });
  const token = g.seats[0].token;
  const wsBase = srv.base.replace('http', 'ws');
  // The seat token: a browser offers it as a subprotocol beside "croupier",
  // a program may send the Authorization header; never in the URL.
  const seat = ['croupier', `croupier.token.${token}`];
  await assert.rejects(wsOpen(`${wsBase}/games/nosuch/ws`, seat), /refused 404/);
  await assert.rejects(wsOpen(`${wsBase}/games/${g.id}/ws`, ['croupier', 'croupier.token.bad']), /refused 401/);
  await assert.rejects(wsOpen(`${wsBase}/games/${g.id}/ws`, [], { headers: { authorization: 'Bearer bad' } }), /refused 401/);
  await assert.rejects(wsOpen(`${wsBase}/games/${g.id}/ws?token=made-up-token-in-a-url`),
    /refused 400 .*invalid-parameter.*croupier\.token\.<token>.*Authorization: Bearer/);
  await assert.rejects(wsOpen(`${wsBase}/games/${g.id}/ws`, [`croupier.token.${token}`]), /refused 400 .*offer the subprotocol 'croupier'/);
  const byHeader = await wsOpen(`${wsBase}/games/${g.id}/ws`, [], { headers: { authorization: `Bearer ${token}` } });
  await byHeader.next((m) => m.event === 'turn');
  byHeader.ws.close();
  const c = await wsOpen(`${wsBase}/games/${g.id}/ws`, seat);
  assert.equal(c.ws.protocol, 'croupier', 'the server selects "croupier": the token is not echoed back');
  const turn = await c.next((m) => m.event === 'turn');
  assert.equal(turn, '{"event": "turn"}', 'the seed\'s turn request, written as json.dumps does');
  // An illegal action: refused with a reason, and the turn is asked again.
  c.ws.send(JSON.stringify([0, 'AS', [1, [3, 0]]]));
  const bad = JSON.parse(await c.next((m) => m.event === 'invalidAction'));
  assert.match(bad.message, /./);
  await c.next((m) => m.event === 'turn');
  // A message that is not JSON: refused, and the turn is asked again too.
  c.ws.send('not json');
  const notJson = JSON.parse(await c.next((m) => m.event === 'invalidAction'));
  assert.match(notJson.message, /not JSON/);
  assert.equal(await c.next((m) => m.event === 'turn'), '{"event": "turn"}', 'asked again after a non-JSON message');
  c.ws.send(Buffer.from('{"also": not json'));
  await c.next((m) => m.event === 'invalidAction');
  await c.next((m) => m.event === 'turn');
  // Nested deeper than the API's limit: refused before it is parsed.
  c.ws.send('['.repeat(2000) + ']'.repeat(2000));
  const deep = JSON.parse(await c.next((m) => m.event === 'invalidAction'));
  assert.match(deep.message, /nested too deep/);
  await c.next((m) => m.event === 'turn');
  // A legal one: it is played (the store says so) and its event comes back.
  const legal = await srv.get(`/games/${g.id}/legal`, { token });
  const play = legal.json.plays.at(-1);
  const before = (await srv.get(`/games/${g.id}`)).json.version;
  c.ws.send(JSON.stringify(play));
  const echoed = JSON.parse(await c.next((m) => m.event === 'play' && JSON.stringify(m.play) === JSON.stringify(play) && m.seat === 0));
  assert.equal(echoed.n, undefined, 'wire events carry no "n"');
  const after = (await srv.get(`/games/${g.id}`)).json;
  assert.ok(after.version > before);
  // A spectator may watch (events) but is never asked to play.
  const s = await wsOpen(`${wsBase}/games/${g.id}/ws`);
  await s.next((m) => m.event === 'play');
  await new Promise((r) => setTimeout(r, 400));
  assert.ok(!s.inbox.some((m) => JSON.parse(m).event === 'turn'));
  c.ws.close();
  s.ws.close();
});

test('export json + import: the game resumes under a new id with new tokens', async () => {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed: 15 });
  const token = g.seats[0].token;
  expectProblem(await srv.get(`/games/${g.id}/export?format=hanablive`, { token: srv.adminToken }), 400, 'invalid-parameter');
  expectProblem(await srv.get(`/games/${g.id}/export?format=json`), 401, 'unauthorized');
  const ex = await srv.get(`/games/${g.id}/export?format=json`, { token: srv.adminToken });
  expectStatus(ex, 200);
  const imp = await srv.post('/games/import', ex.json);
  expectStatus(imp, 201);
  assert.notEqual(imp.json.id, g.id);
  assert.equal(imp.json.seats[0].name, 'Ann');
  assert.ok(imp.json.seats[0].token && imp.json.seats[0].token !== token, 'a fresh token');
  assert.equal(imp.json.seats[1].bot, g.seats[1].bot);
  const a = await srv.get(`/games/${g.id}`, { token: srv.adminToken });
  const b = await srv.get(`/games/${imp.json.id}`, { token: srv.adminToken });
  assert.deepEqual(b.json.state, a.json.state, 'the same game');
  // The old token does not open the new game; the new one does.
  expectProblem(await srv.get(`/games/${imp.json.id}`, { token }), 401, 'unauthorized');
  expectStatus(await srv.get(`/games/${imp.json.id}/legal`, { token: imp.json.seats[0].token }), 200);
  // Hostile imports.
  const broken = structuredClone(ex.json);
  broken.state.hands = 'nope';
  const r1 = expectProblem(await srv.post('/games/import', broken), 400, 'invalid-member');
  assert.match(r1.errors[0].pointer, /^\/state\/hands/);
  expectProblem(await srv.post('/games/import', { ...ex.json, game: 'nosuch' }), 404, 'not-found');
  expectProblem(await srv.post('/games/import', { ...ex.json, extra: 1 }), 400, 'invalid-member');
  expectProblem(await srv.post('/games/import', { ...ex.json, seats: ex.json.seats.slice(0, 3) }), 400, 'invalid-member');
  expectProblem(await srv.request('POST', '/games/import', { body: 'hello there', contentType: 'text/plain', headers: { 'x-croupier-import': 'text' } }), 400, 'invalid-member');
  expectProblem(await srv.request('POST', '/games/import', { body: '<x/>', contentType: 'application/xml' }), 415, 'unsupported-media-type');
});

test('an import is read as strictly as POST /games: every member of its type and range, named when wrong', async () => {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed: 16 });
  const ex = (await srv.get(`/games/${g.id}/export?format=json`, { token: srv.adminToken })).json;
  const seat = (i, extra) => ex.seats.map((s, k) => (k === i ? { ...s, ...extra } : s));
  const bad = [
    [{ seed: { a: 1 } }, '/seed'], [{ seed: 'forty-two' }, '/seed'], [{ seed: -1 }, '/seed'],
    [{ seed: 2 ** 53 }, '/seed'], [{ version: 'one' }, '/version'], [{ version: 0 }, '/version'],
    [{ id: 7 }, '/id'], [{ id: '' }, '/id'], [{ variant: 3 }, '/variant'], [{ variant: 'nosuch' }, '/variant'],
    [{ variant: 'bonus' }, '/variant'], // the state says standard
    [{ seats: seat(1, { colour: 'red' }) }, '/seats/1/colour'],
    [{ seats: seat(2, { seat: 'two' }) }, '/seats/2/seat'],
    [{ seats: seat(2, { seat: 3 }) }, '/seats/2/seat'],
    [{ seats: seat(0, { resigned: 'yes' }) }, '/seats/0/resigned'],
    [{ seats: seat(0, { resigned: true }) }, '/seats/0'], // a person's seat
    [{ seats: seat(3, { claimed: 1 }) }, '/seats/3/claimed'],
    [{ seats: seat(0, { name: 5 }) }, '/seats/0/name'],
    [{ seats: seat(1, { bot: 'nosuch' }) }, '/seats/1/bot'],
    [{ seats: [...ex.seats.slice(0, 3), 'bot'] }, '/seats/3'],
  ];
  for (const [change, pointer] of bad) {
    const r = expectProblem(await srv.post('/games/import', { ...ex, ...change }), 400, 'invalid-member', JSON.stringify(change));
    assert.equal(r.errors[0].pointer, pointer, JSON.stringify(change));
  }
  // What an export writes is taken back: its own seed, a null seed (a concealed save), its flags.
  expectStatus(await srv.post('/games/import', ex), 201);
  const imp = await srv.post('/games/import', { ...ex, seed: null, seats: seat(1, { resigned: true }) });
  expectStatus(imp, 201);
  assert.equal(imp.json.seed, null);
});

test('the history keeps every bot explanation (GET /plays and the events)', async () => {
  for (const body of [
    { game: 'comp10001bo', seed: 31, players: [{ name: 'Ann' }, { bot: 'planner' }, { bot: 'random' }, { bot: 'planner' }] },
    { game: 'fivecrowns', seed: 32, players: [{ name: 'Ann' }, { bot: 'strategy' }] },
  ]) {
    const g = await srv.post('/games', body);
    expectStatus(g, 201);
    const token = g.json.seats[0].token;
    const applied = [...g.json.applied];
    for (let i = 0; i < 3; i++) {
      const legal = await srv.get(`/games/${g.json.id}/legal`, { token });
      if (!legal.json.plays.length) break;
      const r = await srv.post(`/games/${g.json.id}/plays`, { play: legal.json.plays[0] }, { token });
      expectStatus(r, 200);
      applied.push(...r.json.applied);
    }
    const explained = applied.filter((a) => a.explanation);
    assert.ok(explained.length > 0, `${body.game}: bots explained their plays`);
    const hist = (await srv.get(`/games/${g.json.id}/plays`, { token })).json.plays;
    for (const a of explained) {
      const h = hist.find((x) => x.n === a.n);
      assert.ok(h, `${body.game}: record ${a.n} in the history`);
      assert.equal(h.explanation, a.explanation, `${body.game}: record ${a.n} keeps its explanation`);
    }
    for (const h of hist) if (h.seat === 0) assert.equal(h.explanation, undefined, 'human plays have none');
    const evs = (await srv.get(`/games/${g.json.id}/events`, { token })).json;
    assert.ok(evs.some((e) => e.explanation === explained[0].explanation), `${body.game}: events carry them too`);
  }
});
