// The stored game is its origin and its play log; the snapshot beside them is
// only a cache (docs/store.md). Checked here on the store of the run (a fresh
// SQLite file, or CROUPIER_TEST_STORE), partly through the database itself:
//   - a snapshot that is missing, random, damaged, truncated, stale or another game's
//     is rebuilt from origin + plays: every view and the history are the
//     same, the game plays on exactly as its untouched twin, and the next
//     read or play writes a good snapshot again;
//   - /plays and /events page with after/limit and Link: rel="next";
//   - GET /games/{id}?at=N replays the game to play N as each reader saw it
//     then (everyone sees everything once the game is over);
//   - a write that fails appends nothing and changes no version.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ROOT } from './lib/contract.mjs';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';
import { assertEvery } from './lib/expect.mjs';

const srv = useServer();
const MAGIC_HEX = Buffer.from('CROUPIER-SNAP').toString('hex').toUpperCase();

// --- the raw database of the server's store ---------------------------------

const hasTool = (cmd) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const STORE = process.env.CROUPIER_TEST_STORE || 'sqlite:';
const IS_PG = /^postgres(ql)?:\/\//.test(STORE);
const DB_TOOL = IS_PG ? 'psql' : 'sqlite3';
const noDb = !hasTool(DB_TOOL) && `the ${DB_TOOL} command-line tool is missing`;

/** Run a command-line client with the SQL on its standard input (a statement may be long). */
function run(cmd, args, sql) {
  const r = spawnSync(cmd, args, { input: sql, encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `${sql.slice(0, 300)}: ${cmd} exited ${r.status}: ${r.error || ''} ${r.stderr}`);
  return r.stdout;
}

/** rows(sql) -> objects; exec(sql); SQL spellings that differ between the two. */
function db() {
  const url = srv.storeUrl;
  if (/^postgres(ql)?:\/\//.test(url)) {
    const psql = (sql) => run('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', '-'], `${sql};`);
    return {
      rows: (sql) => JSON.parse(psql(`SELECT coalesce(json_agg(t), '[]'::json) FROM (${sql}) t`).trim()),
      exec: (sql) => { psql(sql); },
      head: "upper(encode(substring(snap FROM 1 FOR 13), 'hex'))",
      hex: "encode(snap, 'hex')",
      bytes: (buf) => `decode('${buf.toString('hex')}', 'hex')`,
      half: 'substring(snap FROM 1 FOR length(snap) / 2)',
    };
  }
  assert.match(url, /^sqlite:/, `a SQLite or PostgreSQL store: ${url}`);
  const file = path.resolve(ROOT, url.slice('sqlite:'.length)); // the server runs in ROOT
  const sqlite = (sql, json) => run('sqlite3', [...(json ? ['-json'] : []), '-bail', '-cmd', '.timeout 5000', file], `${sql};`);
  return {
    rows: (sql) => { const out = sqlite(sql, true).trim(); return out ? JSON.parse(out) : []; },
    exec: (sql) => { sqlite(sql, false); },
    head: 'hex(substr(snap, 1, 13))',
    hex: 'hex(snap)',
    bytes: (buf) => `X'${buf.toString('hex')}'`,
    half: 'substr(snap, 1, length(snap) / 2)',
  };
}

const q = (id) => `'${id.replace(/'/g, "''")}'`;

function snapRow(d, id) {
  const [r] = d.rows(`SELECT version, snap_version, length(snap) AS len, ${d.head} AS head FROM games WHERE id = ${q(id)}`);
  assert.ok(r, `games row ${id}`);
  return { version: Number(r.version), snapVersion: r.snap_version === null ? null : Number(r.snap_version), len: r.len === null ? null : Number(r.len), head: r.head };
}

function assertGoodSnap(d, id, what) {
  const s = snapRow(d, id);
  assert.equal(s.head, MAGIC_HEX, `${what}: the snapshot starts with CROUPIER-SNAP again`);
  assert.equal(s.snapVersion, s.version, `${what}: the snapshot is of the game's version`);
}

