// Drawing a game's table: the context a table's render() is handed (the
// live game or a replayed position), and what makes two drawings the same.

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

/**
 * What a table's render(a) is handed. `past`, for a position that is not
 * the live one: {view, log, mode: 'replay'}. A past position is read-only:
 * no legal plays, no selection, no hint, and `myTurn` is false.
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
    message: s.message,
    table: s.table,
    prefs: s.prefs,
    rulesDocs: s.rulesDocs,
  };
}

/** What a drawing depends on: the same list twice, the same drawing. */
export function drawingKey(r, a) {
  return [r, a.id, a.version, a.you, a.seats, a.state, a.status, a.legal, a.legalTotal, a.selection, a.hint,
    a.busy, a.verdict, a.log, a.mode, a.myTurn, a.table, a.prefs, a.rulesDocs];
}

export const sameKey = (x, y) => !!x && !!y && x.length === y.length && x.every((v, i) => v === y[i]);

/** A table's drawing of context `a`. */
export function drawTable(r, a) {
  return r.render(a);
}
