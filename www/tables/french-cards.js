// French-suited cards in Comp10001-Bo's codes ("0H" the 10 of hearts, "ZZ"
// a joker), which Phazed's cards share: faces and text. Its look is in
// comp10001bo.css (.card-rank, .card-suit, the suits' colours in style.css).

import { h } from '../core/dom.js';

const SUITS = {
  S: { sym: '♠', name: 'spades', colour: 'black' },
  H: { sym: '♥', name: 'hearts', colour: 'red' },
  D: { sym: '♦', name: 'diamonds', colour: 'red' },
  C: { sym: '♣', name: 'clubs', colour: 'black' },
};
const RANKS = {
  A: ['A', 'ace'], 0: ['10', '10'], J: ['J', 'jack'], Q: ['Q', 'queen'], K: ['K', 'king'],
};

export function boCard(card) {
  if (typeof card !== 'string' || card.length < 2) return { rank: '?', sym: '', name: 'unknown card', colour: 'none', text: '?' };
  if (card === 'ZZ') return { rank: '★', sym: '', name: 'joker', colour: 'joker', text: 'Joker' };
  const [rank, rankName] = RANKS[card[0]] || [card[0], card[0]];
  const suit = SUITS[card[1]] || { sym: card[1], name: card[1], colour: 'none' };
  return { rank, sym: suit.sym, name: `${rankName} of ${suit.name}`, colour: suit.colour, text: `${rank}${suit.sym}` };
}

/** A face of a card (not interactive by itself). */
export function cardFace(card, extraClass = '') {
  const c = boCard(card);
  return h('span', { class: `card card-${c.colour} ${extraClass}`, 'aria-hidden': 'true', dataset: { card } },
    h('span', { class: 'card-rank' }, c.rank),
    h('span', { class: 'card-suit' }, c.sym));
}

const VALUE_NAMES = { 0: '10', J: 'Jack', Q: 'Queen', K: 'King' };
const VALUE_SHORT = { 0: '10' };

/** What a joker on a pile stands for now (the view's joker_reads for that
 *  pile: [{value, colour}], null when its top is not a joker), short ("3/Q")
 *  and in words ("a 3 (red or black) or a Queen (red)"); null without. */
export function jokerReads(reads) {
  if (!Array.isArray(reads) || !reads.length) return null;
  const byValue = new Map();
  for (const r of reads) {
    if (!byValue.has(r.value)) byValue.set(r.value, []);
    byValue.get(r.value).push(r.colour);
  }
  const short = [...byValue.keys()].map((v) => VALUE_SHORT[v] || v).join('/');
  const words = [...byValue].map(([v, colours]) => {
    const name = VALUE_NAMES[v] || v;
    const article = /^(8|Ace)/.test(name) ? 'an' : 'a';
    return `${article} ${name} (${colours.length > 1 ? 'red or black' : colours[0]})`;
  });
  const last = words.pop();
  return { short, words: words.length ? `${words.join(', ')} or ${last}` : last };
}

/** A face of a joker lying on a pile, saying what it stands for (its
 *  readings from jokerReads) where a card shows its suit. */
export function jokerFace(card, reads, extraClass = '') {
  const face = cardFace(card, extraClass);
  if (!reads) return face;
  face.title = `The joker stands for ${reads.words}`;
  const slot = face.querySelector('.card-suit');
  slot.classList.add('card-reads');
  slot.textContent = `=${reads.short}`;
  return face;
}

export function cardText(card) {
  const c = boCard(card);
  return h('span', { class: `card-text card-${c.colour}` }, c.text);
}

/** Card codes in a sentence (bots' explanations, the server's reasons) in
 *  words a player reads: "discards 0H" -> "discards 10♥", "ZZ" -> `joker`. */
export function readableCodes(text, joker = 'Joker') {
  if (typeof text !== 'string') return text;
  return text.replace(/\b(ZZ|[A2-90JQK][SHDC])\b/g, (m) => (m === 'ZZ' ? joker : boCard(m).text));
}
