// Spectators see public information only: for every game, a table
// of people only (every hand hidden from someone), played a little way in,
// read by a reader without a token on every route: the game, /plays,
// /events (JSON and the SSE stream), /legal, /hint, /export and the
// WebSocket. Checked on the raw response bytes:
//   - no hidden card shows more often to the spectator than to the seat that
//     sees it least (a card is public when every seat sees it);
//   - "spectators": "all" shows every hand but nothing hidden from every
//     seat (the admin-only members of the view, such as the deck's order);
//   - once the game is over every reader sees every card.
// The same file runs in the SQLite, PostgreSQL and FastCGI passes.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import WebSocket from 'ws';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';
import { assertEvery } from './lib/expect.mjs';

const srv = useServer();
const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';

// Every game of /rules at its usual size; Five Crowns also open (the course
// program's table: every hand is public there).
async function tables() {
  const r = await srv.get('/rules');
  expectStatus(r, 200);
  const out = [];
  for (const g of r.json.games) {
    const n = g.players.default || g.players.min;
    out.push({ game: g.game, n, options: undefined });
    if (g.game === 'fivecrowns') out.push({ game: g.game, n, options: { open: true } });
  }
  return out;
}

const cardsOf = (hands) => hands.flat().map((c) => (typeof c === 'string' ? c : c.card));
const count = (text, s) => text.split(`"${s}"`).length - 1;

// The stream's text: what arrives until it has been quiet for `quiet` ms
// after the first bytes (the past events come at once), or `ms` in all.
function sseText(path, headers = {}, quiet = 150, ms = 5000) {
  return new Promise((resolve, reject) => {
    let text = '', timer;
    const done = () => { clearTimeout(timer); req.destroy(); resolve({ status: 200, text }); };
    const req = http.get(srv.base + path, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) { res.resume(); resolve({ status: res.statusCode, text }); return; }
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; clearTimeout(timer); timer = setTimeout(done, quiet); });
      res.on('end', () => { clearTimeout(timer); resolve({ status: 200, text }); });
    });
    req.on('error', (e) => (e.code === 'ECONNRESET' ? resolve({ status: 200, text }) : reject(e)));
    timer = setTimeout(done, ms);
  });
}

function wsText(path, quiet = 150, ms = 5000) {
  return new Promise((resolve, reject) => {
    let text = '', timer;
    const ws = new WebSocket(srv.base.replace('http', 'ws') + path);
    const done = () => { clearTimeout(timer); ws.terminate(); resolve(text); };
    ws.on('message', (m) => { text += `${m}\n`; clearTimeout(timer); timer = setTimeout(done, quiet); });
    ws.on('error', reject);
    ws.on('unexpected-response', (_q, res) => reject(new Error(`WebSocket refused ${res.statusCode}`)));
    timer = setTimeout(done, ms);
  });
}

// Everything a reader (token or none) can read of game `id`: {route: text}.
async function readAll(id, token) {
  const out = {};
  for (const route of ['', '/plays', '/events', '/legal', '/hint', '/export?format=json']) {
    const r = await srv.get(`/games/${id}${route}`, { token });
    if (route === '/hint' && !token) expectProblem(r, 401, 'unauthorized', 'a spectator has no hint');
    else if (route.startsWith('/export') && r.status !== 200) assert.ok([401, 403].includes(r.status), `${route}: ${r.status}`);
    else if (route === '/hint' && r.status === 409) { /* not this seat's turn */ } else expectStatus(r, 200, `GET ${route}`);
    out[route || '/'] = r.text;
  }
  if (token) return out;
  // the streams carry /events: a spectator's are compared with the seats' /events
  const sse = await sseText(`/games/${id}/events`);
  expectStatus(sse, 200, 'SSE');
  out.sse = sse.text;
  if (!viaFcgi) out.ws = await wsText(`/games/${id}/ws`);
  return out;
}

async function newTable({ game, n, options }, seed, spectators) {
  const body = { game, seed, players: Array.from({ length: n }, (_, i) => ({ name: `P${i}` })) };
  if (options || spectators) body.options = { ...(options || {}), ...(spectators ? { spectators } : {}) };
  const g = await srv.post('/games', body);
  expectStatus(g, 201, `POST /games ${JSON.stringify(body)}`);
  return { id: g.json.id, tokens: g.json.seats.map((s) => s.token) };
}

// The seat to move plays the hint, `k` times.
async function playSome({ id, tokens }, k) {
  for (let i = 0; i < k; i++) {
    const v = (await srv.get(`/games/${id}`, { token: srv.adminToken })).json.state;
    if (v.over) return;
    const seat = v.current;
    const h = await srv.get(`/games/${id}/hint`, { token: tokens[seat] });
    expectStatus(h, 200, 'hint');
    expectStatus(await srv.post(`/games/${id}/plays`, { play: h.json.play }, { token: tokens[seat] }), 200, 'play');
  }
}

// A game whose view has no "hands" (nothing is dealt to anyone: the
// engine guide's example game) hides nothing: every reader's view is the
// admin's, but for the reader's own seat.
async function sameForAll(game, id, admin, tokens) {
  for (const who of [undefined, ...tokens]) {
    const v = await srv.get(`/games/${id}`, { token: who });
    expectStatus(v, 200);
    assert.deepEqual({ ...v.json.state, seat: null }, { ...admin, seat: null }, `${game}: a game without hands shows every reader the same`);
  }
}

