// soak.mjs: the whole-game soak driver, used by
// soak.test.mjs (`make test`) and cli.mjs (`make soak`).
//
// It plays complete games through a real server and its store, and knows
// games only through the registry as the API describes it: GET /rules gives
// the games, variants, table sizes and bots; each game's export formats come
// from the rules document or from asking the export route (discover()).
// There is no per-game code here; the only per-FORMAT code is the small table
// FORMAT_CHECKS at the end (a format with no entry must re-import).
//
// A planned game (planGames) is {game, variant, a person or a bot per seat,
// seed, pRandom per person}. The people's seats are played through the API:
// the seat to move plays its /hint play, or (with probability pRandom) a
// uniformly random play from its /legal, chosen by the game's own seeded
// PRNG, so a game is reproducible from its plan alone.
//
// Every position of every game (before each person's play, and the end) gets
// the TURN CHECK (turnCheck): the admin's /hint (advice for the seat to move)
// or, when a random play may follow, the admin's /legal names a person's seat
// (bots move inside requests) at the version the last write returned, with
// plays, or says the game is over; the seat's own /hint or /legal gives the
// play when the admin's answer did not; the play is posted with If-Match as
// that seat and must be applied (200, a newer version, its record first).
//
// A position that is CHECKED IN FULL also gets (checkPosition, checkExport):
//   - GET /games/{id}, /legal, /plays, /events answer 200 for every person
//     seat, a spectator and the admin, all at one version (the ETag too);
//     /hint answers 200 for the seat to move, 409 not-your-turn for the other
//     seats, 401 for the spectator (openapi.yaml: help mode needs a seat) and
//     200 for the admin (advice for the seat to move); once the game is over
//     409 game-over for the seats and the admin;
//   - exactly one person seat can move (its /legal is non-empty and equal to
//     the admin's, whose `seat` names it), or none and the game is over;
//   - every play of that /legal, and the /hint play, is valid for POST
//     /validate on the state of the admin's `export?format=json`;
//   - that export re-imports (POST /games/import) to a game with the same
//     view (VIEW_MEMBERS_IGNORED) for every seat, the spectator and the
//     admin, and the same export; the copy is deleted;
//   - every other export format of the game answers 200 and passes its
//     format check, or is refused with a 400 naming the `format` parameter
//     (the Five Crowns text saves 2-player games only, before a turn).
// The last position of every game is checked in full, and so is every
// position of the games planned with sample = 1 ("full" games) and a random
// `sample` of the positions of the others (drawn from a stream of its own, so
// the game played is the same whatever is checked). `make soak` checks every
// position of every game in full by default; `make test` cannot afford that
// for 200 games of each game (see soak.test.mjs for the figures).
//
// At the end the admin's view says the game is over with a result, every
// reader gets the whole /events list, and the game is deleted. A failure of
// a check that does not change the game (POST /validate, the re-import, the
// other formats) is recorded and the game goes on, so that one defect does
// not hide the rest of the game; any other failure ends the game. Either
// way the failure is reported with the game's plan and the people's plays up
// to it: POST /games with that body, then those plays, reproduce it.
import http from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { assertMatches, doc as OPENAPI } from '../http/lib/contract.mjs';

// ---------------------------------------------------------------------------
// PRNG: a game's randomness (random plays, policies) comes from its own
// stream, seeded from the run seed and the game's index, so any game can be
// replayed alone.