const countPlays = (d, id) => Number(d.rows(`SELECT count(*) AS k FROM plays WHERE game_id = ${q(id)}`)[0].k);

// --- games ------------------------------------------------------------------

async function create(game, players, seed, options) {
  const body = { game, seed, players: players.map((p) => (p.startsWith('bot:') ? { bot: p.slice(4) } : { name: p })) };
  if (options) body.options = options;
  const r = await srv.post('/games', body);
  expectStatus(r, 201, `POST /games ${game}`);
  return r.json;
}

const tokenOf = (g, seat) => g.seats.find((s) => s.seat === seat)?.token;

/** The person whose turn it is: {token, version}, or null when the game is over. */
async function turn(g) {
  const v = await srv.get(`/games/${g.id}`, { token: srv.adminToken });
  expectStatus(v, 200);
  if (v.json.state.over) return null;
  const token = tokenOf(g, v.json.state.current);
  assert.ok(token, `seat ${v.json.state.current} to play is a person's`);
  return { token, version: v.json.version };
}

/** The play GET /hint recommends to the person whose turn it is (null: over). */
async function hinted(g) {
  const t = await turn(g);
  if (!t) return null;
  const h = await srv.get(`/games/${g.id}/hint`, { token: t.token });
  expectStatus(h, 200, 'hint');
  return { ...t, play: h.json.play };
}

async function post(g, token, play, what = '') {
  const r = await srv.post(`/games/${g.id}/plays`, { play }, { token });
  expectStatus(r, 200, `${what} POST ${JSON.stringify(play)}`);
  return r.json;
}

/** k POSTs, each the hinted play of the person whose turn it is. */
async function playHints(g, k) {
  for (let i = 0; i < k; i++) {
    const h = await hinted(g);
    if (!h) return;
    await post(g, h.token, h.play);
  }
}

/** Every reader's answers about a game (the id left out: twins have two). */
async function answers(g) {
  const out = {};
  const rd = { admin: srv.adminToken, none: null };
  for (const s of g.seats) if (s.token) rd[`seat${s.seat}`] = s.token;
  for (const [who, token] of Object.entries(rd)) {
    for (const p of ['', '/plays', '/events', '/legal']) {
      const r = await srv.get(`/games/${g.id}${p}`, { token });
      expectStatus(r, 200, `${who} GET ${p || '/games/{id}'}`);
      const { id, ...rest } = Array.isArray(r.json) ? { list: r.json } : r.json;
      if (p === '') assert.equal(id, g.id);
      out[`${who} ${p || 'game'}`] = rest;
    }
  }
  return out;
}

// --- a. the snapshot is a cache ---------------------------------------------

// One way at a time of damaging game A's snapshot (B: another game of the
// same type at the same version).
const DAMAGE = [
  ['snap set to NULL', (d, a) => d.exec(`UPDATE games SET snap = NULL WHERE id = ${q(a)}`)],
  ['snap replaced by random bytes of the same length', (d, a) => {
    const { len } = snapRow(d, a);
    assert.ok(len > 13, `a snapshot to damage (length ${len})`);
    d.exec(`UPDATE games SET snap = ${d.bytes(randomBytes(len))} WHERE id = ${q(a)}`);
  }],
  ['one byte in the middle of snap flipped', (d, a) => {
    const buf = Buffer.from(d.rows(`SELECT ${d.hex} AS h FROM games WHERE id = ${q(a)}`)[0].h, 'hex');
    assert.ok(buf.length > 13, `a snapshot to damage (length ${buf.length})`);
    buf[buf.length >> 1] ^= 0x5a;
    d.exec(`UPDATE games SET snap = ${d.bytes(buf)} WHERE id = ${q(a)}`);
  }],
  ['snap truncated to half its length', (d, a) => d.exec(`UPDATE games SET snap = ${d.half} WHERE id = ${q(a)}`)],
  ['snap_version set to version - 1 (stale)', (d, a) => d.exec(`UPDATE games SET snap_version = version - 1 WHERE id = ${q(a)}`)],
  ['snap copied from another game of the same type and version', (d, a, b) => {
    assert.equal(snapRow(d, a).version, snapRow(d, b).version, 'the other game is at the same version');
    d.exec(`UPDATE games SET snap = (SELECT snap FROM games WHERE id = ${q(b)}) WHERE id = ${q(a)}`);
  }],
];

