// Hypotheticals in the replay of a finished Hanabi game, as on hanab.live:
// from any position, try other plays on the game's known deck, step back and
// forth through them, and leave; the real game never changes.
//
// The page keeps no rules: the server plays the hypothetical. A finished
// game's export is open to everyone (GET /games/{id}/export), and a Hanabi
// state is its deck and its actions, so the real game up to the chosen move
// is imported as a game of its own (POST /games/import) with a person in
// every seat (one token each, kept in this page only) and spectators shown
// every hand. Each try is a play there (POST /plays with the token of the
// player to move, judged by the server as any play is); each step back is
// that game at an earlier play (GET ?at=N). A play from a step back starts
// the hypothetical afresh from there (a new import). Everything is drawn in a
// board of its own, marked "not the real game", in the replay's tools; the
// replay's own board waits aside, as it was.

import { api } from '../core/api.js';
import { byId, h } from '../core/dom.js';
import { readable } from '../core/log.js';
import { app, seatName } from '../core/state.js';
import { handCard } from '../core/numbering.js';
import { HB_COLOURS, hbCardText, hbPlay } from './hanabi-cards.js';

let hypo = null;       // the hypothetical shown, or null
const exports = new Map(); // game id -> its export (a finished game's never changes)

/** The replay's tools for the position shown (called by core/replay.js after
 *  each step): a button to start a hypothetical here, on a finished game. */
export function hbReplayTools(rp, drawTable) {
  if (hypo) leave(false); // the real replay moved (and said so): the hypothetical ends
  if (!app.state || !app.state.over) return null;
  return h('div', { class: 'hb-hypo-tools', id: 'hb-hypo-tools' },
    h('button', {
      type: 'button', class: 'btn btn-secondary', 'data-testid': 'hb-hypo-start',
      onclick: () => start(rp, drawTable),
    }, 'Try other plays from here'),
    h('span', { class: 'hint-text' }, ' A hypothetical on this game\'s deck: it does not change the game.'));
}

async function exportOf(id) {
  if (!exports.has(id)) {
    const { data } = await api('GET', `/games/${encodeURIComponent(id)}/export`, { token: app.token });
    exports.set(id, data);
  }
  return exports.get(id);
}

/** Import the real game's first `k` actions followed by the tries `extra`:
 *  a game of its own, which holds the positions from play k + extra.length on. */
async function importFrom(ex, k, extra) {
  const state = { ...ex.state, actions: [...ex.state.actions.slice(0, k), ...extra.map((r) => ({ seat: r.seat, play: r.play }))] };
  const seats = (ex.seats || []).map((x) => ({ seat: x.seat, name: x.name || seatName(x.seat) }));
  const { data } = await api('POST', '/games/import', {
    body: { format: 'json', game: ex.game, variant: ex.variant, seed: ex.seed, version: ex.version, spectators: 'all', seats, state },
  });
  const tokens = {};
  for (const x of data.seats || []) if (x.token) tokens[x.seat] = x.token;
  return { gid: data.id, tokens, from: k + extra.length };
}

async function start(rp, drawTable) {
  try {
    const ex = await exportOf(rp.id);
    const k = rp.at < 0 ? 0 : rp.at;
    const made = await importFrom(ex, k, []);
    hypo = {
      gameId: rp.id, baseAt: rp.at, k, ex, drawTable,
      games: [made],                          // the imports, oldest first (a branch adds one)
      real: rp.plays.filter((r) => r.n <= k), // the real history up to here
      tries: [],                              // the hypothetical plays (records)
      pos: -1,                                // shown: after tries[pos] (-1: none)
      views: new Map(), sel: null, said: '', busy: false, statusWas: byId('replay-status').textContent,
    };
    await show();
    const board = byId('hb-hypo-board');
    if (board) board.focus();
  } catch (err) {
    hypoSay(`Could not start a hypothetical: ${err.message}`);
  }
}

/** The replay's own board and move list, put aside while a hypothetical shows. */
const replayBody = () => byId('replay-board').closest('.game-body');