/** mulberry32: a small 32-bit PRNG; returns () => float in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of the parts' text: a stable 32-bit seed from a run seed and names. */
export function hash32(...parts) {
  let h = 0x811c9dc5;
  for (const ch of parts.join('\u0000')) {
    h ^= ch.codePointAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const pick = (rnd, xs) => xs[Math.floor(rnd() * xs.length)];

// ---------------------------------------------------------------------------
// HTTP: keep-alive connections, at most `sockets` at once (the server runs one
// thread per connection: more connections than server threads would stall).

export class SoakFailure extends Error {
  constructor(message, detail = {}) {
    super(message);
    this.detail = detail;
  }
}

const excerpt = (s, n = 600) => {
  s = typeof s === 'string' ? s : JSON.stringify(s);
  if (s === undefined) return '';
  return s.length > n ? `${s.slice(0, n)}... (${s.length} chars)` : s;
};

// Keep-alive sockets are retired after 3 s idle, before the server's 5 s
// (its Keep-Alive: timeout=5), so that a request is never written on a
// socket the server is closing (a reset no server can prevent). Node's agent
// reuses a socket until it sees the server's FIN.
export function idleAgent(sockets) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const keep = agent.keepSocketAlive.bind(agent);
  agent.keepSocketAlive = (socket) => {
    if (!keep(socket)) return false;
    socket.setTimeout(3000); // the agent destroys a free socket on 'timeout'
    return true;
  };
  const reuse = agent.reuseSocket.bind(agent);
  agent.reuseSocket = (socket, req) => {
    socket.setTimeout(0);
    reuse(socket, req);
  };
  return agent;
}

export function makeClient(base, { sockets = 8, contract = false, adminToken = null } = {}) {
  const url = new URL(base);
  const agent = idleAgent(sockets);
  // Per route (method + path template): requests, total ms, bytes (cli.mjs --routes).
  const stats = { requests: 0, contractChecked: 0, routes: {} };
  function once(method, path, opts) {
    const headers = { ...(opts.headers || {}) };
    let payload;
    if (opts.json !== undefined) {
      payload = Buffer.from(JSON.stringify(opts.json));
      headers['content-type'] = 'application/json';
    } else if (opts.body !== undefined) {
      payload = Buffer.from(opts.body);
      headers['content-type'] = opts.contentType || 'text/plain';
    }
    if (payload) headers['content-length'] = payload.length;
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    return new Promise((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ res, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.setTimeout(120_000, () => req.destroy(new Error('no answer in 120 s')));
      req.end(payload);
    });
  }
  async function request(method, path, opts = {}) {
    stats.requests++;
    const route = `${method} ${path.replace(/\/games\/[A-Za-z0-9_-]{16,}/, '/games/{id}').replace(/\?.*/, '')}`;
    const t0 = process.hrtime.bigint();
    let got;
    try {
      got = await once(method, path, opts);
    } catch (e) {
      // A keep-alive connection the server closed just as we reused it: a
      // GET is safe to send again, anything else is reported.
      if (method !== 'GET' || !['ECONNRESET', 'EPIPE'].includes(e.code)) {
        throw new SoakFailure(`${method} ${path}: no HTTP answer (${e.code || e.message})`, { method, path });
      }
      got = await once(method, path, opts).catch((e2) => {
        throw new SoakFailure(`${method} ${path}: no HTTP answer (${e2.code || e2.message})`, { method, path });
      });
    }
    const { res, text } = got;
    const rt = (stats.routes[route] ??= { n: 0, ms: 0, bytes: 0 });
    rt.n++;
    rt.ms += Number(process.hrtime.bigint() - t0) / 1e6;
    rt.bytes += text.length;
    let json;
    if (/json/i.test(res.headers['content-type'] || '') && text !== '') {
      try { json = JSON.parse(text); } catch { /* left undefined: the checks say so */ }
    }
    const r = { method, path, status: res.status ?? res.statusCode, headers: res.headers, text, json,
      request: opts.json !== undefined ? opts.json : opts.body };
    if (opts.contract ?? contract) {
      stats.contractChecked++;
      try {
        assertMatches(method, path, { status: r.status, headers: res.headers }, text);
      } catch (e) {
        throw new SoakFailure(`response breaks openapi.yaml: ${e.message.split('\n').slice(0, 6).join(' | ')}`, detailOf(r));
      }
    }
    return r;
  }
  return {
    base,
    adminToken,
    stats,
    request,
    get: (p, opts) => request('GET', p, opts),
    post: (p, json, opts = {}) => request('POST', p, { json, ...opts }),
    del: (p, opts) => request('DELETE', p, opts),
    close: () => agent.destroy(),
  };
}

function detailOf(r, extra = {}) {
  return {
    method: r.method,
    path: r.path,
    status: r.status,
    request: r.request === undefined ? undefined : excerpt(r.request, 400),
    response: excerpt(r.text, 800),
    ...extra,
  };
}

/** Fail unless r.status is one of `statuses`. */
function want(r, statuses, what, extra) {
  statuses = [].concat(statuses);
  if (!statuses.includes(r.status)) {
    throw new SoakFailure(`${what}: expected ${statuses.join(' or ')}, got ${r.status}`, detailOf(r, extra));
  }
  if (r.status < 300 && /json/i.test(r.headers['content-type'] || '') && r.json === undefined && r.text !== '') {
    throw new SoakFailure(`${what}: the body is not JSON`, detailOf(r, extra));
  }
  return r;
}

function check(cond, what, r, extra) {
  if (!cond) throw new SoakFailure(what, r ? detailOf(r, extra) : { ...extra });
}

/** A problem document of this status and type slug. */
function wantProblem(r, status, slugs, what, extra) {
  want(r, status, what, extra);
  slugs = [].concat(slugs);
  check(r.json && slugs.map((s) => `/problems/${s}`).includes(r.json.type),
    `${what}: expected a ${status} problem of type ${slugs.join(' or ')}`, r, extra);
  return r.json;
}

// ---------------------------------------------------------------------------
// The registry, as the API describes it.

/** The format names the contract knows (the enum of GET /games/{id}/export ?format=). */
export function contractFormats() {
  const params = OPENAPI.paths['/games/{id}/export']?.get?.parameters || [];
  const f = params.find((x) => x.name === 'format' && x.in === 'query');
  return (f?.schema?.enum || []).filter((x) => x !== 'json');
}

/**
 * The options of the service that every game takes (openapi.yaml:
 * CreateGameRequest.options.properties, those with an enum): {name: [values]}.
 * Today `spectators`: "public" (the default) or "all" (spectators see every
 * hand); the soak plays tables with each, and with none given.
 */
export function contractServiceOptions() {
  const props = OPENAPI.components?.schemas?.CreateGameRequest?.properties?.options?.properties || {};
  const out = {};
  for (const [k, v] of Object.entries(props)) if (Array.isArray(v?.enum) && v.enum.length) out[k] = v.enum;
  return out;
}

/**
 * The games: [{game, variants, players: {min, max, default}, bots, formats}].
 * `formats` are the export formats besides json. The rules document should
 * list them as `export_formats` (openapi.yaml, GET /games/{id}/export); the
 * soak also asks the export route, as the admin, of a new game (a person at
 * every seat of the default table, so nobody has moved) for every format the
 * contract's `format` enum names. A format the game lacks is refused exactly
 * as a made-up name is (the same 400, the same detail with the name put in);
 * a format it has either exports or is refused for another reason (e.g. not
 * at this moment). When the rules document lists formats, the soak plays
 * those, and the test checks that the two agree.
 */
export async function discover(client, { formatNames = contractFormats() } = {}) {
  const cat = want(await client.get('/rules'), 200, 'GET /rules');
  check(Array.isArray(cat.json?.games) && cat.json.games.length > 0, 'GET /rules lists no games', cat);
  const games = [];
  for (const entry of cat.json.games) {
    const doc = want(await client.get(`/rules/${encodeURIComponent(entry.game)}`), 200, `GET /rules/${entry.game}`).json;
    const { min, max } = entry.players;
    const dflt = entry.players.default;
    check(Number.isInteger(min) && Number.isInteger(max) && min <= dflt && dflt <= max,
      `GET /rules: ${entry.game} has a bad player range ${JSON.stringify(entry.players)}`);
    check(entry.bots.length > 0, `GET /rules: ${entry.game} has no bots`);
    const created = want(await client.post('/games', {
      game: entry.game, seed: 1, players: Array.from({ length: dflt }, (_, i) => ({ name: `P${i}` })),
    }), 201, `POST /games (${entry.game}, probing export formats)`).json;
    const exp = (f) => client.get(`/games/${created.id}/export?format=${encodeURIComponent(f)}`, { token: client.adminToken });
    const bogus = 'no-such-format-x7q';
    const rb = wantProblem(await exp(bogus), 400, 'invalid-parameter', `GET /export?format=${bogus}`);
    const probed = [];
    for (const f of formatNames) {
      const r = await exp(f);
      const unknown = r.status === 400 && r.json?.type === rb.type && r.json?.detail === String(rb.detail).split(bogus).join(f);
      if (!unknown) probed.push(f);
    }
    want(await client.del(`/games/${created.id}`, { token: client.adminToken }), 204, 'DELETE /games/{id} (format probe)');
    games.push({
      game: entry.game,
      title: entry.title,
      variants: entry.variants,
      players: { min, max, default: dflt },
      // a person sits at every soak table: only the bots the game seats beside people
      bots: Array.isArray(entry.bots_with_people) ? entry.bots_with_people : entry.bots,
      formats: Array.isArray(doc.export_formats) ? doc.export_formats.filter((f) => f !== 'json') : probed,
      rulesFormats: Array.isArray(doc.export_formats) ? doc.export_formats : null,
      probedFormats: probed,
    });
  }
  return games;
}

// ---------------------------------------------------------------------------
// The plan: for each game, `perGame` games spread over variant x table size x
// seating kind (round robin, so a small count still covers every
// combination), with the details (bots, people's seats, pRandom, the
// service's options) drawn from the game's own PRNG.
//
// Seating kinds:
//   solo   one person and bots; the person's seat turns round the table;
//   all    every seat a person;
//   mixed  persons at two or more seats (random ones) with bots between; at
//          a 2-seat table (where that is impossible) one person at a random
//          seat with a bot.
// A person plays the /hint play, or a random /legal play with probability
// pRandom (drawn per seat). When every seat is a person, purely random play
// can make a game last thousands of plays (nobody finishes a phase, nobody
// goes out), so at such tables pRandom stays low; with bots at the table the
// bots end the game whatever the people do, and pRandom goes up to 1.
const P_RANDOM = { solo: [0, 0.5, 1], mixed: [0, 0.3, 1], all: [0, 0.1, 0.25] };
export const SEATINGS = ['solo', 'all', 'mixed'];

export function tableSizes(players) {
  const sizes = [];
  for (let n = players.min; n <= players.max; n++) sizes.push(n);
  return sizes;
}

export function planGames(games, {
  perGame, seed = 1, first = 0, full = Infinity, sample = 1, contractFull = false, serviceOptions = contractServiceOptions(),
}) {
  const plan = [];
  for (const g of games) {
    const sizes = tableSizes(g.players);
    const combos = [];
    for (const variant of g.variants) {
      for (const n of sizes) for (const seating of SEATINGS) combos.push({ variant, n, seating });
    }
    // Interleave the combinations so that any prefix of the plan is spread.
    for (let i = first; i < first + perGame; i++) {
      const { variant, n, seating } = combos[i % combos.length];
      const gameSeed = hash32('soak', seed, g.game, i);
      const rnd = prng(gameSeed);
      let persons;
      if (seating === 'all') persons = Array.from({ length: n }, (_, k) => k);
      else if (seating === 'solo' || n === 2) {
        persons = [seating === 'solo' ? Math.floor(i / combos.length) % n : Math.floor(rnd() * n)];
      } else {
        const k = 2 + Math.floor(rnd() * (n - 2)); // 2..n-1 persons
        const seats = Array.from({ length: n }, (_, s) => s);
        for (let s = n - 1; s > 0; s--) { const t = Math.floor(rnd() * (s + 1)); [seats[s], seats[t]] = [seats[t], seats[s]]; }
        persons = seats.slice(0, k).sort((a, b) => a - b);
      }
      const players = Array.from({ length: n }, (_, s) => (persons.includes(s)
        ? { name: `P${s}` } : { bot: pick(rnd, g.bots) }));
      const pRandom = {};
      for (const s of persons) pRandom[s] = pick(rnd, P_RANDOM[seating]);
      let options;
      for (const [k, values] of Object.entries(serviceOptions)) {
        const v = pick(rnd, [undefined, ...values]); // undefined: not given (the default)
        if (v !== undefined) (options ??= {})[k] = v;
      }
      // `full` games of each game get every check at every position, spread
      // over the plan; the others at the last position and at a random
      // `sample` of the others (see playGame). With contractFull,
      // every response of the full games is checked against openapi.yaml.
      const isFull = full > 0 && i % Math.max(1, Math.floor(perGame / Math.min(full, perGame))) === 0;
      plan.push({
        index: i, runSeed: seed, game: g.game, variant, seating, nplayers: n, players, pRandom, options,
        seed: gameSeed % 1_000_000_007, rngSeed: hash32('play', seed, g.game, i),
        sample: isFull ? 1 : sample, contract: isFull && contractFull, formats: g.formats,
      });
    }
  }
  // Alternate between games so that concurrent workers mix them.
  const byGame = games.map((g) => plan.filter((p) => p.game === g.game));
  const mixed = [];
  for (let k = 0; byGame.some((xs) => k < xs.length); k++) for (const xs of byGame) if (k < xs.length) mixed.push(xs[k]);
  return mixed;
}

// ---------------------------------------------------------------------------
// "Same view": an imported game is a new stored game, so its `id` differs,
// and its `version` restarts (the version counts the writes to that stored
// game, see the If-Match/ETag contract: the import is its first write).
// Found by comparing views of originals and copies at every play of every
// game; every other member (seats, you, the whole state) must be equal.
// (Not a view, so not compared: the copy's /plays and /events lose the bots'
// explanations, which the server keeps beside the game, not in the export.)
export const VIEW_MEMBERS_IGNORED = ['id', 'version'];

function withoutIgnored(view) {
  const v = { ...view };
  for (const k of VIEW_MEMBERS_IGNORED) delete v[k];
  return v;
}

/** The JSON pointers where a and b differ (at most `limit`). */
export function diffPaths(a, b, limit = 6, p = '', out = []) {
  if (out.length >= limit || isDeepStrictEqual(a, b)) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diffPaths(a[k], b[k], limit, `${p}/${k}`, out);
    if (Array.isArray(a) && a.length !== b.length) out.push(`${p} (length ${a.length} vs ${b.length})`);
  } else {
    out.push(p || '(root)');
  }
  return out.slice(0, limit);
}

