// The examples of docs/api.md and docs/rules/<game>.md, run against a real
// server: every ```http block of those pages is a request and the reply the
// page promises, and this suite sends each request and checks the reply, so
// a page cannot show a play, a verdict or an error the server does not give.
//
// A block is a request, a blank line, then the expected reply:
//
//   POST /games/$ID/plays              method and path
//   Authorization: Bearer $TOKEN0      header lines (optional)
//   {"play": [0, "2S", [0, 0]]}        the body (JSON, or text when a header says so)
//
//   200                                the status
//   {"applied": [{"turn_ending": false}]}   (optional) what the reply holds
//
// The expected JSON is matched as a pattern: an object names only the
// members it checks (recursively), an array must have exactly its elements,
// each matched the same way (or, when its last element is "...", at least
// the ones before it), and a scalar must be equal. Header lines in the
// expected part must be present with that value. The blocks of a page run in
// order and share one table: $ID and $TOKEN0.. are the id and the seat tokens
// of the game the page last created (POST /games or /games/import), $ADMIN
// the server's admin token, in the request and in the expected reply alike.
// Every reply is also checked against openapi/openapi.yaml by the test
// client.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './lib/contract.mjs';
import { useServer } from './lib/server.mjs';

const srv = useServer();

const PAGES = ['docs/api.md', ...readdirSync(path.join(ROOT, 'docs', 'rules'))
  .filter((f) => f.endsWith('.md')).sort().map((f) => `docs/rules/${f}`)];

// Request header lines are the headers a client of this API sends (so that a
// text body, such as a Five Crowns save, may start with "Round: 1"); reply
// header lines are any "Name: value" before the expected JSON.
const REQUEST_HEADER = /^(Authorization|Content-Type|If-Match|If-None-Match|Accept|X-Croupier-Import|Last-Event-ID|Origin|Access-Control-Request-Method):\s?(.*)$/i;
const HEADER = /^([A-Za-z][A-Za-z0-9-]*):\s?(.*)$/;

/** The ```http blocks of a page: [{where, method, path, headers, bodyText, status, expectHeaders, expectText}]. */
function parseBlocks(text, file) {
  const blocks = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```http') continue;
    const start = i + 1;
    const body = [];
    for (i++; i < lines.length && lines[i].trim() !== '```'; i++) body.push(lines[i]);
    assert.ok(i < lines.length, `${file}:${start}: unterminated http block`);
    blocks.push(parseBlock(body, `${file}:${start}`));
  }
  return blocks;
}

function parseBlock(lines, where) {
  const gap = lines.findIndex((l) => l.trim() === '');
  assert.ok(gap > 0, `${where}: a request, a blank line, then the expected reply`);
  const req = lines.slice(0, gap);
  const rep = lines.slice(gap + 1).filter((l, k, a) => k < a.length - 1 || l.trim() !== '');
  const m = /^(GET|POST|DELETE|PUT|PATCH|OPTIONS|HEAD) (\S+)$/.exec(req[0]);
  assert.ok(m, `${where}: "${req[0]}" is not "METHOD /path"`);
  const headers = {};
  let k = 1;
  for (; k < req.length && REQUEST_HEADER.test(req[k]); k++) {
    const [, name, value] = REQUEST_HEADER.exec(req[k]);
    headers[name.toLowerCase()] = value;
  }
  const bodyText = req.slice(k).join('\n');
  const st = /^(\d{3})(?:\s+(.*))?$/.exec(rep[0] || '');
  assert.ok(st, `${where}: the reply starts with its status, not "${rep[0]}"`);
  const rest = [st[2] || '', ...rep.slice(1)].filter((l, j) => j > 0 || l !== '');
  const expectHeaders = {};
  let h = 0;
  for (; h < rest.length && HEADER.test(rest[h]); h++) {
    const [, name, value] = HEADER.exec(rest[h]);
    expectHeaders[name.toLowerCase()] = value;
  }
  const expectText = rest.slice(h).join('\n').trim();
  if (expectText !== '') {
    try { JSON.parse(expectText); } catch (e) { assert.fail(`${where}: the expected reply is not JSON: ${e.message}`); }
  }
  return { where, method: m[1], path: m[2], headers, bodyText, status: Number(st[1]), expectHeaders, expectText };
}