/** End the hypothetical: the replay's board and status come back. */
function leave(restore = true) {
  const board = byId('hb-hypo-board');
  if (board) board.remove();
  replayBody().hidden = false;
  const tools = byId('hb-hypo-tools');
  if (tools) tools.classList.remove('active');
  const status = byId('replay-status');
  if (status && hypo) {
    status.classList.remove('hb-hypo-status');
    if (restore) status.textContent = hypo.statusWas;
  }
  hypo = null;
}

function hypoSay(text) {
  if (hypo) hypo.said = text;
  const el = byId('hb-hypo-said');
  if (el) el.textContent = text;
  else byId('message').textContent = text;
}

/** The play number shown: the import's last (k) plus the tries up to pos. */
const shownN = () => hypo.k + hypo.pos + 1;

/** The newest import: where the next try is played. */
const newest = () => hypo.games[hypo.games.length - 1];

/** The hypothetical after play n, from the newest import that holds it (a
 *  branch shares every position up to its start with the line it left). */
async function viewAt(n) {
  if (hypo.views.has(n)) return hypo.views.get(n);
  const game = [...hypo.games].reverse().find((x) => x.from <= n);
  const at = game === newest() && n === hypo.k + hypo.tries.length ? '' : `?at=${n}`;
  const { data } = await api('GET', `/games/${encodeURIComponent(game.gid)}${at}`);
  hypo.views.set(n, data);
  return data;
}

async function show() {
  const hp = hypo;
  const view = await viewAt(shownN());
  if (hypo !== hp) return;
  const s = view.state;
  const atEnd = hp.pos === hp.tries.length - 1;
  let legal = [];
  if (atEnd && !s.over && newest().tokens[s.current]) {
    try {
      const { data } = await api('GET', `/games/${encodeURIComponent(newest().gid)}/legal`, { token: newest().tokens[s.current] });
      legal = ((data && data.plays) || []).map(hbPlay);
    } catch { /* no highlights: the server still judges every try */ }
  }
  if (hypo !== hp) return;
  draw(s, legal);
}

function draw(s, legal) {
  const hp = hypo;
  const ctx = {
    s, you: s.over ? null : s.current, playing: !s.over && !hp.busy, legal, sel: hp.sel, hint: null, busy: hp.busy,
    gameId: newest().gid, records: [...hp.real, ...hp.tries.slice(0, hp.pos + 1)], mode: 'hypo',
    select: (key) => { hp.sel = hp.sel === key ? null : key; draw(s, legal); },
    act: (play) => tryPlay(s, play),
    say: (text) => hypoSay(text),
    redraw: () => draw(s, legal),
    near: null,
  };
  let board = byId('hb-hypo-board');
  if (!board) {
    board = h('div', { id: 'hb-hypo-board', class: 'board hb-hypo-board', 'data-testid': 'hb-hypo-board', tabindex: '-1', 'aria-label': 'Hypothetical: not the real game' });
    byId('hb-hypo-tools').append(board);
  }
  byId('hb-hypo-tools').classList.add('active');
  replayBody().hidden = true;
  const drawn = s.over ? null : nextCards(s);
  board.replaceChildren(
    h('div', { class: 'hb-hypo-banner', 'data-testid': 'hb-hypo-banner', role: 'note' },
      h('strong', {}, 'Hypothetical — not the real game. '),
      `From move ${hp.k} of the real game, on its deck. ${triesText(hp)}`),
    h('div', { class: 'hb-hypo-controls', role: 'group', 'aria-label': 'Hypothetical controls' },
      h('button', { type: 'button', class: 'btn btn-secondary', 'data-testid': 'hb-hypo-back', disabled: hp.pos < 0 || hp.busy, onclick: () => step(-1) }, '◀ Back'),
      h('button', { type: 'button', class: 'btn btn-secondary', 'data-testid': 'hb-hypo-forward', disabled: hp.pos >= hp.tries.length - 1 || hp.busy, onclick: () => step(1) }, 'Forward ▶'),
      h('button', { type: 'button', class: 'btn btn-primary', 'data-testid': 'hb-hypo-leave', onclick: () => { leave(); byId('replay-next').focus(); } }, 'Back to the real game')),
    h('p', { class: 'hb-hypo-said', id: 'hb-hypo-said', 'data-testid': 'hb-hypo-said', role: 'status' }, hp.said),
    hp.tries.length ? h('ol', { class: 'hb-hypo-list', 'data-testid': 'hb-hypo-list', start: String(hp.k + 1) },
      hp.tries.map((rec, i) => h('li', { class: i === hp.pos ? 'current' : null }, h('span', { class: 'log-who' }, seatName(rec.seat)), ' ', describe(rec)))) : null,
    drawn && drawn.length ? h('p', { class: 'hb-hypo-deck', 'data-testid': 'hb-hypo-deck' }, 'Next from the deck: ', drawn.map((c, i) => [i ? ' ' : '', hbCardText(c)])) : null,
    hp.drawTable(ctx));
  const status = byId('replay-status');
  status.textContent = s.over ? `Hypothetical over: score ${s.score} of ${s.max_score}.` : `Hypothetical: ${seatName(s.current)} to play · score ${s.score}/${s.max_score}`;
  status.classList.add('hb-hypo-status');
}

