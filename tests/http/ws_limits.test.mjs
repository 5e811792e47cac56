// The WebSocket (/games/{id}/ws) as a hostile client speaks it, frame by
// frame on a raw socket: a frame header that announces more than the message
// limit is refused with close code 1009 before any of it is read or
// reserved (the server's memory is watched), a long message is cut off the
// same way, fragmented messages are reassembled within the limit, refusals
// name the offending member as the REST API does, and the acting seat never
// sees its own draw, even in the play that ends the game.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { test } from 'node:test';
import { useServer, startServer, createGame, expectStatus, request } from './lib/server.mjs';
import { raw, http } from './lib/raw.mjs';

const srv = useServer();
const viaFcgi = process.env.CROUPIER_TEST_FRONT === 'fcgi';
const skip = viaFcgi && 'FastCGI has no WebSocket (the embedded server serves it)';
const LIMIT = 65536; // --body-limit's default: the message limit too

/** The server's memory (kB) from /proc: resident and virtual. */
function memory() {
  const s = readFileSync(`/proc/${srv.server.proc.pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)[1]);
  return { rss: kb('VmRSS'), size: kb('VmSize') };
}

/** A client frame (masked, as RFC 6455 requires); `announce` overrides the length field. */
function frame(opcode, payload, { fin = true, announce } = {}) {
  const data = Buffer.from(payload);
  const len = announce ?? data.length;
  const head = [((fin ? 0x80 : 0) | opcode)];
  if (len < 126) head.push(0x80 | len);
  else if (len < 65536) head.push(0x80 | 126, len >> 8, len & 255);
  else {
    head.push(0x80 | 127);
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt(len));
    head.push(...b);
  }
  const mask = randomBytes(4);
  const masked = Buffer.from(data.map((c, i) => c ^ mask[i & 3]));
  return Buffer.concat([Buffer.from(head), mask, masked]);
}

/** Open /games/{id}/ws on a raw socket (of this file's server, or the one at
 * base); resolves once the server answered 101. */
function openRaw(id, token, base = srv.base) {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: hostname, port: Number(port) });
    let buf = Buffer.alloc(0);
    let open = false;
    const c = { sock, messages: [], closeCode: null, closed: false, waiters: [] };
    const wake = () => { for (const w of c.waiters.splice(0)) w(); };
    const parse = () => {
      for (;;) {
        if (buf.length < 2) return;
        let len = buf[1] & 127, off = 2;
        if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); off = 4; }
        else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); off = 10; }
        if (buf.length < off + len) return;
        const op = buf[0] & 15, payload = buf.subarray(off, off + len);
        if (op === 8) c.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        else if (op === 1) c.messages.push(JSON.parse(payload.toString('utf8')));
        buf = buf.subarray(off + len);
        wake();
      }
    };
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (!open) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1');
        if (!/^HTTP\/1\.1 101/.test(head)) { reject(new Error(`refused: ${head}`)); sock.destroy(); return; }
        open = true;
        buf = buf.subarray(end + 4);
        resolve(c);
      }
      parse();
    });
    sock.on('close', () => { c.closed = true; wake(); });
    sock.on('error', () => { c.closed = true; wake(); });
    sock.on('connect', () => sock.write(`GET /games/${id}/ws HTTP/1.1\r\nHost: ${hostname}:${port}\r\n`
      + `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n`
      + `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n`
      + (token ? `Authorization: Bearer ${token}\r\n` : '') + '\r\n'));
    c.until = async (pred, ms = 8000) => {
      const t0 = Date.now();
      while (!pred(c)) {
        if (Date.now() - t0 > ms) throw new Error(`timed out; close ${c.closeCode}, messages ${JSON.stringify(c.messages).slice(0, 400)}`);
        await new Promise((r) => { c.waiters.push(r); setTimeout(r, 100); });
      }
    };
  });
}

async function seatedGame(seed) {
  const g = await createGame(srv, { players: ['Ann', 'bot', 'bot', 'bot'], seed });
  return { id: g.id, token: g.seats[0].token };
}

test('a frame header announcing 1 GiB is refused with 1009 before anything is read or reserved', { skip }, async () => {
  const g = await seatedGame(300);
  const before = memory();
  const conns = [];
  for (let i = 0; i < 3; i++) {
    const c = await openRaw(g.id, g.token);
    await c.until((x) => x.messages.some((m) => m.event === 'turn'));
    c.sock.write(frame(1, '', { announce: 2 ** 30 }).subarray(0, 14)); // the header and mask only
    conns.push(c);
  }
  for (const c of conns) {
    await c.until((x) => x.closeCode !== null && x.closed, 5000);
    assert.equal(c.closeCode, 1009, 'close code 1009: message too big');
  }
  const after = memory();
  assert.ok(after.rss - before.rss < 20_000, `resident memory grew by ${after.rss - before.rss} kB`);
  assert.ok(after.size - before.size < 256_000, `reserved memory grew by ${after.size - before.size} kB (3 x 1 GiB announced)`);
});

test('a 64 MiB message is cut off at the limit, not read into memory', { skip, timeout: 60_000 }, async () => {
  const g = await seatedGame(301);
  const c = await openRaw(g.id, g.token);
  await c.until((x) => x.messages.some((m) => m.event === 'turn'));
  const before = memory();
  const total = 64 << 20;
  c.sock.write(frame(1, '', { announce: total }).subarray(0, 14));
  const block = Buffer.alloc(1 << 16, 0x20);
  let sent = 0;
  // sent as a client does: block by block, reading between them, and no
  // more once the server's close frame came (RFC 6455, 5.5.1)
  while (!c.closed && c.closeCode === null && sent < total) {
    if (!c.sock.write(block)) await new Promise((r) => { c.sock.once('drain', r); c.sock.once('close', r); setTimeout(r, 500); });
    else await new Promise(setImmediate);
    sent += block.length;
  }
  await c.until((x) => x.closeCode !== null, 5000);
  assert.equal(c.closeCode, 1009);
  assert.ok(sent < total / 4, `the server closed long before the whole message came (${sent} of ${total} bytes sent)`);
  const after = memory();
  assert.ok(after.rss - before.rss < 20_000, `resident memory grew by ${after.rss - before.rss} kB`);
});

test('a fragmented message is reassembled and played; fragments past the limit are refused (1009)', { skip }, async () => {
  const g = await seatedGame(302);
  const legal = await srv.get(`/games/${g.id}/legal`, { token: g.token });
  const play = legal.json.plays.at(-1);
  const before = (await srv.get(`/games/${g.id}`)).json.version;
  const c = await openRaw(g.id, g.token);
  await c.until((x) => x.messages.some((m) => m.event === 'turn'));
  const text = JSON.stringify(play);
  const a = Math.floor(text.length / 3), b = Math.floor((2 * text.length) / 3);
  c.sock.write(Buffer.concat([frame(1, text.slice(0, a), { fin: false }), frame(0, text.slice(a, b), { fin: false }),
    frame(9, 'ping between fragments'), frame(0, text.slice(b))]));
  await c.until((x) => x.messages.some((m) => m.event === 'play' && m.seat === 0 && JSON.stringify(m.play) === text));
  assert.ok(!c.messages.some((m) => m.event === 'invalidAction'), JSON.stringify(c.messages));
  assert.ok((await srv.get(`/games/${g.id}`)).json.version > before, 'the play was applied');
  // two fragments that only together pass the limit
  const half = Buffer.alloc(LIMIT / 2 + 10, 0x20);
  c.sock.write(frame(1, half, { fin: false }));
  c.sock.write(frame(0, half));
  await c.until((x) => x.closeCode !== null);
  assert.equal(c.closeCode, 1009);
});

test('refusals name the offending member, as the REST API does', { skip }, async () => {
  const g = await seatedGame(303);
  const action = [0, 5, [1, [0, 0]]]; // a card that is not a card's name
  const rest = await srv.post(`/games/${g.id}/plays`, { play: action }, { token: g.token });
  assert.ok(rest.status === 400 || rest.status === 422, rest.text);
  const pointer = rest.json.errors?.[0]?.pointer;
  assert.match(pointer, /^\/play\//, `REST names the member: ${rest.text}`);
  const c = await openRaw(g.id, g.token);
  await c.until((x) => x.messages.some((m) => m.event === 'turn'));
  c.sock.write(frame(1, JSON.stringify(action)));
  await c.until((x) => x.messages.some((m) => m.event === 'invalidAction'));
  const bad = c.messages.find((m) => m.event === 'invalidAction');
  assert.equal(bad.member, pointer.slice('/play'.length), `the action's own member: ${JSON.stringify(bad)}`);
  assert.ok(bad.message.includes(bad.member), bad.message);
  assert.ok(bad.message.startsWith(rest.json.detail), `the same words as REST: ${bad.message} / ${rest.json.detail}`);
  c.sock.destroy();
});

