// The whole-game soak in `make test`: for every game of GET
// /rules, SOAK_GAMES_PER_GAME complete games (default 200) spread over
// variant x table size x seating (one person and bots, every seat a person,
// people at some seats), played to the end through a real server and its
// store by tests/soak/soak.mjs. tests/run.sh runs it on SQLite, and with 50
// games of each game on PostgreSQL (every request there is also a round trip
// to the cluster, and that pass only has to show the store holds up).
//
// Every play is turn-checked, and SOAK_FULL_PER_GAME games of each game
// (default 2) get every check at every position, their responses also
// checked against openapi.yaml (SOAK_CONTRACT=0: not); the other games get
// every check at their last position and at a random SOAK_SAMPLE of the
// others (default 0.01). Why not every check at every position of all 800
// games: that costs ~4,800 requests a game on average (5 routes for each of
// up to 9 readers, one POST /validate for every legal play, the re-import
// and its views; up to 27,000 for a long game): ~0.25 games/s, about an hour
// for 800 games on this 2-core machine. With these defaults the 800 games
// make ~334,000 requests: 254 s measured (others' jobs sharing the machine),
// of which ~80% is the server playing the games themselves (the bots' plays
// inside each POST, the hints); the PostgreSQL pass (50 a game, 1 in full)
// took 89 s. `make soak` (tests/soak/cli.mjs) checks every position of every
// game in full.
//
// Environment: CROUPIER_BIN, CROUPIER_TEST_STORE (as tests/http),
// SOAK_GAMES_PER_GAME, SOAK_FULL_PER_GAME, SOAK_SAMPLE, SOAK_CONTRACT,
// SOAK_SEED (default 1), SOAK_CONCURRENCY (games at once, default 12),
// SOAK_THREADS (server threads = client connections, default 8).
// A failure names the game, the seat, the request and the answer, and how
// to replay that one game (tests/out/soak-failures-<game>.json has them all).
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../http/lib/contract.mjs';
import { startServer } from '../http/lib/server.mjs';
import { makeClient, discover, planGames, runPlan, groupFailures, describeFailure, tableSizes, SEATINGS } from './soak.mjs';

