// Loading, resuming, following (live events) and playing one game. Each
// function here asks the server and dispatches what it learnt; none draws.

import { api } from './api.js';
import { connectionLost, goneOffline, setConnection } from './connection.js';
import { followGame } from './events.js';
import { same } from './json.js';
import { advice, fetchPlays, markTurnEnds, withExplanations } from './log.js';
import { afterPlayback, endPlayback, runPlayback, toPlayBack } from './playback.js';
import { verdictOf, verdictText } from './verdict.js';
import { forgetSeat, getToken } from './seats.js';
import { app, dispatch, myTurn, renderer, say, sayError } from './state.js';

// What follows the game: kept here, not in the state (nothing draws it).
let live = null;          // the event stream followed (core/events.js), at most one
let refreshTimer = null;
let refreshing = false;
let rewound = 0;          // the stream said plays were taken back (the version it wrote): read the log again
let tookBack = 0;         // ... unless this tab took them back: the version its own take-back wrote
let leaving = false;      // the page is being left: follow nothing

/** The table is being brought up to date (a play, news from the server, a
 *  game opened): the board is aria-busy until the last update under way has
 *  been drawn, so that a screen reader (and the browser tests) read the table
 *  whole, not the old turn's board under the new turn's log. */
export function beginUpdate() {
  dispatch({ type: 'update', delta: 1 });
}

export function endUpdate() {
  dispatch({ type: 'update', delta: -1 });
}

/** The page is left (pagehide) or shown again (pageshow). */
export function setLeaving(on) {
  leaving = on;
  if (on) stopLive();
}

/** The history `plays` of GET /plays as log records (the table's own
 *  historyRecords hook first), the last one's turn_ending from `status`. */
function asRecords(plays, status, id) {
  const r = renderer();
  return withExplanations(markTurnEnds(r.historyRecords ? r.historyRecords(plays) : plays, status), id);
}

/** The newest numbered play of the log (-1: none). */
function lastN(log) {
  let n = -1;
  for (const rec of log.values()) if (typeof rec.n === 'number' && rec.n > n) n = rec.n;
  return n;
}

/** A game document taken in: the view, its new records, and those of them
 *  to play back; then the stream follows the game while it runs. */
function takeIn(data, records, playBack = []) {
  dispatch({ type: 'game/view', data, records, playBack });
  syncLive();
  if (playBack.length) runPlayback();
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
  dispatch({ type: 'game/open', id, token: getToken(id) });
  let data;
  try {
    ({ data } = await api('GET', `/games/${encodeURIComponent(id)}`, { token: app.token }));
  } catch (err) {
    if (err.status === 401 && app.token) {
      // Our token is no longer valid for this game: continue as a spectator.
      forgetSeat(id);
      dispatch({ type: 'game/open', id, token: null });
      return loadGameNow(id, { quiet });
    }
    sayError(err, 'Could not load the game');
    if (err.status === 404) {
      stopLive();
      history.replaceState(null, '', location.pathname + location.search);
      dispatch({ type: 'game/gone' });
    }
    return false;
  }
  let records = [];
  try {
    // The history is a nicety; the board is what matters.
    records = asRecords(await fetchPlays(id, app.token), data.status, id);
  } catch { /* drawn without it */ }
  takeIn(data, records);
  await refreshLegal();
  dispatch({ type: 'game/shown' });
  if (!quiet) say(app.you === null || app.you === undefined ? 'Watching this game as a spectator.' : 'Game resumed.');
  return true;
}

/** Our legal plays, when it is our turn (GET /legal's first page). */
export async function refreshLegal() {
  if (!myTurn()) {
    if (app.legal.length || app.legalTotal) dispatch({ type: 'legal', plays: [], total: 0 });
    return;
  }
  const version = app.version;
  try {
    const { data } = await api('GET', `/games/${encodeURIComponent(app.id)}/legal`, { token: app.token });
    const plays = Array.isArray(data && data.plays) ? data.plays : [];
    const total = Number.isInteger(data && data.total) ? data.total : plays.length;
    // The same plays again (after a refusal): nothing to draw anew.
    if (app.version === version && !(total === app.legalTotal && same(plays, app.legal))) dispatch({ type: 'legal', plays, total });
  } catch (err) {
    sayError(err, 'Could not fetch the legal plays');
  }
}

