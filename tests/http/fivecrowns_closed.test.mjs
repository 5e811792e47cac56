// Five Crowns at a closed table (the default, rulings: a game of hidden
// cards), played whole by a person (or two) and bots in several seatings,
// with every read checked after every play: no reader is ever shown a card
// it may not see, by any route (the game and each past position of it,
// /plays, /events, /legal, /hint, the replies to its own plays, exports,
// refusals), in codes ("7H") or in words ("the 7 of hearts").
//
// What a reader may know is rebuilt from the admin's record, play by play:
// a seat knows every card it has held, and everybody knows every card that
// was ever on top of the discard pile or taken from it, and every hand laid
// out at the end of a round; an observer ("spectators": "all") also every
// hand. A card named to a reader outside that set is a leak: a bot's blind
// draw, the draw pile, another hand. Cards come twice in the deck, so a leak
// of a card the reader also saw elsewhere goes unseen here; over whole
// games most blind draws are cards the reader never saw, and the tests of
// tests/http/fivecrowns.test.mjs check the records' shapes.
// Seat exports mid-game are concealed copies (api/h_games.c h_export): what
// the seat sees as it is, the rest dealt anew, no other seat's blind draw.
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus } from './lib/server.mjs';

const srv = useServer();

const CODE = /(?<![A-Za-z0-9_-])([3-9XJQK][SCDHT]|J[123])(?![A-Za-z0-9_-])/g; // not inside base64url ids
const NAME = /\b(?:([3-9]|10|jack|queen|king) of (spades|clubs|diamonds|hearts|tridents)|(joker))\b/gi;
const RANK = { 10: 'X', jack: 'J', queen: 'Q', king: 'K' };
const SUIT = { spades: 'S', clubs: 'C', diamonds: 'D', hearts: 'H', tridents: 'T' };
const JOKERS = ['J1', 'J2', 'J3'];
// members that hold no card: ids, names, tokens and invites (random
// base64url text, which may hold "_JH-" as a game id once did)
const SKIP = new Set(['id', 'name', 'token', 'bot', 'invite', 'host_token', 'invited_by']);

/** Every card a JSON document names: codes in any string, names in sentences. */
function cardsNamed(doc, out = [], key = '') {
  if (typeof doc === 'string') {
    if (SKIP.has(key)) return out;
    for (const m of doc.matchAll(CODE)) out.push({ card: m[1], where: doc });
    for (const m of doc.matchAll(NAME)) {
      if (m[3]) out.push({ card: 'joker', where: doc });
      else out.push({ card: `${RANK[m[1].toLowerCase()] ?? m[1]}${SUIT[m[2].toLowerCase()]}`, where: doc });
    }
  } else if (Array.isArray(doc)) {
    for (const x of doc) cardsNamed(x, out, key);
  } else if (doc && typeof doc === 'object') {
    for (const [k, v] of Object.entries(doc)) cardsNamed(v, out, k);
  }
  return out;
}

const knows = (set, card) => (card === 'joker' ? JOKERS.some((j) => set.has(j)) : set.has(card));

function assertOnlyKnown(doc, known, what) {
  for (const { card, where } of cardsNamed(doc)) {
    assert.ok(knows(known, card), `${what}: ${card} is named to a reader who never saw it: ${where.slice(0, 300)}`);
  }
}

const addAll = (set, cards) => { for (const c of cards || []) if (typeof c === 'string') set.add(c); };

/** One game: create it, let the people play by the help mode's advice to the
 *  end, and after every request read everything as every reader. */
