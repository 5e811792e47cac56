// This browser's seats: the seat tokens it holds (localStorage, one key per
// game id, so a reload or a new tab rejoins) and the "My games" list built
// from them. A token only ever travels in the Authorization header.

import { api } from './api.js';
import { byId, h } from './dom.js';
import { app, dispatch } from './state.js';

// Where a game's seat token is kept: localStorage["croupier.token.<id>"].
const TOKEN_PREFIX = 'croupier.token.';
const TOKEN_KEY = (id) => `${TOKEN_PREFIX}${id}`;
/** When this browser took each seat (ms), for the list's order: {id: ms}. */
const SEEN_KEY = 'croupier.seats.seen';
/** The invites of the games this browser created: {id: [{seat, name, invite}]}
 *  (older pages kept {seat, name, token}: the seat's token itself). */
const INVITES_KEY = 'croupier.invites';
/** The host tokens of those games (to issue new invites): {id: token}. */
const HOST_KEY = 'croupier.host';

function readJson(key) {
  try { return JSON.parse(localStorage.getItem(key) || '{}') || {}; } catch { return {}; }
}
function writeJson(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* storage full or off */ }
}

/** The token this browser holds for game `id`, or null. A token an older page
 *  kept in sessionStorage (one tab only) moves to localStorage on first read. */
export function getToken(id) {
  if (!id) return null;
  let token = null;
  try { token = localStorage.getItem(TOKEN_KEY(id)); } catch { token = null; }
  if (token) return token;
  try { token = sessionStorage.getItem(TOKEN_KEY(id)); } catch { token = null; }
  if (token) {
    setToken(id, token);
    try { sessionStorage.removeItem(TOKEN_KEY(id)); } catch { /* ignore */ }
  }
  return token || null;
}

export function setToken(id, token) {
  if (!id || !token) return;
  try { localStorage.setItem(TOKEN_KEY(id), token); } catch { return; }
  const seen = readJson(SEEN_KEY);
  if (!seen[id]) { seen[id] = Date.now(); writeJson(SEEN_KEY, seen); }
}

/** Forget this browser's seat in game `id` (and the invites it kept for it). */
export function forgetSeat(id) {
  try { localStorage.removeItem(TOKEN_KEY(id)); sessionStorage.removeItem(TOKEN_KEY(id)); } catch { /* ignore */ }
  const seen = readJson(SEEN_KEY);
  delete seen[id];
  writeJson(SEEN_KEY, seen);
  for (const key of [INVITES_KEY, HOST_KEY]) {
    const all = readJson(key);
    if (all[id]) { delete all[id]; writeJson(key, all); }
  }
}

/** The games this browser holds a seat in, most recent first: [{id, token}]. */
function heldSeats() {
  const seen = readJson(SEEN_KEY);
  const out = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith(TOKEN_PREFIX) || key.length === TOKEN_PREFIX.length) continue;
    const id = key.slice(TOKEN_PREFIX.length);
    out.push({ id, token: localStorage.getItem(key), at: seen[id] || 0 });
  }
  // Games created here for friends only (we watch them): listed by their invites.
  for (const id of Object.keys(readJson(INVITES_KEY))) {
    if (!out.some((x) => x.id === id)) out.push({ id, token: null, at: seen[id] || 0 });
  }
  return out.sort((a, b) => b.at - a.at || a.id.localeCompare(b.id));
}

/** Keep the invites of game `id` (and its host token, to issue new ones). */
export function saveInvites(id, invites, host) {
  if (!invites.length) return;
  const inv = readJson(INVITES_KEY);
  inv[id] = invites;
  writeJson(INVITES_KEY, inv);
  if (host) {
    const hosts = readJson(HOST_KEY);
    hosts[id] = host;
    writeJson(HOST_KEY, hosts);
  }
  const seen = readJson(SEEN_KEY);
  if (!seen[id]) { seen[id] = Date.now(); writeJson(SEEN_KEY, seen); }
}

export function savedInvites(id) {
  const list = readJson(INVITES_KEY)[id];
  return Array.isArray(list) ? list : [];
}

/** The host token of game `id` if this browser created it, else null. */
export function hostToken(id) {
  return readJson(HOST_KEY)[id] || null;
}

