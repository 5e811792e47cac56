// raw.mjs: HTTP/1.1 and FastCGI on raw sockets, for the transport tests: a
// request exactly as written (half a line, two Content-Lengths, a body cut
// short), and what came back, with the time it took.
import net from 'node:net';

/** Parse one HTTP/1.x response at the start of buf; null while incomplete. */
export function parseResponse(buf) {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0]);
  if (!m) return { status: -1, headers: {}, text: buf.toString('latin1'), complete: true };
  const headers = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const len = headers['content-length'] !== undefined ? Number(headers['content-length']) : null;
  const body = buf.subarray(end + 4);
  if (len !== null && body.length < len) return null;
  const text = (len !== null ? body.subarray(0, len) : body).toString('utf8');
  let json;
  if (/json/.test(headers['content-type'] || '') && text) {
    try { json = JSON.parse(text); } catch { /* left undefined */ }
  }
  return { status: Number(m[1]), headers, text, json, complete: len !== null };
}

/**
 * Send `parts` (strings or Buffers; a number is a pause in ms) on a fresh
 * connection to base (http://host:port). opts.end: 'half' (shutdown our
 * write side after the parts), 'destroy' (close at once, read nothing),
 * or nothing. Resolves to {status, headers, text, json, raw, ms, closed}: status 0
 * when nothing came back before the server closed or opts.timeout passed;
 * closed: the server closed the connection (ms: when); raw: every byte that
 * came back (opts.untilClose: read on until the server closes, rather than
 * stop at the first whole response).
 */
export function raw(base, parts, opts = {}) {
  const { hostname, port } = new URL(base);
  const timeout = opts.timeout ?? 20000;
  return new Promise((resolve) => {
    const t0 = Date.now();
    const sock = net.connect({ host: hostname, port: Number(port) });
    let buf = Buffer.alloc(0);
    let done = false;
    const finish = (closed) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const r = parseResponse(buf) || { status: 0, headers: {}, text: buf.toString('latin1') };
      sock.destroy();
      resolve({ ...r, raw: buf.toString('latin1'), ms: Date.now() - t0, closed });
    };
    const timer = setTimeout(() => finish(false), timeout);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const r = parseResponse(buf);
      if (r && r.complete && !opts.untilClose) finish(false);
    });
    sock.on('end', () => finish(true));
    sock.on('close', () => finish(true));
    sock.on('error', () => finish(true));
    sock.on('connect', async () => {
      for (const p of parts) {
        if (typeof p === 'number') await new Promise((r) => setTimeout(r, p));
        else if (!sock.destroyed) sock.write(p);
      }
      if (opts.end === 'half') sock.end();
      if (opts.end === 'destroy') {
        await new Promise((r) => setTimeout(r, 50));
        finish(false);
      }
    });
  });
}

/** The request text: request line, headers (array of [name, value]), body. */
export function http(method, path, headers, body = '') {
  return `${method} ${path} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`;
}

// ---- FastCGI (the responder role, one request per connection) -----------------

function record(type, id, content = Buffer.alloc(0)) {
  const pad = (8 - (content.length % 8)) % 8;
  const h = Buffer.from([1, type, id >> 8, id & 255, content.length >> 8, content.length & 255, pad, 0]);
  return Buffer.concat([h, content, Buffer.alloc(pad)]);
}

function nvLen(n) {
  return n < 128 ? Buffer.from([n]) : Buffer.from([(n >>> 24) | 0x80, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
}

function params(obj) {
  return Buffer.concat(Object.entries(obj).map(([k, v]) => {
    const kb = Buffer.from(k), vb = Buffer.from(String(v));
    return Buffer.concat([nvLen(kb.length), nvLen(vb.length), kb, vb]);
  }));
}

/** The bytes of one FastCGI request (see fcgiRequest), for a test that sends only part of them. */
export function fcgiBytes(env, stdin = '') {
  const body = Buffer.from(stdin);
  const chunks = [record(1, 1, Buffer.from([0, 1, 0, 0, 0, 0, 0, 0])), record(4, 1, params(env)), record(4, 1)];
  for (let i = 0; i < body.length; i += 32768) chunks.push(record(5, 1, body.subarray(i, i + 32768)));
  chunks.push(record(5, 1));
  return Buffer.concat(chunks);
}

/**
 * One FastCGI request to the socket at `path` (a Unix socket): `env` as the
 * parameters, `stdin` as the body (sent whole, then the end of the stream,
 * whatever CONTENT_LENGTH says). opts.cut: leave out the end of the stream
 * (the body never ends); opts.timeout (ms, default 10 s). Resolves to
 * {status, headers, text, json}.
 */
export function fcgiRequest(path, env, stdin = '', opts = {}) {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ path });
    let buf = Buffer.alloc(0);
    const out = [];
    const ms = opts.timeout ?? 10000;
    const timer = setTimeout(() => { sock.destroy(); reject(new Error(`FastCGI: no answer in ${ms} ms`)); }, ms);
    sock.on('error', (e) => { clearTimeout(timer); reject(e); });
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 8) {
        const type = buf[1], len = (buf[4] << 8) | buf[5], pad = buf[6];
        if (buf.length < 8 + len + pad) break;
        const content = buf.subarray(8, 8 + len);
        buf = buf.subarray(8 + len + pad);
        if (type === 6) out.push(content); // STDOUT
        if (type === 3) { // END_REQUEST
          clearTimeout(timer);
          sock.destroy();
          const all = Buffer.concat(out).toString('utf8');
          const end = all.indexOf('\r\n\r\n');
          const headers = {};
          for (const line of all.slice(0, end).split('\r\n')) {
            const i = line.indexOf(':');
            if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
          }
          const text = all.slice(end + 4);
          let json;
          try { json = JSON.parse(text); } catch { /* not JSON */ }
          resolve({ status: Number((headers.status || '200').split(' ')[0]), headers, text, json });
        }
      }
    });
    sock.on('connect', () => {
      const bytes = fcgiBytes(env, stdin);
      sock.write(opts.cut ? bytes.subarray(0, bytes.length - 8) : bytes); // the last record: the end of stdin
    });
  });
}
