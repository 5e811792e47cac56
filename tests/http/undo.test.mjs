// Taking a play back (DELETE /games/{id}/plays/{n}, docs/api.md "Taking a
// play back"): the seat to move takes back the last plays of its turn that
// turned up nothing (Comp10001-Bo: a card from the hand or a discard pile;
// Phazed: a phase laid, a card placed), newest first. The game is then
// exactly where it was before them, for every reader; what may not be taken
// back is refused with the reason; every follower of the game's events is
// told (a `rewind` to the point), the new plays take the old numbers under
// a new epoch ("n.e"), and a reader resuming from an event taken back is
// rewound first. On SQLite here, on PostgreSQL in the store lane.
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus, expectProblem, createGame } from './lib/server.mjs';
import { follow, followWs } from './lib/sse.mjs';

const srv = useServer();
const undo = (id, n, token, headers = {}) => srv.del(`/games/${id}/plays/${n}`, { token, headers });
const strip = (evs) => evs.map(({ e, ...rest }) => rest); // an event without its epoch
const view = async (id, token) => {
  const r = await srv.get(`/games/${id}`, { token });
  expectStatus(r, 200);
  return r.json;
};
const isHandToBuild = (p) => p[0] === 0 && Array.isArray(p[2]) && p[2][0] === 0;

/** A Bo game whose person (seat 0, to move) holds at least two cards for the build piles. */
async function boGame() {
  for (let seed = 1; seed < 60; seed++) {
    const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed });
    const tok = g.seats[0].token;
    const legal = (await srv.getOk(`/games/${g.id}/legal`, { token: tok })).plays;
    const cards = new Set(legal.filter(isHandToBuild).map((p) => p[1]));
    if (cards.size >= 2) return { id: g.id, tok, legal };
  }
  throw new Error('no seed deals two build cards to the person');
}

/** A play of the person's that keeps the turn: a card from the hand onto a build pile, not `but`. */
async function buildPlay(g, but) {
  const legal = (await srv.getOk(`/games/${g.id}/legal`, { token: g.tok })).plays;
  const p = legal.find((x) => isHandToBuild(x) && x[1] !== but);
  assert.ok(p, `a card for the build piles in ${JSON.stringify(legal)}`);
  return p;
}

test('a play from the hand is taken back: the game is where it was before it, for every reader', async () => {
  const g = await boGame();
  const seat0 = await view(g.id, g.tok), spect = await view(g.id), admin = await view(g.id, srv.adminToken);
  const events = (await srv.getOk(`/games/${g.id}/events`)).length;
  const p = await buildPlay(g);
  let r = await srv.post(`/games/${g.id}/plays`, { play: p }, { token: g.tok });
  expectStatus(r, 200);
  assert.equal(r.json.applied.length, 1, 'the turn goes on: no bot played');
  const n = r.json.applied[0].n, etag = r.headers.get('etag');
  expectProblem(await undo(g.id, n), 401, 'unauthorized', 'a spectator');
  expectProblem(await undo(g.id, n, srv.adminToken), 403, 'forbidden', 'the admin has no seat');
  expectProblem(await undo(g.id, n, g.tok, { 'if-match': '"1"' }), 412, 'precondition-failed', 'a stale If-Match');
  r = await undo(g.id, n, g.tok, { 'if-match': etag });
  expectStatus(r, 200, 'the take-back');
  assert.deepEqual(r.json.undone, { n, seat: 0, play: p });
  assert.equal(r.json.version, seat0.version + 2, 'the play and its take-back: two writes');
  assert.equal(r.headers.get('etag'), `"${r.json.version}"`);
  assert.deepEqual(r.json.state, seat0.state, 'the reply holds the game as it was');
  for (const [before, token] of [[seat0, g.tok], [spect, undefined], [admin, srv.adminToken]]) {
    const now = await view(g.id, token);
    assert.deepEqual(now.state, before.state, 'every reader sees the game as it was');
    assert.deepEqual(now.status, before.status);
  }
  assert.equal((await srv.getOk(`/games/${g.id}/plays`)).plays.length, n, 'the log no longer holds it');
  assert.equal((await srv.getOk(`/games/${g.id}/events`)).length, events);
  expectProblem(await undo(g.id, n, g.tok), 404, 'not-found', 'taken back already');
  expectProblem(await undo(g.id, 'x1', g.tok), 404, 'not-found', 'not a number');
  // two plays: the newest first, then the one before it; the same play again takes its number
  const p1 = await buildPlay(g);
  const n1 = (await srv.post(`/games/${g.id}/plays`, { play: p1 }, { token: g.tok })).json.applied[0].n;
  const p2 = await buildPlay(g, p1[1]);
  const n2 = (await srv.post(`/games/${g.id}/plays`, { play: p2 }, { token: g.tok })).json.applied[0].n;
  assert.equal(n1, n);
  assert.equal(n2, n + 1);
  const pr = expectProblem(await undo(g.id, n1, g.tok), 409, 'cannot-take-back', 'not the last play');
  assert.match(pr.detail, /last play/);
  expectStatus(await undo(g.id, n2, g.tok), 200);
  expectStatus(await undo(g.id, n1, g.tok), 200);
  assert.deepEqual((await view(g.id, g.tok)).state, seat0.state, 'the turn back at its start');
});

