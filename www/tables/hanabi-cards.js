// Hanabi cards as the table draws them: faces, the marks hints left, the
// discard pile, and the colour-blind setting.
//
// Every card carries its colour as a letter (R Y B G W, ✦ for rainbow)
// beside its number, everywhere: hands, fireworks, the discard pile, the log.
// The colour-blind setting (kept in this browser) switches to a palette told
// apart under red-green colour blindness (Okabe and Ito's) and adds a shape
// per colour, so that no card is known by its colour alone.

import { h } from '../core/dom.js';
import { app, pref, setPref } from '../core/state.js';

// The order of the hands, a setting of this browser: the oldest card on the
// left and numbered 1 (the default, as the conventions bot's explanations
// count: "I play my card 2"), or hanab.live's, the newest card on the left
// and numbered 1. The plays' JSON indexes stay 0-based, oldest first
// (core/numbering.js); the bots' words are renumbered to match (hbRenumber).
const DIR_PREF = 'hanabi.direction'; // localStorage croupier.hanabi.direction: 'oldest' or 'newest'

/** The newest card is drawn on the left and numbered 1 (hanab.live's way). */
export const hbNewestLeft = () => pref(DIR_PREF, 'oldest') === 'newest';

/** A position in a hand of `len` cards (index i, oldest first) as the page
 *  writes it: from 1, card 1 the leftmost. Without `len` (or oldest on the
 *  left) card 1 is the oldest. */
export const handCard = (i, len) => (hbNewestLeft() && len > 0 ? len - i : i + 1);

/** The index in a hand of `len` cards of the card the page numbers `n`. */
export const hbSlotIndex = (n, len) => {
  if (!(n >= 1 && n <= len)) return -1;
  return hbNewestLeft() ? len - n : n - 1;
};

/** The bots' and the hints' words in the page's numbering: the engines
 *  count a hand from its oldest card ("plays card 2", "clues player 3's 4s
 *  (cards 1, 3): a save clue on their chop, card 4"); with the newest card
 *  on the left each number n becomes len - n + 1 of the hand it names. A
 *  number names the hand of the last "player K" written before it, else the
 *  mover's (`seat`); `lenOf(seat)` is that hand's size when the move was
 *  made (0: unknown, the number is left as it is). */
export function hbRenumber(text, seat, lenOf) {
  if (typeof text !== 'string' || !hbNewestLeft()) return text;
  let hand = seat;
  return text.replace(/\bplayer (\d+)\b|\b(cards?) (\d+(?:, \d+)*)\b/g, (m, who, word, nums) => {
    if (who !== undefined) { hand = +who - 1; return m; }
    const len = hand === null || hand === undefined ? 0 : lenOf(hand);
    if (!(len > 0)) return m;
    return `${word} ${nums.split(', ').map((x) => (+x >= 1 && +x <= len ? len - +x + 1 : +x)).join(', ')}`;
  });
}

/** The setting's checkbox, for the table's foot. */
export function hbDirectionToggle() {
  return h('label', { class: 'hb-setting' },
    h('input', {
      type: 'checkbox', 'data-testid': 'hb-newest-left', checked: hbNewestLeft(),
      onchange: (ev) => setPref(DIR_PREF, ev.target.checked ? 'newest' : 'oldest'),
    }),
    ' Newest card on the left, numbered 1 (as on hanab.live)');
}

export const HB_COLOURS = {
  R: 'red', Y: 'yellow', B: 'blue', G: 'green', W: 'white', M: 'rainbow',
};
export const HB_ORDER = ['R', 'Y', 'B', 'G', 'W', 'M'];
/** The shape of each colour in the colour-blind setting (rainbow's letter,
 *  ✦, is a shape already). */
const HB_SHAPES = { R: '▲', Y: '★', B: '◆', G: '♣', W: '●', M: '' };

/** The colours of the table: rainbow only in the rainbow variant. */
export function hbColours(s) {
  const fw = (s && s.fireworks) || {};
  return HB_ORDER.filter((c) => c !== 'M' || app.variant === 'rainbow' || (s && s.variant === 'rainbow') || fw.M !== undefined);
}

export function hbCard(card) {
  if (typeof card !== 'string' || !/^[RYBGWM][1-5]$/.test(card)) return { hidden: true, colour: null, number: null, name: 'hidden card' };
  return { hidden: false, colour: card[0], number: +card[1], name: `${HB_COLOURS[card[0]]} ${card[1]}` };
}

