// Browser test: the bots' moves played back as moves
// (www/core/playback.js). After a play whose reply holds the bots' plays up
// to the person's next turn, the board shows the position after each play in
// turn, about half a second apart, with the seat that moved and what moved
// marked, and ends on the live table; each position drawn is the one the
// server gives for it (GET /games/{id}?at=n, drawn by the replay: compared
// card for card); Skip, a click on the board and reduced motion show the end
// at once (a click plays nothing); a friend's move reaches another browser
// the same way; every seat that moved shows its last move. Games are driven
// through the API to a position past the deal, then one play is made by the
// page. These browsers do not ask for reduced motion (the harness's do).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startAll, stopAll, apiCall, openContext, settled } from './harness.mjs';

let env, motion, page;

before(async () => {
  env = await startAll();
  motion = await openContext(env, 'motion', { reducedMotion: 'no-preference' });
  page = motion.page;
});
after(async () => {
  assert.deepEqual([...env.consoleErrors, ...(motion ? motion.errors : [])], [], 'no console errors');
  await stopAll(env);
});

const call = (method, p, opts) => apiCall(env, method, p, opts);

/** A game with a person in seat 0 (and `people` more) and bots, played
 *  through the API by seat 0's hints until `until(state)`. */
async function dealAndPlay({ game, variant = 'standard', seed, players, until = () => true }) {
  const made = await call('POST', '/games', { body: { game, variant, seed, players } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const g = { id: made.body.id, tokens: Object.fromEntries(made.body.seats.filter((s) => s.token).map((s) => [s.seat, s.token])) };
  g.token = g.tokens[0];
  for (let k = 0; k < 2000; k++) {
    const v = (await call('GET', `/games/${g.id}`, { token: g.token })).body;
    if (v.state.over) throw new Error(`${game}: over before the position wanted`);
    if (v.status.current === 0 && until(v.state)) return g;
    const hint = (await call('GET', `/games/${g.id}/hint`, { token: g.token })).body;
    const r = await call('POST', `/games/${g.id}/plays`, { token: g.token, body: { play: hint.play } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  throw new Error(`${game}: the position wanted never came`);
}

/** Open game `id` in page `p`, holding seat `token`. */
async function open(p, id, token) {
  await p.goto('/');
  await p.evaluate(([gid, tok]) => { localStorage.clear(); sessionStorage.clear(); if (tok) localStorage.setItem(`croupier.token.${gid}`, tok); }, [id, token]);
  await p.goto(`/#game=${id}`);
  await p.waitForSelector('body[data-ready="true"]');
  await p.waitForFunction((gid) => document.querySelector('[data-testid="game-id"]')?.textContent === gid, id);
  await settled(p);
}

/** Record every drawing of the board that shows another play (a past
 *  position, data-at, or the live one, data-moved): what it marks, its
 *  cards, the playback's label. */
function record(p) {
  return p.evaluate(() => {
    const b = document.querySelector('[data-testid="board"]');
    const frames = [];
    window.__frames = frames;
    const snap = () => {
      const f = { at: b.dataset.at ?? null, moved: b.dataset.moved ?? null };
      const last = frames[frames.length - 1];
      if (last && last.at === f.at && last.moved === f.moved) return;
      Object.assign(f, {
        t: performance.now(),
        // (the cards of the position: not those of a play's button, which only the live table has)
        cards: [...b.querySelectorAll('[data-card]')].filter((e) => !e.closest('.btn')).map((e) => e.dataset.card).sort().join(' '),
        counts: [...b.querySelectorAll('.pile .count')].map((e) => e.textContent).join(' '),
        seats: [...b.querySelectorAll('.moved-seat')].map((e) => e.dataset.testid),
        places: [...b.querySelectorAll('.moved')].map((e) => e.dataset.testid),
        builds: [...b.querySelectorAll('[data-testid^="build-pile-"]')].map((e) => e.querySelector('[data-card]')?.dataset.card || ''),
        label: document.querySelector('[data-testid="playback-position"]').textContent,
        bar: !document.querySelector('[data-testid="playback"]').hidden,
        busy: b.hasAttribute('aria-busy'),
      });
      frames.push(f);
    };
    new MutationObserver(snap).observe(b, { attributes: true, attributeFilter: ['data-at', 'data-moved'], childList: true });
  });
}
const frames = (p) => p.evaluate(() => window.__frames);

/** The page's last numbered play. */
const lastN = (p) => p.evaluate(async () => {
  const { app } = await import('/core/state.js');
  return Math.max(-1, ...[...app.log.values()].map((r) => r.n).filter((n) => typeof n === 'number'));
});

/** Make the hint's play through the page (as its buttons do: core/game.js
 *  sendPlay); resolves once it is sent and answered (a playback may run). */
const playHint = (p, token) => p.evaluate(async (tok) => {
  const { app } = await import('/core/state.js');
  const hint = await (await fetch(`/games/${app.id}/hint`, { headers: { Authorization: `Bearer ${tok}` } })).json();
  await (await import('/core/game.js')).sendPlay(hint.play);
}, token);

/** The hint's play through the page until one is followed by `others`
 *  plays of other seats or more, and the table is drawn: resolves to those
 *  records (the person's play first). */
async function playUntilPlayback(p, id, token, others = 2) {
  for (let k = 0; k < 12; k++) {
    const from = await lastN(p);
    await playHint(p, token);
    await settled(p);
    const recs = (await call('GET', `/games/${id}/plays?after=${from}&limit=1000`, { token })).body.plays;
    if (recs.filter((r) => r.seat !== 0).length >= others) return recs;
  }
  throw new Error('no play of ours was followed by the others\' plays');
}

/** The drawings recorded of plays `recs` (and later ones). */
const framesOf = async (p, recs) => (await frames(p)).filter((f) => f.moved !== null && Number(f.moved) >= recs[0].n);

/** The replay's drawing of the position after play n (the server's ?at=n). */
async function replayed(p, id, n) {
  await p.evaluate(([gid, k]) => { location.hash = `#game=${gid}&at=${k}`; }, [id, n]);
  await p.waitForFunction((k) => {
    const b = document.querySelector('[data-testid="replay-board"]');
    return b && b.dataset.at === String(k) && b.childElementCount > 0;
  }, n);
  return p.evaluate(() => {
    const b = document.querySelector('[data-testid="replay-board"]');
    return {
      cards: [...b.querySelectorAll('[data-card]')].filter((e) => !e.closest('.btn')).map((e) => e.dataset.card).sort().join(' '),
      counts: [...b.querySelectorAll('.pile .count')].map((e) => e.textContent).join(' '),
    };
  });
}

/** The checks every table's playback passes: `recs` the plays shown. */
async function checkPlayback(p, g, recs, name) {
  const fs = await framesOf(p, recs);
  const past = fs.filter((f) => f.at !== null);
  const ns = recs.map((r) => r.n);
  // One at a time: every play but the last on a past position, the last on the live table.
  assert.deepEqual(fs.map((f) => Number(f.moved)), ns, `${name}: each play shown once, in order`);
  assert.deepEqual(past.map((f) => Number(f.at)), ns.slice(0, -1), `${name}: the position after each play but the last`);
  const end = fs[fs.length - 1];
  assert.equal(end.at, null, `${name}: it ends on the live table`);
  assert.equal(end.bar, false, `${name}: the playback's bar is gone at the end`);
  fs.forEach((f, i) => {
    assert.deepEqual(f.seats, [`player-${recs[i].seat}`], `${name}: play ${recs[i].n}: the seat that moved is marked`);
    if (f.at !== null) {
      assert.ok(f.bar && f.busy, `${name}: play ${recs[i].n}: the bar shows and the board is busy meanwhile`);
      assert.match(f.label, new RegExp(` · ${i + 1} of ${recs.length}$`), `${name}: the label says which play`);
    }
  });
  // Changed n times, about half a second apart (a bound the requirement sets: never faster than 0.25 s).
  for (let i = 1; i < fs.length; i++) assert.ok(fs[i].t - fs[i - 1].t >= 250, `${name}: play ${recs[i].n} shown ${Math.round(fs[i].t - fs[i - 1].t)} ms after the one before`);
  console.log(`# ${name}: ${fs.length} plays shown in ${Math.round(end.t - fs[0].t)} ms`);
  // Every seat that moved shows its last move, as the log says it.
  const seats = [...new Set((await call('GET', `/games/${g.id}/plays`, { token: g.token })).body.plays.map((r) => r.seat))];
  for (const seat of seats) {
    const mark = p.getByTestId('board').getByTestId(`last-move-${seat}`);
    assert.equal(await mark.count(), 1, `${name}: seat ${seat}'s last move is on the board`);
    const n = await mark.getAttribute('data-n');
    const logged = await p.getByTestId(`log-entry-${n}`).getByTestId('log-play').innerText();
    assert.ok((await mark.innerText()).replace(/\s+/g, ' ').includes(logged.replace(/\s+/g, ' ').slice(0, 20)), `${name}: seat ${seat}'s mark says its play`);
  }
  // Each board drawn is the server's position after that play, as the replay draws it.
  for (const f of fs) {
    const want = await replayed(p, g.id, Number(f.moved));
    assert.equal(f.cards, want.cards, `${name}: the board of play ${f.moved} holds the cards of ?at=${f.moved}`);
    assert.equal(f.counts, want.counts, `${name}: the board of play ${f.moved} counts its piles as ?at=${f.moved}`);
  }
  await p.evaluate((gid) => { location.hash = `#game=${gid}`; }, g.id);
  await p.getByTestId('board').waitFor();
  return fs;
}

const TABLES = [
  { game: 'comp10001bo', seed: 3, players: [{ name: 'Ada' }, { bot: 'planner' }, { bot: 'planner' }, { bot: 'planner' }], until: (s) => s.turn >= 3 },
  { game: 'hanabi', seed: 5, players: [{ name: 'Ada' }, { bot: 'rules' }, { bot: 'rules' }, { bot: 'conventions' }], until: (s) => s.deck <= 25 },
  { game: 'phazed', seed: 6, players: [{ name: 'Ada' }, { bot: 'planner' }, { bot: 'greedy' }, { bot: 'planner' }], until: (s) => s.hand_number >= 2 },
  { game: 'fivecrowns', seed: 7, players: [{ name: 'Ada' }, { bot: 'strategy' }, { bot: 'greedy' }, { bot: 'strategy' }], until: (s) => s.round >= 2 },
];

for (const t of TABLES) {
  test(`${t.game}: the bots' plays shown one at a time, each the server's position, then the live table`, async () => {
    const g = await dealAndPlay(t);
    await open(page, g.id, g.token);
    await record(page);
    const recs = await playUntilPlayback(page, g.id, g.token);
    const fs = await checkPlayback(page, g, recs, t.game);
    if (t.game === 'comp10001bo') {
      // The build piles of each position, against the server's view itself.
      for (const f of fs) {
        const at = (await call('GET', `/games/${g.id}?at=${f.moved}`, { token: g.token })).body.state;
        assert.deepEqual(f.builds, at.build_piles.map((pile) => pile[pile.length - 1] || ''), `the build piles after play ${f.moved}`);
      }
    }
  });
}

test('Skip, a click on the board: the live table at once, and the click plays nothing', async () => {
  const g = await dealAndPlay({ game: 'comp10001bo', seed: 11, players: [{ name: 'Ada' }, { bot: 'planner' }, { bot: 'planner' }, { bot: 'planner' }], until: (s) => s.turn >= 2 });
  await open(page, g.id, g.token);
  for (const how of ['skip', 'click']) {
    // The positions after the first two are held back: the playback waits on the second.
    let asked = 0;
    const held = [];
    const hold = (route) => { if (++asked <= 2) route.continue(); else held.push(route); };
    await page.route(/\/games\/[^/]+\?at=/, hold);
    try {
      await record(page);
      const from = await lastN(page);
      // Plays of ours until the bots play (a turn-ending play): that reply's playback runs on.
      for (let k = 0; k < 6; k++) {
        await playHint(page, g.token);
        if (await page.evaluate(async () => !!(await import('/core/state.js')).app.playback)) break;
        await settled(page);
      }
      await page.waitForFunction(() => window.__frames.filter((f) => f.at !== null).length >= 2);
      const recs = (await call('GET', `/games/${g.id}/plays?after=${from}&limit=1000`, { token: g.token })).body.plays;
      assert.ok(recs.length >= 4, `our play and at least one of each bot (${recs.length})`);
      const version = (await call('GET', `/games/${g.id}`, { token: g.token })).body.version;
      if (how === 'skip') await page.getByTestId('playback-skip').click();
      else await page.getByTestId('build-pile-0').click({ force: true }); // aria-disabled on a past position: a click all the same
      await settled(page);
      const fs = await framesOf(page, recs);
      const end = fs[fs.length - 1];
      assert.equal(fs.filter((f) => f.at !== null).length, 2, `${how}: two plays shown of ${recs.length}, then the end`);
      assert.equal(end.at, null, `${how}: the live table`);
      assert.equal(Number(end.moved), recs[recs.length - 1].n, `${how}: its last play marked`);
      assert.equal(await page.getByTestId('playback').isHidden(), true);
      assert.match(await page.getByTestId('status').innerText(), /Your turn/);
      assert.equal((await call('GET', `/games/${g.id}`, { token: g.token })).body.version, version, `${how}: nothing was played`);
      if (how === 'click') {
        assert.equal(await page.locator('#board [aria-pressed="true"]').count(), 0, 'the click chose nothing');
        assert.equal(await page.getByTestId('verdict').count(), 0, 'and tried nothing');
        await page.getByTestId('hand-card-0').click();
        assert.equal(await page.getByTestId('hand-card-0').getAttribute('aria-pressed'), 'true', 'the next click acts');
        await page.keyboard.press('Escape');
      }
    } finally {
      await page.unroute(/\/games\/[^/]+\?at=/, hold);
      for (const r of held) await r.continue().catch(() => {});
    }
  }
});

test('reduced motion: the end at once, its last play marked', async () => {
  const g = await dealAndPlay({ game: 'hanabi', seed: 8, players: [{ name: 'Ada' }, { bot: 'rules' }, { bot: 'rules' }] });
  const p = env.page; // the harness's browser prefers reduced motion
  await open(p, g.id, g.token);
  await record(p);
  const recs = await playUntilPlayback(p, g.id, g.token);
  const fs = await framesOf(p, recs);
  assert.deepEqual(fs.filter((f) => f.at !== null), [], 'no past position drawn');
  assert.equal(Number(fs[fs.length - 1].moved), recs[recs.length - 1].n, 'the live table marks the last play');
  assert.deepEqual(fs[fs.length - 1].seats, [`player-${recs[recs.length - 1].seat}`]);
  for (const seat of [0, 1, 2]) assert.equal(await p.getByTestId(`last-move-${seat}`).count(), 1, `seat ${seat}'s last move`);
});

test('a friend\'s move, and the bot\'s after it, reach the other browser the same way', async () => {
  const made = await call('POST', '/games', { body: { game: 'hanabi', seed: 9, players: [{ name: 'Ada' }, { bot: 'rules' }, { name: 'Bob' }] } });
  assert.equal(made.status, 201);
  const tokens = Object.fromEntries(made.body.seats.filter((s) => s.token).map((s) => [s.seat, s.token]));
  const id = made.body.id;
  // Ada (seat 0) plays through the API until it is her turn with Bob watching it in his browser.
  let v = (await call('GET', `/games/${id}`, { token: tokens[0] })).body;
  while (v.status.current !== 0) {
    const who = v.status.current;
    const hint = (await call('GET', `/games/${id}/hint`, { token: tokens[who] })).body;
    await call('POST', `/games/${id}/plays`, { token: tokens[who], body: { play: hint.play } });
    v = (await call('GET', `/games/${id}`, { token: tokens[0] })).body;
  }
  await open(page, id, tokens[2]);
  await page.getByTestId('connection').filter({ hasText: 'Live' }).waitFor();
  await record(page);
  const from = Math.max(...(await call('GET', `/games/${id}/plays`, { token: tokens[0] })).body.plays.map((r) => r.n));
  const hint = (await call('GET', `/games/${id}/hint`, { token: tokens[0] })).body;
  const r = await call('POST', `/games/${id}/plays`, { token: tokens[0], body: { play: hint.play } });
  assert.equal(r.status, 200);
  const recs = r.body.applied;
  assert.deepEqual(recs.map((x) => x.seat), [0, 1], 'Ada\'s play, then the bot\'s, then Bob\'s turn');
  await page.waitForFunction((n) => window.__frames.some((f) => f.at === null && f.moved === String(n)), recs[1].n);
  await settled(page);
  const fs = (await frames(page)).filter((f) => f.moved !== null && Number(f.moved) > from);
  assert.deepEqual(fs.map((f) => [f.at, f.moved]), [[String(recs[0].n), String(recs[0].n)], [null, String(recs[1].n)]], 'Ada\'s play on its position, then the live table with the bot\'s');
  assert.deepEqual(fs.map((f) => f.seats), [['player-0'], ['player-1']], 'each seat marked in turn');
  assert.match(fs[0].label, /^Ada: /);
  assert.match(await page.getByTestId('status').innerText(), /Your turn/);
  assert.ok(fs[1].t - fs[0].t >= 250, 'one play at a time');
  for (const seat of [0, 1, 2]) assert.equal(await page.getByTestId(`last-move-${seat}`).count(), 1, `seat ${seat}'s last move`);
});
