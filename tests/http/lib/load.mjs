// load.mjs: a steady write load for the tests that back up or stop a store
// while it serves (tests/cli/backup.test.mjs, tests/pg/backup.test.mjs).
//
//   const load = await startLoad(base, { games: 4 });
//   ... load.acked()  // [{id, n, play}] of every play answered 200 so far
//   await load.stop(); load.games  // [{id, token}]
import { request } from './server.mjs';

export async function startLoad(base, { games = 4, seed = 1 } = {}) {
  const tables = [];
  const acked = [];
  let running = true;
  async function newTable(i) {
    const r = await request(base, 'POST', '/games', {
      json: { game: 'comp10001bo', seed: seed * 1000 + i, players: [{ name: 'P' }, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }] },
    });
    if (r.status !== 201) throw new Error(`POST /games: ${r.status} ${r.text}`);
    const t = { id: r.json.id, token: r.json.seats[0].token };
    tables.push(t);
    return t;
  }
  async function loop(i) {
    let t = await newTable(i);
    for (let k = 0; running; k++) {
      const legal = await request(base, 'GET', `/games/${t.id}/legal`, { token: t.token });
      if (legal.status !== 200) throw new Error(`legal: ${legal.status} ${legal.text}`);
      if (!legal.json.plays.length) {
        t = await newTable(i + games * (k + 1));
        continue;
      }
      const play = legal.json.plays[k % legal.json.plays.length];
      const r = await request(base, 'POST', `/games/${t.id}/plays`, { token: t.token, json: { play } });
      if (r.status !== 200) throw new Error(`play: ${r.status} ${r.text}`);
      acked.push({ id: t.id, n: r.json.applied[0].n, play: r.json.applied[0].play });
    }
  }
  const loops = Array.from({ length: games }, (_, i) => loop(i));
  return {
    games: tables,
    acked: () => acked.slice(),
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Every play of `acked` is logged once in the store behind `base`. */
export async function missing(base, adminToken, acked) {
  const byGame = new Map();
  for (const a of acked) byGame.set(a.id, [...(byGame.get(a.id) ?? []), a]);
  const lost = [];
  for (const [id, list] of byGame) {
    const r = await request(base, 'GET', `/games/${id}/plays`, { token: adminToken });
    const logged = r.status === 200 ? r.json.plays : [];
    for (const a of list) {
      const same = logged.filter((p) => p.n === a.n && JSON.stringify(p.play) === JSON.stringify(a.play));
      if (same.length !== 1) lost.push({ ...a, status: r.status, found: same.length });
    }
  }
  return lost;
}
