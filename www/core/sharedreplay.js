// Shared replays (docs/api.md "Shared replays"): "Share this replay" makes one
// (POST /games/{id}/replays) and shows a link, #replay=<rid>, that holds the
// replay's id only; whoever opens it follows the leader: the page reads the
// replay's stream (GET /replays/{rid}/events, fetched as events.js reads a
// game's) and shows each play the leader shows. The leader's token (and a
// follower's, once it asked to lead) stays in this browser's localStorage,
// never in the address. A follower may browse alone and follow again; the
// step controls are the leader's, and a follower's only while browsing
// alone. The state's `shared` ({rid, lead, alone, leader, ply, followers,
// candidates, asked}) is written through dispatch only; replay.js calls in
// here (showPly is its own way to a position, given at setup).

import { api } from './api.js';
import { byId, h } from './dom.js';
import { SSEParser } from './events.js';
import { app, dispatch, pref, say, sayError, setPref } from './state.js';

const KEY = (rid) => `croupier.replay.${rid}`;

let showPly = () => {};
let stream = null; // {rid, abort}

function kept(rid) {
  try { return JSON.parse(localStorage.getItem(KEY(rid)) || '{}') || {}; } catch { return {}; }
}
function keep(rid, v) {
  try { localStorage.setItem(KEY(rid), JSON.stringify(v)); } catch { /* storage full or off */ }
}

const set = (shared) => dispatch({ type: 'replay/shared', shared });

/** The name the others read ("Following Ada", "Bea asks to lead"): the one
 *  typed in the bar, else the one this browser keeps (the `name` setting,
 *  croupier.name: the lobby's "Your name"); a typed one is kept. None: the
 *  server's default. */
function myName() {
  const typed = (byId('shared-name').value || '').trim().slice(0, 64);
  if (typed) setPref('name', typed);
  return typed || String(pref('name', '') || '').trim().slice(0, 64);
}
const withName = (body) => { const name = myName(); return name ? { ...body, name } : body; };