for (const [game, players] of [
  ['phazed', ['Ann', 'bot:planner', 'bot:random', 'bot:planner']],
  ['fivecrowns', ['Ann', 'bot:strategy', 'bot:random']],
  ['hanabi', ['Ann', 'bot:rules', 'bot:rules']], // (a random bot ends a Hanabi game early, by three errors)
]) {
  test(`${game}: a missing, damaged, stale or foreign snapshot is rebuilt from origin + plays; views, history and play go on unchanged`,
    { skip: noDb, timeout: 120_000 }, async () => {
      const d = db();
      // A and its twin (same seed, same plays: the same game), and B, another
      // game of the same type kept at A's version.
      const a = await create(game, players, 301);
      const twin = await create(game, players, 301);
      const b = await create(game, players, 302);
      for (const g of [a, twin, b]) await playHints(g, 4);
      let want = await answers(twin);
      assert.deepEqual(await answers(a), want, 'A and its twin answer alike');
      assertGoodSnap(d, a.id, 'after the plays');
      const origin = d.rows(`SELECT origin FROM games WHERE id = ${q(a.id)}`)[0].origin;
      for (const [how, damage] of DAMAGE) {
        // Each read on its own damaged snapshot.
        for (const key of Object.keys(want)) {
          damage(d, a.id, b.id);
          const [who, p] = key.split(' ');
          const token = who === 'admin' ? srv.adminToken : who === 'none' ? null : tokenOf(a, Number(who.slice(4)));
          const r = await srv.get(`/games/${a.id}${p === 'game' ? '' : p}`, { token });
          expectStatus(r, 200, `${how}: ${key}`);
          const { id, ...rest } = Array.isArray(r.json) ? { list: r.json } : r.json;
          assert.deepEqual(rest, want[key], `${how}: ${key} as before`);
        }
        assertGoodSnap(d, a.id, `${how}, after a read`);
        // The hint, then a play, each on a damaged snapshot: A plays on
        // exactly as its twin (the one person, seat 0, is always to play
        // between requests: the bots move inside them).
        damage(d, a.id, b.id);
        const ha = await srv.get(`/games/${a.id}/hint`, { token: tokenOf(a, 0) });
        const ht = await srv.get(`/games/${twin.id}/hint`, { token: tokenOf(twin, 0) });
        expectStatus(ha, 200, `${how}: hint`);
        assert.deepEqual(ha.json, ht.json, `${how}: the same hint`);
        damage(d, a.id, b.id);
        const ra = await post(a, tokenOf(a, 0), ha.json.play, how);
        const rt = await post(twin, tokenOf(twin, 0), ht.json.play, how);
        assert.deepEqual(ra, rt, `${how}: the play and the bots' replies as on the twin`);
        assertGoodSnap(d, a.id, `${how}, after a play`);
        await playHints(b, 1);
        assert.equal(snapRow(d, b.id).version, snapRow(d, a.id).version, 'B still at the version of A (not over)');
        want = await answers(twin);
        assert.deepEqual(await answers(a), want, `${how}: A and its twin answer alike after the play`);
      }
      assert.equal(d.rows(`SELECT origin FROM games WHERE id = ${q(a.id)}`)[0].origin, origin, 'the origin is never rewritten');
    });
}

