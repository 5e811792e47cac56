#!/usr/bin/env bash
# tests/run.sh [all|unit|asan|check]: run every test suite a fresh machine
# can run, each where its axis varies (docs/testing.md: the HTTP suite whole
# against the ASan+UBSan server, its front-end files again through nginx +
# FastCGI and its store files again on PostgreSQL, tests/http/lanes.mjs), and
# end with one line "N passed, N failed" (the sum over all suites). Called by
# `make test` (all), `make unit` (the unit tests, release and ASan+UBSan
# builds), `make asan` (the ASan+UBSan unit tests and the HTTP suite against
# the ASan+UBSan server) and `make check` (the quick lane of the edit-test
# loop: the repository tests, the release unit tests beside the release HTTP
# suite, CHECK_JOBS files of it at once, default 2); BUILD is where make put
# the binaries (default build). Each suite's time is printed beside its
# tally, and the slowest and the total at the end.
set -u
cd "$(dirname "$0")/.."
what=${1:-all}
case $what in all | unit | asan | check) ;; *) echo "usage: tests/run.sh [all|unit|asan|check]" >&2; exit 2 ;; esac
B=${BUILD:-build}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p tests/out
# openapi/openapi.yaml parsed once for the whole run: tests/out/openapi.json,
# which every suite's contract check reads (tests/http/lib/openapi_doc.mjs).
node tests/http/lib/openapi_doc.mjs >/dev/null || echo "  could not write tests/out/openapi.json: each suite parses the YAML" >&2
pass=0
fail=0
skip=0
failed_suites=()

# Each suite's time: run_* set suite_t0 when it starts; tally() prints the
# seconds since and keeps them for the list at the end.
suite_t0=$SECONDS
times=()
started=$SECONDS
tally() { # name passed failed rc [seconds, when not since suite_t0]
    local name=$1 p=$2 f=$3 rc=$4 took=${5:-$((SECONDS - suite_t0))}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # crashed or leaked: count it
    pass=$((pass + p)); fail=$((fail + f))
    [ "$f" -gt 0 ] && failed_suites+=("$name")
    printf '  %-44s %4d passed, %d failed  %4ds\n' "$name" "$p" "$f" "$took"
    times+=("$took $name")
    suite_t0=$SECONDS
}

