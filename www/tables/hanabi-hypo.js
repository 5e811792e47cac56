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
// replay's own board steps aside meanwhile.
//
// The hypothetical is the table's own state (app.table.hypo, written with
// setTable): the replay draws it through the replayTools hook, from that
// state alone. It belongs to the position it started from: once the replay
// moves elsewhere it is over.

import { api } from '../core/api.js';
import { byId, h } from '../core/dom.js';
import { readable } from '../core/log.js';
import { app, say, seatName, setTable } from '../core/state.js';
import { HB_COLOURS, handCard, hbCardText, hbPlay } from './hanabi-cards.js';
import { hbHandLength } from './hanabi-track.js';

const exports = new Map(); // game id -> its export (a finished game's never changes)
const views = new Map();   // "<import id>@<n>" -> a hypothetical position fetched

/** The hypothetical of the replay at `rp` (its game and position), or null. */
function current(rp) {
  const hp = app.table.hypo;
  return hp && rp && hp.gameId === rp.id && hp.baseAt === rp.at ? hp : null;
}

/** Change the hypothetical `hp` (the table's state): the one shown now
 *  with the same start, or nothing when it ended meanwhile. */
function update(hp, change) {
  const now = app.table.hypo;
  if (!hp || !now || now.key !== hp.key) return null;
  const next = { ...now, ...change };
  setTable('hypo', next);
  return next;
}

let starts = 0;

/** The replay's tools for the position shown (core/replay.js): a button to
 *  start a hypothetical here, on a finished game; the hypothetical itself
 *  once started (data-replaces: the replay's own board steps aside). */
