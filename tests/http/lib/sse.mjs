// sse.mjs: follow a Server-Sent Events stream and note when each event
// arrived (tests/pg/notify.test.mjs, tests/bench/events.mjs); followWs, a
// WebSocket's events (tests/http/fanout.test.mjs, slow_followers.test.mjs).
//
//   const s = follow(`${base}/games/${id}/events`);
//   await s.ready;                       // the stream answered 200
//   const t = await s.arrival(n);        // performance.now() when event n came
//   s.frames                             // [{id, place ("n" or "n.e"), event, data (parsed), text (the frame)}]
//   await s.until((frames, unnumbered) => ...)  // until it holds (unnumbered: frames without an id)
//   s.close();
//   follow(url, headers, { idFromData: true })  // through nchan: an event's number is its data's "n"
import http from 'node:http';
import WebSocket from 'ws';
import { performance } from 'node:perf_hooks';

export function follow(url, headers = {}, { idFromData = false } = {}) {
  const at = new Map(); // event id -> arrival time
  const frames = []; // the events, as they came
  const waiting = new Map(); // event id -> [resolve]
  const unnumbered = []; // the frames without an id (an `end`, a `version`)
  const watchers = []; // {fn, resolve}: until fn(frames, unnumbered)
  const seen = () => { for (const w of [...watchers]) if (w.fn(frames, unnumbered)) { watchers.splice(watchers.indexOf(w), 1); w.resolve(); } };
  let req;
  const ready = new Promise((resolve, reject) => {
    req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) { reject(new Error(`SSE ${url}: status ${res.statusCode}`)); res.resume(); return; }
      resolve();
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        const now = performance.now();
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let m = /^id: (\d+)(?:\.(\d+))?$/m.exec(frame); // "n", or "n.e" after a take-back
          const data = /^data: (.*)$/m.exec(frame);
          const event = (/^event: (.*)$/m.exec(frame) || [])[1];
          // nchan's ids are its own (time:tag): the event's number is its data's "n"
          if (!m && idFromData && data) { const n = JSON.parse(data[1]).n; if (Number.isInteger(n)) m = [null, String(n)]; }
          if (!m) {
            if (data) unnumbered.push({ event, data: JSON.parse(data[1]), text: frame });
            seen();
            continue;
          }
          const id = Number(m[1]);
          const place = m[2] ? `${m[1]}.${m[2]}` : m[1]; // what Last-Event-ID sends back
          frames.push({ id, place, event, data: data ? JSON.parse(data[1]) : undefined, text: frame });
          seen();
          at.set(id, now);
          for (const r of waiting.get(id) ?? []) r(now);
          waiting.delete(id);
        }
      });
    });
    req.on('error', (e) => { if (e.code !== 'ECONNRESET') reject(e); });
  });
  return {
    ready,
    frames,
    /** When event `id` arrived (waits for it; rejects after `ms`). */
    arrival(id, ms = 30_000) {
      if (at.has(id)) return Promise.resolve(at.get(id));
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`event ${id} did not come within ${ms} ms`)), ms);
        const list = waiting.get(id) ?? [];
        list.push((v) => { clearTimeout(t); resolve(v); });
        waiting.set(id, list);
      });
    },
    unnumbered,
    /** Wait until fn(frames, unnumbered) holds (rejects after `ms`). */
    until(fn, ms = 15_000) {
      if (fn(frames, unnumbered)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`not seen within ${ms} ms: ${JSON.stringify([frames, unnumbered])}`)), ms);
        watchers.push({ fn, resolve: () => { clearTimeout(t); resolve(); } });
      });
    },
    close() { req.destroy(); },
  };
}

/** The p-th percentile (0-100) of numbers, nearest rank. */
export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : NaN;
}

/** A WebSocket follower of `url` (ws://.../games/{id}/ws; a seat by its
 * token in the Authorization header, or a spectator): the events pushed to
 * it, "turn" prompts left out. */
export function followWs(url, token) {
  const w = { msgs: [] };
  w.ready = new Promise((resolve, reject) => {
    w.ws = new WebSocket(url, [], token ? { headers: { authorization: `Bearer ${token}` } } : {});
    w.ws.on('open', resolve);
    w.ws.on('error', reject);
    w.ws.on('message', (m) => { const j = JSON.parse(m.toString()); if (j.event !== 'turn') w.msgs.push(j); });
  });
  return w;
}

/** Split a Server-Sent Events response into frames: onFrame({id, event,
 * data, ...}) for each frame with data (comments and data-less frames left
 * out; fields as sent, ids as strings: nchan's are "time:tag"). */
export function sseFrames(res, onFrame) {
  let buf = '';
  res.setEncoding('utf8');
  res.on('data', (chunk) => {
    buf += chunk;
    for (let i; (i = buf.indexOf('\n\n')) >= 0; buf = buf.slice(i + 2)) {
      const f = {};
      for (const line of buf.slice(0, i).split('\n')) {
        const c = line.indexOf(':');
        if (c > 0) f[line.slice(0, c)] = line.slice(c + 1).replace(/^ /, '');
      }
      if (f.data !== undefined) onFrame(f);
    }
  });
}
