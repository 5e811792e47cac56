// The connection to the server, always on view while a game runs: "Live"
// while the event stream (core/events.js) runs, "Reconnecting…" within a
// second of losing it, in the game's heading and in the message bar (which a
// phone shows by the hand). Once the stream is back the notice goes, and so
// does any error left over from the time the server could not be reached.
// While the notice shows, a play is not sent: the page says so, and the
// player makes it again once reconnected (core/game.js asks connectionLost()).

import { byId } from './dom.js';
import { app, say } from './state.js';

const NOTICE_AFTER = 1000; // ms without a stream before the notice shows
const RECONNECTING = 'Reconnecting to the server… Plays wait until the connection is back.';

let noticeTimer = null;

/** The stream's state, from events.js: 'live', 'down', 'polling', or null (not following). */
export function setConnection(state) {
  const was = app.connection;
  app.connection = state;
  clearTimeout(noticeTimer);
  if (state === 'down') {
    if (was !== 'down') app.lostSince = Date.now();
    noticeTimer = setTimeout(() => { if (app.connection === 'down') { app.connectionNotice = true; showNotice(); } }, NOTICE_AFTER);
  } else {
    const noticed = app.connectionNotice;
    app.connectionNotice = false;
    app.lostSince = null;
    if (state === 'live' && (noticed || app.messageNet)) {
      // Back: the notice and any stale "could not reach the server" go.
      say(noticed ? 'Connected again.' : '', 'info');
      app.messageNet = false;
    }
  }
  drawConnection();
}

/** The stream is lost and the player has been told so. */
export function connectionLost() {
  return app.connection === 'down' && (app.connectionNotice || (typeof navigator !== 'undefined' && navigator.onLine === false));
}

function showNotice() {
  say(RECONNECTING, 'warning');
  app.messageNet = true;
  drawConnection();
}

/** The indicator in the game's heading. */
export function drawConnection() {
  const el = byId('connection');
  if (!el) return;
  const following = app.id && app.status && !app.status.over && app.connection;
  let text = '';
  let kind = '';
  if (following) {
    if (app.connection === 'live') { text = 'Live'; kind = 'live'; } else if (app.connection === 'polling') { text = 'Updates every 15 s'; kind = 'polling'; } else if (app.connectionNotice) { text = 'Reconnecting…'; kind = 'down'; }
  }
  if (el.textContent !== text) el.textContent = text;
  el.className = `connection${kind ? ` connection-${kind}` : ''}`;
  el.hidden = !text;
}

// The browser knows when it goes off line: say so at once, and try again as
// soon as it is back.
if (typeof window !== 'undefined') {
  window.addEventListener('offline', () => {
    if (!app.live) return;
    setConnection('down');
    app.connectionNotice = true;
    clearTimeout(noticeTimer);
    showNotice();
  });
  window.addEventListener('online', () => {
    if (!app.live) return;
    if (app.live.connected) setConnection('live'); // the stream held on throughout
    else app.live.reconnect();
  });
}
