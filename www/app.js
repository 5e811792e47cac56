// Croupier web page: create a game against bots, play it, resume it after a reload.
//
// One design choice to know: the page keeps no rules. It asks the server for the
// legal plays (GET /games/{id}/legal) and only offers those; each game has one
// renderer object in RENDERERS (keyed by game id) that draws the view and maps
// clicks to plays, and GENERIC draws any game it does not know (JSON state plus
// the legal plays as buttons). The seat token lives in sessionStorage, the game
// id in the URL hash (#game=<id>), so a reload resumes the game.

'use strict';

// ---------------------------------------------------------------------------
// Small DOM helpers

/** h('button', {class: 'x', onclick: f, 'data-testid': 't'}, child, ...) */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const byId = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------
// HTTP

class ApiError extends Error {
  constructor(status, problem, fallback) {
    const p = problem && typeof problem === 'object' ? problem : {};
    super(p.detail || p.title || fallback || `HTTP ${status}`);
    this.status = status;
    this.problem = p;
  }
}

async function api(method, path, { body, token, headers } = {}) {
  const init = { method, cache: 'no-store', headers: { Accept: 'application/json', ...(headers || {}) } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, null, 'Could not reach the server. Check your connection and try again.');
  }
  let data = null;
  if (res.status !== 204 && res.status !== 304) {
    const text = await res.text();
    if (text) {
      try { data = JSON.parse(text); } catch { data = null; }
    }
  }
  if (!res.ok && res.status !== 304) throw new ApiError(res.status, data, res.statusText);
  return { status: res.status, data, headers: res.headers };
}

// ---------------------------------------------------------------------------
// Application state (one game at a time)

const app = {
  catalogue: [],        // GET /rules games
  id: null,             // game id
  token: null,          // this tab's seat token (null = spectator)
  game: null,           // game type id, e.g. "comp10001bo"
  variant: null,
  version: null,
  seats: [],
  you: null,            // our seat, or null
  state: null,          // the view
  legal: [],            // our legal plays now
  selection: null,      // renderer-specific selected source key
  hint: null,           // {play, explanation, strategy}
  log: new Map(),       // n -> record, as shown
  busy: false,
  pollTimer: null,
};

const TOKEN_KEY = (id) => `croupier.token.${id}`;

function renderer() {
  return RENDERERS[app.game] || GENERIC;
}

function seatName(seat) {
  const s = app.seats.find((x) => x.seat === seat) || app.seats[seat];
  if (!s) return `Seat ${seat + 1}`;
  let name = s.name || (s.bot ? `${s.bot} bot` : `Seat ${seat + 1}`);
  // Two bots of one strategy get the same name: tell them apart by seat.
  if (app.seats.some((x) => x.seat !== s.seat && (x.name || '') === (s.name || ''))) name += ` (seat ${seat + 1})`;
  return seat === app.you && !/^you$/i.test(name) ? `${name} (you)` : name;
}

function myTurn() {
  return app.you !== null && app.you !== undefined && app.state && !app.state.over &&
    app.state.current === app.you;
}

// ---------------------------------------------------------------------------
// Messages

let messageTimer = null;
function say(text, kind = 'info') {
  const el = byId('message');
  clearTimeout(messageTimer);
  el.className = `message message-${kind}`;
  el.textContent = text;
  if (kind === 'info' && text) {
    messageTimer = setTimeout(() => { if (el.textContent === text) el.textContent = ''; }, 12000);
  }
}

function sayError(err, prefix) {
  const detail = err instanceof ApiError ? err.message : String(err && err.message || err);
  say(prefix ? `${prefix}: ${detail}` : detail, 'error');
}

// ---------------------------------------------------------------------------
// New-game form

function setupForm() {
  const form = byId('new-game-form');
  const gameSel = byId('ng-game');
  gameSel.addEventListener('change', () => fillGameFields());
  byId('ng-players').addEventListener('input', () => fillBotSeats());
  const savedName = localStorage.getItem('croupier.name');
  if (savedName) byId('ng-name').value = savedName;
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    createGame();
  });
  byId('new-game-toggle').addEventListener('click', () => {
    const setup = byId('setup');
    setup.hidden = !setup.hidden;
    byId('new-game-toggle').setAttribute('aria-expanded', String(!setup.hidden));
    if (!setup.hidden) byId('ng-game').focus();
  });
}