/** Stop following the game (the page left it, or a new one replaces it). */
export function stopLive() {
  clearTimeout(refreshTimer);
  refreshTimer = null;
  if (live) live.stop();
  live = null;
  setConnection(null);
}

/** Follow the shown game's event stream while it runs: start the stream if
 *  none follows this game (with this token), stop it once the game is over.
 *  Called whenever a game document is taken in and when the page is shown
 *  again; never more than one stream per tab. */
export function syncLive() {
  const want = app.id && app.status && !app.status.over && !leaving;
  if (live && (!want || live.id !== app.id || live.token !== app.token)) stopLive();
  if (!want || live) return;
  const id = app.id;
  const token = app.token;
  live = followGame({
    id,
    token,
    onNews: () => refreshFromServer(id),
    // the version the take-back wrote: a tab that shows it already (its own) reads nothing again
    onRewind: (d) => { if (app.id === id) rewound = d && Number.isInteger(d.version) ? d.version : Infinity; },
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

// The browser knows when it goes off line: say so at once, and try again as
// soon as it is back.
if (typeof window !== 'undefined') {
  window.addEventListener('offline', () => { if (live) goneOffline(); });
  window.addEventListener('online', () => {
    if (!live) return;
    if (live.connected) setConnection('live'); // the stream held on throughout
    else live.reconnect();
  });
}

/** Something happened in the game: fetch the view (304 when nothing changed
 *  for us) and the plays since the last one known, and show them: one at a
 *  time when there are several (core/playback.js), as after a move. */
export async function refreshFromServer(id = app.id) {
  if (!id || id !== app.id) return;
  if (app.busy || refreshing) {
    // A play is under way (its reply brings the view) or a refresh is: look again after it.
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => refreshFromServer(id), 150);
    return;
  }
  if (rewound) { // plays were taken back: the log is read again whole (unless this tab took them back)
    const at = rewound;
    rewound = 0;
    if (at !== tookBack) {
      dispatch({ type: 'log/cut', from: -Infinity });
      await loadGame(id, { quiet: true });
      return;
    }
  }
  refreshing = true;
  try {
    const res = await api('GET', `/games/${encodeURIComponent(id)}`, {
      token: app.token, headers: { 'If-None-Match': `"${app.version}"` },
    });
    if (id !== app.id) return;
    if (app.busy) { refreshTimer = setTimeout(() => refreshFromServer(id), 150); return; }
    if (res.status === 200 && res.data && res.data.version !== app.version) {
      const wasMyTurn = myTurn();
      beginUpdate();
      try {
        const known = lastN(app.log);
        let records = [];
        try { records = asRecords(await fetchPlays(id, app.token, known), res.data.status, id); } catch { /* the view will do */ }
        if (id !== app.id) return;
        takeIn(res.data, records, app.log.size ? toPlayBack(records) : []);
        await refreshLegal();
      } finally {
        endUpdate();
      }
      afterPlayback(() => {
        if (app.id !== id) return;
        if (app.status && app.status.over) say(''); // the result: the summary's (core/summary.js)
        else if (myTurn() && !wasMyTurn) say('Your turn.');
      });
    }
  } catch {
    // Transient; the next event or the fallback poll looks again.
  } finally {
    refreshing = false;
  }
}

// ---------------------------------------------------------------------------
// Playing

/** Send `play`; `anchor` is the place (a data-testid on the board) it was
 *  aimed at, where a refusal is shown (core/verdict.js). */
export async function sendPlay(play, anchor = null) {
  if (app.busy) return;
  if (app.playback) endPlayback(); // the live table first: never a play on a past position
  if (!myTurn()) { say('It is not your turn.', 'error'); return; }
  if (connectionLost()) {
    say('Not sent: the connection to the server is lost, so nothing was played. Make your play again once the table says "Live".', 'error', { net: true });
    return;
  }
  const id = app.id;
  // Advice or news about the position left behind is stale once the play is sent.
  if (app.message.text && (app.message.kind === 'hint' || app.message.kind === 'info')) say('');
  dispatch({ type: 'play', on: true });
  beginUpdate();
  let verdict = null; // a refusal, drawn with the end of the play (one drawing: the table holds still after it)
  try {
    const { data } = await api('POST', `/games/${encodeURIComponent(id)}/plays`, {
      token: app.token, body: { play }, headers: { 'If-Match': `"${app.version}"` },
    });
    const records = withExplanations(data.applied || [], id);
    const mine = records.filter((r) => r.seat === app.you).length;
    const others = records.length - mine;
    // The person's play, then the others' one by one, when others follow.
    takeIn(data, records, others > 0 ? toPlayBack(records) : []);
    await refreshLegal();
    // Said once the board shows where the game stands (after a playback).
    afterPlayback(() => {
      if (app.id !== id) return;
      if (app.status && app.status.over) say(''); // the result: the summary's (core/summary.js)
      else if (others > 0 && myTurn()) say(`The bots played ${others} time${others === 1 ? '' : 's'}; your turn again.`);
    });
  } catch (err) {
    verdict = await handlePlayError(err, anchor);
  } finally {
    dispatch({ type: 'play', on: false, verdict });
    endUpdate();
  }
}

/** Send `play`, aimed at the place `anchor` (a data-testid on the board):
 *  a refusal is shown there. */
export function attempt(play, anchor) {
  return sendPlay(play, anchor || null);
}

/** Say why a play failed, and what to do; resolves to the server's verdict
 *  of a refused play (to be shown by its place), or null. */
async function handlePlayError(err, anchor) {
  const st = err.status;
  if (st === 412) {
    await loadGame(app.id, { quiet: true });
    say('The game had moved on since your last view, so it was reloaded. Please choose your play again.', 'error');
  } else if (st === 409) {
    await loadGame(app.id, { quiet: true });
    sayError(err);
  } else if (st === 422) {
    // The server's verdict, in words next to the place aimed at (core/verdict.js) and in the live message bar.
    const v = verdictOf(err, anchor);
    say(verdictText(v), 'error');
    await refreshLegal();
    return v;
  } else if (st === 0) {
    // No answer: the play may or may not have reached the server. The table
    // shows which once the connection is back (the stream refreshes it).
    say('Your play could not be sent: the server did not answer. Once the connection is back the table shows whether it was made.', 'error', { net: true });
  } else if (st === 401) {
    sayError(err, 'Your seat token was not accepted');
  } else {
    sayError(err, 'The play failed');
  }
  return null;
}

/** The newest play of the log is ours and kept the turn going: the table
 *  may take it back (its `takesBack`; the server says whether it may). */
export function canTakeBack(s = app) {
  const r = renderer();
  if (!r.takesBack || !s.status || s.status.over || s.busy || s.you === null || s.you === undefined) return false;
  if (s.status.current !== s.you) return false;
  const last = [...s.log.values()].at(-1); // the log holds its records in the order they were made
  return !!last && last.seat === s.you && !last.turn_ending;
}

/** Take back our last play (DELETE /games/{id}/plays/last): the table as
 *  it was before it, or the server's reason why not. */
export async function takeBack() {
  if (app.playback) endPlayback();
  if (!canTakeBack() || app.busy) return;
  const id = app.id;
  dispatch({ type: 'play', on: true });
  beginUpdate();
  try {
    const { data } = await api('DELETE', `/games/${encodeURIComponent(id)}/plays/last`, {
      token: app.token, headers: { 'If-Match': `"${app.version}"` },
    });
    if (app.id !== id) return;
    tookBack = data.version;
    dispatch({ type: 'log/cut', from: data.undone.n });
    takeIn(data, []);
    await refreshLegal();
    const r = renderer();
    const what = r.describePlay ? r.describePlay(data.undone.play, app.you) : 'the play';
    say(`Taken back: ${what}.`, 'info');
  } catch (err) {
    if (err.status === 412) await loadGame(id, { quiet: true });
    sayError(err, 'Could not take the play back');
  } finally {
    dispatch({ type: 'play', on: false });
    endUpdate();
  }
}

export async function askHint() {
  if (app.playback) endPlayback();
  if (!myTurn() || app.busy) return;
  try {
    const { data } = await api('GET', `/games/${encodeURIComponent(app.id)}/hint`, { token: app.token });
    dispatch({ type: 'hint', hint: data });
    const r = renderer();
    const what = r.describePlay ? r.describePlay(data.play, app.you, { forHint: true }) : JSON.stringify(data.play);
    say(`Hint: ${advice(what, data.explanation, { seat: app.you, now: true })}`, 'hint');
  } catch (err) {
    sayError(err, 'No hint available');
  }
}
