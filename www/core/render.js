// The one render path: render(state) draws the whole page from the state
// (core/store.js), after every dispatch. Nothing else draws: the modules that
// fetch or listen dispatch what they learnt, and each part of the page here
// is drawn from its slice of the state, left alone when that slice has not
// changed (so a focused button stays, and live regions announce real news
// only). The game's table is drawn by its own module (tables/), handed the
// context of core/board.js: the live game or, while a playback runs, the
// position it shows.

import { byId } from './dom.js';
import { drawTable, drawingKey, sameKey, tableContext } from './board.js';
import { drawConnection } from './connection.js';
import { canTakeBack } from './game.js';
import { drawRules } from './help.js';
import { focusNext } from './keys.js';
import { drawInvites } from './invite.js';
import { drawLobby } from './lobby.js';
import { drawLog } from './log.js';
import { WAIT, drawPlayback, playbackFrame } from './playback.js';
import { drawReplay } from './replay.js';
import { drawMyGames } from './seats.js';
import { app, myTurn, renderer, seatName } from './state.js';
import { drawSummary } from './summary.js';

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function statusText(s) {
  const st = s.status;
  if (!st) return '';
  if (st.over) return 'Game over'; // the result itself: the summary panel's, said once (core/summary.js)
  const r = renderer();
  const core = myTurn() ? 'Your turn' : (st.current !== null ? `${seatName(st.current)} to play` : 'Waiting');
  const extra = r.statusExtra ? r.statusExtra(s.state) : '';
  return extra ? `${core} · ${extra}` : core;
}

/** The message bar, and its copies by the hand (a phone's: core/nearhand.js). */
function drawMessage(s) {
  const { text, kind } = s.message;
  const el = byId('message');
  el.className = `message message-${kind}`;
  setText(el, text);
  for (const near of document.querySelectorAll('[data-testid="message-near-hand"]')) {
    near.className = `near-message message-${kind}`;
    setText(near, text);
  }
}

let boardKey = null;   // what the board's drawing was made from
let drawnVersion = null; // the game's version the live board was last drawn at
let focusPending = false; // a play was drawn whose next control is not chosen yet
let wasShown = false;

/** The board: the live table, or the position a playback shows. */
function drawBoard(s) {
  const board = byId('board');
  if (s.updates > 0 || s.playback) board.setAttribute('aria-busy', 'true');
  else board.removeAttribute('aria-busy');
  const frame = playbackFrame(s);
  if (frame === WAIT) return; // the first position is on its way: the last drawing stays
  const r = renderer();
  const a = frame ? tableContext(s, { view: frame.view, log: frame.log, mode: 'playback', moved: frame.rec }) : tableContext(s);
  const key = drawingKey(r, a);
  if (sameKey(key, boardKey)) return;
  boardKey = key;
  // Keep keyboard focus on the "same" control across drawings, and the page where it was.
  const focused = document.activeElement && board.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
  const scroller = document.scrollingElement;
  const scrollY = scroller ? scroller.scrollTop : 0;
  board.replaceChildren(drawTable(r, a));
  board.dataset.game = s.game;
  if (frame) board.dataset.at = String(frame.rec.n); else delete board.dataset.at;
  if (a.moved && typeof a.moved.n === 'number') board.dataset.moved = String(a.moved.n); else delete board.dataset.moved;
  if (focused) {
    const again = board.querySelector(`[data-testid="${CSS.escape(focused)}"]`);
    if (again && !again.disabled && again.getAttribute('aria-disabled') !== 'true') again.focus({ preventScroll: true });
  }
  if (!frame && a.mode === 'live') { // never lost on the body after a play
    // after a play the focus moves on once the new position's plays are here
    if (drawnVersion !== s.version) { drawnVersion = s.version; focusPending = true; }
    focusNext(board, a.myTurn, focusPending);
    if (s.legal.length || !a.myTurn) focusPending = false;
  }
  if (scroller) scroller.scrollTop = scrollY;
  // Buttons under the board (a pass, "go out"): from the same context.
  byId('extra-plays').replaceChildren(...(r.extraPlays ? r.extraPlays(a) : []));
}

function drawGame(s) {
  const game = byId('game');
  const shown = s.shown && !s.replay;
  game.hidden = !shown;
  const toggle = byId('new-game-toggle');
  toggle.hidden = !s.shown;
  toggle.setAttribute('aria-expanded', String(s.lobby));
  toggle.setAttribute('aria-controls', 'setup');
  if (shown && !wasShown) {
    const log = byId('log');
    log.scrollTop = log.scrollHeight; // entries added while hidden did not scroll
  }
  wasShown = shown;
  drawLog(s);
  drawInvites(s);
  if (!s.state) { boardKey = null; return; } // a game being opened: its last drawing stays until it is here
  const r = renderer();
  const entry = s.catalogue.find((g) => g.game === s.game);
  setText(byId('game-title'), `${(entry && entry.title) || r.title || s.game}${s.variant ? ` · ${s.variant}` : ''}`);
  setText(byId('game-id'), s.id);
  setText(byId('game-version'), String(s.version));
  setText(byId('status'), statusText(s));
  byId('status').classList.toggle('your-turn', myTurn());
  drawPlayback(s);
  drawBoard(s);
  byId('hint-button').disabled = !myTurn() || s.busy;
  byId('undo-button').hidden = !renderer().takesBack || !s.state;
  byId('undo-button').disabled = !canTakeBack(s);
  byId('cancel-button').disabled = s.selection === null;
  byId('replay-button').disabled = !(s.log && s.log.size > 0);
  drawSummary(s);
  drawConnection(s);
}

const TITLE = document.title; // the lobby's

/** The tab's title: the game and, while the reader may act, "Your turn"
 *  first, so a background tab says so. */
function drawTitle(s) {
  let t = TITLE;
  if (s.shown && !s.replay && s.state) {
    const entry = s.catalogue.find((g) => g.game === s.game);
    const game = (entry && entry.title) || s.game;
    t = myTurn() ? `Your turn · ${game} · Croupier` : `${s.status && s.status.over ? 'Game over · ' : ''}${game} · Croupier`;
  }
  if (document.title !== t) document.title = t;
}

/** Draw the page from state `s` (subscribed to the store by app.js). */
export function render(s = app) {
  byId('setup').hidden = !s.lobby;
  drawLobby(s);
  drawMyGames(s);
  drawGame(s);
  drawReplay(s);
  drawRules(s);
  drawMessage(s);
  drawTitle(s);
}
