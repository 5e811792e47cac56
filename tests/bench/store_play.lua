-- tests/bench/store_play.lua: wrk drives stored plays (target (A);
-- run by tests/bench.sh, section "store"):
--
--   wrk -t2 -c2 -d5s -s tests/bench/store_play.lua http://127.0.0.1:PORT
--
-- Every connection (one per wrk thread: -t and -c equal) plays a person's
-- seat of a 2-player Hanabi game against the "rules" bot, POSTing its plays
-- back to back: {"type":"discard","card":0} while a hint token is spent
-- (always legal then), {"type":"play","card":0} with all 8 in hand (always
-- legal; a wrong card costs a fuse). The answer says how the game stands:
-- its "version" goes into the next If-Match, its "hints" picks the next
-- play, and when it is "over" (or a play is refused) the next request
-- creates a new game. Each answer's "applied" holds the person's play and
-- every bot play that followed: their count is the plays stored.
--
-- done() prints one line of figures:
--   store_play: seconds=S requests=N plays=N creates=N create_plays=N errors=N
--               requests_per_s=X plays_per_s=X plays_per_request=X mean_us=N p50_us=N p99_us=N
-- (requests and plays: POST /games/{id}/plays answered 200 and what they
-- stored; creates: POST /games, whose bot plays are create_plays; errors:
-- any other answer; latencies over every request), then the probe: one line
--   store_play_slow: at_ms=T ms=D conn=K kind=play|create
-- per request slower than SLOW_MS (10; the environment's STORE_SLOW_MS),
-- T the wall clock (ms since the epoch) when its answer came, K the wrk
-- thread (one connection each), so that stalls of all connections at once
-- show as lines with the same T. The clock is read through LuaJIT's FFI
-- (clock_gettime), which wrk's Lua is.

local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } store_play_ts;
int clock_gettime(int clk, store_play_ts *ts);
]]
local ts = ffi.new("store_play_ts")
local function now_ms() -- CLOCK_REALTIME, to line up with other logs
    ffi.C.clock_gettime(0, ts)
    return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end
local SLOW_MS = tonumber(os.getenv("STORE_SLOW_MS") or "") or 10

local create_body = '{"game":"hanabi","players":[{"name":"bench"},{"bot":"rules"}]}'
local play_discard = '{"play":{"type":"discard","card":0}}'
local play_card = '{"play":{"type":"play","card":0}}'

-- per thread (every wrk thread has its own Lua state)
local id, token, version, hints, over = nil, nil, 1, 8, true
local creating = false
requests, plays, creates, create_plays, errors = 0, 0, 0, 0, 0
slow = "" -- the probe's lines of this thread
local sent_at, conn_no = 0, 0

-- The answer is read with plain finds from known places (the driver's own
-- CPU per request is part of what this measures: Lua patterns over the
-- whole 2 KB answer cost it more than the server's JSON writing).
local function count_applied(body)
    local a = body:find('"applied":[', 1, true)
    local z = a and body:find('],"state":', a, true)
    if not z then return 0 end
    local k, at = 0, a
    while true do
        at = body:find('{"n":', at, true)
        if not at or at > z then break end
        k = k + 1
        at = at + 5
    end
    return k
end

local function read_state(body)
    local v = body:match('^{"version":(%d+)') or body:match('"version":(%d+)')
    version = tonumber(v) or version
    local s = body:find('"state":{', 1, true) or 1
    local h = body:find('"hints":', s, true)
    if h then hints = tonumber(body:match('^%d+', h + 8)) or hints end
    over = body:find('"over":true', s, true) ~= nil
end

-- STORE_PLAY_PATH (the environment): GET that path instead, every request
-- (the same driver and probe on a request that stores nothing: the
-- machine's own tail, beside the store's)
local get_path = os.getenv("STORE_PLAY_PATH")

request = function()
    sent_at = now_ms()
    if get_path then
        creating = false
        return wrk.format("GET", get_path)
    end
    if id == nil or over then
        creating = true
        return wrk.format("POST", "/games", { ["Content-Type"] = "application/json" }, create_body)
    end
    creating = false
    local body = (hints < 8) and play_discard or play_card
    return wrk.format("POST", "/games/" .. id .. "/plays", {
        ["Content-Type"] = "application/json",
        ["Authorization"] = "Bearer " .. token,
        ["If-Match"] = '"' .. version .. '"',
    }, body)
end

response = function(status, headers, body)
    local at = now_ms()
    if at - sent_at > SLOW_MS then
        slow = slow .. string.format("store_play_slow: at_ms=%.1f ms=%.2f conn=%d kind=%s\n",
            at, at - sent_at, conn_no, creating and "create" or "play")
    end
    if creating then
        if status == 201 then
            creates = creates + 1
            create_plays = create_plays + count_applied(body)
            id = body:match('"id":"([^"]+)"')
            token = body:match('"token":"([^"]+)"')
            read_state(body)
        else
            errors = errors + 1
            id = nil
        end
    elseif status == 200 and get_path then
        requests = requests + 1
    elseif status == 200 then
        requests = requests + 1
        plays = plays + count_applied(body)
        read_state(body)
    else
        errors = errors + 1
        over = true -- start again with a new game
    end
end

local threads = {}
setup = function(thread)
    table.insert(threads, thread)
    thread:set("conn_no", #threads)
end

init = function()
    conn_no = _G.conn_no or 0
end

done = function(summary, latency, _)
    local r, p, c, cp, e = 0, 0, 0, 0, 0
    for _, t in ipairs(threads) do
        r = r + t:get("requests")
        p = p + t:get("plays")
        c = c + t:get("creates")
        cp = cp + t:get("create_plays")
        e = e + t:get("errors")
    end
    local s = summary.duration / 1e6
    io.write(string.format(
        "store_play: seconds=%.3f requests=%d plays=%d creates=%d create_plays=%d errors=%d " ..
        "requests_per_s=%.1f plays_per_s=%.1f plays_per_request=%.3f mean_us=%d p50_us=%d p99_us=%d\n",
        s, r, p, c, cp, e, r / s, p / s, (r > 0) and p / r or 0,
        latency.mean, latency:percentile(50), latency:percentile(99)))
    for _, t in ipairs(threads) do
        io.write(t:get("slow"))
    end
end
