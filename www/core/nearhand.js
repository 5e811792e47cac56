// On a phone the board is long: the Hint button, the latest message and the
// last few plays are repeated next to the player's hand (shown on narrow
// screens only, see phone.css), where the player is looking. The message
// takes its place in the page there, under the hand: it never covers the
// table. (state.js's say() writes it; the message bar above stays the live
// region that screen readers hear.)

import { byId, h } from './dom.js';
import { askHint } from './game.js';
import { app, myTurn, renderer, seatName } from './state.js';

/** The last k plays of the log, short. */
function recentPlays(k = 3) {
  const recs = [...app.log.values()].slice(-k);
  if (!recs.length) return null;
  const r = renderer();
  return h('ol', { class: 'recent-plays', 'data-testid': 'recent-plays', 'aria-label': 'Latest plays' },
    recs.map((rec) => h('li', {},
      h('span', { class: 'log-who' }, seatName(rec.seat)), ' ',
      r.describePlayNodes ? r.describePlayNodes(rec.play, rec.seat, rec) : JSON.stringify(rec.play))));
}

/** Hint button and the latest plays, for the hand's side of the table. */
export function nearHand() {
  if (app.you === null || app.you === undefined || !app.state) return null;
  const playing = myTurn();
  const bar = byId('message');
  const kind = (/message-(\w+)/.exec(bar.className) || [])[1] || 'info';
  return h('div', { class: 'near-hand', 'data-testid': 'near-hand' },
    h('p', { class: `near-message message-${kind}`, 'data-testid': 'message-near-hand', 'aria-hidden': 'true' }, bar.textContent),
    h('button', {
      type: 'button', class: 'btn btn-secondary btn-small', 'data-testid': 'hint-near-hand',
      disabled: !playing || app.busy, onclick: () => askHint(),
    }, 'Hint'),
    recentPlays(3));
}
