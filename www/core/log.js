// The play log and the bots' explanations.

import { byId, h } from './dom.js';
import { app, playerWords, renderer, seatName } from './state.js';

// Log

/** History records may lack turn_ending: a play ended its turn when the next
 *  play is another seat's (or, for the last one, when the turn has passed). */
export function markTurnEnds(records) {
  return records.map((rec, i) => {
    if (rec.turn_ending !== undefined) return rec;
    const next = records[i + 1];
    const s = app.status || {};
    const ended = next ? next.seat !== rec.seat : (s.over || s.current !== rec.seat);
    return { ...rec, turn_ending: ended };
  });
}

/** The history (GET /plays) carries no bot explanations, only the replies to
 *  POST /plays do: keep the ones this tab has seen, so a reload still shows them. */
const EXPL_KEY = (id) => `croupier.explanations.${id}`;
function explanationCache() {
  try { return JSON.parse(sessionStorage.getItem(EXPL_KEY(app.id)) || '{}') || {}; } catch { return {}; }
}

export function addLog(records) {
  if (!Array.isArray(records)) return;
  const ol = byId('log');
  let added = false;
  const cache = explanationCache();
  let cacheChanged = false;
  records.forEach((rec0, i) => {
    let rec = rec0;
    if (rec.n !== undefined) {
      if (rec.explanation && cache[rec.n] !== rec.explanation) { cache[rec.n] = rec.explanation; cacheChanged = true; }
      else if (!rec.explanation && cache[rec.n]) rec = { ...rec, explanation: cache[rec.n] };
    }
    const n = rec.n !== undefined ? rec.n : `x${app.log.size + i}`;
    if (app.log.has(n)) return;
    app.log.set(n, rec);
    ol.append(logEntry(rec, n));
    added = true;
  });
  if (cacheChanged) {
    try { sessionStorage.setItem(EXPL_KEY(app.id), JSON.stringify(cache)); } catch { /* full: not worth an error */ }
  }
  if (added) ol.scrollTop = ol.scrollHeight;
}

/** A bot's explanation or a server's reason as the table says it: card
 *  codes in words ("10♥") and players by name (core/numbering.js). */
export function readable(text) {
  const r = renderer();
  return playerWords(r.explainText ? r.explainText(text) : text);
}

function logEntry(rec, n) {
  const r = renderer();
  const mine = rec.seat === app.you;
  const desc = r.describePlayNodes ? r.describePlayNodes(rec.play, rec.seat, rec) : [JSON.stringify(rec.play)];
  return h('li', { class: `log-entry${mine ? ' mine' : ''}${rec.turn_ending ? ' turn-end' : ''}`, 'data-testid': `log-entry-${n}`, dataset: { seat: rec.seat } },
    h('span', { class: 'log-who' }, seatName(rec.seat)),
    ' ',
    h('span', { class: 'log-play', 'data-testid': 'log-play' }, desc),
    rec.turn_ending ? h('span', { class: 'badge', 'data-testid': 'log-turn-end' }, 'turn ends') : null,
    rec.explanation ? h('span', { class: 'log-why', 'data-testid': 'log-explanation' }, readable(rec.explanation)) : null,
    r.logExtra ? r.logExtra(rec) : null);
}
