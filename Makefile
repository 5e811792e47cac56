# Croupier: build, test, run, bench, deps.
#   make run     build and serve on http://127.0.0.1:8080 (SQLite store croupier.db)
#   make test    every test (unit, HTTP, under ASan+UBSan too); ends "N passed, N failed"
#   make deps    install the Debian packages and npm test tooling that are missing

CC      ?= cc
CSTD    := -std=c11 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) -Iengine -Iapi -I/usr/include/postgresql -MMD -MP
LDLIBS  := -lcivetweb -lwslay -lfcgi -ljansson -lsqlite3 -lpq -lyaml -lcrypto -lxxhash -llz4 -lpthread -lm
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

ENGINE_SRC := $(wildcard engine/core/*.c) $(wildcard engine/*.c) $(wildcard engine/*/*.c)
ENGINE_SRC := $(filter-out engine/core/%_test.c,$(ENGINE_SRC))
API_SRC    := $(wildcard api/*.c)
CLI_SRC    := $(wildcard cli/*.c)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)

# BUILD_DIR: where objects go (build/ by default; parallel work may use its own).
BUILD_DIR ?= build
B  := $(BUILD_DIR)
BA := $(B)/asan

obj   = $(patsubst %.c,$(1)/%.o,$(2))
ENGINE_OBJ   := $(call obj,$(B),$(ENGINE_SRC))
ENGINE_OBJ_A := $(call obj,$(BA),$(ENGINE_SRC))
SERVER_OBJ   := $(call obj,$(B),$(API_SRC) $(CLI_SRC))
SERVER_OBJ_A := $(call obj,$(BA),$(API_SRC) $(CLI_SRC))
UNIT_BIN     := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
UNIT_BIN_A   := $(patsubst tests/unit/%.c,$(BA)/tests/%,$(UNIT_SRC))

DEB_PKGS := libcivetweb-dev libjansson-dev libsqlite3-dev libssl-dev libcmocka-dev \
            pkg-config curl chromium

# The layout id of stored snapshots (api/snapshot.c): the engine's state
# structs are defined by engine/'s headers and laid out by the compiler, so a
# change to either makes older snapshots mismatch (they are rebuilt from the
# play log, never misread).
ENGINE_HDR := $(sort $(wildcard engine/*.h engine/*/*.h))
LAYOUT     := $(shell cat $(ENGINE_HDR) | cksum | cut -d' ' -f1)-$(shell $(CC) -dumpfullversion 2>/dev/null)
$(B)/api/snapshot.o $(BA)/api/snapshot.o: CFLAGS += -DCROUPIER_LAYOUT='"$(LAYOUT)"'
$(B)/api/snapshot.o $(BA)/api/snapshot.o: $(ENGINE_HDR) Makefile

.PHONY: all asan run test unit deps deps-build deps-test deps-npm clean bench fuzz install soak tournaments
all: $(B)/croupier

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
$(BA)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -c $< -o $@

$(B)/croupier: $(ENGINE_OBJ) $(SERVER_OBJ)
	$(CC) $(CFLAGS) $(filter %.o,$^) -o $@ $(LDLIBS)
$(BA)/croupier: $(ENGINE_OBJ_A) $(SERVER_OBJ_A)
	$(CC) $(CFLAGS) $(SAN) $(filter %.o,$^) -o $@ $(LDLIBS)

