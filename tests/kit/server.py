"""server.py: one real croupier server for a Python test, on a free
loopback port with a fresh SQLite file (as tests/http/lib/server.mjs does
for the node suites).

    with Server() as srv:        # CROUPIER_BIN, default build/croupier
        srv.url                  # http://127.0.0.1:PORT

With CROUPIER_TEST_ACCESS_LOG_DIR=DIR (tests/run.sh) the server writes its
access log into DIR and note_tokens() lists the tokens a test was given in
DIR/tokens-*.txt, so that tests/access-log can check that no log holds one.
"""

import os
import re
import shutil
import subprocess
import tempfile
import threading

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LOG_DIR = os.environ.get("CROUPIER_TEST_ACCESS_LOG_DIR", "")


def binary():
    return os.path.join(ROOT, os.environ.get("CROUPIER_BIN", "build/croupier"))


def note_tokens(*tokens):
    tokens = [t for t in tokens if isinstance(t, str) and t]
    if LOG_DIR and tokens:
        with open(os.path.join(LOG_DIR, f"tokens-python-{os.getpid()}.txt"), "a") as f:
            f.writelines(t + "\n" for t in tokens)


class Server:
    def __init__(self, *extra):
        self.extra = list(extra)
        self.url = None

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="croupier-py-")
        args = [binary(), "serve", "--listen", "127.0.0.1:0", "--store", f"sqlite:{self.dir}/t.db", *self.extra]
        if LOG_DIR:
            args += ["--access-log", os.path.join(LOG_DIR, f"python-{os.getpid()}-{id(self)}.log")]
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        found = []

        def read():
            for line in self.proc.stdout:
                m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
                if m and not found:
                    found.append(m.group(1))
                    ready.set()
            ready.set()

        ready = threading.Event()
        threading.Thread(target=read, daemon=True).start()
        ready.wait(10)
        if not found:
            self.__exit__(None, None, None)
            raise RuntimeError(f"croupier did not start: {self.proc.stderr.read() if self.proc.poll() is not None else 'no answer in 10 s'}")
        self.url = found[0]
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            f.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        return False
