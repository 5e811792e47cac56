// Every problem type the server answers is a row of the one error table
// (ERR_TABLE in engine/core/err.h), and docs/api.md lists them ("Problem
// types"): the same rows, in the same order, with the same status and
// title. The OpenAPI description names no type the table lacks, and no C
// file outside the one writer spells a problem type itself.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (f) => readFileSync(path.join(ROOT, f), 'utf8');

// X(NAME, "slug", status, "title"), a row possibly spread over two lines.
export function tableRows(text) {
  const body = text.slice(text.indexOf('#define ERR_TABLE(X)'));
  const end = body.search(/\n\s*\n/);
  const rows = [];
  const re = /X\(\s*(\w+),\s*"([^"]+)",\s*(\d+),\s*(?:\\\s*)?"([^"]+)"\s*\)/g;
  for (const m of (end < 0 ? body : body.slice(0, end)).matchAll(re))
    rows.push({ name: m[1], slug: m[2], status: Number(m[3]), title: m[4] });
  return rows;
}

// | status | `slug` | title | when | under the heading "### Problem types".
export function docRows(text) {
  const at = text.indexOf('### Problem types');
  assert.ok(at >= 0, 'docs/api.md has a "### Problem types" section');
  const rest = text.slice(at);
  const next = rest.slice(4).search(/\n#{2,3} /);
  const section = next < 0 ? rest : rest.slice(0, next + 4);
  const rows = [];
  for (const m of section.matchAll(/^\| (\d{3}) \| `([^`]+)` \| ([^|]+?) \| [^|]+\|$/gm))
    rows.push({ slug: m[2], status: Number(m[1]), title: m[3] });
  return rows;
}

test('the parsers read what they are meant to (made-up table and page)', () => {
  const h = '#define ERR_TABLE(X) \\\n  X(OK, "ok", 200, "OK") \\\n  X(A_B, "a-b", 409, \\\n    "A b")\n\nenum';
  assert.deepEqual(tableRows(h).map((r) => r.slug), ['ok', 'a-b']);
  assert.equal(tableRows(h)[1].title, 'A b');
  const d = '### Problem types\n\n| status | type | title | when |\n|---|---|---|---|\n| 409 | `a-b` | A b | now |\n\n## Next\n| 400 | `x` | X | y |\n';
  assert.deepEqual(docRows(d), [{ slug: 'a-b', status: 409, title: 'A b' }]);
});

test('docs/api.md lists every row of ERR_TABLE, and nothing else', () => {
  const table = tableRows(read('engine/core/err.h')).filter((r) => r.name !== 'OK');
  assert.ok(table.length >= 20, `ERR_TABLE parsed: ${table.length} rows`);
  const docs = docRows(read('docs/api.md'));
  assert.deepEqual(docs, table.map(({ slug, status, title }) => ({ slug, status, title })));
});

test('the OpenAPI description names only problem types of the table', () => {
  const slugs = new Set(tableRows(read('engine/core/err.h')).map((r) => r.slug));
  const named = new Set([...read('openapi/openapi.yaml').matchAll(/\/problems\/([a-z0-9-]+)/g)].map((m) => m[1]));
  assert.ok(named.size >= 10, `problem types in openapi.yaml: ${named.size}`);
  for (const s of named) assert.ok(slugs.has(s), `openapi.yaml names /problems/${s}, not a row of ERR_TABLE`);
});

test('no C file but the one problem writer spells a problem type', () => {
  const offenders = [];
  for (const dir of ['api', 'cli', 'engine']) {
    for (const f of readdirSync(path.join(ROOT, dir), { recursive: true })) {
      if (!/\.[ch]$/.test(f)) continue;
      const rel = path.join(dir, f);
      const text = read(rel);
      for (const m of text.matchAll(/"\/problems\/[^"]*"|\\"type\\":\\"\/problems/g))
        if (!(rel === 'api/http.c' && m[0] === '"/problems/%s"')) offenders.push(`${rel}: ${m[0]}`);
    }
  }
  assert.deepEqual(offenders, []);
});