// The log replays the game (docs/store.md): a rebuild applies each logged
// play, a bot's as logged, and asks no bot again; the bots' chance is drawn
// from the game's key and play number, not kept in the state. So a build
// whose bots would choose otherwise rebuilds the same game, and its bots
// play on as they would have: here the log names, for each bot play, the
// other strategy (random <-> the other bot, which choose otherwise), the
// snapshot is dropped, and the game still answers and plays on exactly as
// its twin. (A replay that asked the named bot and kept a generator in the
// state would leave the random bot's generator behind, and its next plays
// would differ from the twin's.)
for (const [game, players, other] of [
  ['fivecrowns', ['Ann', 'bot:strategy', 'bot:random'], 'strategy'],
  ['phazed', ['Ann', 'bot:planner', 'bot:random', 'bot:planner'], 'planner'],
]) {
  test(`${game}: a rebuild applies the logged bot plays as logged, whatever strategy the log names; the game plays on as its twin`,
    { skip: noDb, timeout: 120_000 }, async () => {
      const d = db();
      const a = await create(game, players, 311);
      const twin = await create(game, players, 311);
      for (const g of [a, twin]) await playHints(g, 3);
      const bots = Number(d.rows(`SELECT count(*) AS k FROM plays WHERE game_id = ${q(a.id)} AND kind = 1`)[0].k);
      assert.ok(bots > 0, 'the bots played');
      d.exec(`UPDATE plays SET bot = CASE bot WHEN 'random' THEN '${other}' ELSE 'random' END WHERE game_id = ${q(a.id)} AND kind = 1`);
      for (let step = 0; step < 4; step++) {
        d.exec(`UPDATE games SET snap = NULL WHERE id = ${q(a.id)}`);
        const [va, vt] = [await srv.get(`/games/${a.id}`, { token: srv.adminToken }), await srv.get(`/games/${twin.id}`, { token: srv.adminToken })];
        expectStatus(va, 200, `step ${step}: GET A`);
        assert.deepEqual(va.json.state, vt.json.state, `step ${step}: the rebuilt game is its twin's`);
        assert.equal(va.json.version, vt.json.version);
        if (va.json.state.over) break;
        d.exec(`UPDATE games SET snap = NULL WHERE id = ${q(a.id)}`);
        const [ha, ht] = [await hinted(a), await hinted(twin)];
        assert.deepEqual(ha.play, ht.play, `step ${step}: the same hint`);
        d.exec(`UPDATE games SET snap = NULL WHERE id = ${q(a.id)}`);
        const [ra, rt] = [await post(a, ha.token, ha.play, `step ${step}`), await post(twin, ht.token, ht.play, `step ${step}`)];
        assert.deepEqual(ra, rt, `step ${step}: the play and the bots' replies as on the twin`);
      }
    });
}

// --- b. paging ----------------------------------------------------------------

const linkNext = (r) => {
  const link = r.headers.get('link');
  if (!link) return null;
  const m = /^<([^>]+)>;\s*rel="next"$/.exec(link);
  assert.ok(m, `Link: ${link}`);
  return m[1];
};

/** Walk a list page by page from `first`, following Link rel="next". */
async function walk(first, token, limit, pick, kind, id) {
  const got = [];
  let url = first;
  let pages = 0;
  for (;;) {
    const r = await srv.get(url, { token });
    expectStatus(r, 200, url);
    const page = pick(r.json);
    assert.ok(page.length <= limit, `${url}: at most ${limit}`);
    got.push(...page);
    const next = linkNext(r);
    if (!next) break;
    assert.equal(page.length, limit, `${url}: a page with a next one is full`);
    assert.equal(next, `/games/${id}/${kind}?after=${page.at(-1).n}&limit=${limit}`, `${url}: the next page's link`);
    url = next;
    assert.ok(++pages < 2000, 'ends');
  }
  return got;
}

