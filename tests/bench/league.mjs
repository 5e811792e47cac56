// league.mjs (`make bench`, BENCH=league): what a league of the students'
// bots costs (issue 44 item 5), on this machine, through `croupier league`.
//
//   node tests/bench/league.mjs [--bin build/croupier] [--players 100] [--games 8] [--jobs 2]
//                               [--games-of phazed,comp10001bo]
//
// Per game: PLAYERS students, each a folder with the kit's own player
// (tests/kit/<game>.py and tests/kit/mutants.py), plus the house bots as
// players; `croupier league --games GAMES --jobs J --sandbox auto`, timed
// from outside (wall clock; the CPU of croupier and every process it
// waited for, from bash's `times`): games per second, students' moves per
// second. The anchor, in the same run: `croupier tournament` of the house
// bots alone over as many games, all in one process (what the games cost
// without a student in them). Last, a student's process: one table of four
// students (one game each seat) under bubblewrap and with --sandbox none,
// median of 3: the sandbox's cost per student process.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { timedRun } from './lib.mjs';

const { values: opt } = parseArgs({
  options: {
    bin: { type: 'string', default: 'build/croupier' },
    players: { type: 'string', default: '100' },
    games: { type: 'string', default: '8' },
    jobs: { type: 'string', default: '2' },
    'games-of': { type: 'string', default: 'phazed,comp10001bo' },
  },
});
const BIN = path.resolve(opt.bin);
const PLAYERS = Number(opt.players);
const GAMES = Number(opt.games);
const JOBS = Number(opt.jobs);
const KIT = path.resolve('tests/kit');
const BOTS = { phazed: 'planner,greedy,random', comp10001bo: 'planner,standard,random' };
const tmp = mkdtempSync(path.join(tmpdir(), 'croupier-bench-league-'));

function cohort(game, count) {
  const dir = path.join(tmp, `${game}-${count}`);
  for (let i = 0; i < count; i++) {
    const s = path.join(dir, `s${String(i).padStart(4, '0')}`);
    mkdirSync(s, { recursive: true });
    cpSync(path.join(KIT, `${game}.py`), path.join(s, `${game}.py`));
    cpSync(path.join(KIT, 'mutants.py'), path.join(s, 'mutants.py'));
  }
  return dir;
}

/** A croupier command timed: {wall, cpu, text} (cpu: croupier and its children). */
function timed(args) {
  const out = path.join(tmp, `out-${Math.random().toString(36).slice(2)}`);
  const { wall, cpu, status } = timedRun(BIN, args, out);
  if (status !== 0) throw new Error(`croupier ${args.join(' ')}: exit ${status}\n${readFileSync(out + '.err', 'utf8').slice(-600)}`);
  return { wall, cpu, text: readFileSync(out + '.txt', 'utf8') };
}

function league(game, dir, extra = []) {
  const out = path.join(tmp, `league-${Math.random().toString(36).slice(2)}`);
  const t = timed(['league', '--game', game, '--module', game, '--quiet', '--out', out, ...extra, dir]);
  const doc = JSON.parse(readFileSync(path.join(out, 'standings.json'), 'utf8'));
  rmSync(out, { recursive: true, force: true });
  return { ...t, doc };
}

const f1 = (x) => x.toFixed(1);
try {
  console.log(`== league: croupier league of ${PLAYERS} students and the house bots (--games ${GAMES}, --jobs ${JOBS}, --sandbox auto)`);
  for (const game of opt['games-of'].split(',')) {
    const dir = cohort(game, PLAYERS);
    const l = league(game, dir, ['--bots', BOTS[game], '--games', GAMES, '--jobs', JOBS, '--sandbox', 'auto']);
    const games = l.doc.games.length;
    const st = l.doc.standings.filter((s) => s.kind === 'student');
    const moves = st.reduce((n, s) => n + s.moves, 0);
    const replaced = st.reduce((n, s) => n + s.replaced, 0);
    const bots = l.doc.standings.filter((s) => s.kind !== 'student').map((s) => `${s.name} #${s.rank}`).join(', ');
    console.log(`${game.padEnd(12)} ${l.doc.standings.length} players, ${games} games (${l.doc.league.tables} tables)  wall ${f1(l.wall)} s  cpu ${f1(l.cpu)} s  ${(games / l.wall).toFixed(2)} games/s  ${Math.round(moves / l.wall)} students' moves/s (${moves} moves, ${replaced} replaced)  bots ranked: ${bots}`);
    const t = timed(['tournament', '--game', game, '--bots', BOTS[game], '--games', games, '--jobs', JOBS, '--quiet']);
    console.log(`${''.padEnd(12)} anchor: croupier tournament of ${BOTS[game]} alone, ${games} games in one process: wall ${f1(t.wall)} s  ${(games / t.wall).toFixed(1)} games/s`);
  }
  // a student's process: one table of four (four games), bubblewrap against none
  const four = cohort('phazed', 4);
  const w = {};
  for (const sb of ['bwrap', 'none']) {
    const runs = [1, 2, 3].map(() => league('phazed', four, ['--games', 1, '--jobs', 1, '--sandbox', sb]).wall);
    w[sb] = runs.sort((a, b) => a - b)[1];
  }
  console.log(`sandbox      one table of 4 students (4 games, median of 3): ${f1(w.bwrap * 1000)} ms under bubblewrap, ${f1(w.none * 1000)} ms without: ${f1((w.bwrap - w.none) / 4 * 1000)} ms a student's process`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