// ---------------------------------------------------------------------------
// One game.

class Game {
  constructor(client, spec, opts) {
    // The client, counting this game's requests (and checking each response
    // against openapi.yaml when the spec says so).
    this.requests = 0;
    const request = (method, p, o = {}) => {
      this.requests++;
      return client.request(method, p, spec.contract ? { contract: true, ...o } : o);
    };
    this.c = {
      request,
      get: (p, o) => request('GET', p, o),
      post: (p, json, o = {}) => request('POST', p, { json, ...o }),
      del: (p, o) => request('DELETE', p, o),
    };
    this.spec = spec;
    this.opts = opts;
    this.admin = opts.adminToken;
    this.rnd = prng(spec.rngSeed); // the people's random plays
    this.sampleRnd = prng(hash32('sample', spec.rngSeed)); // which positions get every check: never changes the game
    this.failures = new Map(); // signature -> failure (one of each kind per game)
    this.moves = []; // [{seat, play}] of the people, in order: the reproduction
    this.step = 0; // plays made by people
    this.lastEvent = new Map(); // reader name -> last event n seen
    this.stats = { positions: 0, validated: 0, reimports: 0, formats: {} };
  }

  get readers() {
    return [
      ...this.persons.map((p) => ({ name: `seat ${p.seat}`, token: p.token, seat: p.seat })),
      { name: 'spectator', token: null, seat: null },
      { name: 'admin', token: this.admin, seat: null, admin: true },
    ];
  }

