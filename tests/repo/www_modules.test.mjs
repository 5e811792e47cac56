// The web page's module graph (www/, docs/web-page.md): imports go one way,
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
import * as acorn from 'acorn';

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

// ---------------------------------------------------------------------------
// The sources read as JavaScript (acorn): what core/ names, and who writes
// the page's state (www/core/store.js, docs/web-page.md "How state flows").

/** Every node of an acorn tree, with the chain of its parents. */
function walk(node, visit, parents = []) {
  if (!node || typeof node.type !== 'string') return;
  visit(node, parents);
  const up = [...parents, node];
  for (const [k, v] of Object.entries(node)) {
    if (k === 'loc' || k === 'start' || k === 'end') continue;
    if (Array.isArray(v)) for (const x of v) walk(x, visit, up);
    else if (v && typeof v === 'object') walk(v, visit, up);
  }
}

const parsed = new Map(); // file -> {ast, comments}
function read(file) {
  if (!parsed.has(file)) {
    const comments = [];
    const ast = acorn.parse(readFileSync(file, 'utf8'), { ecmaVersion: 'latest', sourceType: 'module', locations: true, onComment: comments });
    parsed.set(file, { ast, comments });
  }
  return parsed.get(file);
}
const tree = (file) => read(file).ast;

/** The strings of a module's code: literals and template text (no comment). */
function strings(file) {
  const out = [];
  walk(tree(file), (n) => {
    if (n.type === 'Literal' && typeof n.value === 'string') out.push({ text: n.value, line: n.loc.start.line });
    else if (n.type === 'TemplateElement') out.push({ text: n.value.cooked || '', line: n.loc.start.line });
  });
  return out;
}

/** The games: the ids of the tables tables/registry.js imports, and their titles. */
async function gameNames() {
  const registry = (await graph()).get(path.join(WWW, 'tables', 'registry.js'));
  const ids = registry.imports.map((i) => path.basename(i.target, '.js'));
  const titles = [];
  for (const i of registry.imports) {
    walk(tree(i.target), (n) => {
      if (n.type === 'Property' && !n.computed && (n.key.name === 'title' || n.key.value === 'title') && n.value.type === 'Literal') titles.push(n.value.value);
    });
  }
  return { ids, titles };
}

test('core/ names no game: no game id or title in its code, its strings, its names or its comments', async () => {
  const { ids, titles } = await gameNames();
  assert.ok(ids.length >= 4 && titles.length >= 4, `games ${ids} titled ${titles}`);
  const words = [...ids, ...titles].map((w) => w.toLowerCase());
  const found = [];
  for (const file of jsFiles(path.join(WWW, 'core'))) {
    for (const s of strings(file)) for (const w of words) if (s.text.toLowerCase().includes(w)) found.push(`${rel(file)}:${s.line}: "${s.text}" names ${w}`);
    walk(tree(file), (n) => {
      if (n.type !== 'Identifier') return;
      for (const w of ids) if (n.name.toLowerCase().includes(w)) found.push(`${rel(file)}:${n.loc.start.line}: ${n.name} names ${w}`);
    });
    // A comment that names a game is a sign of that game's code in core/ (its cards, its numbering).
    for (const c of read(file).comments) for (const w of words) if (c.value.toLowerCase().includes(w)) found.push(`${rel(file)}:${c.loc.start.line}: a comment names ${w}`);
  }
  assert.deepEqual(found, [], 'core/ is the same for every game: a game\'s words, cards and numbering come from its table');
});

