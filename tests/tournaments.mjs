// tests/tournaments.mjs: the table of every game's bots in docs/tournaments.md,
// by one command (`make tournaments`). It runs `croupier
// tournament --json` (docs/tournaments.md) for each lineup below and prints
// Markdown; with --write FILE it replaces what lies between the markers
// <!-- tournaments:begin --> and <!-- tournaments:end --> in FILE
// (tests/docblock.mjs).
//
//   node tests/tournaments.mjs [--bin build/croupier] [--scale 1] [--seed 1] [--write docs/tournaments.md]
//
// The lineups come from the registry (`croupier games --json`): for each
// competitive game and variant, at its usual table size, the default bot
// (bots[0]) against the next one in every other seat (the lineups the issues
// set targets for), then every pair of its bots (seats alternate A, B, A, B:
// each sits at every seat and plays every deal equally, the tournament's
// rotation); for a cooperative game, every bot alone at every table size
// (its team score). --scale multiplies the games (0.1 for a quick look).
// Seeded: the same command gives the same table on any machine with the
// same build.
import { spawnSync } from 'node:child_process';
import { writeBlocks } from './docblock.mjs';

const opt = { bin: 'build/croupier', scale: 1, seed: 1, write: '' };
for (let i = 2; i < process.argv.length; i += 2) {
  const k = (process.argv[i] || '').replace(/^--/, '');
  if (!(k in opt) || i + 1 >= process.argv.length) {
    console.error(`tournaments.mjs: unknown or incomplete option ${process.argv[i]}`);
    process.exit(2);
  }
  opt[k] = typeof opt[k] === 'number' ? Number(process.argv[i + 1]) : process.argv[i + 1];
}

function run(args) {
  const r = spawnSync(opt.bin, ['tournament', ...args, '--seed', String(opt.seed), '--json', '--quiet'],
    { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    console.error(`croupier tournament ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
    process.exit(1);
  }
  return JSON.parse(r.stdout);
}

function games() {
  const r = spawnSync(opt.bin, ['games', '--json'], { encoding: 'utf8' });
  if (r.status !== 0) { console.error(r.stderr); process.exit(1); }
  return JSON.parse(r.stdout);
}

const n = (k) => String(Math.max(1, Math.round(k * opt.scale)));
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const t0 = Date.now();
const lines = [];
const say = (s = '') => lines.push(s);

// Games per lineup (a game not named: 2000, or 1000 per table size when
// cooperative), and the options a table plays with where the game's default
// is not the usual rule: precision and rules, not lineups.
const GAMES = { comp10001bo: 4000 };
const OPTIONS = { hanabi: { json: '{"end":"standard"}', says: 'end rule "standard"' } };

for (const g of games()) {
  if (g.cooperative) {
    const games = GAMES[g.game] || 1000, o = OPTIONS[g.game];
    for (const v of g.variants) {
      say(`**${g.title}, ${v}** (cooperative: every seat the same bot, ${n(games)} games per table size${o ? `, ${o.says}` : ''}; mean team score ± standard error, perfect games)`);
      say();
      const sizes = [];
      for (let p = g.players.min; p <= g.players.max; p++) sizes.push(p);
      say(`| bot | ${sizes.map((p) => `${p} players`).join(' | ')} |`);
      say(`|---|${sizes.map(() => '---').join('|')}|`);
      for (const b of g.bots) {
        const cells = sizes.map((p) => {
          const j = run(['--game', g.game, '--variant', v, '--bots', b, '--players', String(p), '--games', n(games),
            ...(o ? ['--options', o.json] : [])]);
          const t = j.team_score;
          return `${t.mean.toFixed(2)} ± ${t.stderr.toFixed(2)} (${pct(t.perfect / j.games)} perfect)`;
        });
        say(`| \`${b}\` | ${cells.join(' | ')} |`);
      }
      say();
    }
    continue;
  }
  const players = g.players.default;
  for (const v of g.variants) {
    say(`**${g.title}, ${v}** (${players} players; ${n(GAMES[g.game] || 2000)} games per lineup, seats rotated over shared deals; ` +
      `wins per seat (a strategy's wins over its seats), with the 95% interval: fair share ${pct(1 / players)} per seat)`);
    say();
    say('| lineup | ' + 'result |'.repeat(1));
    say('|---|---|');
    const lineups = [];
    if (g.bots.length > 1 && players > 2) /* the default against the next one in every other seat */
      lineups.push([g.bots[0], ...Array(players - 1).fill(g.bots[1])]);
    for (let i = 0; i < g.bots.length; i++)
      for (let k = i + 1; k < g.bots.length; k++) {
        const a = g.bots[i], b = g.bots[k];
        const lu = Array.from({ length: players }, (_, s) => (s % 2 ? b : a));
        if (!lineups.some((x) => x.join() === lu.join())) lineups.push(lu);
      }
    for (const lu of lineups) {
      const j = run(['--game', g.game, '--variant', v, '--bots', lu.join(','), '--players', String(players),
        '--games', n(GAMES[g.game] || 2000)]);
      const desc = lu.every((x, i) => x === lu[i % 2]) && lu.length > 2
        ? `${lu[0]} ×${lu.length / 2} vs ${lu[1]} ×${lu.length / 2}`
        : lu.length > 2 && lu.slice(1).every((x) => x === lu[1]) ? `${lu[0]} vs ${lu.length - 1} × ${lu[1]}` : lu.join(' vs ');
      const cells = j.strategies.map((s) =>
        `\`${s.name}\` ${pct(s.win_rate)} [${pct(s.win_rate_95[0])}–${pct(s.win_rate_95[1])}]` +
        `${s.entries > 1 ? ` (${s.entries} seats)` : ''}, score ${s.avg_score.toFixed(1)}, rating ${Math.round(s.rating)}`);
      say(`| ${desc} | ${cells.join('<br>')} |`);
    }
    say();
  }
}
say(`<sub>\`make tournaments\` (node tests/tournaments.mjs --seed ${opt.seed}${opt.scale !== 1 ? ` --scale ${opt.scale}` : ''}), ${((Date.now() - t0) / 1000).toFixed(0)} s on this machine; score: average points per seat; rating: Bradley-Terry on the Elo scale.</sub>`);

const text = lines.join('\n');
if (opt.write) {
  writeBlocks(opt.write, { tournaments: text });
  console.error(`tournaments.mjs: wrote the table into ${opt.write}`);
} else {
  console.log(text);
}
