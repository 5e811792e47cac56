// croupier grade (docs/autograder.md, "Grading a cohort"): a real cohort
// graded by the real binary, each student's code in its sandbox (bubblewrap
// where it runs here; every test says which ran): the kit's own
// implementation (tests/kit/phazed.py) gets full marks, one of its mutants
// fails the clause it breaks, hostile submissions each get their own clear
// result without touching the others' grades, an interrupted run resumes,
// and the Gradescope bundle grades a submission laid out as Gradescope lays
// it out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, appendFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const BIN = path.resolve(process.env.CROUPIER_BIN || 'build/croupier');
const KIT = path.resolve('tests/kit');
const run = (args, opts = {}) => spawnSync(BIN, args, { encoding: 'utf8', timeout: 600_000, maxBuffer: 1 << 28, ...opts });
const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));
const csv = (p) => readFileSync(p, 'utf8').trim().split('\n').map((l) => l.split(','));

function kitStudent(dir, mutant) {
  mkdirSync(dir, { recursive: true });
  cpSync(path.join(KIT, 'phazed.py'), path.join(dir, 'phazed.py'));
  cpSync(path.join(KIT, 'mutants.py'), path.join(dir, 'mutants.py'));
  if (mutant) appendFileSync(path.join(dir, 'mutants.py'), `\nACTIVE = ${JSON.stringify(mutant)}\n`);
}

// Gradescope's results.json (its autograder specification): a number score,
// tests with name, score <= max_score, status passed|failed, output, tags.
function checkGradescope(doc) {
  assert.equal(typeof doc.score, 'number');
  assert.ok(Array.isArray(doc.tests) && doc.tests.length > 0);
  let sum = 0;
  for (const t of doc.tests) {
    assert.equal(typeof t.name, 'string');
    assert.equal(typeof t.score, 'number');
    assert.equal(typeof t.max_score, 'number');
    assert.ok(t.score >= 0 && t.score <= t.max_score, JSON.stringify(t));
    assert.ok(['passed', 'failed'].includes(t.status));
    assert.equal(t.status === 'passed', t.score === t.max_score);
    assert.equal(typeof t.output, 'string');
    assert.ok(Array.isArray(t.tags));
    assert.ok(['hidden', 'after_due_date', 'after_published', 'visible'].includes(t.visibility));
    sum += t.score;
  }
  assert.equal(doc.score, sum);
  for (const l of doc.leaderboard) assert.ok(typeof l.name === 'string' && typeof l.value === 'number');
}

test('refusals: exit 2, naming what is wrong', () => {
  for (const [args, msg] of [
    [['--out', '/tmp/x', 'subs'], /--game and --out are required/],
    [['--game', 'phazed', '--out', '/tmp/x'], /SUBMISSIONS, the folder of submissions, is required/],
    [['--game', 'nope', '--out', '/tmp/x', 's'], /unknown game 'nope'/],
    [['--game', 'phazed', '--fn', 'nope', '--out', '/tmp/x', 's'], /phazed has no suite of 'nope'/],
    [['--game', 'phazed', '--sandbox', 'chroot', '--out', '/tmp/x', 's'], /--sandbox takes auto, bwrap or none/],
    [['--game', 'phazed', '--call-timeout', '0', '--out', '/tmp/x', 's'], /--call-timeout takes/],
    [['--game', 'phazed', '--jobs', '0', '--out', '/tmp/x', 's'], /--jobs takes 1..64/],
    [['--game', 'phazed', '--visibility', 'public', '--out', '/tmp/x', 's'], /--visibility takes visible, hidden/],
    [['--game', 'phazed', '--gradescope-bundle', '--out', '/tmp/x.zip', 'extra'], /unexpected argument 'extra'/],
  ]) {
    const r = run(['grade', ...args]);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, msg);
  }
  assert.match(run(['help']).stdout, /grade +grade a cohort's submissions/);
});