# A cmocka binary: cmocka_exec runs it into its log (its exit status and
# seconds beside, in LOG.rc); cmocka_tally reads them and tallies.
cmocka_log() { echo "tests/out/$(echo "$1" | tr ' /' '__').log"; }
cmocka_exec() { # label binary
    local log t0=$SECONDS
    log=$(cmocka_log "$1")
    "$2" >"$log" 2>&1
    echo "$? $((SECONDS - t0))" >"$log.rc"
}
cmocka_tally() { # label
    local log rc took p f
    log=$(cmocka_log "$1")
    read -r rc took <"$log.rc" 2>/dev/null || { rc=1; took=0; }
    p=$(grep -oE '\[  PASSED  \] [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    f=$(grep -oE '\[  FAILED  \] [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    [ "$rc" -ne 0 ] && tail -40 "$log"
    tally "$1" "${p:-0}" "${f:-0}" "$rc" "$took"
}
run_cmocka() { # label binary
    cmocka_exec "$1" "$2"
    cmocka_tally "$1"
}

# Unit tests beside an HTTP suite (two lanes at once: the HTTP files spend
# much of their time waiting on sockets and deadlines). units_add lists a
# binary, units_start runs the listed ones one after the other in the
# background, units_tally waits for them and prints their tallies, each
# with its own time.
bg_units=()
bg_pid=""
units_add() { # label-suffix binary...
    local sfx=$1 t
    shift
    for t in "$@"; do [ -x "$t" ] && bg_units+=("unit $(basename "$t")$sfx|$t"); done
}
units_start() {
    ( for e in "${bg_units[@]}"; do cmocka_exec "${e%%|*}" "${e#*|}"; done ) &
    bg_pid=$!
}
units_tally() {
    local e
    [ -n "$bg_pid" ] && wait "$bg_pid"
    for e in "${bg_units[@]}"; do cmocka_tally "${e%%|*}"; done
    bg_units=()
    bg_pid=""
}

run_node() { # label "dir or files" [env...]
    suite_t0=$SECONDS
    local label=$1 paths=()
    read -r -d '' -a paths <<<"$2"   # a dir, or files one a line or a space apart
    shift 2
    local log="tests/out/$(echo "$label" | tr ' /' '__').log"
    # JOBS=n before the call: n test files at once (each starts its own
    # servers on free ports and its own SQLite files); node's default on
    # 2 cores is one.
    # SUITE_TIMEOUT (s, default 1500): a suite that hangs (a child process
    # or a socket a failed test left open keeps node waiting) is stopped and
    # counted as failed, so the run still ends with its tally.
    timeout -k 20 "${SUITE_TIMEOUT:-1500}" \
        env "$@" node --test ${JOBS:+--test-concurrency="$JOBS"} --test-reporter=tap "${paths[@]}" >"$log" 2>&1
    local rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "  $label: stopped after ${SUITE_TIMEOUT:-1500} s (it hung); the last test it began:"
        grep -E '^# Subtest|^\s+# Subtest' "$log" | tail -3 | sed 's/^/    /'
        echo "# fail 1" >>"$log"
    fi
    local p f
    p=$(grep -E '^# pass [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    f=$(grep -E '^# fail [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    s=$(grep -E '^# skipped [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    skip=$((skip + ${s:-0}))
    [ "$rc" -ne 0 ] && grep -B2 -A30 -E '^not ok|^\s+not ok' "$log" | head -120
    tally "$label" "${p:-0}" "${f:-0}" "$rc"
}

run_unittest() { # label dir [env...]: python3 -m unittest over dir/test_*.py
    suite_t0=$SECONDS
    local label=$1 dir=$2; shift 2
    local log="tests/out/$(echo "$label" | tr ' /' '__').log"
    timeout -k 20 "${SUITE_TIMEOUT:-1500}" \
        env "$@" python3 -m unittest discover -s "$dir" -p 'test_*.py' -v >"$log" 2>&1
    local rc=$?
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && { echo "  $label: stopped after ${SUITE_TIMEOUT:-1500} s (it hung)"; printf "Ran 1 test\nFAILED (failures=1)\n" >>"$log"; }
    local n f e
    n=$(grep -oE '^Ran [0-9]+ test' "$log" | grep -oE '[0-9]+' | tail -1)
    f=$(grep -oE 'failures=[0-9]+' "$log" | grep -oE '[0-9]+' | tail -1)
    e=$(grep -oE 'errors=[0-9]+' "$log" | grep -oE '[0-9]+' | tail -1)
    f=$(( ${f:-0} + ${e:-0} ))
    [ "$rc" -ne 0 ] && grep -A25 -E '^(FAIL|ERROR):' "$log" | head -120
    tally "$label" "$(( ${n:-0} - f ))" "$f" "$rc"
}

# The last lines: the failing suites, the skipped tests, "N passed, N failed".
summary() {
    echo
    echo "the slowest suites (of $((SECONDS - started)) s in all):"
    printf '%s\n' "${times[@]}" | sort -rn | head -n 8 | awk '{ t = $1; $1 = ""; printf "  %5d s %s\n", t, $0 }'
    echo
    [ ${#failed_suites[@]} -gt 0 ] && echo "failing suites: ${failed_suites[*]} (logs in tests/out/)"
    [ "$skip" -gt 0 ] && echo "skipped: $skip (the reasons are in the logs in tests/out/)"
    echo "total: $((SECONDS - started)) s"
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

if [ "$what" = all ] || [ "$what" = check ]; then
    echo "the repository stands on its own (no path outside it), its docs lead somewhere, no cycles"
    run_node "repository" tests/repo
fi
if [ "$what" = check ]; then
    # The quick lane: the unit tests run beside the HTTP suite, and the HTTP
    # suite CHECK_JOBS files at once (default 2; each file its own servers
    # on free ports and its own SQLite files).
    units_add "" "$B"/tests/test_*
    units_start
    echo "HTTP tests (real server, real SQLite file, release build; the unit tests beside them)"
    JOBS=${CHECK_JOBS:-2} run_node "http" tests/http CROUPIER_BIN="$B"/croupier
    echo "unit tests (cmocka, release build)"
    units_tally
    summary
    exit
fi

if [ "$what" != all ]; then
    echo "unit tests (cmocka)"
    if [ "$what" != asan ]; then
        for t in "$B"/tests/test_*; do
            [ -x "$t" ] && run_cmocka "unit $(basename "$t")" "$t"
        done
    fi
    for t in "$B"/asan/tests/test_*; do
        [ -x "$t" ] && run_cmocka "unit $(basename "$t") [asan+ubsan]" "$t"
    done
    if [ "$what" = asan ]; then
        echo "HTTP tests against the ASan+UBSan server (real SQLite file)"
        run_node "http [asan+ubsan server]" tests/http CROUPIER_BIN="$B"/asan/croupier
    fi
    summary
    exit
fi

# The HTTP suites below write their servers' access logs and the tokens they
# were given here; tests/access-log then checks that no log holds a token.
# The whole of tests/http runs once, against the ASan+UBSan server (`make
# check` runs it against the release server), with the unit tests of both
# builds beside it (TEST_JOBS=n: n HTTP files at once; default one); the
# FastCGI and PostgreSQL passes run the files of their lane
# (tests/http/lanes.mjs, docs/testing.md).
export CROUPIER_TEST_ACCESS_LOG_DIR=$(mktemp -d /tmp/croupier-logs.XXXXXX)
units_add "" "$B"/tests/test_*
units_add " [asan+ubsan]" "$B"/asan/tests/test_*
units_start
echo "HTTP tests against the ASan+UBSan server (real SQLite file; the unit tests beside them)"
JOBS=${TEST_JOBS:-} run_node "http [asan+ubsan server]" tests/http CROUPIER_BIN="$B"/asan/croupier
echo "unit tests (cmocka, release and ASan+UBSan builds)"
units_tally

# A real PostgreSQL: a throwaway cluster in a temp dir, on its own port and
# socket (tests/http/lib/pg.mjs: run by the postgres user when we are root).
start_pg() {
    PGTMP=$(mktemp -d /tmp/croupier-pg.XXXXXX)
    PGURL=$(node tests/http/lib/pg.mjs start "$PGTMP") || return 1
    PG_STOP="node tests/http/lib/pg.mjs stop $PGTMP"
}
echo "HTTP tests of the front end through nginx + croupier fcgi (the same handlers over FastCGI)"
if [ -x /usr/sbin/nginx ]; then
    run_node "http [fastcgi via nginx: front lane]" "$(node tests/http/lanes.mjs front)" \
        CROUPIER_BIN="$B"/croupier CROUPIER_TEST_FRONT=fcgi
else
    echo "  nginx missing: run 'make deps'"; tally "http [fastcgi via nginx]" 0 1 1
fi
echo "Python client (clients/python) and the autograder kit (tests/kit), real server"
run_unittest "python: client and kit" tests/kit CROUPIER_BIN="$B"/croupier
echo "the generated suites (croupier cases --format pytest) pass tests/kit's implementation and fail its mutants"
log=tests/out/kit_mutants.log
CROUPIER_BIN="$B"/croupier python3 tests/kit/run_kit.py --n 1000 2>&1 | tee "$log" | sed 's/^/  /'
kp=$(grep -oE '^kit: [0-9]+ passed' "$log" | grep -oE '[0-9]+')
kf=$(grep -oE '^kit: [0-9]+ passed, [0-9]+ failed' "$log" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
tally "kit: suites vs implementation and mutants" "${kp:-0}" "${kf:-1}" "$([ -n "$kp" ] && echo 0 || echo 1)"
echo "access logs of the HTTP runs above hold none of their tokens"
run_node "access logs: no token" tests/access-log CROUPIER_BIN="$B"/croupier \
    CROUPIER_ACCESS_LOG_CHECK_DIR="$CROUPIER_TEST_ACCESS_LOG_DIR"
rm -rf "$CROUPIER_TEST_ACCESS_LOG_DIR"
unset CROUPIER_TEST_ACCESS_LOG_DIR

# Whole games through a real server and its store (tests/soak: 200 of each
# game here, 50 in the PostgreSQL pass below, where only the store differs;
# `make soak` is the long run).
echo "whole-game soak (real server, real SQLite file)"
run_node "soak" tests/soak CROUPIER_BIN="$B"/croupier

trap '[ -n "${PG_STOP:-}" ] && $PG_STOP >/dev/null 2>&1' EXIT
echo "HTTP tests of the store against PostgreSQL (a real cluster started here)"
if start_pg; then
    export CROUPIER_TEST_PG_URL="$PGURL"
    run_cmocka "unit test_store_pg [postgres]" "$B"/tests/test_store_pg
    run_cmocka "unit test_store_pg [postgres, asan+ubsan]" "$B"/asan/tests/test_store_pg
    unset CROUPIER_TEST_PG_URL
    run_node "http [postgres store: store lane]" "$(node tests/http/lanes.mjs store)" \
        CROUPIER_BIN="$B"/croupier CROUPIER_TEST_STORE="$PGURL"
    run_node "soak [postgres store]" tests/soak CROUPIER_BIN="$B"/croupier CROUPIER_TEST_STORE="$PGURL" \
        SOAK_GAMES_PER_GAME=50 SOAK_FULL_PER_GAME=1
    $PG_STOP >/dev/null 2>&1
    PG_STOP=""
    rm -rf "$PGTMP"
else
    echo "  could not start PostgreSQL: run 'make deps'"; tally "http [postgres store]" 0 1 1
    [ -n "${PG_STOP:-}" ] && $PG_STOP >/dev/null 2>&1
fi

# PostgreSQL stopped under the server: frozen (SIGSTOP), restarted -m
# immediate under write load (tests/pg: each test runs a cluster of its own).
echo "PostgreSQL stopped, frozen and restarted under a running server"
run_node "postgres [frozen, restarted]" tests/pg CROUPIER_BIN=build/croupier

# croupier itself killed (SIGKILL) under keyed writes and started again, on
# SQLite and PostgreSQL, and who may take over an Idempotency-Key's claim
# (tests/faults: each test runs a store of its own).
echo "faults: the server killed under keyed writes; claims of stopped and far servers"
run_node "faults [kill, claims]" tests/faults CROUPIER_BIN="$B"/croupier

# Crowds (release build only; each bounded in count and time, 127.0.0.1 only,
# one after the other so that they do not skew each other's latencies): 256
# hostile connections against croupier serve's default budget, /healthz p99
# under 100 ms; the quotas against one address that floods, others served
# (source addresses across 127.0.0.0/8); 2,000 slow connections against
# nginx + croupier fcgi.
echo "crowds: the embedded server's connection budget, and nginx + FastCGI"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
run_node "crowd [civetweb, 256 hostile]" tests/crowd/civetweb.test.mjs CROUPIER_BIN="$B"/croupier
run_node "crowd [quotas: one address floods, others served]" tests/crowd/quota.test.mjs CROUPIER_BIN="$B"/croupier
if [ -x /usr/sbin/nginx ]; then
    run_node "crowd [nginx + fastcgi, 2000 slow]" tests/crowd/fastcgi.test.mjs CROUPIER_BIN="$B"/croupier
else
    echo "  nginx missing: run 'make deps'"; tally "crowd [nginx + fastcgi]" 0 1 1
fi

echo "fuzz smoke (libFuzzer + ASan + UBSan over api_handle, fixed seed)"
if [ -x "$B"/fuzz/fuzz_api ]; then
    fz=$(mktemp -d)
    if "$B"/fuzz/fuzz_api -runs=4000 -seed=1 -max_len=16384 -timeout=10 "$fz" tests/fuzz/corpus \
        >tests/out/fuzz.log 2>&1; then
        tally "fuzz smoke (4000 inputs)" 1 0 0
    else
        tail -30 tests/out/fuzz.log; tally "fuzz smoke (4000 inputs)" 0 1 1
    fi
    rm -rf "$fz"
else
    tally "fuzz smoke (fuzzer not built)" 0 1 1
fi

if [ -d tests/cli ]; then
    echo "command-line tests"
    run_node "cli" tests/cli CROUPIER_BIN="$B"/croupier
fi

# The SQLite store on a small tmpfs that fills under write load (needs root
# to mount it: skipped with the reason otherwise, counted under "skipped").
echo "a full disk: writes refused and said, room freed, writes back (tests/disk)"
run_node "disk [full, release]" tests/disk CROUPIER_BIN="$B"/croupier
run_node "disk [full, asan+ubsan server]" tests/disk CROUPIER_BIN="$B"/asan/croupier

if [ -d tests/browser ]; then
    echo "browser tests (headless Chromium)"
    if [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
        run_node "browser" tests/browser CROUPIER_BIN="$B"/croupier
    else
        echo "  chromium missing: run 'make deps'"; tally "browser (chromium missing)" 0 1 1
    fi
fi

summary
