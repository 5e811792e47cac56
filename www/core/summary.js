// Game over: the summary panel (result, winner, scores, a per-round table
// where the game has rounds, what each Hanabi player held), "Play again"
// with the same seats (the other people's new invite links are kept for
// core/invite.js to show on the new game), and "Replay this game".

import { api } from './api.js';
import { byId, h } from './dom.js';
import { resultText } from './game.js';
import { app, say, sayError, seatName } from './state.js';

// ---------------------------------------------------------------------------
// Scores

const seatsInOrder = () => app.seats.slice().sort((a, b) => a.seat - b.seat).map((s) => s.seat);

/** Per player: [label, value] columns the view carries. */
function scoreColumns(s) {
  const cols = [];
  if (Array.isArray(s.scores)) cols.push([app.game === 'fivecrowns' ? 'Points (lowest wins)' : 'Score', (p) => s.scores[p]]);
  if (Array.isArray(s.phase_status)) cols.push(['Phases done', (p) => s.phase_status[p]]);
  if (Array.isArray(s.stockpiles)) cols.push(['Stockpile left', (p) => (s.stockpiles[p] || {}).count]);
  if (Array.isArray(s.hand_sizes) && !Array.isArray(s.scores)) cols.push(['Cards in hand', (p) => s.hand_sizes[p]]);
  return cols;
}

function winners(s) {
  if (Array.isArray(s.winners)) return s.winners;
  if (s.winner !== null && s.winner !== undefined) return [s.winner];
  return [];
}

function scoreTable(s) {
  const cols = scoreColumns(s);
  const won = winners(s);
  return h('div', { class: 'summary-scroll' }, h('table', { class: 'summary-table', 'data-testid': 'summary-scores' },
    h('caption', { class: 'visually-hidden' }, 'Scores per player'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'), cols.map(([label]) => h('th', { scope: 'col' }, label)))),
    h('tbody', {}, seatsInOrder().map((p) => h('tr', { class: won.includes(p) ? 'winner' : null, 'data-testid': `summary-row-${p}` },
      h('th', { scope: 'row' }, seatName(p), won.includes(p) ? h('span', { class: 'badge badge-win' }, 'winner') : null),
      cols.map(([, f]) => h('td', {}, f(p) === undefined || f(p) === null ? '—' : String(f(p)))))))));
}

/** How a Phazed hand ended, in words: {reason, penalties} of the view's
 *  hands_played or a hand_over record. The player who went out scores 0,
 *  and only they can (every card left in a hand costs points). */
export function handOverWords(r) {
  if (r.reason === 'out') {
    const zero = (r.penalties || []).map((p, i) => (p === 0 ? i : -1)).filter((i) => i >= 0);
    return zero.length === 1 ? `${seatName(zero[0])} went out` : 'a player went out';
  }
  if (r.reason === 'deck-exhausted') return 'the deck ran out';
  if (r.reason === 'turn-limit') return 'the turn limit was reached';
  return 'it ended';
}

/** Five Crowns' rounds and Phazed's hands, from the view: [{label, points[], note}]. */
function roundsOf(s) {
  if (Array.isArray(s.rounds)) {
    return s.rounds.map((r) => ({
      label: `Round ${r.round}`, points: r.points || [],
      note: r.went_out !== null && r.went_out !== undefined ? `${seatName(r.went_out)} went out`
        : r.ended === 'called-off' ? 'called off (nobody went out)' : '',
    }));
  }
  if (Array.isArray(s.hands_played)) {
    return s.hands_played.map((r) => ({ label: `Hand ${r.hand}`, points: r.penalties || [], note: handOverWords(r) }));
  }
  return [];
}

function roundTable(s) {
  const rounds = roundsOf(s);
  if (!rounds.length) return null;
  const seats = seatsInOrder();
  return h('details', { class: 'summary-rounds', open: rounds.length <= 12 },
    h('summary', {}, `${app.game === 'phazed' ? 'Hand' : 'Round'} by ${app.game === 'phazed' ? 'hand' : 'round'} (points added)`),
    h('div', { class: 'summary-scroll' },
      h('table', { class: 'summary-table', 'data-testid': 'summary-rounds' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), seats.map((p) => h('th', { scope: 'col' }, seatName(p))), h('th', { scope: 'col' }, ''))),
        h('tbody', {}, rounds.map((r) => h('tr', {},
          h('th', { scope: 'row' }, r.label),
          seats.map((p) => h('td', {}, r.points[p] === undefined ? '—' : String(r.points[p]))),
          h('td', { class: 'summary-note' }, r.note)))))));
}

