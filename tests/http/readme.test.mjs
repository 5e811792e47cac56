// The README's shell sessions run as they are written, against a real
// server, so that the front door cannot rot: every ```sh block that follows
// a line `<!-- README session ... -->` is run in order, in one bash, with
// `localhost:8080` (what `make run` serves) replaced by this test's server.
// The blocks run under `set -euo pipefail` with curl as `curl --fail-with-body`,
// so a command that fails, or a request the server refuses (4xx, 5xx), fails
// the test; each line `#=> TEXT` in a block is text the session must print,
// in that order.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { useServer } from './lib/server.mjs';
import { ROOT } from './lib/contract.mjs';

const srv = useServer();
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The session blocks of a Markdown text, in order. */
export function sessions(md) {
  const re = /^<!-- README session[^>]*-->\n```sh\n([\s\S]*?)^```$/gm;
  return [...md.matchAll(re)].map((m) => m[1]);
}

/** Run the blocks against base; resolves to {status, stdout, stderr}. */
function run(blocks, base) {
  const host = new URL(base).host;
  const script = ['set -euo pipefail', 'curl() { command curl --fail-with-body "$@"; }',
    ...blocks.map((b) => b.replaceAll('localhost:8080', host))].join('\n');
  return spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
}

test('the README has its sessions: the first screen, a game from the shell, the autograder', () => {
  const blocks = sessions(README);
  assert.ok(blocks.length >= 3, `README session blocks found: ${blocks.length}`);
  assert.match(blocks.join('\n'), /jq -r \.id/, 'the game id is taken from the reply');
  assert.match(blocks.join('\n'), /jq -r '\.seats\[0\]\.token'/, 'the seat token is taken from the reply');
  assert.ok(blocks.every((b) => /^#=> /m.test(b)), 'every block says something it must print');
});

test('the README\'s sessions run as written and print what they say', () => {
  const blocks = sessions(README);
  const r = run(blocks, srv.base);
  assert.equal(r.status, 0, `the session failed (exit ${r.status}):\n${r.stderr}\n--- stdout:\n${r.stdout}`);
  let at = 0; // each in order; a JSON answer has no final newline, so not whole lines
  for (const want of blocks.join('\n').split('\n').filter((l) => l.startsWith('#=> ')).map((l) => l.slice(4))) {
    const i = r.stdout.indexOf(want, at);
    assert.ok(i >= 0, `the session printed ${JSON.stringify(want)} (after ${JSON.stringify(r.stdout.slice(0, at).slice(-80))}):\n${r.stdout}`);
    at = i + want.length;
  }
});

test('a session that goes wrong fails the check', () => {
  // the same blocks with a refused request: the test above would fail
  const broken = sessions(README).map((b) => b.replace('"seed":42', '"seed":"42"'));
  const r = run(broken, srv.base);
  assert.equal(r.status, 22, `curl's exit status for an HTTP error stops the session (${r.status}): ${r.stderr}`);
});