  async create() {
    const { game, variant, seed, players, options } = this.spec;
    this.createBody = { game, variant, seed, players, ...(options ? { options } : {}) };
    const r = want(await this.c.post('/games', this.createBody), 201, 'POST /games');
    const g = r.json;
    check(typeof g.id === 'string' && Array.isArray(g.seats) && g.seats.length === players.length,
      'POST /games: the reply has no id or not one seat per player', r);
    this.id = g.id;
    this.version = g.version;
    this.persons = [];
    players.forEach((pl, s) => {
      const seat = g.seats[s];
      if (pl.name) {
        check(seat.seat === s && typeof seat.token === 'string', `POST /games: seat ${s} is a person but has no token`, r);
        this.persons.push({ seat: s, token: seat.token });
      } else {
        check(seat.token === undefined && seat.bot === pl.bot, `POST /games: seat ${s} is the bot ${pl.bot}`, r);
      }
    });
  }

  /** Every reader's routes at the current position; returns the position. */
  async checkPosition() {
    const id = this.id;
    const readers = this.readers;
    const out = await Promise.all(readers.map(async (rd) => {
      const after = this.lastEvent.get(rd.name) ?? 0;
      const [view, legal, plays, events, hint] = await Promise.all([
        this.c.get(`/games/${id}`, { token: rd.token }),
        this.c.get(`/games/${id}/legal`, { token: rd.token }),
        this.c.get(`/games/${id}/plays`, { token: rd.token }),
        this.c.get(`/games/${id}/events?after=${after}`, { token: rd.token }),
        this.c.get(`/games/${id}/hint`, { token: rd.token }),
      ]);
      const who = { reader: rd.name };
      want(view, 200, `GET /games/{id} as ${rd.name}`, who);
      check(view.json.id === id && Number.isInteger(view.json.version) && view.json.state && typeof view.json.state === 'object',
        `GET /games/{id} as ${rd.name}: no id, version or state`, view, who);
      check(view.headers.etag === `"${view.json.version}"`, `GET /games/{id} as ${rd.name}: ETag ${view.headers.etag} is not the version ${view.json.version}`, view, who);
      check(view.json.you === rd.seat, `GET /games/{id} as ${rd.name}: you is ${view.json.you}, expected ${rd.seat}`, view, who);
      want(legal, 200, `GET /legal as ${rd.name}`, who);
      check(Array.isArray(legal.json?.plays), `GET /legal as ${rd.name}: no plays array`, legal, who);
      want(plays, 200, `GET /plays as ${rd.name}`, who);
      check(Array.isArray(plays.json?.plays) && plays.json.version === view.json.version,
        `GET /plays as ${rd.name}: no plays array at version ${view.json.version}`, plays, who);
      check(plays.json.plays.every((x, i, xs) => Number.isInteger(x?.n) && (i === 0 || x.n > xs[i - 1].n)),
        `GET /plays as ${rd.name}: the records are not numbered in order`, plays, who);
      want(events, 200, `GET /events?after=${after} as ${rd.name}`, who);
      check(Array.isArray(events.json), `GET /events as ${rd.name}: not a list`, events, who);
      let last = after;
      for (const ev of events.json) {
        check(Number.isInteger(ev?.n) && ev.n > last && typeof ev.event === 'string',
          `GET /events?after=${after} as ${rd.name}: event numbers must rise above ${after}; got n=${ev?.n} after ${last}`, events, who);
        last = ev.n;
      }
      this.lastEvent.set(rd.name, last);
      return { rd, view, legal, plays, events, hint };
    }));
    this.stats.positions++;

    // One version for everyone, and the one the last write returned.
    const versions = new Set(out.map((o) => o.view.json.version));
    check(versions.size === 1, `readers see different versions: ${[...versions].join(', ')}`, out[0].view);
    const version = out[0].view.json.version;
    check(version === this.version, `GET /games/{id} is at version ${version}; the last write returned ${this.version}`, out[0].view);
    const hlen = new Set(out.map((o) => o.plays.json.plays.length));
    check(hlen.size === 1, `GET /plays: readers see histories of different lengths (${out.map((o) => `${o.rd.name}: ${o.plays.json.plays.length}`).join(', ')})`, out[0].plays);

    // Who may move: the person seats whose /hint answers 200 (the others 409).
    const persons = out.filter((o) => o.rd.seat !== null);
    for (const o of persons) want(o.hint, [200, 409], `GET /hint as ${o.rd.name}`, { reader: o.rd.name });
    const movers = persons.filter((o) => o.hint.status === 200);
    const adm = out.find((o) => o.rd.admin);
    const spect = out.find((o) => o.rd.name === 'spectator');
    wantProblem(spect.hint, 401, 'unauthorized', 'GET /hint as the spectator');
    check(spect.legal.json.seat === null && spect.legal.json.plays.length === 0,
      'GET /legal as the spectator: expected {seat: null, plays: []}', spect.legal);
    check(movers.length <= 1, `${movers.length} seats get a /hint at once: ${movers.map((o) => o.rd.name).join(', ')}`, movers[0]?.hint);
    if (movers.length === 0) {
      // Nobody to move: the game must be over (bots never keep the turn).
      for (const o of [...persons, adm]) {
        wantProblem(o.hint, 409, 'game-over', `GET /hint as ${o.rd.name} with no seat to move`, { reader: o.rd.name });
        check(o.legal.json.plays.length === 0, `GET /legal as ${o.rd.name}: plays listed in a finished game`, o.legal, { reader: o.rd.name });
      }
      check(adm.legal.json.seat === null, 'GET /legal as the admin: a seat to move in a finished game', adm.legal);
      return { over: true, version, out };
    }
    const m = movers[0];
    const seat = m.rd.seat;
    check(m.hint.json && m.hint.json.seat === seat && m.hint.json.play !== undefined && typeof m.hint.json.explanation === 'string',
      `GET /hint as ${m.rd.name}: not {seat, play, explanation}`, m.hint, { reader: m.rd.name });
    check(m.legal.json.seat === seat && m.legal.json.plays.length > 0,
      `GET /legal as ${m.rd.name}: the seat to move (its /hint answers) has no legal plays`, m.legal, { reader: m.rd.name });
    for (const o of persons) {
      if (o === m) continue;
      wantProblem(o.hint, 409, 'not-your-turn', `GET /hint as ${o.rd.name} while seat ${seat} is to move`, { reader: o.rd.name });
      check(o.legal.json.plays.length === 0, `GET /legal as ${o.rd.name}: plays listed while seat ${seat} is to move`, o.legal, { reader: o.rd.name });
    }
    want(adm.hint, 200, 'GET /hint as the admin (advice for the seat to move)');
    check(adm.hint.json?.seat === seat, `GET /hint as the admin: advice for seat ${adm.hint.json?.seat}, but seat ${seat} is to move`, adm.hint);
    check(adm.legal.json.seat === seat && isDeepStrictEqual(adm.legal.json.plays, m.legal.json.plays),
      `GET /legal as the admin differs from seat ${seat}'s own`, adm.legal);
    return { over: false, version, seat, legal: m.legal.json.plays, hint: m.hint.json.play, out };
  }

