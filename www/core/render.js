// Drawing the table: the page chrome around the game's own renderer.

import { byId } from './dom.js';
import { drawConnection } from './connection.js';
import { app, myTurn, renderer, resultText, seatName } from './state.js';
import { renderSummary } from './summary.js';

// Rendering

export function showGame() {
  byId('setup').hidden = true;
  byId('game').hidden = false;
  const toggle = byId('new-game-toggle');
  toggle.hidden = false;
  toggle.setAttribute('aria-expanded', 'false');
  toggle.setAttribute('aria-controls', 'setup');
  const log = byId('log');
  log.scrollTop = log.scrollHeight; // entries added while hidden did not scroll
}

export function showSetup() {
  byId('setup').hidden = false;
  byId('game').hidden = true;
  byId('new-game-toggle').hidden = true;
}

export function render() {
  if (!app.state) return;
  const r = renderer();
  const entry = app.catalogue.find((g) => g.game === app.game);
  // Only touch text that changed, so live regions announce real news only.
  setText(byId('game-title'), `${(entry && entry.title) || r.title || app.game}${app.variant ? ` · ${app.variant}` : ''}`);
  setText(byId('game-id'), app.id);
  setText(byId('game-version'), String(app.version));
  setText(byId('status'), statusText());
  byId('status').classList.toggle('your-turn', myTurn());

  // Keep keyboard focus on the "same" control across re-renders.
  const board = byId('board');
  const focused = document.activeElement && board.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
  const scroller = document.scrollingElement;
  const scrollY = scroller ? scroller.scrollTop : 0;
  board.replaceChildren(r.render(app));
  board.dataset.game = app.game;
  if (focused) {
    const again = board.querySelector(`[data-testid="${CSS.escape(focused)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
  if (scroller) scroller.scrollTop = scrollY;

  byId('hint-button').disabled = !myTurn() || app.busy;
  byId('cancel-button').disabled = app.selection === null;
  const extra = r.extraPlays ? r.extraPlays(app) : [];
  byId('extra-plays').replaceChildren(...extra);
  renderSummary();
  syncReplayButton();
  drawConnection();
}

/** After a render of the live game: the Replay button works once a play exists. */
function syncReplayButton() {
  const b = byId('replay-button');
  b.disabled = !(app.log && app.log.size > 0);
  // A reload of the live game (showGame) must not uncover it under a replay.
  if (app.replay) byId('game').hidden = true;
}

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function statusText() {
  const s = app.status;
  if (!s) return '';
  if (s.over) return resultText();
  const r = renderer();
  const core = myTurn() ? 'Your turn' : (s.current !== null ? `${seatName(s.current)} to play` : 'Waiting');
  const extra = r.statusExtra ? r.statusExtra(app.state) : '';
  return extra ? `${core} · ${extra}` : core;
}

// Pass the selected source to the renderer and re-render.
export function select(key) {
  app.selection = app.selection === key ? null : key;
  app.hint = null;
  render();
}
