// The rules/help panel: a <dialog> drawn from GET /rules/{game}, fetched once
// per game and kept in the state's rulesDocs, with a link to the game's rules
// in words (its `rules_page`, served by the server as Markdown).

import { api } from './api.js';
import { byId, h } from './dom.js';
import { app, dispatch, sayError } from './state.js';

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

// Technical members of GET /rules/{game} that say nothing to a player.
const SKIP = new Set(['game', 'title', 'variants', 'players', 'cooperative', 'bots', 'bots_with_people',
  'functions', 'export_formats', 'events', 'export', 'save', 'conventions', 'rules_page']);
const HEADINGS = {
  notation: 'Cards and notation', plays: 'Plays', turn: 'How a turn goes', scoring: 'Scoring',
  options: 'Options', bonus: 'The bonus game',
};

const ORDER = ['turn', 'scoring', 'bonus', 'options', 'plays', 'notation'];

const words = (k) => HEADINGS[k] || k.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

/** Any JSON member as readable text: strings as paragraphs, lists as lists,
 *  objects as definition lists. */
function block(v, depth = 0) {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'object') return h('p', {}, String(v));
  if (Array.isArray(v)) {
    return h('ul', { class: 'rules-list' }, v.map((x) => h('li', {},
      typeof x === 'object' && x !== null
        ? (x.text ? [x.text, x.play !== undefined ? [' ', h('code', {}, JSON.stringify(x.play))] : null] : block(x, depth + 1))
        : String(x))));
  }
  if (depth > 2) return h('code', {}, JSON.stringify(v));
  return h('dl', { class: 'rules-dl' }, Object.entries(v).map(([k, x]) => [
    h('dt', {}, words(k)),
    h('dd', {}, typeof x === 'object' && x !== null ? block(x, depth + 1) : String(x)),
  ]));
}

/** The dialog's content for one game's rules document. */
function rulesContent(doc) {
  const players = doc.players ? `${doc.players.min === doc.players.max ? doc.players.min : `${doc.players.min} to ${doc.players.max}`} players` : '';
  const facts = [players, doc.cooperative ? 'cooperative: everyone wins or loses together' : '',
    Array.isArray(doc.variants) && doc.variants.length ? `variants: ${doc.variants.join(', ')}` : ''].filter(Boolean).join(' · ');
  // The rules of play first, the notation (for reading plays and logs) last.
  const rank = (k) => { const i = ORDER.indexOf(k); return i < 0 ? ORDER.length : i; };
  const sections = Object.keys(doc).filter((k) => !SKIP.has(k)).sort((a, b) => rank(a) - rank(b)).map((k) =>
    h('section', { class: 'rules-section', 'data-testid': `rules-${k}` }, h('h3', {}, words(k)), block(doc[k])));
  const conv = doc.conventions;
  const bots = Array.isArray(doc.bots) ? doc.bots : [];
  // The rules in full (every ruling too): a new tab, the panel stays.
  const page = typeof doc.rules_page === 'string' && doc.rules_page.startsWith('/docs/rules/') ? doc.rules_page : null;
  return [
    facts ? h('p', { class: 'rules-facts', 'data-testid': 'rules-facts' }, facts) : null,
    page ? h('p', { class: 'rules-facts' }, 'The rules in full, with every ruling: ',
      h('a', { href: page, target: '_blank', rel: 'noopener', 'data-testid': 'rules-page' }, page.slice(1))) : null,
    ...sections,
    conv && Array.isArray(conv.rules) ? h('section', { class: 'rules-section', 'data-testid': 'rules-conventions' },
      h('h3', {}, 'How the bots play: conventions'), conv.summary ? h('p', {}, conv.summary) : null, block(conv.rules)) : null,
    bots.length ? h('section', { class: 'rules-section', 'data-testid': 'rules-bots' }, h('h3', {}, 'Bots'),
      h('dl', { class: 'rules-dl' }, bots.map((b) => typeof b === 'string' ? h('dt', {}, b)
        : [h('dt', { 'data-testid': `rules-bot-${b.name}` }, b.name), h('dd', {}, b.description || '')]))) : null,
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
      body.replaceChildren(...rulesContent(doc).filter(Boolean));
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