async function loadCatalogue() {
  const gameSel = byId('ng-game');
  try {
    const { data } = await api('GET', '/rules');
    app.catalogue = Array.isArray(data && data.games) ? data.games : [];
  } catch (err) {
    sayError(err, 'Could not load the list of games');
    gameSel.replaceChildren(h('option', {}, 'Unavailable'));
    return;
  }
  gameSel.replaceChildren(...app.catalogue.map((g) => h('option', { value: g.game }, g.title || g.game)));
  gameSel.disabled = app.catalogue.length === 0;
  byId('ng-submit').disabled = app.catalogue.length === 0;
  fillGameFields();
}

function currentCatalogueGame() {
  return app.catalogue.find((g) => g.game === byId('ng-game').value);
}

function fillGameFields() {
  const g = currentCatalogueGame();
  if (!g) return;
  const variants = Array.isArray(g.variants) && g.variants.length ? g.variants : ['standard'];
  byId('ng-variant').replaceChildren(...variants.map((v) => h('option', { value: v }, v)));
  const min = (g.players && g.players.min) || 2;
  const max = (g.players && g.players.max) || min;
  const players = byId('ng-players');
  players.min = min;
  players.max = max;
  if (!players.value || +players.value < min || +players.value > max) players.value = max === min ? min : Math.min(max, Math.max(min, 4));
  byId('ng-players-field').hidden = min === max;
  fillBotSeats();
}

function fillBotSeats() {
  const g = currentCatalogueGame();
  if (!g) return;
  const bots = Array.isArray(g.bots) && g.bots.length ? g.bots : ['random'];
  const n = Math.max(1, (+byId('ng-players').value || 2) - 1);
  const list = byId('ng-bot-list');
  const previous = [...list.querySelectorAll('select')].map((s) => s.value);
  const rows = [];
  for (let i = 1; i <= n; i++) {
    const id = `ng-bot-${i}`;
    const sel = h('select', { id, name: id, 'data-testid': `new-game-bot-${i}` },
      bots.map((b) => h('option', { value: b }, b)));
    if (previous[i - 1] && bots.includes(previous[i - 1])) sel.value = previous[i - 1];
    rows.push(h('div', { class: 'bot-row' }, h('label', { for: id }, `Seat ${i + 1}`), sel));
  }
  list.replaceChildren(...rows);
}

async function createGame() {
  const g = currentCatalogueGame();
  if (!g) return;
  const name = byId('ng-name').value.trim() || 'You';
  const seedText = byId('ng-seed').value.trim();
  if (seedText && !/^\d{1,16}$/.test(seedText)) {
    say('The seed must be a whole number (digits only), or left empty.', 'error');
    byId('ng-seed').focus();
    return;
  }
  localStorage.setItem('croupier.name', name);
  const body = {
    game: g.game,
    variant: byId('ng-variant').value,
    players: [{ name }, ...[...byId('ng-bot-list').querySelectorAll('select')].map((s) => ({ bot: s.value }))],
  };
  if (seedText) body.seed = Number(seedText);
  const submit = byId('ng-submit');
  submit.disabled = true;
  try {
    const { data } = await api('POST', '/games', { body });
    const mine = (data.seats || []).find((s) => s.token && (data.you === undefined || data.you === null || s.seat === data.you));
    stopPolling();
    app.id = data.id;
    app.token = mine ? mine.token : null;
    if (app.token) sessionStorage.setItem(TOKEN_KEY(app.id), app.token);
    app.game = data.game || g.game;
    app.variant = data.variant || body.variant;
    app.log = new Map();
    byId('log').replaceChildren();
    acceptGame(data);
    addLog(data.applied);
    history.replaceState(null, '', `#game=${encodeURIComponent(app.id)}`);
    say(`New ${g.title || g.game} game dealt.`);
    showGame();
    await refreshLegal();
    render();
    byId('board').focus();
  } catch (err) {
    sayError(err, 'Could not create the game');
  } finally {
    submit.disabled = false;
  }
}

// ---------------------------------------------------------------------------
// Loading, resuming, polling

function acceptGame(data) {
  if (data.id) app.id = data.id;
  if (data.game) app.game = data.game;
  if (data.variant) app.variant = data.variant;
  if (data.version !== undefined) app.version = data.version;
  if (Array.isArray(data.seats)) app.seats = data.seats.map((s) => ({ ...s, token: undefined }));
  if (data.you !== undefined) app.you = data.you;
  if (data.state !== undefined) app.state = data.state;
  if (!app.game && app.state && app.state.game) app.game = app.state.game;
  app.selection = null;
  app.hint = null;
}

