// The rules/help panel: a <dialog> drawn from GET /rules/{game}, fetched once
// per game and kept in the state's rulesDocs, with a link to the game's rules
// in full (its `rules_html`, the rules page the server renders from Markdown).

import { api } from './api.js';
import { byId, h } from './dom.js';
import { CORE_KEYS } from './keys.js';
import { app, dispatch, sayError, tableOf } from './state.js';

const pending = {};

/** GET /rules/{game}, once per game, into the state's rulesDocs (shared with
 *  the tables, which may show a part of it). Resolves to the document, null
 *  when it could not be had. */
export function rulesDoc(game) {
  const have = app.rulesDocs[game];
  if (have) return Promise.resolve(have);
  if (!pending[game]) {
    pending[game] = api('GET', `/rules/${encodeURIComponent(game)}`).then(({ data }) => {
      dispatch({ type: 'rules/doc', game, doc: data || null });
      return data;
    }, (err) => {
      dispatch({ type: 'rules/doc', game, doc: null });
      throw err;
    }).finally(() => { delete pending[game]; });
  }
  return pending[game];
}

// The panel speaks to players: it shows the document's `guide` (the game in
// players' words, from the engine), the bots' conventions where the game
// has them and the table's keys; the notation and play shapes (for
// programs) stay in docs/api.md and the rules document.

const cap = (t) => String(t).replace(/^./, (c) => c.toUpperCase());

const section = (key, title, ...body) =>
  h('section', { class: 'rules-section', 'data-testid': `rules-${key}` }, h('h3', {}, title), ...body);

const list = (lines) => h('ul', { class: 'rules-list' }, lines.map((t) => h('li', {}, String(t))));

/** The bots, strongest first, one sentence each; one that cannot sit
 *  beside people says why. */
export function botsList(guide, testid) {
  return h('dl', { class: 'rules-dl', 'data-testid': testid }, guide.bots.map((b) => [
    h('dt', { 'data-testid': `${testid}-${b.name}` }, b.name),
    h('dd', {}, b.text, b.with_people === false && b.alone ? [' ', h('em', { class: 'bot-alone' }, b.alone)] : null),
  ]));
}

/** The dialog's content for one game's rules document. */
function rulesContent(doc, game) {
  const g = doc.guide;
  const table = tableOf(game);
  const keys = [...(table && Array.isArray(table.hotkeys) ? table.hotkeys : []),
    ...CORE_KEYS.filter((k) => !k.takesBack || (table && table.takesBack))];
  // The rules in full (every ruling too), rendered as a page: a new tab, the panel stays.
  const href = doc.rules_html || doc.rules_page;
  const page = typeof href === 'string' && href.startsWith('/docs/rules/') ? href : null;
  const conv = doc.conventions;
  if (!g) return [h('p', {}, 'This game has no rules for players yet.')];
  return [
    h('p', { class: 'rules-summary', 'data-testid': 'rules-summary' }, g.summary),
    h('p', { class: 'rules-facts', 'data-testid': 'rules-facts' }, g.length,
      doc.cooperative ? ' Everyone plays together: the whole table wins or loses.' : ''),
    page ? h('p', { class: 'rules-facts' },
      h('a', { href: page, target: '_blank', rel: 'noopener', 'data-testid': 'rules-page' }, 'The rules in full, with every ruling')) : null,
    section('turn', 'How a turn goes', list(g.turn)),
    section('winning', 'How it ends', list(g.winning)),
    g.variants.length > 1 ? section('variants', 'Variants', h('dl', { class: 'rules-dl' }, g.variants.map((v) => [
      h('dt', { 'data-testid': `rules-variant-${v.name}` }, cap(v.name)), h('dd', {}, v.text)]))) : null,
    section('bots', 'The bots, strongest first', botsList(g, 'rules-bot')),
    conv && Array.isArray(conv.rules) ? section('conventions', 'How the bots play: conventions',
      conv.summary ? h('p', {}, conv.summary) : null, list(conv.rules)) : null,
    keys.length ? section('keys', 'Keys', h('dl', { class: 'rules-dl rules-keys' }, keys.map((k) => [
      h('dt', {}, h('kbd', {}, k.key)), h('dd', {}, k.what)]))) : null,
  ];
}

/** Open the rules panel for a game (its id, as in GET /rules). */
async function showRules(game) {
  if (!game) return;
  dispatch({ type: 'rules/open', game });
  try {
    const doc = await rulesDoc(game);
    if (!doc) throw new Error('no rules document');
  } catch (err) {
    sayError(err, 'Could not load the rules');
  }
}

let drawn = null; // the game and document the dialog shows

/** The Rules panel: open while the state names a game, its content from
 *  that game's document (loading, or could not be loaded). */
export function drawRules(s) {
  const dialog = byId('rules-dialog');
  if (!s.rules) {
    if (dialog.open) dialog.close();
    drawn = null;
    return;
  }
  const game = s.rules;
  const doc = s.rulesDocs[game];
  if (!drawn || drawn.game !== game || drawn.doc !== doc) {
    drawn = { game, doc };
    const entry = s.catalogue.find((g) => g.game === game);
    const body = byId('rules-body');
    if (doc) {
      byId('rules-title').textContent = `Rules: ${doc.title || (entry && entry.title) || game}`;
      body.replaceChildren(...rulesContent(doc, game).filter(Boolean));
    } else {
      byId('rules-title').textContent = `Rules: ${(entry && entry.title) || game}`;
      body.replaceChildren(h('p', {}, doc === null ? 'The rules could not be loaded.' : 'Loading…'));
    }
  }
  if (!dialog.open) dialog.showModal();
}

/** The game the header's Rules button is about: the lobby's choice while the
 *  lobby shows, else the game on the table. */
function gameInView() {
  const setup = byId('setup');
  const sel = byId('ng-game');
  if (setup && !setup.hidden && sel && sel.value) return sel.value;
  return app.game || (sel && sel.value);
}

export function setupHelp() {
  byId('rules-close').addEventListener('click', () => byId('rules-dialog').close());
  // However it closes (the button, the backdrop, Escape), the state says so.
  byId('rules-dialog').addEventListener('close', () => { if (app.rules) dispatch({ type: 'rules/close' }); });
  // A click on the backdrop (outside the dialog's box) closes it too.
  byId('rules-dialog').addEventListener('click', (ev) => {
    if (ev.target === ev.currentTarget) {
      const r = ev.currentTarget.getBoundingClientRect();
      if (ev.clientX < r.left || ev.clientX > r.right || ev.clientY < r.top || ev.clientY > r.bottom) ev.currentTarget.close();
    }
  });
  byId('rules-button').addEventListener('click', () => showRules(app.game));
  byId('lobby-rules-button').addEventListener('click', () => showRules(gameInView()));
}