  /** The admin's JSON export: every /legal play (and the hint) is valid on it; it re-imports to the same game. */
  async checkExport(pos) {
    const ex = want(await this.c.get(`/games/${this.id}/export?format=json`, { token: this.admin }), 200, 'GET /export?format=json as the admin');
    const e = ex.json;
    check(e && e.format === 'json' && e.game === this.spec.game && e.variant === this.spec.variant && e.version === pos.version
      && e.state && typeof e.state === 'object', `GET /export?format=json: not the game at version ${pos.version}`, ex);

    // What follows does not change the game: a failure is recorded and the
    // game goes on, so one defect does not hide the rest of the game.
    const jobs = [];
    const soft = (p) => jobs.push(p.catch((err) => this.record(err, `checking the export after ${this.step} person plays`)));
    if (!pos.over) {
      const body = (play) => ({ game: e.game, state: e.state, play, seat: pos.seat });
      const plays = [...pos.legal.map((p, i) => [`/legal play ${i}`, p]), ['the /hint play', pos.hint]];
      for (const [what, play] of plays) {
        soft(this.c.post('/validate', body(play)).then((r) => {
          want(r, 200, `POST /validate of ${what} of seat ${pos.seat}`, { play: excerpt(play, 200) });
          check(r.json?.valid === true, `POST /validate: ${what} of seat ${pos.seat} is not valid on the admin's export: ${excerpt(play, 200)}`,
            r, { play: excerpt(play, 200) });
          this.stats.validated++;
        }));
      }
    }
    soft(this.reimport(e, pos));
    for (const f of this.spec.formats) soft(this.checkFormat(f, pos));
    await Promise.all(jobs);
    return e;
  }

  async reimport(e, pos) {
    const imp = want(await this.c.post('/games/import', e), 201, 'POST /games/import of the admin\'s JSON export');
    const copy = imp.json;
    try {
      check(copy.id !== this.id && Array.isArray(copy.seats) && copy.seats.length === this.spec.players.length,
        'POST /games/import: not a new game with the same seats', imp);
      const tokens = new Map();
      for (const p of this.persons) {
        const t = copy.seats[p.seat]?.token;
        check(typeof t === 'string', `POST /games/import: person seat ${p.seat} has no token in the copy`, imp);
        tokens.set(p.seat, t);
      }
      await Promise.all(pos.out.map(async (o) => {
        const token = o.rd.seat !== null ? tokens.get(o.rd.seat) : o.rd.token;
        const v = want(await this.c.get(`/games/${copy.id}`, { token }), 200, `GET /games/{copy} as ${o.rd.name}`, { reader: o.rd.name });
        const a = withoutIgnored(o.view.json);
        const b = withoutIgnored(v.json);
        check(isDeepStrictEqual(a, b),
          `the re-imported game's view for ${o.rd.name} differs from the original's at ${diffPaths(a, b).join(', ')}`,
          v, { reader: o.rd.name, original: `/games/${this.id}`, copy: `/games/${copy.id}` });
      }));
      const ex2 = want(await this.c.get(`/games/${copy.id}/export?format=json`, { token: this.admin }), 200, 'GET /export of the re-imported game');
      const strip = (x) => ({ ...x, id: undefined, version: undefined });
      check(isDeepStrictEqual(strip(e), strip(ex2.json)),
        `the re-imported game exports differently at ${diffPaths(strip(e), strip(ex2.json)).join(', ')}`, ex2);
      this.stats.reimports++;
    } finally {
      want(await this.c.del(`/games/${copy.id}`, { token: this.admin }), 204, 'DELETE /games/{copy} as the admin');
    }
  }

  async checkFormat(f, pos) {
    const path = `/games/${this.id}/export?format=${encodeURIComponent(f)}`;
    const r = await this.c.get(path, { token: this.admin });
    const st = (this.stats.formats[f] ??= { checked: 0, refused: 0 });
    if (r.status === 400) {
      // Not available here: the format cannot hold this game or this moment.
      const p = wantProblem(r, 400, 'invalid-parameter', `GET /export?format=${f}`);
      check(JSON.stringify(p).includes('format'), `GET /export?format=${f}: a 400 that does not name the format parameter`, r);
      st.refused++;
      return;
    }
    want(r, 200, `GET /export?format=${f} as the admin`);
    const fc = FORMAT_CHECKS[f] || reimportRoundTrip;
    await fc(this, f, r, pos);
    st.checked++;
  }

  /**
   * The check of a position that is not checked in full; `u` is the draw
   * that decides between the /hint play and a random one (play()). The
   * admin's /legal (when a random play may follow: u < the largest pRandom)
   * or /hint (advice for the seat to move) names the seat to move, a
   * person's (bots move inside requests), at the version the last write
   * returned, with plays; or says the game is over. Returns the position as
   * checkPosition does, without `out`, with `legal` or `hint` (play() asks
   * the seat for the other when it needs it).
   */
  async turnCheck(u) {
    const maxP = Math.max(0, ...Object.values(this.spec.pRandom));
    const route = u < maxP ? 'legal' : 'hint';
    const r = await this.c.get(`/games/${this.id}/${route}`, { token: this.admin });
    const what = `GET /${route} as the admin`;
    if (route === 'hint' && r.status === 409 && r.json?.type === '/problems/game-over') return { over: true, version: this.version };
    want(r, 200, `${what} (the seat to move)`);
    check(r.headers.etag === undefined || r.headers.etag === `"${this.version}"`,
      `${what}: ETag ${r.headers.etag}, but the last write returned version ${this.version}`, r);
    const seat = r.json?.seat;
    if (route === 'legal') {
      check(Array.isArray(r.json?.plays) && Object.hasOwn(r.json, 'seat'), `${what}: not {seat, plays}`, r);
      if (seat === null) {
        check(r.json.plays.length === 0, `${what}: plays listed with no seat to move`, r);
        return { over: true, version: this.version };
      }
      check(r.json.plays.length > 0, `${what}: seat ${seat} is to move with no legal plays`, r);
    } else {
      check(Number.isInteger(seat) && r.json.play !== undefined, `${what}: not {seat, play, ...}`, r);
    }
    check(this.persons.some((p) => p.seat === seat),
      `${what}: seat ${seat} is to move, but it is a bot's seat (bots move inside the requests)`, r);
    return route === 'legal'
      ? { over: false, version: this.version, seat, legal: r.json.plays }
      : { over: false, version: this.version, seat, hint: r.json.play };
  }

