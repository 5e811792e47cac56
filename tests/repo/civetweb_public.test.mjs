// civetweb through its public face only: no C source of api/ or cli/ reads
// civetweb's own memory (the struct behind a `struct mg_connection *` or a
// `struct mg_context *` is civetweb's, its layout changes between builds),
// and none sends the server a request of its own to learn it. What the API
// does not tell (a connection's socket) is asked of the kernel
// (api/front_conn.c, front_conn_socket). Read from the sources, so it needs
// no build; comments are left out. The first test runs the check on
// made-up texts, so a pattern that stops matching fails here.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const strip = (s) => s.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ');

/** Why a C text reads civetweb's private memory: a list of sentences. */
export function privateReads(text) {
  const s = strip(text), out = [];
  // the names of civetweb's opaque pointers in this text
  const names = new Set();
  for (const m of s.matchAll(/struct\s+mg_(?:connection|context)\s*\*\s*(?:const\s+)?(\w+)/g)) names.add(m[1]);
  for (const n of names) {
    const cast = new RegExp(`\\(\\s*(?:const\\s+)?(?:unsigned\\s+|signed\\s+)?(?:char|u?int8_t|uintptr_t|intptr_t)\\s*\\*?\\s*\\)\\s*\\(?\\s*${n}\\b`);
    if (cast.test(s)) out.push(`a civetweb pointer (${n}) cast to bytes or a number`);
  }
  if (/sizeof\s*\(?\s*struct\s+mg_(?:connection|context|request_info|response_info)\b/.test(s))
    out.push('the size of a civetweb struct used (to reach past it)');
  if (/struct\s+mg_(?:connection|context)\s*\{/.test(s)) out.push("civetweb's private struct declared");
  if (/croupier-probe|front_probe/.test(s)) out.push('a request of our own to the server (the probe)');
  return out;
}

test('the check finds each way of reading civetweb\'s memory, and passes public use', () => {
  assert.deepEqual(privateReads('int f(struct mg_connection *conn) { return mg_read(conn, b, 4); }'), []);
  assert.deepEqual(privateReads('const struct mg_request_info *ri = mg_get_request_info(conn); /* (char *)conn */'), []);
  for (const [text, re] of [
    ['int f(const struct mg_connection *conn) { int v; memcpy(&v, (const char *)conn + 88, 4); }', /cast to bytes/],
    ['void g(struct mg_connection *c) { uintptr_t p = (uintptr_t)c; }', /cast to bytes/],
    ['p = (const char *)ri + sizeof(struct mg_request_info) + sizeof(struct mg_response_info);', /size of a civetweb struct/],
    ['struct mg_connection { int sock; };', /private struct/],
    ['#include "front_probe.h"', /the probe/],
    ['static const char req[] = "POST /.croupier-probe HTTP/1.1";', /the probe/],
  ]) assert.match(privateReads(text).join('; '), re, text);
});

test('no source of api/ or cli/ reads civetweb\'s memory; the probe is gone', () => {
  const found = [];
  for (const dir of ['api', 'cli']) {
    for (const f of readdirSync(path.join(ROOT, dir)).filter((x) => /\.[ch]$/.test(x))) {
      for (const why of privateReads(readFileSync(path.join(ROOT, dir, f), 'utf8'))) found.push(`${dir}/${f}: ${why}`);
    }
  }
  assert.deepEqual(found, []);
  for (const f of ['front_probe.c', 'front_probe.h']) assert.ok(!existsSync(path.join(ROOT, 'api', f)), `api/${f} is gone`);
});
