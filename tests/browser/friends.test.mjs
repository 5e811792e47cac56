// Browser tests of playing with friends: the lobby
// seats me, invited friends and bots; each invited seat gets a link whose
// invite lives in the URL fragment only (never sent to the server in a URL,
// so never in its access log); opening it in another browser claims that
// seat (the invite travels in a request body, the seat's token comes back)
// and takes the invite out of the address bar. Two people then play a Hanabi game and a
// Comp10001-Bo game to the end through their pages, each seeing the other's
// moves within 1 s through the event stream, while a spectator sees exactly
// the public view. "My games" rejoins after a reload and in a new tab, says
// whose turn it is, and forgets a seat on request.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startAll, stopAll, openContext, settled, OUT, pollPage } from './harness.mjs';
import { assertEvery } from '../http/lib/expect.mjs';

let env;
let ada, bob, spy; // three browsers: two people and a spectator
const urls = [];   // every request URL the first browser sent
const tokens = new Set();
const games = {};

before(async () => {
  env = await startAll({ accessLog: true });
  ada = { context: env.context, page: env.page, errors: env.consoleErrors, urls, label: 'ada' };
  env.context.on('page', (p) => p.on('request', (r) => urls.push(r.url())));
  env.page.on('request', (r) => urls.push(r.url()));
  bob = await openContext(env, 'bob');
  spy = await openContext(env, 'spectator');
});
after(async () => { await stopAll(env); });

const LOG = '[data-testid="log"] > li';
const logCount = (p) => p.locator(LOG).count();
/** The page's own state (the module the page runs: same URL, same instance). */
const pageApp = (p) => p.evaluate(async () => {
  const { app } = await import('/core/state.js');
  return { id: app.id, you: app.you, version: app.version, state: app.state, token: app.token, legal: app.legal };
});
const publicView = async (id) => (await (await fetch(`${env.baseURL}/games/${id}`, { headers: { Accept: 'application/json' } })).json());

async function ready(p) {
  await p.waitForSelector('body[data-ready="true"]');
}

/** Create a game through the lobby of `p`; seats: values of the seat selects
 *  ('@me', '@invite' or a bot name), seat 0 first. Returns {id, links}. */
