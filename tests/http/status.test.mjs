// The game document's "status" (docs/api.md, "Where a game stands"): for
// every game of GET /rules, the status beside each view says whose turn it
// is, whether the game is over and who won, in the shape openapi.yaml
// gives, and it describes the position shown (?at=N: the position after
// play N, not the latest). The page's core reads only this member.
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus } from './lib/server.mjs';
import { assertMatches } from './lib/contract.mjs';

const srv = useServer();

async function games() {
  const r = await srv.get('/rules');
  expectStatus(r, 200);
  return r.json.games;
}

const seatsOf = (g) => g.players?.default ?? g.players?.min ?? g.min_players ?? 2;

test('a game played to its end by bots: status over, winners, scores per seat, at every position', async () => {
  for (const g of await games()) {
    const n = seatsOf(g);
    const body = { game: g.game, seed: 7, players: Array.from({ length: n }, () => ({ bot: g.bots[0] })) };
    const made = await srv.post('/games', body);
    expectStatus(made, 201, `${g.game}: POST /games`);
    assertMatches('POST', '/games', made, made.text);
    const s = made.json.status;
    assert.equal(s.over, true, `${g.game}: bots alone play to the end`);
    assert.equal(s.current, null, `${g.game}: nobody to move once over`);
    assert.equal(s.scores.length, n, `${g.game}: one score per seat`);
    assert.equal(s.cooperative, !!g.cooperative, `${g.game}: cooperative as /rules says`);
    assert.equal('max_score' in s, !!g.cooperative, `${g.game}: max_score for cooperative games only`);
    if (g.cooperative) assert.deepEqual(s.winners, [], `${g.game}: a team has no winner`);
    else if (s.result === 'won') assert.equal(s.winners.length, 1, `${g.game}: one winner when won`);
    for (const w of s.winners) assert.ok(Number.isInteger(w) && w >= 0 && w < n, `${g.game}: winner ${w} is a seat`);
    const view = made.json.state;
    if (view.winner !== undefined && view.winner !== null) assert.deepEqual(s.winners, [view.winner], `${g.game}: the view's winner`);
    if (Array.isArray(view.winners)) assert.deepEqual(s.winners, view.winners, `${g.game}: the view's winners`);
    if (s.lower_is_better && s.winners.length) {
      const best = Math.min(...s.winners.map((w) => s.scores[w]));
      for (const w of s.winners) assert.equal(s.scores[w], best, `${g.game}: winners share the winning total`);
    }

    const id = made.json.id;
    const got = await srv.get(`/games/${id}`);
    expectStatus(got, 200);
    assertMatches('GET', `/games/${id}`, got, got.text);
    assert.deepEqual(got.json.status, s, `${g.game}: GET says what POST said`);
    const plays = await srv.get(`/games/${id}/plays?limit=1000`);
    expectStatus(plays, 200);
    const ns = plays.json.plays.map((p) => p.n);
    assert.ok(ns.length >= 2, `${g.game}: some plays were made`);
    let before = -1;
    for (const at of [-1, ns[Math.floor(ns.length / 2)]]) {
      const past = await srv.get(`/games/${id}?at=${at}`);
      expectStatus(past, 200, `${g.game} at=${at}`);
      assertMatches('GET', `/games/${id}`, past, past.text);
      const ps = past.json.status;
      // The position after play `at`, not the latest: fewer plays than at the end, more than before.
      assert.ok(ps.plays > before && ps.plays < s.plays, `${g.game}: ${ps.plays} plays after play ${at} (${s.plays} at the end)`);
      before = ps.plays;
      assert.equal(ps.over, false, `${g.game}: not over at play ${at}`);
      assert.ok(Number.isInteger(ps.current) && ps.current >= 0 && ps.current < n, `${g.game}: someone to move at ${at}`);
      if ('current' in past.json.state) assert.equal(ps.current, past.json.state.current, `${g.game}: the view's current seat`);
      assert.deepEqual(ps.winners, [], `${g.game}: no winner while playing`);
    }
  }
});

test('a person at the table: status.current names their seat on their turn, and a play answers the status', async () => {
  for (const g of await games()) {
    const n = seatsOf(g);
    const players = [{ name: 'Ann' }, ...Array.from({ length: n - 1 }, () => ({ bot: g.bots[0] }))];
    const made = await srv.post('/games', { game: g.game, seed: 3, players });
    expectStatus(made, 201, `${g.game}: POST /games`);
    const ann = made.json.seats.find((x) => x.seat === made.json.you);
    const s = made.json.status;
    assert.equal(s.over, false);
    assert.equal(s.current, made.json.you, `${g.game}: the bots played up to Ann's turn`);
    const legal = await srv.get(`/games/${made.json.id}/legal`, { token: ann.token });
    expectStatus(legal, 200);
    const played = await srv.post(`/games/${made.json.id}/plays`, { play: legal.json.plays[0] }, { token: ann.token });
    expectStatus(played, 200, `${g.game}: Ann plays`);
    assertMatches('POST', `/games/${made.json.id}/plays`, played, played.text);
    assert.ok(played.json.status.plays > s.plays, `${g.game}: the status after the play`);
    if (!played.json.status.over) assert.ok(Number.isInteger(played.json.status.current));
  }
});