/** What each player held at the end (Hanabi: every card, once the game is over). */
export function finalHands(s) {
  if (!Array.isArray(s.hands) || !s.hands.every(Array.isArray)) return null;
  const cards = (hand) => hand.map((slot) => (slot && typeof slot === 'object' ? slot.card : slot));
  if (!s.hands.some((hand) => cards(hand).some((c) => c && c !== '??'))) return null;
  return h('div', { class: 'summary-hands', 'data-testid': 'final-hands' },
    h('h4', {}, 'What each player held at the end'),
    h('ul', {}, s.hands.map((hand, p) => h('li', { 'data-testid': `final-hand-${p}` },
      h('span', { class: 'log-who' }, seatName(p)), ': ',
      cards(hand).map((c, i) => [i ? ' ' : '', h('span', { class: `card-text final-card final-${String(c)[0]}` }, c || '??')])))));
}

// ---------------------------------------------------------------------------
// The panel

export function renderSummary() {
  const el = byId('summary');
  const s = app.state;
  if (!s || !s.over) { el.hidden = true; el.dataset.key = ''; return; }
  const key = `${app.id}@${app.version}`;
  if (el.dataset.key === key && !el.hidden) return;
  el.dataset.key = key;
  const won = winners(s);
  const entry = app.catalogue.find((g) => g.game === app.game);
  const coop = entry ? entry.cooperative : app.game === 'hanabi';
  const winnerText = coop
    ? (s.max_score !== undefined ? `Team score ${s.score} of ${s.max_score}.` : '')
    : won.length ? `Winner: ${won.map(seatName).join(' and ')}.` : 'No winner.';
  // replaceChildren() would write a null as the text "null": leave them out.
  el.replaceChildren(...[
    h('h3', { id: 'summary-title', class: 'summary-title' }, 'Game over'),
    h('p', { class: 'summary-result', 'data-testid': 'summary-result' }, resultText()),
    winnerText ? h('p', { class: 'summary-winner', 'data-testid': 'summary-winner' }, winnerText) : null,
    scoreColumns(s).length || won.length ? scoreTable(s) : null,
    roundTable(s),
    app.game === 'hanabi' ? finalHands(s) : null,
    h('div', { class: 'summary-actions' },
      h('button', { type: 'button', class: 'btn btn-primary', 'data-testid': 'summary-play-again', onclick: playAgain }, 'Play again'),
      h('button', {
        type: 'button', class: 'btn btn-secondary', 'data-testid': 'summary-replay',
        onclick: () => { location.hash = `#game=${encodeURIComponent(app.id)}&at=-1`; },
      }, 'Replay this game')),
  ].filter(Boolean));
  el.hidden = false;
}

/** The options a game was dealt with, as far as its view tells them. */
function optionsOf(s) {
  if (app.game === 'fivecrowns') {
    const o = {};
    if (typeof s.open === 'boolean') o.open = s.open;
    if (s.toss && s.toss.call) o.call = s.toss.call;
    return o;
  }
  return s.options && typeof s.options === 'object' && !Array.isArray(s.options) ? { ...s.options } : {};
}

/** Deal the same game again: same game, variant, options and seats (people by
 *  name with new tokens, bots with the same strategies). */
export async function playAgain(ev) {
  const button = ev && ev.currentTarget;
  if (button) button.disabled = true;
  const players = app.seats.slice().sort((a, b) => a.seat - b.seat)
    // A person who resigned (a bot finished for them) sits down as a person again.
    .map((x) => (x.bot && !x.resigned ? { bot: x.bot } : { name: x.name || `Player ${x.seat + 1}` }));
  const body = { game: app.game, variant: app.variant || 'standard', players };
  const me = app.seats.find((x) => x.seat === app.you);
  if (players.filter((p) => p.name).length > (me ? 1 : 0)) body.host = { name: (me && me.name) || localStorage.getItem('croupier.name') || 'Your host' };
  const options = optionsOf(app.state || {});
  if (Object.keys(options).length) body.options = options;
  try {
    const { data } = await api('POST', '/games', { body });
    // core/seats.js keeps this browser's tokens; imported here, not at the top:
    // it reads state.js as it loads, and this module loads while state.js does.
    const { saveInvites, setToken } = await import('./seats.js');
    const mine = (data.seats || []).find((x) => x.token && x.seat === app.you);
    if (mine) setToken(data.id, mine.token);
    // The other people's new seats: invite links, shown by core/invite.js on the new game.
    const others = (data.seats || []).filter((x) => x.invite && x.seat !== app.you)
      .map((x) => ({ seat: x.seat, name: x.name, invite: x.invite }));
    saveInvites(data.id, others, data.host_token);
    location.hash = `#game=${encodeURIComponent(data.id)}`;
    say(others.length ? 'Dealt again: send the other players their new invite links.' : 'Dealt again with the same seats.');
  } catch (err) {
    sayError(err, 'Could not deal the game again');
  } finally {
    if (button) button.disabled = false;
  }
}
