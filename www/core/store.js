// The page's state: one object, written by dispatch() alone.
//
// Every module reads `app` (a live binding: after each dispatch it is the new
// state) and none writes it. What a module learns (a game's view, the legal
// plays, an event, a refusal, a click) it dispatches as an action, a plain
// object {type, ...}; reduce() makes the next state from the last one and
// the action, and the listeners are told (core/render.js's render(), the one
// render path, which draws the whole page from the state). The state and
// everything in it is frozen, so a write anywhere else throws, and
// tests/repo/www_modules.test.mjs reads the sources for one.
//
// The state holds what the page draws and nothing else: timers, the event
// stream, fetch caches and the lobby form's inputs stay in the modules that
// own them. A table keeps its own state (a pager's page, a hand's view)
// in `table`, with the action `table`; this browser's settings in `prefs`.
// The actions, by slice:
//
//   catalogue {games, failed}         GET /rules
//   rules/doc {game, doc}             GET /rules/{game}
//   rules/open {game}, rules/close    the Rules panel
//   lobby {open}                      the lobby shown (New game) or hidden
//   mygames {rows}                    the "My games" list
//   game/open {id, token}             a game is being opened (a new id: its log and table state start afresh)
//   game/view {data, records, playBack} a game document taken in (a read, a play's reply, an event's refresh),
//                                     its new records, and those to play back (core/playback.js)
//   game/shown                        the game on show, the lobby hidden
//   game/gone                         no game: back to the lobby
//   log/add {records}                 records of plays, for the log
//   legal {plays, total}              the seat's legal plays (a first page of `total`)
//   select {key, keepHint}            a source chosen on the board (again: unchosen), or null
//   hint {hint}                       GET /hint's advice, or null
//   update {delta}                    +1 / -1: an update of the table under way (the board is aria-busy)
//   play {on, verdict}                a play sent and not answered yet (on); answered, refused or not (verdict)
//   verdict {verdict}                 the server's refusal of a play, by its place (null: cleared)
//   message {text, kind, net}         the message bar (net: news of a lost connection)
//   connection {state, notice}        the event stream's state
//   invite/open {seat}                a new invite link waits for seat `seat`
//   invites/hide {id}                 the invite links put away for game `id`
//   replay/open {id, token, plays}, replay/plays {plays}, replay/at {at}, replay/view {at, view}, replay/close, replay/shared {shared}
//   playback/queue {records}          plays to show one at a time (core/playback.js)
//   playback/view {n, view}           the position after play n, fetched
//   playback/show {i}                 the i-th queued play on the board
//   playback/end                      the live table again
//   table {key, value}                the shown table's own state
//   pref {key, value}                 a setting of this browser (also kept in localStorage)

function initial() {
  return {
    catalogue: [],        // GET /rules games
    catalogueFailed: false, // GET /rules did not answer
    rulesDocs: {},        // game -> GET /rules/{game}
    rules: null,          // the game whose Rules panel is open, or null
    lobby: true,          // the lobby (new game, my games) shows
    myGames: null,        // the "My games" rows, null before the first listing
    id: null,             // game id
    token: null,          // this tab's seat token (null = spectator)
    game: null,           // game type id (GET /rules)
    variant: null,
    version: null,
    seats: [],
    you: null,            // our seat, or null
    state: null,          // the view (the game's own shape: only its table reads it)
    status: null,         // where the game stands: the server's "status" (current, over, winners, scores, ...)
    shown: false,         // the game's table is on show
    legal: [],            // our legal plays now
    legalTotal: 0,        // how many there are (GET /legal pages them; legal is the first page)
    selection: null,      // the table's selected source key
    hint: null,           // {play, explanation, strategy}
    log: new Map(),       // n -> record, in the order taken in
    busy: false,          // a play is on its way
    updates: 0,           // table updates under way: the board is aria-busy meanwhile
    verdict: null,        // {anchor, detail, rule}: a refused play, shown by its place
    message: { text: '', kind: 'info', net: false, seq: 0 },
    connection: null,     // the event stream: 'live', 'down', 'polling' or null
    connectionNotice: false, // "Reconnecting…" is on show
    invitesHidden: null,  // the game whose invite links were put away
    replay: null,         // {id, token, plays, at, pos, view}: the replay shown (core/replay.js)
    shared: null,         // the shared replay led or followed (core/sharedreplay.js)
    playback: null,       // {records, shown, views}: plays shown one at a time (core/playback.js)
    table: {},            // the shown table's own state (tables/)
    prefs: {},            // this browser's settings
  };
}