test('Hanabi: the acting seat never sees its own draw, to the last play of the game', { skip, timeout: 120_000 }, async () => {
  for (const seed of [1, 2, 3]) {
    const created = await srv.post('/games', { game: 'hanabi', seed, players: [{ name: 'Ann' }, { bot: 'rules' }] });
    expectStatus(created, 201);
    const { id } = created.json;
    const token = created.json.seats[0].token;
    for (let i = 0; i < 200; i++) {
      const legal = await srv.get(`/games/${id}/legal`, { token });
      if (!legal.json.plays.length) break; // over
      // play the first card in hand each time: games end on the third error or the deck
      const play = legal.json.plays.find((p) => p.type === 'play') || legal.json.plays[0];
      expectStatus(await srv.post(`/games/${id}/plays`, { play }, { token }), 200);
    }
    const check = (events, via) => {
      let actor = -1, mine = 0;
      for (const e of events) {
        if (e.event === 'onTurnStart') actor = e.index;
        else if (e.event === 'onPlayerAction' && e.draw && actor === 0) {
          assert.deepEqual(e.draw, [-1, -1], `${via}: seat 0's own draw, seed ${seed}`);
          mine++;
        }
      }
      assert.ok(mine > 0, `${via}: seat 0 drew`);
      assert.equal(events.at(-1).event, 'onGameEnd', `${via}: the game ended`);
    };
    const events = await srv.get(`/games/${id}/events`, { token });
    check(events.json, 'GET /events');
    const c = await openRaw(id, token);
    await c.until((x) => x.messages.some((m) => m.event === 'onGameEnd'));
    check(c.messages, 'WebSocket');
    c.sock.destroy();
  }
});