test('paging: /plays and /events with after & limit, page by page along Link rel="next", give the whole list', { timeout: 120_000 }, async () => {
  const done = await create('hanabi', ['bot:rules', 'bot:random', 'bot:rules'], 311);
  assert.equal(done.state.over, true);
  const live = await create('phazed', ['Ann', 'bot:planner', 'bot:random', 'bot:planner'], 312);
  await playHints(live, 6);
  for (const [g, readers] of [[done, { admin: srv.adminToken, none: null }],
    [live, { admin: srv.adminToken, none: null, seat0: tokenOf(live, 0) }]]) {
    for (const [who, token] of Object.entries(readers)) {
      for (const [kind, pick] of [['plays', (j) => j.plays], ['events', (j) => j]]) {
        const base = `/games/${g.id}/${kind}`;
        const all = await srv.get(base, { token });
        expectStatus(all, 200);
        assert.equal(all.headers.get('link'), null, `${base}: no Link without limit`);
        const full = pick(all.json);
        assert.ok(full.length > 8, `${who} ${kind}: a history to page (${full.length})`);
        const what = `${g.game} ${who} ${kind}`;
        for (const limit of new Set([1, 2, 7, full.length - 1, full.length, 1000])) {
          assert.deepEqual(await walk(`${base}?limit=${limit}`, token, limit, pick, kind, g.id), full, `${what}, limit ${limit}`);
        }
        // From the middle: after alone, after with limit.
        const mid = full[Math.floor(full.length / 2)].n;
        const tail = full.filter((x) => x.n > mid);
        assert.deepEqual(pick((await srv.get(`${base}?after=${mid}`, { token })).json), tail, `${what}, after ${mid}`);
        assert.deepEqual(await walk(`${base}?after=${mid}&limit=3`, token, 3, pick, kind, g.id), tail, `${what}, after ${mid} limit 3`);
        const end = await srv.get(`${base}?after=${full.at(-1).n}&limit=5`, { token });
        expectStatus(end, 200);
        assert.deepEqual(pick(end.json), [], `${what}: nothing after the last`);
        assert.equal(end.headers.get('link'), null, `${what}: no next page after the last`);
        if (kind === 'plays') {
          assert.deepEqual(pick((await srv.get(`${base}?after=-1`, { token })).json), full, `${what}: after=-1 is everything`);
          assert.deepEqual(pick((await srv.get(`${base}?after=-1&limit=1000`, { token })).json), full);
        }
      }
    }
  }
  // Bad values: 400 invalid-parameter naming the parameter.
  const bad = [
    ['plays', 'after=-2', 'after'], ['plays', 'after=x', 'after'], ['plays', 'after=1.5', 'after'],
    ['plays', 'limit=0', 'limit'], ['plays', 'limit=1001', 'limit'], ['plays', 'limit=-1', 'limit'],
    ['plays', 'limit=x', 'limit'], ['plays', 'limit=2.5', 'limit'], ['plays', 'after=3&limit=0', 'limit'],
    ['events', 'limit=0', 'limit'], ['events', 'limit=1001', 'limit'], ['events', 'limit=x', 'limit'],
    ['events', 'after=x', 'after'], ['events', 'after=2&limit=-5', 'limit'],
  ];
  for (const [kind, query, name] of bad) {
    const r = await srv.get(`/games/${done.id}/${kind}?${query}`);
    const p = expectProblem(r, 400, 'invalid-parameter', `${kind}?${query}`);
    assert.match(p.detail, new RegExp(`\\b${name}\\b`), `${kind}?${query}: the detail names ${name}: ${p.detail}`);
  }
});

// --- c. replay: ?at=N ---------------------------------------------------------

const handCards = (state) => state.hands.flat().map((c) => c.card);