async function playClosed(players, seed, options = {}) {
  const r = await srv.post('/games', { game: 'fivecrowns', seed, players, options });
  expectStatus(r, 201);
  const g = r.json;
  assert.equal(g.state.open, false, 'closed by default');
  const people = g.seats.filter((s) => s.token).map((s) => ({ seat: s.seat, token: s.token }));
  const readers = [...people.map((p) => ({ ...p, label: `seat ${p.seat}` })),
    { seat: options.spectators === 'all' ? 'observer' : 'spectator', token: null, label: 'a spectator' }];
  const known = new Map(readers.map((x) => [x.label, new Set()]));
  const admin = { token: srv.adminToken };
  let checked = -1; // the last play whose position was checked
  let reads = 0;
  const get = async (path, reader) => {
    reads++;
    return srv.get(path, reader.token ? { token: reader.token } : {});
  };

  // What each reader came to know, from the admin's record and its view
  // now: every card discarded, taken from the discard pile, laid out at a
  // round's end or in the discard pile (each was on top once); each seat's
  // hand (a person's hand changes only by its own plays and by a deal, which
  // it sees before it plays again) and its own blind draws; the observer's
  // every hand and so every blind draw. Positions inside a request (the
  // bots') hold nothing else: a dealt card a bot let go was discarded.
  async function learn() {
    const plays = (await srv.get(`/games/${g.id}/plays`, admin)).json.plays;
    const now = (await srv.get(`/games/${g.id}`, admin)).json.state;
    const pub = [now.discard_top, ...(now.discard_pile || [])];
    const out = [];
    for (const rec of plays) {
      if (rec.n <= checked) continue;
      if (rec.play.discard) pub.push(rec.play.discard);
      if (rec.play.draw === 'discard') pub.push(rec.card);
      if (rec.round_end) pub.push(...cardsNamed(rec.round_end).map((x) => x.card));
      for (const x of readers) {
        if (rec.play.draw === 'draw' && (rec.seat === x.seat || x.seat === 'observer')) known.get(x.label).add(rec.card);
      }
      out.push(rec.n);
      checked = rec.n;
    }
    for (const x of readers) {
      const set = known.get(x.label);
      addAll(set, pub);
      if (typeof x.seat === 'number') addAll(set, now.hands[x.seat]);
      if (x.seat === 'observer') for (const h of now.hands) addAll(set, h);
    }
    return out;
  }

  async function checkReads(newPlays, reply) {
    const over = (await srv.get(`/games/${g.id}`, admin)).json.state.over;
    if (over) return true; // once over, everybody sees everything
    if (reply) assertOnlyKnown(reply.body, known.get(reply.label), `${reply.label}'s own reply`);
    // each position the request went through (the bots' plays), as one
    // reader (in turn) could see it then: a replay rebuilds it, which
    // costs, so every position once rather than once per reader
    for (const n of newPlays) {
      const x = readers[n % readers.length];
      const past = await get(`/games/${g.id}?at=${n}`, x);
      expectStatus(past, 200);
      assertOnlyKnown(past.json, known.get(x.label), `${x.label}, ?at=${n}`);
    }
    for (const x of readers) {
      const set = known.get(x.label);
      for (const route of ['', '/plays', '/events', '/legal', '/hint']) {
        const res = await get(`/games/${g.id}${route}`, x);
        assert.ok(res.json !== undefined, `${route}: JSON`);
        assertOnlyKnown(res.json, set, `${x.label}, GET ${route || '/'}`);
      }
      const ex = await get(`/games/${g.id}/export`, x);
      if (!x.token) {
        expectStatus(ex, 401, 'no export to a spectator while the game runs');
        continue;
      }
      expectStatus(ex, 200);
      assert.equal(ex.headers.get('croupier-export'), 'concealed');
      const real = (await srv.get(`/games/${g.id}/export`, admin)).json.state;
      const s = ex.json.state;
      assert.deepEqual(s.hands[x.seat], real.hands[x.seat], `${x.label}: its own hand as it is`);
      assert.deepEqual(s.discard_pile, real.discard_pile);
      s.history.forEach((rec, i) => {
        if (rec.play.draw === 'draw' && rec.seat !== x.seat) assert.equal(rec.card, undefined, `${x.label}: export names blind draw ${i}`);
      });
      const others = real.hands.map((h, p) => (p === x.seat ? null : h)).filter(Boolean).flat();
      const shown = s.hands.map((h, p) => (p === x.seat ? null : h)).filter(Boolean).flat();
      if (others.length > 2) assert.notDeepEqual(shown, others, `${x.label}: the other hands are dealt anew`);
    }
    return false;
  }

  // the creation's reply shows the one person's view, or with several the public (or observer's) one
  let over = await checkReads(await learn(), { label: readers[people.length === 1 ? 0 : readers.length - 1].label, body: g });
  let requests = 0;
  while (!over) {
    assert.ok(++requests < 2000, 'the game ends');
    const v = (await srv.get(`/games/${g.id}`, admin)).json.state;
    const mover = people.find((p) => p.seat === v.current);
    assert.ok(mover, `a person is to move (seat ${v.current}), the bots having played`);
    const hint = await srv.get(`/games/${g.id}/hint`, { token: mover.token });
    expectStatus(hint, 200);
    const res = await srv.post(`/games/${g.id}/plays`, { play: hint.json.play }, { token: mover.token });
    expectStatus(res, 200);
    over = await checkReads(await learn(), { label: `seat ${mover.seat}`, body: res.json });
  }
  const end = (await srv.get(`/games/${g.id}`, admin)).json.state;
  assert.equal(end.over, true);
  assert.equal(end.round, 11, 'played to the last round');
  return reads;
}

for (const [label, players, seed, options] of [
  ['a person and the strategy bot', [{ name: 'Ann' }, { bot: 'strategy' }], 3],
  ['the greedy bot, then a person', [{ bot: 'greedy' }, { name: 'Ann' }], 4],
  ['a person and three bots', [{ name: 'Ann' }, { bot: 'random' }, { bot: 'greedy' }, { bot: 'strategy' }], 5],
  ['a bot and two people, watched by an observer', [{ bot: 'strategy' }, { name: 'Ann' }, { name: 'Bob' }], 6, { spectators: 'all' }],
]) {
  test(`a closed table played to the end (${label}): no read names a card its reader may not see`, { timeout: 600000 }, async () => {
    const reads = await playClosed(players, seed, options);
    assert.ok(reads > 200, `${reads} reads checked`);
  });
}
