// The documentation leads somewhere: every relative link of a tracked
// Markdown page names a file or folder that exists, every repository path a
// tracked text file names (docs/store.md, api/store.c, ...) exists,
// docs/README.md indexes every page of docs/, and docs/layout.md's "Every
// folder" section names every folder of the repository (two levels deep). A page
// moved or a file renamed without its mentions fails here, not in a
// reader's hands. CHANGELOG.md is history (it names files as they were)
// and is only checked for links; tests/fixtures/ holds data, not prose.
//
// The checks are functions of a text, and the first tests run them on
// made-up lines, so a pattern that stops matching fails here rather than
// letting everything through.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TOP = ['docs', 'engine', 'api', 'cli', 'tests', 'www', 'openapi', 'deploy', 'clients'];
// A path from the repository's root, to a file with an extension, not
// inside a longer word or path (a path that starts at a top folder).
const PATH_RE = new RegExp(
  `(?<![\\w./-])((?:${TOP.join('|')})/[\\w./-]*\\w\\.(?:md|c|h|mjs|js|yaml|py|sql|sh|json|css|html))\\b`, 'g');
const LINK_RE = /\]\(([^)\s]+)\)/g;
// Paths that tests and tools write (not tracked, so not checkable).
const WRITTEN = /^tests\/out\//;

/** The repository paths a text names that `exists` denies: [{line, path}]. */
export function missingPaths(text, exists) {
  const out = [];
  text.split('\n').forEach((l, i) => {
    for (const m of l.matchAll(PATH_RE))
      if (!WRITTEN.test(m[1]) && !exists(m[1])) out.push({ line: i + 1, path: m[1] });
  });
  return out;
}

/** The relative Markdown links of a page (at `file`) that lead nowhere. */
export function brokenLinks(file, text, exists) {
  const out = [];
  text.split('\n').forEach((l, i) => {
    for (const m of l.matchAll(LINK_RE)) {
      const target = m[1].split('#')[0];
      if (!target || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // an anchor, a URL
      const rel = path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
      if (!exists(rel)) out.push({ line: i + 1, path: m[1] });
    }
  });
  return out;
}

/** The folders docs/layout.md's "Every folder" block names, as paths ("engine/core"). */
export function layoutFolders(page) {
  const sec = page.split(/^## Every folder\n/m)[1]?.split(/^#{2,3} /m)[0] ?? '';
  const names = [];
  const stack = [];
  for (const l of sec.split('\n')) {
    const m = /^ {4}( *)(\.?[\w-]+)\/(?:\s|$)/.exec(l);
    if (!m) continue;
    const depth = m[1].length / 2;
    stack.length = depth;
    stack.push(m[2]);
    names.push(stack.join('/'));
  }
  return names;
}

function tracked() {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
}
const onDisk = (rel) => existsSync(path.join(ROOT, rel));
const read = (rel) => readFileSync(path.join(ROOT, rel), 'utf8');

test('the checks flag what leads nowhere, and only that', () => {
  const none = () => false, all = () => true;
  const D = 'docs'; // the made-up paths are built here, so this file names none of them
  assert.deepEqual(missingPaths(`see ${D}/hanabi-bots.md and (${'api'}/store.c)`, none).map((h) => h.path),
    [`${D}/hanabi-bots.md`, `${'api'}/store.c`]);
  assert.deepEqual(missingPaths(`see ${D}/hanabi-bots.md`, all), []);
  assert.deepEqual(missingPaths(`its ${D}/ folder, engine/<game>/, my/${D}/x.md, ${'tests'}/out/a.json`, none), []);
  assert.deepEqual(brokenLinks(`${D}/rules/x.md`, '[a](../research/a.md#s) [b](https://x.org/y.md) [c](#top)',
    (p) => p === `${D}/research/a.md`), []);
  assert.deepEqual(brokenLinks(`${D}/rules/x.md`, 'as [a](../a.md) says', none).map((h) => h.path), ['../a.md']);
  assert.deepEqual(layoutFolders('## Every folder\n\n    engine/   x\n      core/   y\n    .ci/  z\n\n## Next\n    no/\n'),
    ['engine', 'engine/core', '.ci']);
});

test('every relative link of a tracked page leads to a file or folder', () => {
  const found = [];
  for (const f of tracked().filter((f) => f.endsWith('.md') && !f.startsWith('tests/fixtures/')))
    for (const h of brokenLinks(f, read(f), onDisk)) found.push(`${f}:${h.line}: ${h.path}`);
  assert.deepEqual(found, [], `links that lead nowhere:\n${found.join('\n')}`);
});

test('every repository path a tracked text names exists', () => {
  const files = tracked().filter((f) => f !== 'CHANGELOG.md' && !f.startsWith('tests/fixtures/') &&
    !f.startsWith('tests/fuzz/corpus/') && (/\.(md|c|h|mjs|js|py|sh|yaml|sql|css|html)$/.test(f) || f === 'Makefile'));
  assert.ok(files.length > 100, `the repository's texts are listed (${files.length})`);
  const found = [];
  for (const f of files) for (const h of missingPaths(read(f), onDisk)) found.push(`${f}:${h.line}: ${h.path}`);
  assert.deepEqual(found, [], `paths that name no file of the repository:\n${found.join('\n')}`);
});

test('docs/README.md indexes every page of docs/', () => {
  const index = read('docs/README.md');
  const linked = new Set([...index.matchAll(LINK_RE)].map((m) =>
    path.posix.normalize(path.posix.join('docs', m[1].split('#')[0])).replace(/\/$/, '')));
  const missing = tracked().filter((f) => f.startsWith('docs/') && f.endsWith('.md') && f !== 'docs/README.md')
    .filter((f) => !linked.has(f) && !linked.has(path.posix.dirname(f)));
  assert.deepEqual(missing, [], `pages docs/README.md does not list: ${missing.join(', ')}`);
  assert.match(index.split(/^## /m)[1], /engine-guide\.md/, 'the engine guide comes first');
  const research = readdirSync(path.join(ROOT, 'docs', 'research'));
  assert.ok(research.length > 0, 'research notes live in docs/research/');
});

test("docs/layout.md names every folder of the repository", () => {
  const named = new Set(layoutFolders(read('docs/layout.md')));
  const folders = new Set();
  for (const f of tracked()) {
    const parts = f.split('/').slice(0, -1);
    for (let d = 1; d <= Math.min(2, parts.length); d++) folders.add(parts.slice(0, d).join('/'));
  }
  const missing = [...folders].filter((d) => !named.has(d)).sort();
  assert.deepEqual(missing, [], `folders docs/layout.md does not name: ${missing.join(', ')}`);
  const stale = [...named].filter((d) => !folders.has(d));
  assert.deepEqual(stale, [], `docs/layout.md names folders that are not there: ${stale.join(', ')}`);
});