test('?at=N: during a whole game each reader gets back what they saw just after play N; once over, everyone sees every card', { timeout: 300_000 }, async () => {
  // Two persons and a bot; a seed where a person moves first, so that the
  // position before any play is one the readers saw.
  let g;
  for (let seed = 321; !g; seed++) {
    const c = await create('hanabi', ['Ann', 'Bob', 'bot:rules'], seed);
    if (c.applied.length === 0) g = c;
    assert.ok(seed < 360, 'a seed where a person starts');
  }
  const readers = { seat0: tokenOf(g, 0), seat1: tokenOf(g, 1), none: null, admin: srv.adminToken };
  const seen = new Map(); // n of the last applied play -> reader -> GET /games/{id} body
  const look = async () => {
    const v = {};
    for (const [who, token] of Object.entries(readers)) {
      const r = await srv.get(`/games/${g.id}`, { token });
      expectStatus(r, 200);
      v[who] = r.json;
    }
    return v;
  };
  const at = async (n, who) => srv.get(`/games/${g.id}?at=${n}`, { token: readers[who] });
  /** Every remembered N answers, to every reader, what that reader saw then (the rest as now). */
  const checkSeen = async () => {
    const now = await look();
    for (const [n, views] of seen) {
      for (const who of Object.keys(readers)) {
        const r = await at(n, who);
        expectStatus(r, 200, `at=${n} ${who}`);
        assert.equal(r.json.at, n, `at=${n} ${who}: "at"`);
        assert.deepEqual(r.json.state, views[who].state, `at=${n} ${who}: the view ${who} had just after play ${n}`);
        // `status` is where the game stood at N, as the state is (status.test.mjs)
        const { at: _at, state: _s, status: _st, ...rest } = r.json;
        const { state: _s2, status: _st2, ...restNow } = now[who];
        assert.deepEqual(rest, restNow, `at=${n} ${who}: the rest of the body as GET /games/{id}`);
        if (who === 'seat0' || who === 'seat1') {
          const mine = r.json.state.hands[Number(who.slice(4))].map((c) => c.card);
          assertEvery(mine, (c) => c === '??', `at=${n} ${who}: never their own cards while the game runs`);
        }
      }
    }
  };
  seen.set(-1, await look());
  let posts = 0;
  for (;;) {
    const h = await hinted(g);
    if (!h) break;
    const r = await post(g, h.token, h.play);
    const views = await look();
    seen.set(r.applied.at(-1).n, views);
    if (views.admin.state.over) break;
    if (++posts % 12 === 0) await checkSeen();
  }
  const over = await look();
  assert.equal(over.admin.state.over, true, 'played to the end');
  const hist = (await srv.get(`/games/${g.id}/plays`, { token: srv.adminToken })).json.plays;
  const first = hist[0].n;
  const last = hist.at(-1).n;
  assert.equal(Math.max(...seen.keys()), last);

  // Over: at every N (every play, not only those after a POST) every reader
  // sees what the admin sees at N, every hand card included; the admin's
  // view at a remembered N is the one it had then.
  const norm = ({ seat, seed, ...rest }) => rest;
  for (let n = -1; n <= last; n++) {
    const adm = await at(n, 'admin');
    expectStatus(adm, 200, `at=${n} admin`);
    if (seen.has(n)) assert.deepEqual(adm.json.state, seen.get(n).admin.state, `over, at=${n}: the admin's view as then`);
    assertEvery(handCards(adm.json.state), (c) => c !== '??', `over, at=${n}: the admin sees every hand card`);
    for (const who of ['seat0', 'seat1', 'none']) {
      const r = await at(n, who);
      expectStatus(r, 200, `over, at=${n} ${who}`);
      assert.equal(r.json.at, n);
      assert.equal(r.json.state.seat, who === 'none' ? null : Number(who.slice(4)), `over, at=${n} ${who}: still the caller's view ("seat")`);
      assert.deepEqual(norm(r.json.state), norm(adm.json.state), `over, at=${n}: ${who} sees what the admin sees`);
    }
  }
  for (const who of Object.keys(readers)) {
    const r = await at(last, who);
    assert.deepEqual(r.json.state, over[who].state, `at=${last} (the last play) ${who}: the game as it is`);
    // The start: at=-1 and anything below the first play's number.
    for (const n of new Set([-1, first - 1])) {
      const s = await at(n, who);
      expectStatus(s, 200);
      assert.equal(s.json.at, n);
      if (who === 'admin') assert.deepEqual(s.json.state, seen.get(-1).admin.state, `at=${n}: the start`);
      else assert.deepEqual(norm(s.json.state), norm((await at(-1, 'admin')).json.state), `over, at=${n} ${who}: the start, every card`);
    }
  }
  for (const bad of [last + 1, last + 1000, 'x', '1.5']) {
    const p = expectProblem(await at(bad, 'none'), 400, 'invalid-parameter', `at=${bad}`);
    assert.match(p.detail, /\bat\b/, `at=${bad}: the detail names at: ${p.detail}`);
  }
});