async function loadGame(id, { quiet } = {}) {
  app.id = id;
  app.token = sessionStorage.getItem(TOKEN_KEY(id));
  try {
    const { data } = await api('GET', `/games/${encodeURIComponent(id)}`, { token: app.token });
    if (!app.log.size || app.game !== data.game) {
      app.log = new Map();
      byId('log').replaceChildren();
    }
    acceptGame(data);
  } catch (err) {
    if (err.status === 401 && app.token) {
      // Our token is no longer valid for this game: continue as a spectator.
      sessionStorage.removeItem(TOKEN_KEY(id));
      app.token = null;
      return loadGame(id, { quiet });
    }
    sayError(err, 'Could not load the game');
    if (err.status === 404) {
      history.replaceState(null, '', location.pathname + location.search);
      showSetup();
    }
    return false;
  }
  await loadHistory();
  await refreshLegal();
  showGame();
  render();
  if (!quiet) say(app.you === null || app.you === undefined ? 'Watching this game as a spectator.' : 'Game resumed.');
  return true;
}

async function loadHistory() {
  try {
    const { data } = await api('GET', `/games/${encodeURIComponent(app.id)}/plays`, { token: app.token });
    addLog(markTurnEnds((data && data.plays) || []));
  } catch {
    // The history is a nicety; the board is what matters.
  }
}

async function refreshLegal() {
  app.legal = [];
  if (!myTurn()) return;
  try {
    const { data } = await api('GET', `/games/${encodeURIComponent(app.id)}/legal`, { token: app.token });
    app.legal = Array.isArray(data && data.plays) ? data.plays : [];
  } catch (err) {
    sayError(err, 'Could not fetch the legal plays');
  }
}

function stopPolling() {
  clearTimeout(app.pollTimer);
  app.pollTimer = null;
}

/** While another seat (a remote human) is to move, look for news every few seconds. */
function schedulePoll() {
  stopPolling();
  if (!app.id || !app.state || app.state.over || myTurn()) return;
  app.pollTimer = setTimeout(async () => {
    if (app.busy || document.hidden) return schedulePoll();
    try {
      const res = await api('GET', `/games/${encodeURIComponent(app.id)}`, {
        token: app.token, headers: { 'If-None-Match': `"${app.version}"` },
      });
      if (res.status === 200 && res.data && res.data.version !== app.version) {
        acceptGame(res.data);
        await loadHistory();
        await refreshLegal();
        render();
        if (myTurn()) say('Your turn.');
      }
    } catch {
      // Transient; try again on the next tick.
    }
    schedulePoll();
  }, 4000);
}

// ---------------------------------------------------------------------------
// Playing

async function sendPlay(play) {
  if (app.busy) return;
  if (!myTurn()) { say('It is not your turn.', 'error'); return; }
  app.busy = true;
  byId('board').setAttribute('aria-busy', 'true');
  try {
    const { data } = await api('POST', `/games/${encodeURIComponent(app.id)}/plays`, {
      token: app.token, body: { play }, headers: { 'If-Match': `"${app.version}"` },
    });
    acceptGame(data);
    addLog(data.applied);
    await refreshLegal();
    const mine = (data.applied || []).filter((r) => r.seat === app.you).length;
    const others = (data.applied || []).length - mine;
    if (app.state && app.state.over) say(resultText(), 'info');
    else if (others > 0 && myTurn()) say(`The bots played ${others} time${others === 1 ? '' : 's'}; your turn again.`);
    else byId('message').textContent = '';
  } catch (err) {
    await handlePlayError(err);
  } finally {
    app.busy = false;
    byId('board').removeAttribute('aria-busy');
    render();
  }
}

async function handlePlayError(err) {
  const st = err.status;
  if (st === 412) {
    await loadGame(app.id, { quiet: true });
    say('The game had moved on since your last view, so it was reloaded. Please choose your play again.', 'error');
  } else if (st === 409) {
    await loadGame(app.id, { quiet: true });
    sayError(err);
  } else if (st === 422) {
    const rule = err.problem && err.problem.rule ? ` (rule: ${err.problem.rule})` : '';
    say(`That play is not allowed: ${err.message}${rule}`, 'error');
    app.selection = null;
    await refreshLegal();
  } else if (st === 401) {
    sayError(err, 'Your seat token was not accepted');
  } else {
    sayError(err, 'The play failed');
  }
}

