// `croupier tournament`: the real binary. Rotated seats, deterministic
// results whatever --jobs, a table and --json that agree, ratings that see
// a strong bot, team scores for a cooperative game, and the error cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const BIN = process.env.CROUPIER_BIN || 'build/croupier';
const run = (...args) => spawnSync(BIN, ['tournament', ...args], { encoding: 'utf8', timeout: 180000 });

function tournament(...args) {
  const r = run(...args, '--quiet');
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

function json(...args) {
  return JSON.parse(tournament(...args, '--json'));
}

// The rows of the results table of a competitive game.
function rows(out) {
  return [...out.matchAll(
    /^(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)%\s+\[\s*([\d.]+)-\s*([\d.]+)%\]\s+(-?[\d.]+)\s+(\d+)$/gm,
  )].map((m) => ({
    name: m[1], seats: +m[2], games: +m[3], wins: +m[4], rate: +m[5], lo: +m[6], hi: +m[7],
    score: +m[8], rating: +m[9],
  }));
}

const withoutTime = (out) => out.replace(/^time: .*\n/m, '');

test('tournament --help', () => {
  const r = run('--help');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /usage: croupier tournament/);
  assert.match(r.stdout, /Bradley-Terry/);
});

test('planner is far ahead of random in comp10001bo; the table adds up', () => {
  const out = tournament('--game', 'comp10001bo', '--bots', 'planner,random,random,random',
    '--games', '40', '--seed', '7');
  const t = rows(out);
  assert.deepEqual(t.map((r) => r.name), ['planner', 'random'], out);
  const [p, rnd] = t;
  const noWinner = Number(/^no winner: (\d+)$/m.exec(out)[1]);
  assert.equal(p.wins + rnd.wins + noWinner, 40, out);
  assert.equal(p.seats, 40);
  assert.equal(rnd.seats, 120);
  assert.ok(p.games === 40 && rnd.games === 40);
  assert.ok(p.wins >= 32, `planner won ${p.wins} of 40`);
  assert.ok(p.rate > 80 && p.lo > 60, out);
  assert.ok(p.rating - rnd.rating > 300, out);
  assert.match(out, /ratings: Bradley-Terry maximum likelihood/);
  assert.match(out, /^seat counts: planner 10\/10\/10\/10 random 30\/30\/30\/30$/m);
});

test('no progress bar when stderr is not a terminal', () => {
  const r = run('--game', 'hanabi', '--bots', 'conventions', '--games', '2');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /^team score: /m);
});

test('seats rotate evenly, and --games is rounded up to whole blocks', () => {
  const o = json('--game', 'comp10001bo', '--variant', 'bonus', '--bots',
    'planner,standard,standard,standard', '--games', '10');
  assert.equal(o.games, 12);
  assert.equal(o.games_asked, 10);
  assert.equal(o.blocks, 3);
  assert.deepEqual(o.seeds, [1, 3]);
  assert.deepEqual(o.lineup, ['planner', 'standard', 'standard', 'standard']);
  const [p, s] = o.strategies;
  assert.deepEqual(p.seat_counts, [3, 3, 3, 3]);
  assert.deepEqual(s.seat_counts, [9, 9, 9, 9]);
  assert.equal(p.wins + s.wins + o.no_winner, o.games);
  assert.equal(p.seat_wins.reduce((a, b) => a + b), p.wins);
  // two names at a 3-seat Phazed table fill the seats in order: a,b,a
  const z = json('--game', 'phazed', '--bots', 'planner,random', '--players', '3', '--games', '3');
  assert.deepEqual(z.lineup, ['planner', 'random', 'planner']);
  assert.deepEqual(z.strategies.map((x) => x.seat_counts), [[2, 2, 2], [1, 1, 1]]);
});

