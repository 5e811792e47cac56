// grade.mjs (`make bench`, BENCH=grade): what grading a cohort costs
// (issue 44 item 5), on this machine, through `croupier grade` itself.
//
//   node tests/bench/grade.mjs [--bin build/croupier] [--students 300] [--n 1000] [--jobs 2]
//                              [--games phazed,comp10001bo]
//
// A cohort of STUDENTS submissions per game, each a folder holding the kit's
// own implementation of every function of the game (tests/kit/<game>.py,
// with tests/kit/mutants.py), one in ten with a mutant switched on (so the
// reports have failures to write, as a real cohort's do). Then, per game:
// `croupier grade --game G --n N --seed 1 --jobs J --sandbox auto` over the
// whole cohort, timed from outside (wall clock, and the CPU of croupier and
// every process it waited for, from bash's `times`), every function of the
// game, N cases a suite. The total over the games is the figure the goal
// names (300 students x the nine functions x 1,000 cases: under 10 minutes).
// Last, the sandbox's own cost: one student, the cheapest suite (Phazed's
// score) at 1 and at N cases, under bubblewrap and with --sandbox none:
// per student (the difference at 1 case) and per call (the difference of
// the differences over N - 1 calls). Bounded: each grade run has the
// command's own limits; the cohort lives in a temporary folder.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { timedRun } from './lib.mjs';

const { values: opt } = parseArgs({
  options: {
    bin: { type: 'string', default: 'build/croupier' },
    students: { type: 'string', default: '300' },
    n: { type: 'string', default: '1000' },
    jobs: { type: 'string', default: '2' },
    games: { type: 'string', default: 'phazed,comp10001bo' },
  },
});
const BIN = path.resolve(opt.bin);
const STUDENTS = Number(opt.students);
const N = Number(opt.n);
const JOBS = Number(opt.jobs);
const GAMES = opt.games.split(',');
const KIT = path.resolve('tests/kit');
const tmp = mkdtempSync(path.join(tmpdir(), 'croupier-bench-grade-'));

/** The kit's mutants of a game (tests/kit/mutants.py: MUTANTS keys by function). */
function mutantsOf(game) {
  // MUTANTS: (name, [(game, function, variant), ...], what it gets wrong)
  const r = spawnSync('python3', ['-c', `import sys; sys.path.insert(0, ${JSON.stringify(KIT)}); import mutants; print("\\n".join(m[0] for m in mutants.MUTANTS if any(s[0] == ${JSON.stringify(game)} for s in m[1])))`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split('\n').filter(Boolean) : [];
}

function cohort(game, count) {
  const dir = path.join(tmp, `${game}-${count}`);
  const muts = mutantsOf(game);
  for (let i = 0; i < count; i++) {
    const s = path.join(dir, `s${String(i).padStart(4, '0')}`);
    mkdirSync(s, { recursive: true });
    cpSync(path.join(KIT, `${game}.py`), path.join(s, `${game}.py`));
    cpSync(path.join(KIT, 'mutants.py'), path.join(s, 'mutants.py'));
    if (i % 10 === 9 && muts.length) appendFileSync(path.join(s, 'mutants.py'), `\nACTIVE = ${JSON.stringify(muts[(i / 10 | 0) % muts.length])}\n`);
  }
  return dir;
}

/** `croupier grade ...` timed: {wall, cpu} in seconds (cpu: croupier and its
 *  children, every student's process included, from bash's `times`). */
function grade(args) {
  const out = path.join(tmp, `out-${Math.random().toString(36).slice(2)}`);
  const { wall, cpu, status } = timedRun(BIN, ['grade', ...args, '--out', out], out);
  if (status !== 0) {
    let err = '';
    try { err = readFileSync(out + '.err', 'utf8').slice(-600); } catch { /* none */ }
    throw new Error(`croupier grade ${args.join(' ')}: exit ${status}\n${err}`);
  }
  let sandbox = '';
  try { sandbox = (/sandbox: ([\w-]+)/.exec(readFileSync(path.join(out, 'students', `${rowsStudent(out)}.txt`), 'utf8')) || [])[1] || ''; } catch { /* none */ }
  const rows = readFileSync(path.join(out, 'grades.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
  rmSync(out, { recursive: true, force: true });
  return { wall, cpu, rows, sandbox };
}

/** The first student of a grade run's grades.csv. */
const rowsStudent = (out) => readFileSync(path.join(out, 'grades.csv'), 'utf8').split('\n')[1].split(',')[0];
const f1 = (x) => x.toFixed(1);
try {
  console.log(`== grade: croupier grade over a cohort (${STUDENTS} students a game, ${N} cases a suite, --jobs ${JOBS}, --sandbox auto)`);
  let wall = 0, cpu = 0, suites = 0, cases = 0;
  for (const game of GAMES) {
    const dir = cohort(game, STUDENTS);
    const g = grade(['--game', game, '--n', N, '--seed', 1, '--module', game, '--jobs', JOBS, '--sandbox', 'auto', dir]);
    const fns = new Set(g.rows.map((r) => r[1])).size;
    const failed = g.rows.filter((r) => Number(r[3]) > 0).length;
    wall += g.wall; cpu += g.cpu; suites += fns; cases += g.rows.reduce((k, r) => k + Number(r[2]) + Number(r[3]), 0);
    console.log(`${game.padEnd(12)} ${fns} functions  ${g.rows.length} suites graded (${failed} with failures; sandbox: ${g.sandbox})  wall ${f1(g.wall)} s  cpu ${f1(g.cpu)} s  ${f1(g.wall / STUDENTS * 1000)} ms a student`);
  }
  console.log(`total        ${suites} functions x ${STUDENTS} students x ${N} cases (${cases.toLocaleString('en')} calls)  wall ${f1(wall)} s = ${f1(wall / 60)} min (goal: under 10 min)  cpu ${f1(cpu)} s  ${f1(cases / wall)} calls/s`);

  // The sandbox's own cost: one student, Phazed's score suite.
  const one = cohort('phazed', 1);
  const t = {};
  for (const sb of ['bwrap', 'none']) {
    for (const n of [1, N]) {
      const runs = [1, 2, 3].map(() => grade(['--game', 'phazed', '--fn', 'score', '--n', n, '--seed', 1, '--module', 'phazed', '--sandbox', sb, one]).wall);
      t[`${sb}${n}`] = runs.sort((a, b) => a - b)[1]; // the median of 3
    }
  }
  const perStudent = t.bwrap1 - t.none1;
  const perCall = ((t[`bwrap${N}`] - t.bwrap1) - (t[`none${N}`] - t.none1)) / (N - 1);
  console.log(`sandbox      one student, phazed score, median of 3: 1 case ${f1(t.bwrap1 * 1000)} ms under bubblewrap, ${f1(t.none1 * 1000)} ms without; ${N} cases ${f1(t[`bwrap${N}`] * 1000)} / ${f1(t[`none${N}`] * 1000)} ms`);
  console.log(`sandbox      bubblewrap's cost: ${f1(perStudent * 1000)} ms a student (a suite), ${(perCall * 1e6).toFixed(0)} us a call`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
