// The lobby: the new-game form and "Resume from file". The form is the
// page's one uncontrolled part: its inputs keep their own values, read when
// it is sent; what it is filled from (GET /rules) is in the state.

import { ApiError, api } from './api.js';
import { byId, h } from './dom.js';
import { beginUpdate, endUpdate, refreshLegal, stopLive, syncLive } from './game.js';
import { withExplanations } from './log.js';
import { nth } from './numbering.js';
import { botsList } from './help.js';
import { refreshMyGames, saveInvites, setToken } from './seats.js';
import { app, dispatch, pref, say, sayError, setPref, tableOf } from './state.js';

let formGame = null; // the game the form's fields were last filled for

// New-game form

export function setupForm() {
  const form = byId('new-game-form');
  const gameSel = byId('ng-game');
  gameSel.addEventListener('change', () => fillGameFields());
  byId('ng-players').addEventListener('input', () => fillBotSeats());
  const savedName = pref('name', '');
  if (savedName) byId('ng-name').value = savedName;
  byId('ng-resume-file').addEventListener('change', (ev) => resumeFromFile(ev.target.files && ev.target.files[0]));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    createGame();
  });
  byId('new-game-toggle').addEventListener('click', () => {
    dispatch({ type: 'lobby', open: !app.lobby });
    if (app.lobby) { refreshMyGames(); byId('ng-game').focus(); }
  });
  byId('my-games-leave').addEventListener('click', leaveTable);
}

/** Leave the shown table for the lobby; the seat stays in "My games" to come back to. */
function leaveTable() {
  stopLive();
  dispatch({ type: 'game/gone' });
  history.pushState(null, '', location.pathname + location.search);
  refreshMyGames();
  byId('my-games-title').focus();
}

export async function loadCatalogue() {
  try {
    const { data } = await api('GET', '/rules');
    dispatch({ type: 'catalogue', games: Array.isArray(data && data.games) ? data.games : [] });
  } catch (err) {
    dispatch({ type: 'catalogue', games: [], failed: true });
    sayError(err, 'Could not load the list of games');
  }
}

let drawnCatalogue = null;

/** The form's list of games, once the catalogue is here (then the fields of
 *  the game chosen). */
export function drawLobby(s) {
  if (s.catalogue === drawnCatalogue) return;
  drawnCatalogue = s.catalogue;
  const gameSel = byId('ng-game');
  if (s.catalogueFailed) {
    gameSel.replaceChildren(h('option', {}, 'Unavailable'));
    return;
  }
  gameSel.replaceChildren(...s.catalogue.map((g) => h('option', { value: g.game }, g.title || g.game)));
  gameSel.disabled = s.catalogue.length === 0;
  byId('ng-submit').disabled = s.catalogue.length === 0;
  fillGameFields();
}

function currentCatalogueGame() {
  return app.catalogue.find((g) => g.game === byId('ng-game').value);
}

