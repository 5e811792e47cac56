// The contract follows the registry: every game GET /rules serves has its
// view schema in openapi.yaml (a GameView rule "if game is <name> then
// <its view>", whose view names that game), GameView lists no other game
// (a view of a game without a schema of its own is generic), and every
// autograder function a game lists has its path described. Adding a game
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
    for (const f of rules.json.functions || []) {
      assert.ok(doc.paths[f.path]?.post, `POST ${f.path} (${f.signature}) is described`);
      n++;
    }
  }
  assert.ok(n >= 10, `functions listed: ${n}`);
});
