// Empathy, as hanab.live calls it: a player's hand seen as its owner knows it.
// Click a hand's "What they know" button (or hold it down: the view lasts as
// long as the press) and each card shows what its owner can tell of it: the
// colour and number when known, and the cards it may still be, from the hints
// it was given, less every copy both of you can see is elsewhere (played,
// discarded, or in a third player's hand). It uses only what this reader is
// shown: the owner may know a little more (they see this reader's hand).

import { h } from '../core/dom.js';
import { app, setTable } from '../core/state.js';
import { hbCard, hbLetter, HB_COLOURS } from './hanabi-cards.js';
import { HB_COPIES as COPIES } from './hanabi-stats.js';

// Which hands show empathy: the table's own state (app.table.hbEmpathy),
// {on: ["gameId:seat", ...], held: the key shown only while a press lasts}.
const NONE = { on: [], held: null };
const key = (gameId, seat) => `${gameId || ''}:${seat}`;
const empathy = (table) => (table && table.hbEmpathy) || NONE;

/** Empathy is shown for `seat`'s hand (in game `gameId`: the real one or a hypothetical). */
export function hbEmpathyOn(table, gameId, seat) {
  const e = empathy(table);
  return e.on.includes(key(gameId, seat)) || e.held === key(gameId, seat);
}

function setEmpathy(change) {
  setTable('hbEmpathy', { ...empathy(app.table), ...change });
}

/** How many copies of each card both the owner and this reader can see. */
function seenByBoth(s, owner) {
  const seen = {};
  const add = (card) => { if (!hbCard(card).hidden) seen[card] = (seen[card] || 0) + 1; };
  for (const d of s.discard || []) add(d);
  for (const [c, top] of Object.entries(s.fireworks || {})) for (let r = 1; r <= top; r++) add(`${c}${r}`);
  (s.hands || []).forEach((hand, p) => { if (p !== owner) for (const slot of hand || []) add(slot && slot.card); });
  return seen;
}

/** The cards `slot` (a card of `owner`'s hand) may still be, to its owner. */
function hbMayBe(s, owner, slot) {
  const seen = seenByBoth(s, owner);
  const pc = (slot.possible && slot.possible.colors) || [];
  const pn = (slot.possible && slot.possible.numbers) || [];
  const out = [];
  for (const c of pc) for (const n of pn) if ((seen[`${c}${n}`] || 0) < COPIES[n]) out.push(`${c}${n}`);
  return out;
}

/** The line under a card in empathy: the cards it may be, or, when many,
 *  the colours and numbers left. */
export function hbMayBeLine(s, owner, slot, testid) {
  const may = hbMayBe(s, owner, slot);
  const words = may.map((c) => `${HB_COLOURS[c[0]]} ${c[1]}`);
  const open = ((slot.possible && slot.possible.colors) || []).length * ((slot.possible && slot.possible.numbers) || []).length;
  let text;
  if (may.length === open && !(slot.touched && ((slot.touched.colors || []).length || (slot.touched.numbers || []).length)) &&
      !(slot.not && ((slot.not.colors || []).length || (slot.not.numbers || []).length))) text = 'no clue yet';
  else if (may.length <= 6) text = may.map((c) => `${hbLetter(c[0])}${c[1]}`).join(' ');
  else {
    const cols = [...new Set(may.map((c) => c[0]))].map(hbLetter).join('');
    const nums = [...new Set(may.map((c) => c[1]))].sort().join('');
    text = `${cols} · ${nums}`;
  }
  return h('span', { class: 'hb-maybe', 'data-testid': testid, title: `may be: ${words.join(', ')}` }, text || '—');
}

/** The hand's empathy button: a click toggles it, a press held shows it while held. */
export function hbEmpathyButton(table, gameId, seat, label) {
  const k = key(gameId, seat);
  const pressed = hbEmpathyOn(table, gameId, seat);
  let timer = null;
  let wasHeld = false;
  const release = () => {
    clearTimeout(timer);
    window.removeEventListener('pointerup', release);
    window.removeEventListener('pointercancel', release);
    if (empathy(app.table).held === k) setEmpathy({ held: null });
  };
  return h('button', {
    type: 'button', class: `btn btn-secondary btn-small hb-empathy${pressed ? ' on' : ''}`, 'data-testid': `hb-empathy-${seat}`,
    'aria-pressed': String(pressed), title: 'Click to keep it on; hold to look while pressed',
    onpointerdown: (ev) => {
      if (ev.button !== 0 || empathy(app.table).on.includes(k)) return;
      wasHeld = false;
      window.addEventListener('pointerup', release);
      window.addEventListener('pointercancel', release);
      timer = setTimeout(() => { wasHeld = true; setEmpathy({ held: k }); }, 350);
    },
    onclick: () => {
      if (wasHeld) { wasHeld = false; return; } // the end of a hold, not a click
      clearTimeout(timer);
      const on = empathy(app.table).on;
      setEmpathy({ on: on.includes(k) ? on.filter((x) => x !== k) : [...on, k] });
    },
  }, label);
}
