// The repository stands on its own: no tracked file refers to a path outside
// it. A clone has nothing beside it, so a test, a document or a comment that
// reaches for a folder next to the checkout (the project's brief was kept in
// one called `shared`) works, or reads true, only on the machine that
// wrote it.
//
// Flagged, in every tracked text file (git ls-files; outside a git checkout
// every file but build output and node_modules):
//   - a relative path climbing into a `shared` folder: dot-dot, a slash and
//     `shared`, also with a backslash, or as the quoted components of a
//     path.join (the parent folder's two dots, then `shared`);
//   - an absolute path through a `shared` folder (a slash or `~/` at the
//     start of a word, then folders, then `shared`), not a URL's path;
//   - `shared/` at the start of a path, followed by one of the sub-folders
//     the brief's folder had (spec, seeds, fixtures, reference).
// The patterns are written so that this file does not match them; the first
// tests below run them on made-up lines (built at run time, for the same
// reason), so a pattern that stops matching fails here rather than letting
// everything through.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const W = 'shared';
const PATTERNS = [
  { what: 'a relative path into a shared folder beside the checkout', re: /\.\.[\\/]+shared\b/ },
  { what: 'a path.join of the parent folder and shared', re: /(['"`])\.\.\1\s*,\s*(['"`])shared\2/ },
  { what: 'an absolute path through a shared folder', re: /(?:^|[\s'"`(=,:;[{<>|])~?\/(?:[\w.@+-]+\/)*shared(?:\/|\b)/ },
  { what: 'a sub-folder of the brief\'s shared folder', re: /(?<![\w.\/\\-])shared[\\/](?:spec|seeds|fixtures|reference)\b/ },
];

/** The offending lines of a text: [{line, what, text}]. */
export function outsideRefs(text) {
  const hits = [];
  text.split('\n').forEach((l, i) => {
    for (const p of PATTERNS) {
      if (p.re.test(l)) { hits.push({ line: i + 1, what: p.what, text: l.trim().slice(0, 160) }); break; }
    }
  });
  return hits;
}

function trackedFiles() {
  try {
    return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\0').filter(Boolean);
  } catch {
    // Not a git checkout (an unpacked archive): every file but what builds and installs write.
    const out = [];
    const skip = new Set(['.git', 'node_modules', 'build', 'out']);
    const walk = (rel) => {
      for (const e of readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) { if (!skip.has(e.name) && !e.name.startsWith('build-')) walk(r); } else if (e.isFile()) out.push(r);
      }
    };
    walk('');
    return out;
  }
}

test('the patterns flag references outside the repository', () => {
  const up = `..${'/'}${W}`;
  for (const line of [
    `Rules come from the seed documents in \`${up}/seeds/\`.`,
    `const FIXTURES = path.resolve(ROOT, '..', '${W}', 'fixtures');`,
    `see ${up}\\spec\\api.md`,
    `const FIXTURES = '/work/${W}/fixtures/fivecrowns';`,
    `Sources: the rules in /work/${W}/seeds`,
    `mounted at /${W} on the build machine`,
    `cp ~/${W}/spec/rulings.md .`,
    `FIX=/home/ann/${W}/fixtures make test`,
    `The prose form is ${W}/spec/api.md.`,
  ]) assert.ok(outsideRefs(line).length === 1, `flagged: ${line}`);
});

test('the patterns leave alone what only looks like one', () => {
  for (const line of [
    '/* http.c: request accessors and response builders shared by all handlers */',
    'install -d $(DESTDIR)$(PREFIX)/share/croupier/www',
    `the bots' ${W}/public knowledge`,
    `https://example.org/${W}/spec is a web page, not a path`,
    `tests/fixtures/fivecrowns/case1.txt`,
    `a path.join(ROOT, 'tests', 'fixtures') inside the repository`,
    `seats rotated over ${W} deals`,
  ]) assert.deepEqual(outsideRefs(line), [], `not flagged: ${line}`);
});

test('no tracked file refers to a path outside the repository', () => {
  const files = trackedFiles();
  assert.ok(files.length > 100, `the repository's files are listed (${files.length})`);
  const found = [];
  for (const f of files) {
    const full = path.join(ROOT, f);
    let buf;
    try {
      if (!statSync(full).isFile()) continue;
      buf = readFileSync(full);
    } catch { continue; } // deleted in the work tree, not yet in the index
    if (buf.subarray(0, 8000).includes(0)) continue; // binary (a SQLite fixture)
    for (const h of outsideRefs(buf.toString('utf8'))) found.push(`${f}:${h.line}: ${h.what}: ${h.text}`);
  }
  assert.deepEqual(found, [], `references outside the repository (a clone has nothing beside it):\n${found.join('\n')}`);
});
