// server.mjs: one real croupier server per test file, and an HTTP client
// whose every response is checked against openapi/openapi.yaml.
//
//   import { useServer } from './lib/server.mjs';
//   const srv = useServer();            // registers before/after hooks
//   test('x', async () => { const r = await srv.get('/healthz'); ... });
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, appendFileSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { before, after } from 'node:test';
import { ROOT, assertMatches } from './contract.mjs';

const READY = /croupier: listening on (http:\/\/127\.0\.0\.1:(\d+))/;

// CROUPIER_TEST_ACCESS_LOG_DIR=DIR: every server started here writes its
// access log into DIR (civetweb's --access-log; nginx's for the FastCGI
// front), and every token the tests are given (the admin token, the seat
// tokens of POST /games and /games/import replies) is listed in
// DIR/tokens-<pid>.txt, so tests/access-log can check that no log holds one.
const LOG_DIR = process.env.CROUPIER_TEST_ACCESS_LOG_DIR || '';
const logName = (kind) => path.join(LOG_DIR, `${kind}-${process.pid}-${randomBytes(4).toString('hex')}.log`);
function noteTokens(...tokens) {
  const t = tokens.filter((x) => typeof x === 'string' && x.length > 0);
  if (LOG_DIR && t.length) appendFileSync(path.join(LOG_DIR, `tokens-${process.pid}.txt`), t.map((x) => `${x}\n`).join(''));
}

/**
 * With CROUPIER_TEST_FRONT=fcgi the same tests run through nginx and
 * `croupier fcgi` (FastCGI) instead of the embedded civetweb server: the
 * handlers are the same, only the front end differs. Returns the same shape
 * as startServer.
 */