test('?at=N while the game runs: a person never sees their own cards, a spectator no hand; beyond the last play is a 400', async () => {
  const g = await create('hanabi', ['Ann', 'Bob', 'bot:rules'], 331);
  await playHints(g, 5);
  const hist = (await srv.get(`/games/${g.id}/plays`, { token: srv.adminToken })).json.plays;
  const last = hist.at(-1).n;
  for (let n = -1; n <= last; n++) {
    const adm = (await srv.get(`/games/${g.id}?at=${n}`, { token: srv.adminToken })).json.state;
    for (const seat of [0, 1]) {
      const r = await srv.get(`/games/${g.id}?at=${n}`, { token: tokenOf(g, seat) });
      expectStatus(r, 200);
      assertEvery(r.json.state.hands[seat], (c) => c.card === '??', `at=${n}: seat ${seat}'s own cards hidden`);
      assert.deepEqual(r.json.state.hands[1 - seat], adm.hands[1 - seat], `at=${n}: seat ${seat} sees the other person's hand`);
      for (const c of adm.hands[seat]) {
        // a card of its own that is nowhere else in the admin's view must not appear in its text
        const { hands, deck_order: _d, ...restAdm } = adm;
        const elsewhere = JSON.stringify([hands.filter((_, i) => i !== seat), restAdm]).includes(`"${c.card}"`);
        if (!elsewhere) assert.ok(!r.text.includes(`"${c.card}"`), `at=${n}: seat ${seat}'s ${c.card} not in its text`);
      }
    }
    const s = await srv.get(`/games/${g.id}?at=${n}`);
    expectStatus(s, 200);
    assertEvery(handCards(s.json.state), (c) => c === '??', `at=${n}: a spectator sees no hand card`);
    assert.doesNotMatch(s.text, /deck_order/);
  }
  expectProblem(await srv.get(`/games/${g.id}?at=${last + 1}`, { token: tokenOf(g, 0) }), 400, 'invalid-parameter');
});

test('?at=N on an imported game: from the imported position on; before it a 400 naming at; the history keeps its explanations', async () => {
  const src = await create('hanabi', ['Ann', 'bot:rules', 'bot:rules'], 351);
  await playHints(src, 4);
  const srcPlays = (await srv.get(`/games/${src.id}/plays`, { token: srv.adminToken })).json.plays;
  const start = srcPlays.at(-1).n;
  assert.ok(srcPlays.some((p) => p.explanation), 'bots explained their plays');
  const exp = await srv.get(`/games/${src.id}/export?format=json`, { token: srv.adminToken });
  expectStatus(exp, 200);
  const imp = await srv.post('/games/import', exp.json);
  expectStatus(imp, 201, 'import');
  const g = imp.json;
  assert.deepEqual((await srv.get(`/games/${g.id}/plays`, { token: srv.adminToken })).json.plays, srcPlays,
    'the imported history, explanations included');
  const rd = { seat0: tokenOf(g, 0), none: null, admin: srv.adminToken };
  const then = {};
  for (const [who, token] of Object.entries(rd)) {
    const now = await srv.get(`/games/${g.id}`, { token });
    const r = await srv.get(`/games/${g.id}?at=${start}`, { token });
    expectStatus(r, 200, `${who} at=${start}`);
    assert.equal(r.json.at, start);
    assert.deepEqual(r.json.state, now.json.state, `${who} at=${start}: the imported position`);
    then[who] = now.json.state;
    for (const n of new Set([start - 1, 0, -1])) {
      const p = expectProblem(await srv.get(`/games/${g.id}?at=${n}`, { token }), 400, 'invalid-parameter', `${who} at=${n}`);
      assert.match(p.detail, /\bat\b/, `at=${n}: the detail names at: ${p.detail}`);
    }
  }
  await playHints(g, 3);
  const last = (await srv.get(`/games/${g.id}/plays`, { token: srv.adminToken })).json.plays.at(-1).n;
  assert.ok(last > start);
  for (const [who, token] of Object.entries(rd)) {
    const r = await srv.get(`/games/${g.id}?at=${start}`, { token });
    assert.deepEqual(r.json.state, then[who], `${who} at=${start} after more plays: still the imported position`);
    const now = await srv.get(`/games/${g.id}`, { token });
    assert.deepEqual((await srv.get(`/games/${g.id}?at=${last}`, { token })).json.state, now.json.state, `${who} at=${last}: now`);
    for (let n = start + 1; n < last; n++) expectStatus(await srv.get(`/games/${g.id}?at=${n}`, { token }), 200, `${who} at=${n}`);
  }
});

