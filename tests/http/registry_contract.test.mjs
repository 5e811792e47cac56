// The contract follows the registry: every game GET /rules serves has its
// view schema in openapi.yaml (a GameView branch whose `game` is that
// game's name), OtherGameView excludes exactly those games, and every
// autograder function a game lists has its path described. Adding a game
// without its contract fails here, not in a user's client.
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus } from './lib/server.mjs';
import { doc } from './lib/contract.mjs';

const srv = useServer();

const schema = (ref) => doc.components.schemas[ref.split('/').pop()];

test('every game of GET /rules has its view schema, and OtherGameView names exactly them', async () => {
  const r = await srv.get('/rules');
  expectStatus(r, 200);
  const names = r.json.games.map((g) => g.game);
  assert.ok(names.length >= 4);
  const branches = doc.components.schemas.GameView.oneOf.map((b) => schema(b.$ref));
  const byGame = new Map(branches.filter((s) => s.properties?.game?.const).map((s) => [s.properties.game.const, s]));
  for (const n of names) assert.ok(byGame.has(n), `GameView has a branch for ${n}`);
  for (const n of byGame.keys()) assert.ok(names.includes(n), `${n} of GameView is a served game`);
  const other = doc.components.schemas.OtherGameView.properties.game.not.enum;
  assert.deepEqual([...other].sort(), [...names].sort(), 'OtherGameView excludes the served games, no more, no fewer');
});

test('every autograder function a game lists has its path in openapi.yaml', async () => {
  const r = await srv.get('/rules');
  let n = 0;
  for (const g of r.json.games) {
    const rules = await srv.get(`/rules/${g.game}`);
    expectStatus(rules, 200);
    // the bots of the game's page are the registry's rows, in order, each saying what it does
    assert.deepEqual(rules.json.bots.map((b) => b.name), g.bots, `${g.game}: the same bots as GET /rules`);
    for (const b of rules.json.bots) assert.ok(b.description.length > 10, `${g.game} ${b.name} has a description`);
    for (const f of rules.json.functions || []) {
      assert.ok(doc.paths[f.path]?.post, `POST ${f.path} (${f.signature}) is described`);
      n++;
    }
  }
  assert.ok(n >= 10, `functions listed: ${n}`);
});

test('"default" names every game\'s first bot: a table of them plays the game its first bot plays', async () => {
  const r = await srv.get('/rules');
  for (const g of r.json.games) {
    const n = g.players.default;
    const game = async (bot) => {
      const res = await srv.post('/games', { game: g.game, seed: 11, players: Array.from({ length: n }, () => ({ bot })) });
      expectStatus(res, 201);
      return res.json;
    };
    const a = await game('default'), b = await game(g.bots[0]);
    assert.equal(a.seats[0].bot, 'default');
    const pa = await srv.get(`/games/${a.id}/plays`), pb = await srv.get(`/games/${b.id}/plays`);
    expectStatus(pa, 200);
    assert.ok(pa.json.plays.length > 0, `${g.game}: the default bots played`);
    assert.deepEqual(pa.json.plays, pb.json.plays, `${g.game}: "default" plays as ${g.bots[0]}`);
  }
  const bad = await srv.post('/games', { game: 'hanabi', players: [{ bot: 'nobody' }, { bot: 'default' }] });
  expectStatus(bad, 400);
  assert.equal(bad.json.errors[0].pointer, '/players/0/bot');
});