/** The table sizes GET /rules allows for a game: {min, max}. */
function tableBounds(g) {
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

function fillGameFields() {
  const g = currentCatalogueGame();
  if (!g) return;
  const variants = Array.isArray(g.variants) && g.variants.length ? g.variants : ['standard'];
  byId('ng-variant').replaceChildren(...variants.map((v) => h('option', { value: v }, v)));
  drawAbout(g);
  const { min, max } = tableBounds(g);
  byId('ng-players-range').textContent = `(${min} to ${max})`;
  const players = byId('ng-players');
  players.min = min;
  players.max = max;
  const dflt = (g.players && g.players.default) || tableOf(g.game).defaultPlayers || Math.min(max, Math.max(min, 4));
  if (formGame !== g.game || !players.value || +players.value < min || +players.value > max) players.value = max === min ? min : dflt;
  formGame = g.game;
  byId('ng-players-field').hidden = min === max;
  // Game-specific options (coin-toss call, open table, ...) come from the renderer.
  const r = tableOf(g.game);
  const opts = r && r.formOptions ? r.formOptions() : [];
  byId('ng-options').replaceChildren(...opts);
  byId('ng-options').hidden = opts.length === 0;
  fillBotSeats();
}

/** What the game is, what the chosen variant changes and the bots,
 *  strongest first (GET /rules' guide: the engine's words for players). */
function drawAbout(g) {
  const guide = g.guide;
  byId('ng-about').textContent = guide ? `${guide.summary} ${guide.length}` : '';
  const variantAbout = () => {
    const v = guide && guide.variants.find((x) => x.name === byId('ng-variant').value);
    byId('ng-variant-about').textContent = v ? v.text : '';
  };
  variantAbout();
  byId('ng-variant').onchange = variantAbout;
  byId('ng-bots-about').hidden = !guide;
  byId('ng-bots-about-list').replaceChildren(...(guide ? [botsList(guide, 'lobby-bot')] : []));
}

// Who sits where: each seat is "me", "a friend (invite)" or a bot strategy.
const ME = '@me';
const INVITE = '@invite';

/** The bots a game offers: with people at the table, only those GET /rules
 *  lists in bots_with_people (a bot may play only with bots). */
function botPools(g) {
  const all = Array.isArray(g.bots) && g.bots.length ? g.bots : ['random'];
  const withPeople = Array.isArray(g.bots_with_people) ? g.bots_with_people : all;
  return { all, withPeople };
}

function seatSelects() {
  return [byId('ng-seat-0'), ...byId('ng-bot-list').querySelectorAll('select')].filter(Boolean);
}

function seatOptions(bots) {
  // Bots first (tests and people pick them by name), then the people.
  return [...bots.map((b) => h('option', { value: b }, b)),
    h('option', { value: INVITE }, 'A friend (invite)'),
    h('option', { value: ME }, 'Me')];
}

function seatRow(i, bots, previous, fallback) {
  const id = i === 0 ? 'ng-seat-0' : `ng-bot-${i}`;
  const sel = h('select', { id, name: id, 'data-testid': i === 0 ? 'new-game-seat-0' : `new-game-bot-${i}`, 'data-seat': i },
    seatOptions(bots));
  const values = [...bots, INVITE, ME];
  sel.value = previous && values.includes(previous) ? previous : fallback;
  const nameId = `ng-friend-${i}`;
  const friend = h('input', {
    id: nameId, type: 'text', maxlength: 64, class: 'friend-name', placeholder: `Friend ${nth(i)}`, 'aria-label': `Player ${nth(i)}'s name`,
    'data-testid': `new-game-friend-${i}`, autocomplete: 'off',
  });
  friend.hidden = sel.value !== INVITE;
  sel.addEventListener('change', () => seatChanged(sel));
  return h('div', { class: 'bot-row seat-row' }, h('label', { for: id }, `Player ${nth(i)}`), sel, friend);
}

/** Exactly one seat (at most) is "me"; bots beside people come from bots_with_people. */
function seatChanged(changed) {
  const sels = seatSelects();
  if (changed && changed.value === ME) {
    for (const s of sels) if (s !== changed && s.value === ME) s.value = INVITE;
  }
  syncSeats();
}

function syncSeats() {
  const g = currentCatalogueGame();
  if (!g) return;
  const { withPeople } = botPools(g);
  const sels = seatSelects();
  const people = sels.some((s) => s.value === ME || s.value === INVITE);
  for (const s of sels) {
    for (const o of s.options) {
      const person = o.value === ME || o.value === INVITE;
      o.disabled = people && !person && !withPeople.includes(o.value);
      if (!person) o.textContent = o.disabled ? `${o.value} (not beside people)` : o.value;
    }
    if (s.selectedOptions[0] && s.selectedOptions[0].disabled) s.value = withPeople[0] || INVITE;
    const friend = s.parentElement.querySelector('.friend-name');
    if (friend) friend.hidden = s.value !== INVITE;
  }
  // your name: your seat's, and the one a friend is told invited them
  byId('ng-name-field').hidden = !sels.some((s) => s.value === ME || s.value === INVITE);
}

function fillBotSeats() {
  const g = currentCatalogueGame();
  if (!g) return;
  const { all, withPeople } = botPools(g);
  // Never offer more (or fewer) seats than the game's table has (GET /rules).
  const { min, max } = tableBounds(g);
  const chosen = chosenPlayers(g);
  byId('ng-players').toggleAttribute('aria-invalid', chosen === null);
  const wanted = +byId('ng-players').value || min;
  const n = Math.max(1, Math.min(max, Math.max(min, wanted)) - 1);
  const previous = seatSelects().map((s) => s.value);
  const rows = [];
  for (let i = 1; i <= n; i++) rows.push(seatRow(i, all, previous[i], withPeople[0] || all[0]));
  byId('ng-bot-list').replaceChildren(...rows);
  byId('ng-seat0-row').replaceChildren(...seatRow(0, all, previous[0], ME).childNodes);
  syncSeats();
}

async function createGame() {
  const g = currentCatalogueGame();
  if (!g) return;
  const typed = byId('ng-name').value.trim();
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
  const sels = seatSelects();
  const inviting = sels.some((s) => s.value === INVITE);
  // Friends read the host's name ("Ada invited you", "Ada to play"): a
  // table with friends needs one; alone with bots the table says "you".
  if (inviting && !typed) {
    say('Your friends will see your name: enter it under "Your name" first.', 'error');
    byId('ng-name').setAttribute('aria-invalid', 'true');
    byId('ng-name').focus();
    return;
  }
  byId('ng-name').removeAttribute('aria-invalid');
  const name = typed || 'Guest';
  const players = sels.map((s, i) => {
    if (s.value === ME) return { name };
    if (s.value === INVITE) {
      const friend = s.parentElement.querySelector('.friend-name');
      return { name: (friend && friend.value.trim()) || `Friend ${nth(i)}` };
    }
    return { bot: s.value };
  });
  const meSeat = sels.findIndex((s) => s.value === ME);
  if (typed && (meSeat >= 0 || inviting)) setPref('name', typed);
  const body = { game: g.game, variant: byId('ng-variant').value, players };
  if (inviting) body.host = { name };
  if (seedText) body.seed = Number(seedText);
  const r = tableOf(g.game);
  const options = { ...(r && r.readOptions ? r.readOptions() : null) };
  if (byId('ng-spectators').checked) options.spectators = 'all'; // the service's option, every game
  if (Object.keys(options).length) body.options = options;
  const submit = byId('ng-submit');
  submit.disabled = true;
  try {
    const { data } = await api('POST', '/games', { body });
    const invites = (data.seats || []).filter((s) => s.invite && s.seat !== meSeat).map((s) => ({ seat: s.seat, name: s.name, invite: s.invite }));
    if (invites.length) saveInvites(data.id, invites, data.host_token);
    await enterGame(data, g.game, body.variant, meSeat >= 0 ? meSeat : null);
    say(`New ${g.title || g.game} game dealt.${invites.length ? ' Send each friend their invite link.' : ''}`);
  } catch (err) {
    sayError(err, 'Could not create the game');
  } finally {
    submit.disabled = false;
  }
}

/** Take over a game just created (POST /games) or imported (POST /games/import). */
async function enterGame(data, game, variant, meSeat) {
  // The lobby says which seat is ours (null for none: we watch); an import
  // keeps the seat the server names, else the first seat with a token.
  const mine = meSeat !== undefined
    ? (data.seats || []).find((s) => s.token && s.seat === meSeat)
    : (data.seats || []).find((s) => s.token && (data.you === undefined || data.you === null || s.seat === data.you));
  stopLive();
  const token = mine ? mine.token : null;
  if (token) setToken(data.id, token);
  if (mine && data.you !== mine.seat) {
    // With several people at the table the reply shows the public view: fetch ours.
    try {
      const res = await api('GET', `/games/${encodeURIComponent(data.id)}`, { token });
      data = { ...data, ...res.data, applied: data.applied };
    } catch { /* the live stream's first refresh brings it */ }
  }
  if (!mine) data = { ...data, you: null };
  beginUpdate();
  try {
    dispatch({ type: 'game/open', id: data.id, token });
    dispatch({ type: 'game/view', data: { ...data, game: data.game || game, variant: data.variant || variant }, records: withExplanations(data.applied, data.id) });
    syncLive();
    history.replaceState(null, '', `#game=${encodeURIComponent(data.id)}`);
    dispatch({ type: 'game/shown' });
    await refreshLegal();
  } finally {
    endUpdate();
  }
  refreshMyGames();
  // The table from its top (heading, status, then your hand on a phone), the
  // keyboard's focus on the board.
  byId('board').focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

/** "Resume from file": a game's own text save or a JSON export, POSTed to /games/import. */
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
