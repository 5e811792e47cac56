// Pace, efficiency and critical cards, as hanab.live works them out
// (packages/game/src/rules/stats.ts and reducers/statsReducer.ts of
// Hanabi-Live/hanabi-live; docs/research/hanab-live.md). Everything comes from
// what the view and the plays' history give this reader: the fireworks, the
// discard pile, the deck's size, the hints' marks on every card, and the
// clues given; no hidden card is looked at.

import { hbCard, hbPlay } from './hanabi-cards.js';

/** Copies of each number in a colour (rainbow's too). */
export const HB_COPIES = { 1: 3, 2: 2, 3: 2, 4: 2, 5: 1 };

/** How many of each card are in the discard pile. */
function discarded(s) {
  const out = {};
  for (const d of s.discard || []) out[d] = (out[d] || 0) + 1;
  return out;
}

/** The best each firework can still reach: below the lowest number whose
 *  every copy is discarded (hanab.live's max score per stack). */
function hbStackMax(s, colours) {
  const gone = discarded(s);
  const out = {};
  for (const c of colours) {
    let top = 5;
    for (let r = 1; r <= 5; r++) if ((gone[`${c}${r}`] || 0) >= HB_COPIES[r]) { top = r - 1; break; }
    out[c] = Math.max(top, (s.fireworks || {})[c] || 0);
  }
  return out;
}

/** Is a card (one known to this reader) critical: still needed, not yet
 *  played, and every other copy discarded? */
export function hbCritical(s, colours, card) {
  const c = hbCard(card);
  if (c.hidden) return false;
  const played = (s.fireworks || {})[c.colour] || 0;
  if (c.number <= played || c.number > hbStackMax(s, colours)[c.colour]) return false;
  return (discarded(s)[card] || 0) === HB_COPIES[c.number] - 1;
}

/** A card's identity as this reader knows it: its face, or, for a hidden
 *  card whose colour and number the hints both fixed, those. */
export function hbKnownCard(slot) {
  if (!slot) return null;
  if (!hbCard(slot.card).hidden) return slot.card;
  const pc = (slot.possible && slot.possible.colors) || [];
  const pn = (slot.possible && slot.possible.numbers) || [];
  return pc.length === 1 && pn.length === 1 ? `${pc[0]}${pn[0]}` : null;
}

/** hanab.live's pace: score + cards in the deck + players − max score (the
 *  max still reachable); none once the deck is out or the game is over. */
function hbPace(s, colours) {
  const players = s.players || (s.hands || []).length;
  if (s.over || !(s.deck > 0)) return null;
  return s.score + s.deck + players - hbMaxScore(s, colours);
}

/** The max score still reachable. */
function hbMaxScore(s, colours) {
  return Object.values(hbStackMax(s, colours)).reduce((x, y) => x + y, 0);
}

/** hanab.live's pace risk: zero, high (Florrat's estimate), medium
 *  (Hyphen-ated's) or low. */
function hbPaceRisk(pace, players) {
  if (pace === null) return 'low';
  if (pace <= 0) return 'zero';
  if (pace - players + Math.floor(players / 2) < 0) return 'high';
  if (pace - players < 0) return 'medium';
  return 'low';
}

/** Is a card in a hand "gotten": touched by a clue and not, by what its
 *  marks allow, certainly trash. */
function gotten(slot, s, top) {
  const t = slot.touched || {};
  if (!((t.colors || []).length || (t.numbers || []).length)) return false;
  const pc = (slot.possible && slot.possible.colors) || [];
  const pn = (slot.possible && slot.possible.numbers) || [];
  const fw = s.fireworks || {};
  return pc.some((c) => pn.some((n) => n > (fw[c] || 0) && n <= (top[c] === undefined ? 5 : top[c])));
}

/** The clues the team has lost (hanab.live's "potential clues lost"): each
 *  clue given, each error, each firework finished with every hint token in;
 *  null when the history is not whole. */
function hbCluesLost(s, records) {
  const list = (Array.isArray(records) ? records.slice() : [...(records || new Map()).values()])
    .filter((r) => r && typeof r.n === 'number').sort((a, b) => a.n - b.n);
  const max = s.max_hints || 8;
  let tokens = max;
  let lost = 0;
  for (let k = 0; k < list.length; k++) {
    const rec = list[k];
    if (rec.n !== k + 1) return null;
    const play = hbPlay(rec.play);
    if (play.type === 'hint') { lost++; tokens--; } else if (play.type === 'discard') tokens = Math.min(max, tokens + 1);
    else if (play.type === 'play') {
      if (!rec.correct) lost++;
      else if (hbCard(rec.card).number === 5) { if (tokens >= max) lost++; else tokens++; }
    }
  }
  return lost;
}

/** The clues still usable from here (hanab.live's getCluesStillUsable, the
 *  standard variants: a discard and a finished firework give one each). */
function cluesStillUsable(s, colours, top) {
  const players = s.players || (s.hands || []).length;
  if (!(s.deck > 0)) return null;
  const maxScore = Object.values(top).reduce((x, y) => x + y, 0);
  const missing = maxScore - s.score;
  const deck = s.deck;
  let discards = 0;
  if (missing <= players + 1) discards = deck - 1;
  else if (missing <= players + deck) discards = players + deck - missing;
  const finalPlays = missing < players + 1 ? missing : players + 1;
  const plays = (missing <= players + deck ? missing : players + deck) - finalPlays;
  const short = colours.filter((c) => top[c] === 5 && ((s.fireworks || {})[c] || 0) < 5)
    .map((c) => 5 - ((s.fireworks || {})[c] || 0)).sort((a, b) => a - b);
  let played = 0;
  let suits = 0;
  for (const k of short) { if (played + k > plays) break; played += k; suits++; }
  return discards + suits + s.hints;
}

/** Every figure: {pace, risk, maxScore, gotten, lost, efficiency, usable, future}. */
export function hbStats(s, colours, records) {
  const players = s.players || (s.hands || []).length;
  const top = hbStackMax(s, colours);
  const maxScore = hbMaxScore(s, colours);
  const pace = hbPace(s, colours);
  let cards = s.score;
  for (const hand of s.hands || []) for (const slot of hand || []) if (slot && gotten(slot, s, top)) cards++;
  cards = Math.min(cards, maxScore);
  const lost = hbCluesLost(s, records);
  const efficiency = lost ? cards / lost : null;
  const usable = cluesStillUsable(s, colours, top);
  const future = usable ? Math.max(maxScore - cards, 0) / usable : null;
  return { pace, risk: hbPaceRisk(pace, players), maxScore, gotten: cards, lost, efficiency, usable, future };
}