  /** Record a failure (one of each kind per game) and go on. */
  record(err, where) {
    const detail = err instanceof SoakFailure ? err.detail : { stack: String(err.stack).split('\n').slice(0, 5).join(' | ') };
    const key = `${detail.method} ${String(detail.path).replace(/[A-Za-z0-9_-]{16,}/g, '{id}')} ${detail.status} ${err.message.replace(/\d+/g, 'N')}`;
    const known = this.failures.get(key);
    if (known) { known.repeats++; return; }
    const s = this.spec;
    this.failures.set(key, {
      game: s.game, variant: s.variant, seating: s.seating, nplayers: s.nplayers, seed: s.seed, index: s.index, runSeed: s.runSeed,
      id: this.id, where, personPlays: this.step, message: err.message, detail, repeats: 0,
      create: this.createBody, moves: this.moves.slice(),
    });
  }

  /** The seat to move makes its play: random when u < its pRandom, else its /hint play. */
  async play(pos, u) {
    const usesRandom = u < (this.spec.pRandom[pos.seat] ?? 0);
    const token = this.persons.find((p) => p.seat === pos.seat).token;
    const who = { reader: `seat ${pos.seat}` };
    if (usesRandom && !pos.legal) {
      const l = want(await this.c.get(`/games/${this.id}/legal`, { token }), 200, `GET /legal as seat ${pos.seat}, the seat to move`, who);
      check(l.json?.seat === pos.seat && Array.isArray(l.json.plays) && l.json.plays.length > 0,
        `GET /legal as seat ${pos.seat}: the seat to move has no legal plays`, l, who);
      pos.legal = l.json.plays;
    }
    if (!usesRandom && pos.hint === undefined) {
      const h = want(await this.c.get(`/games/${this.id}/hint`, { token }), 200, `GET /hint as seat ${pos.seat}, the seat to move`, who);
      check(h.json?.seat === pos.seat && h.json.play !== undefined, `GET /hint as seat ${pos.seat}: not {seat, play, ...}`, h, who);
      pos.hint = h.json.play;
    }
    const play = usesRandom ? pick(this.rnd, pos.legal) : pos.hint;
    this.moves.push({ seat: pos.seat, play, how: usesRandom ? 'random' : 'hint' });
    const r = want(await this.c.post(`/games/${this.id}/plays`, { play }, { token, headers: { 'if-match': `"${pos.version}"` } }),
      200, `POST /games/{id}/plays (${usesRandom ? 'a random /legal play' : 'the /hint play'}) as seat ${pos.seat}`);
    check(Number.isInteger(r.json?.version) && r.json.version > pos.version && Array.isArray(r.json.applied)
      && r.json.applied.length >= 1 && r.json.applied[0].seat === pos.seat,
      'POST /games/{id}/plays: the reply has no newer version or does not start with the play', r);
    this.version = r.json.version;
    this.step++;
  }

  async finish(pos) {
    const adm = pos.out.find((o) => o.rd.admin).view;
    const state = adm.json.state;
    check(state.over === true && typeof state.result === 'string' && state.result !== '' && state.result !== 'playing',
      `the finished game's view does not say it is over with a result (over: ${state.over}, result: ${JSON.stringify(state.result)})`, adm);
    this.result = state.result;
    this.totalPlays = pos.out[0].plays.json.plays.length;
    // The whole event list once more, for everyone (once over, every reader
    // sees every card: the events seen along the way may read differently).
    await Promise.all(this.readers.map(async (rd) => {
      const ev = want(await this.c.get(`/games/${this.id}/events`, { token: rd.token }), 200, `GET /events as ${rd.name} at the end`,
        { reader: rd.name });
      check(Array.isArray(ev.json) && ev.json.length > 0 && ev.json.every((x, i, xs) => Number.isInteger(x?.n) && x.n >= 1
        && typeof x.event === 'string' && (i === 0 || x.n > xs[i - 1].n)),
      `GET /events as ${rd.name} at the end: not a list of events numbered in order`, ev, { reader: rd.name });
    }));
  }
}

/**
 * Play one planned game to the end, checking each position as spec.sample
 * says. Resolves to {spec, id, finished, plays, personPlays, result, stats,
 * requests, failures}; a game with failures is kept in the store.
 */
export async function playGame(client, spec, opts) {
  const g = new Game(client, spec, opts);
  const maxSteps = opts.maxSteps ?? 20_000;
  const sample = spec.sample ?? 1;
  let where = 'creating the game';
  let finished = false;
  try {
    await g.create();
    for (;;) {
      // Every check at this position, or the turn check only (sample < 1).
      // u decides the play to come (play()); drawn first, so that the game
      // is the same whatever the checks.
      const deep = sample >= 1 || g.sampleRnd() < sample;
      const u = g.rnd();
      where = `checking the position after ${g.step} person plays`;
      let pos = deep ? await g.checkPosition() : await g.turnCheck(u);
      if (pos.over && !deep) pos = await g.checkPosition(); // the end always gets every check
      if (deep || pos.over) {
        where = `checking the export after ${g.step} person plays`;
        await g.checkExport(pos);
      }
      if (pos.over) {
        where = 'checking the finished game';
        await g.finish(pos);
        break;
      }
      if (g.step >= maxSteps) throw new SoakFailure(`the game did not end within ${maxSteps} person plays`);
      where = `making person play ${g.step + 1}`;
      await g.play(pos, u);
    }
    finished = true;
    if (g.failures.size === 0) {
      where = 'deleting the finished game';
      want(await g.c.del(`/games/${g.id}`, { token: g.admin }), 204, 'DELETE /games/{id} as the admin');
    } // else the stored game is kept, for inspection
  } catch (e) {
    g.record(e, where);
  }
  return {
    spec, id: g.id, finished, plays: finished ? g.totalPlays : 0, personPlays: g.step, result: g.result,
    stats: g.stats, requests: g.requests, failures: [...g.failures.values()],
  };
}