const env = (name, dflt) => {
  const v = Number(process.env[name] ?? dflt);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive whole number`);
  return v;
};
const PER_GAME = env('SOAK_GAMES_PER_GAME', 200);
const SEED = env('SOAK_SEED', 1);
const CONCURRENCY = env('SOAK_CONCURRENCY', 12);
const THREADS = env('SOAK_THREADS', 8);
const FULL = Number(process.env.SOAK_FULL_PER_GAME ?? 2);
const SAMPLE = Number(process.env.SOAK_SAMPLE ?? 0.01);
if (!(Number.isInteger(FULL) && FULL >= 0)) throw new Error('SOAK_FULL_PER_GAME must be a whole number');
if (!(SAMPLE >= 0 && SAMPLE <= 1)) throw new Error('SOAK_SAMPLE must be a probability from 0 to 1');
const CONTRACT = process.env.SOAK_CONTRACT !== '0'; // the full games' responses against openapi.yaml

// Long games export more than the default 64 KiB body limit: raise it so that
// /validate and /games/import take every export.
// quotas off: a soak creates games as fast as the server takes them (api/quota.h)
const server = await startServer({ extraArgs: ['--threads', String(THREADS), '--body-limit', String(16 << 20), '--quota-create', '0', '--quota-create-total', '0'] });
const client = makeClient(server.base, { sockets: THREADS, adminToken: server.adminToken });
after(async () => {
  client.close();
  const { code, signal, stderr } = await server.stop();
  assert.equal(signal, null, `server killed by ${signal}; stderr: ${stderr.slice(-2000)}`);
  assert.equal(code, 0, `server must exit 0 on SIGTERM; stderr: ${stderr.slice(-2000)}`);
});

let games = [];
let discovered;
try {
  games = await discover(client);
} catch (e) {
  discovered = e;
}

test('the registry, as GET /rules describes it, has games to soak', () => {
  if (discovered) assert.fail(`${discovered.message}\n${JSON.stringify(discovered.detail ?? discovered.stack, null, 1)}`);
  assert.ok(games.length > 0, 'GET /rules lists games');
  for (const g of games) {
    assert.ok(g.variants.length > 0 && g.bots.length > 0, `${g.game}: variants and bots`);
    assert.ok(g.players.min >= 1 && g.players.min <= g.players.max, `${g.game}: player range ${JSON.stringify(g.players)}`);
  }
});

test('GET /rules/{game} lists the export formats each game has (openapi.yaml: `export_formats`)', () => {
  // The soak finds the formats by asking the export route; the rules
  // document must say the same thing.
  const wrong = games.filter((g) => !g.rulesFormats
    || JSON.stringify(g.rulesFormats.filter((f) => f !== 'json').sort()) !== JSON.stringify([...g.probedFormats].sort()))
    .map((g) => `${g.game}: export_formats ${JSON.stringify(g.rulesFormats)}, the export route takes json + ${JSON.stringify(g.probedFormats)}`);
  assert.deepEqual(wrong, [], wrong.join('\n'));
});

const plan = planGames(games, { perGame: PER_GAME, seed: SEED, full: FULL, sample: SAMPLE, contractFull: CONTRACT });
const t0 = Date.now();
const run = games.length ? runPlan(client, plan, { concurrency: CONCURRENCY, adminToken: server.adminToken }) : null;
run?.catch(() => {}); // handled: each test below awaits it (and fails if it failed)

for (const g of games) {
  test(`${g.game}: ${PER_GAME} complete games through the server and its store (every play turn-checked; `
    + `${Math.min(FULL, PER_GAME)} game${Math.min(FULL, PER_GAME) === 1 ? '' : 's'}, the last position and ${SAMPLE * 100}% `
    + 'of the others checked in full)', async (t) => {
    const totals = await run;
    const mine = totals.failures.filter((f) => f.game === g.game);
    const b = totals.byGame[g.game];
    if (!b) assert.fail(`${g.game}: no game was played`);
    t.diagnostic(`${g.game}: ${b.finished}/${b.planned} games finished, ${b.plays} plays (${b.personPlays} by people), `
      + `results ${JSON.stringify(b.results)}, sizes ${JSON.stringify(b.sizes)}, seatings ${JSON.stringify(b.seatings)}; `
      + `whole run ${((Date.now() - t0) / 1000).toFixed(1)} s, ${client.stats.requests} requests, `
      + `${totals.positionsInFull} positions checked in full, ${totals.validated} plays validated, ${totals.reimports} re-imports`);
    for (const [f, s] of Object.entries(totals.formats[g.game] || {})) {
      t.diagnostic(`${g.game} export ${f}: checked ${s.checked} times, refused ${s.refused} times (not available there)`);
    }
    if (mine.length) {
      mkdirSync(path.join(ROOT, 'tests', 'out'), { recursive: true });
      const file = path.join(ROOT, 'tests', 'out', `soak-failures-${g.game}.json`);
      writeFileSync(file, JSON.stringify(mine, null, 1));
      const groups = groupFailures(mine);
      assert.fail(`${mine.length} of ${b.planned} ${g.game} games failed (${groups.length} kinds; all in ${file}):\n\n`
        + groups.slice(0, 8).map((x) => `[${x.count}x] ${describeFailure(x.first)}`).join('\n\n'));
    }
    assert.equal(b.finished, PER_GAME, `${g.game}: every planned game finished`);
    assert.ok(b.plays >= b.personPlays && b.personPlays > 0, `${g.game}: people made plays`);
    // The plan covers every variant, table size and seating; a game whose
    // formats were never checked would make the format check vacuous.
    const combos = g.variants.length * tableSizes(g.players).length * SEATINGS.length;
    if (PER_GAME >= combos) {
      assert.deepEqual(Object.keys(b.variants).sort(), [...g.variants].sort(), 'every variant played');
      assert.deepEqual(Object.keys(b.sizes).map(Number).sort((x, y) => x - y), tableSizes(g.players), 'every table size played');
      assert.deepEqual(Object.keys(b.seatings).sort(), [...SEATINGS].sort(), 'every seating played');
    }
    for (const f of g.formats) {
      assert.ok((totals.formats[g.game]?.[f]?.checked ?? 0) > 0, `${g.game}: the ${f} export was checked at least once`);
    }
  });
}

// The soak's own checks must be able to fail: a finished game's hanab.live
// export replays, and each kind of damage to it is caught; the view
// comparison sees a changed member. (Only run for a game that has the format.)
test('the soak\'s checks catch a broken export and a different view', async (t) => {
  const { replayHanabLive, diffPaths, VIEW_MEMBERS_IGNORED } = await import('./soak.mjs');
  assert.deepEqual(diffPaths({ a: 1, b: [1, 2] }, { a: 1, b: [1, 3] }), ['/b/1']);
  assert.deepEqual(diffPaths({ a: 1 }, { a: 1 }), []);
  assert.deepEqual(VIEW_MEMBERS_IGNORED, ['id', 'version']);
  const g = games.find((x) => x.formats.includes('hanablive'));
  if (!g) return t.skip('no game exports hanablive');
  const created = await client.post('/games', {
    game: g.game, seed: 3, players: Array.from({ length: g.players.min }, () => ({ bot: g.bots[0] })),
  });
  assert.equal(created.status, 201, created.text);
  const ex = await client.get(`/games/${created.json.id}/export?format=hanablive`);
  assert.equal(ex.status, 200, ex.text);
  const hl = ex.json;
  const ok = replayHanabLive(hl);
  assert.equal(ok.error, undefined, `a finished game's export replays: ${ok.error}`);
  const broken = {
    'an action after the end': { ...hl, actions: [...hl.actions, { type: 1, target: 0, value: 0 }] },
    'a clue to oneself': { ...hl, actions: [{ type: 3, target: 0, value: 1 }, ...hl.actions.slice(1)] },
    'a card missing from the deck': { ...hl, deck: hl.deck.slice(1) },
    'an unknown variant': { ...hl, options: { variant: 'No Such Variant' } },
    'a card played that is not in hand': { ...hl, actions: [{ type: 0, target: hl.deck.length - 1, value: 0 }, ...hl.actions.slice(1)] },
  };
  for (const [what, x] of Object.entries(broken)) {
    assert.ok(replayHanabLive(x).error, `the replay catches ${what}`);
  }
  assert.equal((await client.del(`/games/${created.json.id}`, { token: server.adminToken })).status, 204);
});
