// stalled.mjs: followers that never read (tests/http/slow_followers.test.mjs,
// nchan_slow.test.mjs, tests/bench/crowd.mjs): n connections to
// 127.0.0.1:port on sockets that take 4 KiB (SO_RCVBUF: one Python process
// holds them all, as Node cannot set it), even ones an SSE request of
// ssePath, odd ones a WebSocket upgrade of wsPath (a list of paths: the
// connections go round it); none reads a byte until the process is killed.
// closed(child) asks, without reading, how many the server has closed and
// when (poll's POLLRDHUP: the peer's FIN, or a reset, seen on a socket whose
// data stays unread).
//
//   const crowd = await stalledFollowers(port, 100, `/games/${id}/events`, `/games/${id}/ws`);
//   const { count, at, ws, ports } = await closed(crowd); // at: seconds from the connect, each;
//                                  // ws: how many were WebSockets; ports: the connections' own
//   ...
//   crowd.kill('SIGKILL');
import { spawn } from 'node:child_process';

const SCRIPT = `
import base64, json, os, select, socket, sys, threading, time
port, n, sse, ws = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(' '), sys.argv[4].split(' ')
socks, since, shut = [], [], {}
for i in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(('127.0.0.1', port))
    if i % 2:
        head = 'GET %s HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Version: 13\\r\\nSec-WebSocket-Key: %s\\r\\n\\r\\n' % (ws[i // 2 % len(ws)], base64.b64encode(os.urandom(16)).decode())
    else:
        head = 'GET %s HTTP/1.1\\r\\nHost: x\\r\\nAccept: text/event-stream\\r\\n\\r\\n' % sse[i // 2 % len(sse)]
    s.sendall(head.encode())
    socks.append(s)
    since.append(time.monotonic())
def watch():
    p = select.poll()
    for s in socks:
        p.register(s, select.POLLRDHUP)
    fds = {s.fileno(): i for i, s in enumerate(socks)}
    while len(shut) < n:
        for fd, ev in p.poll(100):
            if ev & (select.POLLRDHUP | select.POLLHUP | select.POLLERR):
                i = fds[fd]
                shut.setdefault(i, time.monotonic() - since[i])
                p.unregister(fd)
threading.Thread(target=watch, daemon=True).start()
print('connected', flush=True)
for line in sys.stdin:  # never reads the sockets; ends with the test (or its kill)
    at = sorted(shut.values())
    print(json.dumps({'count': len(at), 'at': at, 'ws': sum(i % 2 for i in shut), 'ports': [s.getsockname()[1] for s in socks]}), flush=True)
`;

/** Resolves, once every connection is made, to the child process. */
export function stalledFollowers(port, n, ssePath, wsPath = ssePath) {
  const list = (x) => (Array.isArray(x) ? x : [x]).join(' ');
  const child = spawn('python3', ['-c', SCRIPT, String(port), String(n), list(ssePath), list(wsPath)], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the stalled followers exited (${code})`)));
  });
}

/** How many of child's connections the server has closed: {count, at, ws,
 *  ports} (at: each one's seconds from its connect to the close, sorted; ws:
 *  how many of them were the WebSocket ones; ports: each connection's local
 *  port, to find its other end in /proc/net/tcp). */
export function closed(child) {
  return new Promise((resolve) => {
    child.stdout.once('data', (d) => resolve(JSON.parse(String(d).trim().split('\n').at(-1))));
    child.stdin.write('?\n');
  });
}