/**
 * Run a plan with `concurrency` games at once. onGame(record) is called as
 * each game ends. Resolves to the totals.
 */
export async function runPlan(client, plan, { concurrency = 4, adminToken, onGame, maxSteps } = {}) {
  const totals = {
    planned: plan.length, finished: 0, plays: 0, personPlays: 0, failures: [], failedGames: 0, byGame: {}, formats: {},
    positionsInFull: 0, validated: 0, reimports: 0,
  };
  let next = 0;
  async function worker() {
    while (next < plan.length) {
      const spec = plan[next++];
      const rec = await playGame(client, spec, { adminToken, maxSteps });
      const bg = (totals.byGame[spec.game] ??= { planned: 0, finished: 0, plays: 0, personPlays: 0, failures: 0, results: {}, seatings: {}, sizes: {}, variants: {} });
      bg.planned++;
      totals.positionsInFull += rec.stats.positions;
      totals.validated += rec.stats.validated;
      totals.reimports += rec.stats.reimports;
      bg.personPlays += rec.personPlays;
      totals.personPlays += rec.personPlays;
      for (const f of rec.failures) totals.failures.push(f);
      if (rec.failures.length) { bg.failures++; totals.failedGames++; }
      if (rec.finished) {
        totals.finished++;
        totals.plays += rec.plays;
        bg.finished++;
        bg.plays += rec.plays;
        bg.results[rec.result] = (bg.results[rec.result] || 0) + 1;
        bg.seatings[spec.seating] = (bg.seatings[spec.seating] || 0) + 1;
        bg.sizes[spec.nplayers] = (bg.sizes[spec.nplayers] || 0) + 1;
        bg.variants[spec.variant] = (bg.variants[spec.variant] || 0) + 1;
      }
      for (const [f, s] of Object.entries(rec.stats.formats)) {
        const t = ((totals.formats[spec.game] ??= {})[f] ??= { checked: 0, refused: 0 });
        t.checked += s.checked;
        t.refused += s.refused;
      }
      onGame?.(rec, totals);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, plan.length) }, worker));
  return totals;
}