async function askHint() {
  if (!myTurn() || app.busy) return;
  try {
    const { data } = await api('GET', `/games/${encodeURIComponent(app.id)}/hint`, { token: app.token });
    app.hint = data;
    app.selection = null;
    const r = renderer();
    const what = r.describePlay ? r.describePlay(data.play, app.you, { forHint: true }) : JSON.stringify(data.play);
    say(`Hint${data.strategy ? ` (${data.strategy})` : ''}: ${what}. ${data.explanation || ''}`.trim(), 'hint');
    render();
  } catch (err) {
    sayError(err, 'No hint available');
  }
}

function resultText() {
  const s = app.state || {};
  if (!s.over) return '';
  switch (s.result) {
    case 'won':
      return s.winner === app.you ? 'Game over: you won!' : `Game over: ${seatName(s.winner)} won.`;
    case 'abandoned':
      return 'Game over: abandoned — the draw pile is empty and nobody can play. No winner.';
    case 'turn-limit':
      return 'Game over: every player has had 20 turns. No winner.';
    default:
      return `Game over${s.result ? `: ${s.result}` : ''}.`;
  }
}

// ---------------------------------------------------------------------------
// Log

/** History records may lack turn_ending: a play ended its turn when the next
 *  play is another seat's (or, for the last one, when the turn has passed). */
function markTurnEnds(records) {
  return records.map((rec, i) => {
    if (rec.turn_ending !== undefined) return rec;
    const next = records[i + 1];
    const s = app.state || {};
    const ended = next ? next.seat !== rec.seat
      : (s.over || s.current !== rec.seat || s.plays_this_turn === 0);
    return { ...rec, turn_ending: ended };
  });
}

function addLog(records) {
  if (!Array.isArray(records)) return;
  const ol = byId('log');
  let added = false;
  records.forEach((rec, i) => {
    const n = rec.n !== undefined ? rec.n : `x${app.log.size + i}`;
    if (app.log.has(n)) return;
    app.log.set(n, rec);
    ol.append(logEntry(rec, n));
    added = true;
  });
  if (added) ol.scrollTop = ol.scrollHeight;
}

function logEntry(rec, n) {
  const r = renderer();
  const mine = rec.seat === app.you;
  const desc = r.describePlayNodes ? r.describePlayNodes(rec.play, rec.seat) : [JSON.stringify(rec.play)];
  return h('li', { class: `log-entry${mine ? ' mine' : ''}${rec.turn_ending ? ' turn-end' : ''}`, 'data-testid': `log-entry-${n}`, dataset: { seat: rec.seat } },
    h('span', { class: 'log-who' }, seatName(rec.seat)),
    ' ',
    h('span', { class: 'log-play', 'data-testid': 'log-play' }, desc),
    rec.turn_ending ? h('span', { class: 'badge', 'data-testid': 'log-turn-end' }, 'turn ends') : null,
    rec.explanation ? h('span', { class: 'log-why', 'data-testid': 'log-explanation' }, rec.explanation) : null);
}

// ---------------------------------------------------------------------------
// Rendering

function showGame() {
  byId('setup').hidden = true;
  byId('game').hidden = false;
  const toggle = byId('new-game-toggle');
  toggle.hidden = false;
  toggle.setAttribute('aria-expanded', 'false');
  toggle.setAttribute('aria-controls', 'setup');
  const log = byId('log');
  log.scrollTop = log.scrollHeight; // entries added while hidden did not scroll
}

function showSetup() {
  byId('setup').hidden = false;
  byId('game').hidden = true;
  byId('new-game-toggle').hidden = true;
}

