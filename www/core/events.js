// Following a game live: the server's Server-Sent Events stream
// (GET /games/{id}/events, Accept: text/event-stream), read with fetch() so the
// seat token travels in the Authorization header (EventSource cannot send
// headers, and the server refuses a token in the URL). One stream per tab.
// Each event only says "something happened": the page then refreshes its view
// (GET /games/{id}, and /legal when it is our turn). While the stream is down
// the page reconnects with Last-Event-ID after a backoff (1 s doubling to 15 s;
// a 503 honours Retry-After) and polls slowly meanwhile. A stream the server
// ended in good order is taken up again at once, one quiet for longer than
// the server's keep-alive allows is ended. The connection's state goes
// to onState(): 'live' (the stream runs), 'down' (the server could not be
// reached, or the stream broke) or 'polling' (the server answered but refused
// a stream: updates come from the slow poll).

/** An incremental SSE parser: feed() it text chunks, it calls onEvent for
 *  each complete frame ({id, event, data}); a blank line ends a frame. */
export class SSEParser {
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.buf = '';
    this.reset();
    this.lastId = null;
    this.retry = null;
  }

  reset() {
    this.event = '';
    this.data = [];
    this.id = undefined;
  }

  feed(text) {
    this.buf += text;
    let i;
    while ((i = this.buf.search(/\r\n|\r|\n/)) >= 0) {
      // A lone "\r" at the very end may be half of a "\r\n": wait for more.
      if (this.buf[i] === '\r' && i === this.buf.length - 1) break;
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + (this.buf.startsWith('\r\n', i) ? 2 : 1));
      this.line(line);
    }
  }

  line(line) {
    if (line === '') { this.dispatch(); return; }
    if (line[0] === ':') return; // a comment (keep-alive)
    const c = line.indexOf(':');
    const field = c < 0 ? line : line.slice(0, c);
    let value = c < 0 ? '' : line.slice(c + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id') { if (!value.includes('\0')) this.id = value; }
    else if (field === 'retry') { if (/^\d+$/.test(value)) this.retry = Number(value); }
  }

  dispatch() {
    if (this.id !== undefined) this.lastId = this.id;
    if (this.data.length) {
      const frame = { id: this.lastId, event: this.event || 'message', data: this.data.join('\n') };
      this.reset();
      this.onEvent(frame);
    } else {
      this.reset();
    }
  }
}

const MIN_BACKOFF = 1000;
const MAX_BACKOFF = 15000;
const FALLBACK_POLL = 15000;
const RESUME = 100; // after a stream the server ended in good order
// The server writes a keep-alive comment every 15 s: a stream quiet for
// longer has gone silent (a network that drops everything): end it.
const SILENCE = 25000;

/**
 * Follow one game's events. `onNews()` is called (debounced) after events
 * arrive, and by the fallback poll while the stream is down.
 * Returns {stop(), reconnect(), get connected(), get lastEventId()}.
 */
export function followGame({ id, token, onNews, onGone, onState, onRewind, debounce = 30 }) {
  let stopped = false;
  let controller = null;
  let lastEventId = null;
  let backoff = MIN_BACKOFF;
  let retryTimer = null;
  let pollTimer = null;
  let newsTimer = null;
  let connected = false;
  let waiting = false; // a reconnection is scheduled
  let quietTimer = null; // ends a stream gone silent
  let state = null;

  const setState = (next) => {
    if (next === state || stopped) return;
    state = next;
    if (onState) onState(next);
  };

  const news = () => {
    clearTimeout(newsTimer);
    newsTimer = setTimeout(() => { if (!stopped) onNews(); }, debounce);
  };

  const startPolling = () => {
    if (pollTimer || stopped) return;
    const tick = () => {
      pollTimer = setTimeout(async () => {
        if (stopped || connected) { pollTimer = null; return; }
        try { await onNews(); } catch { /* transient */ }
        if (!stopped && !connected) tick(); else pollTimer = null;
      }, FALLBACK_POLL);
    };
    tick();
  };
  const stopPolling = () => { clearTimeout(pollTimer); pollTimer = null; };

  const scheduleReconnect = (delay) => {
    if (stopped) return;
    clearTimeout(retryTimer);
    startPolling();
    retryTimer = setTimeout(connect, delay);
    waiting = true;
    backoff = Math.min(backoff * 2, MAX_BACKOFF);
  };

  async function connect() {
    waiting = false;
    if (stopped) return;
    controller = new AbortController();
    const headers = { Accept: 'text/event-stream' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (lastEventId !== null) headers['Last-Event-ID'] = lastEventId;
    let res;
    try {
      res = await fetch(`/games/${encodeURIComponent(id)}/events`, { headers, cache: 'no-store', signal: controller.signal });
    } catch {
      setState('down');
      scheduleReconnect(backoff);
      return;
    }
    if (stopped) { controller.abort(); return; }
    if (!res.ok || !res.body) {
      try { await res.body?.cancel(); } catch { /* ignore */ }
      if (res.status === 401 || res.status === 404) { stopped = true; stopPolling(); if (onGone) onGone(res.status); return; }
      setState(res.status >= 500 && res.status !== 503 ? 'down' : 'polling');
      let delay = backoff;
      if (res.status === 503) {
        const ra = Number(res.headers.get('Retry-After'));
        if (Number.isFinite(ra) && ra > 0) delay = Math.max(delay, ra * 1000);
      }
      scheduleReconnect(delay);
      return;
    }
    connected = true;
    backoff = MIN_BACKOFF; // the server took us: the next drop starts the backoff afresh
    stopPolling();
    setState('live');
    const parser = new SSEParser((frame) => {
      if (frame.id !== null && frame.id !== undefined) lastEventId = frame.id;
      // plays were taken back (DELETE /games/{id}/plays/{n}): the events after
      // its point are the game's anew
      if (frame.event === 'rewind' && onRewind) {
        let d = null;
        try { d = JSON.parse(frame.data); } catch { /* a rewind all the same */ }
        onRewind(d);
      }
      news();
    });
    if (lastEventId !== null) parser.lastId = lastEventId;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let broke = false;
    const ctl = controller;
    const listen = () => { clearTimeout(quietTimer); quietTimer = setTimeout(() => ctl.abort(), SILENCE); };
    try {
      for (;;) {
        listen();
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      broke = true; // aborted (gone silent), or the connection broke
    }
    clearTimeout(quietTimer);
    connected = false;
    if (stopped) return;
    if (broke) setState('down');
    news(); // catch up on anything between the stream's end and the next one
    // A stream the server ended in good order (its time is up, or it is
    // shutting down) is taken up again at once; if the server is gone, that
    // attempt fails and the backoff begins.
    scheduleReconnect(broke ? backoff : RESUME);
  }

  connect();
  return {
    id,
    token,
    get connected() { return connected; },
    get lastEventId() { return lastEventId; },
    /** Try again now (the browser is back online). */
    reconnect() {
      if (stopped || !waiting) return;
      clearTimeout(retryTimer);
      backoff = MIN_BACKOFF;
      connect();
    },
    stop() {
      stopped = true;
      connected = false;
      clearTimeout(retryTimer);
      clearTimeout(newsTimer);
      clearTimeout(quietTimer);
      stopPolling();
      if (controller) controller.abort();
    },
  };
}
