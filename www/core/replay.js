// Replay: step through a game move by move (#game=<id>&at=<n>, a shareable
// link: never a token in it). Each position is GET /games/{id}?at=N with this
// tab's token, so the server decides what the viewer may see then (a person
// only their own knowledge, every card once the game is over); the moves and
// the bots' explanations come from GET /games/{id}/plays. The game's own table
// draws each position, read-only (no legal plays, no selection).

import { api } from './api.js';
import { byId, h } from './dom.js';
import { refreshFromServer, refreshLegal } from './game.js';
import { render } from './render.js';
import { readable } from './log.js';
import { app, renderer, resultText, sayError, seatName } from './state.js';

/** The play number in the address (#...&at=N), or null. */
function atFromHash() {
  const m = /(?:^#|&)at=(-?\d{1,9})(?:&|$)/.exec(location.hash);
  return m ? Number(m[1]) : null;
}

const replayHash = (id, at) => `#game=${encodeURIComponent(id)}&at=${at}`;

/** All the plays the viewer may see, page by page. */
async function fetchPlays(id, token) {
  const plays = [];
  let after = -1;
  for (let guard = 0; guard < 100; guard++) {
    const { data } = await api('GET', `/games/${encodeURIComponent(id)}/plays?after=${after}&limit=1000`, { token });
    const page = (data && data.plays) || [];
    plays.push(...page);
    if (page.length < 1000) break;
    after = page[page.length - 1].n;
  }
  return plays;
}

/** The address names a replay: open it, move to its position, or close it.
 *  `loaded` is loadGame's answer when called after it (false: no such game). */
export async function syncReplay(loaded) {
  const at = atFromHash();
  if (at === null) { if (app.replay) closeReplay(); return; }
  if (loaded === false || !app.id || !app.state) return;
  if (app.replay && app.replay.id === app.id) { await showAt(at); return; }
  await openReplay(at);
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
  app.replay = { id, token, plays, views: new Map(), at: null, pos: -1, seq: 0 };
  byId('game').hidden = true;
  byId('replay').hidden = false;
  byId('replay-title').textContent = `Replay: ${byId('game-title').textContent}`;
  const slider = byId('replay-slider');
  slider.min = '-1';
  slider.max = String(plays.length - 1);
  buildList();
  await showAt(at);
  byId('replay-next').focus();
}

function closeReplay() {
  if (!app.replay) return;
  app.replay = null;
  byId('replay').hidden = true;
  // The replayed table's test ids must not linger beside the live table's.
  byId('replay-board').replaceChildren();
  byId('replay-list').replaceChildren();
  byId('replay-tools').replaceChildren();
  byId('game').hidden = false;
  // The legal plays were not fetched while replaying (myTurn() is false then).
  refreshLegal().then(() => { render(); refreshFromServer(); });
}

/** The list of every move, each a button that jumps to it. */
function buildList() {
  const rp = app.replay;
  const r = renderer();
  const ol = byId('replay-list');
  ol.replaceChildren(h('li', {}, h('button', { type: 'button', class: 'replay-jump', 'data-testid': 'replay-item--1', onclick: () => go(-1) }, 'The deal')),
    ...rp.plays.map((rec, i) => h('li', {}, h('button', {
      type: 'button', class: `replay-jump${rec.seat === app.you ? ' mine' : ''}`, 'data-testid': `replay-item-${rec.n}`, onclick: () => go(i),
    }, h('span', { class: 'replay-n' }, `${i + 1}.`), ' ', h('span', { class: 'log-who' }, seatName(rec.seat)), ' ', describe(r, rec)))));
}

function describe(r, rec) {
  try {
    return r.describePlayNodes ? r.describePlayNodes(rec.play, rec.seat, rec) : JSON.stringify(rec.play);
  } catch {
    return JSON.stringify(rec.play);
  }
}

/** Go to the position after plays[i] (-1: the deal). */
function go(i) {
  const rp = app.replay;
  if (!rp) return;
  const k = Math.max(-1, Math.min(rp.plays.length - 1, i));
  const at = k < 0 ? -1 : rp.plays[k].n;
  history.replaceState(null, '', replayHash(rp.id, at));
  showAt(at);
}

function step(delta) {
  const rp = app.replay;
  if (!rp) return;
  go(rp.pos + delta);
}

/** Show the game as it was after play number `at`. */
async function showAt(at0) {
  const rp = app.replay;
  let pos = -1;
  if (at0 >= 0) {
    // The position of the last play numbered at most at0.
    for (let i = rp.plays.length - 1; i >= 0; i--) if (rp.plays[i].n <= at0) { pos = i; break; }
  }
  const at = pos < 0 ? -1 : rp.plays[pos].n;
  rp.pos = pos;
  rp.at = at;
  const seq = ++rp.seq;
  updateControls(pos);
  let view = rp.views.get(at);
  if (!view) {
    try {
      const { data } = await api('GET', `/games/${encodeURIComponent(rp.id)}?at=${at}`, { token: rp.token });
      view = data;
      rp.views.set(at, view);
    } catch (err) {
      sayError(err, 'Could not replay that position');
      return;
    }
  }
  if (app.replay !== rp || seq !== rp.seq) return; // a later step overtook this one
  drawPosition(view, pos);
}

function updateControls(pos) {
  const rp = app.replay;
  const n = rp.plays.length;
  byId('replay-first').disabled = pos <= -1;
  byId('replay-prev').disabled = pos <= -1;
  byId('replay-next').disabled = pos >= n - 1;
  // A running game may have moved on: Last looks for new plays then.
  byId('replay-last').disabled = pos >= n - 1 && !!(app.status && app.status.over);
  const slider = byId('replay-slider');
  slider.value = String(pos);
  slider.setAttribute('aria-valuetext', pos < 0 ? 'the deal' : `move ${pos + 1} of ${n}`);
  byId('replay-position').textContent = pos < 0 ? `The deal · ${n} move${n === 1 ? '' : 's'}` : `Move ${pos + 1} of ${n}`;
  for (const b of byId('replay-list').querySelectorAll('.replay-jump.current')) { b.classList.remove('current'); b.removeAttribute('aria-current'); }
  const cur = byId('replay-list').querySelector(`[data-testid="replay-item-${pos < 0 ? -1 : rp.plays[pos].n}"]`);
  if (cur) {
    cur.classList.add('current');
    cur.setAttribute('aria-current', 'step');
    const list = byId('replay-list');
    const top = cur.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - cur.offsetHeight) list.scrollTop = Math.max(0, top - list.clientHeight / 2);
  }
}

