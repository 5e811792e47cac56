// The contract follows the registry: every game GET /rules serves has its
// view schema in openapi.yaml (a GameView rule "if game is <name> then
// <its view>", whose view names that game), GameView lists no other game
// (a view of a game without a schema of its own is generic), and every
// autograder function a game lists has its path described, and the export
// formats openapi.yaml enumerates are those the games offer. Adding a game
// without its contract fails here, not in a user's client.
import test from 'node:test';
import assert from 'node:assert/strict';
import { useServer, expectStatus } from './lib/server.mjs';
import { doc } from './lib/contract.mjs';

const srv = useServer();

const schema = (ref) => doc.components.schemas[ref.split('/').pop()];

test('every game of GET /rules has its view schema, and GameView names no other game', async () => {
  const r = await srv.get('/rules');
  expectStatus(r, 200);
  const names = r.json.games.map((g) => g.game);
  assert.ok(names.length >= 4);
  const rules = doc.components.schemas.GameView.allOf;
  const byGame = new Map(rules.map((b) => [b.if?.properties?.game?.const, schema(b.then.$ref)]));
  for (const n of names) assert.ok(byGame.has(n), `GameView has a rule for ${n}`);
  for (const [n, s] of byGame) {
    assert.ok(names.includes(n), `${n} of GameView is a served game`);
    assert.equal(s.properties?.game?.const, n, `the view schema GameView holds ${n} to names ${n}`);
  }
  assert.ok(!JSON.stringify(doc.components.schemas).includes('OtherGameView'), 'no list of the other games');
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

test('the export formats of openapi.yaml are those GET /rules offers, json first for every game', async () => {
  const r = await srv.get('/rules');
  expectStatus(r, 200);
  const offered = new Set();
  for (const g of r.json.games) {
    assert.equal(g.export_formats[0], 'json', `${g.game} exports json first`);
    for (const f of g.export_formats) offered.add(f);
  }
  const param = doc.paths['/games/{id}/export'].get.parameters.find((p) => p.name === 'format');
  assert.deepEqual([...param.schema.enum].sort(), [...offered].sort(), 'the format enum of GET /games/{id}/export');
  assert.equal(param.schema.default, 'json');
});
