// Application state (one game at a time), the game tables app.js hands
// over, seat names, where the game stands in words, and the message bar.
//
// core/ names no game and imports nothing from tables/: whose turn it is,
// whether the game is over and who won come from the server's generic
// "status" beside each view (docs/api.md), and a game's own words come from
// its table's optional hooks (docs/web-tables.md).

import { ApiError } from './api.js';
import { byId } from './dom.js';

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
  state: null,          // the view (the game's own shape: only its table reads it)
  status: null,         // where the game stands: the server's "status" (current, over, winners, scores, ...)
  legal: [],            // our legal plays now
  legalTotal: 0,        // how many there are (GET /legal pages them; legal is the first page)
  selection: null,      // renderer-specific selected source key
  hint: null,           // {play, explanation, strategy}
  log: new Map(),       // n -> record, as shown
  rulesDocs: {},        // game -> GET /rules/{game} (fetched once, for help texts)
  busy: false,
  updates: 0,           // table updates under way (core/game.js beginUpdate): the board is aria-busy meanwhile
  live: null,           // the event stream followed (core/events.js), at most one
  refreshTimer: null,
  refreshing: false,
  leaving: false,       // the page is being left: follow nothing
  connection: null,     // the event stream: 'live', 'down', 'polling' or null (core/connection.js)
  connectionNotice: false, // "Reconnecting…" is on show
  messageNet: false,    // the message bar holds news of a lost connection (cleared once back)
};

// The game tables, keyed by game id, and the one that draws any other game:
// handed over by app.js (useTables) before anything is drawn.
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

export function myTurn() {
  const s = app.status;
  return app.you !== null && app.you !== undefined && !!s && !s.over &&
    s.current === app.you && !app.replay; // a replay (core/replay.js) is read-only
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
// Messages

let messageTimer = null;
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