// ---------------------------------------------------------------------------
// "My games"

/** One line of the list from GET /games/{id} as that seat sees it. */
function describe(data) {
  const s = data.status || {};
  const seats = Array.isArray(data.seats) ? data.seats : [];
  const nameOf = (n) => {
    const x = seats.find((y) => y.seat === n);
    return (x && (x.name || (x.bot ? `${x.bot} bot` : ''))) || `Player ${n + 1}`;
  };
  const entry = app.catalogue.find((g) => g.game === data.game);
  const mine = data.you !== undefined && data.you !== null;
  let turn;
  let yours = false;
  if (s.over) turn = 'Game over';
  else if (!mine && s.current !== undefined && s.current !== null) turn = `${nameOf(s.current)} to play (you watch)`;
  else if (mine && s.current === data.you) { turn = 'Your turn'; yours = true; } else if (s.current !== undefined && s.current !== null) turn = `${nameOf(s.current)} to play`;
  else turn = 'Waiting';
  return {
    title: (entry && entry.title) || data.game || 'Game',
    variant: data.variant || '',
    players: seats.map((x) => (x.seat === data.you ? `${nameOf(x.seat)} (you)` : nameOf(x.seat))).join(', '),
    turn, yours,
  };
}

let listing = 0; // the latest refresh wins

/** List this browser's seats again (GET /games/{id} of each, as its seat
 *  sees it) for the lobby's "My games". */
export async function refreshMyGames() {
  const run = ++listing;
  const held = heldSeats();
  const rows = await Promise.all(held.map(async ({ id, token }) => {
    try {
      const { data } = await api('GET', `/games/${encodeURIComponent(id)}`, { token });
      return { id, ...describe(data) };
    } catch (err) {
      // The game is gone, or the token no longer names a seat: drop it.
      if (err.status === 404 || err.status === 401) { forgetSeat(id); return null; }
      return { id, title: 'Game', variant: '', players: '', turn: 'Could not reach the server', yours: false };
    }
  }));
  if (run !== listing) return;
  dispatch({ type: 'mygames', rows: rows.filter(Boolean) });
}

let drawn = null; // the rows and the game they were drawn for

/** The lobby's "My games" list. */
export function drawMyGames(s) {
  const box = byId('my-games');
  const rows = s.myGames || [];
  box.hidden = rows.length === 0 && !s.id;
  byId('my-games-empty').hidden = rows.length > 0;
  byId('my-games-leave').hidden = !s.id;
  if (drawn && drawn.rows === s.myGames && drawn.id === s.id && drawn.back === !!s.state) return;
  drawn = { rows: s.myGames, id: s.id, back: !!s.state };
  byId('my-games-list').replaceChildren(...rows.map((r) => gameRow(r, s)));
}

function gameRow(r, s) {
  const here = r.id === s.id && !!s.state;
  return h('li', { class: `my-game${r.yours ? ' my-game-yours' : ''}`, 'data-testid': 'my-game', 'data-game-id': r.id },
    h('div', { class: 'my-game-what' },
      h('span', { class: 'my-game-title' }, r.title), r.variant ? h('span', { class: 'my-game-variant' }, ` · ${r.variant}`) : null,
      h('span', { class: 'my-game-players' }, r.players)),
    h('span', { class: `my-game-turn${r.yours ? ' badge badge-turn' : ''}`, 'data-testid': 'my-game-turn' }, r.turn),
    h('div', { class: 'my-game-actions' },
      here
        ? h('button', {
          type: 'button', class: 'btn btn-secondary', 'data-testid': 'my-game-open',
          onclick: () => { dispatch({ type: 'game/shown' }); byId('board').focus(); },
        }, 'Back to it')
        : h('a', { class: 'btn btn-secondary', href: `#game=${encodeURIComponent(r.id)}`, 'data-testid': 'my-game-open' }, 'Rejoin'),
      h('button', {
        type: 'button', class: 'btn btn-secondary', 'data-testid': 'my-game-forget',
        'aria-label': `Forget ${r.title} (${r.id}) on this browser`,
        onclick: () => { forgetSeat(r.id); refreshMyGames(); },
      }, 'Forget')));
}
