// tests/docblock.mjs: generated figures written into a Markdown page, between
// markers <!-- NAME:begin --> and <!-- NAME:end --> that stay in place, so the
// prose around the figures is kept and a rerun replaces only the figures.
// Used by `make tournaments` (tests/tournaments.mjs: docs/tournaments.md) and
// `make bench` (tests/bench.sh: docs/benchmarks.md, one block per part):
//
//   import { writeBlocks } from './docblock.mjs';
//   writeBlocks('docs/tournaments.md', { tournaments: markdown });
//
//   node tests/docblock.mjs bench docs/benchmarks.md < bench-output
//
// The second form reads what tests/bench.sh printed and writes each part it
// ran (engine, hanabi, http, routes, store, stall, fanout, grade, league, crowd, bgio) into that part's block, as a text block
// headed by the run's own first lines (commit, time, machine load); parts
// the run skipped (BENCH=engine...) keep their figures.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Replace the text between each NAME's markers in `file`; every NAME must
 *  have both markers, in order (else nothing is written). */
export function writeBlocks(file, blocks) {
  let text = fs.readFileSync(file, 'utf8');
  for (const [name, body] of Object.entries(blocks)) {
    const begin = `<!-- ${name}:begin -->`, end = `<!-- ${name}:end -->`;
    const a = text.indexOf(begin), b = text.indexOf(end);
    if (a < 0 || b < a) throw new Error(`${file}: no ${begin} ... ${end} block`);
    text = `${text.slice(0, a + begin.length)}\n${body.trimEnd()}\n${text.slice(b)}`;
  }
  fs.writeFileSync(file, text);
}

// The bench's section headings ("== engine: ...") and the block each fills.
const BENCH_PARTS = [[/^== engine/, 'bench:engine'], [/^== hanabi/, 'bench:hanabi'],
  [/^== (HTTP|memory)/, 'bench:http'], [/^== routes/, 'bench:routes'], [/^== store/, 'bench:store'],
  [/^== stall/, 'bench:stall'], [/^== fanout/, 'bench:fanout'], [/^== grade/, 'bench:grade'],
  [/^== league/, 'bench:league'], [/^== crowd/, 'bench:crowd'], [/^== bgio/, 'bench:bgio']];

/** tests/bench.sh's output -> { 'bench:PART': markdown } for the parts it ran. */
export function benchBlocks(output) {
  const lines = output.split('\n');
  const first = lines.findIndex((l) => l.startsWith('== '));
  const head = (first < 0 ? lines : lines.slice(0, first)).filter((l) => l.trim());
  const parts = {};
  let cur = null;
  for (const l of first < 0 ? [] : lines.slice(first)) {
    const hit = l.startsWith('== ') && BENCH_PARTS.find(([re]) => re.test(l));
    if (hit) cur = hit[1];
    if (cur) (parts[cur] ??= []).push(l);
  }
  const out = {};
  for (const [name, body] of Object.entries(parts)) {
    out[name] = ['```text', ...head, '', ...body.join('\n').trimEnd().split('\n'), '```'].join('\n');
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [mode, file] = process.argv.slice(2);
  if (mode !== 'bench' || !file) {
    console.error('usage: node tests/docblock.mjs bench FILE < bench-output');
    process.exit(2);
  }
  const blocks = benchBlocks(fs.readFileSync(0, 'utf8'));
  if (!Object.keys(blocks).length) {
    console.error('docblock.mjs: no bench figures on stdin; nothing written');
    process.exit(1);
  }
  writeBlocks(file, blocks);
  console.error(`docblock.mjs: wrote ${Object.keys(blocks).join(', ')} into ${file}`);
}
