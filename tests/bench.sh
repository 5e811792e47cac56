#!/usr/bin/env bash
# tests/bench.sh (`make bench`): throughput figures, never pass/fail.
#
# 1. engine: selfplay games per second, median of $RUNS runs.
# 2. HTTP: croupier serve beside a bare civetweb server (build/bench/anchor,
#    tests/bench/anchor.c: croupier's civetweb options, one JSON answer per
#    request) in the same run, under wrk -t2 --latency at each of $CONNS
#    connections; runs of the two servers alternate so both meet the same
#    machine. Prints req/s of both, their ratio against the targets
#    (/healthz >= 0.9 of bare, is_valid_play >= 0.8), p50/p99 latency,
#    non-2xx answers, wrk's socket errors (connect/read/write/timeout) and
#    starved connections (open a second with no answer: wrk cannot see
#    those, the kernel's socket table can), then a few croupier-only
#    figures and both servers' RSS.
#
# Knobs (environment): RUNS=5 engine runs; HTTP_RUNS=3 wrk runs per figure;
# DURATION=5 seconds per wrk run; CONNS="32 256"; THREADS=server threads for
# both servers (default: croupier serve's default, or the largest of CONNS
# if that is more, since civetweb gives every keep-alive connection a worker
# thread of its own); STARVE_MS=1000; BENCH=all|engine|http.
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
HTTP_RUNS=${HTTP_RUNS:-3}
DURATION=${DURATION:-5}
CONNS=${CONNS:-"32 256"}
BENCH=${BENCH:-all}
RSS_TARGET_KB=$((50 * 1024))

tmp=$(mktemp -d)
cpid=""; apid=""
cleanup() {
    for p in $cpid $apid; do kill "$p" 2>/dev/null || true; done
    for p in $cpid $apid; do wait "$p" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
# run copies, so that a rebuild of build/ during the bench (someone else's
# make) neither breaks a run nor mixes two builds in one table
BIN=$tmp/croupier ANCHOR=$tmp/anchor
cp build/croupier "$BIN"
[ -x build/bench/anchor ] && cp build/bench/anchor "$ANCHOR"

# server threads: croupier serve's default (what a user meets), raised to the
# most connections measured when it is fewer (civetweb serves a connection
# with one worker for its whole keep-alive life: fewer would starve some)
maxc=0
for c in $CONNS; do [ "$c" -gt "$maxc" ] && maxc=$c; done
DEFAULT_THREADS=$($BIN serve --help 2>/dev/null | sed -n 's/.*--threads N.*(default \([0-9]*\).*/\1/p')
DEFAULT_THREADS=${DEFAULT_THREADS:-0}
if [ -z "${THREADS:-}" ]; then
    THREADS=$DEFAULT_THREADS
    [ "$THREADS" -ge "$maxc" ] || THREADS=$maxc
fi

median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print 0; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
sum() { awk '{s+=$1} END {print s+0}'; }

state=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ "$state" != unknown ] && ! git diff --quiet HEAD -- api cli engine 2>/dev/null; then
    state="$state + uncommitted changes in api/ cli/ engine/"
fi
echo "croupier bench: $state (build/croupier of $(date -u -r build/croupier '+%H:%M:%S UTC')); $(nproc) cores; $(date -u '+%Y-%m-%d %H:%M UTC')"

if [ "$BENCH" != http ]; then
echo "== engine: selfplay games per second (median of $RUNS runs)"
# game bots games: the strongest strategy and random, for every game
while read -r game bots n; do
    rate=$(for i in $(seq "$RUNS"); do
        $BIN selfplay --game "$game" --bots "$bots" --games "$n" --seed 1 --quiet |
            sed -n 's/.*(\([0-9.]*\) games\/s).*/\1/p'
    done | median)
    printf '  %-12s %-10s %10s games/s\n' "$game" "$bots" "$rate"
done <<'LIST'
comp10001bo planner 400
comp10001bo random 400
hanabi rules 400
hanabi random 400
phazed planner 100
phazed random 100
fivecrowns strategy 100
fivecrowns random 100
LIST
fi
[ "$BENCH" = engine ] && exit 0

if ! command -v wrk >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get install -y -q wrk >/dev/null 2>&1 || { echo "wrk unavailable: HTTP figures skipped"; exit 0; }
fi
if [ ! -x "$ANCHOR" ]; then
    echo "build/bench/anchor missing (make bench builds it): HTTP figures skipped"; exit 0
