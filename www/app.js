// Croupier web page (entry module): create a game against bots, play it, resume it after a reload.
//
// One design choice to know: the page keeps no rules. It asks the server for the
// legal plays (GET /games/{id}/legal) to highlight them, lets a person try any
// card on any place, and shows the server's verdict (core/verdict.js); each game has one
// renderer object in tables/registry.js (keyed by game id), one module per
// game table in tables/, that draws the view and maps
// clicks to plays, and GENERIC draws any game it does not know (JSON state plus
// the legal plays as buttons). This module hands the tables to core/
// (useTables): core/ names no game and never imports tables/, and reads
// whose turn it is and who won from the server's generic "status" only. The seat tokens live in localStorage (core/seats.js),
// the game id in the URL hash (#game=<id>), so a reload or a new tab resumes the
// game; an invite link carries a seat's invite in the fragment only, which the
// page removes from the address bar and claims once for the seat's own token
// (core/invite.js). The token only
// ever travels in the Authorization header, never in a URL (the server refuses
// a token query parameter). The page runs under a Content-Security-Policy of
// 'self' only: no inline script, inline style or style attribute.
//
// Layout: core/ holds what every game shares (store.js, the state and its one
// writer; render.js, the one render path; dom.js, api.js, state.js, lobby.js,
// seats.js, invite.js, game.js, events.js, log.js, board.js, playback.js,
// verdict.js, nearhand.js, replay.js, sharedreplay.js, summary.js, help.js, connection.js,
// numbering.js, json.js); tables/ holds one module per table (and its
// helpers and CSS) and registry.js, which maps a game id to its table.
// Adding a game's table is one file in tables/ and one row in
// tables/registry.js. Imports go one way, app.js -> tables/ -> core/, and
// form no cycle (tests/repo/www_modules.test.mjs). How the state flows is in
// docs/web-page.md.

import { byId } from './core/dom.js';
import { askHint, loadGame, refreshFromServer, setLeaving, stopLive, syncLive, takeBack } from './core/game.js';
import { setupHelp } from './core/help.js';
import { setupKeys } from './core/keys.js';
import { claimInvite, takeInviteFromHash } from './core/invite.js';
import { loadCatalogue, setupForm } from './core/lobby.js';
import { setupPlayback } from './core/playback.js';
import { render } from './core/render.js';
import { setupReplay, syncReplay } from './core/replay.js';
import { resolveSharedLink } from './core/sharedreplay.js';
import { getToken, refreshMyGames } from './core/seats.js';
import { app, select, useTables } from './core/state.js';
import { subscribe } from './core/store.js';
import { GENERIC } from './tables/generic.js';
import { RENDERERS } from './tables/registry.js';

// Start

function gameIdFromHash() {
  return takeInviteFromHash(); // keeps an invite (to claim) and strips it from the address
}

async function start() {
  useTables(RENDERERS, GENERIC);
  subscribe(render); // the one render path: the page drawn from the state after every dispatch
  setupForm();
  setupHelp();
  setupReplay();
  setupPlayback();
  setupKeys();
  byId('hint-button').addEventListener('click', askHint);
  byId('undo-button').addEventListener('click', takeBack);
  byId('cancel-button').addEventListener('click', () => select(null, { keepHint: true }));
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && app.selection !== null) select(null, { keepHint: true });
  });
  window.addEventListener('hashchange', async () => {
    await resolveSharedLink(); // #replay=<rid>: the game and position it shows
    const id = gameIdFromHash();
    const quiet = await claimInvite(id); // an invite link: take the seat first
    if (id && (id !== app.id || !app.state || app.token !== getToken(id))) { stopLive(); loadGame(id, { quiet }).then(syncReplay); } else syncReplay();
  });
  // Leaving the page ends its event stream; coming back (from the back/forward
  // cache) follows the game again.
  window.addEventListener('pagehide', () => setLeaving(true));
  window.addEventListener('pageshow', (ev) => {
    setLeaving(false);
    if (ev.persisted && app.id) { syncLive(); refreshFromServer(); }
  });
  render();
  const catalogue = loadCatalogue();
  await resolveSharedLink();
  const id = gameIdFromHash();
  if (id) {
    await catalogue;
    const quiet = await claimInvite(id);
    await loadGame(id, { quiet });
    await syncReplay();
  } else {
    await catalogue;
    await refreshMyGames();
  }
  document.body.dataset.ready = 'true';
}

start();
