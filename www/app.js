// Croupier web page: create a game against bots, play it, resume it after a reload.
//
// One design choice to know: the page keeps no rules. It asks the server for the
// legal plays (GET /games/{id}/legal) and only offers those; each game has one
// renderer object in RENDERERS (keyed by game id) that draws the view and maps
// clicks to plays, and GENERIC draws any game it does not know (JSON state plus
// the legal plays as buttons). The seat token lives in sessionStorage, the game
// id in the URL hash (#game=<id>), so a reload resumes the game. The token only
// ever travels in the Authorization header, never in a URL (the server refuses
// a token query parameter). The page runs under a Content-Security-Policy of
// 'self' only: no inline script, inline style or style attribute.

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
  rulesDocs: {},        // game -> GET /rules/{game} (fetched once, for help texts)
  busy: false,
  pollTimer: null,
};

const TOKEN_KEY = (id) => `croupier.token.${id}`;

function renderer() {
  return RENDERERS[app.game] || GENERIC;
}

function seatName(seat) {
  const s = app.seats.find((x) => x.seat === seat) || app.seats[seat];
  // Players are numbered from 0, as in the API's plays and the bots' explanations.
  if (!s) return `Player ${seat}`;
  let name = s.name || (s.bot ? `${s.bot} bot` : `Player ${seat}`);
  // Two bots of one strategy get the same name: tell them apart by number.
  if (app.seats.some((x) => x.seat !== s.seat && (x.name || '') === (s.name || ''))) name += ` (player ${seat})`;
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
  byId('ng-resume-file').addEventListener('change', (ev) => resumeFromFile(ev.target.files && ev.target.files[0]));
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
  const dflt = (g.players && g.players.default) || (RENDERERS[g.game] && RENDERERS[g.game].defaultPlayers) || Math.min(max, Math.max(min, 4));
  if (app.formGame !== g.game || !players.value || +players.value < min || +players.value > max) players.value = max === min ? min : dflt;
  app.formGame = g.game;
  byId('ng-players-field').hidden = min === max;
  // Game-specific options (coin-toss call, open table, ...) come from the renderer.
  const r = RENDERERS[g.game];
  const opts = r && r.formOptions ? r.formOptions() : [];
  byId('ng-options').replaceChildren(...opts);
  byId('ng-options').hidden = opts.length === 0;
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
  const r = RENDERERS[g.game];
  const options = r && r.readOptions ? r.readOptions() : null;
  if (options && Object.keys(options).length) body.options = options;
  const submit = byId('ng-submit');
  submit.disabled = true;
  try {
    const { data } = await api('POST', '/games', { body });
    await enterGame(data, g.game, body.variant);
    say(`New ${g.title || g.game} game dealt.`);
  } catch (err) {
    sayError(err, 'Could not create the game');
  } finally {
    submit.disabled = false;
  }
}

/** Take over a game just created (POST /games) or imported (POST /games/import). */
async function enterGame(data, game, variant) {
  const mine = (data.seats || []).find((s) => s.token && (data.you === undefined || data.you === null || s.seat === data.you));
  stopPolling();
  app.id = data.id;
  app.token = mine ? mine.token : null;
  if (app.token) sessionStorage.setItem(TOKEN_KEY(app.id), app.token);
  app.game = data.game || game;
  app.variant = data.variant || variant;
  app.log = new Map();
  byId('log').replaceChildren();
  acceptGame(data);
  addLog(data.applied);
  history.replaceState(null, '', `#game=${encodeURIComponent(app.id)}`);
  showGame();
  await refreshLegal();
  render();
  byId('board').focus();
}

