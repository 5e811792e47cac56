// Replay: step through a game move by move (#game=<id>&at=<n>, a shareable
// link: never a token in it). Each position is GET /games/{id}?at=N with this
// tab's token, so the server decides what the viewer may see then (a person
// only their own knowledge, every card once the game is over); the moves and
// the bots' explanations come from GET /games/{id}/plays. The game's own table
// draws each position, read-only (no legal plays, no selection): the state
// holds the replay (its plays, the position asked for, the view drawn), and
// drawReplay() draws it.

import { api } from './api.js';
import { byId, h } from './dom.js';
import { drawTable, drawingKey, logUpTo, sameKey, tableContext } from './board.js';
import { refreshFromServer, refreshLegal } from './game.js';
import { botSays, fetchPlays, readable } from './log.js';
import { drawShared, following, followTail, leaderMoved, setupShared, stopShared, syncShared } from './sharedreplay.js';
import { app, dispatch, renderer, resultText, sayError, seatName } from './state.js';

/** The play number in the address (#...&at=N), or null. */
function atFromHash() {
  const m = /(?:^#|&)at=(-?\d{1,9})(?:&|$)/.exec(location.hash);
  return m ? Number(m[1]) : null;
}

const replayHash = (id, at) => `#game=${encodeURIComponent(id)}&at=${at}${followTail()}`;

/** The positions fetched since the replay was opened, by play number (a
 *  past position changes once: every card shows when the game is over). */
let views = new Map();

/** The address names a replay: open it, move to its position, or close it.
 *  `loaded` is loadGame's answer when called after it (false: no such game). */
export async function syncReplay(loaded) {
  const at = atFromHash();
  if (at === null) { if (app.replay) closeReplay(); return; }
  if (loaded === false || !app.id || !app.state) return;
  if (app.replay && app.replay.id === app.id) { await showAt(at); syncShared(); return; }
  await openReplay(at);
  syncShared(); // a shared replay in the address: follow or lead it
}

async function openReplay(at) {
  const id = app.id;
  const token = app.token || null; // loadGame took this browser's token for the game (core/seats.js)
  let plays;
  try {
    plays = await fetchPlays(id, token);
  } catch (err) {
    sayError(err, 'Could not load the plays to replay');
    return;
  }
  if (app.id !== id) return;
  views = new Map();
  dispatch({ type: 'replay/open', id, token, plays });
  await showAt(at);
  byId('replay-next').focus();
}

function closeReplay() {
  if (!app.replay) return;
  stopShared();
  dispatch({ type: 'replay/close' });
  // The legal plays were not fetched while replaying (myTurn() is false then).
  refreshLegal().then(() => refreshFromServer());
}

/** Go to the position after plays[i] (-1: the deal). */
function go(i) {
  const rp = app.replay;
  if (!rp || following()) return; // a follower's steps are the leader's
  const k = Math.max(-1, Math.min(rp.plays.length - 1, i));
  const at = k < 0 ? -1 : rp.plays[k].n;
  history.replaceState(null, '', replayHash(rp.id, at));
  showAt(at);
  leaderMoved(at);
}

/** A shared replay's leader showed play `at`: this follower shows it too. */
function follow(at) {
  const rp = app.replay;
  if (!rp) return;
  history.replaceState(null, '', replayHash(rp.id, at));
  showAt(at);
}

function step(delta) {
  const rp = app.replay;
  if (!rp) return;
  go(rp.pos + delta);
}

/** Show the game as it was after play number `at0` (the last play numbered
 *  at most that). The position's label moves at once; its board once here. */
async function showAt(at0) {
  dispatch({ type: 'replay/at', at: at0 });
  const rp = app.replay;
  const key = rp.at;
  if (!views.has(key)) {
    try {
      const { data } = await api('GET', `/games/${encodeURIComponent(rp.id)}?at=${rp.at}`, { token: rp.token });
      views.set(key, data);
    } catch (err) {
      sayError(err, 'Could not replay that position');
      return;
    }
  }
  // A later step overtakes this one: the state takes the view of the position asked for last.
  dispatch({ type: 'replay/view', at: rp.at, view: views.get(key) });
}

function describe(r, rec) {
  try {
    return r.describePlayNodes ? r.describePlayNodes(rec.play, rec.seat, rec) : JSON.stringify(rec.play);
  } catch {
    return JSON.stringify(rec.play);
  }
}

let drawnPlays = null;   // the move list drawn
let drawnKey = null;     // what the board was drawn from

/** The list of every move, each a button that jumps to it. */
function drawList(rp) {
  if (drawnPlays === rp.plays) return;
  drawnPlays = rp.plays;
  const r = renderer();
  byId('replay-list').replaceChildren(h('li', {}, h('button', { type: 'button', class: 'replay-jump', 'data-testid': 'replay-item--1', onclick: () => go(-1) }, 'The deal')),
    ...rp.plays.map((rec, i) => h('li', {}, h('button', {
      type: 'button', class: `replay-jump${rec.seat === app.you ? ' mine' : ''}`, 'data-testid': `replay-item-${rec.n}`, onclick: () => go(i),
    }, h('span', { class: 'replay-n' }, `${i + 1}.`), ' ', h('span', { class: 'log-who' }, seatName(rec.seat)), ' ', describe(r, rec)))));
}

function drawControls(s, rp) {
  const pos = rp.pos;
  const n = rp.plays.length;
  const led = !!(s.shared && !s.shared.lead && !s.shared.alone); // the steps are the leader's
  byId('replay-first').disabled = led || pos <= -1;
  byId('replay-prev').disabled = led || pos <= -1;
  byId('replay-next').disabled = led || pos >= n - 1;
  // A running game may have moved on: Last looks for new plays then.
  byId('replay-last').disabled = led || (pos >= n - 1 && !!(s.status && s.status.over));
  byId('replay-list').classList.toggle('replay-led', led);
  const slider = byId('replay-slider');
  slider.disabled = led;
  slider.min = '-1';
  slider.max = String(n - 1);
  slider.value = String(pos);
  slider.setAttribute('aria-valuetext', pos < 0 ? 'the deal' : `move ${pos + 1} of ${n}`);
  const label = pos < 0 ? `The deal · ${n} move${n === 1 ? '' : 's'}` : `Move ${pos + 1} of ${n}`;
  if (byId('replay-position').textContent !== label) byId('replay-position').textContent = label;
  const list = byId('replay-list');
  const cur = list.querySelector(`[data-testid="replay-item-${pos < 0 ? -1 : rp.plays[pos].n}"]`);
  const was = list.querySelector('.replay-jump.current');
  if (cur === was) return;
  if (was) { was.classList.remove('current'); was.removeAttribute('aria-current'); }
  if (cur) {
    cur.classList.add('current');
    cur.setAttribute('aria-current', 'step');
    const top = cur.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - cur.offsetHeight) list.scrollTop = Math.max(0, top - list.clientHeight / 2);
  }
}