async function startFcgi({ extraArgs = [], env = {}, store, adminToken = randomBytes(24).toString('base64url'), shippedRates = false } = {}) {
  const bin = path.resolve(ROOT, process.env.CROUPIER_BIN || 'build/croupier');
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-fcgi-'));
  noteTokens(adminToken);
  const storeUrl = store || process.env.CROUPIER_TEST_STORE || `sqlite:${path.join(dir, 't.db')}`;
  const sock = path.join(dir, 'fcgi.sock');
  const fcgiArgs = ['fcgi', '--listen', sock, '--store', storeUrl, ...extraArgs];
  const proc = spawn(bin, fcgiArgs, {
    cwd: ROOT, env: { ...process.env, CROUPIER_ADMIN_TOKEN: adminToken, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`fcgi not ready: ${err}`)), 10_000);
    proc.stdout.on('data', (d) => { if (/FastCGI on/.test(String(d))) { clearTimeout(t); resolve(); } });
    proc.on('exit', () => { clearTimeout(t); reject(new Error(`fcgi exited: ${err}`)); });
  });
  proc.stdout.resume();
  // The hardening of deploy/nginx-fastcgi.conf, as shipped: its marked
  // http-level and server-level lines (their logs in the temp dir, not
  // /var/log/nginx: errorLogs() reads them). Its rate of game creation is
  // lifted unless shippedRates: the suites create games faster than a
  // client should (tests/http/nginx_limits.test.mjs runs the shipped one).
  const deployConf = readFileSync(path.join(ROOT, 'deploy', 'nginx-fastcgi.conf'), 'utf8');
  const marked = (name) => {
    const m = new RegExp(`# croupier:${name}-begin\\n([\\s\\S]*?)# croupier:${name}-end`).exec(deployConf);
    if (!m) throw new Error(`deploy/nginx-fastcgi.conf has no croupier:${name} block`);
    const text = m[1].replaceAll('/var/log/nginx/', `${dir}/`);
    return shippedRates ? text : text.replace(/ rate=\d+r\/[sm]/g, ' rate=100000r/s').replace(/ burst=\d+/g, ' burst=100000');
  };
  let nginx, port, nerr = '';
  for (let attempt = 0; attempt < 20 && !nginx; attempt++) {
    port = 20000 + Math.floor(Math.random() * 30000);
    for (const d of ['body', 'fcgi', 'proxy', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, d), { recursive: true });
    writeFileSync(path.join(dir, 'nginx.conf'), `daemon off; master_process off; worker_processes 1;
error_log ${dir}/error.log; pid ${dir}/nginx.pid;
events { worker_connections 256; }
http {
${marked('http')}
  access_log ${LOG_DIR ? `${logName('nginx')} croupier` : 'off'};
  client_body_temp_path ${dir}/body; fastcgi_temp_path ${dir}/fcgi; proxy_temp_path ${dir}/proxy;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
${marked('server')}
    location / {
      include /etc/nginx/fastcgi_params;
      fastcgi_pass unix:${sock};
      fastcgi_buffering off;
      fastcgi_keep_conn off;
    }
  }
}
`);
    const n = spawn('/usr/sbin/nginx', ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    n.stderr.setEncoding('utf8');
    n.stderr.on('data', (d) => { nerr += d; });
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
  if (!nginx) throw new Error(`nginx did not start: ${nerr}`);
  async function stop() {
    nginx.kill('SIGTERM');
    proc.kill('SIGTERM');
    const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    const r = await exited;
    clearTimeout(t);
    rmSync(dir, { recursive: true, force: true });
    return { ...r, stderr: err };
  }
  // what nginx's error logs hold now: the main one and the server's own
  const errorLogs = () => readdirSync(dir).filter((f) => /error.*\.log$/.test(f))
    .map((f) => readFileSync(path.join(dir, f), 'utf8')).join('');
  return { base: `http://127.0.0.1:${port}`, adminToken, storeUrl, proc, stop, stderr: () => err, front: 'fcgi', errorLogs };
}

/**
 * Start a server; resolves to {base, adminToken, storeUrl, proc, stop()}.
 * Options: extraArgs (after `serve`/`fcgi`), env (added to the server's),
 * store (a store URL; default CROUPIER_TEST_STORE, else a fresh SQLite file
 * in a temp dir removed by stop()), adminToken (default a random one).
 * storeUrl is the store the server was given ("sqlite:PATH" or a
 * postgres:// URL), for tests that look at the database itself.
 */
export async function startServer(opts = {}) {
  if (process.env.CROUPIER_TEST_FRONT === 'fcgi') return startFcgi(opts);
  return startCivet(opts);
}

async function startCivet({ extraArgs = [], env = {}, store, adminToken = randomBytes(24).toString('base64url') } = {}) {
  const bin = path.resolve(ROOT, process.env.CROUPIER_BIN || 'build/croupier');
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-http-'));
  noteTokens(adminToken);
  if (LOG_DIR && !extraArgs.includes('--access-log')) extraArgs = [...extraArgs, '--access-log', logName('civetweb')];
  // CROUPIER_TEST_STORE (e.g. a postgres:// URL started by tests/run.sh) runs
  // the same suite against another store; the default is a fresh SQLite file.
  const storeUrl = store || process.env.CROUPIER_TEST_STORE || `sqlite:${path.join(dir, 't.db')}`;
  const proc = spawn(bin, ['serve', '--listen', '127.0.0.1:0', '--store', storeUrl, ...extraArgs], {
    cwd: ROOT,
    env: { ...process.env, CROUPIER_ADMIN_TOKEN: adminToken, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (d) => { err += d; });
  proc.stdout.setEncoding('utf8');
  let base;
  try {
    base = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server not ready in 10 s; stdout: ${out} stderr: ${err}`)), 10_000);
      proc.on('error', (e) => { clearTimeout(timer); reject(new Error(`cannot start ${bin}: ${e.message}`)); });
      proc.on('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`server exited early (code ${code}, signal ${signal}); stdout: ${out} stderr: ${err}`));
      });
      proc.stdout.on('data', (d) => {
        out += d;
        const m = READY.exec(out);
        if (m) { clearTimeout(timer); resolve(m[1]); }
      });
    });
  } catch (e) {
    if (proc.exitCode === null) proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  proc.stdout.resume();
  async function stop() {
    let r;
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      r = await exited;
      clearTimeout(t);
    } else {
      r = await exited;
    }
    rmSync(dir, { recursive: true, force: true });
    return { ...r, stderr: err };
  }
  return { base, adminToken, storeUrl, proc, stop, stderr: () => err };
}

/**
 * One HTTP request; the response is checked against the contract before it is
 * returned. opts: json (a value sent as application/json), body (raw string
 * or Buffer), contentType, token, headers, template (the path template, when
 * it cannot be inferred), check (false to skip the contract check: the bench's
 * load drivers only; never the tests), timeout (ms: the request is aborted
 * with an error after that).
 * Returns {status, headers, text, json (parsed when the body is JSON), res}.
 */
export async function request(base, method, p, opts = {}) {
  const headers = { ...(opts.headers || {}) };
  let body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] ??= opts.contentType || 'application/json';
  } else if (opts.body !== undefined) {
    body = opts.body;
    if (opts.contentType) headers['content-type'] = opts.contentType;
  }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const signal = opts.timeout ? AbortSignal.timeout(opts.timeout) : undefined;
  let res;
  try {
    res = await fetch(base + p, { method, headers, body, redirect: 'manual', signal });
  } catch (err) {
    // A kept-alive connection the server closed (its 5 s idle deadline) just
    // as fetch reused it: on a loaded machine fetch's own 4 s may pass late.
    // A GET or HEAD, which changes nothing, is sent once more on a new
    // connection; a server that is gone fails that one too.
    const code = err && err.cause && err.cause.code;
    if (!['GET', 'HEAD'].includes(method) || !['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'].includes(code)) throw err;
    res = await fetch(base + p, { method, headers: { ...headers, connection: 'close' }, body, redirect: 'manual', signal });
  }
  const text = await res.text();
  if (opts.check !== false) assertMatches(method, opts.template || p, res, text);
  let json;
  const ct = res.headers.get('content-type') || '';
  if (/^application\/(json|[^;]*\+json)/i.test(ct) && text !== '') json = JSON.parse(text);
  if (LOG_DIR && Array.isArray(json?.seats)) noteTokens(...json.seats.flatMap((s) => [s.token, s.invite]));
  if (LOG_DIR && json) noteTokens(json.host_token, json.token, json.invite); // invites (api/h_seats.c)
  return { status: res.status, headers: res.headers, text, json, res };
}

/** Assert status, with the body in the message. */
export function expectStatus(r, status, what = '') {
  assert.equal(r.status, status, `${what} expected ${status}, got ${r.status}: ${r.text.slice(0, 600)}`);
}

/** Assert a 200 with a JSON body; returns the body (never undefined). */
export function okJson(r, what = '') {
  expectStatus(r, 200, what);
  assert.notEqual(r.json, undefined, `${what} a JSON body: ${r.text.slice(0, 300)}`);
  return r.json;
}

/** Assert a problem of the given status and slug; returns its JSON. */
export function expectProblem(r, status, slug, what = '') {
  expectStatus(r, status, what);
  assert.match(r.headers.get('content-type') || '', /^application\/problem\+json/i, `${what} problem content type`);
  if (slug) assert.equal(r.json.type, `/problems/${slug}`, `${what} problem type: ${r.text}`);
  assert.equal(r.json.status, status, `${what} problem status member`);
  return r.json;
}

/** Register before/after hooks that run one server for this file. */
export function useServer(options = {}) {
  const ctx = {
    base: null,
    adminToken: null,
    storeUrl: null,
    request: (method, p, opts) => request(ctx.base, method, p, opts),
    get: (p, opts) => request(ctx.base, 'GET', p, opts),
    getOk: async (p, opts) => okJson(await request(ctx.base, 'GET', p, opts), `GET ${p}`),
    post: (p, json, opts = {}) => request(ctx.base, 'POST', p, { json, ...opts }),
    del: (p, opts) => request(ctx.base, 'DELETE', p, opts),
  };
  let server;
  before(async () => {
    server = await startServer(options);
    ctx.base = server.base;
    ctx.adminToken = server.adminToken;
    ctx.storeUrl = server.storeUrl;
    ctx.server = server;
  });
  after(async () => {
    if (!server) return;
    const { code, signal, stderr } = await server.stop();
    assert.equal(signal, null, `server killed by ${signal}; stderr: ${stderr.slice(-2000)}`);
    assert.equal(code, 0, `server must exit 0 on SIGTERM (clean shutdown); stderr: ${stderr.slice(-2000)}`);
  });
  return ctx;
}

/** Create a comp10001bo game; players like ['Ann', 'bot', 'bot', 'bot'] ('bot' -> the given strategy). */
export async function createGame(srv, { players, seed = 1, variant, bot, options } = {}) {
  bot ??= await defaultBot(srv);
  const body = {
    game: 'comp10001bo',
    seed,
    players: players.map((p) => (p === 'bot' ? { bot } : { name: p })),
  };
  if (variant) body.variant = variant;
  if (options) body.options = options;
  const r = await srv.post('/games', body);
  expectStatus(r, 201, 'POST /games');
  return r.json;
}

/** The strongest comp10001bo bot (the first of its "bots" in /rules). */
export async function defaultBot(srv) {
  if (!srv.bot) {
    const r = await srv.get('/rules');
    expectStatus(r, 200, 'GET /rules');
    const bots = r.json.games.find((g) => g.game === 'comp10001bo').bots;
    assert.ok(bots.length > 0, 'comp10001bo has bots');
    srv.bot = bots[0];
  }
  return srv.bot;
}