/** "Resume from file": a Five Crowns save (text) or a JSON export, POSTed to /games/import. */
async function resumeFromFile(file) {
  if (!file) return;
  let text;
  try {
    text = await file.text();
  } catch (err) {
    sayError(err, 'Could not read the file');
    return;
  }
  const isJson = /^\s*\{/.test(text);
  const input = byId('ng-resume-file');
  input.disabled = true;
  try {
    const res = await fetch('/games/import', {
      method: 'POST', cache: 'no-store', body: text,
      // A text save also says so in a custom header: the server asks for it
      // so that no other site's form can import a game (forms cannot send it).
      headers: isJson
        ? { Accept: 'application/json', 'Content-Type': 'application/json' }
        : { Accept: 'application/json', 'Content-Type': 'text/plain; charset=utf-8', 'X-Croupier-Import': 'text' },
    });
    const body = await res.text();
    let data = null;
    try { data = body ? JSON.parse(body) : null; } catch { data = null; }
    if (!res.ok) throw new ApiError(res.status, data, res.statusText);
    await enterGame(data, data.game, data.variant);
    const warnings = Array.isArray(data.warnings) ? data.warnings : [];
    const entry = app.catalogue.find((x) => x.game === app.game);
    say(`Resumed ${(entry && entry.title) || app.game} from ${file.name}.` +
      (warnings.length ? ` The file was not quite regular: ${warnings.join('; ')}.` : ''), warnings.length ? 'warning' : 'info');
  } catch (err) {
    sayError(err, `Could not resume from ${file.name}`);
  } finally {
    input.disabled = false;
    input.value = '';
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
    const r = renderer();
    const plays = (data && data.plays) || [];
    addLog(markTurnEnds(r.historyRecords ? r.historyRecords(plays) : plays));
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
  const r = renderer();
  if (r.resultText) return r.resultText(s);
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

/** The history (GET /plays) carries no bot explanations, only the replies to
 *  POST /plays do: keep the ones this tab has seen, so a reload still shows them. */
const EXPL_KEY = (id) => `croupier.explanations.${id}`;
function explanationCache() {
  try { return JSON.parse(sessionStorage.getItem(EXPL_KEY(app.id)) || '{}') || {}; } catch { return {}; }
}

function addLog(records) {
  if (!Array.isArray(records)) return;
  const ol = byId('log');
  let added = false;
  const cache = explanationCache();
  let cacheChanged = false;
  records.forEach((rec0, i) => {
    let rec = rec0;
    if (rec.n !== undefined) {
      if (rec.explanation && cache[rec.n] !== rec.explanation) { cache[rec.n] = rec.explanation; cacheChanged = true; }
      else if (!rec.explanation && cache[rec.n]) rec = { ...rec, explanation: cache[rec.n] };
    }
    const n = rec.n !== undefined ? rec.n : `x${app.log.size + i}`;
    if (app.log.has(n)) return;
    app.log.set(n, rec);
    ol.append(logEntry(rec, n));
    added = true;
  });
  if (cacheChanged) {
    try { sessionStorage.setItem(EXPL_KEY(app.id), JSON.stringify(cache)); } catch { /* full: not worth an error */ }
  }
  if (added) ol.scrollTop = ol.scrollHeight;
}

function logEntry(rec, n) {
  const r = renderer();
  const mine = rec.seat === app.you;
  const desc = r.describePlayNodes ? r.describePlayNodes(rec.play, rec.seat, rec) : [JSON.stringify(rec.play)];
  return h('li', { class: `log-entry${mine ? ' mine' : ''}${rec.turn_ending ? ' turn-end' : ''}`, 'data-testid': `log-entry-${n}`, dataset: { seat: rec.seat } },
    h('span', { class: 'log-who' }, seatName(rec.seat)),
    ' ',
    h('span', { class: 'log-play', 'data-testid': 'log-play' }, desc),
    rec.turn_ending ? h('span', { class: 'badge', 'data-testid': 'log-turn-end' }, 'turn ends') : null,
    rec.explanation ? h('span', { class: 'log-why', 'data-testid': 'log-explanation' }, rec.explanation) : null,
    r.logExtra ? r.logExtra(rec) : null);
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
// Hanabi (cooperative): you see everyone's cards but your own. Your own cards
// show what the hints said about them. Positions are numbered from 0 (the
// oldest, leftmost card) because the plays and the bots' explanations do so.

const HB_COLOURS = {
  R: 'red', Y: 'yellow', B: 'blue', G: 'green', W: 'white', M: 'rainbow',
};
const HB_ORDER = ['R', 'Y', 'B', 'G', 'W', 'M'];

function hbColours(s) {
  const fw = (s && s.fireworks) || {};
  return HB_ORDER.filter((c) => c !== 'M' || app.variant === 'rainbow' || fw.M !== undefined);
}

function hbCard(card) {
  if (typeof card !== 'string' || !/^[RYBGWM][1-5]$/.test(card)) return { hidden: true, colour: null, number: null, name: 'hidden card' };
  return { hidden: false, colour: card[0], number: +card[1], name: `${HB_COLOURS[card[0]]} ${card[1]}` };
}

/** The seed-shaped play {actionType,target,color,number} as our JSON form. */
function hbPlay(play) {
  if (!play || typeof play !== 'object' || play.type || play.actionType === undefined) return play || {};
  switch (play.actionType) {
    case 0: return { type: 'hint', target: play.target, color: HB_ORDER[play.color] };
    case 1: return { type: 'hint', target: play.target, number: play.number };
    case 2: return { type: 'discard', card: play.target };
    case 3: return { type: 'play', card: play.target };
    default: return play;
  }
}

const hbList = (xs, word = 'or') => xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} ${word} ${xs[xs.length - 1]}`;
const hbClue = (x) => (typeof x === 'number' ? `${x}s` : `${HB_COLOURS[x] || x}`);

/** What the hints say about a card, in words (for labels). */
function hbKnowledgeText(k) {
  if (!k) return '';
  const parts = [];
  const touched = [...((k.touched && k.touched.colors) || []).map((c) => HB_COLOURS[c]), ...((k.touched && k.touched.numbers) || [])];
  parts.push(touched.length ? `hinted: ${touched.join(', ')}` : 'no hint yet');
  const not = [...((k.not && k.not.colors) || []).map((c) => HB_COLOURS[c]), ...((k.not && k.not.numbers) || [])];
  if (not.length) parts.push(`not ${hbList(not.map(String))}`);
  const pc = (k.possible && k.possible.colors) || [];
  const pn = (k.possible && k.possible.numbers) || [];
  if (pc.length < 6 || pn.length < 5) parts.push(`could be ${hbList(pc.map((c) => HB_COLOURS[c]))}, ${hbList(pn.map(String))}`);
  return parts.join('; ');
}

/** The face of a card: a real card, or for your own hidden cards what is known. */
function hbFace(slot, { own } = {}) {
  const c = hbCard(slot.card);
  if (!c.hidden) {
    return h('span', { class: `card hb-card hb-${c.colour}`, 'aria-hidden': 'true', dataset: { card: slot.card } },
      h('span', { class: 'hb-num' }, c.number),
      h('span', { class: 'hb-col' }, c.colour === 'M' ? '✦' : c.colour));
  }
  const pc = (slot.possible && slot.possible.colors) || [];
  const pn = (slot.possible && slot.possible.numbers) || [];
  let cls = 'hb-unknown';
  if (pc.length === 1) cls = `hb-${pc[0]}`;
  else if (pc.length === 2 && pc.includes('M')) cls = `hb-${pc.find((x) => x !== 'M')} hb-maybe-M`;
  return h('span', { class: `card hb-card hb-hidden ${cls}`, 'aria-hidden': 'true', dataset: { card: '??' } },
    h('span', { class: 'hb-num' }, pn.length === 1 ? pn[0] : '?'),
    h('span', { class: 'hb-col' }, pc.length === 1 ? (pc[0] === 'M' ? '✦' : pc[0]) : (own ? '' : '?')));
}

/** The hint marks under a card: touched (what was said) and, compactly, what was ruled out. */
function hbMarks(slot) {
  const t = slot.touched || {};
  const n = slot.not || {};
  const chips = [
    ...(t.colors || []).map((c) => h('span', { class: `hb-chip hb-chip-col hb-${c}`, title: `hinted ${HB_COLOURS[c]}` }, c)),
    ...(t.numbers || []).map((x) => h('span', { class: 'hb-chip hb-chip-num', title: `hinted ${x}` }, x)),
  ];
  const nots = [...(n.colors || []), ...(n.numbers || [])];
  return h('span', { class: 'hb-marks', 'aria-hidden': 'true' },
    h('span', { class: 'hb-touched', 'data-testid': 'hb-touched' }, chips),
    h('span', { class: 'hb-not', title: nots.length ? `not ${nots.join(', ')}` : '' }, nots.length ? `✗${nots.join('')}` : ''));
}

/** Does a hint (colour c or number x) touch a card? Rainbow cards take every colour hint. */
function hbTouches(card, clue) {
  const c = hbCard(card);
  if (c.hidden) return false;
  if (typeof clue === 'number') return c.number === clue;
  return c.colour === clue || (c.colour === 'M' && clue !== 'M');
}

const HB = {
  title: 'Hanabi',
  defaultPlayers: 3,

  formOptions() {
    return [h('div', { class: 'field' },
      h('label', { for: 'ng-opt-end' }, 'End of the game'),
      h('select', { id: 'ng-opt-end', 'data-testid': 'new-game-end' },
        h('option', { value: 'seed' }, 'As the rules say: after the deck runs out, everyone plays once more'),
        h('option', { value: 'standard' }, 'hanab.live: one round after the last card is drawn')))];
  },
  readOptions() {
    const end = byId('ng-opt-end');
    return end && end.value !== 'seed' ? { end: end.value } : {};
  },

  describePlayNodes(play0, seat, rec) {
    const play = hbPlay(play0);
    const you = app.you;
    const pos = (i) => `card ${i}`;
    switch (play.type) {
      case 'hint': {
        const clue = play.color !== undefined && play.color !== null ? play.color : play.number;
        const who = play.target === you ? 'you' : seatName(play.target);
        const touched = rec && Array.isArray(rec.touched) ? ` (${rec.touched.length === 1 ? 'card' : 'cards'} ${rec.touched.join(', ')})` : '';
        return [`hinted ${who} about ${play.target === you ? 'your' : 'their'} `,
          typeof clue === 'number' ? `${clue}s` : h('span', { class: `hb-word hb-${clue}` }, HB_COLOURS[clue] || clue), touched];
      }
      case 'play':
      case 'discard': {
        const verb = play.type === 'play' ? 'played' : 'discarded';
        const nodes = [`${verb} ${pos(play.card)}`];
        if (rec && rec.card) {
          nodes.push(': ', hbCardText(rec.card));
          if (play.type === 'play') nodes.push(rec.correct ? ' ✓ onto the fireworks' : ' ✗ misplayed — an error');
        }
        if (rec && rec.drew) nodes.push(rec.drew === '??' ? '; drew a card' : ['; drew ', hbCardText(rec.drew)]);
        return nodes;
      }
      default: return [JSON.stringify(play0)];
    }
  },

  describePlay(play0, seat, opts = {}) {
    const play = hbPlay(play0);
    if (opts.forHint) {
      if (play.type === 'play') return `play your card ${play.card}`;
      if (play.type === 'discard') return `discard your card ${play.card}`;
      if (play.type === 'hint') {
        const clue = play.color !== undefined && play.color !== null ? HB_COLOURS[play.color] : `${play.number}s`;
        return `tell ${seatName(play.target)} about their ${clue}`;
      }
    }
    return h('span', {}, HB.describePlayNodes(play, seat)).textContent;
  },

  statusExtra(s) {
    const parts = [];
    if (s.turn !== undefined) parts.push(`turn ${s.turn}`);
    parts.push(`score ${s.score}/${s.max_score}`);
    if (s.final_turns_left !== null && s.final_turns_left !== undefined && !s.over) parts.push(`final round: ${s.final_turns_left} turn${s.final_turns_left === 1 ? '' : 's'} left`);
    return parts.join(' · ');
  },

  resultText(s) {
    const score = `Score ${s.score} of ${s.max_score}.`;
    switch (s.result) {
      case 'errors': return `Game over: the third error ended the show. ${score}`;
      case 'deck-out': return `Game over: the deck ran out and everyone had a last turn. ${score}`;
      case 'all-fives': return `Game over: every firework is complete! ${score}`;
      default: return `Game over. ${score}`;
    }
  },

  render(a) {
    const s = a.state;
    const you = a.you === null || a.you === undefined ? null : a.you;
    const playing = myTurn();
    const sel = a.selection;
    const legal = playing ? a.legal.map(hbPlay) : [];
    const has = (p) => legal.some((q) => same(q, p));
    const n = s.players || (s.hands || []).length;
    const colours = hbColours(s);
    const hintPlay = a.hint ? hbPlay(a.hint.play) : null;

    // Which cards the recommended play is about.
    const hinted = (seat, i, card) => {
      if (!hintPlay) return false;
      if (hintPlay.type === 'play' || hintPlay.type === 'discard') return seat === you && hintPlay.card === i;
      if (hintPlay.type === 'hint' && hintPlay.target === seat) {
        return hbTouches(card, hintPlay.color !== undefined && hintPlay.color !== null ? hintPlay.color : hintPlay.number);
      }
      return false;
    };
    const clickCard = (key, ok, why) => () => {
      if (a.busy) return;
      if (!playing) { say(s.over ? 'The game is over.' : 'It is not your turn.', 'error'); return; }
      if (!ok) { say(why, 'error'); return; }
      select(key);
    };

    // --- tokens, deck, score
    const dots = (k, max, cls) => h('span', { class: 'hb-dots', 'aria-hidden': 'true' },
      Array.from({ length: max }, (_, i) => h('span', { class: `hb-dot ${cls}${i < k ? ' on' : ''}` })));
    const maxHints = s.max_hints || 8;
    const maxErrors = s.max_errors || 3;
    const finalLeft = s.final_turns_left;
    const tokens = h('section', { class: 'hb-tokens', 'aria-label': 'Tokens and deck' },
      h('p', { class: 'hb-token', 'data-testid': 'hb-hints' }, h('span', { class: 'hb-token-label' }, `Hints ${s.hints}/${maxHints}`), dots(s.hints, maxHints, 'hint')),
      h('p', { class: 'hb-token', 'data-testid': 'hb-errors' }, h('span', { class: 'hb-token-label' }, `Errors ${s.errors}/${maxErrors}`), dots(s.errors, maxErrors, 'error')),
      h('p', { class: 'hb-token', 'data-testid': 'hb-deck' }, `Deck ${s.deck} card${s.deck === 1 ? '' : 's'}`),
      h('p', { class: 'hb-token', 'data-testid': 'hb-score' }, `Score ${s.score}/${s.max_score}`),
      finalLeft !== null && finalLeft !== undefined && !s.over
        ? h('p', { class: 'hb-token hb-final', 'data-testid': 'hb-final' }, `Final round: ${finalLeft} turn${finalLeft === 1 ? '' : 's'} left`) : null);

    // --- fireworks
    const fireworks = h('section', { class: 'hb-fireworks', 'aria-labelledby': 'hb-fw-title' },
      h('h3', { class: 'area-title', id: 'hb-fw-title' }, 'Fireworks'),
      h('ul', { class: 'hb-piles' }, colours.map((c) => {
        const k = (s.fireworks || {})[c] || 0;
        return h('li', { class: 'hb-pile', 'data-testid': `hb-firework-${c}` },
          k ? h('span', { class: `card hb-card hb-${c}`, 'aria-hidden': 'true' }, h('span', { class: 'hb-num' }, k), h('span', { class: 'hb-col' }, c === 'M' ? '✦' : c))
            : h('span', { class: `card card-empty hb-empty hb-${c}-line`, 'aria-hidden': 'true' }, HB_COLOURS[c]),
          h('span', { class: 'visually-hidden' }, `${HB_COLOURS[c]}: ${k ? `up to ${k}` : 'nothing yet'}`));
      })));

    // --- discard pile, grouped by colour
    const byColour = {};
    for (const d of s.discard || []) (byColour[d[0]] = byColour[d[0]] || []).push(d);
    const discard = h('section', { class: 'hb-discard', 'data-testid': 'hb-discard-pile', 'aria-labelledby': 'hb-dp-title' },
      h('h3', { class: 'area-title', id: 'hb-dp-title' }, `Discard pile (${(s.discard || []).length})`),
      (s.discard || []).length
        ? h('ul', { class: 'hb-discard-rows' }, colours.filter((c) => byColour[c]).map((c) => h('li', { class: 'hb-discard-row' },
          byColour[c].sort().map((d) => h('span', { class: `hb-mini hb-${c}`, title: hbCard(d).name }, d[1])),
          h('span', { class: 'visually-hidden' }, `${HB_COLOURS[c]}: ${byColour[c].map((d) => d[1]).join(', ')}`))))
        : h('p', { class: 'hb-none' }, 'Nothing discarded yet.'));

    // --- one player's hand
    const playerArea = (seat) => {
      const isYou = seat === you;
      const hand = (s.hands || [])[seat] || [];
      const isCurrent = s.current === seat && !s.over;
      const canHintThem = !isYou && legal.some((p) => p.type === 'hint' && p.target === seat);
      const cards = hand.map((slot, i) => {
        const key = isYou ? `own:${i}` : `p:${seat}:${i}`;
        const c = hbCard(slot.card);
        const ok = isYou ? legal.some((p) => (p.type === 'play' || p.type === 'discard') && p.card === i) : canHintThem;
        const why = isYou ? 'That card cannot be played or discarded now.' : (s.hints === 0 ? 'No hint tokens left: play or discard instead.' : 'No hint to that player is possible now.');
        const words = [];
        if (sel === key) words.push('selected');
        if (hinted(seat, i, slot.card)) words.push('hint: this card');
        const label = isYou
          ? `Your card ${i}${i === 0 ? ' (oldest)' : ''}: ${hbKnowledgeText(slot)}`
          : `${seatName(seat)}'s card ${i}: ${c.name}; they know: ${hbKnowledgeText(slot)}`;
        return h('button', {
          type: 'button', class: `hand-card hb-slot${sel === key ? ' selected' : ''}${ok && !sel ? ' playable' : ''}${hinted(seat, i, slot.card) ? ' hinted' : ''}`,
          'data-testid': `hb-card-${seat}-${i}`, 'aria-pressed': String(sel === key), 'aria-disabled': ok ? null : 'true',
          'aria-label': label + (words.length ? `, ${words.join(', ')}` : ''),
          onclick: clickCard(key, ok, why),
        }, h('span', { class: 'hb-pos', 'aria-hidden': 'true' }, i), hbFace(slot, { own: isYou }), hbMarks(slot));
      });
      const header = h('h3', { class: 'player-name' },
        h('span', {}, isYou ? `${seatName(seat)} — your cards are hidden from you` : seatName(seat)),
        isCurrent ? h('span', { class: 'badge badge-turn' }, 'to play') : null,
        s.first === seat ? h('span', { class: 'badge' }, 'started') : null);
      return h('section', {
        class: `player hb-player${isYou ? ' you' : ''}${isCurrent ? ' current' : ''}`, 'data-testid': `player-${seat}`,
        'aria-label': isYou ? 'Your hand' : `${seatName(seat)}'s hand`,
      }, header, h('div', { class: 'hand hb-hand', role: 'group', 'aria-label': isYou ? 'Your cards, oldest first' : `${seatName(seat)}'s cards, oldest first`, 'data-testid': `hb-hand-${seat}` }, cards));
    };

    // --- the actions for the selected card
    let actions = null;
    if (playing && sel) {
      const m = /^own:(\d+)$/.exec(sel);
      const o = /^p:(\d+):(\d+)$/.exec(sel);
      const btn = (testid, text, play, extra = {}) => h('button', {
        type: 'button', class: 'btn btn-primary', 'data-testid': testid, disabled: !has(play),
        onclick: () => sendPlay(play), ...extra,
      }, text);
      if (m) {
        const i = +m[1];
        actions = h('div', { class: 'hb-actions', role: 'group', 'aria-label': `Actions for your card ${i}`, 'data-testid': 'hb-actions' },
          h('span', { class: 'hb-actions-what' }, `Your card ${i}:`),
          btn('hb-play', 'Play', { type: 'play', card: i }, { 'aria-label': `Play your card ${i}` }),
          btn('hb-discard', 'Discard', { type: 'discard', card: i }, {
            'aria-label': `Discard your card ${i}`, title: s.hints >= maxHints ? 'All hint tokens are in: you may not discard.' : null,
          }),
          s.hints >= maxHints ? h('span', { class: 'hb-note' }, 'All 8 hint tokens are in: no discarding.') : null);
      } else if (o) {
        const p = +o[1];
        const i = +o[2];
        const slot = ((s.hands || [])[p] || [])[i];
        const c = hbCard(slot && slot.card);
        const who = seatName(p);
        const theirs = ((s.hands || [])[p] || []).map((x) => x.card);
        const count = (clue) => { const k = theirs.filter((x) => hbTouches(x, clue)).length; return `${k} card${k === 1 ? '' : 's'}`; };
        const colourBtn = (col, testid) => btn(testid, `Hint colour: ${HB_COLOURS[col]}`, { type: 'hint', target: p, color: col }, {
          'aria-label': `Tell ${who} about their ${HB_COLOURS[col]} cards (touches ${count(col)})`, title: `touches ${count(col)}`,
        });
        const colourButtons = c.colour === 'M'
          ? [h('span', { class: 'hb-note' }, 'Rainbow cannot be named; every colour hint touches it:'),
            ...HB_ORDER.filter((x) => x !== 'M').map((x) => colourBtn(x, `hb-hint-color-${x}`))]
          : [colourBtn(c.colour, 'hb-hint-color')];
        actions = h('div', { class: 'hb-actions', role: 'group', 'aria-label': `Hints about ${who}'s ${c.name}`, 'data-testid': 'hb-actions' },
          h('span', { class: 'hb-actions-what' }, `${who}'s `, hbCardText(slot.card), ':'),
          ...colourButtons,
          btn('hb-hint-number', `Hint number: ${c.number}`, { type: 'hint', target: p, number: c.number }, {
            'aria-label': `Tell ${who} about their ${c.number}s (touches ${count(c.number)})`, title: `touches ${count(c.number)}`,
          }),
          s.hints === 0 ? h('span', { class: 'hb-note' }, 'No hint tokens left.') : null);
      }
    }

    const order = [];
    for (let i = 1; i <= n; i++) order.push(you === null ? i - 1 : (you + i) % n);
    const others = order.filter((x) => x !== you);
    const help = h('p', { class: 'help', 'data-testid': 'play-help' },
      playing ? (sel ? 'Choose what to do with the selected card (Escape cancels).'
        : 'Choose one of your cards to play or discard it, or another player\'s card to give them a hint.')
        : (s.over ? '' : 'Waiting for the other players.'));
    return h('div', { class: 'hb-table' },
      h('div', { class: 'hb-center' }, tokens, fireworks, discard),
      h('div', { class: 'opponents hb-opponents' }, others.map(playerArea)),
      you === null ? null : playerArea(you),
      h('div', { class: 'hb-actions-slot' }, actions),
      help,
      conventionsHelp());
  },
};

