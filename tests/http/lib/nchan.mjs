// nchan.mjs: nginx with Debian's nchan module in front of `croupier fcgi`
// processes, from the marked lines of deploy/nginx-fastcgi.conf and
// deploy/nginx-nchan.conf as shipped (tests/http/nchan.test.mjs,
// nchan_scale.test.mjs).
//
//   const n = await startNchan({ procs: 2, store: pgUrl, nginxes: 2, redis: 'redis://127.0.0.1:6390' });
//   n.bases[0]; n.admin; n.accessLogs; await n.restartNginx(0); await n.stop();
//
// procs: croupier fcgi processes on one store (the first alone is given
// --nchan-publish, as docs/deployment.md says), each nginx's upstream
// naming them all; nginxes: nginx servers (with redis, all on it: the
// nchan locations get `nchan_use_redis on`, and croupier publishes to the
// first).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ROOT } from './contract.mjs';

export const NCHAN_MODULE = '/usr/lib/nginx/modules/ngx_nchan_module.so';
/** Why the nchan tests cannot run here ('' when they can). */
export const nchanMissing = !existsSync('/usr/sbin/nginx') ? 'nginx is not installed (make deps)'
  : !existsSync(NCHAN_MODULE) ? `nginx's nchan module (${NCHAN_MODULE}, Debian's libnginx-mod-nchan) is not installed (make deps)` : '';

export async function waitFor(cond, ms, what) {
  const t0 = Date.now();
  for (;;) {
    if (await cond()) return;
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// below Linux's ephemeral range (32768-60999): a port a client's connection
// holds there (or its TIME_WAIT, after a bench of ten thousand) fails nginx's bind
const freePort = () => 20000 + Math.floor(Math.random() * 12000);

async function startFcgi(bin, dir, i, store, admin, publish, extra = []) {
  const sock = path.join(dir, `fcgi${i}.sock`);
  const args = ['fcgi', '--listen', sock, '--store', store, '--threads', '16', ...extra];
  if (publish) args.push('--nchan-publish', publish);
  const proc = spawn(bin, args, { cwd: ROOT, env: { ...process.env, CROUPIER_ADMIN_TOKEN: admin }, stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { proc, sock, err: '' };
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (d) => { p.err += d; });
  p.exited = new Promise((resolve) => {
    proc.on('exit', (code, signal) => resolve({ code, signal }));
    proc.on('error', () => resolve({ code: null, signal: null })); // never started
  });
  await new Promise((resolve, reject) => {
    const tm = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`fcgi not ready: ${p.err}`)); }, 10_000);
    proc.stdout.on('data', (d) => { if (/FastCGI on/.test(String(d))) { clearTimeout(tm); resolve(); } });
    proc.on('exit', () => { clearTimeout(tm); reject(new Error(`fcgi exited: ${p.err}`)); });
    proc.on('error', (e) => { clearTimeout(tm); reject(new Error(`fcgi not started: ${e.message}`)); });
  });
  proc.stdout.resume();
  return p;
}

