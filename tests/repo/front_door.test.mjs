// The front door and the history: the README stays a front door (at most
// 200 lines; the detail lives in docs/), CHANGELOG.md is cut into releases
// (Semantic Versioning) under one `## Unreleased`, newest first, and VERSION
// is the newest release or the next one; and what the server serves (the
// page, the contract, the rules pages, every string of the C sources) and
// the docs say what a thing does, never which issue asked for it (the
// CHANGELOG and the tests' fixtures may name issues: they are history).
//
// The checks are functions of a text; the first tests run them on made-up
// texts, so a check that stops finding anything fails here.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (f) => readFileSync(path.join(ROOT, f), 'utf8');

const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;
const cmp = (a, b) => {
  const x = SEMVER.exec(a).slice(1).map(Number), y = SEMVER.exec(b).slice(1).map(Number);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
};

/** What is wrong with a changelog's shape, given VERSION: a list of sentences. */
export function changelogProblems(text, version) {
  const out = [];
  if (!SEMVER.test(version)) return [`VERSION ${JSON.stringify(version)} is not x.y.z`];
  const heads = [...text.matchAll(/^## (.*)$/gm)].map((m) => ({ title: m[1], at: m.index }));
  if (heads[0]?.title !== 'Unreleased') out.push('the first release heading is not "## Unreleased"');
  if (heads.filter((h) => h.title === 'Unreleased').length > 1) out.push('more than one "## Unreleased"');
  let last = null;
  heads.forEach((h, i) => {
    const body = text.slice(h.at, heads[i + 1]?.at ?? text.length);
    const kinds = [...body.matchAll(/^### (.*)$/gm)].map((m) => m[1]);
    const order = ['Added', 'Changed', 'Fixed'];
    if (kinds.some((k) => !order.includes(k)) || kinds.some((k, j) => j && order.indexOf(k) <= order.indexOf(kinds[j - 1])))
      out.push(`${h.title}: sections ${kinds.join(', ')} (Added, Changed, Fixed, each once, in that order)`);
    if (h.title === 'Unreleased') return;
    const m = /^\[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/.exec(h.title);
    if (!m) { out.push(`"## ${h.title}" is not "## [x.y.z] - YYYY-MM-DD"`); return; }
    if (last && !(cmp(m[1], last.v) < 0 && m[2] <= last.d)) out.push(`${m[1]} (${m[2]}) is not older than ${last.v} (${last.d})`);
    if (!last && cmp(version, m[1]) < 0) out.push(`VERSION ${version} is older than the newest release ${m[1]}`);
    last = { v: m[1], d: m[2] };
  });
  if (!last) out.push('no release');
  return out;
}

const GOOD = '# Changelog\n\n## Unreleased\n\n### Added\n- a\n\n## [0.2.0] - 2026-11-28\n\n### Fixed\n- b\n\n' +
  '## [0.1.0] - 2026-11-23\n\n### Added\n- c\n\n### Changed\n- d\n';

test('the changelog check passes a good text and finds each kind of wrong one', () => {
  assert.deepEqual(changelogProblems(GOOD, '1.0.0'), []);
  assert.deepEqual(changelogProblems(GOOD, '0.2.0'), []);
  for (const [text, version, re] of [
    [GOOD, '0.1.9', /older than the newest release/],
    [GOOD, '1.0', /not x\.y\.z/],
    [GOOD.replace('## Unreleased', '## Next'), '1.0.0', /first release heading/],
    [GOOD.replace('[0.1.0] - 2026-11-23', '[0.3.0] - 2026-11-23'), '1.0.0', /is not older than/],
    [GOOD.replace('2026-11-23', '2026-11-30'), '1.0.0', /is not older than/],
    [GOOD.replace('[0.2.0] - 2026-11-28', '0.2.0'), '1.0.0', /is not "## \[x\.y\.z\]/],
    [GOOD.replace('### Fixed', '### Removed'), '1.0.0', /sections Removed/],
    [GOOD.replace('### Changed', '### Added'), '1.0.0', /each once/],
    ['# Changelog\n\n## Unreleased\n', '1.0.0', /no release/],
  ]) assert.match(changelogProblems(text, version).join('\n'), re, re.source);
});

test('CHANGELOG.md is cut into releases, newest first, and VERSION is the newest or the next', () => {
  assert.deepEqual(changelogProblems(read('CHANGELOG.md'), read('VERSION').trim()), []);
});

const README_MAX = 200;

test(`the README is at most ${README_MAX} lines`, () => {
  const n = read('README.md').split('\n').length - 1;
  assert.ok(n <= README_MAX, `README.md has ${n} lines: move the detail to the doc of docs/ that owns it`);
  assert.match(read('README.md').split('\n').slice(0, 25).join('\n'), /make run[\s\S]*make test/,
    'the first screen says make run and make test');
});

/** The lines of a text that name an issue ("issue 42", "issues 13 and 30",
 * "Issue #9"): [{line, text}]. */
export function issueNames(text) {
  const out = [];
  text.split('\n').forEach((l, i) => { if (/\bissues? #?\d+/i.test(l)) out.push({ line: i + 1, text: l.trim() }); });
  return out;
}

test('the issue check finds an issue named in a comment, a string or prose, and nothing else', () => {
  assert.deepEqual(issueNames('// The bots\' moves (issue 43 item 1).\nint x;').map((h) => h.line), [1]);
  assert.equal(issueNames('"the planner before Issue 14"').length, 1);
  assert.equal(issueNames('as issues 13 and 30 asked').length, 1);
  assert.equal(issueNames('see issue #9').length, 1);
  assert.deepEqual(issueNames('an issue of the store\ntissue 3\nno issues here, 42 plays'), []);
});

// What is served or read by the people who use it: the page, the contract,
// every C source (its strings are served: bots' descriptions, problems),
// the docs (the rules pages are served), the client, deploy/ and the README.
const SERVED = /^(www|openapi|api|cli|engine|docs|clients|deploy)\/|^README\.md$|^Makefile$/;

test('served texts, code comments and the docs name no issue', () => {
  const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n')
    .filter((f) => SERVED.test(f) && /\.(c|h|js|mjs|css|html|yaml|md|py|conf|service|sql|json)$|^Makefile$/.test(f));
  assert.ok(files.some((f) => f.startsWith('www/')) && files.includes('openapi/openapi.yaml'), 'the served files are listed');
  const found = [];
  for (const f of files) for (const h of issueNames(read(f))) found.push(`${f}:${h.line}: ${h.text}`);
  assert.deepEqual(found, [], `say what it does, not which issue asked for it:\n${found.join('\n')}`);
});
