// GET /games/{id}/legal in pages, through the real server: a Phazed hand
// with thousands of phase plays (phase 5, a run of eight, six Aces among
// eleven cards), put in place by editing a real game's JSON export and
// importing it. Its phase plays are counted by a brute force written here
// from the rules (docs/rules/phazed.md: a run is eight consecutive values,
// K wrapping to 2, Aces Wild, at least two naturals), and every page is
// walked by its `next` link: no play missing, none twice, `total` right.
// Also: a short list is one page as before (plus `total`), and hostile
// query parameters are 400s naming the parameter.
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus, expectProblem } from './lib/server.mjs';

const srv = useServer();
const HAND = ['AS', 'AS', 'AH', 'AH', 'AD', 'AD', '2S', '3H', '4D', '5C', '6S'];
const VALUES = '234567890JQKA';

/** Distinct runs of eight from the hand's cards (each card used as often as held). */
function bruteForceRuns(hand) {
  const left = new Map();
  for (const c of hand) left.set(c, (left.get(c) || 0) + 1);
  const value = (c) => VALUES.indexOf(c[0]) + 2; // 2..14, 14 the Ace (Wild)
  let count = 0;
  for (let start = 2; start <= 13; start++) {
    const walk = (i, naturals) => {
      if (i === 8) { count += naturals >= 2 ? 1 : 0; return; }
      const due = ((start - 2 + i) % 12) + 2;
      for (const [c, k] of left) {
        if (!k || (value(c) !== 14 && value(c) !== due)) continue;
        left.set(c, k - 1);
        walk(i + 1, naturals + (value(c) !== 14 ? 1 : 0));
        left.set(c, k);
      }
    };
    walk(0, 0);
  }
  return count;
}

/** A game where seat 0, after its pick-up, holds HAND with phases 1-4 done; returns {id, token}. */
async function bigHand() {
  const g = await srv.post('/games', { game: 'phazed', seed: 3, players: [{ name: 'Ann' }, { bot: 'greedy' }, { bot: 'greedy' }, { bot: 'greedy' }] });
  expectStatus(g, 201, 'POST /games');
  expectStatus(await srv.post(`/games/${g.json.id}/plays`, { play: [1, null] }, { token: g.json.seats[0].token }), 200, 'pick-up');
  const ex = await srv.get(`/games/${g.json.id}/export?format=json`, { token: srv.adminToken });
  expectStatus(ex, 200, 'export');
  const st = ex.json.state;
  const mine = st.hands[0];
  assert.equal(mine.length, 11);
  // every card stays where one copy of it can be: swap, never invent
  const places = [st.deck, st.discard_pile, ...st.hands];
  HAND.forEach((want, i) => {
    for (const place of places) {
      const from = place === mine ? mine.indexOf(want, i) : place.indexOf(want);
      if (from < 0) continue;
      [place[from], mine[i]] = [mine[i], place[from]];
      return;
    }
    assert.fail(`no ${want} anywhere`);
  });
  st.phase_status[0] = 4;
  const imp = await srv.post('/games/import', ex.json);
  expectStatus(imp, 201, 'import');
  return { id: imp.json.id, token: imp.json.seats[0].token };
}

test('every phase play of a hand with thousands, walked page by page', async () => {
  const { id, token } = await bigHand();
  const view = await srv.get(`/games/${id}`, { token });
  assert.deepEqual([...view.json.state.hand].sort(), [...HAND].sort(), 'the hand is in place');
  const runs = bruteForceRuns(HAND);
  assert.ok(runs > 4096, `more phase plays than the old cap (${runs})`);

  const seen = new Set();
  let url = `/games/${id}/legal?limit=1000`, pages = 0, total = null, phases = 0;
  while (url) {
    const r = await srv.get(url, { token, template: '/games/{id}/legal' });
    expectStatus(r, 200, url);
    total ??= r.json.total;
    assert.equal(r.json.total, total, 'the same total on every page');
    assert.ok(r.json.plays.length > 0 && r.json.plays.length <= 1000);
    for (const p of r.json.plays) {
      const k = JSON.stringify(p);
      assert.ok(!seen.has(k), `listed twice: ${k}`);
      seen.add(k);
      phases += p[0] === 3 ? 1 : 0;
    }
    url = r.json.next;
    if (url) assert.equal(r.headers.get('link'), `<${url}>; rel="next"`);
    else assert.equal(r.headers.get('link'), null);
    pages++;
  }
  const discards = new Set(HAND).size;
  assert.equal(phases, runs, 'every phase play, as the brute force counts them');
  assert.equal(seen.size, total);
  assert.equal(total, runs + discards);
  assert.equal(pages, Math.ceil(total / 1000));

  // an illegal play's 422 lists the first page and counts them all
  const bad = await srv.post(`/games/${id}/plays`, { play: [5, 'KD'] }, { token });
  const problem = expectProblem(bad, 422, 'illegal-play');
  assert.equal(problem.legal.length, 1000);
  assert.equal(problem.legal_total, total);

  // the default page is 1000 plays; the largest 5000; past the end nothing
  const first = await srv.get(`/games/${id}/legal`, { token });
  assert.equal(first.json.plays.length, 1000);
  assert.equal(first.json.next, `/games/${id}/legal?offset=1000&limit=1000`);
  const big = await srv.get(`/games/${id}/legal?offset=10&limit=5000`, { token, template: '/games/{id}/legal' });
  assert.equal(big.json.plays.length, 5000);
  assert.deepEqual(big.json.plays.slice(0, 990), first.json.plays.slice(10));
  const past = await srv.get(`/games/${id}/legal?offset=${total}`, { token, template: '/games/{id}/legal' });
  expectStatus(past, 200);
  assert.deepEqual(past.json.plays, []);
  assert.equal(past.json.total, total);
  assert.equal(past.json.next, undefined);
});

test('a short list is one page, as before, with its total', async () => {
  const g = await srv.post('/games', { game: 'phazed', seed: 3, players: [{ name: 'Ann' }, { bot: 'greedy' }, { bot: 'greedy' }, { bot: 'greedy' }] });
  const r = await srv.get(`/games/${g.json.id}/legal`, { token: g.json.seats[0].token });
  expectStatus(r, 200);
  assert.deepEqual(Object.keys(r.json).sort(), ['plays', 'seat', 'total']);
  assert.equal(r.json.total, r.json.plays.length);
  assert.ok(r.json.plays.some((p) => p[0] === 1), 'the deck pick-up');
  assert.equal(r.headers.get('link'), null);
  const spectator = await srv.get(`/games/${g.json.id}/legal`);
  expectStatus(spectator, 200);
  assert.deepEqual(spectator.json, { seat: null, plays: [], total: 0 }, 'a spectator has no plays');
});

test('hostile paging parameters: 400 naming the parameter', async () => {
  const g = await srv.post('/games', { game: 'phazed', seed: 3, players: [{ name: 'Ann' }, { bot: 'greedy' }, { bot: 'greedy' }, { bot: 'greedy' }] });
  const bad = [['limit', '0'], ['limit', '5001'], ['limit', 'abc'], ['limit', ''], ['limit', '1e3'], ['limit', '99999999999999999999'],
    ['offset', '-1'], ['offset', '1.5'], ['offset', '0x10'], ['offset', '100000001'], ['offset', '%00']];
  for (const [name, value] of bad) {
    const r = await srv.get(`/games/${g.json.id}/legal?${name}=${value}`, { template: '/games/{id}/legal' });
    const p = expectProblem(r, 400, 'invalid-parameter', `${name}=${value}`);
    assert.equal(p.parameter, name, `${name}=${value}`);
  }
});