test('what turned something up, ended the turn or was not yours is never taken back', async () => {
  const g = await boGame();
  // the turn's end (a discard, or the plays the bots made after it)
  const legal = (await srv.getOk(`/games/${g.id}/legal`, { token: g.tok })).plays;
  const discard = legal.find((x) => x[0] === 0 && x[2][0] === 1);
  let r = await srv.post(`/games/${g.id}/plays`, { play: discard }, { token: g.tok });
  expectStatus(r, 200);
  const mine = r.json.applied[0].n, last = r.json.applied.at(-1);
  assert.ok(r.json.applied.length > 1, 'the bots played after the discard');
  let pr = expectProblem(await undo(g.id, mine, g.tok), 409, 'cannot-take-back');
  assert.match(pr.detail, /last play/);
  if (r.json.status.current === 0) {
    pr = expectProblem(await undo(g.id, last.n, g.tok), 409, 'cannot-take-back', 'a bot\'s play');
    assert.match(pr.detail, /player \d's|bot|forced/);
  }
  // a stockpile card turns up the next: the person plays the hints until one is the stockpile's
  let stock = null, sg = null;
  for (let seed = 100; seed < 130 && !stock; seed++) {
    sg = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed });
    const tok = sg.seats[0].token;
    for (let i = 0; i < 40 && !stock; i++) {
      const l = (await srv.getOk(`/games/${sg.id}/legal`, { token: tok })).plays;
      if (!l.length) break; // over
      const s = l.find((x) => x[0] === 2);
      const play = s || (await srv.getOk(`/games/${sg.id}/hint`, { token: tok })).play;
      r = await srv.post(`/games/${sg.id}/plays`, { play }, { token: tok });
      expectStatus(r, 200);
      if (s && r.json.applied.length === 1 && !r.json.status.over) stock = r.json.applied[0];
    }
  }
  assert.ok(stock, 'a stockpile play that kept the turn');
  pr = expectProblem(await undo(sg.id, stock.n, sg.seats[0].token), 409, 'cannot-take-back');
  assert.match(pr.detail, /stockpile/);
  // a game that never takes a play back
  const h = await srv.post('/games', { game: 'hanabi', seed: 3, players: [{ name: 'Ada' }, { bot: 'default' }] });
  expectStatus(h, 201);
  const ht = h.json.seats[0].token;
  const hp = (await srv.getOk(`/games/${h.json.id}/legal`, { token: ht })).plays[0];
  r = await srv.post(`/games/${h.json.id}/plays`, { play: hp }, { token: ht });
  expectStatus(r, 200);
  pr = expectProblem(await undo(h.json.id, r.json.applied[0].n, ht), 409, 'cannot-take-back');
  assert.match(pr.detail, /never takes a play back/);
});

/** The log a follower keeps from its frames: a rewind forgets the events after its point. */
function replayFrames(frames) {
  const log = [];
  for (const f of frames) {
    if (f.event === 'rewind') log.length = f.data.to;
    else log[f.data.n - 1] = f.data;
  }
  return log;
}

