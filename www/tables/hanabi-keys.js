// hanab.live's keys at the Hanabi table (its packages/client/src/game/ui/
// keyboard.ts; docs/research/hanab-live.md), beside the page's own
// (core/keys.js, HB.hotkeys):
//
//   a or +  then a slot number: play that card
//   d or -  then a slot number: discard it (D with a card of yours picked
//           still discards that card, as before)
//   ;       choose the teammate to clue (again: the next one); Tab too, once
//           one is chosen (before that Tab moves the focus, as everywhere)
//   1-5     with a teammate chosen: a number clue (else: pick your card)
//   q w e r t y  a colour clue, the table's colours in order (the next
//           player chosen when none is)
//   Ctrl+Enter   give the clue chosen
//   Esc     forget all of it
//
// A clue chosen and not given yet previews the cards it would touch (as a
// clue button does on hover and focus).
//
// The choice is the table's own state (app.table.hbKeys: {mode, target,
// clue}), shown in the actions' place; the play goes to the server as a
// click's would (core/game.js attempt), which judges it.

import { byId, h } from '../core/dom.js';
import { attempt } from '../core/game.js';
import { tableContext } from '../core/board.js';
import { app, seatName, setTable } from '../core/state.js';
import { HB_COLOURS, hbColours, hbSlotIndex } from './hanabi-cards.js';

const COLOUR_KEYS = ['q', 'w', 'e', 'r', 't', 'y'];
const NONE = { mode: null, target: null, clue: null };

/** The keys' choice so far. */
export function hbKeyState(table) {
  return (table && table.hbKeys) || NONE;
}

const set = (change) => setTable('hbKeys', change === null ? null : { ...hbKeyState(app.table), ...change });

/** The colours a clue may name at this table (rainbow cannot be named). */
const clueColours = (s) => hbColours(s).filter((c) => c !== 'M');

function typing(el) {
  return !!el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
}

/** The teammate after `from` (you when from is null), in seat order. */
function nextTarget(a, from) {
  const n = a.state.players || (a.state.hands || []).length;
  let p = from === null ? a.you : from;
  for (let k = 0; k < n; k++) {
    p = (p + 1) % n;
    if (p !== a.you) return p;
  }
  return null;
}

function onKey(ev) {
  if (app.game !== 'hanabi' || !app.shown || app.replay || !app.state || app.state.over || !byId('game') || byId('game').hidden) return;
  if (ev.metaKey || ev.altKey || typing(ev.target) || document.querySelector('dialog[open]')) return;
  const a = tableContext(app);
  const k = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  const st = hbKeyState(app.table);
  const take = () => { ev.preventDefault(); ev.stopPropagation(); };
  if (ev.ctrlKey) {
    if (k === 'Enter' && a.myTurn && st.target !== null && st.clue) { take(); give(a, st); }
    return;
  }
  if (k === 'Escape') { if (st !== NONE) set(null); return; } // the page's Escape goes on
  if (!a.myTurn || a.you === null) return;
  const s = a.state;
  const ownPicked = /^own:\d+$/.test(app.selection || '');
  if (k === 'a' || k === '+' || k === '-' || (k === 'd' && !ownPicked)) {
    take();
    set({ mode: k === 'a' || k === '+' ? 'play' : 'discard', target: null, clue: null });
    return;
  }
  if (/^[1-9]$/.test(k) && st.mode) {
    take();
    const hand = (s.hands || [])[a.you] || [];
    const i = hbSlotIndex(+k, hand.length);
    set(null);
    if (i >= 0 && i < hand.length) attempt({ type: st.mode, card: i }, `hb-card-${a.you}-${i}`);
    return;
  }
  if (k === ';' || (k === 'Tab' && st.target !== null)) {
    take();
    set({ mode: null, target: nextTarget(a, st.target), clue: null });
    return;
  }
  if (/^[1-5]$/.test(k) && st.target !== null) { take(); set({ clue: { number: +k } }); return; }
  const ci = COLOUR_KEYS.indexOf(k);
  if (ci >= 0 && ci < clueColours(s).length) {
    take();
    set({ mode: null, target: st.target === null ? nextTarget(a, null) : st.target, clue: { color: clueColours(s)[ci] } });
  }
}

function give(a, st) {
  const play = { type: 'hint', target: st.target, ...st.clue };
  set(null);
  attempt(play, `player-${st.target}`);
}

/** The clue preview of the buttons: while a clue button (data-touches: the
 *  test ids of the cards it would touch) is hovered or focused, those cards
 *  are marked .hb-preview; nothing is drawn anew. */
function preview(ev) {
  const b = ev.target && ev.target.closest && ev.target.closest('[data-touches]');
  if (!b) return;
  const on = ev.type === 'pointerover' || ev.type === 'focusin';
  for (const id of b.dataset.touches.split(' ').filter(Boolean)) {
    const el = document.querySelector(`#board [data-testid="${CSS.escape(id)}"]`);
    if (el) el.classList.toggle('hb-preview', on);
  }
}

let installed = false;

/** Listen for the keys (once; before core/keys.js's, which they may stand in for). */
export function hbInstallKeys() {
  if (installed) return;
  installed = true;
  window.addEventListener('keydown', onKey, true);
  for (const type of ['pointerover', 'pointerout', 'focusin', 'focusout']) document.addEventListener(type, preview);
}

/** What the keys have chosen, in the actions' place, with its button. */
export function hbKeyPanel(s, table, you) {
  const st = hbKeyState(table);
  if (st === NONE || you === null) return null;
  if (st.mode) {
    const n = ((s.hands || [])[you] || []).length;
    return h('div', { class: 'hb-actions hb-key-panel', 'data-testid': 'hb-key-panel', role: 'status' },
      `${st.mode === 'play' ? 'Play' : 'Discard'} which card? Press its number, 1 to ${n} (Esc cancels).`);
  }
  if (st.target === null) return null;
  const colours = clueColours(s);
  const clueText = !st.clue ? 'press 1-5 for a number, '
    + `${colours.map((c, i) => `${COLOUR_KEYS[i].toUpperCase()} ${HB_COLOURS[c]}`).join(', ')} for a colour`
    : (st.clue.number ? `their ${st.clue.number}s` : `their ${HB_COLOURS[st.clue.color]} cards`);
  return h('div', { class: 'hb-actions hb-key-panel', 'data-testid': 'hb-key-panel', role: 'status' },
    h('span', { class: 'hb-actions-what' }, `Clue ${seatName(st.target)}:`), ` ${clueText}`,
    st.clue ? h('button', {
      type: 'button', class: 'btn btn-primary', 'data-testid': 'hb-key-give', onclick: () => give(tableContext(app), st),
    }, 'Give clue (Ctrl+Enter)') : null,
    h('span', { class: 'hb-note' }, '; chooses the next teammate, Esc cancels.'));
}