/** Deep-freeze what is new in `x` (a frozen object's parts are frozen already). */
function freeze(x) {
  if (x === null || typeof x !== 'object' || Object.isFrozen(x)) return x;
  if (x instanceof Map) {
    for (const v of x.values()) freeze(v);
    return Object.freeze(x);
  }
  Object.freeze(x);
  for (const v of Object.values(x)) freeze(v);
  return x;
}

export let app = freeze(initial());

const listeners = [];
let drawing = false;

/** Take in an action: the next state, then every listener. The listeners
 *  draw; they never dispatch (an action comes from an event or an answer). */
export function dispatch(action) {
  if (drawing) throw new Error(`dispatch(${action && action.type}) while the page is drawn: draw from the state, dispatch from events`);
  const next = reduce(app, action);
  if (next === app) return;
  app = freeze(next);
  drawing = true;
  try {
    for (const f of listeners) f(app, action);
  } finally {
    drawing = false;
  }
}

/** Call `f(state, action)` after every dispatch (core/render.js's render). */
export function subscribe(f) {
  listeners.push(f);
}

// ---------------------------------------------------------------------------
// The reducer

/** The log with `records` added (each once, by n; records without n numbered in order). */
function withRecords(log, records) {
  if (!Array.isArray(records) || !records.length) return log;
  let next = null;
  records.forEach((rec, i) => {
    const n = rec.n !== undefined ? rec.n : `x${log.size + i}`;
    if ((next || log).has(n)) return;
    if (!next) next = new Map(log);
    next.set(n, rec);
  });
  return next || log;
}

/** A game document (GET /games/{id}, a play's reply) taken in. */
function takeGame(s, data) {
  const next = { ...s, selection: null, hint: null };
  if (data.id && data.id !== s.id) Object.assign(next, { id: data.id, log: new Map(), table: {}, replay: null, shared: null, playback: null, verdict: null });
  if (data.game) next.game = data.game;
  if (data.variant) next.variant = data.variant;
  if (data.version !== undefined && data.version !== s.version) Object.assign(next, { version: data.version, legal: [], legalTotal: 0 });
  if (Array.isArray(data.seats)) next.seats = data.seats.map((x) => ({ ...x, token: undefined }));
  if (data.you !== undefined) next.you = data.you;
  if (data.state !== undefined) next.state = data.state;
  if (data.status !== undefined) next.status = data.status;
  return next;
}

const noGame = {
  id: null, token: null, game: null, variant: null, version: null, seats: [], you: null, state: null, status: null,
  shown: false, legal: [], legalTotal: 0, selection: null, hint: null, log: new Map(), busy: false, verdict: null,
  replay: null, shared: null, playback: null, table: {},
};

function reducePlayback(s, a) {
  const pb = s.playback;
  switch (a.type) {
    case 'playback/queue': {
      const have = new Set(pb ? pb.records.map((r) => r.n) : []);
      const more = (a.records || []).filter((r) => !have.has(r.n));
      if (!more.length) return s;
      return { ...s, playback: pb ? { ...pb, records: [...pb.records, ...more] } : { records: more, shown: -1, views: {} } };
    }
    case 'playback/view':
      return pb ? { ...s, playback: { ...pb, views: { ...pb.views, [a.n]: a.view } } } : s;
    case 'playback/show':
      return pb && a.i !== pb.shown ? { ...s, playback: { ...pb, shown: a.i } } : s;
    case 'playback/end':
      return pb ? { ...s, playback: null } : s;
    default:
      return s;
  }
}

