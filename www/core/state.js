// The page's state as the modules read it (core/store.js holds it and its
// one writer, dispatch), the game tables app.js hands over, seat names,
// where the game stands in words, and the small actions every module uses:
// a message, a selection, a table's own state, a setting.
//
// core/ names no game and imports nothing from tables/: whose turn it is,
// whether the game is over and who won come from the server's generic
// "status" beside each view (docs/api.md), and a game's own words come from
// its table's optional hooks (docs/web-page.md).

import { ApiError } from './api.js';
import { app, dispatch } from './store.js';

export { app, dispatch };

// The game tables, keyed by game id, and the one that draws any other game:
// handed over by app.js (useTables) before anything is drawn. Configuration,
// not state: they never change.
let tables = {};
let otherTable = null;

export function useTables(byGame, other) {
  tables = byGame;
  otherTable = other;
}

/** The table of game `game` (the fallback table for a game without one). */
export function tableOf(game) {
  return Object.hasOwn(tables, game) ? tables[game] : otherTable;
}

export function renderer() {
  return tableOf(app.game);
}

/** A seat's name as the table shows it, without "(you)". */
function plainName(seat) {
  const s = app.seats.find((x) => x.seat === seat) || app.seats[seat];
  if (!s) return `the player in seat ${seat + 1}`;
  const base = (x) => x.name || (x.bot ? `${x.bot} bot` : 'a player');
  const name = base(s);
  // Two seats of one name (two bots of one strategy): tell them apart, counted from 1.
  const same = app.seats.filter((x) => base(x) === name).sort((a, b) => a.seat - b.seat);
  return same.length > 1 ? `${name} ${same.findIndex((x) => x.seat === s.seat) + 1}` : name;
}

export function seatName(seat) {
  const name = plainName(seat);
  return seat === app.you && !/^you$/i.test(name) ? `${name} (you)` : name;
}

/** The engine's sentences count players from 1 ("player 2's discard pile
 *  1", "it is player 1's turn"): name them as the table does ("Bob's
 *  discard pile 1", "it is your turn"). Unknown seats stay as they are. */
export function playerWords(text) {
  if (typeof text !== 'string') return text;
  return text.replace(/\b([Pp])layer (\d+)('s)?/g, (m, p, n, own) => {
    const seat = Number(n) - 1;
    if (!app.seats.some((x) => x.seat === seat)) return m;
    const w = seat === app.you ? (own ? 'your' : 'you') : `${plainName(seat)}${own || ''}`;
    return p === 'P' ? w[0].toUpperCase() + w.slice(1) : w;
  }).replace(/\byou about their\b/g, 'you about your');
}

/** A seat's name as an owner, mid-sentence: "your" for this tab's seat (never
 *  "You's"), else "Ada's". */
export function whose(seat) {
  return seat === app.you ? 'your' : `${seatName(seat)}'s`;
}

/** It is this tab's seat's turn in the live game (a replay is read-only). */
export function myTurn() {
  const s = app.status;
  return app.you !== null && app.you !== undefined && !!s && !s.over &&
    s.current === app.you && !app.replay;
}

/** How a finished game ended, in words ('' while it runs): the table's own
 *  words (its optional resultText(view, status) hook) or the status's. */
export function resultText(view = app.state, status = app.status) {
  if (!status || !status.over) return '';
  const r = renderer();
  const own = r && r.resultText ? r.resultText(view, status) : '';
  if (own) return own;
  const won = status.winners || [];
  if (status.cooperative) return `Game over: team score ${status.scores[0]}${status.max_score ? ` of ${status.max_score}` : ''}.`;
  if (won.length === 1) return won[0] === app.you ? 'Game over: you won!' : `Game over: ${seatName(won[0])} won.`;
  if (won.length > 1) return `Game over: a tie between ${won.map(seatName).join(' and ')}.`;
  return `Game over${status.result ? `: ${status.result}` : ''}. No winner.`;
}

// ---------------------------------------------------------------------------
// Small actions

let messageTimer = null;

/** A message in the bar (and, on a phone, by the hand: core/nearhand.js).
 *  `net`: it is news of a lost connection, cleared once the connection is
 *  back (core/connection.js). An information goes after 12 s. */
export function say(text, kind = 'info', { net = false } = {}) {
  clearTimeout(messageTimer);
  dispatch({ type: 'message', text, kind, net });
  const seq = app.message.seq;
  if (kind === 'info' && text) {
    messageTimer = setTimeout(() => { if (app.message.seq === seq) say('', kind); }, 12000);
  }
}

export function sayError(err, prefix) {
  const detail = playerWords(err instanceof ApiError ? err.message : String(err && err.message || err));
  // "could not reach the server": stale once reconnected
  say(prefix ? `${prefix}: ${detail}` : detail, 'error', { net: !!(err && err.status === 0) });
}

/** Choose a source on the table (the same again: unchoose; null: none).
 *  The hint's advice goes, unless `keepHint`. */
export function select(key, { keepHint = false } = {}) {
  dispatch({ type: 'select', key, keepHint });
}

/** A part of the shown table's own state (tables/: a pager's page, a
 *  setting shown): `app.table[key]`, started afresh with each game. */
export function setTable(key, value) {
  dispatch({ type: 'table', key, value });
}

const PREF_KEY = (key) => `croupier.${key}`;

/** A setting of this browser: the state's once set here, else the one kept
 *  in localStorage (croupier.<key>), else `fallback`. */
export function pref(key, fallback = null) {
  if (Object.hasOwn(app.prefs, key)) return app.prefs[key];
  try {
    const v = localStorage.getItem(PREF_KEY(key));
    return v === null ? fallback : v;
  } catch {
    return fallback;
  }
}

/** Change a setting (a string), kept in localStorage for the next visit. */
export function setPref(key, value) {
  try { localStorage.setItem(PREF_KEY(key), value); } catch { /* private mode: this page only */ }
  dispatch({ type: 'pref', key, value });
}
