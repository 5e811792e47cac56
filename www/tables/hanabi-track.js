// Following Hanabi cards through the game: which card is which (for notes)
// and which cards the latest clue touched.
//
// The view gives each hand as it is now, by position; a card moves left as
// older cards leave. The plays' history (GET /games/{id}/plays, every record
// in order) says exactly how: a play or discard takes the card at its index
// out of the player's hand and, when the deck still had one, a new card goes
// to the right end. Replaying it gives every card a name that stays with it:
// "d<seat>.<i>" for the dealt ones, "t<n>" for the card drawn after play n.
// Nothing here knows more than the history says to this reader.

import { hbPlay } from './hanabi-cards.js';

/** Cards in each hand at the deal: five with 2 or 3 players, four with 4 or 5. */
const hbHandSize = (players) => (players <= 3 ? 5 : 4);

/** The records of a game's history in order of n (a Map or an array). */
function inOrder(records) {
  const list = Array.isArray(records) ? records.slice() : [...(records || new Map()).values()];
  return list.filter((r) => r && typeof r.n === 'number').sort((a, b) => a.n - b.n);
}

/**
 * Replay the history: `visit(hands, rec)` is called before each record is
 * applied (hands: per seat, the names of its cards, oldest first). Returns
 * the hands after the last record, or null when the records do not add up to
 * the view (a gap in what this reader has): then no card is named.
 */
function hbTrack(state, records, visit) {
  if (!state || !Array.isArray(state.hands)) return null;
  const players = state.players || state.hands.length;
  const size = hbHandSize(players);
  const hands = Array.from({ length: players }, (_, p) => Array.from({ length: size }, (_, i) => `d${p}.${i}`));
  const recs = inOrder(records);
  for (let k = 0; k < recs.length; k++) {
    const rec = recs[k];
    if (rec.n !== k + 1) return null; // not the whole history
    if (visit) visit(hands, rec);
    const play = hbPlay(rec.play);
    if (play.type !== 'play' && play.type !== 'discard') continue;
    const hand = hands[rec.seat];
    if (!hand || !(play.card >= 0 && play.card < hand.length)) return null;
    hand.splice(play.card, 1);
    if (rec.drew !== null && rec.drew !== undefined) hand.push(`t${rec.n}`);
  }
  const fits = hands.every((hand, p) => hand.length === ((state.hands[p] || []).length));
  return fits ? hands : null;
}

/** Each hand's card names now (hands[seat][i]), or null. */
export function hbCardIds(state, records) {
  return hbTrack(state, records);
}

/**
 * The latest clue: {rec, target, ids} where ids are the names of the cards
 * it touched (some may have left the hand since), or null before any clue.
 */
export function hbLatestClue(state, records) {
  let latest = null;
  const hands = hbTrack(state, records, (now, rec) => {
    const play = hbPlay(rec.play);
    if (play.type !== 'hint' || !Array.isArray(rec.touched)) return;
    const hand = now[play.target] || [];
    latest = { rec, target: play.target, ids: new Set(rec.touched.map((i) => hand[i]).filter(Boolean)) };
  });
  return hands ? latest : null;
}

/** How many cards `seat` held just before record `n` (for a card's number
 *  in words when the newest card is card 1): the deal's, less one for each
 *  earlier play or discard that drew nothing (the deck was out). */
export function hbHandLength(records, seat, n, players) {
  let len = hbHandSize(players);
  for (const rec of inOrder(records)) {
    if (rec.n >= n) break;
    const play = hbPlay(rec.play);
    if (rec.seat === seat && (play.type === 'play' || play.type === 'discard') && (rec.drew === null || rec.drew === undefined)) len--;
  }
  return len;
}
