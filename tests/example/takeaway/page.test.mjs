// The example game at the web page, as a player meets it: dealt from the
// lobby against the "perfect" bot, played to its end by clicking the plays
// the page offers (a game without a table of its own is drawn by
// www/tables/generic.js), the end's summary shown. Run only by
// tests/repo/example_game.test.mjs, in a copy of the tree the game was
// added to as docs/engine-guide.md says: the served page never has it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, stopAll, dealFromLobby, settled, apiInPage } from '../../browser/harness.mjs';

let env, page;
before(async () => { env = await startAll(); page = env.page; });
after(async () => { await stopAll(env); });

test('Take-away: dealt from the lobby, played to its end on the generic table', async () => {
  await dealFromLobby(page, { game: 'takeaway', bots: ['perfect'] });
  let clicks = 0;
  for (; clicks < 40; clicks++) {
    const g = await apiInPage(page, '/games/{id}');
    assert.equal(g.status, 200);
    if (g.body.status.over) break;
    assert.equal(g.body.status.current, 0, 'the bot has answered: it is the person\'s turn again');
    const left = g.body.state.left;
    const offered = await page.locator('[data-testid^="legal-play-"]').count();
    assert.equal(offered, Math.min(3, left), `${left} counters left: the page offers ${Math.min(3, left)} takes`);
    await page.getByTestId('legal-play-0').click();
    await page.waitForFunction((n) => {
      const s = document.querySelector('[data-testid="generic-state"]')?.textContent || '';
      const m = /"left": (\d+)/.exec(s);
      return (m && Number(m[1]) < n) || document.querySelector('[data-testid="summary-result"]');
    }, left);
    await settled(page);
  }
  assert.ok(clicks > 3, `the person played ${clicks} times`);
  const result = await page.getByTestId('summary-result').innerText();
  assert.ok(result.trim().length > 0, 'the end is said');
  assert.deepEqual(env.consoleErrors, [], 'no errors on the page');
});
