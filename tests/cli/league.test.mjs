// croupier league (docs/league.md): the students' own phazed_play functions
// as players, each in its sandbox (bubblewrap where it runs here; the test
// says which ran), against each other and the house bots. The kit's own
// player (tests/kit/phazed.py) plays every move itself; each hostile player
// gets its own misbehaviour counted and replaced while the league goes on;
// the standings are the same for the same seed whatever --jobs, and the
// merged parts of a sharded league equal the unsharded run; --publish
// imports every game into a real server and links its replay.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer } from '../http/lib/server.mjs';

const BIN = path.resolve(process.env.CROUPIER_BIN || 'build/croupier');
const KIT = path.resolve('tests/kit');
const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));

// asynchronous: --publish talks to a server of this process's children
function run(args) {
  return new Promise((resolve) => {
    const p = spawn(BIN, ['league', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function kitPlayer(dir) {
  mkdirSync(dir, { recursive: true });
  cpSync(path.join(KIT, 'phazed.py'), path.join(dir, 'phazed.py'));
  cpSync(path.join(KIT, 'mutants.py'), path.join(dir, 'mutants.py'));
}

// Each hostile player misbehaves on some calls of its process and plays no
// move of its own otherwise (None: an illegal play, replaced).
const SIG = 'def phazed_play(player_id, table, turn_history, phase_status, hand, discard):\n';
const HOSTILE = {
  loops: `CALLS = [0]\n${SIG}    CALLS[0] += 1\n    while CALLS[0] == 2:\n        pass\n    return None\n`,
  // ignores the harness's alarm: only the league's own deadline ends it
  stuck: `import signal, time\nCALLS = [0]\n${SIG}    CALLS[0] += 1\n    if CALLS[0] == 2:\n` +
    '        signal.signal(signal.SIGALRM, signal.SIG_IGN)\n        while True:\n            pass\n    return None\n',
  exits: `import os\nCALLS = [0]\n${SIG}    CALLS[0] += 1\n    if CALLS[0] == 3:\n        os._exit(3)\n    return None\n`,
  raises: `${SIG}    raise ValueError("no idea")\n`,
  garbage: `${SIG}    return object()\n`,
  noplay: 'def phazed_score(hand):\n    return 0\n',
  hog: `${SIG}    x = bytearray(1 << 31)\n    return None\n`,
};

function spy(secret) {
  // reads what it must not (another submission, the league's own files) and
  // the network; says so in every answer's exception when it could
  return `import os, socket\nLEAKS = []\nfor p in [${JSON.stringify(secret)}]:\n    try:\n        open(p).read()\n` +
    '        LEAKS.append("read " + p)\n    except OSError:\n        pass\ntry:\n' +
    '    socket.create_connection(("1.1.1.1", 53), timeout=1).close()\n    LEAKS.append("network")\n' +
    'except OSError:\n    pass\n' + SIG + '    raise RuntimeError("LEAKED: " + ", ".join(LEAKS) if LEAKS else "sealed")\n';
}

let srv;
// a long Phazed game's save passes the default body limit (64 KiB): imported below
before(async () => { srv = await startServer({ extraArgs: ['--body-limit', '1048576'] }); });
after(async () => { await srv?.stop(); });

test('refusals: exit 2, naming what is wrong', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-league-args-'));
  try {
    kitPlayer(path.join(dir, 'subs', 'kit'));
    const subs = path.join(dir, 'subs');
    for (const [args, msg] of [
      [['--out', dir, subs], /--game and --out are required/],
      [['--game', 'phazed', '--out', dir], /PLAYERS, the folder of the students' players, is required/],
      [['--game', 'hanabi', '--out', dir, subs], /hanabi \(standard\) has no play function of a course/],
      [['--game', 'phazed', '--out', dir, subs], /1 players \(1 students, 0 bots\) for tables of 4/],
      [['--game', 'phazed', '--bots', 'planner,nobody', '--out', dir, subs], /phazed has no bot 'nobody'/],
      [['--game', 'phazed', '--shard', '3/2', '--out', dir, subs], /--shard takes I\/N/],
      [['--game', 'phazed', '--move-timeout', '0', '--out', dir, subs], /--move-timeout takes 0.01..60/],
      [['--game', 'phazed', '--sandbox', 'chroot', '--out', dir, subs], /--sandbox takes auto, bwrap or none/],
    ]) {
      const r = await run(args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, msg);
    }
    const m = await run(['merge', '--out', dir]);
    assert.equal(m.status, 2);
    assert.match(m.stderr, /--out DIR and the parts/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a league of the kit player, hostile players and house bots: each misbehaviour its own, the rest played', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-league-'));
  try {
    const subs = path.join(dir, 'subs');
    kitPlayer(path.join(subs, 'kit'));
    for (const [name, code] of Object.entries(HOSTILE)) writeFileSync(path.join(subs, `${name}.py`), code);
    writeFileSync(path.join(subs, 'spy.py'), spy(path.join(subs, 'kit', 'phazed.py')));
    const out = path.join(dir, 'out');
    const r = await run(['--game', 'phazed', '--bots', 'planner,random', '--games', '4', '--seed', '3',
      '--move-timeout', '1', '--memory', '512M', '--module', 'phazed', '--quiet', '--out', out, subs]);
    assert.equal(r.status, 0, r.stderr);
    const doc = readJson(path.join(out, 'standings.json'));
    const by = Object.fromEntries(doc.standings.map((s) => [s.name, s]));
    const names = ['kit', ...Object.keys(HOSTILE), 'spy', 'planner', 'random'];
    assert.deepEqual(Object.keys(by).sort(), names.sort());
    t.diagnostic(`sandbox: ${by.kit.sandbox}`);
    assert.ok(['bwrap', 'rlimits'].includes(by.kit.sandbox));
    // 10 entrants in tables of 4: 3 tables, each played 4 times
    assert.equal(doc.league.games, 12);
    assert.equal(doc.games.length, 12);
    assert.equal(doc.standings.reduce((n, s) => n + s.games, 0), 12 * 4);
    doc.standings.forEach((s, i) => {
      assert.equal(s.rank, i + 1);
      if (i) assert.ok(s.rating <= doc.standings[i - 1].rating, 'ranked by rating');
      assert.ok(s.rating_95[0] < s.rating && s.rating < s.rating_95[1], JSON.stringify(s));
      assert.ok(s.games >= 4, `${s.name} plays at least --games`);
      assert.equal(s.replaced, s.late + s.invalid + s.error);
    });
    // the kit's player plays every move of its own
    assert.ok(by.kit.moves > 50);
    assert.equal(by.kit.replaced, 0, JSON.stringify(by.kit.examples));
    const kinds = (s) => s.examples.map((e) => `${e.kind}: ${e.reason}`).join('\n');
    assert.ok(by.loops.late >= 1, kinds(by.loops));
    assert.match(kinds(by.loops), /^late: no answer within 1 s$/m);
    assert.ok(by.stuck.late >= 1, kinds(by.stuck));
    assert.match(kinds(by.stuck), /late: no answer within 1 s \(the process was ended\)/);
    assert.match(kinds(by.exits), /error: the player's process ended/);
    assert.equal(by.raises.error, by.raises.moves);
    assert.match(kinds(by.raises), /error: raised ValueError: no idea/);
    assert.equal(by.garbage.invalid, by.garbage.moves);
    assert.match(kinds(by.garbage), /invalid: the play is not JSON/);
    assert.equal(by.noplay.error, by.noplay.moves);
    assert.match(kinds(by.noplay), /has no function/);
    assert.match(kinds(by.hog), /MemoryError/);
    for (const s of Object.values(by)) assert.ok(s.kind === 'house bot' ? s.moves === 0 : s.moves > 0, s.name);
    if (by.spy.sandbox === 'bwrap') assert.match(kinds(by.spy), /raised RuntimeError: sealed/);
    assert.doesNotMatch(kinds(by.spy), /LEAKED: read/);
    // the page and the saves
    const html = readFileSync(path.join(out, 'standings.html'), 'utf8');
    for (const n of names) assert.ok(html.includes(`>${n}</a>`), n);
    for (const g of doc.games) {
      assert.ok(html.includes(`href="games/${g.g}.json"`));
      const save = readJson(path.join(out, g.save));
      assert.deepEqual([save.format, save.game, save.seed, save.seats.length], ['json', 'phazed', g.seed, 4]);
    }
    // a save is the game: it imports, finished, into a real server
    const imp = await fetch(`${srv.base}/games/import`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: readFileSync(path.join(out, 'games/5.json')),
    });
    assert.equal(imp.status, 201, await imp.clone().text());
    const { id } = await imp.json();
    const view = await (await fetch(`${srv.base}/games/${id}`, { headers: { authorization: `Bearer ${srv.adminToken}` } })).json();
    assert.equal(view.status.over, true, JSON.stringify(view.status));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the same seed, the same standings: whatever --jobs, and a sharded league merged', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-league-shards-'));
  try {
    const subs = path.join(dir, 'subs');
    kitPlayer(path.join(subs, 'ann'));
    kitPlayer(path.join(subs, 'ben'));
    writeFileSync(path.join(subs, 'cat.py'), HOSTILE.raises);
    // discards the first card of a set of strings: its play follows Python's
    // string hashing, the same in every run only when the league fixes it
    writeFileSync(path.join(subs, 'dan.py'), `${SIG}    return (5, list(set(hand))[0])\n`);
    mkdirSync(path.join(subs, '__pycache__')); // Python's cache, left by running a student: not a player
    writeFileSync(path.join(subs, '__pycache__', 'cat.cpython-311.pyc'), '');
    const base = ['--game', 'phazed', '--bots', 'planner,greedy,random', '--games', '4', '--seed', '11',
      '--module', 'phazed', '--quiet'];
    const o = (n) => path.join(dir, n);
    const runs = await Promise.all([
      run([...base, '--jobs', '1', '--out', o('j1'), subs]),
      run([...base, '--jobs', '2', '--out', o('j2'), subs]),
    ]);
    for (const r of runs) assert.equal(r.status, 0, r.stderr);
    const shards = [];
    for (const i of [1, 2, 3]) {
      const r = await run([...base, '--shard', `${i}/3`, '--out', o(`s${i}`), subs]);
      assert.equal(r.status, 0, r.stderr);
      assert.ok(!existsSync(path.join(o(`s${i}`), 'standings.json')), 'a part alone has no standings');
      shards.push(path.join(o(`s${i}`), `part-${i}-of-3.json`));
    }
    const m = await run(['merge', '--quiet', '--out', o('merged'), ...shards]);
    assert.equal(m.status, 0, m.stderr);
    const one = readFileSync(path.join(o('j1'), 'standings.json'), 'utf8');
    assert.equal(readFileSync(path.join(o('j2'), 'standings.json'), 'utf8'), one);
    assert.equal(readFileSync(path.join(o('merged'), 'standings.json'), 'utf8'), one);
    const doc = JSON.parse(one);
    assert.deepEqual(doc.league.entrants, ['ann', 'ben', 'cat', 'dan', 'bot:planner', 'bot:greedy', 'bot:random']);
    assert.ok(doc.standings.find((s) => s.name === 'dan').moves > doc.standings.find((s) => s.name === 'dan').replaced,
      'dan discards: some of its moves are its own');
    for (const g of doc.games) assert.ok(existsSync(path.join(o('merged'), g.save)), g.save);
    // a part missing, a part twice, a part of another league: refused
    const missing = await run(['merge', '--out', o('bad'), shards[0], shards[2]]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /a part is missing|in none: the parts given are not the league's 3 parts/);
    const twice = await run(['merge', '--out', o('bad'), shards[0], shards[0], shards[1], shards[2]]);
    assert.equal(twice.status, 2);
    assert.match(twice.stderr, /in two parts/);
    const other = await run([...base.map((a) => (a === '11' ? '12' : a)), '--shard', '1/3', '--out', o('x'), subs]);
    assert.equal(other.status, 0, other.stderr);
    const mixed = await run(['merge', '--out', o('bad'), path.join(o('x'), 'part-1-of-3.json'), shards[1], shards[2]]);
    assert.equal(mixed.status, 2);
    assert.match(mixed.stderr, /is a part of another league/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--publish: every game played again on a real server, each linked to its replay', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-league-publish-'));
  try {
    const subs = path.join(dir, 'subs');
    kitPlayer(path.join(subs, 'kit'));
    const out = path.join(dir, 'out');
    const r = await run(['--game', 'phazed', '--bots', 'planner,greedy,random', '--games', '1', '--module', 'phazed',
      '--quiet', '--publish', srv.base, '--out', out, subs]);
    assert.equal(r.status, 0, r.stderr);
    const doc = readJson(path.join(out, 'standings.json'));
    assert.equal(doc.games.length, 4);
    const html = readFileSync(path.join(out, 'standings.html'), 'utf8');
    for (const g of doc.games) {
      const m = new RegExp(`^${srv.base.replace(/[.]/g, '\\.')}/#game=([A-Za-z0-9_-]+)&at=-1$`).exec(g.replay);
      assert.ok(m, g.replay);
      assert.ok(html.includes(`href="${g.replay.replace(/&/g, '&amp;')}"`));
      // anyone may watch it (no token): the whole game, every position of it
      const view = await (await fetch(`${srv.base}/games/${m[1]}`)).json();
      assert.equal(view.status.over, true);
      const bots = new Set(['planner', 'greedy', 'random']);
      assert.deepEqual(view.seats.map((s) => s.name), g.seats.map((n) => (bots.has(n) ? `${n} (bot)` : n)));
      assert.deepEqual(view.status.winners.map((w) => g.seats[w]), g.winners);
      const save = readJson(path.join(out, g.save));
      assert.equal(view.status.plays, save.state.log.length, 'every play of the league is in the server\'s log');
      const mid = await fetch(`${srv.base}/games/${m[1]}?at=${Math.floor(view.status.plays / 2)}`);
      assert.equal(mid.status, 200, await mid.clone().text());
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