$(B)/tests/%: tests/unit/%.c $(ENGINE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka
$(BA)/tests/%: tests/unit/%.c $(ENGINE_OBJ_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka

# test_stack runs the engine and api_handle() (router, handlers, SQLite store;
# not the front ends) on a 64 KiB thread stack: it links the API objects too.
STACK_API_OBJ   := $(call obj,$(B),$(filter-out api/front_%.c,$(API_SRC)))
STACK_API_OBJ_A := $(call obj,$(BA),$(filter-out api/front_%.c,$(API_SRC)))
$(B)/tests/test_stack: tests/unit/test_stack.c $(ENGINE_OBJ) $(STACK_API_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka
$(BA)/tests/test_stack: tests/unit/test_stack.c $(ENGINE_OBJ_A) $(STACK_API_OBJ_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka

# test_json_arena: api/json_arena.c's blocks, with the hooks installed.
$(B)/tests/test_json_arena: tests/unit/test_json_arena.c $(ENGINE_OBJ) $(B)/api/json_arena.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka
$(BA)/tests/test_json_arena: tests/unit/test_json_arena.c $(ENGINE_OBJ_A) $(BA)/api/json_arena.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka

# test_notify: api/notify.c's wake-ups, with threads.
$(B)/tests/test_notify: tests/unit/test_notify.c $(ENGINE_OBJ) $(B)/api/notify.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka
$(BA)/tests/test_notify: tests/unit/test_notify.c $(ENGINE_OBJ_A) $(BA)/api/notify.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka

# test_json_out compares api/json_out.c with jansson's json_dumps.
$(B)/tests/test_json_out: tests/unit/test_json_out.c $(ENGINE_OBJ) $(B)/api/json_out.o $(B)/api/json_arena.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka
$(BA)/tests/test_json_out: tests/unit/test_json_out.c $(ENGINE_OBJ_A) $(BA)/api/json_out.o $(BA)/api/json_arena.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka

# test_store_sqlite runs the SQLite store on real files in a temporary
# directory (store.c, which it links, refers to both stores).
STORE_OBJ   := $(call obj,$(B),api/store.c api/store_sqlite.c api/store_pg.c)
STORE_OBJ_A := $(call obj,$(BA),api/store.c api/store_sqlite.c api/store_pg.c)
$(B)/tests/test_store_sqlite: tests/unit/test_store_sqlite.c $(ENGINE_OBJ) $(STORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka
$(BA)/tests/test_store_sqlite: tests/unit/test_store_sqlite.c $(ENGINE_OBJ_A) $(STORE_OBJ_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka
# test_store_pg: the PostgreSQL store against a real server (skipped unless
# CROUPIER_TEST_PG_URL is set; tests/run.sh sets it to its throwaway cluster).
$(B)/tests/test_store_pg: tests/unit/test_store_pg.c $(ENGINE_OBJ) $(STORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka
$(BA)/tests/test_store_pg: tests/unit/test_store_pg.c $(ENGINE_OBJ_A) $(STORE_OBJ_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka

asan: $(BA)/croupier $(UNIT_BIN_A)

# --- fuzzing (libFuzzer + ASan + UBSan over api_handle) ------------------------
FUZZ_SRC := $(ENGINE_SRC) $(filter-out api/front_%.c api/pool.c,$(API_SRC))
FUZZ_SECONDS ?= 300
$(B)/fuzz/fuzz_api: tests/fuzz/fuzz_api.c $(FUZZ_SRC) $(wildcard engine/*.h engine/*/*.h api/*.h)
	@mkdir -p $(dir $@)
	clang $(CSTD) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -Iengine -Iapi -I/usr/include/postgresql $(filter %.c,$^) -o $@ $(LDLIBS)
fuzz: $(B)/fuzz/fuzz_api
	@mkdir -p $(B)/fuzz/corpus
	$(B)/fuzz/fuzz_api -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 \
	  $(B)/fuzz/corpus tests/fuzz/corpus

# --- dependencies -----------------------------------------------------------
# Install only what is missing, so a ready machine pays nothing. `make run`
# needs the build packages; `make test` also the test tools (cmocka, Node,
# Chromium for the browser tests).
DEB_BUILD := gcc make libc6-dev libcivetweb-dev libwslay-dev libjansson-dev libsqlite3-dev libpq-dev libssl-dev libyaml-dev libfcgi-dev libxxhash-dev liblz4-dev
DEB_TEST  := libcmocka-dev chromium curl postgresql libfcgi-bin nginx-light clang libclang-rt-14-dev sqlite3
define apt_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	$(2) \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing; \
	fi
endef
deps: deps-build deps-test deps-npm
deps-build:
	$(call apt_missing,$(DEB_BUILD),)
deps-test:
	$(call apt_missing,$(DEB_TEST),command -v node >/dev/null 2>&1 || missing="$$missing nodejs npm";)
deps-npm: node_modules/.package-lock.json
node_modules/.package-lock.json: package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || $(MAKE) --no-print-directory deps-test
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# --- use --------------------------------------------------------------------
run: deps-build
	@$(MAKE) --no-print-directory $(B)/croupier
	./$(B)/croupier serve --listen 127.0.0.1:8080 --store sqlite:croupier.db

unit: $(UNIT_BIN) $(UNIT_BIN_A)

test: deps
	@$(MAKE) --no-print-directory $(B)/croupier $(BA)/croupier $(UNIT_BIN) $(UNIT_BIN_A) $(B)/fuzz/fuzz_api
	@tests/run.sh

# bench: croupier beside a bare civetweb server (tests/bench/anchor.c) in the
# same run, under wrk, and its stored plays beside the raw SQLite ceiling of
# the same writes (tests/bench/sqlite_ceiling.c) (wrk, ss, curl, sqlite3:
# Debian packages installed if missing; Node for tests/bench/long.mjs);
# prints figures, never fails. BENCH=engine|http|store runs one part.
DEB_BENCH := wrk iproute2 curl sqlite3
$(B)/bench/anchor: tests/bench/anchor.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ -lcivetweb -lpthread
$(B)/bench/sqlite_ceiling: tests/bench/sqlite_ceiling.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ -lsqlite3 -lpthread -lm
bench: deps-build
	$(call apt_missing,$(DEB_BENCH),)
	@$(MAKE) --no-print-directory $(B)/croupier $(B)/bench/anchor $(B)/bench/sqlite_ceiling
	@BUILD=$(B) tests/bench.sh

# soak: SOAK_GAMES whole games (shared between the games of GET /rules) through
# a real server and a fresh SQLite store, every position checked in full
# (tests/soak/cli.mjs: ~0.25 games/s on 2 cores, ~11 hours for 10,000; with
# SOAK_ARGS='--full 25 --sample 0.01', make test's mix, ~3 games/s, ~1 hour;
# --store postgres://... for PostgreSQL); ends "games finished: N, plays: N,
# failures: N" and fails unless every game finished and failures is 0.
# tournaments: the README's table of every game's bots (tests/tournaments.mjs:
# croupier tournament for every pair of bots and the issues' lineups, seeded;
# a few minutes on 2 cores). It rewrites the table between the README's
# tournaments markers; TOURNAMENT_ARGS='--scale 0.1' for a quick look.
tournaments: $(B)/croupier
	node tests/tournaments.mjs --bin $(B)/croupier --write README.md $(TOURNAMENT_ARGS)

SOAK_GAMES ?= 10000
soak: $(B)/croupier deps-npm
	node tests/soak/cli.mjs --games $(SOAK_GAMES) $(SOAK_ARGS)

# install: the binary, the web page and the contract (see deploy/ for the
# systemd unit and the nginx configuration).
PREFIX ?= /usr/local
install: $(B)/croupier
	install -D -m 755 $(B)/croupier $(DESTDIR)$(PREFIX)/bin/croupier
	install -d $(DESTDIR)$(PREFIX)/share/croupier/www $(DESTDIR)$(PREFIX)/share/croupier/openapi
	cd www && find . -type f -exec install -D -m 644 {} $(DESTDIR)$(PREFIX)/share/croupier/www/{} \;
	install -m 644 openapi/openapi.yaml $(DESTDIR)$(PREFIX)/share/croupier/openapi/

clean:
	rm -rf $(B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