async function createInLobby(p, { game, players, seats, seed, name, friends = {} }) {
  await p.goto('/');
  await ready(p);
  await p.getByTestId('new-game-game').selectOption(game);
  if (players) await p.getByTestId('new-game-players').fill(String(players));
  await p.getByTestId('new-game-seat-0').selectOption(seats[0]);
  for (let i = 1; i < seats.length; i++) await p.getByTestId(`new-game-bot-${i}`).selectOption(seats[i]);
  for (const [i, n] of Object.entries(friends)) await p.getByTestId(`new-game-friend-${i}`).fill(n);
  if (name) await p.getByTestId('new-game-name').fill(name);
  await p.getByTestId('new-game-seed').fill(String(seed));
  await p.getByTestId('new-game-submit').click();
  await p.waitForFunction(() => /#game=/.test(location.hash));
  const id = decodeURIComponent(/game=([^&]+)/.exec(await p.evaluate(() => location.hash))[1]);
  const links = {};
  for (let i = 0; i < seats.length; i++) {
    if (seats[i] !== '@invite') continue;
    const input = p.getByTestId(`invite-link-${i}`);
    await input.waitFor();
    links[i] = await input.inputValue();
    tokens.add(decodeURIComponent(/invite=([^&]+)/.exec(links[i])[1]));
  }
  const own = await p.evaluate((k) => localStorage.getItem(k), `croupier.token.${id}`);
  if (own) tokens.add(own);
  return { id, links };
}

/** Open an invite link in browser `who`; check the invite left the address
 *  bar and the seat's token (from the claim) is kept. */
async function join(who, link, id) {
  tokens.add(decodeURIComponent(new URL(link).hash.match(/invite=([^&]+)/)[1]));
  await who.page.goto(link);
  await ready(who.page);
  await who.page.getByTestId('board').waitFor();
  const where = await who.page.evaluate(() => location.href);
  assert.doesNotMatch(where, /token|invite|seat=/, `${who.label}: the invite is gone from the address bar (${where})`);
  assert.match(where, new RegExp(`#game=${id}$`));
  const token = await who.page.evaluate((k) => localStorage.getItem(k), `croupier.token.${id}`);
  assert.ok(token, `${who.label}: the seat token is kept in localStorage`);
  tokens.add(token);
  return token;
}

/** The server's answer to the play `mover` is about to click. */
const acknowledged = (mover) => mover.waitForResponse((r) => r.request().method() === 'POST' && /\/plays$/.test(new URL(r.url()).pathname))
  .then(() => Date.now());

/** After a play was clicked (acknowledged at `ack`, a promise of the time):
 *  each other page shows it (its log grows), and says how it heard of it:
 *  its connection then ('live': the event stream runs, and the page polls
 *  only while its stream is down). Returns [{delay (ms), connection}]. */
async function othersSee(pages, before, ack) {
  // (A synchronous predicate: waitForFunction takes a promise for a truthy
  // answer.) The heading's indicator says how the page follows the game; the
  // stream ends with the game, and the summary then shows.
  const seen = await Promise.all(pages.map((p, i) => p.waitForFunction((k) => {
    if (document.querySelectorAll('[data-testid="log"] > li').length <= k) return false;
    const kind = /\bconnection-(\w+)/.exec(document.getElementById('connection').className);
    if (kind) return kind[1];
    return !document.getElementById('summary').hidden && 'over';
  }, before[i], { polling: 10 }).then(async (h) => ({ at: Date.now(), connection: await h.jsonValue() }))));
  const t = await ack;
  return seen.map((x) => ({ delay: Math.max(0, x.at - t), connection: x.connection }));
}

function stats(seen) {
  const x = seen.map((s) => s.delay).sort((a, b) => a - b);
  return `${x.length} updates seen after median ${x[x.length >> 1]} ms, 95th percentile ${x[Math.floor(x.length * 0.95)]} ms, max ${x[x.length - 1]} ms`;
}

/** The other pages see each move without reloading, through the event
 *  stream: a play committed by the server wakes the game's streams
 *  (api/notify.c), and the page then fetches the view and the history; the
 *  page polls only while its stream is down, so a page that saw the move
 *  while 'live' heard of it from the stream. How fast is for the benchmarks
 *  (BENCH=events); the delays are printed for the record only. */
function assertByStream(seen) {
  const other = seen.filter((s) => s.connection !== 'live' && s.connection !== 'over');
  assert.deepEqual(other, [], `every move reached the other pages through the live stream (${stats(seen)})`);
}

function assertNoTokenInUrls() {
  const all = [...urls, ...bob.urls, ...spy.urls];
  assert.ok(all.length > 20, `requests were recorded (${all.length})`);
  for (const t of tokens) {
    for (const u of all) assert.ok(!u.includes(t) && !u.includes(encodeURIComponent(t)), `a token reached the server in ${u}`);
  }
  const log = readFileSync(env.accessLog, 'utf8');
  assert.ok(log.split('\n').length > 20, 'the server wrote its access log');
  for (const t of tokens) assert.ok(!log.includes(t), 'no token in the server access log');
}

test('invite a friend from the lobby; the two play Hanabi to the end, live, and a spectator sees only the public view', async () => {
  const p = ada.page;
  // The seat choices of the lobby: people, then only the bots GET /rules seats beside people.
  await p.goto('/');
  await ready(p);
  await p.getByTestId('new-game-game').selectOption('hanabi');
  await p.getByTestId('new-game-players').fill('3');
  const opts = await p.getByTestId('new-game-bot-1').locator('option:not([disabled])').evaluateAll((os) => os.map((o) => o.value));
  const { games: cat } = await (await fetch(`${env.baseURL}/rules`)).json();
  const hb = cat.find((g) => g.game === 'hanabi');
  assert.deepEqual(opts, [...hb.bots_with_people, '@invite', '@me']);
  assert.equal(await p.getByTestId('new-game-seat-0').inputValue(), '@me', 'seat 0 is me by default');
  // Exactly one "me": choosing it elsewhere turns the old one into an invite.
  await p.getByTestId('new-game-bot-2').selectOption('@me');
  assert.equal(await p.getByTestId('new-game-seat-0').inputValue(), '@invite');
  assert.equal(await p.getByTestId('new-game-friend-0').isVisible(), true, 'an invited seat can be named');
  await p.setViewportSize({ width: 375, height: 800 });
  await p.screenshot({ path: path.join(OUT, 'friends-lobby-375.png'), fullPage: true });
  assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling at 375 px');
  await p.setViewportSize({ width: 1280, height: 900 });

  const { id, links } = await createInLobby(p, { game: 'hanabi', players: 2, seats: ['@me', '@invite'], seed: 42, name: 'Ada', friends: { 1: 'Bob' } });
  games.hanabi = id;
  assert.match(links[1], new RegExp(`^${env.baseURL}/#game=${id}&seat=1&invite=[^&]+$`), 'the link carries its invite in the fragment');
  await p.screenshot({ path: path.join(OUT, 'friends-invite-1280.png') });
  await p.setViewportSize({ width: 375, height: 800 });
  await p.getByTestId('invites').scrollIntoViewIfNeeded();
  await p.screenshot({ path: path.join(OUT, 'friends-invite-375.png') });
  assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling at 375 px');
  await p.setViewportSize({ width: 1280, height: 900 });
  const adaToken = await p.evaluate((k) => localStorage.getItem(k), `croupier.token.${id}`);
  assert.ok(adaToken, 'the creator keeps their own seat token');
  assert.equal(await p.evaluate((k) => sessionStorage.getItem(k), `croupier.token.${id}`), null, 'in localStorage only');
  const bobToken = await join(bob, links[1], id);
  assert.equal((await pageApp(bob.page)).you, 1, 'the link joined seat 1');
  assert.notEqual(bobToken, adaToken);
  await spy.page.goto(`/#game=${id}`);
  await ready(spy.page);
  await spy.page.getByTestId('hb-hand-0').waitFor();

  // Spectator: the server's rule for Hanabi is that nobody watching sees a
  // card in any hand; the page shows exactly the public view.
  const pub = await publicView(id);
  assertEvery(pub.state.hands.flat(), (c) => c.card === '??', 'GET without a token hides every hand', { length: 10 });
  const spyApp = await pageApp(spy.page);
  assert.equal(spyApp.you, null);
  assert.equal(spyApp.token, null);
  assert.deepEqual(spyApp.state, pub.state, 'the spectator holds the public view, nothing more');
  const faces = await spy.page.locator('[data-testid^="hb-hand-"] .card').evaluateAll((els) => els.map((e) => e.dataset.card));
  assertEvery(faces, (c) => c === '??', 'spectator sees no card', { length: 10 });

  // Play to the end through the pages: discard the oldest card when allowed,
  // else give a number hint. Each move shows in the other two pages within 1 s.
  const people = [ada.page, bob.page];
  const delays = [];
  let moves = 0;
  for (; moves < 200; moves++) {
    const st = (await pageApp(ada.page)).state;
    if (st.over) break;
    const me = st.current;
    const mover = people[me];
    const others = [people[1 - me], spy.page];
    await mover.waitForFunction(() => /^Your turn/.test(document.querySelector('[data-testid="status"]').textContent));
    const before = await Promise.all(others.map(logCount));
    // The page's own list of legal plays (GET /legal) says which to choose.
    const { legal } = await pageApp(mover);
    let action;
    if (legal.some((q) => q.type === 'discard' && q.card === 0)) {
      await mover.getByTestId(`hb-card-${me}-0`).click();
      action = mover.getByTestId('hb-discard');
    } else {
      await mover.getByTestId(`hb-card-${1 - me}-0`).click();
      action = mover.getByTestId('hb-hint-number');
    }
    const ack = acknowledged(mover);
    await action.click();
    try {
      delays.push(...await othersSee(others, before, ack));
    } catch (e) {
      const dump = async (q) => `${await q.getByTestId('status').innerText()} | ${await q.getByTestId('message').innerText()} | log ${await logCount(q)}`;
      console.log('diagnostics: move', moves, 'mover', me, await dump(mover), '||', await dump(others[0]), '||', await dump(others[1]), before);
      console.log('diagnostics: now', Date.now(), 'bob', bob.log.slice(-12).join('\n'), 'live', await bob.page.evaluate(async () => { const { app } = await import('/core/state.js'); return JSON.stringify({ live: !!app.live, connected: app.live && app.live.connected, busy: app.busy, refreshing: app.refreshing, leaving: app.leaving }); }));
      throw e;
    }
  }
  for (const q of [ada.page, bob.page, spy.page]) {
    await q.waitForFunction(() => !document.getElementById('summary').hidden);
  }
  const end = await publicView(id);
  assert.equal(end.state.over, true, `the game ended after ${moves} moves`);
  assert.ok(moves >= 40, `a whole game: ${moves} moves`);
  assert.deepEqual((await pageApp(spy.page)).state, end.state, 'the spectator ends on the public view');
  console.log(`hanabi: ${moves} moves; ${stats(delays)}`);
  assertByStream(delays);
  await bob.page.screenshot({ path: path.join(OUT, 'friends-hanabi-end-bob.png'), fullPage: true });
});

test('me + a friend + two bots play Comp10001-Bo to the end through their pages', async () => {
  const { id, links } = await createInLobby(ada.page, { game: 'comp10001bo', seats: ['@me', '@invite', 'standard', 'standard'], seed: 7, name: 'Ada', friends: { 1: 'Bob' } });
  games.bo = id;
  await join(bob, links[1], id);
  await spy.page.goto(`/#game=${id}`);
  await ready(spy.page);
  await spy.page.getByTestId('build-pile-0').waitFor();

  const people = [ada.page, bob.page];
  const delays = [];
  let plays = 0;
  for (; plays < 600; plays++) {
    const st = (await pageApp(ada.page)).state;
    if (st.over) break;
    const me = st.current;
    assert.ok(me === 0 || me === 1, `a person's turn (bots play inside the requests), got ${me}`);
    const mover = people[me];
    const others = [people[1 - me], spy.page];
    await mover.waitForFunction(() => /^Your turn/.test(document.querySelector('[data-testid="status"]').textContent));
    await settled(mover); // the same person may move again: "Your turn" was true before the redraw too
    const version = (await pageApp(mover)).version;
    const before = await Promise.all(others.map(logCount));
    // A legal play from the page's own list (GET /legal), made by clicks:
    // a hand card to one of our discard piles when we may (it ends the turn),
    // else the first; passing through the page's pass button.
    const { legal } = await pageApp(mover);
    const play = legal.find((q) => q[0] === 0 && q[2][0] === 1 && q[2][1][0] === me) || legal[0];
    let ack;
    if (play[0] === 3) {
      ack = acknowledged(mover);
      await mover.getByTestId('pass-button').click();
    } else {
      if (play[0] === 0) await mover.locator(`[data-testid^="hand-card-"]:has([data-card="${play[1]}"])`).first().click();
      else if (play[0] === 2) await mover.getByTestId(`stockpile-${me}`).click();
      else await mover.getByTestId(`discard-pile-${play[1][1][0]}-${play[1][1][1]}`).click();
      const dest = play[2][0] === 0 ? `build-pile-${play[2][1]}` : `discard-pile-${play[2][1][0]}-${play[2][1][1]}`;
      ack = acknowledged(mover);
      await mover.getByTestId(dest).click();
    }
    await pollPage(mover, async (v) => { const { app } = await import('/core/state.js'); return app.version !== v; }, version);
    delays.push(...await othersSee(others, before, ack));
  }
  const end = await publicView(id);
  assert.equal(end.state.over, true, `the game ended after ${plays} plays by people`);
  for (const q of [ada.page, bob.page, spy.page]) {
    await q.waitForFunction(() => !document.getElementById('summary').hidden);
  }
  // The spectator: no hand, and every card face on its board is in the public view.
  assert.equal(await spy.page.locator('[data-testid^="hand-card-"]').count(), 0, 'a spectator has no hand');
  assert.deepEqual((await pageApp(spy.page)).state, end.state);
  const shown = await spy.page.locator('[data-testid="board"] [data-card]').evaluateAll((els) => els.map((e) => e.dataset.card));
  const pubText = JSON.stringify(end.state);
  for (const c of shown) assert.ok(pubText.includes(`"${c}"`), `${c} is public`);
  console.log(`comp10001bo: ${plays} plays by people, ${end.state.result}; ${stats(delays)}`);
  assertByStream(delays);
  await ada.page.screenshot({ path: path.join(OUT, 'friends-bo-end-ada.png'), fullPage: true });
});

test('"My games": rejoin after a reload and in a new tab, whose turn it is, leave and come back, forget', async () => {
  const p = ada.page;
  const { id, links } = await createInLobby(p, { game: 'hanabi', players: 2, seats: ['@me', '@invite'], seed: 5, name: 'Ada', friends: { 1: 'Bob' } });
  await join(bob, links[1], id);
  const first = (await publicView(id)).state.current;
  // A reload keeps the seat (and no token comes back into the address bar).
  await p.reload();
  await ready(p);
  await p.getByTestId('hb-hand-0').waitFor();
  assert.equal((await pageApp(p)).you, 0, 'rejoined seat 0 after a reload');
  // A new tab of the same browser: the lobby lists this browser's games.
  const tab = await ada.context.newPage();
  tab.on('console', (m) => { if (m.type() === 'error') ada.errors.push(`tab console: ${m.text()}`); });
  await tab.goto('/');
  await ready(tab);
  const row = tab.locator(`[data-testid="my-game"][data-game-id="${id}"]`);
  await row.waitFor();
  assert.equal(await tab.locator('[data-testid="my-game"]').count(), 3, 'three games on this browser');
  assert.match(await row.innerText(), /Hanabi/);
  assert.match(await row.innerText(), /Ada \(you\), Bob/);
  assert.equal(await row.getByTestId('my-game-turn').textContent(), first === 0 ? 'Your turn' : 'Bob to play');
  assert.equal(await tab.locator(`[data-testid="my-game"][data-game-id="${games.bo}"] [data-testid="my-game-turn"]`).textContent(), 'Game over');
  // Bob's browser lists it too, from his side.
  await bob.page.goto('/');
  await ready(bob.page);
  const bobRow = bob.page.locator(`[data-testid="my-game"][data-game-id="${id}"]`);
  await bobRow.waitFor();
  assert.equal(await bobRow.getByTestId('my-game-turn').textContent(), first === 1 ? 'Your turn' : 'Ada to play');
  assert.equal(await bobRow.evaluate((e) => e.classList.contains('my-game-yours')), first === 1);
  await tab.setViewportSize({ width: 375, height: 800 });
  await tab.screenshot({ path: path.join(OUT, 'friends-my-games-375.png'), fullPage: true });
  assert.ok(await tab.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling at 375 px');
  await tab.setViewportSize({ width: 1280, height: 900 });
  await tab.screenshot({ path: path.join(OUT, 'friends-my-games-1280.png'), fullPage: true });
  // Rejoin from the list in the new tab: the same seat.
  await row.getByTestId('my-game-open').click();
  await tab.getByTestId('hb-hand-0').waitFor();
  assert.equal((await pageApp(tab)).you, 0, 'rejoined seat 0 in a new tab');
  // Leave the table for the lobby, and come back.
  await tab.getByTestId('new-game-toggle').click();
  await tab.getByTestId('my-games-leave').waitFor();
  await tab.setViewportSize({ width: 375, height: 800 });
  await tab.screenshot({ path: path.join(OUT, 'friends-my-games-in-game-375.png') });
  await tab.setViewportSize({ width: 1280, height: 900 });
  await tab.getByTestId('my-games-leave').click();
  await tab.getByTestId('new-game').waitFor();
  // "My games" is drawn again for the lobby (its row for this game opens it
  // instead of going back to it) in the same step that hides "Leave".
  await tab.getByTestId('my-games-leave').waitFor({ state: 'hidden' });
  assert.equal(await tab.getByTestId('game').isVisible(), false);
  assert.equal(await tab.evaluate(() => location.hash), '');
  await tab.locator(`[data-testid="my-game"][data-game-id="${id}"] [data-testid="my-game-open"]`).click();
  await tab.getByTestId('hb-hand-0').waitFor();
  assert.equal((await pageApp(tab)).you, 0, 'came back to seat 0');
  // Forget: gone from the list and from storage; the game then opens as a spectator.
  await tab.goto('/');
  await ready(tab);
  await tab.locator(`[data-testid="my-game"][data-game-id="${id}"] [data-testid="my-game-forget"]`).click();
  await tab.waitForFunction((k) => !document.querySelector(`[data-testid="my-game"][data-game-id="${k}"]`), id);
  assert.equal(await tab.locator('[data-testid="my-game"]').count(), 2);
  assert.equal(await tab.evaluate((k) => localStorage.getItem(k), `croupier.token.${id}`), null);
  await tab.goto(`/#game=${id}`);
  await ready(tab);
  await tab.getByTestId('hb-hand-0').waitFor();
  assert.equal((await pageApp(tab)).you, null, 'a forgotten seat is watched, not played');
  await tab.close();
});

test('an old sessionStorage token moves to localStorage; seats the server no longer knows leave the list', async () => {
  const res = await fetch(`${env.baseURL}/games`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ game: 'hanabi', seed: 3, players: [{ name: 'Cy' }, { bot: 'rules' }] }),
  });
  const created = await res.json();
  const token = created.seats[0].token;
  const cy = await openContext(env, 'cy');
  await cy.page.goto('/');
  await ready(cy.page);
  await cy.page.evaluate(([id, t]) => {
    sessionStorage.setItem(`croupier.token.${id}`, t);
    localStorage.setItem('croupier.token.no-such-game', 'not-a-token');
  }, [created.id, token]);
  await cy.page.goto(`/#game=${created.id}`);
  await ready(cy.page);
  await cy.page.getByTestId('hb-hand-0').waitFor();
  assert.equal((await pageApp(cy.page)).you, 0);
  assert.equal(await cy.page.evaluate((k) => [localStorage.getItem(k), sessionStorage.getItem(k)].join('|'), `croupier.token.${created.id}`), `${token}|`);
  await cy.page.goto('/');
  await ready(cy.page);
  await cy.page.locator('[data-testid="my-game"]').first().waitFor();
  await cy.page.waitForFunction(() => localStorage.getItem('croupier.token.no-such-game') === null);
  assert.equal(await cy.page.locator('[data-testid="my-game"]').count(), 1, 'the unknown game was dropped');

  // A table of friends only: no seat is "me", so this browser watches, with both links.
  const { id, links } = await createInLobby(cy.page, { game: 'hanabi', players: 2, seats: ['@invite', '@invite'], seed: 9, name: 'Cy' });
  assert.deepEqual(Object.keys(links), ['0', '1']);
  assert.equal((await pageApp(cy.page)).you, null, 'the creator watches');
  assert.equal(await cy.page.evaluate((k) => localStorage.getItem(k), `croupier.token.${id}`), null, 'and holds no seat');
  await cy.page.goto('/');
  await ready(cy.page);
  const row = cy.page.locator(`[data-testid="my-game"][data-game-id="${id}"]`);
  await row.waitFor();
  assert.match(await row.getByTestId('my-game-turn').textContent(), /to play \(you watch\)$/);
  await row.getByTestId('my-game-open').click();
  await cy.page.getByTestId('invite-link-1').waitFor();
  assert.equal(await cy.page.getByTestId('invite-link-0').inputValue(), links[0], 'the links are still there to copy');
  // The only console errors allowed here: the browser reporting the 404 that dropped it.
  assert.deepEqual(cy.errors.filter((e) => !/status of 404/.test(e)), []);
  await cy.context.close();
});

test('no console errors in the friends tests, and no seat token ever in a URL the server saw', () => {
  assert.deepEqual([...ada.errors, ...bob.errors, ...spy.errors], []);
  assertNoTokenInUrls();
});
