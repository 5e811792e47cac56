// The play log and the bots' explanations: the records a game's history
// holds (fetched here), as the log draws them (the full record: a playback
// shows the plays on the board, the log has them all at once).

import { api } from './api.js';
import { byId, h } from './dom.js';
import { app, playerWords, renderer, seatName } from './state.js';

// Records

/** History records may lack turn_ending: a play ended its turn when the next
 *  play is another seat's (or, for the last one, when the turn has passed,
 *  as `status`, where the game stands now, says). */
export function markTurnEnds(records, status = app.status) {
  return records.map((rec, i) => {
    if (rec.turn_ending !== undefined) return rec;
    const next = records[i + 1];
    const s = status || {};
    const ended = next ? next.seat !== rec.seat : (s.over || s.current !== rec.seat);
    return { ...rec, turn_ending: ended };
  });
}

/** A history may carry no bot explanations where the replies to POST /plays
 *  did: keep the ones this tab has seen (sessionStorage), so a reload still
 *  shows them. Returns the records with the explanations known. */
const EXPL_KEY = (id) => `croupier.explanations.${id}`;
export function withExplanations(records, id = app.id) {
  if (!Array.isArray(records) || !records.length) return [];
  let cache;
  try { cache = JSON.parse(sessionStorage.getItem(EXPL_KEY(id)) || '{}') || {}; } catch { cache = {}; }
  let changed = false;
  const out = records.map((rec) => {
    if (rec.n === undefined) return rec;
    if (rec.explanation && cache[rec.n] !== rec.explanation) { cache[rec.n] = rec.explanation; changed = true; return rec; }
    return !rec.explanation && cache[rec.n] ? { ...rec, explanation: cache[rec.n] } : rec;
  });
  if (changed) {
    try { sessionStorage.setItem(EXPL_KEY(id), JSON.stringify(cache)); } catch { /* full: not worth an error */ }
  }
  return out;
}

/** The plays of game `id` after play number `after` that `token` may see,
 *  page by page (GET /games/{id}/plays?after=&limit=). */
export async function fetchPlays(id, token, after = -1) {
  const plays = [];
  let from = after;
  for (let guard = 0; guard < 100; guard++) {
    const { data } = await api('GET', `/games/${encodeURIComponent(id)}/plays?after=${from}&limit=1000`, { token });
    const page = (data && data.plays) || [];
    plays.push(...page);
    if (page.length < 1000) break;
    from = page[page.length - 1].n;
  }
  return plays;
}

/** A bot's explanation or a server's reason as the table says it: card
 *  codes in words ("10♥"), hand positions as the page numbers them and
 *  players by name. `move` ({seat, n, records}: who made the play, its number
 *  and the history it is in; {seat, now: true} for a hint on the present
 *  position) says whose words they are, for the table that needs it. */
export function readable(text, move) {
  const r = renderer();
  return playerWords(r.explainText ? r.explainText(text, move) : text);
}

const KEEP = new Set(['can', 'could', 'will', 'would', 'must', 'may', 'might', 'should', 'did', 'had', 'was', 'drew', 'took', 'went', 'gave', 'kept']);
const third = (v) => {
  if (KEEP.has(v) || /ed$/.test(v)) return v;
  if (v === 'have') return 'has';
  if (v === 'do' || v === 'go') return `${v}es`;
  if (/(s|sh|ch|x|z)$/.test(v)) return `${v}es`;
  if (/[^aeiou]y$/.test(v)) return `${v.slice(0, -1)}ies`;
  return `${v}s`;
};

/** A bot's explanation in the log's one voice: every bot speaks of itself
 *  as the log names it, in the third person ("clues Bob's 1s", "draws from
 *  the deck: the discard does not help its phase"), never "I", "my" or
 *  "The computer". The engines write their lines so; this keeps the games
 *  stored before they did ("I play my card 1: ...", "The computer drew
 *  ...") in the same voice when their log or replay is read. */
export function botSays(text) {
  if (typeof text !== 'string') return text;
  return text
    .replace(/^The computer /, '')
    .replace(/(^|[:;.]\s+)I (?!am\b)([a-z]+)/g, (m, pre, v) => `${pre}${third(v)}`)
    .replace(/\bI am\b/g, 'they are').replace(/\bI'm\b/g, "they're").replace(/\bI\b/g, 'they')
    .replace(/\bmy\b/g, 'their').replace(/\bMy\b/g, 'Their').replace(/\bmyself\b/g, 'themselves')
    .replace(/\bmine\b/g, 'theirs').replace(/\bme\b/g, 'them');
}

/** A hint in the player's words: the table's play as an instruction, then
 *  the engine's reason, which help mode already says to the player ("Play
 *  your card 1: the clues prove it fits a pile"): the part after its play
 *  (after the first ": "). */
export function advice(what, explanation, move) {
  const text = readable(explanation || '', move);
  const m = /: /.exec(text);
  const why = (m ? text.slice(m.index + m[0].length) : '').replace(/[.\s]+$/, '');
  const head = String(what).replace(/^./, (c) => c.toUpperCase());
  return why ? `${head}: ${why}.` : `${head}.`;
}

// The log, drawn

function logEntry(rec, n) {
  const r = renderer();
  const mine = rec.seat === app.you;
  const desc = r.describePlayNodes ? r.describePlayNodes(rec.play, rec.seat, rec) : [JSON.stringify(rec.play)];
  return h('li', { class: `log-entry${mine ? ' mine' : ''}${rec.turn_ending ? ' turn-end' : ''}`, 'data-testid': `log-entry-${n}`, dataset: { seat: rec.seat } },
    h('span', { class: 'log-who' }, seatName(rec.seat)),
    ' ',
    h('span', { class: 'log-play', 'data-testid': 'log-play' }, desc),
    rec.turn_ending ? h('span', { class: 'badge', 'data-testid': 'log-turn-end' }, 'turn ends') : null,
    rec.explanation ? h('span', { class: 'log-why', 'data-testid': 'log-explanation' }, readable(botSays(rec.explanation), { seat: rec.seat, n: rec.n, records: app.log })) : null,
    r.logExtra ? r.logExtra(rec) : null);
}

let drawnLog = null;  // the log drawn
let drawnKeys = [];   // its keys, in order
let showing = null;   // the entry marked as the play on the board

/** Draw the log: a new record is appended (the live region announces it),
 *  a new game's log starts the list afresh; the play a playback shows is
 *  marked. */
export function drawLog(s) {
  const ol = byId('log');
  if (s.log !== drawnLog) {
    if (drawnKeys.some((k) => !s.log.has(k))) { ol.replaceChildren(); drawnKeys = []; }
    const have = new Set(drawnKeys);
    let added = false;
    for (const [n, rec] of s.log) {
      if (have.has(n)) continue;
      ol.append(logEntry(rec, n));
      drawnKeys.push(n);
      added = true;
    }
    drawnLog = s.log;
    if (added) ol.scrollTop = ol.scrollHeight;
  }
  const pb = s.playback;
  const n = pb && pb.shown >= 0 ? pb.records[pb.shown].n : null;
  const want = n === null ? null : ol.querySelector(`[data-testid="log-entry-${n}"]`);
  if (want !== showing) {
    if (showing) { showing.classList.remove('log-showing'); showing.removeAttribute('aria-current'); }
    if (want) { want.classList.add('log-showing'); want.setAttribute('aria-current', 'step'); }
    showing = want;
  }
}