test('the cohort table counts a student without the function apart, not as failing every clause', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-grade-absent-'));
  try {
    kitStudent(path.join(dir, 'subs', 'alice'));
    kitStudent(path.join(dir, 'subs', 'bob'), 'run-no-wrap');
    const carol = path.join(dir, 'subs', 'carol'); // wrote phazed_score only
    kitStudent(carol);
    cpSync(path.join(carol, 'phazed.py'), path.join(carol, 'kit_impl.py'));
    writeFileSync(path.join(carol, 'phazed.py'), 'from kit_impl import phazed_score\n');
    const out = path.join(dir, 'out');
    const r = run(['grade', '--game', 'phazed', '--fn', 'group_type', '--fn', 'score', '--n', '68', '--module', 'phazed',
      '--jobs', '2', '--out', out, path.join(dir, 'subs')]);
    assert.equal(r.status, 0, r.stderr);
    const carolRec = readJson(path.join(out, 'students', 'carol.json'));
    assert.deepEqual(carolRec.suites.map((s) => [s.fn, s.absent, s.failed]), [['group_type', true, 68], ['score', false, 0]]);
    const cohort = readJson(path.join(out, 'cohort.json'));
    const gt = cohort.suites.find((s) => s.suite === 'phazed/group_type/standard');
    assert.deepEqual([gt.students, gt.students_absent, gt.absent], [3, 1, ['carol']]);
    for (const c of gt.clauses) {
      const want = c.id === 'phazed.group.run-wrap' ? [1, 0.5, 'bob'] : [0, 0, undefined];
      assert.deepEqual([c.students_failing, c.share, c.example?.student], want, c.id);
    }
    const sc = cohort.suites.find((s) => s.suite === 'phazed/score/standard');
    assert.equal(sc.students_absent, 0);
    assert.match(readFileSync(path.join(out, 'cohort.html'), 'utf8'),
      /1 of 3 students have no phazed_group_type that runs \(carol\): not counted in the shares below/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a cohort: the kit\'s implementation full marks, a mutant fails its clause, the outputs, resume', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-grade-'));
  try {
    kitStudent(path.join(dir, 'subs', 'alice'));
    kitStudent(path.join(dir, 'subs', 'bob'), 'run-no-wrap');
    const out = path.join(dir, 'out');
    const args = ['grade', '--game', 'phazed', '--fn', 'group_type', '--fn', 'score', '--n', '68', '--module', 'phazed', '--jobs', '2',
      '--out', out, path.join(dir, 'subs')];
    const r = run(args);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /2\/2 students done \(0 from an earlier run\), \d+:\d\d:\d\d left/);
    const alice = readJson(path.join(out, 'students', 'alice.json'));
    const bob = readJson(path.join(out, 'students', 'bob.json'));
    t.diagnostic(`sandbox: ${alice.sandbox}${alice.warnings.length ? ' (' + alice.warnings.join('; ') + ')' : ''}`);
    assert.ok(alice.sandbox === 'bwrap' || (alice.sandbox === 'rlimits' && /no sandbox/.test(alice.warnings[0])));
    assert.deepEqual([alice.passed, alice.failed, alice.score], [136, 0, 1]);
    const bobGt = bob.suites.find((s) => s.fn === 'group_type');
    const failing = bobGt.clauses.filter((c) => c.failed).map((c) => c.id);
    assert.deepEqual(failing, ['phazed.group.run-wrap']);
    const wrap = bobGt.clauses.find((c) => c.id === 'phazed.group.run-wrap');
    assert.equal(wrap.failed, wrap.cases);
    assert.match(wrap.example.message, /expected: \[4\]|expected: \[5\]|expected: \[4, 5\]/);
    assert.ok('expected' in wrap.example);
    assert.equal(bob.suites.find((s) => s.fn === 'score').failed, 0);
    assert.match(readFileSync(path.join(out, 'students', 'bob.txt'), 'utf8'),
      /smallest failing case of phazed\.group\.run-wrap \(\d+ of \d+ failed\):\ncase \d+ \[phazed\.group\.run-wrap\]/);
    const rows = csv(path.join(out, 'grades.csv'));
    assert.deepEqual(rows[0], ['student', 'suite', 'passed', 'failed', 'score']);
    assert.deepEqual(rows.slice(1), [
      ['alice', 'phazed/group_type/standard', '68', '0', '1.0000'],
      ['alice', 'phazed/score/standard', '68', '0', '1.0000'],
      ['bob', 'phazed/group_type/standard', String(68 - wrap.failed), String(wrap.failed), (1 - wrap.failed / 68).toFixed(4)],
      ['bob', 'phazed/score/standard', '68', '0', '1.0000'],
    ]);
    for (const s of ['alice', 'bob']) checkGradescope(readJson(path.join(out, 'gradescope', s, 'results.json')));
    const gsBob = readJson(path.join(out, 'gradescope', 'bob', 'results.json'));
    assert.deepEqual(gsBob.tests.filter((x) => x.status === 'failed').map((x) => x.tags[1]), ['phazed.group.run-wrap']);
    const cohort = readJson(path.join(out, 'cohort.json'));
    assert.equal(cohort.students, 2);
    const cw = cohort.suites.find((s) => s.suite === 'phazed/group_type/standard').clauses.find((c) => c.id === 'phazed.group.run-wrap');
    assert.deepEqual([cw.students_failing, cw.share, cw.example.student], [1, 0.5, 'bob']);
    assert.match(readFileSync(path.join(out, 'cohort.html'), 'utf8'), /<code>phazed\.group\.run-wrap<\/code><\/td><td class=n>1<\/td><td class=n>50%/);
    // The expected answers are ours alone.
    assert.equal(readFileSync(path.join(out, '.croupier', 'suite-group_type-standard.json')).length > 0, true);
    // Resumed: nothing graded again; a new seed grades again.
    const again = run(args);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /2\/2 students done \(2 from an earlier run\)/);
    assert.match(again.stdout, /0 graded now, 2 from an earlier run/);
    rmSync(path.join(out, 'students', 'bob.json')); // as if the run had stopped before bob
    const part = run(args);
    assert.match(part.stderr, /1\/2 students done \(1 from an earlier run\)/);
    assert.deepEqual(csv(path.join(out, 'grades.csv')), rows);
    const reseeded = run([...args.slice(0, -3), '--seed', '7', '--out', out, path.join(dir, 'subs')]);
    assert.match(reseeded.stdout, /2 graded now, 0 from an earlier run/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an interrupted run (SIGTERM) stops at once and the same command resumes it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-resume-'));
  try {
    for (const s of ['s1', 's2', 's3', 's4']) kitStudent(path.join(dir, 'subs', s));
    const out = path.join(dir, 'out');
    const args = ['grade', '--game', 'phazed', '--fn', 'group_type', '--fn', 'phase_type', '--n', '300', '--module', 'phazed',
      '--out', out, path.join(dir, 'subs')];
    const child = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    const code = await new Promise((resolve) => {
      child.stderr.on('data', (d) => {
        err += d;
        if (/1\/4 students done/.test(err) && !child.killed) child.kill('SIGTERM');
      });
      child.on('close', (c, sig) => resolve(c ?? sig));
    });
    assert.equal(code, 143, err);
    assert.match(err, /stopped by signal 15: [12] of 4 students done; the same command resumes/);
    assert.ok(!existsSync(path.join(out, 'grades.csv')));
    const r = run(args);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /4\/4 students done \([12] from an earlier run\)/);
    assert.deepEqual(csv(path.join(out, 'grades.csv')).slice(1).map((row) => row.slice(2)), Array(8).fill(['300', '0', '1.0000']));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Run by root, a run's students have uids of their own, and every process
// of a uid is killed when its student is done: a second run as root waits
// for the first one's uids (an flock) rather than kill its students.
test('a second run as root waits for the first one\'s uids, then grades', { skip: process.getuid() !== 0 && 'only root gives students uids of their own' }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-uids-'));
  const lock = existsSync('/run/lock') ? '/run/lock/croupier-grade.lock' : '/tmp/croupier-grade.lock';
  // the first run, as the lock sees it: a process holding it for 3 s
  const holder = spawn('flock', [lock, 'sh', '-c', 'echo held; sleep 3'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise((resolve, reject) => {
      holder.stdout.on('data', (d) => { if (/held/.test(String(d))) resolve(); });
      holder.on('error', reject);
      holder.on('close', (c) => reject(new Error(`flock ended first (${c})`)));
    });
    kitStudent(path.join(dir, 'subs', 'ann'));
    const out = path.join(dir, 'out');
    const child = spawn(BIN, ['grade', '--game', 'phazed', '--fn', 'group_type', '--n', '50', '--module', 'phazed',
      '--out', out, path.join(dir, 'subs')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '', waitedBeforeRelease = false, holderDone = false;
    holder.on('close', () => { holderDone = true; });
    const code = await new Promise((resolve) => {
      child.stderr.on('data', (d) => {
        err += d;
        if (/waiting for it to end/.test(err) && !holderDone) waitedBeforeRelease = true;
      });
      child.on('close', (c) => resolve(c));
    });
    assert.equal(code, 0, err);
    assert.ok(waitedBeforeRelease, `the second run said it waits while the first held the uids: ${err}`);
    assert.ok(holderDone, 'it graded only once the first run was over');
    assert.deepEqual(csv(path.join(out, 'grades.csv')).slice(1).map((row) => row.slice(2)), [['50', '0', '1.0000']]);
  } finally {
    holder.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--sandbox none: rlimits only, and the record and the report say so', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-none-'));
  try {
    kitStudent(path.join(dir, 'subs', 'carol'));
    const out = path.join(dir, 'out');
    // Run by root, the code runs as the user nobody, who may not read the suites (0600 in a 0700 folder).
    writeFileSync(path.join(dir, 'subs', 'cheat.py'), `import glob, json\ndef phazed_score(h):\n    p = glob.glob(${JSON.stringify(path.join(out, '.croupier'))} + '/suite-*.json')\n    return json.load(open(p[0]))["cases"][0]["expected"] if p else open(${JSON.stringify(path.join(out, '.croupier', 'suite-score-standard.json'))}).read()\n`);
    const r = run(['grade', '--game', 'phazed', '--fn', 'score', '--n', '10', '--sandbox', 'none', '--module', 'phazed',
      '--out', out, path.join(dir, 'subs')]);
    assert.equal(r.status, 0, r.stderr);
    const carol = readJson(path.join(out, 'students', 'carol.json'));
    assert.deepEqual([carol.sandbox, carol.passed, carol.failed], ['rlimits', 10, 0]);
    if (process.getuid() === 0) {
      const cheat = readJson(path.join(out, 'students', 'cheat.json'));
      assert.equal(cheat.passed, 0);
      assert.match(cheat.suites[0].clauses[0].example.message, /raised: +PermissionError/);
    }
    assert.match(readFileSync(path.join(out, 'students', 'carol.txt'), 'utf8'),
      /sandbox: rlimits\nwarning: no sandbox: --sandbox none; the student's code ran with rlimits only/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--sandbox bwrap where bubblewrap cannot run: one clear line, no traceback, exit 1', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-nobwrap-'));
  try {
    kitStudent(path.join(dir, 'subs', 'dave'));
    kitStudent(path.join(dir, 'subs', 'erin'));
    // a PATH that has python3 and no bwrap: bubblewrap is "not installed" here
    mkdirSync(path.join(dir, 'bin'));
    symlinkSync(spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim(),
      path.join(dir, 'bin', 'python3'));
    const r = run(['grade', '--game', 'phazed', '--fn', 'score', '--n', '5', '--sandbox', 'bwrap', '--module', 'phazed',
      '--out', path.join(dir, 'out'), path.join(dir, 'subs')], { env: { ...process.env, PATH: path.join(dir, 'bin') } });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /^croupier grade: --sandbox bwrap: bubblewrap \(bwrap\) is not installed$/m);
    assert.match(r.stderr, /stopped: --sandbox bwrap and bubblewrap cannot run here/);
    assert.doesNotMatch(r.stderr, /Traceback|RuntimeError/);
    assert.ok(!existsSync(path.join(dir, 'out', 'students', 'dave.json')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('hostile submissions: each its own clear result, the run goes on, the others unaffected', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-hostile-'));
  const connections = [];
  const server = net.createServer((c) => { connections.push(c.remoteAddress); c.destroy(); });
  await new Promise((res) => server.listen(0, '127.0.0.1', res));
  const port = server.address().port;
  try {
    const subs = path.join(dir, 'subs');
    const out = path.join(dir, 'out');
    kitStudent(path.join(subs, 'good'));
    const both = (body) => `${body}\nphazed_score = phazed_group_type\n`;
    const hostile = {
      loop: both('def phazed_group_type(g):\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass'),
      spin: both('def phazed_group_type(g):\n    while True:\n        pass'),
      memory: both('def phazed_group_type(g):\n    x = []\n    while True:\n        x.append(" " * 10**9)'),
      forkbomb: both('import os\ndef phazed_group_type(g):\n    while True:\n        os.fork()'),
      exits: both('import sys\ndef phazed_group_type(g):\n    sys.exit(3)'),
      hardexit: both('import os\ndef phazed_group_type(g):\n    os._exit(0)'),
      prints: both('def phazed_group_type(g):\n    print("x" * 1000000)\n    return []'),
      deletes: both(`import os, shutil\ndef phazed_group_type(g):\n    for p in (${JSON.stringify(path.join(subs, 'good'))}, ${JSON.stringify(out)}, os.getcwd()):\n        shutil.rmtree(p, ignore_errors=True)\n    for f in os.listdir('.'):\n        os.remove(f)\n    return []`),
      network: both(`import socket\ndef phazed_group_type(g):\n    socket.create_connection(("127.0.0.1", ${port}), timeout=1).close()\n    return [1]`),
      cheat: both(`import glob, json\ndef phazed_group_type(g):\n    for p in glob.glob(${JSON.stringify(path.join(out, '.croupier', 'suite-*.json'))}):\n        suite = json.load(open(p))\n        return [c for c in suite["cases"] if c["args"] == [g]][0]["expected"]\n    return open(${JSON.stringify(path.join(subs, 'good', 'phazed.py'))}).read()`),
      missing: 'import numpy_not_installed_here\n',
      forger: both('import os\ndef phazed_group_type(g):\n    for fd in range(3, 10):\n        try:\n            os.write(fd, b\'{"id": [], "o": 1}\\n{"id": 16, "o": ["timeout", "x"]}\\n[[[[\\n\')\n        except OSError:\n            pass\n    x = []\n    for _ in range(100000):\n        x = [x]\n    return x'),
    };
    for (const [name, text] of Object.entries(hostile)) writeFileSync(path.join(subs, `${name}.py`), text);
    const r = run(['grade', '--game', 'phazed', '--fn', 'group_type', '--fn', 'score', '--n', '17', '--module', 'phazed',
      '--call-timeout', '0.5', '--timeout', '10', '--memory', '512M', '--jobs', '2', '--out', out, subs]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /13\/13 students done/);
    const rec = (s) => readJson(path.join(out, 'students', `${s}.json`));
    const good = rec('good');
    t.diagnostic(`sandbox: ${good.sandbox}`);
    assert.deepEqual([good.passed, good.failed], [34, 0],
      `the good student is unaffected: ${readFileSync(path.join(out, 'students', 'good.txt'), 'utf8').slice(0, 3000)}`);
    assert.ok(existsSync(path.join(subs, 'good', 'phazed.py')), 'no submission deleted');
    assert.ok(existsSync(path.join(out, 'grades.csv')));
    const messages = (s) => rec(s).suites.flatMap((x) => x.clauses.filter((c) => c.example).map((c) => c.example.message)).join('\n');
    const expect = {
      loop: /the student's time ran out \(10 s of wall-clock time for the suite\)/,
      spin: /no answer within 0\.5 s/,
      memory: /raised: +MemoryError/,
      forkbomb: /raised: +BlockingIOError/,
      exits: /raised: +SystemExit: 3/,
      hardexit: /the process exited with status 0/,
      deletes: /raised: +OSError: \[Errno 30\] Read-only file system/,
      missing: /the module could not be imported: ModuleNotFoundError: No module named 'numpy_not_installed_here'/,
      forger: /the process wrote a line that is not an answer/,
    };
    if (good.sandbox === 'bwrap') {
      expect.network = /raised: +(OSError|ConnectionRefusedError|PermissionError).*|raised: +.*Network is unreachable/;
      expect.cheat = /raised: +FileNotFoundError/;
    }
    for (const [s, re] of Object.entries(expect)) {
      assert.match(messages(s), re, s);
      assert.equal(rec(s).passed, 0, s);
    }
    const prints = rec('prints');
    assert.ok(prints.suites[0].output.bytes >= 17 * 1000000, 'the printed bytes are counted');
    assert.match(readFileSync(path.join(out, 'students', 'prints.txt'), 'utf8'), /note: the code printed \d+ bytes/);
    if (good.sandbox === 'bwrap') {
      assert.deepEqual(connections, [], 'no connection left the sandbox');
      assert.equal(rec('cheat').passed, 0, 'the expected answers were out of sight');
    } else {
      t.diagnostic('bubblewrap did not run here: network and reading were not sandboxed (rlimits only)');
    }
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--gradescope-bundle: a zip that grades /autograder/submission into results/results.json', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-gs-'));
  try {
    const zip = path.join(dir, 'autograder.zip');
    const b = run(['grade', '--gradescope-bundle', '--game', 'phazed', '--fn', 'score', '--fn', 'group_type', '--n', '40',
      '--module', 'phazed', '--visibility', 'after_due_date', '--out', zip]);
    assert.equal(b.status, 0, b.stderr);
    assert.match(b.stdout, /Gradescope's autograder, 2 suites of 40 cases/);
    const root = path.join(dir, 'autograder');
    const u = spawnSync('python3', ['-c', 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print("\\n".join(z.namelist())); z.extractall(sys.argv[2])',
      zip, path.join(root, 'source')], { encoding: 'utf8' });
    assert.equal(u.status, 0, u.stderr);
    assert.deepEqual(u.stdout.trim().split('\n').sort(), ['grade.json', 'kit_grade.py', 'kit_harness.py', 'run_autograder',
      'setup.sh', 'suite-group_type-standard.json', 'suite-score-standard.json']);
    // As Gradescope lays it out: run_autograder copied to the root, the submission, a results folder.
    cpSync(path.join(root, 'source', 'run_autograder'), path.join(root, 'run_autograder'));
    kitStudent(path.join(root, 'submission'), 'score-ace-one');
    mkdirSync(path.join(root, 'results'));
    const g = spawnSync('bash', [path.join(root, 'run_autograder')], {
      encoding: 'utf8', env: { ...process.env, CROUPIER_AUTOGRADER_ROOT: root }, timeout: 300_000 });
    assert.equal(g.status, 0, g.stderr);
    const doc = readJson(path.join(root, 'results', 'results.json'));
    checkGradescope(doc);
    t.diagnostic(g.stdout.split('\n')[0]);
    const failed = doc.tests.filter((x) => x.status === 'failed').map((x) => x.tags[1]);
    assert.deepEqual(failed, ['phazed.score.ace']);
    assert.equal(doc.visibility, 'after_due_date');
    assert.ok(doc.tests.every((x) => x.visibility === 'after_due_date'));
    assert.equal(doc.tests.reduce((a, x) => a + x.max_score, 0), 80);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