function render() {
  if (!app.state) return;
  const r = renderer();
  const entry = app.catalogue.find((g) => g.game === app.game);
  // Only touch text that changed, so live regions announce real news only.
  setText(byId('game-title'), `${(entry && entry.title) || r.title || app.game}${app.variant ? ` · ${app.variant}` : ''}`);
  setText(byId('game-id'), app.id);
  setText(byId('game-version'), String(app.version));
  setText(byId('status'), statusText());
  byId('status').classList.toggle('your-turn', myTurn());

  // Keep keyboard focus on the "same" control across re-renders.
  const board = byId('board');
  const focused = document.activeElement && board.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
  const scroller = document.scrollingElement;
  const scrollY = scroller ? scroller.scrollTop : 0;
  board.replaceChildren(r.render(app));
  board.dataset.game = app.game;
  if (focused) {
    const again = board.querySelector(`[data-testid="${CSS.escape(focused)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
  if (scroller) scroller.scrollTop = scrollY;

  byId('hint-button').disabled = !myTurn() || app.busy;
  byId('cancel-button').disabled = app.selection === null;
  const extra = r.extraPlays ? r.extraPlays(app) : [];
  byId('extra-plays').replaceChildren(...extra);
  schedulePoll();
}

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function statusText() {
  const s = app.state;
  if (s.over) return resultText();
  const r = renderer();
  const core = myTurn() ? 'Your turn' : (s.current !== undefined && s.current !== null ? `${seatName(s.current)} to play` : 'Waiting');
  const extra = r.statusExtra ? r.statusExtra(s) : '';
  return extra ? `${core} · ${extra}` : core;
}

// Pass the selected source to the renderer and re-render.
function select(key) {
  app.selection = app.selection === key ? null : key;
  app.hint = null;
  render();
}

// ---------------------------------------------------------------------------
// Comp10001-Bo

const SUITS = {
  S: { sym: '♠', name: 'spades', colour: 'black' },
  H: { sym: '♥', name: 'hearts', colour: 'red' },
  D: { sym: '♦', name: 'diamonds', colour: 'red' },
  C: { sym: '♣', name: 'clubs', colour: 'black' },
};
const RANKS = {
  A: ['A', 'ace'], 0: ['10', '10'], J: ['J', 'jack'], Q: ['Q', 'queen'], K: ['K', 'king'],
};

function boCard(card) {
  if (typeof card !== 'string' || card.length < 2) return { rank: '?', sym: '', name: 'unknown card', colour: 'none', text: '?' };
  if (card === 'ZZ') return { rank: '★', sym: '', name: 'joker', colour: 'joker', text: 'Joker' };
  const [rank, rankName] = RANKS[card[0]] || [card[0], card[0]];
  const suit = SUITS[card[1]] || { sym: card[1], name: card[1], colour: 'none' };
  return { rank, sym: suit.sym, name: `${rankName} of ${suit.name}`, colour: suit.colour, text: `${rank}${suit.sym}` };
}

/** A face of a card (not interactive by itself). */
function cardFace(card, extraClass = '') {
  const c = boCard(card);
  return h('span', { class: `card card-${c.colour} ${extraClass}`, 'aria-hidden': 'true', dataset: { card } },
    h('span', { class: 'card-rank' }, c.rank),
    h('span', { class: 'card-suit' }, c.sym));
}

function cardText(card) {
  const c = boCard(card);
  return h('span', { class: `card-text card-${c.colour}` }, c.text);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

const BO = {
  title: 'Comp10001-Bo',

  // Source/destination keys: "hand:<card>", "stock", "embargo", "discard:<o>:<p>";
  // destinations "build:<b>", "discard:<o>:<p>", "player:<t>".
  sourceKey(play) {
    const [type, src] = play;
    if (type === 0) return `hand:${src}`;
    if (type === 1 && Array.isArray(src) && Array.isArray(src[1])) return `discard:${src[1][0]}:${src[1][1]}`;
    if (type === 2) return 'stock';
    if (type === 5) return 'embargo';
    return null;
  },
  destKey(play) {
    const d = play[2];
    if (!Array.isArray(d)) return null;
    if (d[0] === 0) return `build:${d[1]}`;
    if (d[0] === 1 && Array.isArray(d[1])) return `discard:${d[1][0]}:${d[1][1]}`;
    if (d[0] === 2) return `player:${d[1]}`;
    return null;
  },
  playsFrom(a, key) {
    return a.legal.filter((p) => BO.sourceKey(p) === key);
  },

  destNodes(dest, seat) {
    if (!Array.isArray(dest)) return ['?'];
    if (dest[0] === 0) return [`build pile ${dest[1] + 1}`];
    if (dest[0] === 1 && Array.isArray(dest[1])) {
      const [o, p] = dest[1];
      return [o === seat ? `own discard pile ${p + 1}` : `${seatName(o)}'s discard pile ${p + 1}`];
    }
    if (dest[0] === 2) return [seatName(dest[1])];
    return [JSON.stringify(dest)];
  },

  describePlayNodes(play, seat) {
    if (!Array.isArray(play)) return [JSON.stringify(play)];
    const [type, src, dest] = play;
    switch (type) {
      case 0: return [cardText(src), ' from hand to ', ...BO.destNodes(dest, seat)];
      case 1: {
        const [card, [o, p]] = src;
        const from = o === seat ? `own discard pile ${p + 1}` : `${seatName(o)}'s discard pile ${p + 1}`;
        return [cardText(card), ` from ${from} to `, ...BO.destNodes(dest, seat)];
      }
      case 2: return [cardText(src), ' from stockpile to ', ...BO.destNodes(dest, seat)];
      case 3: return ['no play possible — passes'];
      case 4: return ['embargo on ', ...BO.destNodes(dest, seat)];
      case 5: return ['cleared the embargo to ', ...BO.destNodes(dest, seat)];
      default: return [JSON.stringify(play)];
    }
  },

  describePlay(play, seat) {
    const span = h('span', {}, BO.describePlayNodes(play, seat));
    return span.textContent;
  },

  statusExtra(s) {
    const parts = [];
    if (s.turn !== undefined) parts.push(`turn ${s.turn}`);
    if (s.plays_this_turn !== undefined && !s.over) parts.push(`${s.plays_this_turn}/5 plays this turn`);
    if (s.draw_pile !== undefined) parts.push(`draw pile ${s.draw_pile}`);
    return parts.join(' · ');
  },

  /** Build the whole table for the view `a.state`. */
  render(a) {
    const s = a.state;
    const n = (s.stockpiles || []).length || 4;
    const you = a.you === null || a.you === undefined ? null : a.you;
    const playing = myTurn();
    const sel = a.selection;
    const targets = new Set(sel ? BO.playsFrom(a, sel).map(BO.destKey) : []);
    const sources = new Set(playing ? a.legal.map(BO.sourceKey).filter(Boolean) : []);
    const hintSrc = a.hint && Array.isArray(a.hint.play) ? BO.sourceKey(a.hint.play) : null;
    const hintDst = a.hint && Array.isArray(a.hint.play) ? BO.destKey(a.hint.play) : null;

    // What a pile button does when clicked.
    const clickSource = (key) => () => {
      if (a.busy) return;
      if (!playing) { say(a.state.over ? 'The game is over.' : 'It is not your turn.', 'error'); return; }
      if (!sources.has(key)) { say('There is no legal play from there right now.', 'error'); return; }
      select(key);
    };
    const clickDest = (key) => {
      const play = BO.playsFrom(a, sel).find((p) => BO.destKey(p) === key);
      if (play) sendPlay(play);
    };
    const classes = (srcKey, dstKey) => {
      const c = [];
      if (srcKey && sel === srcKey) c.push('selected');
      else if (srcKey && !sel && sources.has(srcKey)) c.push('playable');
      if (dstKey && targets.has(dstKey)) c.push('target');
      if ((srcKey && hintSrc === srcKey) || (dstKey && hintDst === dstKey)) c.push('hinted');
      return c.join(' ');
    };
    const stateWords = (srcKey, dstKey) => {
      const w = [];
      if (srcKey && sel === srcKey) w.push('selected');
      if (dstKey && targets.has(dstKey)) w.push('legal destination');
      if (srcKey && hintSrc === srcKey) w.push('hint: play from here');
      if (dstKey && hintDst === dstKey) w.push('hint: play to here');
      return w.length ? `, ${w.join(', ')}` : '';
    };

    // Build piles (shared).
    const builds = h('section', { class: 'builds', 'aria-label': 'Build piles' },
      h('h3', { class: 'area-title' }, 'Build piles'),
      h('div', { class: 'pile-row' }, (s.build_piles || [[], [], [], []]).map((pile, b) => {
        const key = `build:${b}`;
        const top = pile.length ? pile[pile.length - 1] : null;
        const label = top ? `Build pile ${b + 1}: ${boCard(top).name} on top, ${pile.length} card${pile.length === 1 ? '' : 's'}` : `Build pile ${b + 1}: empty (starts with a 2 or a King)`;
        return h('button', {
          type: 'button', class: `pile build ${classes(null, key)}`, 'data-testid': `build-pile-${b}`,
          'aria-label': label + stateWords(null, key), 'aria-disabled': targets.has(key) ? null : 'true',
          onclick: () => { if (targets.has(key)) clickDest(key); else if (sel) say('That build pile does not take this card.', 'error'); },
        }, top ? cardFace(top) : h('span', { class: 'card card-empty', 'aria-hidden': 'true', title: 'Empty: start it with a 2 or a King' }, '2 / K'),
        h('span', { class: 'count', 'aria-hidden': 'true' }, pile.length ? `${pile.length}` : ''));
      })),
      h('p', { class: 'draw-pile', 'data-testid': 'draw-pile' }, `Draw pile: ${s.draw_pile ?? '?'} card${s.draw_pile === 1 ? '' : 's'}`));

    // One player's area: stockpile + 4 discard piles (+ hand for you).
    const playerArea = (seat) => {
      const isYou = seat === you;
      const stock = (s.stockpiles || [])[seat] || { top: null, count: 0 };
      const stockKey = isYou ? 'stock' : null;
      const stockLabel = `${isYou ? 'Your' : `${seatName(seat)}'s`} stockpile: ${stock.top ? `${boCard(stock.top).name} on top, ` : ''}${stock.count} card${stock.count === 1 ? '' : 's'}`;
      const stockBtn = h('button', {
        type: 'button', class: `pile stock ${classes(stockKey, null)}`, 'data-testid': `stockpile-${seat}`,
        'aria-label': stockLabel + stateWords(stockKey, null),
        'aria-disabled': stockKey && sources.has(stockKey) ? null : 'true',
        'aria-pressed': isYou ? String(sel === 'stock') : null,
        onclick: isYou ? clickSource('stock') : () => say('You can only play from your own stockpile.', 'error'),
      }, stock.top ? cardFace(stock.top) : h('span', { class: 'card card-empty', 'aria-hidden': 'true' }, 'empty'),
      h('span', { class: 'count', 'aria-hidden': 'true' }, `${stock.count}`));

      const discards = ((s.discard_piles || [])[seat] || [[], [], [], []]).map((pile, p) => {
        const key = `discard:${seat}:${p}`;
        const top = pile.length ? pile[pile.length - 1] : null;
        const isTarget = targets.has(key);
        const isSource = sources.has(key);
        const label = `${isYou ? 'Your' : `${seatName(seat)}'s`} discard pile ${p + 1}: ` +
          (top ? `${boCard(top).name} on top, ${pile.length} card${pile.length === 1 ? '' : 's'}` : 'empty');
        const fan = pile.slice(-4);
        return h('button', {
          type: 'button', class: `pile discard ${classes(key, key)}`, 'data-testid': `discard-pile-${seat}-${p}`,
          'aria-label': label + stateWords(key, key),
          'aria-disabled': isTarget || isSource ? null : 'true',
          title: pile.length ? pile.map((c) => boCard(c).text).join(' ') : 'empty',
          onclick: () => {
            if (sel && isTarget) clickDest(key);
            else if (isSource || sel === key) clickSource(key)();
            else if (sel) say('That discard pile does not take this card.', 'error');
            else clickSource(key)();
          },
        }, h('span', { class: 'fan', 'aria-hidden': 'true' },
          fan.length ? fan.map((c, i) => cardFace(c, i === fan.length - 1 ? 'fan-top' : 'fan-under'))
            : h('span', { class: 'card card-empty' }, '')),
        h('span', { class: 'count', 'aria-hidden': 'true' }, pile.length ? `${pile.length}` : ''));
      });

      const handSize = (s.hand_sizes || [])[seat];
      const turns = (s.turns || [])[seat];
      const isCurrent = s.current === seat && !s.over;
      const header = h('h3', { class: 'player-name' },
        h('span', {}, seatName(seat)),
        isCurrent ? h('span', { class: 'badge badge-turn' }, 'to play') : null,
        s.over && s.result === 'won' && s.winner === seat ? h('span', { class: 'badge badge-win' }, 'winner') : null);
      const meta = h('p', { class: 'player-meta' },
        handSize !== undefined ? `Hand ${handSize}` : '', turns !== undefined ? ` · turns ${turns}/20` : '');
      const dest = `player:${seat}`;
      const embargoTarget = targets.has(dest) ? h('button', {
        type: 'button', class: 'btn btn-secondary target', 'data-testid': `embargo-player-${seat}`,
        onclick: () => clickDest(dest),
      }, `Embargo ${seatName(seat)}`) : null;

      const piles = h('div', { class: 'player-piles' },
        h('div', { class: 'stock-wrap' }, h('span', { class: 'pile-caption' }, 'Stock'), stockBtn),
        h('div', { class: 'discards' }, h('span', { class: 'pile-caption' }, 'Discards'), h('div', { class: 'pile-row' }, discards)));
      const row = h('div', { class: 'player-row' }, piles);
      const area = h('section', {
        class: `player${isYou ? ' you' : ''}${isCurrent ? ' current' : ''}`, 'data-testid': `player-${seat}`,
        'aria-label': isYou ? 'Your area' : `${seatName(seat)}'s area`,
      }, header, meta, row, embargoTarget);

      if (isYou) {
        const hand = s.hand || [];
        const slots = [];
        for (let i = 0; i < Math.max(5, hand.length); i++) {
          const card = hand[i];
          if (!card) { slots.push(h('span', { class: 'card card-slot', 'aria-hidden': 'true' })); continue; }
          const key = `hand:${card}`;
          slots.push(h('button', {
            type: 'button', class: `hand-card ${classes(key, null)}`, 'data-testid': `hand-card-${i}`,
            'aria-label': `${boCard(card).name}, your hand${stateWords(key, null)}`,
            'aria-pressed': String(sel === key), 'aria-disabled': sources.has(key) ? null : 'true',
            onclick: clickSource(key),
          }, cardFace(card)));
        }
        const embargoPlays = a.legal.some((p) => p[0] === 5);
        row.append(h('div', { class: 'hand-wrap' },
          h('h4', { class: 'area-title' }, 'Your hand'),
          h('div', { class: 'hand', 'data-testid': 'hand', role: 'group', 'aria-label': 'Your hand' }, slots),
          embargoPlays ? h('button', {
            type: 'button', class: `btn btn-secondary ${classes('embargo', null)}`, 'data-testid': 'embargo-card',
            'aria-pressed': String(sel === 'embargo'), onclick: clickSource('embargo'),
          }, 'Clear the embargo…') : null));
      }
      return area;
    };

    const order = [];
    for (let i = 1; i <= n; i++) order.push(you === null ? i - 1 : (you + i) % n);
    const others = order.filter((x) => x !== you);

    const help = h('p', { class: 'help', id: 'play-help', 'data-testid': 'play-help' },
      playing ? (sel ? 'Now choose a highlighted pile to play to (Escape cancels).' : 'Choose a card to play: from your hand, your stockpile, or the top of a discard pile.')
        : (s.over ? '' : 'Waiting for the other players.'));

    // Laid out as at a table: the others across, the shared piles between, you nearest.
    return h('div', { class: 'bo-table' },
      h('div', { class: 'opponents' }, others.map(playerArea)),
      builds,
      you === null ? null : playerArea(you),
      help);
  },

  /** Plays with no pile to click: passing, and embargoes handled in-board. */
  extraPlays(a) {
    if (!myTurn()) return [];
    return a.legal.filter((p) => p[0] === 3).map((p) => h('button', {
      type: 'button', class: 'btn btn-primary', 'data-testid': 'pass-button', onclick: () => sendPlay(p),
    }, 'No play possible — pass'));
  },
};