/** Draw the position shown with the game's table, read-only, and its move. */
function drawPosition(s, rp) {
  const view = rp.view;
  const r = renderer();
  const pos = rp.plays.findIndex((x) => x.n === rp.viewAt);
  const rec = pos >= 0 ? rp.plays[pos] : null;
  // The history up to this position, as the log the table reads.
  const log = logUpTo(replayLog(rp.plays), rp.viewAt);
  const a = tableContext(s, { view, log, mode: 'replay', moved: rec });
  const key = drawingKey(r, a);
  if (sameKey(key, drawnKey)) return;
  drawnKey = key;
  const st = view.status || {};
  const status = st.over ? resultText(view.state, st)
    : (st.current !== null && st.current !== undefined ? `${seatName(st.current)} to play next` : '');
  const el = byId('replay-board');
  el.dataset.game = s.game;
  el.dataset.at = String(rp.viewAt);
  el.replaceChildren(drawTable(r, a));
  byId('replay-move').replaceChildren(...(rec
    ? [h('span', { class: 'log-who' }, seatName(rec.seat)), ' ', h('span', { 'data-testid': 'replay-move-text' }, describe(r, rec))]
    : ['The deal: no play yet.']));
  const why = byId('replay-explanation');
  why.textContent = rec && rec.explanation ? readable(botSays(rec.explanation), { seat: rec.seat, n: rec.n, records: rp.plays }) : (rec ? 'No explanation: a person made this play.' : '');
  why.classList.toggle('muted', !(rec && rec.explanation));
  const atEnd = pos === rp.plays.length - 1 && st.over;
  byId('replay-end').replaceChildren(...(atEnd && r.finalHands ? [r.finalHands(view.state)].filter(Boolean) : []));
  // The table's own tools for this position (hypotheticals, say). When
  // they show a position of their own (data-replaces), the replay's board
  // steps aside and the status line is theirs (data-status).
  const tools = r.replayTools ? r.replayTools({ id: rp.id, at: rp.viewAt, pos, plays: rp.plays, state: view.state, table: s.table }) : null;
  byId('replay-tools').replaceChildren(...(tools ? [tools] : []));
  const replaces = !!(tools && tools.dataset && tools.dataset.replaces === 'true');
  byId('replay-board').closest('.game-body').hidden = replaces;
  const status0 = [r.statusExtra && view.state && !st.over ? r.statusExtra(view.state) : '', status].filter(Boolean).join(' · ');
  byId('replay-status').textContent = replaces ? tools.dataset.status || '' : status0;
  byId('replay-status').classList.toggle('replay-status-tools', replaces);
}

