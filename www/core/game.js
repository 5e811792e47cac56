// Loading, resuming, following (live events) and playing one game.

import { api } from './api.js';
import { connectionLost, drawConnection, setConnection } from './connection.js';
import { followGame } from './events.js';
import { byId } from './dom.js';
import { addLog, markTurnEnds, readable } from './log.js';
import { setVerdict, verdictText } from './verdict.js';
import { render, showGame, showSetup } from './render.js';
import { showInvites } from './invite.js';
import { forgetSeat, getToken } from './seats.js';
import { app, myTurn, renderer, resultText, say, sayError } from './state.js';

// Loading, resuming, following live

/** The table is being brought up to date (a play, news from the server, a
 *  game opened): the board is aria-busy until the last update under way has
 *  redrawn it, so that a screen reader (and the browser tests) read the table
 *  whole, not the old turn's board under the new turn's log. */
export function beginUpdate() {
  app.updates += 1;
  byId('board').setAttribute('aria-busy', 'true');
}

export function endUpdate() {
  app.updates = Math.max(0, app.updates - 1);
  if (!app.updates) byId('board').removeAttribute('aria-busy');
}

export function acceptGame(data) {
  if (data.id) app.id = data.id;
  if (data.game) app.game = data.game;
  if (data.variant) app.variant = data.variant;
  if (data.version !== undefined) app.version = data.version;
  if (Array.isArray(data.seats)) app.seats = data.seats.map((s) => ({ ...s, token: undefined }));
  if (data.you !== undefined) app.you = data.you;
  if (data.state !== undefined) app.state = data.state;
  if (data.status !== undefined) app.status = data.status;
  app.selection = null;
  app.hint = null;
  syncLive(); // follow the game's events while it runs, and only then
}

export async function loadGame(id, opts) {
  beginUpdate();
  try {
    return await loadGameNow(id, opts);
  } finally {
    endUpdate();
  }
}

async function loadGameNow(id, { quiet } = {}) {
  app.id = id;
  app.token = getToken(id);
  try {
    const { data } = await api('GET', `/games/${encodeURIComponent(id)}`, { token: app.token });
    if (!app.log.size || app.game !== data.game) {
      app.log = new Map();
      byId('log').replaceChildren();
    }
    acceptGame(data);
  } catch (err) {
    if (err.status === 401 && app.token) {
      // Our token is no longer valid for this game: continue as a spectator.
      forgetSeat(id);
      app.token = null;
      return loadGameNow(id, { quiet });
    }
    sayError(err, 'Could not load the game');
    if (err.status === 404) {
      stopLive();
      history.replaceState(null, '', location.pathname + location.search);
      showSetup();
    }
    return false;
  }
  await loadHistory();
  await refreshLegal();
  showGame();
  showInvites();
  render();
  if (!quiet) say(app.you === null || app.you === undefined ? 'Watching this game as a spectator.' : 'Game resumed.');
  return true;
}

async function loadHistory() {
  try {
    const { data } = await api('GET', `/games/${encodeURIComponent(app.id)}/plays`, { token: app.token });
    const r = renderer();
    const plays = (data && data.plays) || [];
    addLog(markTurnEnds(r.historyRecords ? r.historyRecords(plays) : plays));
  } catch {
    // The history is a nicety; the board is what matters.
  }
}

export async function refreshLegal() {
  app.legal = [];
  app.legalTotal = 0; // the whole list's length: app.legal is its first page
  if (!myTurn()) return;
  try {
    const { data } = await api('GET', `/games/${encodeURIComponent(app.id)}/legal`, { token: app.token });
    app.legal = Array.isArray(data && data.plays) ? data.plays : [];
    app.legalTotal = Number.isInteger(data && data.total) ? data.total : app.legal.length;
  } catch (err) {
    sayError(err, 'Could not fetch the legal plays');
  }
}

/** Stop following the game (the page left it, or a new one replaces it). */
export function stopLive() {
  clearTimeout(app.refreshTimer);
  app.refreshTimer = null;
  if (app.live) app.live.stop();
  app.live = null;
  setConnection(null);
}

/** Follow the shown game's event stream while it runs: start the stream if
 *  none follows this game (with this token), stop it once the game is over.
 *  Called whenever a game document is taken in (acceptGame) and when the
 *  page is shown again; never more than one stream per tab. */
export function syncLive() {
  const want = app.id && app.status && !app.status.over && !app.leaving;
  if (app.live && (!want || app.live.id !== app.id || app.live.token !== app.token)) stopLive();
  drawConnection();
  if (!want || app.live) return;
  const id = app.id;
  const token = app.token;
  app.live = followGame({
    id,
    token,
    onNews: () => refreshFromServer(id),
    onState: setConnection,
    onGone: (status) => {
      // 401: our token no longer names a seat here (its seat's invite was
      // claimed in another browser: core/invite.js); reload as a spectator.
      if (status === 401 && app.id === id && app.token) {
        say('Your seat at this table was taken in another browser, with a new invite link; you are watching now.', 'warning');
        loadGame(id, { quiet: true });
      }
    },
  });
}

