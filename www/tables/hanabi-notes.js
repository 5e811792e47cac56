// Notes on Hanabi cards, as hanab.live players keep them ("chop", "5 save",
// "R?"): any card, any time. A seat's notes are kept with the seat on the
// server (docs/api.md "Card notes": GET /games/{id}/notes, PUT and DELETE
// /games/{id}/notes/{card}), so they are seen on every device that plays the
// seat, kept for the replay, and shown to everyone once the game is over
// (each with its writer's name); while the game runs nobody else reads them.
// Whoever has no seat in a running game (a spectator), or writes on a game
// already over, keeps notes in this browser only (localStorage, per game).
// A note stays with its card as the card moves along the hand
// (hanabi-track.js names the cards). Written in a small dialog opened from
// the card's panel, or by right-clicking (a long press on a phone) the card.

import { api } from '../core/api.js';
import { h } from '../core/dom.js';
import { app, sayError, seatName, setTable } from '../core/state.js';

const KEY = (gameId) => `croupier.notes.${gameId}`;
const MAX = 200;

function localNotes(gameId) {
  try {
    const v = JSON.parse(localStorage.getItem(KEY(gameId)) || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

function keepLocal(gameId, notes) {
  try {
    if (Object.keys(notes).length) localStorage.setItem(KEY(gameId), JSON.stringify(notes));
    else localStorage.removeItem(KEY(gameId));
  } catch { /* storage full or private mode: the note is not kept */ }
}

/** Notes go to the server: this page holds a seat of game `gameId`, which is
 *  still being played. */
const onServer = (gameId) => gameId === app.id && !!app.token && app.you !== null && app.you !== undefined &&
  !!app.status && !app.status.over;

// What the server said for each game: {gameId, version, whose, own: {card:
// text}, others: [{seat, card, text}]}; fetched again when the game's
// version moves (another device of the seat may have written since).
let asking = null;

function load(gameId) {
  const version = gameId === app.id ? app.version : null;
  const kept = app.table && app.table.hbNotes;
  if (kept && kept.gameId === gameId && kept.version === version) return;
  if (asking && asking.gameId === gameId && asking.version === version) return;
  const me = { gameId, version };
  asking = me;
  const token = gameId === app.id ? app.token : null;
  api('GET', `/games/${encodeURIComponent(gameId)}/notes`, { token }).then(async ({ data }) => {
    if (asking !== me) return;
    const own = {};
    const others = [];
    for (const n of (data && data.notes) || []) {
      if (data.whose === 'seat' || n.seat === app.you) own[n.card] = n.text;
      else others.push(n);
    }
    // notes this browser kept before they went to the server: sent up once
    const local = localNotes(gameId);
    if (onServer(gameId) && Object.keys(local).length) {
      for (const [card, text] of Object.entries(local)) {
        if (own[card]) continue;
        try {
          await api('PUT', `/games/${encodeURIComponent(gameId)}/notes/${encodeURIComponent(card)}`, { token, body: { text } });
          own[card] = text;
        } catch { break; }
      }
      keepLocal(gameId, Object.fromEntries(Object.entries(local).filter(([card]) => own[card] !== local[card])));
    }
    if (asking === me) asking = null;
    setTable('hbNotes', { gameId, version, whose: data && data.whose, own, others });
  }).catch(() => {
    if (asking === me) asking = null;
    setTable('hbNotes', { gameId, version, whose: 'none', own: {}, others: [] });
  });
}

/** The notes drawn on game `gameId`'s cards: {cardName: text}. This seat's
 *  own and the ones this browser keeps; once the game is over every seat's,
 *  each with its writer's name. */
export function hbNotes(gameId, table) {
  if (!gameId) return {};
  load(gameId);
  const kept = table && table.hbNotes && table.hbNotes.gameId === gameId ? table.hbNotes : null;
  const out = { ...localNotes(gameId), ...(kept ? kept.own : {}) };
  for (const n of kept ? kept.others : []) {
    const line = `${seatName(n.seat)}: ${n.text}`;
    out[n.card] = out[n.card] ? `${out[n.card]} · ${line}` : line;
  }
  return out;
}

/** This reader's own note on a card (the dialog's text). */
function ownNote(gameId, card) {
  const kept = app.table && app.table.hbNotes && app.table.hbNotes.gameId === gameId ? app.table.hbNotes : null;
  return (kept && kept.own[card]) || localNotes(gameId)[card] || '';
}

async function hbSetNote(gameId, card, text) {
  if (!gameId || !card) return;
  const t = String(text || '').trim().slice(0, MAX);
  if (!onServer(gameId)) {
    const notes = { ...localNotes(gameId) };
    if (t) notes[card] = t; else delete notes[card];
    keepLocal(gameId, notes);
    const kept = app.table.hbNotes || { gameId, version: null, whose: 'none', own: {}, others: [] };
    setTable('hbNotes', { ...kept, gameId }); // drawn again
    return;
  }
  const kept = app.table.hbNotes && app.table.hbNotes.gameId === gameId ? app.table.hbNotes : { gameId, version: null, whose: 'seat', own: {}, others: [] };
  const before = kept.own[card];
  const own = { ...kept.own };
  if (t) own[card] = t; else delete own[card];
  setTable('hbNotes', { ...kept, own }); // shown at once
  const path = `/games/${encodeURIComponent(gameId)}/notes/${encodeURIComponent(card)}`;
  try {
    if (t) await api('PUT', path, { token: app.token, body: { text: t } });
    else await api('DELETE', path, { token: app.token });
  } catch (err) {
    const now = app.table.hbNotes && app.table.hbNotes.gameId === gameId ? app.table.hbNotes : kept;
    const back = { ...now.own };
    if (before) back[card] = before; else delete back[card];
    setTable('hbNotes', { ...now, own: back });
    sayError(err, 'The note was not saved');
  }
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
      h('label', { for: 'hb-note-input', class: 'hb-note-help', 'data-testid': 'hb-note-help' }, ''),
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
  d.querySelector('.hb-note-help').textContent = onServer(gameId)
    ? 'Kept with your seat: you see your notes on any device you play from; the others see them once the game is over.'
    : 'Only you see this note: it stays in this browser.';
  input.value = ownNote(gameId, card);
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