/** Deep pattern match (see the top of this file); returns '' or where it differs. */
function mismatch(want, got, at = '') {
  if (want !== null && typeof want === 'object' && !Array.isArray(want)) {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return `${at || '/'}: expected an object, got ${JSON.stringify(got)}`;
    for (const key of Object.keys(want)) {
      if (!(key in got)) return `${at}/${key}: missing`;
      const d = mismatch(want[key], got[key], `${at}/${key}`);
      if (d) return d;
    }
    return '';
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return `${at || '/'}: expected an array, got ${JSON.stringify(got)}`;
    const prefix = want.at(-1) === '...';
    const n = prefix ? want.length - 1 : want.length;
    if (prefix ? got.length < n : got.length !== n)
      return `${at || '/'}: expected ${prefix ? 'at least ' : ''}${n} elements, got ${got.length}: ${JSON.stringify(got).slice(0, 300)}`;
    for (let i = 0; i < n; i++) {
      const d = mismatch(want[i], got[i], `${at}/${i}`);
      if (d) return d;
    }
    return '';
  }
  return Object.is(want, got) ? '' : `${at || '/'}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`;
}

function substitute(s, vars) {
  return s.replace(/\$(ID|ADMIN|TOKEN\d)\b/g, (all, name) => {
    assert.ok(vars[name] !== undefined, `${all} is not set: create a game first`);
    return vars[name];
  });
}

async function run(block, vars) {
  const headers = {};
  for (const [k, v] of Object.entries(block.headers)) headers[k] = substitute(v, vars);
  const opts = { headers };
  if (block.bodyText.trim() !== '') {
    const text = substitute(block.bodyText, vars);
    if (!headers['content-type'] || /json/.test(headers['content-type'])) {
      try { JSON.parse(text); } catch (e) { assert.fail(`${block.where}: the request body is not JSON: ${e.message}`); }
      headers['content-type'] ??= 'application/json';
    }
    opts.body = text;
  }
  const r = await srv.request(block.method, substitute(block.path, vars), opts);
  const what = `${block.where}: ${block.method} ${block.path}`;
  // a game created (or imported) is the page's table from here on, its own reply included
  if (r.json && typeof r.json.id === 'string' && Array.isArray(r.json.seats) && r.json.seats.some((x) => x.token)) {
    vars.ID = r.json.id;
    for (let s = 0; s < 10; s++) delete vars[`TOKEN${s}`];
    for (const seat of r.json.seats) if (seat.token) vars[`TOKEN${seat.seat}`] = seat.token;
  }
  assert.equal(r.status, block.status, `${what}: status ${r.status}, the page says ${block.status}: ${r.text.slice(0, 800)}`);
  for (const [name, value] of Object.entries(block.expectHeaders))
    assert.equal(r.headers.get(name), substitute(value, vars), `${what}: header ${name}`);
  if (block.expectText !== '') {
    assert.ok(r.json !== undefined, `${what}: the reply is not JSON: ${r.text.slice(0, 300)}`);
    const d = mismatch(JSON.parse(substitute(block.expectText, vars)), r.json);
    assert.equal(d, '', `${what}: the reply differs from the page at ${d}\n${r.text.slice(0, 1500)}`);
  }
}

test('the block reader reads requests and replies, and the matcher can fail', () => {
  const [b] = parseBlocks('x\n```http\nPOST /games/$ID/plays\nAuthorization: Bearer $TOKEN0\n{"play":\n [1, null]}\n\n422\n{"rule": "pick-up-first",\n "legal": [[1, null]]}\n```\n', 't.md');
  assert.equal(b.method, 'POST');
  assert.equal(b.path, '/games/$ID/plays');
  assert.deepEqual(b.headers, { authorization: 'Bearer $TOKEN0' });
  assert.deepEqual(JSON.parse(b.bodyText), { play: [1, null] });
  assert.equal(b.status, 422);
  assert.deepEqual(JSON.parse(b.expectText), { rule: 'pick-up-first', legal: [[1, null]] });
  assert.equal(mismatch({ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 2, d: 3 }], e: 4 } }), '');
  assert.notEqual(mismatch({ a: [1] }, { a: [1, 2] }), '', 'arrays are matched whole');
  assert.equal(mismatch({ a: [1, '...'] }, { a: [1, 2] }), '', 'unless they end in "..."');
  assert.notEqual(mismatch({ a: [2, '...'] }, { a: [1, 2] }), '', '"..." matches the elements after the ones given');
  assert.notEqual(mismatch({ a: 1 }, { a: '1' }), '', 'scalars are matched by value and type');
  assert.notEqual(mismatch({ a: null }, {}), '', 'a member the page names must be there');
});

for (const page of PAGES) {
  test(`${page}: every example is what the server answers`, async () => {
    const blocks = parseBlocks(readFileSync(path.join(ROOT, page), 'utf8'), page);
    assert.ok(blocks.length >= 5, `${page} shows ${blocks.length} checked examples (\`\`\`http blocks); a page needs some`);
    const vars = { ADMIN: srv.adminToken };
    for (const block of blocks) await run(block, vars);
  });
}

test('there is a rules page for every game the server plays', async () => {
  const r = await srv.get('/rules');
  for (const g of r.json.games)
    assert.ok(PAGES.includes(`docs/rules/${g.game}.md`), `docs/rules/${g.game}.md is missing`);
});