fi

# wait_url FILE: the http://host:port a server printed on its first line
wait_url() {
    for _ in $(seq 100); do grep -q listening "$1" && break; sleep 0.05; done
    sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$1"
}
$BIN serve --listen 127.0.0.1:0 --store "sqlite:$tmp/bench.db" --threads "$THREADS" >"$tmp/croupier.out" 2>&1 &
cpid=$!
$ANCHOR --listen 127.0.0.1:0 --threads "$THREADS" >"$tmp/anchor.out" 2>&1 &
apid=$!
curl_url=$(wait_url "$tmp/croupier.out")
bare_url=$(wait_url "$tmp/anchor.out")
if [ -z "$curl_url" ] || [ -z "$bare_url" ]; then
    echo "a server did not start: HTTP figures skipped"
    cat "$tmp/croupier.out" "$tmp/anchor.out"
    exit 0
fi

cat >"$tmp/valid.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '[[0,"2C",[0,0]],0,["2C","AS","9D","0D","0S"],[["9C",8],["0D",8],["3H",8],["KD",8]],[[[],[],[],[]],[[],[],[],[]],[[],[],[],[]],[[],[],[],[]]],[[],[],[],[]]]'
LUA
cat >"$tmp/create.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"game":"comp10001bo","players":[{"bot":"planner"},{"bot":"planner"},{"bot":"planner"},{"bot":"planner"}]}'
LUA
command -v ss >/dev/null 2>&1 ||
    echo "  WARNING: ss (iproute2) missing: starved connections cannot be counted (make bench installs it)"
# the answers the figures stand for: a wrong one would make a fast figure meaningless
for u in "$curl_url" "$bare_url"; do
    curl -s "$u/healthz" | grep -q '"status":"ok"' || echo "  WARNING: $u/healthz does not answer ok"
    curl -s "$u/validate/comp10001bo/is_valid_play" -H 'Content-Type: application/json' \
        -d "$(sed -n "s/^wrk.body = '\(.*\)'$/\1/p" "$tmp/valid.lua")" | grep -q '"result":1' ||
        echo "  WARNING: $u/validate/comp10001bo/is_valid_play does not answer {\"result\":1}"
done

# kb PID FIELD: a /proc/PID/status figure in kB (0 when gone)
kb() { cat "/proc/$1/status" 2>/dev/null | awk -v f="$2:" '$1 == f {v = $2} END {print v + 0}'; }
rss0_c=$(kb "$cpid" VmRSS) rss0_b=$(kb "$apid" VmRSS)

# starved PORT: how many of the client's connections to PORT have had no
# answer at all, though open for STARVE_MS or more. wrk itself never notices a
# connection that no server thread picks up (it counts a timeout only when an
# answer finally comes), so the kernel's view of each socket is read while wrk
# runs: ss prints bytes_received only once some arrived, and lastrcv (ms
# since the last data, or since the connection was made) always.
STARVE_MS=${STARVE_MS:-1000}
starved() {
    ss -Htni state established "( dport = :$1 )" 2>/dev/null |
        awk -v lim="$STARVE_MS" '
        /^[ \t]/ && !/bytes_received:/ && match($0, /lastrcv:[0-9]+/) &&
            substr($0, RSTART + 8, RLENGTH - 8) + 0 >= lim { s++ }
        END { print s + 0 }'
}

# wrk_once CONNS OUTFILE PORT wrk-args...: one run; prints
# "req/s p50_ms p99_ms non2xx errors starved"
# (errors: wrk's connect+read+write errors and timeouts, a timeout being an
# answer later than 2 s; starved: connections open for STARVE_MS with no
# answer yet, sampled a second before the run ends)
wrk_once() {
    local c=$1 out=$2 port=$3 w s=0 at; shift 3
    wrk -t2 -c"$c" -d"${DURATION}s" --latency "$@" >"$out" 2>&1 &
    w=$!
    at=$(awk -v d="$DURATION" 'BEGIN { print (d > 2) ? d - 1 : d / 2 }')
    sleep "$at"
    command -v ss >/dev/null 2>&1 && s=$(starved "$port")
    wait "$w" || true
    awk -v starved="$s" '
    function ms(v) {
        if (v ~ /us$/) return v * 0.001
        if (v ~ /ms$/) return v + 0
        if (v ~ /[0-9]s$/) return v * 1000
        if (v ~ /[0-9]m$/) return v * 60000
        if (v ~ /[0-9]h$/) return v * 3600000
        return v + 0
    }
    /Requests\/sec/ { rps = $2 }
    /^ +50% / { p50 = ms($2) }
    /^ +99% / { p99 = ms($2) }
    /Non-2xx or 3xx responses/ { non = $NF }
    /Socket errors/ { gsub(",", ""); err = $4 + $6 + $8 + $10 }
    END { printf "%s %.3f %.3f %d %d %d\n", rps + 0, p50, p99, non, err, starved }' "$out"
}

