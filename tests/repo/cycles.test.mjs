// No two C files of engine/, api/ and cli/ depend on each other, directly
// or through others: a file uses another when it names a function or
// variable the other defines (non-static). Such a cycle is a link-level
// one: neither file can be linked, or tested, without the other (the
// SQLite store's test needed libpq while store.c and the back ends called
// each other). Read from the sources, so it needs no build; comments and
// string literals are left out. The first test runs the reading on made-up
// files, so a pattern that stops matching fails here rather than finding
// no cycle at all.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// Cycles known and being removed elsewhere, each with where: a row goes
// once its cycle is gone (an entry that names no cycle fails below).
const KNOWN = [];

const strip = (s) => s.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ')
  .replace(/"(?:\\.|[^"\\\n])*"/g, '""').replace(/'(?:\\.|[^'\\\n])*'/g, "''");

/** The names a C text defines at file scope, not static: functions and variables. */
export function definitions(text) {
  const s = strip(text), out = new Set();
  for (const m of s.matchAll(/^(?!static\b|typedef\b|extern\b|#)[A-Za-z_][\w \t*]*?\b([a-z_]\w*)\s*\([^;{]*\)\s*\{/gm)) out.add(m[1]);
  for (const m of s.matchAll(/^(?!static\b|typedef\b|extern\b|#|enum\b|struct\b)[A-Za-z_][\w \t*]*?\b([a-z_]\w*)\s*(?:\[[^\]]*\])?\s*=/gm)) out.add(m[1]);
  return out;
}

/** The groups of files that depend on each other: [[file...]...], each sorted. */
export function cycles(sources) {
  const owner = new Map();
  for (const [f, t] of sources) for (const d of definitions(t)) if (!owner.has(d)) owner.set(d, f);
  const edges = new Map();
  for (const [f, t] of sources) {
    const to = new Set();
    for (const w of new Set(strip(t).match(/\b[a-z_]\w*\b/g) ?? [])) {
      const g = owner.get(w);
      if (g && g !== f) to.add(g);
    }
    edges.set(f, to);
  }
  // Tarjan's strongly connected components
  const index = new Map(), low = new Map(), stack = [], on = new Set(), out = [];
  let n = 0;
  const visit = (v) => {
    index.set(v, n); low.set(v, n); n++; stack.push(v); on.add(v);
    for (const w of edges.get(v)) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const comp = [];
      for (let w; w !== v;) { w = stack.pop(); on.delete(w); comp.push(w); }
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const f of edges.keys()) if (!index.has(f)) visit(f);
  return out;
}

test('the reading finds a cycle and a definition, and only those', () => {
  const a = 'int a_one(void)\n{\n    return b_two(); /* c_three() */\n}\n';
  const b = 'static int helper(void) { return 0; }\nint b_two(void)\n{\n    return a_one() + helper();\n}\n';
  const c = 'const char *const c_names[] = {"a_one", NULL};\nint c_three(void) { return b_two(); }\n';
  assert.deepEqual([...definitions(b)], ['b_two']);
  assert.deepEqual([...definitions(c)].sort(), ['c_names', 'c_three']);
  assert.deepEqual(cycles([['a.c', a], ['b.c', b], ['c.c', c]]), [['a.c', 'b.c']]);
  assert.deepEqual(cycles([['b.c', b], ['c.c', c]]), []);
});

test('no two C files of engine/, api/ and cli/ depend on each other', () => {
  const files = execFileSync('git', ['ls-files', '-z', 'engine', 'api', 'cli'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0').filter((f) => f.endsWith('.c'));
  assert.ok(files.length > 40, `the C files are listed (${files.length})`);
  const found = cycles(files.map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8')]));
  const key = (c) => c.join(' <-> ');
  const known = new Set(KNOWN.map((k) => key([...k].sort())));
  const fresh = found.filter((c) => !known.has(key(c)));
  assert.deepEqual(fresh.map(key), [], 'files that depend on each other (a link-level cycle)');
  const gone = [...known].filter((k) => !found.some((c) => key(c) === k));
  assert.deepEqual(gone, [], 'KNOWN lists a cycle that is gone: remove its row');
});
