// Invite links. A link carries its seat's invite in the URL's FRAGMENT only
// (#game=<id>&seat=<n>&invite=<secret>), which browsers never send to a
// server, so it never reaches a server log. Opening one takes it out of the
// address bar at once and claims the seat (POST /games/{id}/seats/{n}/claim,
// the invite in the body): the server answers with the seat's own token,
// kept by core/seats.js, and spends the invite, so a second browser that
// opens the same link is told the seat is taken and who invited. The
// browser that created the game keeps the links and the game's host token,
// and shows each friend's seat: waiting (the link, and a new one if it went
// astray), joined, or left (a new link lets someone else take over from the
// bot). Links of older pages carried the seat token itself (&token=): kept
// as they were.

import { api } from './api.js';
import { byId, h } from './dom.js';
import { getToken, hostToken, savedInvites, saveInvites, setToken } from './seats.js';
import { app, dispatch, say } from './state.js';

/** The fragment's parameters: {game, seat, invite, token} (absent ones undefined). */
function hashParams(hash = location.hash) {
  const out = {};
  for (const part of hash.replace(/^#/, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const k = part.slice(0, eq);
    if (k !== 'game' && k !== 'seat' && k !== 'token' && k !== 'invite') continue;
    try { out[k] = decodeURIComponent(part.slice(eq + 1)); } catch { /* malformed: ignore */ }
  }
  return out;
}

/** An invite opened and not claimed yet: {game, seat, invite}. */
let pending = null;

/** If the address carries an invite (or an old link's token), keep it and
 *  remove it from the address bar (and so from history and bookmarks).
 *  Returns the game id the address names, or null. */
export function takeInviteFromHash() {
  const p = hashParams();
  if (!p.game) return null;
  if (p.token !== undefined || p.seat !== undefined || p.invite !== undefined) {
    if (p.invite && /^\d+$/.test(p.seat || '')) pending = { game: p.game, seat: Number(p.seat), invite: p.invite };
    else if (p.token) setToken(p.game, p.token);
    history.replaceState(null, '', `${location.pathname}${location.search}#game=${encodeURIComponent(p.game)}`);
  }
  return p.game;
}

/** Claim the invite just opened for game `id`, if any. Returns true when the
 *  page should load the game quietly (a message about the invite is shown). */
export async function claimInvite(id) {
  const inv = pending && pending.game === id ? pending : null;
  pending = null;
  if (!inv) return false;
  const held = getToken(id);
  if (held) {
    // This browser sits at the table already: never trade its seat away.
    try {
      const { data } = await api('GET', `/games/${encodeURIComponent(id)}`, { token: held });
      if (data.you === inv.seat) return false; // the link of the seat it holds: just rejoin
      const seats = data.seats || [];
      const me = seats.find((s) => s.seat === data.you);
      const them = seats.find((s) => s.seat === inv.seat);
      say(`You already sit at this table${me ? ` as ${me.name}` : ''}. This link is for ${them ? `${them.name}'s` : 'another'} seat: send it to them.`, 'warning');
      return true;
    } catch (err) {
      if (err.status !== 401) { say(`Could not open the invite: ${err.message}`, 'error'); return true; }
      // the token held here no longer names a seat: claim
    }
  }
  try {
    const { data } = await api('POST', `/games/${encodeURIComponent(id)}/seats/${inv.seat}/claim`, { body: { invite: inv.invite } });
    setToken(id, data.token);
    say(`Welcome, ${data.name}: this seat is yours now, in this browser. The link you opened no longer works.`);
    return true;
  } catch (err) {
    // 409: taken (and by whom invited); 403: replaced or not an invite; 404: gone
    say(err.status === 409 || err.status === 403 ? `${err.message[0].toUpperCase()}${err.message.slice(1)}. You can watch the game.`
      : `Could not take the seat: ${err.message}`, 'error');
    return true;
  }
}

function inviteLink(id, seat, inv) {
  const base = `${location.origin}${location.pathname}`;
  const secret = inv.invite ? `invite=${encodeURIComponent(inv.invite)}` : `token=${encodeURIComponent(inv.token)}`;
  return `${base}#game=${encodeURIComponent(id)}&seat=${seat}&${secret}`;
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

/** Where an invited seat stands, from the public seats: 'open' (a link
 *  nobody claimed yet), 'joined', or 'left' (a bot plays it). */
function seatStatus(seat) {
  const s = app.seats.find((x) => x.seat === seat) || {};
  if (s.invite_open) return 'open';
  if (s.resigned) return 'left';
  return s.claimed ? 'joined' : 'open';
}

/** A new link for seat `seat` (the host token), kept in place of the old
 *  one; `replace`: the seat is held by someone who has gone. */
async function newLink(inv, replace = false) {
  const host = hostToken(app.id);
  try {
    const { data } = await api('POST', `/games/${encodeURIComponent(app.id)}/seats/${inv.seat}/invite`, { token: host, body: replace ? { replace } : {} });
    saveInvites(app.id, savedInvites(app.id).map((x) => (x.seat === inv.seat ? { seat: x.seat, name: x.name, invite: data.invite } : x)), host);
    dispatch({ type: 'invite/open', seat: inv.seat });
    say(`A new invite link for ${inv.name || 'that seat'}; the old one no longer works.`);
  } catch (err) {
    say(`Could not make a new link: ${err.message}`, 'error');
  }
}

function inviteRow(inv) {
  const status = seatStatus(inv.seat);
  const who = inv.name || 'Your friend';
  const label = h('span', { class: 'invite-who' }, who);
  const canRenew = !!hostToken(app.id);
  if (status === 'joined') {
    return h('li', { class: 'invite-row', 'data-testid': `invite-row-${inv.seat}`, dataset: { status } },
      label, h('span', { class: 'hint-text', 'data-testid': `invite-status-${inv.seat}` }, ' has joined the table.'),
      canRenew ? h('div', { class: 'invite-line' }, h('button', {
        type: 'button', class: 'btn btn-secondary', 'data-testid': `invite-replace-${inv.seat}`, onclick: () => newLink(inv, true),
      }, `${who} has gone? A new link for their seat`)) : null);
  }
  const renew = canRenew ? h('button', {
    type: 'button', class: 'btn btn-secondary', 'data-testid': `invite-new-${inv.seat}`, onclick: () => newLink(inv),
  }, 'New link') : null;
  if (status === 'left') {
    return h('li', { class: 'invite-row', 'data-testid': `invite-row-${inv.seat}`, dataset: { status } },
      label, h('span', { class: 'hint-text', 'data-testid': `invite-status-${inv.seat}` }, ' left the table; a bot plays for them. A new link lets someone take the seat back.'),
      renew ? h('div', { class: 'invite-line' }, renew) : null);
  }
  const link = inviteLink(app.id, inv.seat, inv);
  const inputId = `invite-link-${inv.seat}`;
  const input = h('input', { id: inputId, type: 'text', class: 'invite-link', readonly: true, value: link, 'data-testid': `invite-link-${inv.seat}`, spellcheck: 'false' });
  const copy = h('button', {
    type: 'button', class: 'btn btn-secondary', 'data-testid': `invite-copy-${inv.seat}`,
    onclick: async () => {
      const ok = await copyText(link, input);
      say(ok ? `Invite link for ${who} copied.` : 'Press Ctrl+C (or ⌘C) to copy the selected link.');
    },
  }, 'Copy');
  const s = app.seats.find((x) => x.seat === inv.seat) || {};
  const note = s.resigned ? ' (their seat, played by a bot until someone opens this link)'
    : s.claimed ? ' (a new link: whoever opens it takes the seat over)' : '';
  return h('li', { class: 'invite-row', 'data-testid': `invite-row-${inv.seat}`, dataset: { status } },
    h('label', { for: inputId }, who, note),
    h('div', { class: 'invite-line' }, input, copy, renew));
}

/** The invite links of the shown game, if this browser created it (the
 *  links are kept in localStorage: core/seats.js); redrawn only when a
 *  seat's standing or a link changed, so that a selected link stays
 *  selected. */
export function drawInvites(s) {
  let box = byId('invites');
  const list = s.id ? savedInvites(s.id) : [];
  if (!list.length || (s.status && s.status.over) || s.invitesHidden === s.id) {
    if (box) box.hidden = true;
    return;
  }
  if (!box) {
    box = h('section', { id: 'invites', class: 'panel invites', 'data-testid': 'invites', 'aria-labelledby': 'invites-title' });
    const game = byId('game');
    game.parentNode.insertBefore(box, game);
  }
  const key = `${s.id}:${list.map((inv) => `${inv.seat}=${seatStatus(inv.seat)}:${inv.invite || ''}`).join(',')}`;
  if (box.dataset.key === key && !box.hidden) return;
  box.dataset.key = key;
  box.replaceChildren(
    h('h2', { id: 'invites-title' }, 'Invite your friends'),
    h('p', { class: 'hint-text' }, 'Send each friend their own link: the first browser to open it takes that seat, and the link is used up. ' +
      'It stays out of server logs, but share it only with that friend.'),
    h('ul', { class: 'invite-list' }, list.map(inviteRow)),
    h('button', {
      type: 'button', class: 'btn btn-secondary', 'data-testid': 'invites-close',
      onclick: () => dispatch({ type: 'invites/hide', id: s.id }),
    }, 'Hide the links'));
  box.hidden = false;
}