test('the same arguments give the same results whatever --jobs', () => {
  const args = ['--game', 'comp10001bo', '--bots', 'planner,random,standard,random', '--games', '16',
    '--seed', '42'];
  const a = tournament(...args, '--jobs', '1');
  const b = tournament(...args, '--jobs', '2');
  const c = tournament(...args, '--jobs', '5');
  assert.equal(withoutTime(a), withoutTime(b));
  assert.equal(withoutTime(a), withoutTime(c));
  const ja = json(...args, '--jobs', '1');
  const jb = json(...args, '--jobs', '2');
  assert.equal(ja.timing.jobs, 1);
  assert.equal(jb.timing.jobs, 2);
  delete ja.timing;
  delete jb.timing;
  assert.deepEqual(ja, jb);
  // another seed, another series
  const d = tournament(...args.slice(0, -1), '43', '--jobs', '2');
  assert.notEqual(withoutTime(a), withoutTime(d));
});

test('--json agrees with the table', () => {
  const args = ['--game', 'fivecrowns', '--bots', 'strategy,greedy', '--games', '8', '--seed', '3'];
  const out = tournament(...args);
  const o = json(...args);
  assert.equal(o.lower_is_better, true);
  assert.match(out, /penalty points: lower is better/);
  assert.equal(o.rating_method, 'bradley-terry-mle-elo-scale');
  const t = rows(out);
  assert.equal(t.length, o.strategies.length);
  for (const [i, s] of o.strategies.entries()) {
    assert.equal(t[i].name, s.name);
    assert.equal(t[i].seats, s.seats);
    assert.equal(t[i].games, s.games);
    assert.equal(t[i].wins, s.wins);
    assert.ok(Math.abs(t[i].rate - 100 * s.win_rate) < 0.006);
    assert.ok(Math.abs(t[i].lo - 100 * s.win_rate_95[0]) < 0.006);
    assert.ok(Math.abs(t[i].hi - 100 * s.win_rate_95[1]) < 0.006);
    assert.ok(Math.abs(t[i].score - s.avg_score) < 0.006);
    assert.ok(Math.abs(t[i].rating - s.rating) <= 0.5);
    assert.deepEqual(s.seat_counts, [4, 4]);
  }
  const endings = Object.values(o.endings).reduce((a, b) => a + b);
  assert.equal(endings, o.games);
  assert.ok(Math.abs(Number(/average turns per game: ([\d.]+)/.exec(out)[1]) - o.avg_turns) <= 0.05);
  // ratings are centred on 1500
  const mean = o.strategies.reduce((a, s) => a + s.rating, 0) / o.strategies.length;
  assert.ok(Math.abs(mean - 1500) < 0.1, String(mean));
});

test('a cooperative game reports the team score, not wins', () => {
  const args = ['--game', 'hanabi', '--bots', 'conventions,rules,conventions', '--games', '6'];
  const out = tournament(...args);
  assert.match(out, /^team score: [\d.]+ ± [\d.]+ \(standard error\) of 25; perfect games \d+/m);
  assert.doesNotMatch(out, /rating|win%/);
  assert.match(out, /^conventions\s+12\s+6\s+4\/4\/4\s+[\d.]+$/m);
  assert.match(out, /^rules\s+6\s+6\s+2\/2\/2\s+[\d.]+$/m);
  const o = json(...args);
  assert.equal(o.cooperative, true);
  assert.equal(o.players, 3);
  assert.equal(o.rating_method, null);
  assert.ok(o.team_score.mean > 0 && o.team_score.mean <= 25);
  assert.equal(o.team_score.max, 25);
  for (const s of o.strategies) {
    assert.equal(s.wins, undefined);
    assert.equal(s.avg_score, o.team_score.mean);
  }
  assert.deepEqual(o.strategies.map((s) => s.seat_counts), [[4, 4, 4], [2, 2, 2]]);
});

test('one strategy in every seat plays each deal once: N games are N distinct deals', () => {
  const o = json('--game', 'hanabi', '--players', '3', '--bots', 'rules', '--games', '7');
  assert.equal(o.rotations, 1);
  assert.equal(o.games, 7, 'not rounded up to blocks of 3');
  assert.equal(o.blocks, 7);
  assert.deepEqual(o.seeds, [1, 7]);
  // the team score is the mean over the 7 deals, each the game a 1-game
  // tournament from that seed plays
  const one = [1, 2, 3, 4, 5, 6, 7].map((seed) => json('--game', 'hanabi', '--players', '3', '--bots', 'rules',
    '--games', '1', '--seed', String(seed)).team_score.mean);
  assert.ok(new Set(one).size > 1, `the deals differ: ${one}`);
  assert.ok(Math.abs(one.reduce((a, b) => a + b, 0) / 7 - o.team_score.mean) < 1e-3, `${one} -> ${o.team_score.mean}`);
  const out = tournament('--game', 'hanabi', '--players', '3', '--bots', 'rules', '--games', '7');
  assert.match(out, /7 deals \(seeds 1\.\.7\) x 1 rotations/);
  assert.match(out, /each deal is played once/);
  // a mixed lineup still rotates
  assert.equal(json('--game', 'hanabi', '--bots', 'conventions,rules,conventions', '--games', '3').rotations, 3);
});