export async function startNchan({ procs = 1, store, nginxes = 1, redis, connections = 512, sndbuf, fcgiArgs = [] } = {}) {
  const bin = path.resolve(ROOT, process.env.CROUPIER_BIN || 'build/croupier');
  const dir = mkdtempSync(path.join(tmpdir(), 'croupier-nchan-'));
  const admin = randomBytes(24).toString('base64url');
  const storeUrl = store || `sqlite:${path.join(dir, 't.db')}`;
  const ports = Array.from({ length: nginxes }, (_, i) => freePort() + 2 * i);
  const pubPort = ports[0] + 1;
  const fcgis = [];
  try {
    for (let i = 0; i < procs; i++) {
      fcgis.push(await startFcgi(bin, dir, i, storeUrl, admin, i === 0 ? `http://127.0.0.1:${pubPort}/.croupier-nchan` : '', fcgiArgs));
    }
  } catch (e) {
    for (const f of fcgis) f.proc.kill('SIGKILL');
    await Promise.all(fcgis.map((f) => f.exited));
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const nx = Array.from({ length: nginxes }, (_, i) => ({ dir: path.join(dir, `nginx${i}`), port: ports[i] }));
  for (const [i, n] of nx.entries()) {
    mkdirSync(n.dir);
    for (const d of ['body', 'fcgi', 'proxy', 'uwsgi', 'scgi']) mkdirSync(path.join(n.dir, d));
    copyFileSync('/etc/nginx/fastcgi_params', path.join(n.dir, 'fastcgi_params'));
    n.accessLog = path.join(n.dir, 'access.log');
    const marked = (file, name) => {
      const text = readFileSync(path.join(ROOT, 'deploy', file), 'utf8');
      const m = new RegExp(`# croupier:${name}-begin\\n([\\s\\S]*?)# croupier:${name}-end`).exec(text);
      if (!m) throw new Error(`deploy/${file} has no croupier:${name} block`);
      let t = m[1].replaceAll('/var/log/nginx/', `${n.dir}/`);
      if (redis) t = t.replace(/^(\s*)(nchan_channel_id .*)$/gm, '$1$2\n$1nchan_use_redis on;');
      return t.replace(/ rate=\d+r\/[sm]/g, ' rate=100000r/s').replace(/ burst=\d+/g, ' burst=100000');
    };
    writeFileSync(path.join(n.dir, 'nginx.conf'), `load_module ${NCHAN_MODULE};
daemon off; master_process off; worker_processes 1; worker_rlimit_nofile ${2 * connections + 64};
error_log ${n.dir}/error.log; pid ${n.dir}/nginx.pid;
events { worker_connections ${connections}; }
http {
${marked('nginx-fastcgi.conf', 'http')}
${marked('nginx-nchan.conf', 'nchan-http')}
${redis ? `  nchan_redis_url "${redis}";` : ''}
  access_log ${n.accessLog} croupier;
  log_format croupier_conn '$connection $connection_requests $request_method $uri';
  client_body_temp_path ${n.dir}/body; fastcgi_temp_path ${n.dir}/fcgi; proxy_temp_path ${n.dir}/proxy;
  uwsgi_temp_path ${n.dir}/uwsgi; scgi_temp_path ${n.dir}/scgi;
  upstream croupier_fcgi { ${fcgis.map((f) => `server unix:${f.sock};`).join(' ')} }
${i === 0 ? `  server {
    listen 127.0.0.1:${pubPort};
    access_log ${n.dir}/internal.log croupier_conn;
${marked('nginx-nchan.conf', 'nchan-internal')}
  }` : ''}
  server {
    listen 127.0.0.1:${n.port}${sndbuf ? ` sndbuf=${sndbuf}` : ''};
${marked('nginx-fastcgi.conf', 'server')}
${marked('nginx-nchan.conf', 'nchan-server')}
    location / {
      include fastcgi_params;
      fastcgi_pass croupier_fcgi;
      fastcgi_buffering off;
      fastcgi_keep_conn off;
    }
  }
}
`);
    n.base = `http://127.0.0.1:${n.port}`;
  }
  async function startNginx(n) {
    n.err = '';
    n.proc = spawn('/usr/sbin/nginx', ['-p', n.dir, '-c', path.join(n.dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
    n.proc.stderr.setEncoding('utf8');
    n.proc.stderr.on('data', (d) => { n.err += d; });
    n.exited = new Promise((resolve) => n.proc.on('exit', resolve));
    await waitFor(async () => {
      if (n.proc.exitCode !== null) throw new Error(`nginx exited: ${n.err} ${readFileSync(`${n.dir}/error.log`, 'utf8')}`);
      try { return (await fetch(`${n.base}/healthz`)).ok; } catch { return false; }
    }, 5000, 'nginx answers');
  }
  try {
    for (const n of nx) await startNginx(n);
  } catch (e) {
    // nothing left running when a start fails: node would wait on them for ever
    for (const n of nx) if (n.proc && n.proc.exitCode === null) n.proc.kill('SIGKILL');
    for (const f of fcgis) f.proc.kill('SIGKILL');
    await Promise.all([...nx.filter((n) => n.proc).map((n) => n.exited), ...fcgis.map((f) => f.exited)]);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    dir,
    admin,
    base: nx[0].base,
    bases: nx.map((n) => n.base),
    /** nginx's process ids (one process each: no master; for CPU figures). */
    nginxPids: () => nx.map((n) => n.proc.pid),
    accessLogs: nx.map((n) => n.accessLog),
    /* the internal (publisher) server's log of the first nginx: a line a
     * request, "connection-serial requests-on-it METHOD path" */
    internalLog: path.join(nx[0].dir, 'internal.log'),
    fcgis,
    async restartNginx(i = 0) {
      nx[i].proc.kill('SIGTERM');
      await nx[i].exited;
      await startNginx(nx[i]);
    },
    /** Stop everything; resolves to the croupier processes' exits ({code, signal, stderr}). */
    async stop() {
      for (const n of nx) n.proc.kill('SIGTERM');
      const exits = [];
      for (const f of fcgis) {
        f.proc.kill('SIGTERM');
        exits.push({ ...(await f.exited), stderr: f.err });
      }
      await Promise.all(nx.map((n) => n.exited));
      rmSync(dir, { recursive: true, force: true });
      return exits;
    },
  };
}