/** The plays of a replay as a log (n -> record), one per plays list. */
const logs = new WeakMap();
function replayLog(plays) {
  if (!logs.has(plays)) logs.set(plays, new Map(plays.map((rec) => [rec.n, rec])));
  return logs.get(plays);
}

/** The replay section, from the state's replay (hidden when there is none). */
export function drawReplay(s) {
  const rp = s.replay;
  const section = byId('replay');
  if (!rp) {
    if (!section.hidden) {
      section.hidden = true;
      // The replayed table's test ids must not linger beside the live table's.
      byId('replay-board').replaceChildren();
      byId('replay-list').replaceChildren();
      byId('replay-tools').replaceChildren();
      byId('replay-board').closest('.game-body').hidden = false;
    }
    drawnPlays = null;
    drawnKey = null;
    return;
  }
  section.hidden = false;
  const title = `Replay: ${byId('game-title').textContent}`;
  if (byId('replay-title').textContent !== title) byId('replay-title').textContent = title;
  drawList(rp);
  drawControls(s, rp);
  drawShared(s);
  if (rp.view) drawPosition(s, rp);
}

export function setupReplay() {
  setupShared({ show: follow });
  byId('replay-first').addEventListener('click', () => go(-1));
  byId('replay-prev').addEventListener('click', () => step(-1));
  byId('replay-next').addEventListener('click', () => step(1));
  byId('replay-last').addEventListener('click', async () => {
    const rp = app.replay;
    if (!rp) return;
    // A running game may have moved on: look for new plays first.
    if (app.status && !app.status.over) {
      try {
        const plays = await fetchPlays(rp.id, rp.token);
        if (app.replay && app.replay.id === rp.id && plays.length > app.replay.plays.length) dispatch({ type: 'replay/plays', plays });
      } catch { /* the plays known will do */ }
    }
    if (app.replay) go(app.replay.plays.length - 1);
  });
  byId('replay-slider').addEventListener('input', (ev) => go(Number(ev.target.value)));
  byId('replay-exit').addEventListener('click', () => {
    history.replaceState(null, '', `#game=${encodeURIComponent(app.id)}`);
    closeReplay();
    byId('replay-button').focus();
  });
  byId('replay-button').addEventListener('click', () => { location.hash = replayHash(app.id, -1); });
  // The table's own buttons do nothing in a replay: stop clicks before them
  // (folded help, <details>, still opens).
  byId('replay-board').addEventListener('click', (ev) => {
    if (ev.target.closest('button, input, select, a')) { ev.stopPropagation(); ev.preventDefault(); }
  }, true);
  document.addEventListener('keydown', (ev) => {
    if (!app.replay || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    const t = ev.target;
    if (t && (t.id === 'replay-slider' || /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName) || t.isContentEditable)) return;
    if (byId('rules-dialog').open) return;
    if (ev.key === 'ArrowLeft') { ev.preventDefault(); step(-1); } else if (ev.key === 'ArrowRight') { ev.preventDefault(); step(1); } else if (ev.key === 'Home') { ev.preventDefault(); go(-1); } else if (ev.key === 'End') { ev.preventDefault(); byId('replay-last').click(); }
  });
}
