// Game over: the summary panel (result, winners, scores from the server's
// generic status, then what the game's table adds through its optional
// hooks: extra score columns, a round-by-round table, what each player held),
// "Play again" with the same seats (the other people's new invite links are
// kept for core/invite.js to show on the new game), and "Replay this game".
//
// The hooks of a table (all optional; `view` is the game's own view):
//   scoreLabel                 the heading of status.scores' column
//   summaryColumns(view)       more columns: [[label, (seat) => value], ...]
//   summaryRounds(view)        {unit: 'Round', rows: [{label, points[], note}]}
//   finalHands(view)           a node: what each player held (also at a replay's end)
//   dealOptions(view)          the options to deal the same game again with

import { api } from './api.js';
import { byId, h } from './dom.js';
import { saveInvites, setToken } from './seats.js';
import { app, renderer, resultText, say, sayError, seatName } from './state.js';

// ---------------------------------------------------------------------------
// Scores

const seatsInOrder = () => app.seats.slice().sort((a, b) => a.seat - b.seat).map((s) => s.seat);

/** Per player: [label, value] columns, the status's scores first. */
function scoreColumns(view, status, r) {
  const cols = [];
  if (!status.cooperative && Array.isArray(status.scores)) {
    cols.push([r.scoreLabel || (status.lower_is_better ? 'Points (lowest wins)' : 'Score'), (p) => status.scores[p]]);
  }
  if (r.summaryColumns) cols.push(...r.summaryColumns(view));
  return cols;
}

function scoreTable(cols, won) {
  return h('div', { class: 'summary-scroll' }, h('table', { class: 'summary-table', 'data-testid': 'summary-scores' },
    h('caption', { class: 'visually-hidden' }, 'Scores per player'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Player'), cols.map(([label]) => h('th', { scope: 'col' }, label)))),
    h('tbody', {}, seatsInOrder().map((p) => h('tr', { class: won.includes(p) ? 'winner' : null, 'data-testid': `summary-row-${p}` },
      h('th', { scope: 'row' }, seatName(p), won.includes(p) ? h('span', { class: 'badge badge-win' }, 'winner') : null),
      cols.map(([, f]) => h('td', {}, f(p) === undefined || f(p) === null ? '—' : String(f(p)))))))));
}

/** The table's rounds (or hands), when it has them. */
function roundTable(view, r) {
  const rounds = r.summaryRounds ? r.summaryRounds(view) : null;
  if (!rounds || !rounds.rows.length) return null;
  const unit = rounds.unit || 'Round';
  const seats = seatsInOrder();
  return h('details', { class: 'summary-rounds', open: rounds.rows.length <= 12 },
    h('summary', {}, `${unit} by ${unit.toLowerCase()} (points added)`),
    h('div', { class: 'summary-scroll' },
      h('table', { class: 'summary-table', 'data-testid': 'summary-rounds' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), seats.map((p) => h('th', { scope: 'col' }, seatName(p))))),
        // a round's note (who went out) under its name, not in a column of
        // its own: the table keeps to the screen's width on a phone
        h('tbody', {}, rounds.rows.map((row) => h('tr', {},
          h('th', { scope: 'row' }, row.label, row.note ? h('span', { class: 'summary-note' }, row.note) : null),
          seats.map((p) => h('td', {}, row.points[p] === undefined ? '—' : String(row.points[p])))))))));
}

// ---------------------------------------------------------------------------
// The panel

/** The panel, drawn once per version of a finished game (hidden while a
 *  playback shows the plays that ended it). */
export function drawSummary(st) {
  const el = byId('summary');
  const s = st.status;
  if (!s || !s.over || st.playback) { el.hidden = true; el.dataset.key = ''; return; }
  const key = `${st.id}@${st.version}`;
  if (el.dataset.key === key && !el.hidden) return;
  el.dataset.key = key;
  const r = renderer();
  const view = st.state;
  const won = s.winners || [];
  const cols = scoreColumns(view, s, r);
  // replaceChildren() would write a null as the text "null": leave them out.
  el.replaceChildren(...[
    h('h3', { id: 'summary-title', class: 'summary-title', tabindex: '-1' }, 'Game over'),
    // The result said once, here: the status line says "Game over", the
    // message bar nothing more, the board nothing (the winner's row is marked).
    h('p', { class: 'summary-result', 'data-testid': 'summary-result' }, resultText()),
    cols.length || won.length ? scoreTable(cols, won) : null,
    roundTable(view, r),
    r.finalHands ? r.finalHands(view) : null,
    h('div', { class: 'summary-actions' },
      h('button', { type: 'button', class: 'btn btn-primary', 'data-testid': 'summary-play-again', onclick: playAgain }, 'Play again'),
      h('button', {
        type: 'button', class: 'btn btn-secondary', 'data-testid': 'summary-replay',
        onclick: () => { location.hash = `#game=${encodeURIComponent(app.id)}&at=-1`; },
      }, 'Replay this game')),
  ].filter(Boolean));
  el.hidden = false;
  // The game just ended in this tab (the focus on the board or nowhere): the
  // focus moves to the summary, which a screen reader then reads.
  const at = document.activeElement;
  if (!at || at === document.body || byId('board').contains(at)) byId('summary-title').focus();
}

/** Deal the same game again: same game, variant, options and seats (people by
 *  name with new tokens, bots with the same strategies). */
async function playAgain(ev) {
  const button = ev && ev.currentTarget;
  if (button) button.disabled = true;
  const players = app.seats.slice().sort((a, b) => a.seat - b.seat)
    // A person who resigned (a bot finished for them) sits down as a person again.
    .map((x) => (x.bot && !x.resigned ? { bot: x.bot } : { name: x.name || `Player ${x.seat + 1}` }));
  const body = { game: app.game, variant: app.variant || 'standard', players };
  const me = app.seats.find((x) => x.seat === app.you);
  if (players.filter((p) => p.name).length > (me ? 1 : 0)) body.host = { name: (me && me.name) || localStorage.getItem('croupier.name') || 'Your host' };
  const r = renderer();
  const options = r.dealOptions && app.state ? r.dealOptions(app.state) : {};
  if (Object.keys(options).length) body.options = options;
  try {
    const { data } = await api('POST', '/games', { body });
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