// --- d. a write that fails writes nothing -------------------------------------

test('a POST /plays that fails appends no play and moves no version; one that succeeds appends exactly its records', { skip: noDb }, async () => {
  const d = db();
  let g;
  for (let seed = 341; !g; seed++) {
    const c = await create('hanabi', ['Ann', 'Bob', 'bot:rules'], seed);
    if (c.applied.length === 0) g = c;
    assert.ok(seed < 380, 'a seed where a person starts');
  }
  const state = async () => {
    const v = await srv.get(`/games/${g.id}`, { token: srv.adminToken });
    return { rows: countPlays(d, g.id), version: v.json.version, dbVersion: snapRow(d, g.id).version, current: v.json.state.current };
  };
  const loggedNs = () => d.rows(`SELECT n FROM plays WHERE game_id = ${q(g.id)} AND kind <> 3 ORDER BY n`).map((r) => Number(r.n));
  // A few good plays first, so that there is a log.
  await playHints(g, 3);
  const hist = (await srv.get(`/games/${g.id}/plays`, { token: srv.adminToken })).json.plays;
  assert.deepEqual(loggedNs(), hist.map((p) => p.n), 'one plays row per history record');
  const before = await state();
  assert.equal(before.dbVersion, before.version);
  const me = tokenOf(g, before.current);
  const other = tokenOf(g, 1 - before.current);
  assert.ok(me && other, 'a person to play');
  const legal = (await srv.get(`/games/${g.id}/legal`, { token: me })).json.plays;
  const good = legal[0];
  const failing = [
    ['an illegal play (422)', { play: { type: 'hint', target: before.current, number: 1 } }, { token: me }, 422],
    ['a stale If-Match (412)', { play: good }, { token: me, headers: { 'if-match': `"${before.version - 1}"` } }, 412],
    ['not this seat\'s turn (409)', { play: good }, { token: other }, 409],
    ['a play of the wrong shape (400)', { play: { type: 'nonsense' } }, { token: me }, 400],
    ['the admin, who has no seat (403)', { play: good }, { token: srv.adminToken }, 403],
  ];
  for (const [what, body, opts, status] of failing) {
    const r = await srv.post(`/games/${g.id}/plays`, body, opts);
    expectStatus(r, status, what);
    assert.deepEqual(await state(), before, `${what}: no plays row added, the version unchanged`);
  }
  // Two good plays racing on one version: one wins, the loser adds nothing.
  const send = () => srv.post(`/games/${g.id}/plays`, { play: good }, { token: me, headers: { 'if-match': `"${before.version}"` } });
  const [r1, r2] = await Promise.all([send(), send()]);
  const wins = [r1, r2].filter((r) => r.status === 200);
  assert.equal(wins.length, 1, `one winner: ${r1.status} ${r2.status}`);
  assert.ok([409, 412].includes([r1, r2].find((r) => r.status !== 200).status));
  const afterRace = await state();
  assert.equal(afterRace.version, before.version + 1, 'one write');
  assert.equal(afterRace.dbVersion, before.version + 1);
  assert.equal(afterRace.rows, before.rows + wins[0].json.applied.length, 'the winner\'s records, each once');
  const hist2 = (await srv.get(`/games/${g.id}/plays`, { token: srv.adminToken })).json.plays;
  assert.deepEqual(loggedNs(), hist2.map((p) => p.n));
  const rows = d.rows(`SELECT n, version FROM plays WHERE game_id = ${q(g.id)} AND kind <> 3 ORDER BY n`);
  for (const a of wins[0].json.applied) {
    assert.equal(Number(rows.find((x) => Number(x.n) === a.n)?.version), before.version + 1, `play ${a.n}: appended by write ${before.version + 1}`);
  }
});