// The conventions the bots play by (and read a person's clues by), as
// GET /rules/hanabi states them: fetched once, shown folded under the table.
function conventionsHelp() {
  const doc = app.rulesDocs.hanabi;
  if (doc === undefined) {
    app.rulesDocs.hanabi = null; // asked once
    api('GET', '/rules/hanabi').then(({ data }) => {
      app.rulesDocs.hanabi = data || null;
      if (app.game === 'hanabi') render();
    }).catch(() => {});
    return null;
  }
  const conv = doc && doc.conventions;
  if (!conv || !Array.isArray(conv.rules)) return null;
  return h('details', { class: 'help conventions', 'data-testid': 'hb-conventions' },
    h('summary', {}, 'How the bots play: our conventions'),
    conv.summary ? h('p', {}, conv.summary) : null,
    h('ul', {}, conv.rules.map((r) => h('li', {}, typeof r === 'string' ? r : (r.text || r.rule || JSON.stringify(r))))));
}

function hbCardText(card) {
  const c = hbCard(card);
  if (c.hidden) return h('span', { class: 'card-text' }, '??');
  return h('span', { class: `card-text hb-word hb-${c.colour}`, title: c.name }, `${c.colour === 'M' ? '✦' : c.colour}${c.number}`);
}

// ---------------------------------------------------------------------------
// Five Crowns: draw (draw pile or discard pile), then discard, maybe going out.

