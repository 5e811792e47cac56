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
    for (const f of rules.json.functions || []) {
      assert.ok(doc.paths[f.path]?.post, `POST ${f.path} (${f.signature}) is described`);
      n++;
    }
  }
  assert.ok(n >= 10, `functions listed: ${n}`);
});
