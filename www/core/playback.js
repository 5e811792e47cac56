// The bots' moves played back as moves, one at a time. A play's reply
// (`applied`) holds the person's play and every bot play up to their next
// turn, and a live event brings a friend's plays (or this seat's, from
// another tab); rather than the end only, the board shows the position after
// each of them in turn, STEP ms apart (faster at 2x or 4x), with the seat
// that moved and what moved marked (core/board.js), and ends on the live
// table, whose last move stays marked. The page keeps no rules: the position
// after play n is the server's GET /games/{id}?at=n, as this reader may see
// it, fetched one after the other ahead of the one shown (a few ms each;
// ~50 ms late in a game 400 plays long: docs/web-page.md); the last is the
// live view itself, fetched already. A reader who prefers reduced motion, a hidden tab, a single play
// and more than MOST plays at once (a whole bots' game) get the end at once.
//
// While a playback runs the board is aria-busy (core/render.js), so a screen
// reader and the browser tests read it once it is over. A click on the
// board, Escape, Skip or a play sent ends it first: nothing is ever played
// on a position that is not the live one.

import { api } from './api.js';
import { byId, h } from './dom.js';
import { lastRecord, logUpTo } from './board.js';
import { app, dispatch, pref, renderer, seatName, setPref } from './state.js';

const STEP = 500;             // ms each play stays on the board, at 1x
const SPEEDS = ['1', '2', '4'];
const MOST = 40;              // at most this many plays at once are played back

let timer = null;             // the next step
let shownAt = 0;              // when the play on the board was shown
let fetching = false;         // positions are being fetched
let then = [];                // what waits for the end (a game-over message)

/** Playback speed: 1, 2 or 4 (this browser's setting). */
function speed() {
  const v = pref('playback.speed', '1');
  return SPEEDS.includes(v) ? Number(v) : 1;
}

const reduced = () => typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

/** The records of `records` to play back one at a time: all of them (those
 *  with a number) when a playback runs already, or when there are at least
 *  two to show and a reader to see them; else none (the live table shows
 *  the last, marked). */
export function toPlayBack(records) {
  const rs = (Array.isArray(records) ? records : []).filter((r) => r && typeof r.n === 'number');
  if (app.playback) return rs.slice(0, MOST);
  if (rs.length < 2 || rs.length > MOST || reduced()) return [];
  if (typeof document !== 'undefined' && document.visibilityState === 'hidden') return [];
  return rs;
}

/** Start (or go on with) the playback queued by the last game/view. */
export function runPlayback() {
  fetchPositions();
  pump();
}

/** Do `f` once the playback is over (now, when none runs). */
export function afterPlayback(f) {
  if (app.playback) then.push(f); else f();
}

/** What waits for the end, once there is no playback (ended, or dropped
 *  with its game or by a replay opened). */
function afterEnd() {
  if (app.playback) return;
  clearTimeout(timer);
  timer = null;
  const fns = then;
  then = [];
  for (const f of fns) f();
}

/** The record `rec` is the live view's own (its last play). */
function isLive(rec) {
  const last = lastRecord(app.log);
  return !!last && last.n === rec.n;
}

/** The next step: show the next play once its time has come and its
 *  position is here, or end on the live table. */
function pump() {
  clearTimeout(timer);
  timer = null;
  const pb = app.playback;
  if (!pb) { afterEnd(); return; }
  const step = STEP / speed();
  if (pb.shown >= 0) {
    const wait = shownAt + step - Date.now();
    if (wait > 0) { timer = setTimeout(pump, wait); return; }
  }
  const next = pb.shown + 1;
  const last = pb.records.length - 1;
  if (next > last || (next === last && isLive(pb.records[last]))) { endPlayback(); return; }
  if (!pb.views[pb.records[next].n]) return; // fetchPositions() calls again
  dispatch({ type: 'playback/show', i: next });
  shownAt = Date.now();
  timer = setTimeout(pump, step);
}

/** Fetch the positions to show, in order, one at a time. */
async function fetchPositions() {
  if (fetching) return;
  fetching = true;
  try {
    for (;;) {
      const pb = app.playback;
      if (!pb) { afterEnd(); return; }
      const last = pb.records.length - 1;
      const k = pb.records.findIndex((r, i) => !pb.views[r.n] && !(i === last && isLive(r)));
      if (k < 0) return;
      const { id, token } = app;
      const n = pb.records[k].n;
      const { data } = await api('GET', `/games/${encodeURIComponent(id)}?at=${n}`, { token });
      // The same game and reader: the position after play n is the same, whichever playback asked.
      if (!app.playback || app.id !== id || app.token !== token) { afterEnd(); return; }
      dispatch({ type: 'playback/view', n, view: { state: data.state, status: data.status } });
      pump();
    }
  } catch {
    endPlayback(); // a position the server did not give: the end, at once
  } finally {
    fetching = false;
  }
}

/** The live table again (Skip, a click on the board, Escape, a play). */
export function endPlayback() {
  if (app.playback) dispatch({ type: 'playback/end' });
  afterEnd();
}

/** Faster: 1x, 2x, 4x, then 1x again (kept for the next playbacks). */
export function faster() {
  const i = SPEEDS.indexOf(String(speed()));
  setPref('playback.speed', SPEEDS[(i + 1) % SPEEDS.length]);
  pump();
}

/** The play on the board now, or null; WAIT while the first position is on
 *  its way (the board keeps its last drawing meanwhile). */
export const WAIT = Object.freeze({ wait: true });
export function playbackFrame(s) {
  const pb = s.playback;
  if (!pb) return null;
  const rec = pb.shown >= 0 ? pb.records[pb.shown] : null;
  const view = rec ? pb.views[rec.n] : null;
  if (!view) return WAIT;
  return { rec, view, log: logUpTo(s.log, rec.n), index: pb.shown, count: pb.records.length };
}

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** The playback's bar in the game's heading (in place of the status line):
 *  which play is shown, Faster and Skip. */
export function drawPlayback(s) {
  const bar = byId('playback');
  const on = !!s.playback;
  bar.hidden = !on;
  byId('status').hidden = on;
  if (!on) return;
  const pb = s.playback;
  const frame = playbackFrame(s);
  let text = `Playing back ${pb.records.length} moves…`;
  if (frame !== WAIT) {
    const r = renderer();
    const rec = frame.rec;
    let what;
    try {
      what = r.describePlayNodes ? h('span', {}, r.describePlayNodes(rec.play, rec.seat, rec)).textContent : JSON.stringify(rec.play);
    } catch {
      what = JSON.stringify(rec.play);
    }
    text = `${seatName(rec.seat)}: ${what} · ${frame.index + 1} of ${frame.count}`;
  }
  setText(byId('playback-position'), text);
  const sp = speed();
  setText(byId('playback-faster'), `Faster (${sp}×)`);
  byId('playback-faster').setAttribute('aria-label', `Play back faster: now ${sp} times the normal speed`);
}

export function setupPlayback() {
  byId('playback-skip').addEventListener('click', () => endPlayback());
  byId('playback-faster').addEventListener('click', faster);
  // A click on the board while a playback runs shows the end, and does
  // nothing else (the controls by the hand excepted).
  byId('board').addEventListener('click', (ev) => {
    if (!app.playback) return;
    if (ev.target instanceof Element && ev.target.closest('[data-playback]')) return;
    ev.preventDefault();
    ev.stopPropagation();
    endPlayback();
  }, true);
  document.addEventListener('keydown', (ev) => {
    if (app.playback && ev.key === 'Escape') { ev.preventDefault(); ev.stopPropagation(); endPlayback(); }
  }, true);
}