const FC_SUITS = {
  S: { sym: '♠', name: 'spades' },
  C: { sym: '♣', name: 'clubs' },
  D: { sym: '♦', name: 'diamonds' },
  H: { sym: '♥', name: 'hearts' },
  T: { sym: 'ψ', name: 'tridents' },
};
const FC_RANKS = { X: ['10', '10'], J: ['J', 'jack'], Q: ['Q', 'queen'], K: ['K', 'king'] };
const FC_RANK_PLURAL = { 3: '3s', 4: '4s', 5: '5s', 6: '6s', 7: '7s', 8: '8s', 9: '9s', X: '10s', J: 'jacks', Q: 'queens', K: 'kings' };

function fcCard(card) {
  const wild = app.state && app.state.wild_rank;
  if (typeof card !== 'string') return { rank: '?', sym: '', name: 'unknown card', suit: 'none', text: '?' };
  if (/^J[123]$/.test(card)) return { rank: '★', sym: '', name: 'joker', suit: 'joker', text: 'Joker', joker: true };
  const m = /^(10|[3-9XJQK])([SCDHT])$/.exec(card);
  if (!m) return { rank: '?', sym: '', name: card, suit: 'none', text: card };
  const r = m[1] === '10' ? 'X' : m[1];
  const [rank, rankName] = FC_RANKS[r] || [r, r];
  const suit = FC_SUITS[m[2]];
  return { rank, sym: suit.sym, name: `${rankName} of ${suit.name}`, suit: m[2], text: `${rank}${suit.sym}`, wild: r === wild };
}
const fcName = (card) => { const c = fcCard(card); return c.wild ? `${c.name} (wild)` : c.name; };

function fcFace(card, extra = '') {
  const c = fcCard(card);
  const cls = `card fc-card fc-${c.suit}${c.wild ? ' fc-wild' : ''}${c.joker ? ' fc-joker' : ''} ${extra}`;
  return h('span', { class: cls, 'aria-hidden': 'true', dataset: { card } },
    h('span', { class: 'card-rank' }, c.rank),
    c.joker ? h('span', { class: 'fc-joker-word' }, 'Joker') : h('span', { class: 'card-suit' }, c.sym),
    c.wild ? h('span', { class: 'fc-wild-mark' }, 'wild') : null);
}
const fcBack = (extra = '') => h('span', { class: `card fc-back ${extra}`, 'aria-hidden': 'true' });

function fcCardText(card) {
  const c = fcCard(card);
  return h('span', { class: `card-text fc-text fc-${c.suit}${c.wild || c.joker ? ' fc-text-wild' : ''}`, title: fcName(card) }, c.text);
}

/** Runs and books as small card groups. */
function fcArrangement(arr, testid) {
  if (!arr) return null;
  const group = (kind, cards, i) => h('li', { class: `fc-group fc-${kind}`, 'data-testid': `${testid}-${kind}-${i}`, 'aria-label': `${kind === 'run' ? 'Run' : 'Book'}: ${cards.map(fcName).join(', ')}` },
    h('span', { class: 'fc-group-kind', 'aria-hidden': 'true' }, kind), h('span', { class: 'fc-mini-row', 'aria-hidden': 'true' }, cards.map((c) => fcFace(c, 'fc-mini'))));
  const runs = (arr.runs || []).map((g, i) => group('run', g, i));
  const books = (arr.books || []).map((g, i) => group('book', g, i));
  const left = arr.left || [];
  return h('div', { class: 'fc-arrangement', 'data-testid': testid },
    runs.length || books.length ? h('ul', { class: 'fc-groups' }, runs, books) : h('p', { class: 'fc-none' }, 'No run or book yet.'),
    h('p', { class: 'fc-left', 'aria-label': left.length ? `Left over: ${left.map(fcName).join(', ')}, ${arr.points} points` : 'Nothing left over: 0 points' },
      h('span', { 'aria-hidden': 'true' }, left.length ? ['Left over: ', h('span', { class: 'fc-mini-row' }, left.map((c) => fcFace(c, 'fc-mini'))), ` = ${arr.points} points`] : 'Nothing left over: 0 points')));
}

async function fcSave() {
  try {
    const res = await fetch(`/games/${encodeURIComponent(app.id)}/export?format=fivecrowns-text`, {
      cache: 'no-store', headers: app.token ? { Authorization: `Bearer ${app.token}` } : {},
    });
    const text = await res.text();
    if (!res.ok) {
      let p = null;
      try { p = JSON.parse(text); } catch { p = null; }
      throw new ApiError(res.status, p, res.statusText);
    }
    const cd = res.headers.get('Content-Disposition') || '';
    const m = /filename="?([^";]+)"?/.exec(cd);
    const name = m ? m[1] : `fivecrowns-${app.id}.txt`;
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    const link = h('a', { href: url, download: name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    say(`Saved as ${name}. Use "Resume from file" under New game to continue it later.`);
  } catch (err) {
    sayError(err, 'Could not save the game');
  }
}