# note LABEL WRKOUT RESULT: keep wrk's own words about a run that had
# errors or starved connections, printed under the table
note() {
    set -- "$1" "$2" $3
    if [ "$7" -gt 0 ] || [ "$8" -gt 0 ]; then
        local e
        e=$(sed -n 's/^ *Socket errors: //p' "$2")
        printf '    %s: wrk socket errors: %s; starved: %s\n' "$1" "${e:-none}" "$8" >>"$tmp/notes"
    fi
    return 0
}

ms_fmt() { awk -v v="$1" 'BEGIN { if (v >= 100) printf "%.0fms", v; else if (v >= 1) printf "%.2fms", v; else printf "%.0fus", v * 1000 }'; }

echo
echo "== HTTP: croupier vs bare civetweb (anchor), wrk -t2 --latency, ${DURATION}s runs, median of $HTTP_RUNS, alternating"
echo "   server threads: $THREADS for both (croupier serve --threads $THREADS, anchor --threads $THREADS;"
echo "   croupier serve's default: $DEFAULT_THREADS)"
for c in $CONNS; do
    if [ "$THREADS" -lt "$c" ]; then
        echo "   NOTE: $THREADS threads < $c connections: civetweb gives each keep-alive connection a"
        echo "         worker for its whole life, so $((c - THREADS)) connections wait: expect them as 'starved'"
    fi
done
EPS="healthz validate"
for ep in $EPS; do
    case $ep in
    healthz) path=/healthz; args=() ;;
    validate) path=/validate/comp10001bo/is_valid_play; args=(-s "$tmp/valid.lua") ;;
    esac
    for c in $CONNS; do
        for i in $(seq "$HTTP_RUNS"); do
            # alternate which server goes first, so neither always meets a warmer machine
            if [ $((i % 2)) -eq 1 ]; then order="croupier bare"; else order="bare croupier"; fi
            for s in $order; do
                if [ "$s" = croupier ]; then u=$curl_url; else u=$bare_url; fi
                out=$tmp/wrk.$ep.$c.$s.$i
                wrk_once "$c" "$out" "${u##*:}" "${args[@]}" "$u$path" >>"$tmp/res.$ep.$c.$s"
                note "$s $path -c$c run $i" "$out" "$(tail -n 1 "$tmp/res.$ep.$c.$s")"
            done
        done
    done
done

# col FILE N: the median of column N over the runs; tot: its sum; top: its largest
col() { awk -v n="$2" '{print $n}' "$1" | median; }
tot() { awk -v n="$2" '{print $n}' "$1" | sum; }
top() { awk -v n="$2" '$n > m {m = $n} END {print m + 0}' "$1"; }
printf '\n  %-40s %5s %10s %10s %5s %-12s %-15s %-15s %-7s %-7s %-7s\n' \
    endpoint conns croupier/s bare/s ratio target "p50 crp|bare" "p99 crp|bare" non-2xx errors starved
starved_any=0
for ep in $EPS; do
    case $ep in
    healthz) label="GET /healthz"; target=0.9 ;;
    validate) label="POST /validate/comp10001bo/is_valid_play"; target=0.8 ;;
    esac
    for c in $CONNS; do
        fc=$tmp/res.$ep.$c.croupier fb=$tmp/res.$ep.$c.bare
        cr=$(col "$fc" 1) br=$(col "$fb" 1)
        ratio=$(awk -v a="$cr" -v b="$br" 'BEGIN { r = (b > 0) ? a / b : 0; printf "%.2f", r }')
        mark=$(awk -v r="$ratio" -v t="$target" 'BEGIN { m = (r + 0 >= t + 0) ? "PASS" : "BELOW"; print m }')
        sc=$(top "$fc" 6) sb=$(top "$fb" 6)
        [ $((sc + sb)) -gt 0 ] && starved_any=1
        printf '  %-40s %5s %10.0f %10.0f %5s %-12s %-15s %-15s %-7s %-7s %-7s\n' \
            "$label" "$c" "$cr" "$br" "$ratio" ">=$target $mark" \
            "$(ms_fmt "$(col "$fc" 2)")|$(ms_fmt "$(col "$fb" 2)")" \
            "$(ms_fmt "$(col "$fc" 3)")|$(ms_fmt "$(col "$fb" 3)")" \
            "$(tot "$fc" 4)|$(tot "$fb" 4)" "$(tot "$fc" 5)|$(tot "$fb" 5)" "$sc|$sb"
    done