/** Draw a past view with the game's table, read-only. */
function drawPosition(view, pos) {
  const rp = app.replay;
  const r = renderer();
  const rec = pos >= 0 ? rp.plays[pos] : null;
  // The tables read the global app (state, legal plays, selection): lend them
  // the past view for the length of one drawing. myTurn() is false in a replay.
  const saved = { state: app.state, status: app.status, legal: app.legal, selection: app.selection, hint: app.hint, log: app.log };
  let board;
  let move;
  try {
    // The history up to this position, as the log the table reads.
    const log = new Map(rp.plays.slice(0, pos + 1).map((rec) => [rec.n, rec]));
    Object.assign(app, { state: view.state, status: view.status, legal: [], selection: null, hint: null, log });
    board = r.render(app);
    move = rec ? describe(r, rec) : null;
  } finally {
    Object.assign(app, saved);
  }
  const st = view.status || {};
  const status = st.over ? resultText(view.state, st)
    : (st.current !== null && st.current !== undefined ? `${seatName(st.current)} to play next` : '');
  const el = byId('replay-board');
  el.dataset.game = app.game;
  el.dataset.at = String(rp.at);
  el.replaceChildren(board);
  byId('replay-status').textContent = [r.statusExtra && view.state && !st.over ? r.statusExtra(view.state) : '', status].filter(Boolean).join(' · ');
  byId('replay-move').replaceChildren(...(rec
    ? [h('span', { class: 'log-who' }, seatName(rec.seat)), ' ', h('span', { 'data-testid': 'replay-move-text' }, move)]
    : ['The deal: no play yet.']));
  const why = byId('replay-explanation');
  why.textContent = rec && rec.explanation ? readable(rec.explanation) : (rec ? 'No explanation: a person made this play.' : '');
  why.classList.toggle('muted', !(rec && rec.explanation));
  const atEnd = pos === rp.plays.length - 1 && st.over;
  byId('replay-end').replaceChildren(...(atEnd && r.finalHands ? [r.finalHands(view.state)].filter(Boolean) : []));
  // The table's own tools for this position (Hanabi: hypotheticals).
  const tools = r.replayTools ? r.replayTools({ id: rp.id, at: rp.at, pos, plays: rp.plays, state: view.state }) : null;
  byId('replay-tools').replaceChildren(...(tools ? [tools] : []));
}

export function setupReplay() {
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
        if (app.replay === rp && plays.length > rp.plays.length) {
          rp.plays = plays;
          byId('replay-slider').max = String(plays.length - 1);
          buildList();
        }
      } catch { /* the plays known will do */ }
    }
    go(rp.plays.length - 1);
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