test('core/ imports nothing from tables/, not even at run time or by address', () => {
  const found = [];
  for (const file of jsFiles(path.join(WWW, 'core'))) {
    walk(tree(file), (n) => {
      const src = n.source && n.source.type === 'Literal' ? n.source.value : null;
      if ((n.type === 'ImportDeclaration' || n.type === 'ImportExpression' || n.type === 'ExportNamedDeclaration' || n.type === 'ExportAllDeclaration') && src === null && n.source) {
        found.push(`${rel(file)}:${n.loc.start.line}: an import from a computed address`);
      }
    });
    for (const s of strings(file)) if (/(^|\/)tables\//.test(s.text)) found.push(`${rel(file)}:${s.line}: "${s.text}"`);
  }
  assert.deepEqual(found, [], 'app.js hands the tables to core/ (useTables)');
});

// Array, Map and Set methods that change their object in place.
const MUTATORS = new Set(['set', 'delete', 'clear', 'add', 'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin']);

/** The identifier a member chain (a.b.c, a[k].b) hangs from, or null. */
function rootOf(n) {
  let x = n;
  while (x && x.type === 'MemberExpression') x = x.object;
  return x && x.type === 'Identifier' ? x.name : null;
}

/** The writes in module `file` to a member of `names` (identifiers), as
 *  "file:line: what". */
function writesTo(file, names) {
  const out = [];
  const hit = (n, what) => out.push(`${rel(file)}:${n.loc.start.line}: ${what}`);
  walk(tree(file), (n) => {
    if (n.type === 'AssignmentExpression') {
      const r = n.left.type === 'Identifier' ? n.left.name : rootOf(n.left);
      if (names.has(r)) hit(n, `assigns to ${r}${n.left.type === 'Identifier' ? '' : '.…'}`);
    } else if (n.type === 'UpdateExpression' && names.has(rootOf(n.argument))) {
      hit(n, `${n.operator} on ${rootOf(n.argument)}.…`);
    } else if (n.type === 'UnaryExpression' && n.operator === 'delete' && names.has(rootOf(n.argument))) {
      hit(n, `delete ${rootOf(n.argument)}.…`);
    } else if (n.type === 'CallExpression' && n.callee.type === 'MemberExpression') {
      const c = n.callee;
      const method = c.computed ? null : c.property.name;
      if (MUTATORS.has(method) && names.has(rootOf(c.object))) hit(n, `${rootOf(c.object)}.….${method}()`);
      const obj = c.object.type === 'Identifier' ? c.object.name : null;
      if ((obj === 'Object' || obj === 'Reflect') && ['assign', 'defineProperty', 'defineProperties', 'setPrototypeOf', 'set', 'deleteProperty'].includes(method) &&
          n.arguments.length && names.has(n.arguments[0].type === 'Identifier' ? n.arguments[0].name : rootOf(n.arguments[0]))) {
        hit(n, `${obj}.${method}() on the state`);
      }
    }
  });
  return out;
}

test('the state is written by dispatch alone: no module writes app, and no table its context', () => {
  const store = path.join(WWW, 'core', 'store.js');
  const found = [];
  for (const file of jsFiles(WWW)) {
    if (file === store) continue;
    found.push(...writesTo(file, new Set(['app'])));
    // A table draws from the context it is handed (render(a), extraPlays(a), moveMarks(rec, a)).
    if (rel(file).startsWith(`tables${path.sep}`)) found.push(...writesTo(file, new Set(['a'])));
  }
  assert.deepEqual(found, [], 'a change of the page\'s state is an action: dispatch({type, ...}) (core/store.js)');
});

test('the state is frozen: a write outside dispatch throws, dispatch makes the next state', async () => {
  const store = await import('../../www/core/store.js');
  const before = store.app;
  assert.ok(Object.isFrozen(before) && Object.isFrozen(before.message) && Object.isFrozen(before.seats));
  assert.throws(() => { store.app.selection = 'hand:7H'; }, TypeError);
  assert.throws(() => { store.app.message.text = 'hello'; }, TypeError);
  assert.throws(() => { store.app.seats.push({ seat: 0 }); }, TypeError);
  let drawn = 0;
  store.subscribe(() => { drawn++; assert.throws(() => store.dispatch({ type: 'select', key: null }), /while the page is drawn/); });
  store.dispatch({ type: 'game/view', data: { id: 'g1', game: 'x', version: 1, seats: [{ seat: 0, name: 'Ann', token: 'secret' }], you: 0, state: { hand: ['7H'] }, status: { current: 0, over: false } }, records: [{ n: 0, seat: 0, play: [1] }] });
  assert.equal(drawn, 1, 'the listeners are told once per action');
  assert.notEqual(store.app, before, 'a new state, the old one untouched');
  assert.equal(before.id, null);
  assert.equal(store.app.id, 'g1');
  assert.equal(store.app.seats[0].token, undefined, 'no seat token is kept in the state');
  assert.deepEqual([...store.app.log.keys()], [0]);
  assert.throws(() => { store.app.state.hand.push('8H'); }, TypeError, 'the game\'s view is frozen too');
  store.dispatch({ type: 'select', key: 'hand:7H' });
  assert.equal(store.app.selection, 'hand:7H');
  assert.throws(() => store.dispatch({ type: 'no/such' }), /unknown action/);
});

test('each game\'s CSS lives beside its table, linked from index.html; the shared stylesheets style no one game', async () => {
  const { ids } = await gameNames();
  const html = readFileSync(path.join(WWW, 'index.html'), 'utf8');
  for (const g of ids) {
    assert.ok(jsFiles(path.join(WWW, 'tables'), '.css').some((f) => path.basename(f) === `${g}.css`), `tables/${g}.css`);
    assert.match(html, new RegExp(`<link rel="stylesheet" href="/tables/${g}\\.css">`), `index.html links tables/${g}.css`);
  }
  // Who uses each word of the page's code (a class name among them): core/
  // (with app.js and index.html), one game's modules (tables/<game>*.js),
  // or the tables' shared helpers.
  const owner = (file) => {
    const r = rel(file);
    if (!r.startsWith(`tables${path.sep}`)) return 'core';
    return ids.find((g) => path.basename(r).startsWith(g)) || 'tables';
  };
  const users = new Map(); // word -> Set of owners
  const note = (word, who) => { if (!users.has(word)) users.set(word, new Set()); users.get(word).add(who); };
  for (const file of jsFiles(WWW)) for (const s of strings(file)) for (const w of s.text.split(/[^\w-]+/)) if (w) note(w, owner(file));
  for (const w of html.split(/[^\w-]+/)) if (w) note(w, 'core');
  const prefixOwners = (p) => new Set([...users].filter(([w]) => w.startsWith(`${p}-`)).flatMap(([, o]) => [...o]));
  const found = [];
  for (const css of jsFiles(WWW, '.css').filter((f) => path.dirname(f) === WWW)) {
    const text = readFileSync(css, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const [, cls] of text.matchAll(/\.([a-zA-Z][\w-]*)/g)) {
      // A class built at run time (`hb-${colour}`) is known by its prefix.
      const who = users.get(cls) || (cls.includes('-') ? prefixOwners(cls.split('-')[0]) : new Set());
      if (who.size === 1 && ids.includes([...who][0])) found.push(`${path.basename(css)}: .${cls} is ${[...who][0]}'s only`);
    }
  }
  assert.deepEqual([...new Set(found)], [], 'a game\'s own look goes in www/tables/<game>.css');
});