// ---------------------------------------------------------------------------
// Generic fallback: the JSON view and the legal plays as buttons.

const GENERIC = {
  title: 'Game',
  describePlayNodes(play) { return [JSON.stringify(play)]; },
  describePlay(play) { return JSON.stringify(play); },
  statusExtra(s) { return s && s.turn !== undefined ? `turn ${s.turn}` : ''; },
  render(a) {
    return h('div', { class: 'generic' },
      h('h3', { class: 'area-title' }, 'Your legal plays'),
      a.legal.length
        ? h('div', { class: 'legal-list' }, a.legal.map((p, i) => h('button', {
          type: 'button', class: 'btn btn-secondary', 'data-testid': `legal-play-${i}`, onclick: () => sendPlay(p),
        }, JSON.stringify(p))))
        : h('p', {}, myTurn() ? 'No legal plays.' : 'Not your turn.'),
      h('h3', { class: 'area-title' }, 'State'),
      h('pre', { class: 'json', 'data-testid': 'generic-state', tabindex: '0' }, JSON.stringify(a.state, null, 2)));
  },
};

/** One renderer per game id; games without one get GENERIC. */
const RENDERERS = {
  comp10001bo: BO,
};

// ---------------------------------------------------------------------------
// Start

function gameIdFromHash() {
  const m = /(?:^#|&)game=([^&]+)/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : null;
}

async function start() {
  setupForm();
  byId('hint-button').addEventListener('click', askHint);
  byId('cancel-button').addEventListener('click', () => { app.selection = null; render(); });
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && app.selection !== null) { app.selection = null; render(); }
  });
  window.addEventListener('hashchange', () => {
    const id = gameIdFromHash();
    if (id && id !== app.id) { app.log = new Map(); byId('log').replaceChildren(); loadGame(id); }
  });
  const catalogue = loadCatalogue();
  const id = gameIdFromHash();
  if (id) {
    await catalogue;
    await loadGame(id);
  } else {
    showSetup();
    await catalogue;
  }
  document.body.dataset.ready = 'true';
}

start();