function reduceReplay(s, a) {
  const rp = s.replay;
  switch (a.type) {
    case 'replay/open':
      return { ...s, playback: null, replay: { id: a.id, token: a.token, plays: a.plays, at: null, pos: -1, view: null, viewAt: null } };
    case 'replay/plays':
      return rp ? { ...s, replay: { ...rp, plays: a.plays } } : s;
    case 'replay/at': {
      if (!rp) return s;
      // The position of the last play numbered at most `at` (-1: the deal).
      let pos = -1;
      if (a.at >= 0) for (let i = rp.plays.length - 1; i >= 0; i--) if (rp.plays[i].n <= a.at) { pos = i; break; }
      return { ...s, replay: { ...rp, pos, at: pos < 0 ? -1 : rp.plays[pos].n } };
    }
    case 'replay/view':
      return rp && a.at === rp.at ? { ...s, replay: { ...rp, view: a.view, viewAt: a.at } } : s;
    case 'replay/close':
      return rp || s.shared ? { ...s, replay: null, shared: null } : s;
    case 'replay/shared': // merged in; null: none
      return { ...s, shared: a.shared && (s.shared || a.shared.rid) ? { ...s.shared, ...a.shared } : null };
    default:
      return s;
  }
}

/** The next state after action `a`. Pure: no I/O, nothing written in place. */
function reduce(s, a) {
  switch (a.type) {
    case 'catalogue': return { ...s, catalogue: a.games, catalogueFailed: !!a.failed };
    case 'rules/doc': return { ...s, rulesDocs: { ...s.rulesDocs, [a.game]: a.doc } };
    case 'rules/open': return { ...s, rules: a.game };
    case 'rules/close': return s.rules === null ? s : { ...s, rules: null };
    case 'lobby': return s.lobby === a.open ? s : { ...s, lobby: a.open };
    case 'mygames': return { ...s, myGames: a.rows };
    case 'game/open':
      return a.id === s.id ? { ...s, token: a.token }
        : { ...s, ...noGame, id: a.id, token: a.token, shown: s.shown };
    case 'game/view': {
      const next = takeGame(s, a.data);
      next.log = withRecords(next.log, a.records);
      return a.playBack && a.playBack.length ? reducePlayback(next, { type: 'playback/queue', records: a.playBack }) : next;
    }
    case 'game/shown': return { ...s, shown: true, lobby: false };
    case 'game/gone': return { ...s, ...noGame, lobby: true };
    case 'log/cut': { // plays taken back: the records from number `from` on go
      const log = new Map([...s.log].filter(([, r]) => !(typeof r.n === 'number' && r.n >= a.from)));
      return { ...s, log };
    }
    case 'log/add': {
      const log = withRecords(s.log, a.records);
      return log === s.log ? s : { ...s, log };
    }
    case 'legal': return { ...s, legal: a.plays, legalTotal: a.total };
    case 'select': return { ...s, selection: a.key === null || a.key === s.selection ? null : a.key, hint: a.keepHint ? s.hint : null };
    case 'hint': return { ...s, hint: a.hint, selection: a.hint ? null : s.selection };
    case 'update': return { ...s, updates: Math.max(0, s.updates + a.delta) };
    case 'play':
      if (a.on) return { ...s, busy: true, verdict: null };
      return a.verdict ? { ...s, busy: false, verdict: a.verdict, selection: null } : { ...s, busy: false };
    case 'verdict': return s.verdict === a.verdict ? s : { ...s, verdict: a.verdict, selection: a.verdict ? null : s.selection };
    case 'message': return { ...s, message: { text: a.text, kind: a.kind || 'info', net: !!a.net, seq: s.message.seq + 1 } };
    case 'connection': return { ...s, connection: a.state, connectionNotice: !!a.notice };
    case 'invite/open':
      return { ...s, seats: s.seats.map((x) => (x.seat === a.seat ? { ...x, invite_open: true } : x)) };
    case 'invites/hide': return { ...s, invitesHidden: a.id };
    case 'table': return { ...s, table: { ...s.table, [a.key]: a.value } };
    case 'pref': return { ...s, prefs: { ...s.prefs, [a.key]: a.value } };
    default:
      if (a.type.startsWith('replay/')) return reduceReplay(s, a);
      if (a.type.startsWith('playback/')) return reducePlayback(s, a);
      throw new Error(`unknown action ${a.type}`);
  }
}
