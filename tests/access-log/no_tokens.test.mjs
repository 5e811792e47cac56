// No secret in a URL: the access logs of a whole HTTP suite run hold none of
// the tokens that run was given.
//
// tests/http/lib/server.mjs, with CROUPIER_TEST_ACCESS_LOG_DIR=DIR, has every
// server it starts write its access log into DIR (civetweb's --access-log, or
// nginx's log for the FastCGI front) and lists every token the tests were
// given (the admin token, every seat token of a POST /games or /games/import
// reply) in DIR/tokens-*.txt. This file greps every log for every token.
//
//   CROUPIER_ACCESS_LOG_CHECK_DIR=DIR  check a DIR filled by earlier runs
//                                      (tests/run.sh: the HTTP suites it runs)
//   otherwise                          run the HTTP suite here first, into a
//                                      temporary DIR (CROUPIER_ACCESS_LOG_SUITE:
//                                      the test files to run, default all)
//
// A control shows that the check can fail: a token put in a URL under a
// name that does not look like a secret's lands in the access log (one
// named like a token is refused and redacted).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.resolve(ROOT, process.env.CROUPIER_BIN || 'build/croupier');

function runSuite(dir) {
  const files = (process.env.CROUPIER_ACCESS_LOG_SUITE || 'tests/http').split(/\s+/).filter(Boolean);
  const env = { ...process.env, CROUPIER_TEST_ACCESS_LOG_DIR: dir };
  delete env.NODE_TEST_CONTEXT; // else the nested `node --test` thinks it is one of our files
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--test', '--test-reporter=tap', ...files], {
      cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { out += d; });
    p.on('exit', (code) => resolve({ code, out }));
  });
}

function readDir(dir) {
  const names = readdirSync(dir);
  const tokens = new Set();
  for (const n of names.filter((x) => /^tokens-.*\.txt$/.test(x))) {
    for (const t of readFileSync(path.join(dir, n), 'utf8').split('\n')) if (t) tokens.add(t);
  }
  const logs = names.filter((x) => x.endsWith('.log')).map((n) => ({ name: n, text: readFileSync(path.join(dir, n), 'utf8') }));
  return { tokens, logs };
}

test('the access logs of an HTTP suite run hold none of the tokens it issued', { timeout: 1_800_000 }, async (t) => {
  let dir = process.env.CROUPIER_ACCESS_LOG_CHECK_DIR;
  let tmp;
  if (!dir) {
    tmp = dir = mkdtempSync(path.join(tmpdir(), 'croupier-logs-'));
    const run = await runSuite(dir);
    // The suite's own verdict is its own business; a failing run may still
    // have logged fine, and a leak is what this test is about.
    t.diagnostic(`HTTP suite exit code ${run.code}`);
    for (const line of run.out.split('\n').filter((l) => /^\s*not ok /.test(l))) t.diagnostic(line.trim());
  }
  try {
    const { tokens, logs } = readDir(dir);
    const lines = logs.reduce((n, l) => n + l.text.split('\n').filter(Boolean).length, 0);
    t.diagnostic(`${tokens.size} tokens, ${logs.length} access logs, ${lines} lines`);
    assert.ok(tokens.size >= 20, `the run issued tokens (got ${tokens.size}): is CROUPIER_TEST_ACCESS_LOG_DIR honoured?`);
    assert.ok(logs.length >= 1 && lines >= 200, `the servers wrote access logs (${logs.length} files, ${lines} lines)`);
    assert.ok(logs.some((l) => /\/games\/[A-Za-z0-9_-]{16,}/.test(l.text)), 'the logs name game URLs');
    const leaks = [];
    for (const tok of tokens) {
      for (const l of logs) {
        const i = l.text.indexOf(tok);
        if (i >= 0) {
          const start = l.text.lastIndexOf('\n', i) + 1;
          leaks.push(`${l.name}: ${l.text.slice(start, l.text.indexOf('\n', i) >>> 0).slice(0, 300)}`);
        }
      }
    }
    assert.deepEqual(leaks, [], 'no token in any access log line');
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
});

test('control: a token in a URL is refused (400 naming the header) and logged redacted; under another name it would be caught', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-logctl-'));
  const log = path.join(dir, 'access.log');
  const proc = spawn(BIN, ['serve', '--listen', '127.0.0.1:0', '--store', `sqlite:${dir}/t.db`, '--access-log', log],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const base = await new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`not listening: ${out}`)), 10_000);
      proc.stdout.on('data', (d) => {
        out += d;
        const m = /listening on (http:\/\/[^\s]+)/.exec(out);
        if (m) { clearTimeout(timer); resolve(m[1]); }
      });
      proc.on('exit', () => { clearTimeout(timer); reject(new Error(`exited: ${out}`)); });
    });
    const created = await fetch(`${base}/games`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ game: 'hanabi', seed: 1, players: [{ name: 'Ann' }, { bot: 'rules' }] }),
    });
    assert.equal(created.status, 201);
    const g = await created.json();
    const token = g.seats[0].token;
    const ok = await fetch(`${base}/games/${g.id}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).you, 0);
    const r = await fetch(`${base}/games/${g.id}?token=${token}`);
    assert.equal(r.status, 400);
    const p = await r.json();
    assert.equal(p.type, '/problems/invalid-parameter');
    assert.equal(p.parameter, 'token');
    assert.match(p.detail, /Authorization: Bearer/);
    // the same value under a name that does not look like a secret's is
    // logged as sent: the grep above would catch a token that got through
    await (await fetch(`${base}/games/${g.id}?x=${token}`)).arrayBuffer();
    await new Promise((res) => setTimeout(res, 100));
    const text = readFileSync(log, 'utf8');
    assert.equal(text.split(token).length - 1, 1, `exactly the control line carries it: ${text}`);
    assert.match(text, /\?x=/);
    assert.match(text, /\?token=\[redacted\]/, 'the refused URL is logged with its token redacted');
  } finally {
    proc.kill('SIGTERM');
    await new Promise((res) => proc.once('exit', res));
    rmSync(dir, { recursive: true, force: true });
  }
});
