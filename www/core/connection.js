// The connection to the server, always on view while a game runs: "Live"
// while the event stream (core/events.js) runs, "Reconnecting…" within a
// second of losing it, in the game's heading and in the message bar (which a
// phone shows by the hand). Once the stream is back the notice goes, and so
// does any error left over from the time the server could not be reached.
// While the notice shows, a play is not sent: the page says so, and the
// player makes it again once reconnected (core/game.js asks connectionLost()).

import { byId } from './dom.js';
import { app, dispatch, say } from './state.js';

const NOTICE_AFTER = 1000; // ms without a stream before the notice shows
const RECONNECTING = 'Reconnecting to the server… Plays wait until the connection is back.';

let noticeTimer = null;

function showNotice() {
  dispatch({ type: 'connection', state: 'down', notice: true });
  say(RECONNECTING, 'warning', { net: true });
}

/** The stream's state, from events.js: 'live', 'down', 'polling', or null (not following). */
export function setConnection(state) {
  clearTimeout(noticeTimer);
  if (state === 'down') {
    dispatch({ type: 'connection', state, notice: app.connectionNotice });
    noticeTimer = setTimeout(() => { if (app.connection === 'down') showNotice(); }, NOTICE_AFTER);
    return;
  }
  const noticed = app.connectionNotice;
  dispatch({ type: 'connection', state, notice: false });
  // Back: the notice and any stale "could not reach the server" go.
  if (state === 'live' && (noticed || app.message.net)) say(noticed ? 'Connected again.' : '', 'info');
}

/** The browser went off line (the stream is followed): said at once. */
export function goneOffline() {
  clearTimeout(noticeTimer);
  showNotice();
}

/** The stream is lost and the player has been told so. */
export function connectionLost() {
  return app.connection === 'down' && (app.connectionNotice || (typeof navigator !== 'undefined' && navigator.onLine === false));
}

/** The indicator in the game's heading. */
export function drawConnection(s) {
  const el = byId('connection');
  const following = s.id && s.status && !s.status.over && s.connection;
  let text = '';
  let kind = '';
  if (following) {
    if (s.connection === 'live') { text = 'Live'; kind = 'live'; } else if (s.connection === 'polling') { text = 'Updates every 15 s'; kind = 'polling'; } else if (s.connectionNotice) { text = 'Reconnecting…'; kind = 'down'; }
  }
  if (el.textContent !== text) el.textContent = text;
  el.className = `connection${kind ? ` connection-${kind}` : ''}`;
  el.hidden = !text;
}