done
echo "  req/s, p50, p99: medians of $HTTP_RUNS runs. croupier|bare: non-2xx answers and wrk socket errors"
echo "  (connect/read/write, timeout = an answer after 2 s) summed over the runs; starved: most connections"
echo "  seen in one run open for ${STARVE_MS} ms without any answer yet (the kernel's sockets, near the run's end)."
if [ "$starved_any" = 1 ]; then
    echo "  WARNING: connections were starved: those rows' req/s come from fewer live connections than shown"
fi
if [ -s "$tmp/notes" ]; then
    echo "  runs with errors or starved connections:"
    cat "$tmp/notes"
fi

rss1_c=$(kb "$cpid" VmRSS)

# croupier alone, for scale: a store read and a full bot game per request
id=$(curl -s "$curl_url/games" -H "Content-Type: application/json" -d '{"game":"comp10001bo","seed":1,"players":[{"name":"a"},{"bot":"random"},{"bot":"random"},{"bot":"random"}]}' |
     sed -n 's/^{"id":"\([^"]*\)".*/\1/p')
c0=${CONNS%% *}
h=$(col "$tmp/res.healthz.$c0.croupier" 1)
echo
echo "== HTTP: croupier alone, wrk -t2 -c$c0 ${DURATION}s, median of $HTTP_RUNS"
alone() { # label wrk-args...
    local label=$1 f=$tmp/alone.$RANDOM r; shift
    for i in $(seq "$HTTP_RUNS"); do wrk_once "$c0" "$f.$i" "${curl_url##*:}" "$@"; done >"$f"
    r=$(col "$f" 1)
    printf '  %-40s %8.1f req/s %6.3f of /healthz  p50 %s  p99 %s  non-2xx %s  errors %s  starved %s\n' \
        "$label" "$r" "$(awk -v a="$r" -v b="$h" 'BEGIN { r = (b > 0) ? a / b : 0; printf "%.3f", r }')" \
        "$(ms_fmt "$(col "$f" 2)")" "$(ms_fmt "$(col "$f" 3)")" "$(tot "$f" 4)" "$(tot "$f" 5)" "$(top "$f" 6)"
}
if [ -n "$id" ]; then
    alone "GET /games/{id} (SQLite read)" "$curl_url/games/$id"
else
    echo "  GET /games/{id}: could not create a game, skipped"
fi
alone "POST /games, 4 planner bots to the end" -s "$tmp/create.lua" "$curl_url/games"

echo
echo "== memory after the bench (VmRSS; peak VmHWM; target: croupier under 50 MB)"
for s in croupier bare; do
    if [ "$s" = croupier ]; then p=$cpid r0=$rss0_c; else p=$apid r0=$rss0_b; fi
    after=""
    [ "$s" = croupier ] && after=$(awk -v k="$rss1_c" 'BEGIN { printf ", %.1f MB after the comparison", k / 1024 }')
    rss=$(kb "$p" VmRSS)
    mark=""
    if [ "$s" = croupier ]; then
        if [ "$rss" -gt 0 ] && [ "$rss" -lt "$RSS_TARGET_KB" ]; then mark="  PASS (< 50 MB)"; else mark="  ABOVE 50 MB"; fi
    fi
    printf '  %-9s RSS %5.1f MB%s  (%.1f MB at start%s; peak %.1f MB; %s threads)\n' "$s" \
        "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$mark" "$(awk -v k="$r0" 'BEGIN { print k / 1024 }')" \
        "$after" "$(awk -v k="$(kb "$p" VmHWM)" 'BEGIN { print k / 1024 }')" "$(kb "$p" Threads)"
done