/** The replay followed in the address (#...&follow=<rid>), or null. */
function followFromHash() {
  const m = /(?:^#|&)follow=([A-Za-z0-9_-]{1,95})(?:&|$)/.exec(location.hash);
  return m ? m[1] : null;
}

/** The address's tail that keeps a shared replay followed. */
export const followTail = () => (app.shared ? `&follow=${app.shared.rid}` : '');

/** A link of the others (#replay=<rid>): the game and position it shows, in the
 *  address as the replay view reads it. Before loadGame. */
export async function resolveSharedLink() {
  const m = /^#replay=([A-Za-z0-9_-]{1,95})$/.exec(location.hash);
  if (!m) return;
  try {
    const { data } = await api('GET', `/replays/${m[1]}`);
    history.replaceState(null, '', `#game=${encodeURIComponent(data.game)}&at=${data.ply}&follow=${m[1]}`);
  } catch (err) {
    sayError(err, 'Could not open the shared replay');
  }
}

/** 1 when the step controls are not this tab's: it follows a leader. */
export function following() {
  const sh = app.shared;
  return !!(sh && !sh.lead && !sh.alone);
}

/** The leader moved (replay.js's step): the followers are told. */
export async function leaderMoved(at) {
  const sh = app.shared;
  if (!sh || !sh.lead) return;
  const { token } = kept(sh.rid);
  try {
    await api('PUT', `/replays/${sh.rid}`, { token, body: { ply: at } });
  } catch (err) {
    if (err.status === 403 || err.status === 401) set({ lead: false });
    sayError(err, 'Could not move the shared replay');
  }
}

function onEvent(rid, f) {
  if (!app.shared || app.shared.rid !== rid) return;
  let d = {};
  try { d = JSON.parse(f.data); } catch { return; }
  const sh = app.shared;
  if (f.event === 'state') {
    set({ leader: d.leader, ply: d.ply, followers: d.followers, candidates: d.candidates || [] });
  } else if (f.event === 'move') {
    set({ leader: d.leader, ply: d.ply });
  } else if (f.event === 'candidate') {
    set({ candidates: [...sh.candidates.filter((c) => c.candidate !== d.candidate), { candidate: d.candidate, name: d.name }] });
  } else if (f.event === 'leader') {
    const mine = kept(rid);
    const lead = mine.candidate === d.candidate;
    if (lead) keep(rid, { token: mine.candidateToken });
    else if (sh.lead) keep(rid, {});
    set({ leader: d.leader, ply: d.ply, lead, asked: lead ? false : sh.asked, candidates: sh.candidates.filter((c) => c.candidate !== d.candidate) });
    if (lead) say('You lead the shared replay now.', 'info');
  } else if (f.event === 'end') {
    stopShared();
    say('The shared replay ended: it was closed, or no move came for a long while.', 'info');
    return;
  }
  if ((f.event === 'state' || f.event === 'move' || f.event === 'leader') && following()) showPly(d.ply);
}

async function readStream(rid, signal) {
  let lastId = null;
  let wait = 1000;
  while (!signal.aborted) {
    try {
      const headers = { Accept: 'text/event-stream' };
      if (lastId !== null) headers['Last-Event-ID'] = lastId;
      const res = await fetch(`/replays/${rid}/events`, { headers, cache: 'no-store', signal });
      if (res.status === 404) { onEvent(rid, { event: 'end', data: '{}' }); return; }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      wait = 1000;
      const parser = new SSEParser((f) => { if (f.id !== null && f.id !== undefined) lastId = f.id; onEvent(rid, f); });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch (err) {
      if (signal.aborted) return;
      wait = Math.min(wait * 2, 15000);
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** Follow (or lead) replay `rid` of the replay shown. */
function startShared(rid) {
  if (stream && stream.rid === rid) return;
  stopShared();
  const ac = new AbortController();
  stream = { rid, abort: () => ac.abort() };
  const mine = kept(rid);
  set({ rid, lead: !!mine.token, alone: false, leader: '', ply: null, followers: 0, candidates: [], asked: !!mine.candidate });
  readStream(rid, ac.signal);
}

export function stopShared() {
  if (stream) stream.abort();
  stream = null;
  if (app.shared) dispatch({ type: 'replay/shared', shared: null });
}

/** The address says which shared replay to follow (after the replay opened). */
export function syncShared() {
  const rid = followFromHash();
  if (rid && app.replay) startShared(rid);
  else if (!rid && app.shared) stopShared();
}

async function share() {
  const rp = app.replay;
  if (!rp) return;
  try {
    const { data } = await api('POST', `/games/${encodeURIComponent(rp.id)}/replays`, { token: rp.token, body: withName({ ply: rp.at }) });
    keep(data.id, { token: data.token });
    history.replaceState(null, '', `#game=${encodeURIComponent(rp.id)}&at=${rp.at}&follow=${data.id}`);
    startShared(data.id);
  } catch (err) {
    sayError(err, 'Could not share this replay');
  }
}

async function askToLead() {
  const sh = app.shared;
  if (!sh) return;
  try {
    const { data } = await api('POST', `/replays/${sh.rid}/candidates`, { body: withName({}) });
    keep(sh.rid, { candidate: data.candidate, candidateToken: data.token });
    set({ asked: true });
  } catch (err) {
    sayError(err, 'Could not ask to lead');
  }
}

async function handOver(candidate) {
  const sh = app.shared;
  if (!sh || !sh.lead) return;
  try {
    await api('POST', `/replays/${sh.rid}/leader`, { token: kept(sh.rid).token, body: { candidate } });
  } catch (err) {
    sayError(err, 'Could not hand over');
  }
}

/** The shared replay's bar, from the state. */
export function drawShared(s) {
  const sh = s.shared;
  byId('share-button').hidden = !!sh || !(s.status && s.status.over); // a finished game only
  byId('shared-on').hidden = !sh;
  if (!sh) return;
  const link = `${location.origin}/#replay=${sh.rid}`;
  if (byId('shared-link').value !== link) byId('shared-link').value = link;
  const text = sh.lead ? 'You lead this shared replay: the others see the move you show.'
    : sh.alone ? `Browsing alone. ${sh.leader || 'The leader'} is at ${sh.ply === null ? '…' : sh.ply < 0 ? 'the deal' : `play ${sh.ply}`}.`
      : `Following ${sh.leader || 'the leader'}: the move shown is theirs.`;
  if (byId('shared-status').textContent !== text) byId('shared-status').textContent = text;
  const toggle = byId('shared-toggle');
  toggle.hidden = sh.lead;
  toggle.textContent = sh.alone ? 'Follow again' : 'Browse alone';
  byId('shared-name-field').hidden = sh.lead || !!sh.asked;
  const nameIn = byId('shared-name');
  if (!nameIn.value && document.activeElement !== nameIn) nameIn.value = pref('name', '') || '';
  const ask = byId('shared-ask');
  ask.hidden = sh.lead;
  ask.disabled = !!sh.asked;
  ask.textContent = sh.asked ? 'Asked to lead' : 'Ask to lead';
  const list = byId('shared-candidates');
  const want = sh.lead ? sh.candidates : [];
  if (list.dataset.key !== JSON.stringify(want)) {
    list.dataset.key = JSON.stringify(want);
    list.replaceChildren(...want.map((c) => h('li', {}, `${c.name} asks to lead `, h('button', {
      type: 'button', class: 'btn btn-secondary', 'data-testid': `shared-handover-${c.candidate}`, onclick: () => handOver(c.candidate),
    }, 'Hand over'))));
  }
}

export function setupShared({ show }) {
  showPly = show;
  byId('share-button').addEventListener('click', share);
  byId('shared-ask').addEventListener('click', askToLead);
  byId('shared-toggle').addEventListener('click', () => {
    const sh = app.shared;
    if (!sh || sh.lead) return;
    set({ alone: !sh.alone });
    if (sh.alone && sh.ply !== null) showPly(sh.ply); // following again: the leader's move
  });
  byId('shared-copy').addEventListener('click', async () => {
    try { await navigator.clipboard.writeText(byId('shared-link').value); say('Link copied.', 'info'); } catch { byId('shared-link').select(); }
  });
}
