// A hostile crowd against the embedded server (croupier serve, its default
// connection budget): 256 connections at once, of the five kinds that hold
// a civetweb worker: unfinished request lines, bodies that never finish,
// idle keep-alive connections, Server-Sent Events streams and WebSockets
// without a token. Each is re-opened as soon as the server closes it, as
// an attacker would. Meanwhile another client asks /healthz on fresh
// connections: every answer is a 200, p99 under 100 ms. The streams past
// the budget are refused at once (503 problem with Retry-After), not held.
//
// Bounded: CROWD connections (256), MEASURE requests, 127.0.0.1 only, and
// the crowd stops by itself when the measurement is done.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test, before, after } from 'node:test';
import { Worker } from 'node:worker_threads';
import { startServer, createGame, expectStatus, request } from '../http/lib/server.mjs';
import { parseResponse } from '../http/lib/raw.mjs';

const CROWD = Number(process.env.CROWD || 256);
const MEASURE = Number(process.env.CROWD_MEASURE || 300);
const P99_MS = 100;
const STREAMS_PER_CLIENT = 16; /* the default --max-streams-per-client */
let server, srv, game;

before(async () => {
  // a short idle limit so that idle streams are seen to close within the test
  server = await startServer({ extraArgs: ['--stream-idle', '3'] });
  srv = {
    base: server.base,
    get: (p, o) => request(server.base, 'GET', p, o),
    post: (p, json, o = {}) => request(server.base, 'POST', p, { json, ...o }),
  };
  game = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed: 5 });
});

after(async () => {
  if (!server) return;
  const { code, signal, stderr } = await server.stop();
  assert.equal(signal, null, `server killed by ${signal}: ${stderr.slice(-2000)}`);
  assert.equal(code, 0, `server must exit 0: ${stderr.slice(-2000)}`);
});

