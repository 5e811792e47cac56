// pg.mjs: a throwaway PostgreSQL cluster in a temporary directory, on its
// own unix socket and port (no TCP listener), for the tests that need a real
// server of their own: tests/run.sh's PostgreSQL pass, the tests that stop,
// freeze or crash the cluster under load (tests/pg/), the fixture script and
// the bench. initdb refuses to run as root: as root the cluster is run by
// the postgres user.
//
//   import { startCluster } from './pg.mjs';
//   const pg = await startCluster();      // null when PostgreSQL is missing
//   pg.url; await pg.restart('immediate'); pg.signal('SIGSTOP'); await pg.stop();
//
// From a shell (tests/run.sh, tests/fixtures/make-store.sh):
//   url=$(node tests/http/lib/pg.mjs start DIR)   # prints the postgres:// URL
//   node tests/http/lib/pg.mjs stop DIR
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The newest PostgreSQL server binaries' directory, or null. */
export function pgBin() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const dirs = readdirSync(root).filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  return dirs.length ? path.join(root, dirs.at(-1), 'bin') : null;
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** A server binary's command line, run as the cluster's owner. */
const argvOf = (bin, tool, args) => (asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]]
  : [path.join(bin, tool), args]);

/** Run a server binary as the cluster's owner; throws with its output. */
function run(bin, tool, args) {
  const [cmd, argv] = argvOf(bin, tool, args);
  const r = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')}: exit ${r.status}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** The same, without blocking the caller's event loop (its requests go on). */
async function runAsync(bin, tool, args) {
  const [cmd, argv] = argvOf(bin, tool, args);
  const { stdout } = await promisify(execFile)(cmd, argv, { encoding: 'utf8' });
  return stdout;
}

function portOf(dir) {
  return Number(readFileSync(path.join(dir, 'port'), 'utf8'));
}

function handle(bin, dir) {
  const data = path.join(dir, 'data');
  const port = portOf(dir);
  const url = `postgres://croupier@/croupier?host=${dir}&port=${port}`;
  const ctl = (...args) => run(bin, 'pg_ctl', ['-D', data, ...args]);
  const startArgs = ['-l', path.join(dir, 'pg.log'), '-w', '-t', '60',
    '-o', `-p ${port} -k ${dir} -c listen_addresses=''`];
  return {
    url, dir, port,
    /** The same server, another database on it. */
    urlOf: (db) => `postgres://croupier@/${db}?host=${dir}&port=${port}`,
    /** pg_ctl restart -m MODE (fast, immediate): back when it accepts connections. */
    restart: (mode = 'fast') => { ctl('-m', mode, 'stop'); ctl(...startArgs, 'start'); },
    /** The same, as a promise: the caller's event loop (its clients) runs meanwhile. */
    restartAsync: async (mode = 'fast') => {
      await runAsync(bin, 'pg_ctl', ['-D', data, '-m', mode, 'stop']);
      await runAsync(bin, 'pg_ctl', ['-D', data, ...startArgs, 'start']);
    },
    stop: (mode = 'fast') => { try { ctl('-m', mode, 'stop'); } catch { /* already stopped */ } },
    start: () => ctl(...startArgs, 'start'),
    /** The postmaster and every process it started (the backends). */
    pids: () => {
      const pm = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const kids = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
        try {
          const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pm;
        } catch { return false; }
      }).map(Number);
      return [pm, ...kids];
    },
    /** Send a signal to the postmaster and its children (SIGSTOP, SIGCONT). */
    signal(sig) { for (const pid of this.pids()) { try { process.kill(pid, sig); } catch { /* gone */ } } },
    /** Run SQL through psql; its output (tuples only, unaligned). */
    psql: (sql, db = 'croupier') => execFileSync('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1',
      '-d', `postgres://croupier@/${db}?host=${dir}&port=${port}`, '-c', sql], { encoding: 'utf8' }),
    /** Stop the cluster and remove its directory. */
    destroy() { this.stop('immediate'); rmSync(dir, { recursive: true, force: true }); },
  };
}

/** Make and start a cluster in `dir` (default a new temporary directory);
 * null when the server binaries are missing. */
export function startCluster(dir) {
  const bin = pgBin();
  if (!bin) return null;
  dir ??= mkdtempSync(path.join(tmpdir(), 'croupier-pg-'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'port'), String(20000 + Math.floor(Math.random() * 20000)));
  chmodSync(dir, 0o755);
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  run(bin, 'initdb', ['-D', path.join(dir, 'data'), '-U', 'croupier', '--auth=trust']);
  const h = handle(bin, dir);
  h.start();
  run(bin, 'createdb', ['-h', dir, '-p', String(h.port), '-U', 'croupier', 'croupier']);
  return h;
}

/** A handle on a cluster that startCluster made in `dir`. */
export function openCluster(dir) {
  const bin = pgBin();
  return bin && existsSync(path.join(dir, 'port')) ? handle(bin, dir) : null;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [cmd, dir] = process.argv.slice(2);
  if (cmd === 'start' && dir) {
    const h = startCluster(dir);
    if (!h) { console.error('pg.mjs: no PostgreSQL server binaries (apt-get install postgresql)'); process.exit(1); }
    console.log(h.url);
  } else if (cmd === 'stop' && dir) {
    openCluster(dir)?.stop();
  } else {
    console.error('usage: node pg.mjs start|stop DIR');
    process.exit(2);
  }
}
