// Application state (one game at a time), seat names and the message bar.

import { ApiError } from './api.js';
import { byId } from './dom.js';
import { GENERIC } from '../tables/generic.js';
import { RENDERERS } from '../tables/registry.js';

// Application state (one game at a time)

export const app = {
  catalogue: [],        // GET /rules games
  id: null,             // game id
  token: null,          // this tab's seat token (null = spectator)
  game: null,           // game type id, e.g. "comp10001bo"
  variant: null,
  version: null,
  seats: [],
  you: null,            // our seat, or null
  state: null,          // the view
  legal: [],            // our legal plays now
  selection: null,      // renderer-specific selected source key
  hint: null,           // {play, explanation, strategy}
  log: new Map(),       // n -> record, as shown
  rulesDocs: {},        // game -> GET /rules/{game} (fetched once, for help texts)
  busy: false,
  live: null,           // the event stream followed (core/events.js), at most one
  refreshTimer: null,
  refreshing: false,
  leaving: false,       // the page is being left: follow nothing
  connection: null,     // the event stream: 'live', 'down', 'polling' or null (core/connection.js)
  connectionNotice: false, // "Reconnecting…" is on show
  messageNet: false,    // the message bar holds news of a lost connection (cleared once back)
};

export const TOKEN_KEY = (id) => `croupier.token.${id}`;

export function renderer() {
  return RENDERERS[app.game] || GENERIC;
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

export function myTurn() {
  return app.you !== null && app.you !== undefined && app.state && !app.state.over &&
    app.state.current === app.you && !app.replay; // a replay (core/replay.js) is read-only
}

// ---------------------------------------------------------------------------
// Messages

export let messageTimer = null;
export function say(text, kind = 'info') {
  const el = byId('message');
  clearTimeout(messageTimer);
  app.messageNet = false;
  el.className = `message message-${kind}`;
  el.textContent = text;
  // A phone shows the message by the hand (core/nearhand.js), not over the table.
  for (const near of document.querySelectorAll('[data-testid="message-near-hand"]')) {
    near.className = `near-message message-${kind}`;
    near.textContent = text;
  }
  if (kind === 'info' && text) {
    messageTimer = setTimeout(() => { if (el.textContent === text) say('', kind); }, 12000);
  }
}

export function sayError(err, prefix) {
  const detail = playerWords(err instanceof ApiError ? err.message : String(err && err.message || err));
  say(prefix ? `${prefix}: ${detail}` : detail, 'error');
  app.messageNet = !!(err && err.status === 0); // "could not reach the server": stale once reconnected
}