/** Failures grouped by what went wrong (route, status, message shape), first example of each. */
export function groupFailures(failures) {
  const groups = new Map();
  for (const f of failures) {
    const key = `${f.game} | ${f.detail?.method || ''} ${String(f.detail?.path || '').replace(/[A-Za-z0-9_-]{16,}/g, '{id}')} -> ${f.detail?.status ?? ''} | ${f.message.replace(/\d+/g, 'N').slice(0, 160)}`;
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { key, count: 1, first: f });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/** A readable report of one failure: enough to reproduce it with curl. */
export function describeFailure(f) {
  const d = f.detail || {};
  const lines = [
    `${f.game}/${f.variant}, ${f.nplayers} seats, ${f.seating} seating, seed ${f.seed} (plan index ${f.index}), game ${f.id ?? '(not created)'}: ${f.message}`
      + (f.repeats ? ` (and ${f.repeats} more times in this game)` : ''),
    `  while ${f.where}`,
  ];
  if (d.method) lines.push(`  request: ${d.method} ${d.path}${d.reader ? ` as ${d.reader}` : ''}${d.request ? ` body ${d.request}` : ''}`);
  if (d.status !== undefined) lines.push(`  response: ${d.status} ${d.response ?? ''}`);
  for (const [k, v] of Object.entries(d)) {
    if (!['method', 'path', 'status', 'request', 'response', 'reader'].includes(k)) lines.push(`  ${k}: ${excerpt(v, 400)}`);
  }
  lines.push(`  reproduce: POST /games ${JSON.stringify(f.create)}`);
  lines.push(`  or replay this game alone, every check at every play: node tests/soak/cli.mjs --game ${f.game} --first ${f.index} --games 1 --seed ${f.runSeed}`);
  lines.push(`  then the people's plays, in order (${f.moves.length}): ${excerpt(f.moves.map((m) => [m.seat, m.play]), 1500)}`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------
// Export formats besides json. A format with no entry here must re-import:
// reimportRoundTrip. The table holds the formats that need more (or other)
// than that; keep it small.

/**
 * A saved game that POST /games/import reads back (with the export's media
 * type). The copy must export to the same text when no bot moved during the
 * import (a save names who moves next; if a bot does, the copy has moved on).
 */
async function reimportRoundTrip(g, f, r) {
  const mt = (r.headers['content-type'] || '').split(';')[0].trim();
  // A text save is sent with X-Croupier-Import: text (openapi.yaml: a form
  // on another site can post text/plain, but cannot send that header).
  const imp = await g.c.request('POST', '/games/import', {
    body: r.text, contentType: mt, headers: /json/i.test(mt) ? {} : { 'x-croupier-import': 'text' },
  });
  want(imp, 201, `POST /games/import of the ${f} export (${mt})`, { request: excerpt(r.text, 400) });
  try {
    if (imp.json.applied?.length === 0) {
      const again = want(await g.c.get(`/games/${imp.json.id}/export?format=${encodeURIComponent(f)}`, { token: g.admin }), 200,
        `GET /export?format=${f} of the re-imported ${f} save`);
      check(again.text === r.text, `the ${f} save does not survive import + export: it differs at character ${firstDiff(r.text, again.text)}`,
        again, { original: excerpt(r.text, 500) });
    } else {
      want(await g.c.get(`/games/${imp.json.id}`), 200, `GET /games/{id} of the re-imported ${f} save`);
    }
  } finally {
    want(await g.c.del(`/games/${imp.json.id}`, { token: g.admin }), 204, `DELETE the re-imported ${f} save`);
  }
}

function firstDiff(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `${i}: ${JSON.stringify(a.slice(i, i + 40))} vs ${JSON.stringify(b.slice(i, i + 40))}`;
}

// hanab.live's JSON game format has no importer here: the check replays it by
// hanab.live's rules (https://github.com/Hanabi-Live/hanabi-live, the "JSON
// game" format: players, deck, actions {type 0 play, 1 discard, 2 colour
// clue, 3 rank clue, 4 end game; target; value}, options.variant) and
// compares the replay with the game. The replay knows hanab.live's rules, not
// Croupier's: hand size 5 for 2-3 players and 4 for 4-5, 8 clue tokens, 3
// strikes; a clue must touch a card; no discard at 8 clues; a played 5 gives
// a clue back; the game ends at 3 strikes, at the maximum score, or once every
// player has had one more turn after the last card was drawn.
const HANABLIVE_VARIANTS = {
  'No Variant': { suits: 5, rainbow: -1 },
  'Rainbow (6 Suits)': { suits: 6, rainbow: 5 },
};
const HANABLIVE_MEMBERS = ['id', 'players', 'deck', 'actions', 'options', 'notes', 'characters', 'seed'];
const PLAIN_HEADERS = ['content-type', 'content-length', 'content-disposition', 'x-content-type-options', 'connection',
  'keep-alive', 'date', 'etag', 'cache-control', 'transfer-encoding', 'server', 'vary'];

export function replayHanabLive(hl) {
  const fail = (msg) => ({ error: msg });
  if (!hl || !Array.isArray(hl.players) || !Array.isArray(hl.deck) || !Array.isArray(hl.actions)) return fail('players, deck and actions are required');
  const variant = hl.options?.variant ?? 'No Variant';
  const V = HANABLIVE_VARIANTS[variant];
  if (!V) return fail(`unknown variant ${JSON.stringify(variant)}`);
  const np = hl.players.length;
  if (np < 2 || np > 6) return fail(`${np} players`);
  const per = [3, 2, 2, 2, 1];
  const count = {};
  for (const [i, c] of hl.deck.entries()) {
    if (!Number.isInteger(c?.suitIndex) || c.suitIndex < 0 || c.suitIndex >= V.suits || !Number.isInteger(c.rank) || c.rank < 1 || c.rank > 5) return fail(`deck[${i}] is not a card of ${variant}: ${JSON.stringify(c)}`);
    const k = `${c.suitIndex}/${c.rank}`;
    count[k] = (count[k] || 0) + 1;
  }
  for (let s = 0; s < V.suits; s++) for (let r = 1; r <= 5; r++) {
    if ((count[`${s}/${r}`] || 0) !== per[r - 1]) return fail(`the deck holds ${count[`${s}/${r}`] || 0} of suit ${s} rank ${r}, not ${per[r - 1]}`);
  }
  const hs = np <= 3 ? 5 : 4;
  const hands = [];
  let next = 0;
  for (let p = 0; p < np; p++) { hands.push([]); for (let k = 0; k < hs; k++) hands[p].push(next++); }
  const stacks = Array(V.suits).fill(0);
  let clues = 8, strikes = 0, turnsLeft = null, over = false, endedAt = null;
  const score = () => stacks.reduce((a, b) => a + b, 0);
  const touches = (card, type, value) => (type === 3 ? card.rank === value : card.suitIndex === value || card.suitIndex === V.rainbow);
  for (const [i, a] of hl.actions.entries()) {
    const p = i % np;
    if (over) return { ...fail(`action ${i} comes after the game ended (at action ${endedAt})`), endedAt };
    if (a.type === 4) { over = true; endedAt = i; continue; }
    if (a.type === 0 || a.type === 1) {
      const at = hands[p].indexOf(a.target);
      if (at < 0) return fail(`action ${i}: player ${p} does not hold card ${a.target}`);
      hands[p].splice(at, 1);
      const card = hl.deck[a.target];
      if (a.type === 1) {
        if (clues === 8) return fail(`action ${i}: a discard at 8 clues`);
        clues++;
      } else if (stacks[card.suitIndex] + 1 === card.rank) {
        stacks[card.suitIndex]++;
        if (card.rank === 5 && clues < 8) clues++;
      } else {
        strikes++;
      }
      if (next < hl.deck.length) {
        hands[p].push(next++);
        if (next === hl.deck.length) turnsLeft = np + 1;
      }
    } else if (a.type === 2 || a.type === 3) {
      if (!Number.isInteger(a.target) || a.target < 0 || a.target >= np || a.target === p) return fail(`action ${i}: player ${p} clues player ${a.target}`);
      if (clues === 0) return fail(`action ${i}: a clue with no clue tokens`);
      if (a.type === 2 && (!Number.isInteger(a.value) || a.value < 0 || a.value >= V.suits || a.value === V.rainbow)) return fail(`action ${i}: colour ${a.value} cannot be clued in ${variant}`);
      if (!hands[a.target].some((o) => touches(hl.deck[o], a.type, a.value))) return fail(`action ${i}: the clue touches no card of player ${a.target}`);
      clues--;
    } else {
      return fail(`action ${i}: unknown type ${a.type}`);
    }
    if (turnsLeft !== null) turnsLeft--;
    if (strikes >= 3 || score() === 5 * V.suits || turnsLeft === 0) { over = true; endedAt = i; }
  }
  return { score: score(), over, strikes, actions: hl.actions.length };
}

async function checkHanabLive(g, f, r, pos) {
  const hl = r.json;
  check(hl !== undefined, `GET /export?format=${f}: not JSON`, r);
  const rep = replayHanabLive(hl);
  check(!rep.error, `the ${f} export does not replay by hanab.live's rules: ${rep.error}`, r);
  check(hl.players.length === g.spec.nplayers, `the ${f} export lists ${hl.players.length} players, the game has ${g.spec.nplayers}`, r);
  const history = pos.out[0].plays.json.plays.length;
  const view = pos.out.find((o) => o.rd.admin).view.json.state;
  // A game played under another end rule than hanab.live's may export only
  // what hanab.live can replay, saying so with a member or header of its own.
  const declared = [...Object.keys(hl).filter((k) => !HANABLIVE_MEMBERS.includes(k)),
    ...Object.keys(r.headers).filter((h) => !PLAIN_HEADERS.includes(h))];
  const same = rep.actions === history && rep.over === pos.over && (!pos.over || rep.score === view.score);
  check(same || declared.length > 0,
    `the ${f} export does not match the game and says nothing of it: ${rep.actions} actions for ${history} plays, `
    + `replay ${rep.over ? `over with score ${rep.score}` : 'not over'}, game ${pos.over ? `over with score ${view.score}` : 'not over'}`, r);
  if (!same) check(rep.actions <= history && rep.score <= (view.score ?? Infinity),
    `the ${f} export (declared different: ${declared.join(', ')}) holds more than the game: ${rep.actions} actions for ${history} plays, score ${rep.score} vs ${view.score}`, r);
}

export const FORMAT_CHECKS = {
  hanablive: checkHanabLive,
  // fivecrowns-text: no entry, it re-imports (reimportRoundTrip).
};