test('a spectator sees no card hidden from any seat, on any route', async () => {
  for (const t of await tables()) {
    const g = await newTable(t, 7);
    await playSome(g, 12);
    const admin = (await srv.get(`/games/${g.id}`, { token: srv.adminToken })).json.state;
    assert.ok(!admin.over, `${t.game}: still in progress`);
    if (!('hands' in admin)) { await sameForAll(t.game, g.id, admin, g.tokens); continue; }
    assert.ok(Array.isArray(admin.hands), `${t.game}: the admin sees the hands`);
    const hidden = [...new Set(cardsOf(admin.hands))];
    const spec = await readAll(g.id, undefined);
    const seats = [];
    for (const tok of g.tokens) seats.push(await readAll(g.id, tok));
    for (const route of Object.keys(spec)) {
      const theirs = ['sse', 'ws'].includes(route) ? '/events' : route;
      for (const c of hidden) {
        const least = Math.min(...seats.map((s) => count(s[theirs], c)));
        assert.ok(count(spec[route], c) <= least,
          `${t.game} ${JSON.stringify(t.options || {})} ${route}: card ${c} shows ${count(spec[route], c)} times to a spectator, ${least} to the seat that sees it least`);
      }
    }
  }
});

test('"spectators": "all" shows every hand, never what every seat is denied', async () => {
  for (const t of await tables()) {
    const g = await newTable(t, 8, 'all');
    await playSome(g, 10);
    const admin = (await srv.get(`/games/${g.id}`, { token: srv.adminToken })).json.state;
    const pub = (await srv.get(`/games/${g.id}`, { token: g.tokens[0] })).json.state;
    const obs = await srv.get(`/games/${g.id}`);
    expectStatus(obs, 200);
    if (!('hands' in admin)) await sameForAll(t.game, g.id, admin, g.tokens);
    else assert.deepEqual(cardsOf(obs.json.state.hands).sort(), cardsOf(admin.hands).sort(), `${t.game}: every hand`);
    // members only the admin has (the deck's order, stockpiles below the top...)
    const adminOnly = Object.keys(admin).filter((k) => !(k in pub) && k !== 'hands');
    for (const k of adminOnly) assert.ok(!(k in obs.json.state), `${t.game}: an observer must not see ${k}`);
    const all = Object.values(await readAll(g.id, undefined)).join('\n');
    for (const k of adminOnly) assert.doesNotMatch(all, new RegExp(`"${k}"\\s*:`), `${t.game}: ${k} on no route`);
    // bad values are refused naming the member
    const bad = await srv.post('/games', { game: t.game, players: [{ name: 'A' }, { name: 'B' }, { name: 'C' }, { name: 'D' }].slice(0, t.n), options: { spectators: 'everyone' } });
    const p = expectProblem(bad, 400, 'invalid-member');
    assert.equal(p.errors[0].pointer, '/options/spectators');
  }
});

test('once the game is over every reader sees every card', async () => {
  for (const t of await tables()) {
    const players = Array.from({ length: t.n }, (_, i) => (i === 0 ? { name: 'Ann' } : { bot: 'random' }));
    const r = await srv.post('/games', { game: t.game, seed: 3, players, options: t.options });
    expectStatus(r, 201);
    const id = r.json.id, token = r.json.seats[0].token;
    // Ann resigns: the bots play the game to its end in that request
    expectStatus(await srv.post(`/games/${id}/resign`, undefined, { token }), 200);
    const admin = (await srv.get(`/games/${id}`, { token: srv.adminToken })).json.state;
    assert.ok(admin.over, `${t.game}: finished`);
    if (!('hands' in admin)) { await sameForAll(t.game, id, admin, [token]); continue; }
    for (const who of [undefined, token]) {
      const v = await srv.get(`/games/${id}`, { token: who });
      assert.ok(Array.isArray(v.json.state.hands), `${t.game}: the hands are shown at the end`);
      assert.deepEqual(v.json.state.hands, admin.hands);
    }
    expectStatus(await srv.get(`/games/${id}/export?format=json`), 200, 'anyone may export a finished game');
  }
});

test('a seed the server drew is not shown while the game runs; the spectators option survives export and import', async () => {
  const g = await srv.post('/games', { game: 'hanabi', players: [{ name: 'A' }, { name: 'B' }], options: { spectators: 'all' } });
  expectStatus(g, 201);
  assert.equal(g.json.seed, null, 'a drawn seed predicts every deal: not in the reply');
  const ex = await srv.get(`/games/${g.json.id}/export?format=json`, { token: srv.adminToken });
  expectStatus(ex, 200);
  assert.ok(Number.isInteger(ex.json.seed), 'the admin sees it');
  assert.equal(ex.json.spectators, 'all');
  const im = await srv.post('/games/import', ex.json);
  expectStatus(im, 201);
  const obs = await srv.get(`/games/${im.json.id}`);
  expectStatus(obs, 200);
  assertEvery(obs.json.state.hands.flat(), (c) => c.card !== '??', 'the imported table still shows spectators every hand');
  const chosen = await srv.post('/games', { game: 'hanabi', seed: 77, players: [{ name: 'A' }, { name: 'B' }] });
  assert.equal(chosen.json.seed, 77, 'a seed the client chose is echoed');
});
