// stalled.mjs: followers that never read (tests/http/slow_followers.test.mjs,
// nchan_slow.test.mjs): n connections to 127.0.0.1:port on sockets that take
// 4 KiB (SO_RCVBUF: one Python process holds them all, as Node cannot set
// it), even ones an SSE request of ssePath, odd ones a WebSocket upgrade of
// wsPath; none reads a byte until the process is killed.
//
//   const crowd = await stalledFollowers(port, 100, `/games/${id}/events`, `/games/${id}/ws`);
//   ...
//   crowd.kill('SIGKILL');
import { spawn } from 'node:child_process';

const SCRIPT = `
import base64, os, socket, sys
port, n, sse, ws = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
socks = []
for i in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(('127.0.0.1', port))
    if i % 2:
        head = 'GET %s HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Version: 13\\r\\nSec-WebSocket-Key: %s\\r\\n\\r\\n' % (ws, base64.b64encode(os.urandom(16)).decode())
    else:
        head = 'GET %s HTTP/1.1\\r\\nHost: x\\r\\nAccept: text/event-stream\\r\\n\\r\\n' % sse
    s.sendall(head.encode())
    socks.append(s)
print('connected', flush=True)
sys.stdin.read()  # never reads the sockets; ends with the test (or its kill)
`;

/** Resolves, once every connection is made, to the child process. */
export function stalledFollowers(port, n, ssePath, wsPath = ssePath) {
  const child = spawn('python3', ['-c', SCRIPT, String(port), String(n), ssePath, wsPath], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the stalled followers exited (${code})`)));
  });
}
