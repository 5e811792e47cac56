// Command-line tests: the real binary, its --help texts, and selfplay
// reports (the strategy must clearly beat random over seeded games).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const BIN = process.env.CROUPIER_BIN || 'build/croupier';
const run = (...args) => spawnSync(BIN, args, { encoding: 'utf8', timeout: 120000 });

test('croupier without a command prints usage and exits 2', () => {
  const r = run();
  assert.equal(r.status, 2);
  assert.match(r.stderr, /usage: croupier <command>/);
});

test('croupier --version names VERSION and the commit built', () => {
  const r = run('--version');
  assert.equal(r.status, 0);
  if (spawnSync('git', ['rev-parse', 'HEAD']).status !== 0) // built outside git
    return assert.match(r.stdout, /^croupier \d+\.\d+\.\d+ \(commit unknown\)\n$/);
  const m = /^croupier (\S+) \(commit ([0-9a-f]{7,40})(-dirty)?\)\n$/.exec(r.stdout);
  assert.ok(m, r.stdout);
  assert.equal(m[1], readFileSync('VERSION', 'utf8').trim());
  assert.match(m[1], /^\d+\.\d+\.\d+$/, 'Semantic Versioning');
  const built = readFileSync(path.join(path.dirname(BIN), BIN.includes('asan') ? '..' : '.', 'gen', 'build_info.h'), 'utf8');
  assert.match(built, new RegExp(`CROUPIER_COMMIT "${m[2]}${m[3] || ''}"`), 'the commit of the build');
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  const ancestor = spawnSync('git', ['merge-base', '--is-ancestor', m[2], 'HEAD']).status === 0;
  assert.ok(m[2] === head || ancestor, `${m[2]} is HEAD (${head}) or an ancestor of it`);
});

test('every command has --help', () => {
  for (const cmd of ['serve', 'selfplay', 'games', 'backup']) {
    const r = run(cmd, '--help');
    assert.equal(r.status, 0, `${cmd} --help exit code`);
    assert.match(r.stdout, new RegExp(`usage: croupier ${cmd}`));
  }
  assert.equal(run('help').status, 0);
});

test('unknown command and bad options are refused', () => {
  assert.equal(run('frobnicate').status, 2);
  assert.equal(run('selfplay', '--game', 'nope').status, 2);
  assert.equal(run('selfplay', '--game', 'comp10001bo', '--bots', 'nobody').status, 2);
  assert.equal(run('serve', '--threads', '0').status, 2);
  const r = run('serve', '--listen', '127.0.0.1:1', '--store', 'mysql://x');
  assert.equal(r.status, 1);
  assert.match(r.stderr, /unsupported store URL/);
});

test('selfplay names a wrong table size, from the game\'s own player range', () => {
  for (const n of ['9', '1']) {
    const r = run('selfplay', '--game', 'hanabi', '--players', n, '--games', '1');
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`hanabi takes 2-5 players, not ${n}\\n`));
    assert.doesNotMatch(r.stderr, /bots given/);
  }
  const many = run('selfplay', '--game', 'hanabi', '--bots', 'rules,random,rules,random,rules,random');
  assert.equal(many.status, 2);
  assert.match(many.stderr, /hanabi takes 2-5 players, not 6 \(one per bot in --bots\)/);
  const mismatch = run('selfplay', '--game', 'hanabi', '--players', '3', '--bots', 'rules,random');
  assert.equal(mismatch.status, 2);
  assert.match(mismatch.stderr, /--bots names 2 strategies for 3 players/);
  const notNumber = run('selfplay', '--game', 'hanabi', '--players', 'four');
  assert.equal(notNumber.status, 2);
  assert.match(notNumber.stderr, /--players takes a number of seats, not 'four'/);
  const ok = run('selfplay', '--game', 'hanabi', '--players', '5', '--games', '3', '--quiet');
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /bots: conventions,conventions,conventions,conventions,conventions\n/);
});

test('games lists comp10001bo with its bots', () => {
  const r = run('games');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /comp10001bo\s+Comp10001-Bo, 4-4 players/);
  assert.match(r.stdout, /bots: planner( \w+)* random/);
});

