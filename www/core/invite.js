// Invite links: a seat's token travels in the URL's FRAGMENT only
// (#game=<id>&seat=<n>&token=<token>), which browsers never send to a server,
// so it never reaches a server log. Opening such a link stores the token
// (core/seats.js), takes it out of the address bar at once and joins the seat.

import { byId, h } from './dom.js';
import { savedInvites, setToken } from './seats.js';
import { app, say } from './state.js';

/** The fragment's parameters: {game, seat, token} (absent ones undefined). */
export function hashParams(hash = location.hash) {
  const out = {};
  for (const part of hash.replace(/^#/, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const k = part.slice(0, eq);
    if (k !== 'game' && k !== 'seat' && k !== 'token') continue;
    try { out[k] = decodeURIComponent(part.slice(eq + 1)); } catch { /* malformed: ignore */ }
  }
  return out;
}

/** If the address carries a seat token, keep it (localStorage) and remove it
 *  from the address bar (and so from history and bookmarks). Returns the game
 *  id the address names, or null. */
export function takeInviteFromHash() {
  const p = hashParams();
  if (!p.game) return null;
  if (p.token !== undefined || p.seat !== undefined) {
    if (p.token) setToken(p.game, p.token);
    history.replaceState(null, '', `${location.pathname}${location.search}#game=${encodeURIComponent(p.game)}`);
  }
  return p.game;
}

export function inviteLink(id, seat, token) {
  const base = `${location.origin}${location.pathname}`;
  return `${base}#game=${encodeURIComponent(id)}&seat=${seat}&token=${encodeURIComponent(token)}`;
}

async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission (or not a secure context): select it for Ctrl+C.
    input.focus();
    input.select();
    return false;
  }
}

/** Show (or hide) the invite links of the shown game, if this browser created it. */
export function showInvites() {
  let box = byId('invites');
  const list = app.id ? savedInvites(app.id) : [];
  if (!list.length || (app.state && app.state.over)) {
    if (box) box.hidden = true;
    return;
  }
  if (!box) {
    box = h('section', { id: 'invites', class: 'panel invites', 'data-testid': 'invites', 'aria-labelledby': 'invites-title' });
    const game = byId('game');
    game.parentNode.insertBefore(box, game);
  }
  if (box.dataset.gameId === app.id && box.dataset.dismissed === 'true') { box.hidden = true; return; }
  if (box.dataset.gameId === app.id && !box.hidden) return; // already shown: keep focus and selection
  box.dataset.gameId = app.id;
  box.dataset.dismissed = 'false';
  const rows = list.map((inv) => {
    const link = inviteLink(app.id, inv.seat, inv.token);
    const inputId = `invite-link-${inv.seat}`;
    const input = h('input', { id: inputId, type: 'text', class: 'invite-link', readonly: true, value: link, 'data-testid': `invite-link-${inv.seat}`, spellcheck: 'false' });
    const copy = h('button', {
      type: 'button', class: 'btn btn-secondary', 'data-testid': `invite-copy-${inv.seat}`,
      onclick: async () => {
        const ok = await copyText(link, input);
        say(ok ? `Invite link for player ${inv.seat} copied.` : 'Press Ctrl+C (or ⌘C) to copy the selected link.');
      },
    }, 'Copy');
    return h('li', { class: 'invite-row' },
      h('label', { for: inputId }, `Player ${inv.seat}${inv.name ? ` (${inv.name})` : ''}`),
      h('div', { class: 'invite-line' }, input, copy));
  });
  box.replaceChildren(
    h('h2', { id: 'invites-title' }, 'Invite your friends'),
    h('p', { class: 'hint-text' }, 'Send each friend their own link: opening it takes that seat, in any browser. ' +
      'Each link is a secret key to its seat; it stays out of server logs, but share it only with that friend.'),
    h('ul', { class: 'invite-list' }, rows),
    h('button', {
      type: 'button', class: 'btn btn-secondary', 'data-testid': 'invites-close',
      onclick: () => { box.dataset.dismissed = 'true'; box.hidden = true; },
    }, 'Hide the links'));
  box.hidden = false;
}
