// The deployment of deploy/ (nginx in front of croupier fcgi) under 2,000
// slow connections at once: unfinished request lines, bodies that never
// finish, idle keep-alive connections. nginx holds them (an event loop, no
// thread each) and hands croupier only requests it has read in full, so the
// FastCGI threads stay free: requests from another client keep succeeding,
// quickly. Bounded: SLOW connections (2,000), 127.0.0.1 only, stops by itself.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, before, after } from 'node:test';
import { ROOT } from '../http/lib/contract.mjs';
import { parseResponse } from '../http/lib/raw.mjs';

const SLOW = Number(process.env.CROWD_SLOW || 2000);
const MEASURE = 200;
const NGINX = '/usr/sbin/nginx';
let dir, fcgi, nginx, port;

before(async () => {
  const bin = path.resolve(ROOT, process.env.CROUPIER_BIN || 'build/croupier');
  dir = mkdtempSync(path.join(tmpdir(), 'croupier-crowd-fcgi-'));
  const sock = path.join(dir, 'fcgi.sock');
  fcgi = spawn(bin, ['fcgi', '--listen', sock, '--store', `sqlite:${path.join(dir, 't.db')}`],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  fcgi.stderr.on('data', (d) => { err += d; });
  await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`croupier fcgi not ready: ${err}`)), 10000);
    fcgi.stdout.on('data', (d) => { if (/FastCGI on/.test(String(d))) { clearTimeout(t); resolve(); } });
    fcgi.on('exit', () => { clearTimeout(t); reject(new Error(`croupier fcgi exited: ${err}`)); });
  });
  for (const d of ['body', 'fcgi', 'proxy', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, d));
  for (let attempt = 0; attempt < 20 && !nginx; attempt++) {
    port = 20000 + Math.floor(Math.random() * 30000);
    // deploy/nginx-fastcgi.conf's location, with room for the crowd: one
    // worker holds SLOW connections (and a descriptor for each)
    writeFileSync(path.join(dir, 'nginx.conf'), `daemon off; master_process off; worker_processes 1;
worker_rlimit_nofile ${SLOW * 2 + 1024};
error_log ${dir}/error.log; pid ${dir}/nginx.pid;
events { worker_connections ${SLOW + 1024}; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; fastcgi_temp_path ${dir}/fcgi; proxy_temp_path ${dir}/proxy;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  client_max_body_size 1m;
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location / {
      include /etc/nginx/fastcgi_params;
      fastcgi_pass unix:${sock};
      fastcgi_buffering off;
    }
  }
}
`);
    const n = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    const up = await new Promise((resolve) => {
      const t0 = Date.now();
      const probe = async () => {
        if (n.exitCode !== null) return resolve(false);
        try { await fetch(`http://127.0.0.1:${port}/healthz`); return resolve(true); } catch { /* not yet */ }
        if (Date.now() - t0 > 5000) return resolve(false);
        setTimeout(probe, 50);
      };
      probe();
    });
    if (up) nginx = n; else if (n.exitCode === null) n.kill('SIGKILL');
  }
  assert.ok(nginx, 'nginx started');
});

after(async () => {
  for (const p of [nginx, fcgi]) {
    if (!p || p.exitCode !== null) continue;
    p.kill('SIGTERM');
    await new Promise((r) => p.on('exit', r));
  }
  if (fcgi) assert.equal(fcgi.exitCode, 0, 'croupier fcgi exits 0 on SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function slowOne(kind, socks) {
  const s = net.connect({ host: '127.0.0.1', port });
  s.on('error', () => {});
  s.on('connect', () => {
    if (kind === 0) s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    else if (kind === 1) s.write('POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    else s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'); // answered, then idle on keep-alive
  });
  socks.push(s);
}

function once(method, p, body) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const s = net.connect({ host: '127.0.0.1', port });
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => { s.destroy(); resolve({ ms: 10000, status: 0 }); }, 10000);
    s.on('connect', () => s.write(`${method} ${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
      (body ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` : '') + `\r\n${body || ''}`));
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const r = parseResponse(buf);
      if (r && r.complete) {
        clearTimeout(timer);
        s.destroy();
        resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, status: r.status, json: r.json });
      }
    });
    s.on('error', () => { clearTimeout(timer); resolve({ ms: 10000, status: 0 }); });
  });
}

test(`nginx + croupier fcgi keep serving with ${SLOW} slow connections open`, { timeout: 120000 }, async () => {
  const socks = [];
  for (let i = 0; i < SLOW; i++) {
    slowOne(i % 3, socks);
    if (i % 100 === 99) await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 1000));
  const open = socks.filter((s) => !s.destroyed && s.readyState === 'open').length;
  const times = [];
  let bad = 0;
  const create = JSON.stringify({ game: 'comp10001bo', seed: 9, players: [{ bot: 'planner' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] });
  for (let i = 0; i < MEASURE; i++) {
    const r = i % 10 === 9 ? await once('POST', '/games', create) : await once('GET', '/healthz');
    if (i % 10 !== 9) times.push(r.ms);
    if (r.status !== (i % 10 === 9 ? 201 : 200)) bad++;
  }
  const still = socks.filter((s) => !s.destroyed && s.readyState === 'open').length;
  for (const s of socks) s.destroy();
  times.sort((a, b) => a - b);
  const p50 = times[Math.floor(times.length / 2)], p99 = times[Math.ceil(times.length * 0.99) - 1];
  const summary = `${open} slow connections open (${still} at the end); ${MEASURE} requests (/healthz, and ` +
    `POST /games with four bots every 10th): ${bad} failed; /healthz p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`;
  console.log(`# ${summary}`);
  assert.ok(open >= SLOW * 0.98 && still >= SLOW * 0.98, `the slow connections were open: ${summary}`);
  assert.equal(bad, 0, `every request succeeded: ${summary}`);
  assert.ok(p99 < 100, `/healthz p99 ${p99.toFixed(1)} ms: ${summary}`);
});