const FC = {
  title: 'Five Crowns',
  defaultPlayers: 2,

  formOptions() {
    return [
      h('div', { class: 'field' },
        h('label', { for: 'ng-opt-call' }, 'Call the coin toss (who starts round 1)'),
        h('select', { id: 'ng-opt-call', 'data-testid': 'new-game-call' },
          h('option', { value: 'heads' }, 'Heads'),
          h('option', { value: 'tails' }, 'Tails'),
          h('option', { value: '' }, 'No call: let the deal decide'))),
      h('div', { class: 'field field-check' },
        h('input', { id: 'ng-opt-open', type: 'checkbox', checked: true, 'data-testid': 'new-game-open' }),
        h('label', { for: 'ng-opt-open' }, 'Open table: every hand and the draw pile on view (as in the original game)')),
    ];
  },
  readOptions() {
    const o = {};
    const call = byId('ng-opt-call');
    const open = byId('ng-opt-open');
    if (call && call.value) o.call = call.value;
    if (open) o.open = open.checked;
    return o;
  },

  describePlayNodes(play, seat, rec) {
    if (!play || typeof play !== 'object') return [JSON.stringify(play)];
    if (play.draw === 'draw') return ['drew from the draw pile', rec && rec.card && (seat === app.you || (app.state && app.state.open)) ? [' (', fcCardText(rec.card), ')'] : ''];
    if (play.draw === 'discard') return rec && rec.card ? ['took ', fcCardText(rec.card), ' from the discard pile'] : ['took the top of the discard pile'];
    if (play.discard) return ['discarded ', fcCardText(play.discard), play.go_out ? h('strong', {}, ' and went out') : ''];
    return [JSON.stringify(play)];
  },

  describePlay(play, seat, opts = {}) {
    if (opts.forHint && play) {
      if (play.draw === 'draw') return 'draw from the draw pile';
      if (play.draw === 'discard') return `take the ${fcName(app.state.discard_top)} from the discard pile`;
      if (play.discard) return `discard the ${fcName(play.discard)}${play.go_out ? ' and go out' : ''}`;
    }
    return h('span', {}, FC.describePlayNodes(play, seat)).textContent;
  },

  logExtra(rec) {
    const re = rec.round_end;
    if (!re) return null;
    const pts = (re.points || []).map((p, i) => `${seatName(i)} ${p}`).join(' · ');
    const how = re.ended === 'out' && re.went_out !== null && re.went_out !== undefined ? `${seatName(re.went_out)} went out` : (re.ended || '');
    return h('span', { class: 'log-round-end', 'data-testid': 'log-round-end' }, `Round ${re.round} over${how ? ` (${how})` : ''}: ${pts}`);
  },

  statusExtra(s) {
    const parts = [`round ${s.round}/${s.rounds_total || 11}`, `wild ${FC_RANK_PLURAL[s.wild_rank] || s.wild_rank}`];
    if (!s.over && s.phase) parts.push(s.phase === 'draw' ? 'draw a card' : 'discard a card');
    if (s.went_out !== null && s.went_out !== undefined && !s.over) parts.push(`${seatName(s.went_out)} went out: last turns`);
    return parts.join(' · ');
  },

  resultText(s) {
    const totals = (s.scores || []).map((p, i) => `${seatName(i)} ${p}`).join(', ');
    if (s.winner !== null && s.winner !== undefined) {
      return `${s.winner === app.you ? 'Game over: you won' : `Game over: ${seatName(s.winner)} won`} with the lowest score (${totals}).`;
    }
    return `Game over: a tie (${totals}).`;
  },

  render(a) {
    const s = a.state;
    const you = a.you === null || a.you === undefined ? null : a.you;
    const playing = myTurn();
    const legal = playing ? a.legal : [];
    const n = s.players || (s.scores || []).length;
    const goOut = a.selection === 'go_out';
    const canDraw = (src) => legal.some((p) => p.draw === src);
    const canGoOut = legal.some((p) => p.discard && p.go_out);
    const hintPlay = a.hint && a.hint.play;

    // --- round, wild, scores
    const toss = s.toss && s.round === 1
      ? h('p', { class: 'fc-toss', 'data-testid': 'fc-toss' },
        s.toss.call ? `Coin toss: ${you === 0 ? 'you' : seatName(0)} called ${s.toss.call}, it came up ${s.toss.result}` : `Coin toss: ${s.toss.result}`,
        s.starter !== null && s.starter !== undefined ? ` — ${seatName(s.starter)} started.` : '.')
      : null;
    const info = h('section', { class: 'fc-info', 'aria-label': 'Round and scores' },
      h('p', { class: 'fc-round', 'data-testid': 'fc-round' }, `Round ${s.round} of ${s.rounds_total || 11}`,
        h('span', { class: 'fc-sub' }, ` · ${s.cards_dealt} cards each`)),
      h('p', { class: 'fc-wildinfo', 'data-testid': 'fc-wild' }, 'Wild: ', h('strong', {}, FC_RANK_PLURAL[s.wild_rank] || s.wild_rank), ' and jokers'),
      h('table', { class: 'fc-scores', 'data-testid': 'fc-scores' },
        h('caption', { class: 'visually-hidden' }, 'Scores so far (lowest wins)'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Score'))),
        h('tbody', {}, (s.scores || []).map((p, i) => h('tr', { class: i === you ? 'you' : '' },
          h('th', { scope: 'row' }, seatName(i)), h('td', { 'data-testid': `fc-score-${i}` }, p))))),
      toss,
      h('p', { class: 'fc-legend', 'aria-hidden': 'true' }, 'Suits: ',
        Object.entries(FC_SUITS).map(([k, v]) => h('span', { class: `fc-text fc-${k}` }, `${v.sym} ${v.name} `)),
        h('span', { class: 'fc-text fc-joker' }, '★ joker')));

    // --- piles
    const drawHinted = hintPlay && hintPlay.draw === 'draw';
    const discHinted = hintPlay && hintPlay.draw === 'discard';
    const pileClick = (src) => () => {
      if (a.busy) return;
      if (!playing) { say(s.over ? 'The game is over.' : 'It is not your turn.', 'error'); return; }
      if (!canDraw(src)) { say(s.phase === 'discard' ? 'You have drawn already: now discard a card from your hand.' : 'You cannot take that card now.', 'error'); return; }
      sendPlay({ draw: src });
    };
    const drawBtn = h('button', {
      type: 'button', class: `pile fc-pile${canDraw('draw') ? ' playable target' : ''}${drawHinted ? ' hinted' : ''}`, 'data-testid': 'fc-draw-pile',
      'aria-disabled': canDraw('draw') ? null : 'true',
      'aria-label': `Draw pile, face down, ${s.draw_count} cards${canDraw('draw') ? ': draw its top card' : ''}${drawHinted ? ', hint: draw here' : ''}`,
      onclick: pileClick('draw'),
    }, s.draw_count ? fcBack() : h('span', { class: 'card card-empty' }, 'empty'), h('span', { class: 'count', 'aria-hidden': 'true' }, s.draw_count));
    const discBtn = h('button', {
      type: 'button', class: `pile fc-pile${canDraw('discard') ? ' playable target' : ''}${discHinted ? ' hinted' : ''}`, 'data-testid': 'fc-discard-pile',
      'aria-disabled': canDraw('discard') ? null : 'true',
      'aria-label': `Discard pile: ${s.discard_top ? `${fcName(s.discard_top)} on top` : 'empty'}, ${s.discard_count} cards${canDraw('discard') ? ': take the top card' : ''}${discHinted ? ', hint: take this card' : ''}`,
      onclick: pileClick('discard'),
    }, s.discard_top ? fcFace(s.discard_top) : h('span', { class: 'card card-empty' }, 'empty'), h('span', { class: 'count', 'aria-hidden': 'true' }, s.discard_count));
    const pileList = (cards, testid, summary) => Array.isArray(cards)
      ? h('details', { class: 'fc-pile-list', 'data-testid': testid },
        h('summary', {}, summary),
        h('p', { class: 'fc-mini-row fc-wrap' }, cards.map((c) => fcFace(c, 'fc-mini'))))
      : null;
    const piles = h('section', { class: 'fc-piles', 'aria-label': 'Draw and discard piles' },
      h('div', { class: 'fc-pile-wrap' }, h('span', { class: 'pile-caption' }, 'Draw pile'), drawBtn),
      h('div', { class: 'fc-pile-wrap' }, h('span', { class: 'pile-caption' }, 'Discard pile'), discBtn),
      h('div', { class: 'fc-pile-lists' },
        pileList(s.draw_pile, 'fc-draw-pile-list', `Draw pile (${s.draw_count}, top first) — on view, but play as if you could not see it`),
        pileList(s.discard_pile, 'fc-discard-pile-list', `Discard pile (${s.discard_count}, top first)`)));

    // --- a player's area
    const playerArea = (seat) => {
      const isYou = seat === you;
      const cards = isYou ? (s.hand || []) : ((s.hands || [])[seat] || null);
      const size = (s.hand_sizes || [])[seat] || 0;
      const isCurrent = s.current === seat && !s.over;
      const header = h('h3', { class: 'player-name' },
        h('span', {}, seatName(seat)),
        isCurrent ? h('span', { class: 'badge badge-turn' }, s.phase === 'discard' ? 'to discard' : 'to draw') : null,
        s.went_out === seat ? h('span', { class: 'badge badge-win' }, 'went out') : null,
        s.over && s.winner === seat ? h('span', { class: 'badge badge-win' }, 'winner') : null,
        h('span', { class: 'fc-seat-score' }, `score ${(s.scores || [])[seat] ?? 0}`));
      let hand;
      if (isYou) {
        const discarding = playing && s.phase === 'discard';
        hand = h('div', { class: 'hand fc-hand', role: 'group', 'aria-label': 'Your hand', 'data-testid': 'fc-hand' }, cards.map((card, i) => {
          const plain = legal.find((p) => p.discard === card && !p.go_out);
          const out = legal.find((p) => p.discard === card && p.go_out);
          const play = goOut ? out : (plain || out);
          const ok = discarding && !!play;
          const isHint = hintPlay && hintPlay.discard === card && cards.indexOf(card) === i;
          return h('button', {
            type: 'button', class: `hand-card${ok ? ' playable' : ''}${ok && goOut ? ' target' : ''}${isHint ? ' hinted' : ''}`, 'data-testid': `fc-hand-card-${i}`,
            'aria-disabled': ok ? null : 'true',
            'aria-label': `${fcName(card)}${ok ? (play.go_out ? ': discard it and go out' : ': discard it') : ''}${isHint ? ', hint: discard this card' : ''}`,
            onclick: () => {
              if (a.busy) return;
              if (!playing) { say(s.over ? 'The game is over.' : 'It is not your turn.', 'error'); return; }
              if (s.phase !== 'discard') { say('First draw a card: click the draw pile or the discard pile.', 'error'); return; }
              if (!play) { say(goOut ? 'Discarding that card does not let you go out.' : 'You cannot discard that card now.', 'error'); return; }
              sendPlay(play);
            },
          }, fcFace(card));
        }));
      } else if (cards) {
        hand = h('div', { class: 'hand fc-hand fc-open', role: 'group', 'aria-label': `${seatName(seat)}'s hand (open table): ${cards.map(fcName).join(', ')}`, 'data-testid': `fc-hand-${seat}` },
          cards.map((card) => fcFace(card)));
      } else {
        hand = h('div', { class: 'hand fc-hand fc-closed', role: 'img', 'aria-label': `${seatName(seat)}'s hand: ${size} cards, face down`, 'data-testid': `fc-hand-${seat}` },
          Array.from({ length: size }, () => fcBack()));
      }
      const extras = [];
      if (isYou && playing && s.phase === 'discard') {
        extras.push(h('div', { class: 'fc-go-out-row' },
          h('button', {
            type: 'button', class: `btn ${goOut ? 'btn-primary' : 'btn-secondary'}`, 'data-testid': 'fc-go-out',
            'aria-pressed': String(goOut), disabled: !canGoOut,
            onclick: () => { app.selection = goOut ? null : 'go_out'; render(); },
          }, goOut ? 'Going out: pick the card to discard' : 'Go out'),
          h('span', { class: 'fc-note' }, canGoOut
            ? (goOut ? 'The highlighted cards let the rest of your hand form runs and books.' : 'You can go out: press "Go out", then pick the card to discard.')
            : 'Going out needs the cards left after your discard to form runs and books.')));
      }
      return h('section', {
        class: `player fc-player${isYou ? ' you' : ''}${isCurrent ? ' current' : ''}`, 'data-testid': `player-${seat}`,
        'aria-label': isYou ? 'Your area' : `${seatName(seat)}'s area`,
      }, header, hand, ...extras);
    };

    // --- help mode advice
    let advice = null;
    if (a.hint && a.hint.arrangement) {
      const hnt = a.hint;
      advice = h('section', { class: 'fc-advice', 'data-testid': 'fc-advice', 'aria-labelledby': 'fc-advice-title' },
        h('h3', { class: 'area-title', id: 'fc-advice-title' }, `Help${hnt.strategy ? ` · advice of the ${hnt.strategy} bot` : ''}`),
        hnt.draw ? h('p', { 'data-testid': 'fc-advice-draw' }, h('strong', {}, hnt.draw.source === 'discard' ? 'Take the discard. ' : 'Draw from the draw pile. '), hnt.draw.why) : null,
        hnt.discard ? h('p', { 'data-testid': 'fc-advice-discard' }, h('strong', {}, 'Discard ', fcCardText(hnt.discard.card), '. '), hnt.discard.why) : null,
        h('p', { class: 'fc-advice-why' }, hnt.arrangement.why),
        fcArrangement(hnt.arrangement, 'fc-advice-arrangement'),
        h('p', { 'data-testid': 'fc-advice-go-out' }, h('strong', {}, hnt.go_out ? 'Go out. ' : 'Do not go out yet. '), hnt.go_out_why || ''));
    }

    // --- finished rounds
    const rounds = s.rounds || [];
    const roundsTable = rounds.length ? h('section', { class: 'fc-rounds', 'data-testid': 'fc-rounds', 'aria-labelledby': 'fc-rounds-title' },
      h('h3', { class: 'area-title', id: 'fc-rounds-title' }, 'Finished rounds (points scored)'),
      h('div', { class: 'fc-table-wrap' }, h('table', {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Round'), Array.from({ length: n }, (_, i) => h('th', { scope: 'col' }, seatName(i))))),
        h('tbody', {}, rounds.map((r) => h('tr', { 'data-testid': `fc-round-${r.round}` },
          h('th', { scope: 'row' }, `${r.round} (wild ${FC_RANK_PLURAL['3456789XJQK'[r.round - 1]] || ''})`),
          (r.points || []).map((p, i) => h('td', {}, p, r.went_out === i ? h('span', { class: 'badge badge-win' }, 'out') : null))))))),
      h('details', { class: 'fc-layouts', 'data-testid': 'fc-last-layouts' },
        h('summary', {}, `How the hands were laid out in round ${rounds[rounds.length - 1].round}`),
        ((rounds[rounds.length - 1].layouts) || []).map((l, i) => h('div', { class: 'fc-layout' },
          h('h4', {}, `${seatName(i)}: ${l.points} points`), fcArrangement(l, `fc-layout-${i}`))))) : null;

    const order = [];
    for (let i = 1; i <= n; i++) order.push(you === null ? i - 1 : (you + i) % n);
    const others = order.filter((x) => x !== you);
    const help = h('p', { class: 'help', 'data-testid': 'play-help' },
      playing ? (s.phase === 'draw' ? 'Draw: click the draw pile or the discard pile.'
        : (goOut ? 'Pick the card to discard as you go out (Escape cancels).' : 'Discard: click a card in your hand.'))
        : (s.over ? '' : 'Waiting for the other players.'));
    return h('div', { class: 'fc-table' },
      info,
      h('div', { class: 'opponents fc-opponents' }, others.map(playerArea)),
      piles,
      you === null ? null : playerArea(you),
      help,
      advice,
      roundsTable);
  },

  /** Save is not a play, but it belongs with the controls. */
  extraPlays(a) {
    if (!a.id) return [];
    return [h('button', { type: 'button', class: 'btn btn-secondary', 'data-testid': 'fc-save', onclick: fcSave, 'aria-label': 'Save the game to a file' }, 'Save')];
  },
};

// ---------------------------------------------------------------------------
// Phazed: pick up (deck or discard), then maybe lay the phase for this hand,
// place cards on groups on the table, and discard (bonus: play a Joker as Skip).
// Plays are the reference tuples as arrays: [1,null] [2,card] [3,[type,groups]]
// [4,[card,[player,group,index]]] [5,card] [6,target].

const PZ_PHASES = {
  1: { name: 'two sets of three', groups: ['set of three', 'set of three'] },
  2: { name: 'seven of one suit', groups: ['seven of one suit'] },
  3: { name: 'two 34-accumulations', groups: ['34-accumulation', '34-accumulation'] },
  4: { name: 'two sets of four', groups: ['set of four', 'set of four'] },
  5: { name: 'a run of eight', groups: ['run of eight'] },
  6: { name: 'two one-colour 34-accumulations', groups: ['one-colour accumulation', 'one-colour accumulation'] },
  7: { name: 'a one-colour run of four and a set of four', groups: ['one-colour run of four', 'set of four'] },
};
const PZ_VALUES = '234567890JQKA';
const PZ_SUITS = 'SHDC';

function pzCard(card) {
  const c = boCard(card);
  return { ...c, wild: typeof card === 'string' && card[0] === 'A', joker: card === 'ZZ', name: card === 'ZZ' ? 'joker (Skip card)' : (card && card[0] === 'A' ? `${c.name} (wild)` : c.name) };
}
function pzFace(card, extra = '') {
  const c = pzCard(card);
  return h('span', { class: `card card-${c.colour}${c.wild ? ' pz-wild' : ''}${c.joker ? ' pz-joker' : ''} ${extra}`, 'aria-hidden': 'true', dataset: { card } },
    h('span', { class: 'card-rank' }, c.joker ? 'Skip' : c.rank),
    h('span', { class: 'card-suit' }, c.joker ? '★' : c.sym),
    c.wild ? h('span', { class: 'pz-wild-mark' }, 'wild') : null);
}
function pzText(card) {
  const c = pzCard(card);
  return h('span', { class: `card-text card-${c.colour}`, title: c.name }, c.joker ? 'Skip★' : c.text);
}
const pzMiniRow = (cards) => h('span', { class: 'pz-mini-row', 'aria-hidden': 'true' }, (cards || []).map((c) => pzFace(c, 'pz-mini')));
const pzGroupsText = (groups) => (groups || []).map((g) => `[${g.map((c) => pzCard(c).text).join(' ')}]`).join(' ');
const pzWho = (p, lower) => (p === app.you ? (lower ? 'you' : 'You') : seatName(p));
const pzWhose = (p) => (p === app.you ? 'your' : `${seatName(p)}'s`);

function pzSortKey(card, by) {
  if (card === 'ZZ') return 1000;
  const v = PZ_VALUES.indexOf(card[0]);
  const su = PZ_SUITS.indexOf(card[1]);
  return by === 'suit' ? (card[0] === 'A' ? 900 + su : su * 20 + v) : v * 10 + su;
}

/** Phase progress: standard counts phases done (0-7), bonus has 7 flags. */
function pzProgress(st) {
  if (Array.isArray(st)) return { done: st.filter(Boolean).length, flags: st };
  const n = +st || 0;
  return { done: n, flags: Array.from({ length: 7 }, (_, i) => i < n) };
}

function pzAccText(acc) {
  if (!acc) return '';
  return acc.complete ? `${acc.total} — complete; next ${acc.next}` : `${acc.total} of ${acc.next}, ${acc.next - acc.total} to go`;
}

const PZ_START_KEY = (id) => `croupier.phazed.start.${id}`;

const PZ = {
  title: 'Phazed',
  defaultPlayers: 4,

  /** GET /plays gives the current hand's turn history ([seat, [plays]]); make log records of it.
   *  The record numbers continue from where this hand began (remembered by render). */
  historyRecords(plays) {
    if (!plays.length || !Array.isArray(plays[0])) return plays;
    const s = app.state || {};
    let start = null;
    try {
      const m = JSON.parse(sessionStorage.getItem(PZ_START_KEY(app.id)) || 'null');
      if (m && m.hand === s.hand_number) start = m.start;
    } catch { start = null; }
    const out = [];
    plays.forEach(([seat, list], t) => {
      (list || []).forEach((play, i) => {
        const k = out.length;
        const last = i === list.length - 1;
        const ended = last && (t < plays.length - 1 || play[0] === 5 || play[0] === 6);
        out.push({ n: start !== null ? start + k : `h${s.hand_number}.${k}`, seat, play, turn_ending: ended });
      });
    });
    return out;
  },

  describePlayNodes(play, seat, rec) {
    if (!Array.isArray(play)) return [JSON.stringify(play)];
    const [t, x] = play;
    switch (t) {
      case 1: return ['drew from the deck', x && x !== 'XX' ? [' (', pzText(x), ')'] : ''];
      case 2: return ['took ', pzText(x), ' from the discard pile'];
      case 3: {
        const [type, groups] = x || [];
        return [h('strong', {}, `played phase ${type}`), ': ', (groups || []).map((g, i) => [i ? ' ' : '', '[', g.map((c, j) => [j ? ' ' : '', pzText(c)]), ']'])];
      }
      case 4: {
        const [card, [p, g, i]] = x;
        return ['placed ', pzText(card), ` on ${p === seat ? 'own' : `${pzWhose(p)}`} group ${g + 1} at position ${i + 1}`];
      }
      case 5: return ['discarded ', pzText(x)];
      case 6: return ['played a Skip on ', pzWho(x, true)];
      default: return [JSON.stringify(play)];
    }
  },

  describePlay(play, seat, opts = {}) {
    if (opts.forHint && Array.isArray(play)) {
      const [t, x] = play;
      if (t === 1) return 'draw from the deck';
      if (t === 2) return `take the ${pzCard(x).name} from the discard pile`;
      if (t === 3) return `play phase ${x[0]}: ${pzGroupsText(x[1])}`;
      if (t === 4) return `place the ${pzCard(x[0]).name} on ${pzWhose(x[1][0])} group ${x[1][1] + 1}`;
      if (t === 5) return `discard the ${pzCard(x).name}`;
      if (t === 6) return `play a Skip on ${seatName(x)}`;
    }
    return h('span', {}, PZ.describePlayNodes(play, seat)).textContent;
  },

  logExtra(rec) {
    const parts = [];
    if (Array.isArray(rec.skipped) && rec.skipped.length) {
      parts.push(h('span', { class: 'log-why', 'data-testid': 'log-skipped' }, `Skipped: ${rec.skipped.map((p) => pzWho(p, true)).join(', ')}`));
    }
    const ho = rec.hand_over;
    if (ho) {
      const pen = (ho.penalties || []).map((p, i) => `${seatName(i)} +${p}`).join(' · ');
      parts.push(h('span', { class: 'log-round-end', 'data-testid': 'log-hand-end' }, `Hand ${ho.hand} over (${ho.reason}): ${pen}`));
    }
    return parts.length ? parts : null;
  },

  statusExtra(s) {
    const parts = [`hand ${s.hand_number}/${s.max_hands || 20}`];
    if (!s.over && s.turn_phase) parts.push(s.turn_phase === 'pick-up' ? 'pick up a card' : 'play or discard');
    return parts.join(' · ');
  },

  resultText(s) {
    const ws = Array.isArray(s.winners) ? s.winners : (s.winner !== null && s.winner !== undefined ? [s.winner] : []);
    const totals = (s.scores || []).map((p, i) => `${seatName(i)} ${p}`).join(', ');
    if (!ws.length) return `Game over (${totals}).`;
    const names = ws.map((w) => (w === app.you ? 'you' : seatName(w)));
    return `Game over: ${names.join(' and ')} won${ws.length > 1 ? ' (tie)' : ''}. Penalty points: ${totals}.`;
  },

  render(a) {
    const s = a.state;
    const you = a.you === null || a.you === undefined ? null : a.you;
    const playing = myTurn();
    const legal = playing ? a.legal : [];
    const n = s.players || (s.hand_sizes || []).length;
    const hint = a.hint && Array.isArray(a.hint.play) ? a.hint.play : null;
    const hand = s.hand || [];
    const sel = typeof a.selection === 'string' && a.selection.startsWith('pz:') ? +a.selection.slice(3) : null;
    const selCard = sel !== null ? hand[sel] : null;
    const bonus = s.variant === 'bonus' || app.variant === 'bonus';
    const pickUp = s.turn_phase === 'pick-up';

    // Remember where this hand's records begin, so a reload can number the history.
    const nums = [...a.log.keys()].filter((k) => typeof k === 'number');
    if (nums.length && Array.isArray(s.turn_history)) {
      const len = s.turn_history.reduce((t, [, l]) => t + (l || []).length, 0);
      try { sessionStorage.setItem(PZ_START_KEY(a.id), JSON.stringify({ hand: s.hand_number, start: Math.max(...nums) - len + 1 })); } catch { /* ignore */ }
    }

    const placesFor = (card) => legal.filter((p) => p[0] === 4 && p[1][0] === card);
    const discardOf = (card) => legal.find((p) => p[0] === 5 && p[1] === card);
    const cardHasPlay = (card) => !!discardOf(card) || placesFor(card).length > 0;
    const fail = (msg) => say(msg, 'error');
    const guard = () => {
      if (a.busy) return false;
      if (!playing) { fail(s.over ? 'The game is over.' : 'It is not your turn.'); return false; }
      return true;
    };

    // --- hand, dealer, per-player progress and scores
    const progressPips = (seat) => {
      const pr = pzProgress((s.phase_status || [])[seat]);
      const label = bonus
        ? `Phases done: ${pr.flags.map((f, i) => (f ? i + 1 : null)).filter(Boolean).join(', ') || 'none'} (${pr.done} of 7)`
        : `Phase ${pr.done} of 7 done${pr.done < 7 ? `; this hand: phase ${pr.done + ((s.table || [])[seat] && s.table[seat][0] !== null ? 0 : 1)}` : ''}`;
      return h('span', { class: 'pz-pips', role: 'img', 'aria-label': label, title: label, 'data-testid': `pz-progress-${seat}` },
        pr.flags.map((f, i) => h('span', { class: `pz-pip${f ? ' on' : ''}`, 'aria-hidden': 'true' }, bonus ? i + 1 : '')),
        h('span', { class: 'pz-pip-text', 'aria-hidden': 'true' }, bonus ? `${pr.done}/7` : `phase ${pr.done} of 7`));
    };
    const info = h('section', { class: 'pz-info', 'aria-label': 'Hand and scores' },
      h('p', { class: 'pz-hand-no', 'data-testid': 'pz-hand-number' }, `Hand ${s.hand_number} of ${s.max_hands || 20}`,
        h('span', { class: 'pz-sub' }, ` · dealer ${seatName(s.dealer)}`)),
      h('div', { class: 'pz-table-wrap' }, h('table', { class: 'pz-scores', 'data-testid': 'pz-scores' },
        h('caption', { class: 'visually-hidden' }, 'Players: phases done, cards in hand, penalty points (lower is better)'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Phases'), h('th', { scope: 'col' }, 'Cards'), h('th', { scope: 'col' }, 'Points'))),
        h('tbody', {}, Array.from({ length: n }, (_, i) => h('tr', { class: `${i === you ? 'you' : ''}${s.current === i && !s.over ? ' current' : ''}` },
          h('th', { scope: 'row' }, seatName(i), s.current === i && !s.over ? h('span', { class: 'visually-hidden' }, ' (to play)') : null),
          h('td', {}, progressPips(i)),
          h('td', { 'data-testid': `pz-hand-size-${i}` }, (s.hand_sizes || [])[i] ?? ''),
          h('td', { 'data-testid': `pz-score-${i}` }, (s.scores || [])[i] ?? 0)))))));

    // --- deck and discard
    const canDeck = legal.some((p) => p[0] === 1);
    const canTake = legal.find((p) => p[0] === 2);
    const discardTarget = selCard !== null && !!discardOf(selCard);
    const deckHint = hint && hint[0] === 1;
    const discHint = hint && (hint[0] === 2 || hint[0] === 5);
    const deckBtn = h('button', {
      type: 'button', class: `pile pz-pile${canDeck ? ' playable target' : ''}${deckHint ? ' hinted' : ''}`, 'data-testid': 'pz-deck',
      'aria-disabled': canDeck ? null : 'true',
      'aria-label': `Deck, face down, ${s.deck_size} cards${canDeck ? ': draw its top card' : ''}${deckHint ? ', hint: draw here' : ''}`,
      onclick: () => {
        if (!guard()) return;
        if (!canDeck) { fail(pickUp ? 'You cannot draw now.' : 'You have picked up already this turn.'); return; }
        sendPlay([1, null]);
      },
    }, s.deck_size ? h('span', { class: 'card pz-back', 'aria-hidden': 'true' }) : h('span', { class: 'card card-empty' }, 'empty'),
    h('span', { class: 'count', 'aria-hidden': 'true' }, s.deck_size));
    const discBtn = h('button', {
      type: 'button', class: `pile pz-pile${canTake || discardTarget ? ' playable target' : ''}${discHint ? ' hinted' : ''}`, 'data-testid': 'pz-discard',
      'aria-disabled': canTake || discardTarget ? null : 'true',
      'aria-label': `Discard pile: ${s.discard ? `${pzCard(s.discard).name} on top` : 'empty'}, ${(s.discard_pile || []).length} cards` +
        `${canTake ? ': take the top card' : ''}${discardTarget ? `: discard your ${pzCard(selCard).name} here` : ''}${discHint ? ', hint' : ''}`,
      onclick: () => {
        if (!guard()) return;
        if (canTake) { sendPlay(canTake); return; }
        if (discardTarget) { sendPlay(discardOf(selCard)); return; }
        if (pickUp) fail(s.discard === 'ZZ' ? 'A Skip card on the discard pile cannot be picked up: draw from the deck.' : 'You cannot take that card now.');
        else fail(selCard !== null ? 'You cannot discard that card now.' : 'To discard, first choose a card in your hand.');
      },
    }, s.discard ? pzFace(s.discard) : h('span', { class: 'card card-empty' }, 'empty'),
    h('span', { class: 'count', 'aria-hidden': 'true' }, (s.discard_pile || []).length || ''));
    const piles = h('section', { class: 'pz-piles', 'aria-label': 'Deck and discard pile' },
      h('div', { class: 'pz-pile-wrap' }, h('span', { class: 'pile-caption' }, 'Deck'), deckBtn),
      h('div', { class: 'pz-pile-wrap' }, h('span', { class: 'pile-caption' }, 'Discard'), discBtn),
      (s.discard_pile || []).length > 1 ? h('details', { class: 'pz-pile-list', 'data-testid': 'pz-discard-list' },
        h('summary', {}, `Discard pile (${s.discard_pile.length}, top last)`),
        h('p', { class: 'pz-mini-wrap', 'aria-label': s.discard_pile.map((c) => pzCard(c).name).join(', ') }, pzMiniRow(s.discard_pile))) : null);

    // --- groups on the table (a player's laid phase)
    const tableArea = (seat) => {
      const [type, groups] = (s.table || [])[seat] || [null, []];
      if (type === null || type === undefined || !(groups || []).length) {
        return h('p', { class: 'pz-no-phase', 'data-testid': `pz-table-${seat}` }, 'No phase laid this hand.');
      }
      const info0 = PZ_PHASES[type] || { name: `phase ${type}`, groups: [] };
      return h('div', { class: 'pz-groups', 'data-testid': `pz-table-${seat}` },
        h('p', { class: 'pz-phase-label', 'data-testid': `pz-phase-label-${seat}` }, `Phase ${type}: ${info0.name}`),
        groups.map((g, gi) => {
          const kind = info0.groups[gi] || 'group';
          const acc = ((s.accumulations || [])[seat] || [])[gi];
          const places = selCard !== null ? placesFor(selCard).filter((p) => p[1][1][0] === seat && p[1][1][1] === gi) : [];
          const idx = places.map((p) => p[1][1][2]);
          const endPlay = places.length ? places[idx.indexOf(Math.max(...idx))] : null;
          const startPlay = places.length > 1 ? places[idx.indexOf(Math.min(...idx))] : null;
          const hinted = hint && hint[0] === 4 && hint[1][1][0] === seat && hint[1][1][1] === gi;
          const label = `${pzWhose(seat)} group ${gi + 1}, ${kind}: ${g.map((c) => pzCard(c).name).join(', ')}` +
            `${acc ? `; total ${pzAccText(acc)}` : ''}${endPlay ? `: place your ${pzCard(selCard).name} here` : ''}${hinted ? ', hint: place here' : ''}`;
          return h('div', { class: 'pz-group-wrap' },
            h('span', { class: 'pz-group-kind', 'aria-hidden': 'true' }, `${gi + 1}. ${kind}`,
              acc ? h('span', { class: 'pz-acc', 'data-testid': `pz-acc-${seat}-${gi}` }, ` · ${pzAccText(acc)}`) : null),
            h('button', {
              type: 'button', class: `pile pz-group${endPlay ? ' target' : ''}${hinted ? ' hinted' : ''}`, 'data-testid': `pz-group-${seat}-${gi}`,
              'aria-disabled': endPlay ? null : 'true', 'aria-label': label,
              onclick: () => {
                if (!guard()) return;
                if (endPlay) { sendPlay(endPlay); return; }
                fail(selCard === null ? 'To place a card here, first choose a card in your hand.' : `Your ${pzCard(selCard).name} cannot go on this group.`);
              },
            }, h('span', { class: 'pz-group-cards' }, g.map((c) => pzFace(c, 'pz-small')))),
            startPlay ? h('span', { class: 'pz-ends' },
              h('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-testid': `pz-place-start-${seat}-${gi}`, onclick: () => sendPlay(startPlay) }, '◀ at start'),
              h('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-testid': `pz-place-end-${seat}-${gi}`, onclick: () => sendPlay(endPlay) }, 'at end ▶')) : null);
        }));
    };

    const playerArea = (seat) => {
      const isYou = seat === you;
      const isCurrent = s.current === seat && !s.over;
      const ws = Array.isArray(s.winners) ? s.winners : (s.winner !== null && s.winner !== undefined ? [s.winner] : []);
      const header = h('h3', { class: 'player-name' },
        h('span', {}, seatName(seat)),
        isCurrent ? h('span', { class: 'badge badge-turn' }, s.turn_phase === 'pick-up' ? 'to pick up' : 'to play') : null,
        s.dealer === seat ? h('span', { class: 'badge' }, 'dealer') : null,
        (s.skips_pending || [])[seat] ? h('span', { class: 'badge badge-skip', 'data-testid': `pz-skip-pending-${seat}` }, 'skips next turn') : null,
        s.over && ws.includes(seat) ? h('span', { class: 'badge badge-win' }, 'winner') : null);
      const meta = h('p', { class: 'player-meta' }, `${(s.hand_sizes || [])[seat] ?? 0} card${(s.hand_sizes || [])[seat] === 1 ? '' : 's'} in hand · ${(s.scores || [])[seat] ?? 0} points`);
      const parts = [header, meta, tableArea(seat)];
      if (!isYou) {
        parts.splice(2, 0, h('div', { class: 'pz-backs', 'aria-hidden': 'true' }, Array.from({ length: Math.min(12, (s.hand_sizes || [])[seat] || 0) }, () => h('span', { class: 'card pz-back pz-tiny' }))));
      }
      return h('section', {
        class: `player pz-player${isYou ? ' you' : ''}${isCurrent ? ' current' : ''}`, 'data-testid': `player-${seat}`,
        'aria-label': isYou ? 'Your area' : `${seatName(seat)}'s area`,
      }, parts);
    };

    // --- your hand
    const sortBy = localStorage.getItem('croupier.phazed.sort') || 'dealt';
    const order = hand.map((c, i) => i);
    if (sortBy !== 'dealt') order.sort((x, y) => pzSortKey(hand[x], sortBy) - pzSortKey(hand[y], sortBy) || x - y);
    const hintCard = hint && (hint[0] === 5 ? hint[1] : hint[0] === 4 ? hint[1][0] : hint[0] === 6 ? 'ZZ' : null);
    let hintShown = false;
    const handEl = h('div', { class: 'hand pz-hand', role: 'group', 'aria-label': 'Your hand', 'data-testid': 'pz-hand' }, order.map((i) => {
      const card = hand[i];
      const ok = playing && !pickUp && cardHasPlay(card);
      const isHint = !hintShown && hintCard === card;
      if (isHint) hintShown = true;
      const words = [];
      if (sel === i) words.push('selected');
      if (isHint) words.push('hint: play this card');
      return h('button', {
        type: 'button', class: `hand-card${sel === i ? ' selected' : ''}${ok && sel === null ? ' playable' : ''}${isHint ? ' hinted' : ''}`,
        'data-testid': `pz-hand-card-${i}`, 'aria-pressed': String(sel === i), 'aria-disabled': ok ? null : 'true',
        'aria-label': `${pzCard(card).name}${words.length ? `, ${words.join(', ')}` : ''}`,
        onclick: () => {
          if (!guard()) return;
          if (pickUp) { fail('First pick up a card: click the deck or the discard pile.'); return; }
          if (!ok) { fail(card === 'ZZ' ? 'Play the Skip card with a "Skip" button below.' : 'That card cannot be placed or discarded now.'); return; }
          app.selection = sel === i ? null : `pz:${i}`;
          render();
        },
      }, pzFace(card));
    }));
    const sortBtns = h('div', { class: 'pz-sort', role: 'group', 'aria-label': 'Sort your hand' },
      h('span', { class: 'pz-sort-label', 'aria-hidden': 'true' }, 'Sort:'),
      [['dealt', 'as dealt'], ['value', 'by value'], ['suit', 'by suit']].map(([k, t]) => h('button', {
        type: 'button', class: `btn btn-secondary btn-small${sortBy === k ? ' on' : ''}`, 'data-testid': `pz-sort-${k}`, 'aria-pressed': String(sortBy === k),
        onclick: () => { localStorage.setItem('croupier.phazed.sort', k); render(); },
      }, t)));

    // --- actions: phases, discard the selected card, skips
    const phasePlays = legal.filter((p) => p[0] === 3);
    const phaseList = phasePlays.length ? h('div', { class: 'pz-phase-plays', role: 'group', 'aria-label': 'Phases you can lay', 'data-testid': 'pz-phase-plays' },
      phasePlays.map((p, i) => {
        const isHint = hint && hint[0] === 3 && same(hint, p);
        return h('button', {
          type: 'button', class: `btn btn-primary pz-phase-btn${isHint ? ' hinted' : ''}`, 'data-testid': `pz-phase-${i}`,
          'aria-label': `Play phase ${p[1][0]}: ${p[1][1].map((g) => g.map((c) => pzCard(c).name).join(', ')).join('; and ')}${isHint ? ' (hint)' : ''}`,
          onclick: () => { if (guard()) sendPlay(p); },
        }, h('span', { class: 'pz-phase-title' }, `Play phase ${p[1][0]}`), p[1][1].map((g) => pzMiniRow(g)));
      })) : null;
    const selDiscard = selCard !== null ? discardOf(selCard) : null;
    const skipPlays = legal.filter((p) => p[0] === 6);
    const actions = playing && !pickUp ? h('div', { class: 'pz-actions', 'data-testid': 'pz-actions' },
      selCard !== null ? h('button', {
        type: 'button', class: `btn btn-primary${hint && hint[0] === 5 && hint[1] === selCard ? ' hinted' : ''}`, 'data-testid': 'pz-discard-button', disabled: !selDiscard,
        'aria-label': `Discard your ${pzCard(selCard).name} and end your turn`, onclick: () => { if (selDiscard && guard()) sendPlay(selDiscard); },
      }, 'Discard ', pzText(selCard)) : null,
      skipPlays.map((p) => h('button', {
        type: 'button', class: `btn btn-secondary${hint && same(hint, p) ? ' hinted' : ''}`, 'data-testid': `pz-skip-${p[1]}`,
        'aria-label': `Play a Skip card on ${seatName(p[1])}${hint && same(hint, p) ? ' (hint)' : ''}`, onclick: () => { if (guard()) sendPlay(p); },
      }, `Skip ${seatName(p[1])}`))) : null;

    const youArea = you === null ? null : (() => {
      const area = playerArea(you);
      area.append(
        h('div', { class: 'pz-hand-head' }, h('h4', { class: 'area-title' }, 'Your hand'), sortBtns),
        ...[handEl, actions, phaseList].filter(Boolean));
      return area;
    })();

    // --- finished hands
    const hp = s.hands_played || [];
    const handsTable = hp.length ? h('section', { class: 'pz-hands', 'data-testid': 'pz-hands-played', 'aria-labelledby': 'pz-hands-title' },
      h('h3', { class: 'area-title', id: 'pz-hands-title' }, 'Finished hands (penalty points)'),
      h('div', { class: 'pz-table-wrap' }, h('table', {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Hand'), Array.from({ length: n }, (_, i) => h('th', { scope: 'col' }, seatName(i))))),
        h('tbody', {}, hp.map((r) => h('tr', {}, h('th', { scope: 'row' }, `${r.hand} (${r.reason})`), (r.penalties || []).map((p) => h('td', {}, p)))))))) : null;

    const seats = [];
    for (let i = 1; i <= n; i++) seats.push(you === null ? i - 1 : (you + i) % n);
    const others = seats.filter((x) => x !== you);
    let helpText = s.over ? '' : 'Waiting for the other players.';
    if (playing) {
      if (pickUp) helpText = 'Pick up: click the deck or the discard pile.';
      else if (selCard !== null) helpText = `Your ${pzCard(selCard).name}: click a highlighted group to place it, or the discard pile (or "Discard") to end your turn. Escape cancels.`;
      else helpText = `${phasePlays.length ? 'Lay your phase with a "Play phase" button, or choose' : 'Choose'} a card in your hand to place on a group or to discard.`;
    }
    const over = s.over ? h('p', { class: 'pz-over', 'data-testid': 'pz-game-over', role: 'status' }, resultText()) : null;
    return h('div', { class: 'pz-board' },
      over,
      info,
      h('div', { class: 'opponents pz-opponents' }, others.map(playerArea)),
      piles,
      youArea,
      h('p', { class: 'help', 'data-testid': 'play-help' }, helpText),
      handsTable);
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
  hanabi: HB,
  fivecrowns: FC,
  phazed: PZ,
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