test('errors: unknown names, table sizes, bad numbers and refused seatings exit 2', () => {
  const cases = [
    [['--game', 'nope', '--bots', 'x'], /unknown game 'nope'/],
    [['--bots', 'planner'], /--game is required/],
    [['--game', 'comp10001bo'], /--bots is required/],
    [['--game', 'comp10001bo', '--bots', 'planner,nobody'], /comp10001bo has no bot 'nobody'/],
    [['--game', 'comp10001bo', '--variant', 'x', '--bots', 'planner'], /has no variant 'x'/],
    [['--game', 'comp10001bo', '--bots', 'planner', '--players', '3'], /comp10001bo takes 4-4 players, not 3/],
    [['--game', 'hanabi', '--bots', 'rules', '--players', '6'], /hanabi takes 2-5 players, not 6/],
    [['--game', 'fivecrowns', '--bots', 'strategy,greedy,random', '--players', '2'],
      /--bots names 3 strategies for 2 seats/],
    [['--game', 'comp10001bo', '--bots', 'planner', '--games', '0'], /--games takes 1\.\.\d+, not '0'/],
    [['--game', 'comp10001bo', '--bots', 'planner', '--games', 'ten'], /--games takes/],
    [['--game', 'comp10001bo', '--bots', 'planner', '--seed', '-1'], /--seed takes/],
    [['--game', 'comp10001bo', '--bots', 'planner', '--jobs', '0'], /--jobs takes/],
    [['--game', 'comp10001bo', '--bots', 'planner', '--players', 'four'], /--players takes a number/],
    [['--game', 'comp10001bo', '--bots', 'planner', '--options', '[1]'], /--options must be a JSON object/],
    [['--game', 'comp10001bo', '--bots', 'planner', '--options', '{"nope":1}'], /\/options\/nope/],
    [['--game', 'comp10001bo', '--bots', 'planner', 'extra'], /unexpected argument 'extra'/],
  ];
  for (const [args, re] of cases) {
    const r = run(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re, args.join(' '));
    assert.equal(r.stdout, '');
  }
  // a seating the game refuses (Hanabi's info bot only plays with info bots)
  const games = spawnSync(BIN, ['games'], { encoding: 'utf8' }).stdout;
  if (/^hanabi[^]*?bots:.* info\b/m.test(games)) {
    const r = run('--game', 'hanabi', '--bots', 'info,conventions');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /hanabi refuses this seating/);
  }
});

test('croupier games --json is the registry the text lists, bots[0] first', () => {
  const text = spawnSync(BIN, ['games'], { encoding: 'utf8' });
  const json = spawnSync(BIN, ['games', '--json'], { encoding: 'utf8' });
  assert.equal(text.status, 0, text.stderr);
  assert.equal(json.status, 0, json.stderr);
  const games = JSON.parse(json.stdout);
  assert.ok(games.length >= 4);
  for (const g of games) {
    const block = new RegExp(`^${g.game}\\s+${g.title}, ${g.players.min}-${g.players.max} players\\n` +
      `  variants: ${g.variants.join(' ')}\\n  bots: ${g.bots.join(' ')}$`, 'm');
    assert.match(text.stdout, block, `${g.game} listed alike`);
    assert.ok(g.players.default >= g.players.min && g.players.default <= g.players.max, g.game);
    assert.equal(typeof g.cooperative, 'boolean');
  }
  assert.deepEqual(games.filter((g) => g.cooperative).map((g) => g.game), ['hanabi']);
});
