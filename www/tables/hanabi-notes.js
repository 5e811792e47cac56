// Notes on Hanabi cards, as hanab.live players keep them ("chop", "5 save",
// "R?"): any card, any time, kept in this browser only (localStorage, per
// game) and never sent to the server, so only their writer sees them. A note
// stays with its card as the card moves along the hand (hanabi-track.js names
// the cards). Written in a small dialog opened from the card's panel, or by
// right-clicking (a long press on a phone) the card.

import { h } from '../core/dom.js';
import { app, setTable } from '../core/state.js';

const KEY = (gameId) => `croupier.notes.${gameId}`;
const MAX = 200;

/** This browser's notes for a game: {cardName: text}. Kept in localStorage;
 *  once one is written here, the table's state has them too (app.table.hbNotes),
 *  so that the table is drawn again. */
export function hbNotes(gameId, table) {
  if (!gameId) return {};
  const kept = table && table.hbNotes;
  if (kept && kept.gameId === gameId) return kept.notes;
  try {
    const v = JSON.parse(localStorage.getItem(KEY(gameId)) || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

function hbSetNote(gameId, card, text) {
  if (!gameId || !card) return;
  const notes = { ...hbNotes(gameId, app.table) };
  const t = String(text || '').trim().slice(0, MAX);
  if (t) notes[card] = t; else delete notes[card];
  try {
    if (Object.keys(notes).length) localStorage.setItem(KEY(gameId), JSON.stringify(notes));
    else localStorage.removeItem(KEY(gameId));
  } catch { /* storage full or private mode: the note is not kept */ }
  setTable('hbNotes', { gameId, notes });
}

/** The note under a card (empty when none; keeps its room so nothing jumps). */
export function hbNoteLine(text, testid) {
  return h('span', { class: `hb-note-text${text ? '' : ' empty'}`, 'data-testid': testid, title: text || null, 'aria-hidden': 'true' }, text || '');
}

let dialog = null;

function noteDialog() {
  if (dialog) return dialog;
  const text = h('textarea', { id: 'hb-note-input', 'data-testid': 'hb-note-input', rows: '3', maxlength: String(MAX) });
  dialog = h('dialog', { class: 'hb-note-dialog', 'data-testid': 'hb-note-dialog', 'aria-labelledby': 'hb-note-title' },
    h('form', { method: 'dialog' },
      h('h2', { id: 'hb-note-title', class: 'hb-note-title' }, 'Note'),
      h('label', { for: 'hb-note-input', class: 'hb-note-help' }, 'Only you see your notes: they stay in this browser.'),
      text,
      h('div', { class: 'hb-note-buttons' },
        h('button', { type: 'submit', value: 'save', class: 'btn btn-primary', 'data-testid': 'hb-note-save' }, 'Save note'),
        h('button', { type: 'submit', value: 'clear', class: 'btn btn-secondary', 'data-testid': 'hb-note-clear' }, 'Remove'),
        h('button', { type: 'submit', value: 'cancel', class: 'btn btn-secondary', 'data-testid': 'hb-note-cancel' }, 'Cancel'))));
  document.body.append(dialog);
  return dialog;
}

/** Open the note of `card` (its name) in game `gameId`; focus goes back to
 *  the element named `refocus` (a data-testid). */
export function hbEditNote(gameId, card, what, { refocus } = {}) {
  if (!gameId || !card) return;
  const d = noteDialog();
  const input = d.querySelector('textarea');
  d.querySelector('.hb-note-title').textContent = `Note on ${what}`;
  input.value = hbNotes(gameId, app.table)[card] || '';
  const back = document.activeElement;
  d.onclose = () => {
    if (d.returnValue === 'save') hbSetNote(gameId, card, input.value);
    else if (d.returnValue === 'clear') hbSetNote(gameId, card, '');
    const again = refocus ? document.querySelector(`[data-testid="${CSS.escape(refocus)}"]`) : back;
    if (again && again.isConnected) again.focus();
  };
  d.returnValue = '';
  d.showModal();
  input.focus();
}
