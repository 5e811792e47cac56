// On a phone the board is long: the Hint button, the latest message and the
// last few plays are repeated next to the player's hand (shown on narrow
// screens only, see phone.css), where the player is looking; so are a
// playback's Skip and Faster while one runs. The message takes its place in
// the page there, under the hand: it never covers the table (core/render.js
// writes it; the message bar above stays the live region that screen
// readers hear).

import { h } from './dom.js';
import { askHint, canTakeBack, takeBack } from './game.js';
import { endPlayback, faster } from './playback.js';
import { renderer, seatName } from './state.js';

/** The last k plays of the log, short. */
function recentPlays(a, k = 3) {
  const recs = [...a.log.values()].slice(-k);
  if (!recs.length) return null;
  const r = renderer();
  return h('ol', { class: 'recent-plays', 'data-testid': 'recent-plays', 'aria-label': 'Latest plays' },
    recs.map((rec) => h('li', {},
      h('span', { class: 'log-who' }, seatName(rec.seat)), ' ',
      r.describePlayNodes ? r.describePlayNodes(rec.play, rec.seat, rec) : JSON.stringify(rec.play))));
}

/** Hint button (Skip and Faster in a playback) and the latest plays, for
 *  the hand's side of table context `a` (core/board.js). */
export function nearHand(a) {
  if (a.you === null || a.you === undefined || !a.state) return null;
  const { text, kind } = a.message;
  const buttons = a.mode === 'playback'
    ? [h('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-testid': 'playback-skip-near-hand', 'data-playback': 'skip', onclick: () => endPlayback() }, 'Skip to now'),
      h('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-testid': 'playback-faster-near-hand', 'data-playback': 'faster', onclick: () => faster() }, 'Faster')]
    : [h('button', {
      type: 'button', class: 'btn btn-secondary btn-small', 'data-testid': 'hint-near-hand',
      disabled: !a.myTurn || a.busy, onclick: () => askHint(),
    }, 'Hint'),
    ...(renderer().takesBack ? [h('button', {
      type: 'button', class: 'btn btn-secondary btn-small', 'data-testid': 'undo-near-hand',
      disabled: !canTakeBack(), onclick: () => takeBack(),
    }, 'Take back')] : [])];
  return h('div', { class: 'near-hand', 'data-testid': 'near-hand' },
    h('p', { class: `near-message message-${kind}`, 'data-testid': 'message-near-hand', 'aria-hidden': 'true' }, text),
    buttons,
    recentPlays(a, 3));
}
