#!/usr/bin/env bash
# tests/bench.sh (`make bench`): throughput figures, never pass/fail.
# Each figure is the median of several runs; ratios compare figures taken in
# the same run. Uses wrk (Debian package, installed if missing) for HTTP.
set -eu
cd "$(dirname "$0")/.."
BIN=build/croupier
RUNS=${RUNS:-5}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

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

if ! command -v wrk >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get install -y -q wrk >/dev/null 2>&1 || { echo "wrk unavailable: HTTP figures skipped"; exit 0; }
fi
tmp=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
$BIN serve --listen 127.0.0.1:0 --store "sqlite:$tmp/bench.db" --threads 4 >"$tmp/out" 2>&1 &
pid=$!
for _ in $(seq 50); do grep -q listening "$tmp/out" && break; sleep 0.1; done
url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$tmp/out")

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
id=$(curl -s "$url/games" -d '{"game":"comp10001bo","seed":1,"players":[{"name":"a"},{"bot":"random"},{"bot":"random"},{"bot":"random"}]}' |
     sed -n 's/^{"id":"\([^"]*\)".*/\1/p')

rps() { # label wrk-args...
    local label=$1; shift
    local r
    r=$(for i in $(seq 3); do wrk -t2 -c16 -d3s "$@" 2>/dev/null | awk '/Requests\/sec/ {print $2}'; done | median)
    printf '  %-40s %10s req/s\n' "$label" "$r" >&2
    echo "$r"
}
echo "== HTTP (wrk -t2 -c16 -d3s, keep-alive, median of 3)"
h=$(rps "GET /healthz" "$url/healthz" )
v=$(rps "POST /validate/comp10001bo/is_valid_play" -s "$tmp/valid.lua" "$url/validate/comp10001bo/is_valid_play" )
g=$(rps "GET /games/{id} (SQLite read)" "$url/games/$id" )
c=$(rps "POST /games, 4 planner bots to the end" -s "$tmp/create.lua" "$url/games" )
awk -v h="$h" -v v="$v" -v g="$g" -v c="$c" 'BEGIN {
  printf "  ratios to /healthz: is_valid_play %.2f, GET game %.2f, full bot game %.3f\n", v/h, g/h, c/h }'