export function hbReplayTools(rp, drawTable) {
  const hp = current(rp);
  if (hp) return drawHypo(hp, drawTable);
  if (!app.state || !app.state.over) return null;
  return h('div', { class: 'hb-hypo-tools', id: 'hb-hypo-tools' },
    h('button', {
      type: 'button', class: 'btn btn-secondary', 'data-testid': 'hb-hypo-start',
      onclick: () => start(rp),
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

async function start(rp) {
  try {
    const ex = await exportOf(rp.id);
    const k = rp.at < 0 ? 0 : rp.at;
    const made = await importFrom(ex, k, []);
    const hp = {
      key: ++starts, gameId: rp.id, baseAt: rp.at, k, deck: ex.state.deck || [],
      games: [made],                          // the imports, oldest first (a branch adds one)
      real: rp.plays.filter((r) => r.n <= k), // the real history up to here
      tries: [],                              // the hypothetical plays (records)
      pos: -1,                                // shown: after tries[pos] (-1: none)
      sel: null, said: '', busy: false,
      shown: null,                            // {n, state, legal}: the position drawn
    };
    setTable('hypo', hp);
    await show(hp);
    const board = byId('hb-hypo-board');
    if (board) board.focus();
  } catch (err) {
    say(`Could not start a hypothetical: ${err.message}`, 'error');
  }
}

/** End the hypothetical: the replay's board and status come back. */
function leave() {
  setTable('hypo', null);
}

/** The play number shown: the import's last (k) plus the tries up to pos. */
const shownN = (hp) => hp.k + hp.pos + 1;

/** The newest import: where the next try is played. */
const newest = (hp) => hp.games[hp.games.length - 1];

/** The hypothetical after play n, from the newest import that holds it (a
 *  branch shares every position up to its start with the line it left). */
async function viewAt(hp, n) {
  const game = [...hp.games].reverse().find((x) => x.from <= n);
  const key = `${game.gid}@${n}`;
  if (views.has(key)) return views.get(key);
  const at = game === newest(hp) && n === hp.k + hp.tries.length ? '' : `?at=${n}`;
  const { data } = await api('GET', `/games/${encodeURIComponent(game.gid)}${at}`);
  // The newest position of the newest import changes with the next try: not kept.
  if (at) views.set(key, data);
  return data;
}

let shows = 0; // the latest show() wins

/** Fetch the position to show once `change` is made (and its legal plays,
 *  at the end of the tries), then make the change and show it at once: the
 *  banner and the board always tell of one position. */
async function show(hp1, change = {}) {
  const run = ++shows;
  const hp0 = { ...hp1, ...change };
  const n = shownN(hp0);
  const view = await viewAt(hp0, n);
  const s = view.state;
  const atEnd = hp0.pos === hp0.tries.length - 1;
  let legal = [];
  const g = newest(hp0);
  if (atEnd && !s.over && g.tokens[s.current]) {
    try {
      const { data } = await api('GET', `/games/${encodeURIComponent(g.gid)}/legal`, { token: g.tokens[s.current] });
      legal = ((data && data.plays) || []).map(hbPlay);
    } catch { /* no highlights: the server still judges every try */ }
  }
  if (run === shows) update(hp1, { ...change, shown: { n, state: s, legal } }); // else a later step overtook this one
}

function drawHypo(hp, drawTable) {
  const tools = h('div', {
    class: 'hb-hypo-tools active', id: 'hb-hypo-tools', dataset: { replaces: 'true', status: '' },
  });
  if (!hp.shown) return tools;
  const { state: s, legal } = hp.shown;
  const ctx = {
    s, you: s.over ? null : s.current, playing: !s.over && !hp.busy, legal, sel: hp.sel, hint: null, busy: hp.busy,
    gameId: newest(hp).gid, records: [...hp.real, ...hp.tries.slice(0, hp.pos + 1)], mode: 'hypo', table: app.table,
    select: (key) => update(hp, { sel: hp.sel === key ? null : key }),
    act: (play) => tryPlay(hp, s, play),
    say: (text) => update(hp, { said: text }),
    near: null,
  };
  const drawn = s.over ? null : nextCards(hp, s);
  const board = h('div', { id: 'hb-hypo-board', class: 'board hb-hypo-board', 'data-testid': 'hb-hypo-board', tabindex: '-1', 'aria-label': 'Hypothetical: not the real game' },
    h('div', { class: 'hb-hypo-banner', 'data-testid': 'hb-hypo-banner', role: 'note' },
      h('strong', {}, 'Hypothetical — not the real game. '),
      `From move ${hp.k} of the real game, on its deck. ${triesText(hp)}`),
    h('div', { class: 'hb-hypo-controls', role: 'group', 'aria-label': 'Hypothetical controls' },
      h('button', { type: 'button', class: 'btn btn-secondary', 'data-testid': 'hb-hypo-back', disabled: hp.pos < 0 || hp.busy, onclick: () => step(hp, -1) }, '◀ Back'),
      h('button', { type: 'button', class: 'btn btn-secondary', 'data-testid': 'hb-hypo-forward', disabled: hp.pos >= hp.tries.length - 1 || hp.busy, onclick: () => step(hp, 1) }, 'Forward ▶'),
      h('button', { type: 'button', class: 'btn btn-primary', 'data-testid': 'hb-hypo-leave', onclick: () => { leave(); byId('replay-next').focus(); } }, 'Back to the real game')),
    h('p', { class: 'hb-hypo-said', id: 'hb-hypo-said', 'data-testid': 'hb-hypo-said', role: 'status' }, hp.said),
    hp.tries.length ? h('ol', { class: 'hb-hypo-list', 'data-testid': 'hb-hypo-list', start: String(hp.k + 1) },
      hp.tries.map((rec, i) => h('li', { class: i === hp.pos ? 'current' : null }, h('span', { class: 'log-who' }, seatName(rec.seat)), ' ', describe(rec, hp)))) : null,
    drawn && drawn.length ? h('p', { class: 'hb-hypo-deck', 'data-testid': 'hb-hypo-deck' }, 'Next from the deck: ', drawn.map((c, i) => [i ? ' ' : '', hbCardText(c)])) : null,
    drawTable(ctx));
  tools.append(board);
  tools.dataset.status = s.over ? `Hypothetical over: score ${s.score} of ${s.max_score}.` : `Hypothetical: ${seatName(s.current)} to play · score ${s.score}/${s.max_score}`;
  return tools;
}

/** Where the hypothetical stands, in words. */
function triesText(hp) {
  const n = hp.tries.length;
  if (!n) return 'Make a play for the player to move.';
  if (hp.pos < 0) return `At the real position, ${n} tr${n === 1 ? 'y' : 'ies'} ahead.`;
  return `Try ${hp.pos + 1} of ${n}.`;
}

/** The next cards of the known deck (the real game's, drawn in the same order). */
function nextCards(hp, s) {
  const drawn = hp.deck.length - s.deck;
  return hp.deck.slice(drawn, drawn + 3);
}

function describe(rec, hp) {
  const play = hbPlay(rec.play);
  const players = (hp.shown && hp.shown.state && hp.shown.state.players) || 0;
  const len = (who) => (players ? hbHandLength([...hp.real, ...hp.tries], who, rec.n, players) : 0);
  if (play.type === 'hint') {
    const clue = play.color ? h('span', { class: `hb-word hb-${play.color}` }, HB_COLOURS[play.color]) : `${play.number}s`;
    return [`hinted ${seatName(play.target)} about their `, clue,
      Array.isArray(rec.touched) ? ` (card${rec.touched.length === 1 ? '' : 's'} ${rec.touched.map((i) => handCard(i, len(play.target))).join(', ')})` : ''];
  }
  return [`${play.type === 'play' ? 'played' : 'discarded'} card ${handCard(play.card, len(rec.seat))}`,
    rec.card ? [': ', hbCardText(rec.card)] : '', play.type === 'play' && rec.card ? (rec.correct ? ' ✓' : ' ✗ an error') : ''];
}

let aim = null; // {key, pos}: where the steps asked go (ahead of the state while a position is on its way)

async function step(hp0, delta) {
  if (hp0.busy) return;
  const from = aim && aim.key === hp0.key ? aim.pos : hp0.pos;
  const pos = Math.max(-1, Math.min(hp0.tries.length - 1, from + delta));
  if (pos === from) return;
  aim = { key: hp0.key, pos };
  await show(hp0, { pos, sel: null, said: '' });
}

async function tryPlay(hp0, s, play) {
  if (hp0.busy || s.over) return;
  aim = null;
  const hp = update(hp0, { busy: true, sel: null });
  if (!hp) return;
  const change = { busy: false };
  try {
    let { games, tries } = hp;
    if (hp.pos < hp.tries.length - 1) {
      // Another play from an earlier try: a new branch, imported from there
      // (the positions after it belong to the line left).
      tries = hp.tries.slice(0, hp.pos + 1);
      games = [...games, await importFrom(await exportOf(hp.gameId), hp.k, tries)];
    }
    const g = games[games.length - 1];
    const cur = (await viewAt({ ...hp, games, tries }, hp.k + tries.length)).state;
    const { data } = await api('POST', `/games/${encodeURIComponent(g.gid)}/plays`, {
      token: g.tokens[cur.current], body: { play },
    });
    tries = [...tries, ...(data.applied || [])];
    Object.assign(change, { games, tries, pos: tries.length - 1, said: '' });
  } catch (err) {
    change.said = err.status === 422 ? `Not allowed: ${readable(err.message)}` : `The try failed: ${err.message}`;
  }
  await show(hp, change);
}

// The arrow keys step through the hypothetical while it is shown (before the
// replay's own keys, which would move the real game).
if (typeof document !== 'undefined') {
  document.addEventListener('keydown', (ev) => {
    const hp = current(app.replay);
    if (!hp || !byId('hb-hypo-board') || byId('replay').hidden || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    const t = ev.target;
    if (t && (/^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName) || t.isContentEditable)) return;
    if (ev.key !== 'ArrowLeft' && ev.key !== 'ArrowRight') return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    step(hp, ev.key === 'ArrowLeft' ? -1 : 1);
  }, true);
}