/** One hostile connection of `kind`; calls back on every answer it gets. */
function hostile(kind, onAnswer, onClose) {
  const u = new URL(server.base);
  const sock = net.connect({ host: u.hostname, port: Number(u.port) });
  let buf = Buffer.alloc(0), timer = null, answered = false;
  sock.setNoDelay(true);
  const id = game.id;
  sock.on('connect', () => {
    switch (kind) {
      case 'line': // half a request, then nothing
        sock.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
        break;
      case 'body': { // a body that dribbles a byte every 2 s and never ends
        sock.write('POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
        timer = setInterval(() => sock.write(' '), 2000);
        break;
      }
      case 'idle': // one request, then the kept-alive connection sits idle
        sock.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
        break;
      case 'sse':
        sock.write(`GET /games/${id}/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n`);
        break;
      case 'ws': // a WebSocket upgrade with no token: a spectator
        sock.write(`GET /games/${id}/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
        break;
      default:
        throw new Error(kind);
    }
  });
  sock.on('data', (d) => {
    if (answered) return;
    buf = Buffer.concat([buf, d]);
    const head = buf.toString('latin1');
    if (/^HTTP\/1\.1 (101|200)/.test(head) && head.includes('\r\n\r\n')) {
      answered = true;
      onAnswer(kind, head.startsWith('HTTP/1.1 101') ? 101 : 200, null);
      return;
    }
    const r = parseResponse(buf);
    if (r && r.complete) {
      answered = true;
      onAnswer(kind, r.status, r);
    }
  });
  const end = () => { clearInterval(timer); onClose(kind); };
  sock.on('close', end);
  sock.on('error', () => {});
  return sock;
}

/** MEASURE x /healthz on fresh connections (Connection: close), 20 ms
 * apart, timed in a worker thread of its own: the crowd's sockets, handled
 * on this thread's event loop, must not delay the clock. [{ms, status}]. */
function measure(base, n) {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const net = require('node:net');
    const u = new URL(workerData.base);
    function once() {
      return new Promise((resolve) => {
        const t0 = process.hrtime.bigint();
        const sock = net.connect({ host: u.hostname, port: Number(u.port) });
        let buf = '';
        const timer = setTimeout(() => { sock.destroy(); resolve({ ms: 5000, status: 0 }); }, 5000);
        sock.on('connect', () => sock.write('GET /healthz HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n'));
        sock.on('data', (d) => {
          buf += d.toString('latin1');
          const end = buf.indexOf('\\r\\n\\r\\n');
          const m = /content-length: *(\\d+)/i.exec(buf);
          if (end >= 0 && m && buf.length >= end + 4 + Number(m[1])) {
            clearTimeout(timer);
            const ms = Number(process.hrtime.bigint() - t0) / 1e6;
            sock.destroy();
            resolve({ ms, status: Number(buf.slice(9, 12)) });
          }
        });
        sock.on('error', () => { clearTimeout(timer); resolve({ ms: 5000, status: 0 }); });
      });
    }
    (async () => {
      const out = [];
      for (let i = 0; i < workerData.n; i++) {
        out.push(await once());
        parentPort.postMessage({ tick: i });
        await new Promise((r) => setTimeout(r, 20));
      }
      parentPort.postMessage({ out });
    })();`;
  return new Worker(code, { eval: true, workerData: { base, n } });
}

test(`${CROWD} hostile connections: /healthz still answers, p99 under ${P99_MS} ms`, { timeout: 90000 }, async () => {
  const kinds = ['line', 'body', 'idle', 'sse', 'ws'];
  const open = new Map(kinds.map((k) => [k, 0]));
  const held = new Map(kinds.map((k) => [k, 0])); // streams the server accepted
  const refused = [];
  const socks = new Set();
  let stopping = false, reopened = 0;
  const refusedAt = new WeakSet();
  let refusedLive = 0;
  const refusedOpen = () => refusedLive;
  const onAnswer = (kind, status, r, s) => {
    if (status === 101 || (kind === 'sse' && status === 200)) held.set(kind, held.get(kind) + 1);
    if (status === 503) { refused.push({ kind, r }); refusedAt.add(s); refusedLive++; }
  };
  const spawnOne = (kind) => {
    if (stopping) return;
    open.set(kind, open.get(kind) + 1);
    const s = hostile(kind, (k, st, r) => onAnswer(k, st, r, s), (k) => {
      open.set(k, open.get(k) - 1);
      if (refusedAt.has(s)) refusedLive--;
      socks.delete(s);
      // an attacker comes back: at once, or after a second when refused
      if (!stopping) { reopened++; setTimeout(() => spawnOne(k), refusedAt.has(s) ? 1000 : 50); }
    });
    socks.add(s);
  };
  // Streams past the budget (16 per address) are refused at once: 24 of each
  // kind try (and come back a second after each refusal); with the rest of
  // the crowd, split over the three kinds the deadlines govern, the server
  // holds CROWD connections at once. They arrive over 1.5 s, so that their
  // deadlines do not all fall together.
  const plan = [];
  for (let i = 0; i < 48; i++) plan.push(i < 24 ? 'sse' : 'ws');
  for (let i = 0; i < CROWD - STREAMS_PER_CLIENT; i++) plan.push(kinds[i % 3]);
  for (let i = 0; i < plan.length; i++) {
    spawnOne(plan[i]);
    if (i % 16 === 15) await new Promise((r) => setTimeout(r, 1500 / (plan.length / 16)));
  }
  await new Promise((r) => setTimeout(r, 1000)); // the crowd is in
  const served = () => [...open.values()].reduce((a, b) => a + b, 0) - refusedOpen();
  const total = served();
  let minOpen = Infinity, sumOpen = 0;
  const results = await new Promise((resolve, reject) => {
    const w = measure(server.base, MEASURE);
    w.on('message', (m) => {
      if (m.out) { resolve(m.out); w.terminate(); return; }
      const now = served(); // the crowd, sampled at each probe
      minOpen = Math.min(minOpen, now);
      sumOpen += now;
    });
    w.on('error', reject);
  });
  const times = results.map((r) => r.ms);
  const bad = results.filter((r) => r.status !== 200).length;
  const during = `${minOpen} at least, ${(sumOpen / MEASURE).toFixed(0)} on average`;
  stopping = true;
  for (const s of socks) s.destroy();
  times.sort((a, b) => a - b);
  const p50 = times[Math.floor(times.length * 0.5)], p99 = times[Math.ceil(times.length * 0.99) - 1];
  const summary = `crowd held by the server: ${total} at the start, ${during} while measuring, ${reopened} re-opened; ` +
    `streams held: sse ${held.get('sse')}, ws ${held.get('ws')}; refused 503: ${refused.length}; ` +
    `/healthz x${MEASURE}: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${times.at(-1).toFixed(1)} ms, failed ${bad}`;
  console.log(`# ${summary}`);
  assert.ok(total >= CROWD * 0.95 && sumOpen / MEASURE >= CROWD * 0.95 && minOpen >= CROWD * 0.85,
    `the crowd was open: ${summary}`);
  assert.equal(bad, 0, `every /healthz answered 200: ${summary}`);
  assert.ok(p99 < P99_MS, `p99 ${p99.toFixed(1)} ms < ${P99_MS} ms: ${summary}`);
  // the streams beyond the budget were refused at once, with a problem and Retry-After
  assert.ok(refused.length > 0, `streams past the budget refused: ${summary}`);
  for (const { r } of refused.slice(0, 20)) {
    assert.match(r.headers['content-type'], /^application\/problem\+json/);
    assert.equal(r.json.type, '/problems/too-many-streams');
    assert.match(r.headers['retry-after'] || '', /^\d+$/);
  }
  assert.ok(held.get('sse') + held.get('ws') >= 16, `streams within the budget were served: ${summary}`);
  // the server is fine afterwards
  expectStatus(await srv.get('/healthz'), 200);
});

test('idle streams are closed: a token-less WebSocket and an SSE stream with nothing to say', { timeout: 30000 }, async () => {
  const u = new URL(server.base);
  await new Promise((r) => setTimeout(r, 4000)); // the crowd's streams are gone (idle: 3 s)
  const t0 = Date.now();
  const closedAfter = (text) => new Promise((resolve) => {
    const sock = net.connect({ host: u.hostname, port: Number(u.port) }, () => sock.write(text));
    let got = '';
    const done = () => { clearTimeout(limit); resolve({ ms: Date.now() - t0, got }); sock.destroy(); };
    sock.on('data', (d) => {
      got += d.toString('latin1');
      if (got.endsWith('\r\n0\r\n\r\n')) done(); // the last chunk: the SSE stream is over
    });
    sock.on('close', done);
    sock.on('error', () => {});
    const limit = setTimeout(() => sock.destroy(), 25000);
  });
  // a finished game would end the stream at once: this one waits on its human seat
  const [ws, sse] = await Promise.all([
    closedAfter(`GET /games/${game.id}/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n'),
    closedAfter(`GET /games/${game.id}/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n`),
  ]);
  assert.match(ws.got, /^HTTP\/1\.1 101/, 'the WebSocket was accepted');
  assert.ok(ws.ms >= 2500 && ws.ms < 8000, `token-less WebSocket closed after ${ws.ms} ms (--stream-idle 3)`);
  assert.ok(ws.got.includes('\x88'), 'with a close frame');
  assert.match(sse.got, /^HTTP\/1\.1 200/, 'the stream was served');
  assert.ok(sse.ms >= 2500 && sse.ms < 6000, `idle SSE stream ended after ${sse.ms} ms`);
});