/** Resolves after ms. */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The server's /metrics value of `name` (a line without labels). */
async function metric(name) {
  const r = await srv.get('/metrics');
  expectStatus(r, 200);
  const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(r.text);
  assert.ok(m, `/metrics has ${name}`);
  return Number(m[1]);
}

test('a ping flood from sockets that never read is bounded: the server\'s memory stays put, others are served', { skip, timeout: 60_000 }, async () => {
  // a server of its own: under ASan, freed memory is held in a quarantine
  // (256 MB by default) that every pong would fill; none here, so that what
  // is measured is what the server keeps (a release build ignores it)
  const own = await startServer({ env: { ASAN_OPTIONS: `${process.env.ASAN_OPTIONS || ''}:quarantine_size_mb=0:thread_local_quarantine_size_kb=0` } });
  const at = { base: own.base, get: (p, o) => request(own.base, 'GET', p, o),
    post: (p, json, o = {}) => request(own.base, 'POST', p, { json, ...o }) };
  const rss = () => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${own.proc.pid}/status`, 'utf8'))[1]);
  try {
    await flood(at, rss);
  } finally {
    const { code } = await own.stop();
    assert.equal(code, 0, 'the flooded server exits cleanly');
  }
});

async function flood(at, memoryNow) {
  const g = await createGame(at, { players: ['Ann', 'bot', 'bot', 'bot'], seed: 304 });
  const socks = [];
  for (let i = 0; i < 4; i++) { // spectators: no token needed
    const c = await openRaw(g.id, null, at.base);
    c.sock.pause(); // never reads another byte: every pong stays unread
    socks.push(c);
  }
  // Memory is read from the end of a first second of flooding: what a
  // server touches once (its threads' stacks, an allocator's caches: under
  // ASan, per-thread caches and redzones; a CI run on a loaded machine saw
  // 6.7 MB more after half a second, 0.2 MB here) is not what a flood
  // grows without limit, which before this bound was 790 MB in 3 s. From
  // the real start the server may grow by a few more MB at most.
  const start = memoryNow();
  let before = null, peak = start, offered = 0;
  const warm = Date.now() + 1000;
  const batch = Buffer.concat(Array(10000).fill(frame(9, ''))); // 10,000 empty pings, 60 kB
  const until = Date.now() + 3000;
  const flooding = socks.map(async (c) => {
    while (Date.now() < until && !c.closed) {
      // as fast as the server takes them, 1 MB offered at most in this process
      if (c.sock.writableLength < (1 << 20)) { c.sock.write(batch); offered += batch.length; }
      await new Promise(setImmediate);
    }
  });
  const served = (async () => {
    let n = 0;
    while (Date.now() < until) {
      const t0 = Date.now();
      expectStatus(await at.get('/healthz', { timeout: 5000 }), 200, 'GET /healthz during the flood');
      assert.ok(Date.now() - t0 < 2000, `GET /healthz answered in ${Date.now() - t0} ms during the flood`);
      n++;
      if (before === null && Date.now() >= warm) { before = memoryNow(); peak = before; }
      peak = Math.max(peak, memoryNow());
      await sleep(100);
    }
    return n;
  })();
  const [n] = await Promise.all([served, ...flooding]);
  peak = Math.max(peak, memoryNow());
  assert.ok(n > 5, `others were served meanwhile (${n} answers)`);
  assert.ok(before !== null, 'the flood lasted past its first second');
  const grew = peak - before;
  console.log(`# ping flood: ${(offered / 1e6).toFixed(1)} MB of pings offered on 4 sockets, server RSS ${start} kB, ${before} kB after 1 s -> peak ${peak} kB`);
  assert.ok(grew < 8000, `resident memory grew by ${grew} kB after the first second of the flood (${(offered / 1e6).toFixed(1)} MB of pings offered)`);
  assert.ok(peak - start < 16000, `resident memory grew by ${peak - start} kB from the start of the flood`);
  for (const c of socks) c.sock.destroy();
  expectStatus(await at.get('/healthz'), 200);
}

// A follower that stops reading. The client's socket takes 4 KiB (SO_RCVBUF:
// a Python client, as Node cannot set it), so the server's output backs up
// within a game; the server must cut it off within its write timeout (10 s)
// and meanwhile keep every other follower up to date.
const SLOW_FOLLOWER = `
import base64, os, socket, sys, time
port, path, kind = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(('127.0.0.1', port))
head = 'Upgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Version: 13\\r\\nSec-WebSocket-Key: %s\\r\\n' % base64.b64encode(os.urandom(16)).decode() if kind == 'ws' else 'Accept: text/event-stream\\r\\n'
s.sendall(('GET %s HTTP/1.1\\r\\nHost: x\\r\\n%s\\r\\n' % (path, head)).encode())
print('connected', flush=True)
time.sleep(120)  # never reads; killed by the test
`;

test('a follower that never reads is cut off within the write timeout; the others keep up', { skip, timeout: 90_000 }, async () => {
  const created = await srv.post('/games', { game: 'fivecrowns', seed: 9, players: [{ name: 'Ann' }, ...Array(6).fill({ bot: 'strategy' })] });
  expectStatus(created, 201);
  const id = created.json.id, token = created.json.seats[0].token;
  const open0 = await metric('croupier_streams_open');
  const { port } = new URL(srv.base);
  const slow = ['ws', 'sse'].map((kind) => spawn('python3', ['-c', SLOW_FOLLOWER, port,
    kind === 'ws' ? `/games/${id}/ws` : `/games/${id}/events`, kind], { stdio: ['ignore', 'pipe', 'inherit'] }));
  try {
    await Promise.all(slow.map((p) => new Promise((r) => p.stdout.once('data', r))));
    const reader = await openRaw(id); // a spectator that reads
    const t0 = Date.now();
    while (await metric('croupier_streams_open') < open0 + 3) {
      assert.ok(Date.now() - t0 < 5000, 'the three streams opened');
      await sleep(50);
    }
    // the whole game: each play's events reach the reading follower promptly
    let worst = 0;
    for (;;) {
      const legal = await srv.get(`/games/${id}/legal`, { token });
      if (!legal.json.plays.length) break;
      expectStatus(await srv.post(`/games/${id}/plays`, { play: legal.json.plays[0] }, { token }), 200);
      const want = (await srv.get(`/games/${id}/events`)).json.length;
      const t1 = Date.now();
      await reader.until((x) => x.messages.length >= want, 5000);
      worst = Math.max(worst, Date.now() - t1);
    }
    const over = Date.now();
    assert.ok(worst < 2000, `the reading follower had each play's events within ${worst} ms`);
    // by now the slow followers' output has backed up: both are cut off, their slots given back
    // (within 10 s of the moment their output stopped moving; the client's
    // kernel still takes a few bytes now and then, so that moment may come
    // a little after the last play: 30 s is the generous bound, where an
    // uncut stream would stay until it is idle, 60 s)
    while (await metric('croupier_streams_open') > open0 + 1) {
      assert.ok(Date.now() - over < 30_000, `the followers that never read were cut off: still open ${Date.now() - over} ms after the last play`);
      await sleep(250);
    }
    console.log(`# slow followers cut off ${Date.now() - over} ms after the game's last play; the reading one lagged ${worst} ms at most`);
    reader.sock.destroy();
  } finally {
    for (const p of slow) p.kill('SIGKILL');
  }
});

/** An SSE stream of game id on a raw socket: resolves to {status, sock} once its head is in. */
function openSse(id) {
  const { hostname, port } = new URL(srv.base);
  return new Promise((resolve) => {
    const sock = net.connect({ host: hostname, port: Number(port) }, () =>
      sock.write(`GET /games/${id}/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n`));
    let head = '';
    sock.on('data', (d) => {
      head += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (m && head.includes('\r\n\r\n')) { sock.removeAllListeners('data'); sock.resume(); resolve({ status: Number(m[1]), head, sock }); }
    });
    sock.on('error', () => resolve({ status: 0, head, sock }));
  });
}

test('16 streams from one address, WebSockets and SSE together; the next is refused and counted in /metrics', { skip, timeout: 60_000 }, async () => {
  const g = await seatedGame(305);
  const refusedBefore = async (kind) => {
    const m = new RegExp(`^croupier_streams_refused_total\\{kind="${kind}"\\} (\\d+)$`, 'm').exec((await srv.get('/metrics')).text);
    assert.ok(m, `/metrics counts refused ${kind} streams`);
    return Number(m[1]);
  };
  const [sse0, ws0] = [await refusedBefore('sse'), await refusedBefore('websocket')];
  const open0 = await metric('croupier_streams_open');
  const held = [];
  for (let i = 0; i < 8; i++) {
    held.push((await openRaw(g.id)).sock);
    const s = await openSse(g.id);
    assert.equal(s.status, 200, `SSE stream ${i + 1}`);
    held.push(s.sock);
  }
  assert.equal(await metric('croupier_streams_open'), open0 + 16, 'sixteen streams open');
  const sse = await openSse(g.id);
  assert.equal(sse.status, 503, `the 17th stream (SSE) is refused: ${sse.head.slice(0, 200)}`);
  assert.match(sse.head, /too-many-streams/);
  sse.sock.destroy();
  await assert.rejects(openRaw(g.id), /503/, 'the 17th stream (a WebSocket) is refused');
  assert.equal(await refusedBefore('sse'), sse0 + 1, 'the refused SSE stream is counted');
  assert.equal(await refusedBefore('websocket'), ws0 + 1, 'the refused WebSocket is counted');
  // one given back: one more may open
  held.pop().destroy();
  const t0 = Date.now();
  while (await metric('croupier_streams_open') > open0 + 15) {
    assert.ok(Date.now() - t0 < 3000, 'a closed stream gives its slot back within a second or two');
    await sleep(100);
  }
  const again = await openRaw(g.id);
  again.sock.destroy();
  for (const s of held) s.destroy();
});

test('a token subprotocol longer than any token is refused 401, not taken for a spectator', { skip }, async () => {
  const g = await seatedGame(306);
  const upgrade = (protocols, timeout = 8000) => raw(srv.base, [http('GET', `/games/${g.id}/ws`, [['Host', new URL(srv.base).host],
    ['Upgrade', 'websocket'], ['Connection', 'Upgrade'], ['Sec-WebSocket-Version', '13'],
    ['Sec-WebSocket-Key', randomBytes(16).toString('base64')], ['Sec-WebSocket-Protocol', protocols]])], { timeout });
  const ok = await upgrade(`croupier, croupier.token.${g.token}`, 1000); // 101: the frames go on, read for a second
  assert.equal(ok.status, 101, 'the seat token as a subprotocol');
  for (const n of [256, 300, 5000]) {
    const r = await upgrade(`croupier, croupier.token.${'a'.repeat(n)}`);
    assert.equal(r.status, 401, `a ${n}-character token: ${r.text.slice(0, 200)}`);
    assert.equal(r.json?.type, '/problems/unauthorized');
  }
});
