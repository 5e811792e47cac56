// Drawing a game's table: the context a table's render() is handed (the
// live game, a replayed position, a position played back), and what core
// adds to every drawing: the move the position shows marked (the seat that
// made it, and the places it touched, which the table names: its
// moveMarks(rec, a) hook) and each seat's last move, in words, by its name.

import { h } from './dom.js';
import { app, myTurn } from './state.js';

/** The records of `log` (n -> record) up to play number `n`, as a log: one
 *  Map per (log, n), so that drawing the same position twice is the same
 *  drawing. */
const upTo = new WeakMap();
export function logUpTo(log, n) {
  let byN = upTo.get(log);
  if (!byN) { byN = new Map(); upTo.set(log, byN); }
  if (!byN.has(n)) byN.set(n, new Map([...log].filter(([, r]) => typeof r.n !== 'number' || r.n <= n)));
  return byN.get(n);
}

/** The last record of a log (the move the live table shows), or null. */
export function lastRecord(log) {
  let last = null;
  for (const r of log.values()) if (!last || typeof r.n !== 'number' || typeof last.n !== 'number' || r.n >= last.n) last = r;
  return last;
}

/**
 * What a table's render(a) is handed. `past`, for a position that is not
 * the live one: {view, log, mode: 'replay' | 'playback', moved}. A past
 * position is read-only: no legal plays, no selection, no hint, and
 * `myTurn` is false.
 */
export function tableContext(s = app, past = null) {
  const live = !past;
  const mine = live && myTurn();
  return {
    id: s.id, game: s.game, variant: s.variant, version: s.version, token: s.token, you: s.you, seats: s.seats,
    state: live ? s.state : past.view.state,
    status: live ? s.status : past.view.status,
    legal: mine ? s.legal : [],
    legalTotal: mine ? s.legalTotal : 0,
    selection: live ? s.selection : null,
    hint: live ? s.hint : null,
    busy: s.busy,
    verdict: live ? s.verdict : null,
    log: live ? s.log : past.log,
    mode: live ? 'live' : past.mode,
    myTurn: mine,
    moved: live ? lastRecord(s.log) : past.moved,
    message: s.message,
    table: s.table,
    prefs: s.prefs,
    rulesDocs: s.rulesDocs,
  };
}

/** What a drawing depends on: the same list twice, the same drawing. */
export function drawingKey(r, a) {
  return [r, a.id, a.version, a.you, a.seats, a.state, a.status, a.legal, a.legalTotal, a.selection, a.hint,
    a.busy, a.verdict, a.log, a.mode, a.myTurn, a.moved, a.table, a.prefs, a.rulesDocs];
}

export const sameKey = (x, y) => !!x && !!y && x.length === y.length && x.every((v, i) => v === y[i]);

/** The data-testid of a seat's area on a table (the table's seatArea hook). */
const areaOf = (r, seat) => (r.seatArea ? r.seatArea(seat) : `player-${seat}`);

function describe(r, rec) {
  try {
    return r.describePlayNodes ? r.describePlayNodes(rec.play, rec.seat, rec) : [JSON.stringify(rec.play)];
  } catch {
    return [JSON.stringify(rec.play)];
  }
}

/** Mark on `tree` the move `a.moved` shows: the seat's area ("moved-seat")
 *  and each place the table names ("moved"). */
function markMove(r, a, tree) {
  const rec = a.moved;
  if (!rec) return;
  const find = (id) => (id ? tree.querySelector(`[data-testid="${CSS.escape(id)}"]`) : null);
  const area = find(areaOf(r, rec.seat));
  if (area) area.classList.add('moved-seat');
  let places = [];
  try { places = r.moveMarks ? r.moveMarks(rec, a) || [] : []; } catch { places = []; }
  for (const id of places) {
    const el = find(id);
    if (el) { el.classList.add('moved'); el.dataset.moved = String(rec.n); }
  }
}

/** Each seat's last move, in words, in the heading of its area: there until
 *  the seat moves again. */
function lastMoves(r, a, tree) {
  const last = new Map();
  for (const rec of a.log.values()) if (rec && rec.seat !== undefined && rec.seat !== null) last.set(rec.seat, rec);
  for (const [seat, rec] of last) {
    const area = tree.querySelector(`[data-testid="${CSS.escape(areaOf(r, seat))}"]`);
    if (!area) continue;
    const nodes = describe(r, rec);
    const caption = h('span', { class: 'last-move', 'data-testid': `last-move-${seat}`, dataset: { n: rec.n } },
      h('span', { class: 'last-move-label' }, 'last: '), nodes);
    caption.title = `Last move: ${caption.textContent.replace(/^last: /, '')}`;
    const heading = area.querySelector('h3, h4');
    if (heading) heading.insertBefore(caption, [...heading.children].find((c) => c.tagName === 'BUTTON') || null);
    else area.prepend(caption);
  }
}

/** A table's drawing of context `a`, with core's marks. */
export function drawTable(r, a) {
  const tree = r.render(a);
  markMove(r, a, tree);
  lastMoves(r, a, tree);
  return tree;
}
