// tests/bench/lib.mjs: what the bench's Node drivers share (long.mjs,
// routes.mjs, grade.mjs, league.mjs): an HTTP client on keep-alive sockets,
// a server's CPU read from /proc, and a command timed with its children.
import http from 'node:http';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** `bin args...` run to its end with stdout into out + '.txt' and stderr
 *  into out + '.err': {wall, cpu, status} in seconds (cpu: the command and
 *  every process it waited for, from bash's `times`; status -1 when bash
 *  said nothing). */
export function timedRun(bin, args, out) {
  const q = (a) => JSON.stringify(String(a));
  const cmd = `${q(bin)} ${args.map(q).join(' ')} >${q(out + '.txt')} 2>${q(out + '.err')}; rc=$?; times; echo "rc=$rc"`;
  const t0 = performance.now();
  const r = spawnSync('bash', ['-c', cmd], { encoding: 'utf8', maxBuffer: 1 << 24 });
  const wall = (performance.now() - t0) / 1000;
  const lines = r.stdout.trim().split('\n');
  const m = /rc=(\d+)/.exec(lines.at(-1) || '');
  // `times`: the shell's own user/sys, then its children's: "0m1.234s 0m0.567s"
  const secs = (t) => { const x = /(\d+)m([\d.]+)s/.exec(t); return x ? Number(x[1]) * 60 + Number(x[2]) : 0; };
  const kids = (lines.at(-2) || '').split(/\s+/);
  return { wall, cpu: secs(kids[0]) + secs(kids[1]), status: m ? Number(m[1]) : -1 };
}

// client(url, sockets): req(method, path, token, body, headers) resolves
// {status, json, text, ms} (ms: from the request's start to the whole
// answer read) on at most `sockets` keep-alive sockets; fresh() drops them
// (the server closes a socket idle for 5 s); close() at the end.
export function client(url, sockets = 1) {
  const base = new URL(url);
  let agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const req = (method, path, token, body, extra = {}) => new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers = { ...extra };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (data !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = Buffer.byteLength(data);
    }
    const t0 = process.hrtime.bigint();
    const r = http.request({ host: base.hostname, port: base.port, path, method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        const text = Buffer.concat(chunks).toString('utf8');
        let json = null;
        try { json = JSON.parse(text); } catch { /* problem text */ }
        resolve({ status: res.statusCode, json, text, ms });
      });
    });
    r.on('error', reject);
    if (data !== undefined) r.write(data);
    r.end();
  });
  return {
    req,
    fresh() {
      agent.destroy();
      agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
    },
    close() { agent.destroy(); },
  };
}

// The CPU of process `pid` (on this machine): the run time of its threads in
// ns, from /proc/PID/task/TID/schedstat (what the scheduler charged them:
// waiting for a core or for a lock costs nothing, so this figure stands a
// loaded machine better than a wall clock). A thread that ended takes its
// time with it: the servers measured keep their workers for their life.
export function procCpu(pid) {
  const taskNs = (tid) => {
    try {
      return Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      return 0;
    }
  };
  const tasks = () => {
    try { return fs.readdirSync(`/proc/${pid}/task`); } catch { return []; }
  };
  // every thread's run time, by thread id
  const all = () => {
    const m = new Map();
    for (const t of tasks()) m.set(t, taskNs(t));
    return m;
  };
  const sumNs = (m) => [...m.values()].reduce((a, b) => a + b, 0);
  return { on: pid > 0 && tasks().length > 0, taskNs, all, sumNs, total: () => sumNs(all()) };
}

/** Fields of /proc/PID/status, in kB (or a count, as Threads): {VmRSS,
 *  VmHWM, ...} for the keys asked; NaN for one the file does not hold. */
export function procStatus(pid, ...keys) {
  const st = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Object.fromEntries(keys.map((k) => [k, Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(st)?.[1] ?? NaN)]));
}

// parse --NAME VALUE pairs of process.argv into opt (its keys are the
// options, its values the defaults: a number default takes a number); exit 2
// on an unknown or incomplete one
export function options(opt, prog) {
  for (let i = 2; i < process.argv.length; i++) {
    const a = process.argv[i];
    if (!a.startsWith('--') || !(a.slice(2) in opt) || i + 1 >= process.argv.length) {
      console.error(`${prog}: unknown or incomplete option ${a}`);
      process.exit(2);
    }
    const k = a.slice(2), v = process.argv[++i];
    opt[k] = typeof opt[k] === 'number' ? Number(v) : v;
  }
  return opt;
}

export function median(a) {
  const s = [...a].sort((x, y) => x - y);
  if (!s.length) return 0;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