test('followers are told: a rewind, the new plays under the next epoch, and a reader resuming from a play taken back is rewound first', async () => {
  const g = await boGame();
  const s = follow(`${srv.base}/games/${g.id}/events`);
  await s.ready;
  const w = followWs(`${srv.base.replace('http', 'ws')}/games/${g.id}/ws`); // the course's protocol
  await w.ready;
  const p = await buildPlay(g);
  const n = (await srv.post(`/games/${g.id}/plays`, { play: p }, { token: g.tok })).json.applied[0].n;
  await s.until((fr) => fr.some((f) => f.id === n + 1));
  const gone = s.frames.find((f) => f.id === n + 1);
  assert.equal(gone.place, String(n + 1), 'a game never undone numbers its events as before');
  expectStatus(await undo(g.id, n, g.tok), 200);
  await s.until((fr) => fr.some((f) => f.event === 'rewind'));
  const rw = s.frames.find((f) => f.event === 'rewind');
  assert.deepEqual({ to: rw.data.to, n: rw.data.n, e: rw.data.e }, { to: n, n, e: 1 });
  assert.equal(rw.place, `${n}.1`);
  // another play, then the turn's end: the bots' plays follow, all under epoch 1
  const q = await buildPlay(g, p[1]);
  expectStatus(await srv.post(`/games/${g.id}/plays`, { play: q }, { token: g.tok }), 200);
  const legal = (await srv.getOk(`/games/${g.id}/legal`, { token: g.tok })).plays;
  const end = legal.find((x) => x[0] === 0 && x[2][0] === 1);
  const r = await srv.post(`/games/${g.id}/plays`, { play: end }, { token: g.tok });
  expectStatus(r, 200);
  const now = await srv.getOk(`/games/${g.id}/events`);
  assert.ok(now.every((ev) => ev.e === 1), 'every event carries the epoch');
  await s.until((fr) => fr.length && fr.at(-1).id === now.length);
  s.close();
  assert.deepEqual(strip(replayFrames(s.frames)), strip(now), 'the follower holds the game\'s events');
  // the WebSocket: the same, bare (no n, no e), the rewind saying where to
  const bare = (evs) => evs.map(({ n, e, ...rest }) => rest);
  const deadline = Date.now() + 10_000;
  const wsLog = () => {
    const log = [];
    for (const m of w.msgs) if (m.event === 'rewind') log.length = m.to; else log.push(m);
    return log;
  };
  while (JSON.stringify(wsLog()) !== JSON.stringify(bare(now)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  w.ws.close();
  const rwm = w.msgs.find((m) => m.event === 'rewind');
  assert.deepEqual(rwm, { event: 'rewind', to: n, version: rwm.version });
  assert.deepEqual(wsLog(), bare(now), 'the WebSocket follower holds the game\'s events too');
  const after = s.frames.slice(s.frames.indexOf(rw) + 1);
  assert.deepEqual(after.map((f) => f.place), now.slice(n).map((ev) => `${ev.n}.1`), 'the new plays take the old numbers, under epoch 1');
  // a reader who last read the play taken back (its old place) is rewound first, then reads on
  const back = follow(`${srv.base}/games/${g.id}/events`, { 'last-event-id': String(n + 1) });
  await back.ready;
  await back.until((fr) => fr.length && fr.at(-1).id === now.length);
  back.close();
  assert.equal(back.frames[0].event, 'rewind');
  assert.equal(back.frames[0].data.to, n);
  assert.deepEqual(strip(back.frames.slice(1).map((f) => f.data)), strip(now.slice(n)));
  // the JSON list: the same from the old place, nothing to forget from the new one
  const old = await srv.getOk(`/games/${g.id}/events?after=${n + 1}`);
  assert.equal(old[0].event, 'rewind');
  assert.deepEqual(strip(old.slice(1)), strip(now.slice(n)));
  assert.deepEqual(await srv.getOk(`/games/${g.id}/events?after=${n + 1}.1`), now.slice(n + 1));
  const page = await srv.get(`/games/${g.id}/events?after=0&limit=1`);
  expectStatus(page, 200);
  assert.match(page.headers.get('link'), /after=1\.1&limit=1/, 'the next page\'s place carries the epoch');
  expectProblem(await srv.get(`/games/${g.id}/events?after=1.x`), 400, 'invalid-parameter');
});

test('Phazed: a phase laid or a card placed before the discard is taken back', async () => {
  const c = await srv.post('/games', { game: 'phazed', seed: 11, players: [{ name: 'Ann' }, { bot: 'default' }] });
  expectStatus(c, 201);
  const id = c.json.id, tok = c.json.seats[0].token;
  const s = follow(`${srv.base}/games/${id}/events`); // a spectator follows it all
  await s.ready;
  let taken = 0;
  for (let i = 0; i < 600 && taken < 2; i++) {
    const v = await view(id, tok);
    if (v.status.over) break;
    const play = (await srv.getOk(`/games/${id}/hint`, { token: tok })).play;
    const r = await srv.post(`/games/${id}/plays`, { play }, { token: tok });
    expectStatus(r, 200);
    if ((play[0] === 3 || play[0] === 4) && r.json.applied.length === 1 && r.json.status.current === 0) {
      // the spectator holds the play first (its stream wakes after the
      // seats', notify.h: a play taken back before it looked is never shown)
      const seen = await srv.getOk(`/games/${id}/events`);
      const last = seen.at(-1);
      await s.until((fr) => fr.length && fr.at(-1).place === (last.e ? `${last.n}.${last.e}` : `${last.n}`));
      const u = await undo(id, taken ? 'last' : r.json.applied[0].n, tok); // by number, then as "last"
      expectStatus(u, 200, `taking back ${JSON.stringify(play)}`);
      assert.equal(u.json.undone.n, r.json.applied[0].n);
      assert.deepEqual((await view(id, tok)).state, v.state, 'the hand and the table as they were');
      assert.deepEqual((await view(id)).state, (await view(id)).state);
      expectStatus(await srv.post(`/games/${id}/plays`, { play }, { token: tok }), 200, 'and made again');
      taken++;
    } else if (play[0] === 1 && r.json.applied.length === 1) {
      const pr = expectProblem(await undo(id, r.json.applied[0].n, tok), 409, 'cannot-take-back', 'a pick-up');
      assert.match(pr.detail, /phase laid|placed/);
    }
  }
  assert.ok(taken >= 1, 'a phase or a placement was taken back');
  const now = await srv.getOk(`/games/${id}/events`);
  await s.until((fr) => fr.length && fr.at(-1).id === now.length && fr.at(-1).place === `${now.length}.${now.at(-1).e}`);
  s.close();
  assert.ok(s.frames.filter((f) => f.event === 'rewind').length >= 1, 'the spectator was told');
  assert.deepEqual(strip(replayFrames(s.frames)), strip(now), 'and holds the game\'s events');
});