/** A colour as the cards write it: its letter, ✦ for rainbow. */
export const hbLetter = (c) => (c === 'M' ? '✦' : c);

/** The seed-shaped play {actionType,target,color,number} as our JSON form. */
export function hbPlay(play) {
  if (!play || typeof play !== 'object' || play.type || play.actionType === undefined) return play || {};
  switch (play.actionType) {
    case 0: return { type: 'hint', target: play.target, color: HB_ORDER[play.color] };
    case 1: return { type: 'hint', target: play.target, number: play.number };
    case 2: return { type: 'discard', card: play.target };
    case 3: return { type: 'play', card: play.target };
    default: return play;
  }
}

const hbList = (xs, word = 'or') => xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} ${word} ${xs[xs.length - 1]}`;

/** What the hints say about a card, in words (for labels). */
export function hbKnowledgeText(k) {
  if (!k) return '';
  const parts = [];
  const touched = [...((k.touched && k.touched.colors) || []).map((c) => HB_COLOURS[c]), ...((k.touched && k.touched.numbers) || [])];
  parts.push(touched.length ? `hinted: ${touched.join(', ')}` : 'no hint yet');
  const not = [...((k.not && k.not.colors) || []).map((c) => HB_COLOURS[c]), ...((k.not && k.not.numbers) || [])];
  if (not.length) parts.push(`not ${hbList(not.map(String))}`);
  const pc = (k.possible && k.possible.colors) || [];
  const pn = (k.possible && k.possible.numbers) || [];
  if (pc.length < 6 || pn.length < 5) parts.push(`could be ${hbList(pc.map((c) => HB_COLOURS[c]))}, ${hbList(pn.map(String))}`);
  return parts.join('; ');
}

/** The colour mark of a face: its letter, and its shape in the colour-blind setting. */
function colourMark(c) {
  return h('span', { class: 'hb-col' }, h('span', { class: 'hb-shape', 'aria-hidden': 'true' }, HB_SHAPES[c]), hbLetter(c));
}

/** A face up card. */
export function hbShown(card, extra = '') {
  const c = hbCard(card);
  return h('span', { class: `card hb-card hb-${c.colour}${extra ? ` ${extra}` : ''}`, 'aria-hidden': 'true', dataset: { card } },
    h('span', { class: 'hb-num' }, c.number), colourMark(c.colour));
}

/** A card as far as `slot.possible` tells it: one colour or number known, or "?". */
export function hbKnown(slot, { own } = {}) {
  const pc = (slot.possible && slot.possible.colors) || [];
  const pn = (slot.possible && slot.possible.numbers) || [];
  let cls = 'hb-unknown';
  if (pc.length === 1) cls = `hb-${pc[0]}`;
  else if (pc.length === 2 && pc.includes('M')) cls = `hb-${pc.find((x) => x !== 'M')} hb-maybe-M`;
  return h('span', { class: `card hb-card hb-hidden ${cls}`, 'aria-hidden': 'true', dataset: { card: '??' } },
    h('span', { class: 'hb-num' }, pn.length === 1 ? pn[0] : '?'),
    pc.length === 1 ? colourMark(pc[0]) : h('span', { class: 'hb-col' }, own ? '' : '?'));
}

/** The face of a card: a real card, or for a hidden one what is known. */
export function hbFace(slot, opts = {}) {
  return hbCard(slot.card).hidden ? hbKnown(slot, opts) : hbShown(slot.card);
}

/** The hint marks under a card: what was said (touched), as chips, and what
 *  was ruled out (negative information), as small pips: a crossed dot of
 *  each colour and a crossed number for each rank the card cannot be, on
 *  rows of their own under the face (never over its number or colour, and
 *  never broken inside one). */
export function hbMarks(slot) {
  const t = slot.touched || {};
  const n = slot.not || {};
  const chips = [
    ...(t.colors || []).map((c) => h('span', { class: `hb-chip hb-chip-col hb-${c}`, title: `hinted ${HB_COLOURS[c]}` }, hbLetter(c))),
    ...(t.numbers || []).map((x) => h('span', { class: 'hb-chip hb-chip-num', title: `hinted ${x}` }, x)),
  ];
  const notCols = n.colors || [];
  const notNums = n.numbers || [];
  const notWords = [...notCols.map((c) => HB_COLOURS[c]), ...notNums];
  return h('span', { class: 'hb-marks', 'aria-hidden': 'true' },
    h('span', { class: 'hb-touched', 'data-testid': 'hb-touched' }, chips),
    h('span', { class: 'hb-not', 'data-testid': 'hb-not', title: notWords.length ? `not ${hbList(notWords.map(String))}` : '' },
      notCols.length ? h('span', { class: 'hb-pips hb-pips-col' }, notCols.map((c) => h('span', {
        class: `hb-pip hb-pip-col hb-${c}`, 'data-not': c, 'data-testid': 'hb-pip', title: `not ${HB_COLOURS[c]}`,
      }, h('span', { class: 'hb-pip-letter' }, hbLetter(c))))) : null,
      notNums.length ? h('span', { class: 'hb-pips hb-pips-num' }, notNums.map((x) => h('span', {
        class: 'hb-pip hb-pip-num', 'data-not': String(x), 'data-testid': 'hb-pip', title: `not ${x}`,
      }, x))) : null));
}

/** Does a hint (colour c or number x) touch a card? Rainbow cards take every colour hint. */
export function hbTouches(card, clue) {
  const c = hbCard(card);
  if (c.hidden) return false;
  if (typeof clue === 'number') return c.number === clue;
  return c.colour === clue || (c.colour === 'M' && clue !== 'M');
}

/** A card in a sentence: "R3" with its colour ("??" hidden). */
export function hbCardText(card) {
  const c = hbCard(card);
  if (c.hidden) return h('span', { class: 'card-text' }, '??');
  return h('span', { class: `card-text hb-word hb-${c.colour}`, title: c.name }, `${hbLetter(c.colour)}${c.number}`);
}

/** A small card of the discard pile: its number and its colour letter. */
function hbMini(card) {
  const c = hbCard(card);
  return h('span', { class: `hb-mini hb-${c.colour}`, title: c.name, 'data-testid': 'hb-mini' },
    h('span', { class: 'hb-mini-num' }, c.number),
    h('span', { class: 'hb-mini-col' }, h('span', { class: 'hb-shape', 'aria-hidden': 'true' }, HB_SHAPES[c.colour]), hbLetter(c.colour)));
}

/** The discard pile, one row per colour, each card with its colour letter. */
export function hbDiscardPile(s, colours) {
  const byColour = {};
  for (const d of s.discard || []) (byColour[d[0]] = byColour[d[0]] || []).push(d);
  return h('section', { class: 'hb-discard', 'data-testid': 'hb-discard-pile', 'aria-labelledby': 'hb-dp-title' },
    h('h3', { class: 'area-title', id: 'hb-dp-title' }, `Discard pile (${(s.discard || []).length})`),
    (s.discard || []).length
      ? h('ul', { class: 'hb-discard-rows' }, colours.filter((c) => byColour[c]).map((c) => h('li', { class: 'hb-discard-row', 'data-testid': `hb-discard-${c}` },
        h('span', { class: 'visually-hidden' }, `${HB_COLOURS[c]}: ${byColour[c].map((d) => d[1]).sort().join(', ')}`),
        h('span', { class: 'hb-discard-cards', 'aria-hidden': 'true' }, byColour[c].sort().map(hbMini)))))
      : h('p', { class: 'hb-none' }, 'Nothing discarded yet.'));
}

// ---------------------------------------------------------------------------
// The colour-blind setting (this browser only)

const CB_PREF = 'hanabi.colourblind'; // localStorage croupier.hanabi.colourblind: '1' or '0'

/** Put the setting on the page (a class on <html>, read by hanabi.css). */
function hbApplyColourBlind(on) {
  document.documentElement.classList.toggle('hb-cb', on);
}

/** The setting's checkbox, for the table's foot (drawn with the table: the
 *  page's class follows the setting). */
export function hbColourBlindToggle() {
  const on = pref(CB_PREF, '0') === '1';
  hbApplyColourBlind(on);
  return h('label', { class: 'hb-setting' },
    h('input', {
      type: 'checkbox', 'data-testid': 'hb-colourblind', checked: on,
      onchange: (ev) => setPref(CB_PREF, ev.target.checked ? '1' : '0'),
    }),
    ' Colour-blind friendly colours and shapes');
}