/** Where the hypothetical stands, in words. */
function triesText(hp) {
  const n = hp.tries.length;
  if (!n) return 'Make a play for the player to move.';
  if (hp.pos < 0) return `At the real position, ${n} tr${n === 1 ? 'y' : 'ies'} ahead.`;
  return `Try ${hp.pos + 1} of ${n}.`;
}

/** The next cards of the known deck (the real game's, drawn in the same order). */
function nextCards(s) {
  const deck = hypo.ex.state.deck || [];
  const drawn = deck.length - s.deck;
  return deck.slice(drawn, drawn + 3);
}

function describe(rec) {
  const play = hbPlay(rec.play);
  if (play.type === 'hint') {
    const clue = play.color ? h('span', { class: `hb-word hb-${play.color}` }, HB_COLOURS[play.color]) : `${play.number}s`;
    return [`hinted ${seatName(play.target)} about their `, clue,
      Array.isArray(rec.touched) ? ` (card${rec.touched.length === 1 ? '' : 's'} ${rec.touched.map(handCard).join(', ')})` : ''];
  }
  return [`${play.type === 'play' ? 'played' : 'discarded'} card ${handCard(play.card)}`,
    rec.card ? [': ', hbCardText(rec.card)] : '', play.type === 'play' && rec.card ? (rec.correct ? ' ✓' : ' ✗ an error') : ''];
}

async function step(delta) {
  if (!hypo || hypo.busy) return;
  const pos = Math.max(-1, Math.min(hypo.tries.length - 1, hypo.pos + delta));
  if (pos === hypo.pos) return;
  hypo.pos = pos;
  hypo.sel = null;
  hypo.said = '';
  await show();
}

async function tryPlay(s, play) {
  const hp = hypo;
  if (!hp || hp.busy || s.over) return;
  hp.busy = true;
  hp.sel = null;
  try {
    if (hp.pos < hp.tries.length - 1) {
      // Another play from an earlier try: a new branch, imported from there
      // (the positions after it belong to the line left).
      const keep = hp.tries.slice(0, hp.pos + 1);
      hp.games.push(await importFrom(hp.ex, hp.k, keep));
      hp.tries = keep;
      for (const n of [...hp.views.keys()]) if (n > shownN()) hp.views.delete(n);
    }
    const cur = (await viewAt(shownN())).state;
    const { data } = await api('POST', `/games/${encodeURIComponent(newest().gid)}/plays`, {
      token: newest().tokens[cur.current], body: { play },
    });
    hp.tries.push(...(data.applied || []));
    hp.pos = hp.tries.length - 1;
    hp.views.delete(shownN());
    hp.said = '';
  } catch (err) {
    hp.said = err.status === 422 ? `Not allowed: ${readable(err.message)}` : `The try failed: ${err.message}`;
  } finally {
    hp.busy = false;
  }
  if (hypo === hp) await show();
}

// The arrow keys step through the hypothetical while it is shown (before the
// replay's own keys, which would move the real game).
if (typeof document !== 'undefined') {
  document.addEventListener('keydown', (ev) => {
    if (!hypo || !byId('hb-hypo-board') || byId('replay').hidden || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    const t = ev.target;
    if (t && (/^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName) || t.isContentEditable)) return;
    if (ev.key !== 'ArrowLeft' && ev.key !== 'ArrowRight') return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    step(ev.key === 'ArrowLeft' ? -1 : 1);
  }, true);
}