function selfplay(bots, games = 200, seed = 1) {
  const r = run('selfplay', '--game', 'comp10001bo', '--bots', bots, '--games', String(games),
    '--seed', String(seed));
  assert.equal(r.status, 0, r.stderr);
  const wins = [...r.stdout.matchAll(/^(\d)\s+(\S+)\s+(\d+)\s+([\d.]+)%/gm)]
    .map((m) => ({ seat: +m[1], bot: m[2], wins: +m[3] }));
  assert.equal(wins.length, 4, r.stdout);
  const turns = Number(/average turns per game: ([\d.]+)/.exec(r.stdout)[1]);
  const noWinner = Number(/no winner: (\d+)/.exec(r.stdout)[1]);
  return { out: r.stdout, wins, turns, noWinner };
}

test('selfplay reports wins per seat, endings and average turns; totals add up', () => {
  const s = selfplay('random', 100);
  const total = s.wins.reduce((a, w) => a + w.wins, 0) + s.noWinner;
  assert.equal(total, 100);
  assert.ok(s.turns > 0);
  assert.match(s.out, /endings: /);
});

test('selfplay of a cooperative game: mean ± standard error, perfect-game rate, endings with their shares, games/s', () => {
  const r = run('selfplay', '--game', 'hanabi', '--bots', 'random', '--players', '3', '--games', '200',
    '--seed', '1', '--quiet');
  assert.equal(r.status, 0, r.stderr);
  const m = /average score: ([\d.]+) ± ([\d.]+) \(standard error\), max 25/.exec(r.stdout);
  assert.ok(m && +m[2] > 0, r.stdout);
  assert.match(r.stdout, /perfect games: \d+ \([\d.]+%\)/);
  const endings = [...(/endings:(.*)/.exec(r.stdout)[1]).matchAll(/ (\S+) (\d+) \(([\d.]+)%\)/g)];
  assert.ok(endings.some((e) => e[1] === 'errors'), r.stdout); // random players strike out
  assert.equal(endings.reduce((a, e) => a + Number(e[2]), 0), 200);
  assert.ok(Math.abs(endings.reduce((a, e) => a + Number(e[3]), 0) - 100) < 0.1);
  assert.match(r.stdout, /time: [\d.]+ s \(\d+ games\/s\)/);
});

test('selfplay is deterministic for a seed', () => {
  assert.equal(selfplay('planner,random,random,random', 30, 9).out.replace(/time:.*/, ''),
    selfplay('planner,random,random,random', 30, 9).out.replace(/time:.*/, ''));
});

test('the planner clearly beats random (same seeds, every seat)', () => {
  for (let seat = 0; seat < 4; seat++) {
    const bots = ['random', 'random', 'random', 'random'];
    bots[seat] = 'planner';
    const withPlanner = selfplay(bots.join(','), 100, 1000 + seat);
    const allRandom = selfplay('random', 100, 1000 + seat);
    const p = withPlanner.wins[seat].wins, r = allRandom.wins[seat].wins;
    assert.ok(p >= 80, `planner at seat ${seat} won only ${p}/100`);
    assert.ok(p > 5 * Math.max(r, 1), `planner ${p} vs random ${r} at seat ${seat}`);
  }
});

test('croupier fcgi answers one CGI request when a CGI server starts it', () => {
  const dir = spawnSync('mktemp', ['-d'], { encoding: 'utf8' }).stdout.trim();
  const cgi = (env, input = '') => spawnSync(BIN, ['fcgi', '--store', `sqlite:${dir}/cgi.db`], {
    encoding: 'utf8',
    input,
    env: { PATH: process.env.PATH, GATEWAY_INTERFACE: 'CGI/1.1', QUERY_STRING: '', ...env },
  });
  try {
    const get = cgi({ REQUEST_METHOD: 'GET', PATH_INFO: '/rules' });
    assert.equal(get.status, 0, get.stderr);
    assert.match(get.stdout, /^Status: 200 OK\r\nContent-Type: application\/json/);
    assert.match(get.stdout, /"game":"comp10001bo"/);
    const body = '[[0,"2C",[0,0]],0,["2C","AS","9D","0D","0S"],[["9C",8],["0D",8],["3H",8],["KD",8]],[[[],[],[],[]],[[],[],[],[]],[[],[],[],[]],[[],[],[],[]]],[[],[],[],[]]]';
    const post = cgi({ REQUEST_METHOD: 'POST', PATH_INFO: '/validate/comp10001bo/is_valid_play',
      CONTENT_TYPE: 'application/json', CONTENT_LENGTH: String(body.length) }, body);
    assert.match(post.stdout, /^Status: 200 OK\r\n/);
    assert.match(post.stdout, /\r\n\r\n\{"result":1\}$/);
    const bad = cgi({ REQUEST_METHOD: 'PUT', PATH_INFO: '/games' });
    assert.match(bad.stdout, /^Status: 405 Method Not Allowed\r\nContent-Type: application\/problem\+json\r\nAllow: POST/);
  } finally {
    spawnSync('rm', ['-rf', dir]);
  }
});

