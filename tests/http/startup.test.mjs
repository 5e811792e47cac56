// The start-up window of `croupier serve`: a server restarted again and
// again while clients hammer its port from the first moment it listens
// (each retries its connection at once while it is refused). Every answer
// is the one the request deserves, or 503 with Retry-After (the server is
// not ready yet): never a 4xx a client would take as final. Before, a
// request that came between civetweb's start and the registration of the
// handler got civetweb's 404, which was answered `400 malformed-request
// "Not Found"` (23 of 540 first answers after 30 restarts, /healthz
// included), and a chunked body read before the start-up probe had run
// was refused 411.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './lib/contract.mjs';
import { http, parseResponse } from './lib/raw.mjs';

const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';
const BIN = path.resolve(ROOT, process.env.CROUPIER_BIN || 'build/croupier');
const RESTARTS = 20;

/** A port free at this moment on 127.0.0.1. */
function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Start `croupier serve` on port; resolves to the process once it says it listens. */
function serve(port, store, admin) {
  const proc = spawn(BIN, ['serve', '--listen', `127.0.0.1:${port}`, '--store', store,
    '--quota-create', '0'] /* the crowd creates games by the hundred: not the quota's test */, {
    cwd: ROOT, env: { ...process.env, CROUPIER_ADMIN_TOKEN: admin }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr.on('data', (d) => { err += d; });
  proc.exited = new Promise((r) => proc.on('exit', (code, signal) => r({ code, signal, err })));
  proc.ready = new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => { out += d; if (/listening on/.test(out)) resolve(); });
    proc.on('exit', () => reject(new Error(`the server exited before it listened: ${err}`)));
  });
  proc.ready.catch(() => {});
  return proc;
}

/** One request on a fresh connection: the first response, {status, headers,
 * text, json}; status 0 when the connection was refused or closed unanswered. */
function once(port, text) {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    let buf = Buffer.alloc(0), done = false;
    const finish = (r) => { if (!done) { done = true; clearTimeout(timer); sock.destroy(); resolve(r); } };
    const timer = setTimeout(() => finish({ status: 0 }), 10_000);
    sock.on('connect', () => sock.write(text));
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (/^HTTP\/1\.1 101/.test(buf.toString('latin1'))) return finish({ status: 101, headers: {}, text: '' });
      const r = parseResponse(buf);
      if (r && r.complete) finish(r);
    });
    sock.on('error', () => finish({ status: 0 }));
    sock.on('close', () => finish(parseResponse(buf) || { status: 0 }));
  });
}

test('restarted again and again under a hammering crowd, the server never answers a wrong 4xx', { skip: viaFcgi && 'the embedded server\'s start-up', timeout: 120_000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-startup-'));
  const store = `sqlite:${path.join(dir, 't.db')}`;
  const admin = randomBytes(18).toString('base64url');
  const port = await freePort();
  try {
    // a game to read, made by a first server
    let proc = serve(port, store, admin);
    await proc.ready;
    const created = await fetch(`http://127.0.0.1:${port}/games`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ game: 'comp10001bo', seed: 7, players: [{ name: 'Ann' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] }),
    });
    assert.equal(created.status, 201);
    const game = await created.json();
    const token = game.seats[0].token;
    proc.kill('SIGTERM');
    await proc.exited;

    const host = ['Host', `127.0.0.1:${port}`];
    const body = JSON.stringify({ game: 'comp10001bo', seed: 3, players: [{ name: 'A' }, { name: 'B' }, { name: 'C' }, { name: 'D' }] });
    const chunked = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    // what each request deserves once the server is ready
    const kinds = [
      ['GET /healthz', http('GET', '/healthz', [host]), [200]],
      ['GET /games/{id}', http('GET', `/games/${game.id}`, [host, ['Authorization', `Bearer ${token}`]]), [200]],
      ['POST /games (chunked)', http('POST', '/games', [host, ['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']], chunked), [201]],
      ['GET /nosuchroute', http('GET', '/nosuchroute', [host]), [404]],
      ['WebSocket upgrade', http('GET', `/games/${game.id}/ws`, [host, ['Upgrade', 'websocket'], ['Connection', 'Upgrade'],
        ['Sec-WebSocket-Version', '13'], ['Sec-WebSocket-Key', randomBytes(16).toString('base64')]]), [101]],
    ];
    const answers = new Map(kinds.map(([k]) => [k, new Map()]));
    const wrong = [];
    let busy = 0, first = 0;
    for (let i = 0; i < RESTARTS; i++) {
      let running = true;
      proc = serve(port, store, admin);
      // every kind from several clients, each retrying at once while refused
      const clients = kinds.flatMap(([kind, text, deserved]) => [0, 1].map(async () => {
        let answered = false;
        while (running) {
          const r = await once(port, text);
          if (r.status === 0) continue; // not listening yet (or gone): retry at once
          if (!answered) { answered = true; first++; }
          const seen = answers.get(kind);
          seen.set(r.status, (seen.get(r.status) || 0) + 1);
          if (r.status === 503) {
            busy++;
            if (!/^\d+$/.test(r.headers['retry-after'] || '') || !/problem\+json/.test(r.headers['content-type'] || ''))
              wrong.push(`${kind}: a 503 without Retry-After or problem+json: ${JSON.stringify(r.headers)}`);
          } else if (!deserved.includes(r.status)) {
            wrong.push(`${kind}: ${r.status} ${r.text?.slice(0, 160)}`);
          }
        }
      }));
      await proc.ready;
      await new Promise((r) => setTimeout(r, 150)); // served a while once ready
      running = false;
      await Promise.all(clients);
      proc.kill(i % 2 ? 'SIGKILL' : 'SIGTERM');
      await proc.exited;
    }
    const seen = [...answers].map(([k, m]) => `${k}: ${[...m].map(([s, n]) => `${s} x${n}`).join(', ')}`).join('; ');
    console.log(`# ${RESTARTS} restarts, ${first} first answers, ${busy} answered 503 while starting; ${seen}`);
    assert.deepEqual(wrong.slice(0, 10), [], `every answer is the one deserved, or 503 with Retry-After (${wrong.length} wrong)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