/** Something happened in the game: fetch the view (304 when nothing changed
 *  for us) and redraw, as after a move. */
export async function refreshFromServer(id = app.id) {
  if (!id || id !== app.id) return;
  if (app.busy || app.refreshing) {
    // A play is under way (its reply brings the view) or a refresh is: look again after it.
    clearTimeout(app.refreshTimer);
    app.refreshTimer = setTimeout(() => refreshFromServer(id), 150);
    return;
  }
  app.refreshing = true;
  try {
    const res = await api('GET', `/games/${encodeURIComponent(id)}`, {
      token: app.token, headers: { 'If-None-Match': `"${app.version}"` },
    });
    if (id !== app.id) return;
    if (app.busy) { app.refreshTimer = setTimeout(() => refreshFromServer(id), 150); return; }
    if (res.status === 200 && res.data && res.data.version !== app.version) {
      const wasMyTurn = myTurn();
      beginUpdate();
      try {
        acceptGame(res.data);
        await loadHistory();
        await refreshLegal();
        render();
      } finally {
        endUpdate();
      }
      showInvites(); // a friend may have taken their seat
      if (app.status && app.status.over) say(resultText(), 'info');
      else if (myTurn() && !wasMyTurn) say('Your turn.');
    }
  } catch {
    // Transient; the next event or the fallback poll looks again.
  } finally {
    app.refreshing = false;
  }
}

// ---------------------------------------------------------------------------
// Playing

export async function sendPlay(play) {
  if (app.busy) return;
  if (!myTurn()) { say('It is not your turn.', 'error'); return; }
  if (connectionLost()) {
    say('Not sent: the connection to the server is lost, so nothing was played. Make your play again once the table says "Live".', 'error');
    app.messageNet = true;
    return;
  }
  app.busy = true;
  beginUpdate();
  // A hint asked now would not be sent (askHint): off until render() sets them again.
  for (const b of document.querySelectorAll('#hint-button, [data-testid="hint-near-hand"]')) b.disabled = true;
  try {
    const { data } = await api('POST', `/games/${encodeURIComponent(app.id)}/plays`, {
      token: app.token, body: { play }, headers: { 'If-Match': `"${app.version}"` },
    });
    acceptGame(data);
    addLog(data.applied);
    await refreshLegal();
    const mine = (data.applied || []).filter((r) => r.seat === app.you).length;
    const others = (data.applied || []).length - mine;
    if (app.status && app.status.over) say(resultText(), 'info');
    else if (others > 0 && myTurn()) say(`The bots played ${others} time${others === 1 ? '' : 's'}; your turn again.`);
    else byId('message').textContent = '';
  } catch (err) {
    await handlePlayError(err);
  } finally {
    app.busy = false;
    try {
      render();
    } finally {
      endUpdate();
    }
  }
}

/** Send `play`, remembering the place (a data-testid on the board) it was
 *  aimed at: a refusal is shown there (core/verdict.js). */
export function attempt(play, anchor) {
  app.verdictAnchor = anchor || null;
  app.verdict = null;
  return sendPlay(play);
}

async function handlePlayError(err) {
  const st = err.status;
  if (st === 412) {
    await loadGame(app.id, { quiet: true });
    say('The game had moved on since your last view, so it was reloaded. Please choose your play again.', 'error');
  } else if (st === 409) {
    await loadGame(app.id, { quiet: true });
    sayError(err);
  } else if (st === 422) {
    // The server's verdict, in words next to the place aimed at (core/verdict.js) and in the live message bar.
    say(verdictText(setVerdict(err)), 'error');
    app.selection = null;
    await refreshLegal();
  } else if (st === 0) {
    // No answer: the play may or may not have reached the server. The table
    // shows which once the connection is back (the stream refreshes it).
    say('Your play could not be sent: the server did not answer. Once the connection is back the table shows whether it was made.', 'error');
    app.messageNet = true;
  } else if (st === 401) {
    sayError(err, 'Your seat token was not accepted');
  } else {
    sayError(err, 'The play failed');
  }
}

export async function askHint() {
  if (!myTurn() || app.busy) return;
  try {
    const { data } = await api('GET', `/games/${encodeURIComponent(app.id)}/hint`, { token: app.token });
    app.hint = data;
    app.selection = null;
    const r = renderer();
    const what = r.describePlay ? r.describePlay(data.play, app.you, { forHint: true }) : JSON.stringify(data.play);
    say(`Hint${data.strategy ? ` (${data.strategy})` : ''}: ${what}. ${readable(data.explanation || '')}`.trim(), 'hint');
    render();
  } catch (err) {
    sayError(err, 'No hint available');
  }
}