test('serve --access-log writes one line per request; SIGTERM stops it cleanly', async () => {
  const { spawn } = await import('node:child_process');
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const dir = mkdtempSync('/tmp/croupier-cli-');
  const proc = spawn(BIN, ['serve', '--listen', '127.0.0.1:0', '--store', `sqlite:${dir}/a.db`, '--access-log', `${dir}/access.log`]);
  try {
    const base = await new Promise((resolve, reject) => {
      let out = '';
      proc.stdout.on('data', (d) => { out += d; const m = /listening on (http:\/\/[^ ]+)/.exec(out); if (m) resolve(m[1]); });
      proc.on('exit', () => reject(new Error('exited')));
      setTimeout(() => reject(new Error('not ready')), 10000);
    });
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    assert.equal((await fetch(`${base}/nothing-here`)).status, 404);
    const code = await new Promise((resolve) => { proc.on('exit', (c) => resolve(c)); proc.kill('SIGTERM'); });
    assert.equal(code, 0);
    const log = readFileSync(`${dir}/access.log`, 'utf8');
    assert.match(log, /"GET \/healthz HTTP\/1\.1" 200/);
    assert.match(log, /"GET \/nothing-here HTTP\/1\.1" 404/);
  } finally {
    if (proc.exitCode === null) proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every start-up input is checked before serving: one line naming croupier, the option and the path', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-start-'));
  try {
    const garbage = path.join(dir, 'garbage.yaml');
    writeFileSync(garbage, 'this: [is not: an openapi document\n');
    const notOpenapi = path.join(dir, 'plain.yaml');
    writeFileSync(notOpenapi, 'title: a YAML file that is no OpenAPI document\n');
    // an operator's file, read as input all the same: a "billion laughs"
    // of aliases, a 100,000-deep nesting, a file past 4 MiB
    const laughs = path.join(dir, 'laughs.yaml');
    let bomb = 'openapi: 3.1.0\npaths: {}\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
    for (let i = 1; i < 10; i++) bomb += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]\n`;
    writeFileSync(laughs, bomb);
    const deep = path.join(dir, 'deep.yaml');
    writeFileSync(deep, `openapi: 3.1.0\npaths: {}\nx: ${'['.repeat(100000)}${']'.repeat(100000)}\n`);
    const huge = path.join(dir, 'huge.yaml');
    writeFileSync(huge, `openapi: 3.1.0\npaths: {}\nx: "${'y'.repeat(5 << 20)}"\n`);
    const emptyWww = path.join(dir, 'www');
    mkdirSync(emptyWww);
    const store = ['--store', `sqlite:${path.join(dir, 't.db')}`];
    const cases = [
      ['serve', ['--listen', '127.0.0.1:0', '--access-log', '/proc/croupier-nowhere/access.log'], '--access-log', '/proc/croupier-nowhere/access.log'],
      ['serve', ['--listen', '127.0.0.1:0', '--access-log', dir], '--access-log', dir],
      ['serve', ['--listen', '127.0.0.1:0', '--www', path.join(dir, 'missing')], '--www', path.join(dir, 'missing')],
      ['serve', ['--listen', '127.0.0.1:0', '--www', emptyWww], '--www', emptyWww],
      ['serve', ['--listen', '127.0.0.1:0', '--openapi', path.join(dir, 'missing.yaml')], '--openapi', path.join(dir, 'missing.yaml')],
      ['serve', ['--listen', '127.0.0.1:0', '--openapi', garbage], '--openapi', garbage],
      ['serve', ['--listen', '127.0.0.1:0', '--openapi', notOpenapi], '--openapi', notOpenapi],
      ['serve', ['--listen', '127.0.0.1:0', '--openapi', laughs], '--openapi', laughs, /1,000,000 nodes/],
      ['serve', ['--listen', '127.0.0.1:0', '--openapi', deep], '--openapi', deep, /deeper than 64/],
      ['fcgi', ['--openapi', huge], '--openapi', huge, /larger than 4 MiB/],
      ['serve', ['--listen', '256.1.1.1:80'], '--listen', '256.1.1.1:80'],
      ['fcgi', ['--listen', path.join(dir, 'no', 'such', 'folder', 'fcgi.sock')], '--listen', path.join(dir, 'no', 'such', 'folder', 'fcgi.sock')],
      ['fcgi', ['--listen', 'nosuchhost.invalid:9000'], '--listen', 'nosuchhost.invalid:9000'],
      ['fcgi', ['--www', path.join(dir, 'missing')], '--www', path.join(dir, 'missing')],
      ['serve', ['--listen', '127.0.0.1:0', '--docs', path.join(dir, 'missing')], '--docs', path.join(dir, 'missing')],
      ['serve', ['--listen', '127.0.0.1:0', '--docs', emptyWww], '--docs', emptyWww],
      ['fcgi', ['--docs', path.join(dir, 'missing')], '--docs', path.join(dir, 'missing')],
      ['serve', ['--listen', '127.0.0.1:0', '--nchan-publish', 'https://127.0.0.1/pub'], '--nchan-publish', 'https://127.0.0.1/pub', /http:\/\/HOST:PORT\/PREFIX/],
      ['fcgi', ['--nchan-publish', 'http://:8090/pub'], '--nchan-publish', 'http://:8090/pub', /http:\/\/HOST:PORT\/PREFIX/],
      ['serve', ['--listen', '127.0.0.1:0', '--nchan-publish', 'http://127.0.0.1:99999/pub'], '--nchan-publish', 'http://127.0.0.1:99999/pub'],
      ['fcgi', ['--nchan-publish', `http://127.0.0.1:8090/${'p'.repeat(300)}`], '--nchan-publish', `http://127.0.0.1:8090/${'p'.repeat(300)}`],
    ];
    for (const [cmd, args, option, file, why] of cases) {
      const env = { ...process.env };
      delete env.GATEWAY_INTERFACE; // else fcgi answers one CGI request
      const r = spawnSync(BIN, [cmd, ...store, ...args], { encoding: 'utf8', timeout: 20000, env });
      const what = `croupier ${cmd} ${args.join(' ')}`;
      assert.notEqual(r.status, 0, `${what}: exits non-zero (got ${r.status}, signal ${r.signal}); ${r.stderr}`);
      assert.equal(r.signal, null, `${what}: exits, not killed (it must not start serving)`);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `${what}: one line: ${r.stderr}`);
      assert.ok(lines[0].startsWith(`croupier ${cmd}: ${option} ${file}: `), `${what}: names croupier, the option and the path: ${lines[0]}`);
      if (why) assert.match(lines[0], why, `${what}: says why`);
      assert.equal(r.stdout, '', `${what}: never said it was listening`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--www '', --openapi '' and --docs '' serve no page, no document and no rules page", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-off-'));
  const proc = spawn(BIN, ['serve', '--store', `sqlite:${path.join(dir, 't.db')}`, '--listen', '127.0.0.1:0', '--www', '', '--openapi', '', '--docs', ''],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const base = await new Promise((resolve, reject) => {
      let out = '';
      const t = setTimeout(() => reject(new Error(`not listening: ${out}`)), 10000);
      proc.stdout.on('data', (d) => { out += d; const m = /listening on (http:\/\/\S+)/.exec(out); if (m) { clearTimeout(t); resolve(m[1]); } });
      proc.on('exit', () => { clearTimeout(t); reject(new Error(`exited: ${out}`)); });
    });
    assert.equal((await fetch(`${base}/`)).status, 404);
    assert.equal((await fetch(`${base}/openapi.yaml`)).status, 404);
    assert.equal((await fetch(`${base}/docs/rules/hanabi.md`)).status, 404);
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
});
