// The keyboard: after every drawing of the live table the focus is on a
// control, never lost on the page's body (focusNext), and each table's
// hotkeys (its `hotkeys` hook: [{key, what, keys, target(key, a)}], the
// data-testid of the control a key presses) work beside the page's own
// (CORE_KEYS). A key presses the control as a click would, so the table's
// own handlers decide what it does; the Rules panel lists them all.

import { byId } from './dom.js';
import { askHint, takeBack } from './game.js';
import { tableContext } from './board.js';
import { app, renderer } from './state.js';

/** The page's keys at every table. */
export const CORE_KEYS = [
  { key: 'H', what: 'ask for a hint' },
  { key: 'U', what: 'take back your last play of this turn (what it allows: see the rules)', takesBack: true },
  { key: 'Esc', what: 'put back the card you picked (or skip the moves being shown)' },
  { key: '?', what: 'these rules' },
  { key: 'Tab', what: 'the next card or pile; Enter or Space plays it' },
];

const usable = (el) => el && el.isConnected && !el.disabled && el.getAttribute('aria-disabled') !== 'true' && !el.closest('[hidden]');

// Where the focus goes when the control it was on is gone: the hinted
// control, a place the picked card may go, the picked card, a playable one;
// else the board itself.
const NEXT = ['.hinted', '.target', '.selected', '.playable', 'button'];

/** After a drawing of the live table: a focus lost with the control it was
 *  on (a play made, a card played away) goes to the next sensible control
 *  of the board, or to the board; after a play (afterPlay), one left on a
 *  control with nothing more to do moves on too. A focus elsewhere (a
 *  field, a dialog, the log) is left where it is. */
export function focusNext(board, myTurn, afterPlay) {
  const at = document.activeElement;
  if (document.querySelector('dialog[open]')) return;
  if (at && at !== document.body && at.isConnected) {
    // after a play, a control that has nothing more to do (the pile just
    // drawn from) hands the focus on; anywhere else the focus stays
    if (!afterPlay || !board.contains(at) || at.matches(NEXT.slice(0, -1).join(', '))) return;
    const next = NEXT.slice(0, -1).map((sel) => [...board.querySelectorAll(sel)].find(usable)).find(Boolean);
    if (next) next.focus({ preventScroll: true });
    return;
  }
  if (myTurn) {
    for (const sel of NEXT) {
      const el = [...board.querySelectorAll(sel)].find((x) => x.matches('button, [tabindex]') && usable(x));
      if (el) { el.focus({ preventScroll: true }); return; }
    }
  }
  board.focus({ preventScroll: true });
}

function typing(el) {
  return !!el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
}

export function setupKeys() {
  document.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target) || document.querySelector('dialog[open]')) return;
    if (!app.shown || app.replay || !app.state || byId('game').hidden) return;
    const k = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    if (k === '?') { ev.preventDefault(); byId('rules-button').click(); return; }
    if (k === 'h') { ev.preventDefault(); askHint(); return; }
    if (k === 'u' && renderer().takesBack) { ev.preventDefault(); takeBack(); return; }
    const r = renderer();
    const a = tableContext(app);
    if (!a.myTurn) return;
    for (const hk of (r.hotkeys || [])) {
      if (!hk.keys.includes(k)) continue;
      const id = hk.target(k, a);
      const el = id && document.querySelector(`[data-testid="${CSS.escape(id)}"]`);
      if (!usable(el)) continue;
      ev.preventDefault();
      el.focus({ preventScroll: true });
      el.click();
      return;
    }
  });
}
