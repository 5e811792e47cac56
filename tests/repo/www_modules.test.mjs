// The web page's module graph (www/, docs/web-tables.md): imports go one way,
// app.js -> tables/ -> core/, and form no cycle; core/ imports nothing from
// tables/ (app.js hands the tables over); every name imported is exported
// by its module; and every export is imported by a module of the page or
// by a test that loads it in the browser (an export nobody uses is dead
// weight: drop the word "export", or the code). The imports are read by
// es-module-lexer, the lexer Vite and Node's own tooling use.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { init, parse } from 'es-module-lexer';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WWW = path.join(ROOT, 'www');

function jsFiles(dir, ext = '.js') {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? jsFiles(p, ext) : p.endsWith(ext) ? [p] : [];
  });
}

/** Every module of the page: {file: {imports: [{target, names, dynamic}], exports: [names]}}. */
async function graph() {
  await init;
  const mods = new Map();
  for (const file of jsFiles(WWW)) {
    const src = readFileSync(file, 'utf8');
    const [imports, exports] = parse(src, file);
    mods.set(file, {
      exports: exports.map((e) => e.n),
      imports: imports.filter((i) => i.n).map((i) => {
        const clause = /\{([^}]*)\}/.exec(src.slice(i.ss, i.se));
        const names = clause ? clause[1].split(',').map((x) => x.trim().split(/\s+as\s+/)[0]).filter(Boolean) : [];
        return { target: path.resolve(path.dirname(file), i.n), names, dynamic: i.d > -1 };
      }),
    });
  }
  return mods;
}

const rel = (f) => path.relative(WWW, f);

test('the page imports only modules that exist, and only names they export', async () => {
  const mods = await graph();
  assert.ok(mods.size >= 30, `modules read: ${mods.size}`);
  for (const [file, m] of mods) {
    for (const i of m.imports) {
      assert.ok(mods.has(i.target), `${rel(file)} imports ${rel(i.target)}, which is not a module of www/`);
      for (const n of i.names) assert.ok(mods.get(i.target).exports.includes(n), `${rel(file)} imports ${n}, which ${rel(i.target)} does not export`);
    }
  }
});

test('no import cycle in www/, and core/ imports nothing from tables/', async () => {
  const mods = await graph();
  for (const [file, m] of mods) {
    if (rel(file).startsWith(`core${path.sep}`)) {
      for (const i of m.imports) assert.ok(!rel(i.target).startsWith(`tables${path.sep}`), `${rel(file)} imports ${rel(i.target)}: core/ names no game`);
    }
  }
  // Depth-first search; a module met again while on the path closes a cycle.
  const state = new Map(); // file -> 'open' | 'done'
  const visit = (file, trail) => {
    if (state.get(file) === 'done') return;
    assert.notEqual(state.get(file), 'open', `import cycle: ${[...trail.slice(trail.indexOf(file)), file].map(rel).join(' -> ')}`);
    state.set(file, 'open');
    for (const i of mods.get(file).imports) if (mods.has(i.target)) visit(i.target, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of mods.keys()) visit(file, []);
});

test('every export of www/ is imported somewhere: by the page or by a browser test', async () => {
  const mods = await graph();
  const used = new Set();
  for (const m of mods.values()) for (const i of m.imports) for (const n of i.names) used.add(`${i.target}#${n}`);
  // The browser tests load modules in the page (import('/core/state.js'))
  // or in Node (import('../../www/core/events.js')) and take names from them.
  const tests = jsFiles(path.join(ROOT, 'tests', 'browser'), '.mjs').map((f) => readFileSync(f, 'utf8')).join('\n');
  const unused = [];
  for (const [file, m] of mods) {
    const url = `/${rel(file).split(path.sep).join('/')}`;
    for (const n of m.exports) {
      if (used.has(`${file}#${n}`)) continue;
      const byTest = tests.includes(url) && new RegExp(`\\b${n}\\b`).test(tests);
      if (!byTest) unused.push(`${rel(file)}: ${n}`);
    }
  }
  assert.deepEqual(unused, [], 'exports nobody imports');
});

test("core/ reads no member of a game's view and names no game", async () => {
  // The view (app.state, a replay's view.state) is the game's own shape: only
  // its table reads it; core/ reads the server's generic status. The games:
  // the ids of the tables tables/registry.js imports (tables/<game>.js).
  const registry = (await graph()).get(path.join(WWW, 'tables', 'registry.js'));
  const games = registry.imports.map((i) => path.basename(i.target, '.js'));
  assert.ok(games.length >= 4, `games of the registry: ${games}`);
  for (const file of jsFiles(path.join(WWW, 'core'))) {
    const src = readFileSync(file, 'utf8').replace(/^\s*(\/\/|\*|\/\*).*$/gm, ''); // code, not comments
    assert.doesNotMatch(src, /\b(app|view)\.state\.\w/, `${rel(file)} reads a member of the view`);
    assert.doesNotMatch(src, /\bapp\.game\s*[!=]==?\s*['"`]/, `${rel(file)} branches on a game`);
    for (const g of games) assert.ok(!src.includes(`'${g}'`), `${rel(file)} names ${g}`);
  }
});
