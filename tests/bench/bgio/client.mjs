// client.mjs: boardgame.io's own client (boardgame.io/client over its
// socket.io transport) seated at tables of tests/bench/bgio/hanabi.cjs, for
// tests/bench/bgio.mjs. table(base) creates a match of two through the
// lobby API (POST /games/hanabi/create, /join for each seat's credentials)
// and connects a client per seat, as two browsers would; each holds the
// view the server pushes it after every move.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Hanabi } = require('./hanabi.cjs');

async function post(base, path, body) {
  const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** A match of two: {seats: [client, client], state(seat), waitFor(seat, id),
 *  stop()}; state(seat) is the view that seat's client last got. */
export async function table(base) {
  const { matchID } = await post(base, '/games/hanabi/create', { numPlayers: 2 });
  const seats = [];
  for (const playerID of ['0', '1']) {
    const { playerCredentials } = await post(base, `/games/hanabi/${matchID}/join`, { playerID, playerName: `P${playerID}` });
    const c = Client({ game: Hanabi, numPlayers: 2, matchID, playerID, credentials: playerCredentials, debug: false, multiplayer: SocketIO({ server: base }) });
    const seat = { client: c, waiting: [] };
    c.subscribe((s) => {
      if (!s) return;
      seat.waiting = seat.waiting.filter((w) => (s._stateID >= w.id ? (w.resolve(s), false) : true));
    });
    c.start();
    seats.push(seat);
  }
  const t = {
    seats,
    state: (p) => seats[p].client.getState(),
    /** resolves with seat p's view once its state id reached id (its
     *  subscription, and a look every 2 ms: a patch the client applies
     *  without calling its subscribers is still seen) */
    waitFor: (p, id, ms = 30_000) => new Promise((resolve, reject) => {
      const now = () => { const s = seats[p].client.getState(); return s && s._stateID >= id ? s : null; };
      if (now()) { resolve(now()); return; }
      const done = (v) => { clearTimeout(timer); clearInterval(look); resolve(v); };
      const timer = setTimeout(() => { clearInterval(look); reject(new Error(`seat ${p} never got state ${id}`)); }, ms);
      const look = setInterval(() => { const s = now(); if (s) done(s); }, 2);
      seats[p].waiting.push({ id, resolve: done });
    }),
    stop: () => { for (const s of seats) s.client.stop(); },
  };
  // both seats connected and synced
  await Promise.all([t.waitFor(0, 0), t.waitFor(1, 0)]);
  return t;
}
