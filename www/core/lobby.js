// The lobby: the new-game form and "Resume from file".

import { ApiError, api } from './api.js';
import { byId, h } from './dom.js';
import { acceptGame, refreshLegal, stopLive } from './game.js';
import { addLog } from './log.js';
import { render, showGame } from './render.js';
import { TOKEN_KEY, app, say, sayError } from './state.js';
import { RENDERERS } from '../tables/registry.js';

// New-game form

export function setupForm() {
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

export async function loadCatalogue() {
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

export function currentCatalogueGame() {
  return app.catalogue.find((g) => g.game === byId('ng-game').value);
}

/** The table sizes GET /rules allows for a game: {min, max}. */
export function tableBounds(g) {
  const min = (g && g.players && g.players.min) || 2;
  const max = (g && g.players && g.players.max) || min;
  return { min, max };
}

/** The Players field's value if it is a table size the game allows, else null. */
function chosenPlayers(g) {
  const { min, max } = tableBounds(g);
  const text = byId('ng-players').value.trim();
  const n = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  return n >= min && n <= max ? n : null;
}

export function fillGameFields() {
  const g = currentCatalogueGame();
  if (!g) return;
  const variants = Array.isArray(g.variants) && g.variants.length ? g.variants : ['standard'];
  byId('ng-variant').replaceChildren(...variants.map((v) => h('option', { value: v }, v)));
  const { min, max } = tableBounds(g);
  byId('ng-players-range').textContent = `(${min} to ${max})`;
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

export function fillBotSeats() {
  const g = currentCatalogueGame();
  if (!g) return;
  // the lobby always seats you: only the bots the game seats beside people
  const pool = Array.isArray(g.bots_with_people) ? g.bots_with_people : g.bots;
  const bots = Array.isArray(pool) && pool.length ? pool : ['random'];
  // Never offer more (or fewer) seats than the game's table has (GET /rules).
  const { min, max } = tableBounds(g);
  const chosen = chosenPlayers(g);
  byId('ng-players').toggleAttribute('aria-invalid', chosen === null);
  const wanted = +byId('ng-players').value || min;
  const n = Math.max(1, Math.min(max, Math.max(min, wanted)) - 1);
  const list = byId('ng-bot-list');
  const previous = [...list.querySelectorAll('select')].map((s) => s.value);
  const rows = [];
  for (let i = 1; i <= n; i++) {
    const id = `ng-bot-${i}`;
    const sel = h('select', { id, name: id, 'data-testid': `new-game-bot-${i}` },
      bots.map((b) => h('option', { value: b }, b)));
    if (previous[i - 1] && bots.includes(previous[i - 1])) sel.value = previous[i - 1];
    rows.push(h('div', { class: 'bot-row' }, h('label', { for: id }, `Player ${i}`), sel));
  }
  list.replaceChildren(...rows);
}

export async function createGame() {
  const g = currentCatalogueGame();
  if (!g) return;
  const name = byId('ng-name').value.trim() || 'You';
  const seedText = byId('ng-seed').value.trim();
  if (seedText && !/^\d{1,16}$/.test(seedText)) {
    say('The seed must be a whole number (digits only), or left empty.', 'error');
    byId('ng-seed').focus();
    return;
  }
  if (chosenPlayers(g) === null) {
    const { min, max } = tableBounds(g);
    say(`${g.title || g.game} is played by ${min === max ? min : `${min} to ${max}`} players: choose a number in that range.`, 'error');
    byId('ng-players').focus();
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
export async function enterGame(data, game, variant) {
  const mine = (data.seats || []).find((s) => s.token && (data.you === undefined || data.you === null || s.seat === data.you));
  stopLive();
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
export async function resumeFromFile(file) {
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
