// lanes.mjs: which HTTP test files run in which pass of tests/run.sh, in one
// place (docs/testing.md). The whole of tests/http runs once, against the
// ASan+UBSan server on SQLite (`make test`), and against the release server
// in `make check`; the two passes below run again only the files whose
// subject changes with their axis:
//   front: through nginx + `croupier fcgi` (CROUPIER_TEST_FRONT=fcgi), the
//          files about the transport, its limits and streams, the start-up,
//          the headers a browser sees and what a reader may see;
//   store: on a real PostgreSQL (CROUPIER_TEST_STORE=postgres://...), the
//          files about what is stored, claimed, replayed and migrated.
// tests/repo/lanes.test.mjs checks that every file named here exists, and
// that a file that reads an axis's variable (a test that runs only on it)
// is in that axis's lane.
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const LANES = {
  front: [
    'browser_security', 'events', 'fanout', 'games', 'hostile', 'idempotency', 'invites', 'nginx_limits',
    'privacy', 'service', 'startup', 'transport', 'ws_limits',
  ],
  store: [
    'events', 'fanout', 'games', 'idempotency', 'invites', 'migrate', 'notes', 'play', 'service', 'store',
    'store_log', 'store_room', 'undo',
  ],
};

/** The files of a lane, as paths from the repository's root. */
export const laneFiles = (lane) => LANES[lane].map((n) => `tests/http/${n}.test.mjs`);

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const lane = process.argv[2];
  if (!LANES[lane]) {
    console.error(`usage: node tests/http/lanes.mjs ${Object.keys(LANES).join('|')}`);
    process.exit(2);
  }
  console.log(laneFiles(lane).join('\n'));
}
