# Benchmarks/run --exchange: issue 28's scenario. Sign-ins that carry an identity token and an authorization code,
# with Apple a WAN hop away: the stand-in (`siwa fake-apple`, core 1) behind Tools/latency-proxy.py (core 1), which
# adds EXCHANGE_DELAY_MS (50) to every connect and to every answer; the server on core 0 with APPLE_BASE_URL at the
# proxy and the Apple key configured; wrk (core 1) with EXCHANGE_CONNS (64) connections. Sourced by Benchmarks/run.
#
# For each server, a run without a code (the CPU a sign-in costs anyway) and one with a code for each value of
# EXCHANGE_MAX_CONNECTIONS (APPLE_MAX_CONNECTIONS; a server that does not know it ignores it); then the same two for
# the Vapor peer (req.client, EXCHANGE_VAPOR_POOL connections per host). BASELINE_SIWA=/path/to/old/siwa adds that
# binary, run the same way, so before and after are measured in one run.
#
# Credentials: the stand-in's POST /dev/app-credential gives an identity token and the code it names (c_hash), as
# an iOS app receives them. Codes are single-use and live five minutes, so each run with a code asks for its own
# right before it starts (EXCHANGE_CODES, default DURATION x 1300: more than 64 connections can use in DURATION
# seconds at a 50 ms round trip), all distinct new users. Runs without a code go much faster and use identity
# tokens of distinct new users minted ahead by `siwa mint` (EXCHANGE_TOKENS, default 60000, kept in $CACHE).
# EXCHANGE_PERF_DIR=/some/dir samples the server with perf record (cpu-clock, call graphs) during each run, one file
# per run there, for `perf report -i`. EXCHANGE_PERF_STAT=1 counts, with perf stat, the server's context switches,
# epoll_wait calls and write calls (each wake of another loop is one write to its eventfd) per sign-in, a line
# after each run. After each run of siwa, a line gives its SQLite writer's writes per commit
# during the run (from /metrics): how much of each commit's cost a sign-in carries at that rate.
PROXY_PORT=${BENCH_PROXY_PORT:-29091}
EXCHANGE_DELAY_MS=${EXCHANGE_DELAY_MS:-50}
EXCHANGE_CONNS=${EXCHANGE_CONNS:-64}
EXCHANGE_MAX_CONNECTIONS=${EXCHANGE_MAX_CONNECTIONS:-"16 64"}
EXCHANGE_VAPOR_POOL=${EXCHANGE_VAPOR_POOL:-64}
# Where the peer reads Apple's keys: `direct` (the stand-in itself, as Benchmarks/run does) or `proxy`. Vapor's
# req.jwt.apple downloads the JWKS on every verify (EndpointCache.get(on:) skips its cache), twice per sign-in with
# a code; through the proxy each would wait 50 ms more, which is not what the exchange is meant to measure.
EXCHANGE_VAPOR_JWKS=${EXCHANGE_VAPOR_JWKS:-direct}
BASELINE_SIWA=${BASELINE_SIWA:-}
# The cores the server may run on (taskset -c): core 0 gives it one event loop. "0,1" gives it two, sharing core 1
# with wrk, the proxy and the stand-in: for what a server with several loops does with Apple's connections.
EXCHANGE_SERVER_CPUS=${EXCHANGE_SERVER_CPUS:-0}
EXCHANGE_TEAM_ID=BENCHTEAM1
EXCHANGE_KEY_ID=BENCHKEY01
CLK_TCK=$(getconf CLK_TCK)
EXCHANGE_METRICS_TOKEN=$(openssl rand -hex 24)
PROXY_PID=
SAMPLER_PID=
HELPER_PID=

exchange_setup() {
    [ -z "$BASELINE_SIWA" ] || [ -x "$BASELINE_SIWA" ] || { echo "BASELINE_SIWA=$BASELINE_SIWA is not executable" >&2; exit 64; }
    EXCHANGE_CODES=${EXCHANGE_CODES:-$((DURATION * 1300))}
    EXCHANGE_TOKENS=${EXCHANGE_TOKENS:-60000}
    local tokens="$CACHE/exchange-tokens.txt"
    if [ ! -s "$tokens" ] || [ "$(wc -l <"$tokens")" -ne "$EXCHANGE_TOKENS" ] || [ -n "$(find "$tokens" -mmin +1200)" ]; then
        "$SIWA" mint --aud dev.siwa.ios --key-file "$CACHE/fake-apple-key.pem" --count "$EXCHANGE_TOKENS" \
            --first 30000000 --lifetime 86400 --output "$tokens"
    fi
    apple_behind_proxy_start
}

apple_behind_proxy_start() { # the stand-in (core 1) with the operator's key, behind the latency proxy (core 1)
    for port in "$PORT" "$APPLE_PORT" "$PROXY_PORT"; do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "port $port is already in use: stop what listens there or set BENCH_PORT / BENCH_APPLE_PORT / BENCH_PROXY_PORT" >&2
            exit 1
        fi
    done
    # The operator's Sign in with Apple key (.p8, ES256), which the stand-in knows as Apple knows yours.
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORK/apple.p8" 2>/dev/null
    ENCRYPTION_KEY=$(openssl rand -hex 32)
    taskset -c 1 "$SIWA" fake-apple --port "$APPLE_PORT" --key-file "$CACHE/fake-apple-key.pem" \
        --client-secret-key "$WORK/apple.p8" --team-id "$EXCHANGE_TEAM_ID" --key-id "$EXCHANGE_KEY_ID" \
        >"$WORK/fake-apple.log" 2>&1 &
    PIDS+=($!)
    # Bounded: the proxy exits by itself after three hours whatever happens to this script.
    taskset -c 1 python3 "$BENCH/Tools/latency-proxy.py" --listen "$PROXY_PORT" --upstream "$APPLE_PORT" \
        --delay-ms "$EXCHANGE_DELAY_MS" --count-file "$WORK/proxy.count" --exit-after 10800 2>"$WORK/proxy.log" &
    PROXY_PID=$!
    PIDS+=("$PROXY_PID")
    for port in "$APPLE_PORT" "$PROXY_PORT"; do
        for _ in $(seq 1 200); do
            if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
            sleep 0.05
        done
    done
}

proxy_count() { # connections the proxy has accepted so far
    rm -f "$WORK/proxy.count"
    kill -USR1 "$PROXY_PID"
    for _ in $(seq 1 100); do
        if [ -s "$WORK/proxy.count" ]; then awk '{ print $2 }' "$WORK/proxy.count"; return 0; fi
        sleep 0.02
    done
    echo "the latency proxy did not report its count" >&2
    return 1
}

sqlite_commits() { # "writes transactions" of the server's SQLite writer, from /metrics (0 0 for other servers)
    curl -s --max-time 5 -H "Authorization: Bearer $EXCHANGE_METRICS_TOKEN" "http://127.0.0.1:$PORT/metrics" |
        awk '/^siwa_sqlite_writes_total / { w = $2 } /^siwa_sqlite_write_transactions_total / { t = $2 }
             END { print w + 0, t + 0 }'
}

cpu_ticks() { # utime + stime of PID, in clock ticks (fields 14 and 15 of /proc/PID/stat, after the command name)
    sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

start_thread_sampler() { # samples Threads: of PID every 100 ms into FILE (its peak) until stopped, at most LIMIT s
    local pid=$1 file=$2 limit=$3
    (
        peak=0
        for _ in $(seq 1 $((limit * 10))); do
            threads=
            while read -r key value _; do
                if [ "$key" = Threads: ]; then threads=$value; break; fi
            done 2>/dev/null <"/proc/$pid/status" || break
            [ -n "$threads" ] || break
            if [ "$threads" -gt "$peak" ]; then peak=$threads; echo "$peak" >"$file"; fi
            sleep 0.1
        done
    ) &
    SAMPLER_PID=$!
}

stop_thread_sampler() {
    [ -n "$SAMPLER_PID" ] || return 0
    kill -TERM "$SAMPLER_PID" 2>/dev/null || true
    wait "$SAMPLER_PID" 2>/dev/null || true
    SAMPLER_PID=
}

mint_credentials() { # mint_credentials FILE COUNT PREFIX: COUNT "token code" lines from the stand-in
    local file=$1 count=$2
    rm -f "$file" "$file.done"
    COUNT=$count PREFIX=$3 CREDENTIALS=$file taskset -c 1 wrk -t1 -c16 -d600s --timeout 10s \
        -s "$WRK_DIR/credentials.lua" "http://127.0.0.1:$APPLE_PORT/" >/dev/null 2>"$WORK/credentials.err" &
    HELPER_PID=$!
    for _ in $(seq 1 $((count / 10 + 600))); do # 100 per second at worst, plus a minute
        [ -e "$file.done" ] && break
        kill -0 "$HELPER_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -TERM "$HELPER_PID" 2>/dev/null || true
    wait "$HELPER_PID" 2>/dev/null || true
    HELPER_PID=
    if [ ! -e "$file.done" ]; then
        echo "the stand-in gave only $(wc -l <"$file" 2>/dev/null || echo 0) of $count credentials" >&2
        cat "$WORK/credentials.err" >&2
        return 1
    fi
}

exchange_start() { # exchange_start KIND BINARY APPLE_MAX_CONNECTIONS DATABASE
    local kind=$1 binary=$2 max=$3 db=$4
    rm -f "$db" "$db-wal" "$db-shm"
    local apple="http://127.0.0.1:$PROXY_PORT"
    local key=(APPLE_TEAM_ID="$EXCHANGE_TEAM_ID" APPLE_KEY_ID="$EXCHANGE_KEY_ID" APPLE_PRIVATE_KEY_PATH="$WORK/apple.p8")
    case "$kind" in
        vapor) local jwks="http://127.0.0.1:$APPLE_PORT/auth/keys"
            [ "$EXCHANGE_VAPOR_JWKS" = proxy ] && jwks="$apple/auth/keys"
            env PORT="$PORT" DATABASE_PATH="$db" APPLE_JWKS_URL="$jwks" APPLE_BASE_URL="$apple" \
                IOS_APPLICATION_IDENTIFIER=dev.siwa.ios "${key[@]}" APPLE_HTTP_POOL="$max" \
                taskset -c "$EXCHANGE_SERVER_CPUS" "$binary" serve >>"$WORK/server.log" 2>&1 & ;;
        *) env PORT="$PORT" DATABASE_PATH="$db" IOS_APPLICATION_IDENTIFIER=dev.siwa.ios APPLE_BASE_URL="$apple" \
                "${key[@]}" SIWA_ENCRYPTION_KEY="$ENCRYPTION_KEY" APPLE_MAX_CONNECTIONS="$max" MAX_CONNECTIONS=20000 \
                METRICS_TOKEN="$EXCHANGE_METRICS_TOKEN" \
                taskset -c "$EXCHANGE_SERVER_CPUS" "$binary" serve --env-file "$WORK/none.env" >>"$WORK/server.log" 2>&1 & ;;
    esac
    SERVER_PID=$!
    for _ in $(seq 1 600); do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then break; fi
        if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "$kind did not start; log:" >&2
    tail -20 "$WORK/server.log" >&2
    return 1
}

RUN_INDEX=0
exchange_case() { # exchange_case NAME KIND BINARY APPLE_MAX_CONNECTIONS WITH_CODE(0|1) [PACE_MS]
    local name=$1 kind=$2 binary=$3 max=$4 with_code=$5 pace=${6:-}
    local creds="$WORK/credentials.txt" warm body status c0 c1 c2 t1 t2 result
    RUN_INDEX=$((RUN_INDEX + 1))
    if [ "$with_code" = 1 ]; then
        mint_credentials "$creds.all" $((EXCHANGE_CODES + 1)) "r${RUN_INDEX}u"
    else # "token -": the identity tokens of new users, no code
        awk '{ print $0 " -" }' "$CACHE/exchange-tokens.txt" >"$creds.all"
    fi
    head -n -1 "$creds.all" >"$creds"
    warm=$(tail -1 "$creds.all")
    exchange_start "$kind" "$binary" "$max" "$WORK/exchange-$RUN_INDEX.sqlite"
    rm -f "$WORK/threads"
    start_thread_sampler "$SERVER_PID" "$WORK/threads" $((DURATION + 120))
    c0=$(proxy_count)
    if [ "$with_code" = 1 ]; then
        body="{\"token\":\"${warm% *}\",\"authorizationCode\":\"${warm#* }\",\"name\":\"Warm Up\"}"
    else
        body="{\"token\":\"${warm% *}\",\"name\":\"Warm Up\"}"
    fi
    status=$(curl -s -o "$WORK/warm.out" -w '%{http_code}' --max-time 30 -H 'Content-Type: application/json' \
        -d "$body" "http://127.0.0.1:$PORT/api/users/siwa" || true)
    [ "$status" = 200 ] || echo "   warning: the warm-up sign-in answered $status: $(head -c 300 "$WORK/warm.out")" >&2
    c1=$(proxy_count)
    local w1 w2
    w1=$(sqlite_commits)
    t1=$(cpu_ticks "$SERVER_PID")
    local perf_pid=
    if [ -n "${EXCHANGE_PERF_DIR:-}" ]; then
        mkdir -p "$EXCHANGE_PERF_DIR"
        perf record -q -e cpu-clock -F 4000 -g -p "$SERVER_PID" -o "$EXCHANGE_PERF_DIR/$name-$kind-$max-$with_code${pace:+-paced}.data" 2>/dev/null &
        perf_pid=$!
    fi
    local stat_pid=
    if [ "${EXCHANGE_PERF_STAT:-0}" = 1 ]; then
        perf stat -x, -e context-switches,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_write -p "$SERVER_PID" \
            -o "$WORK/perf-stat.csv" 2>/dev/null &
        stat_pid=$!
    fi
    result=$(CREDENTIALS="$creds" WITH_CODE="$with_code" PACE_MS="$pace" taskset -c 1 wrk -t1 -c"$EXCHANGE_CONNS" -d"${DURATION}s" \
        --timeout 10s -s "$WRK_DIR/exchange.lua" "http://127.0.0.1:$PORT/api/users/siwa" 2>"$WORK/wrk.err" |
        grep '^RESULT' || echo "RESULT 0 0 0 0 0 0 0 0")
    t2=$(cpu_ticks "$SERVER_PID")
    w2=$(sqlite_commits)
    if [ -n "$perf_pid" ]; then kill -INT "$perf_pid" 2>/dev/null || true; wait "$perf_pid" 2>/dev/null || true; fi
    if [ -n "$stat_pid" ]; then kill -INT "$stat_pid" 2>/dev/null || true; wait "$stat_pid" 2>/dev/null || true; fi
    c2=$(proxy_count)
    stop_thread_sampler
    if grep -q WRAPPED "$WORK/wrk.err"; then
        if [ "$with_code" = 1 ]; then
            echo "   note: the run used up its $EXCHANGE_CODES codes (set EXCHANGE_CODES higher); later sign-ins failed" >&2
        else
            echo "   note: the run used up its $EXCHANGE_TOKENS tokens (set EXCHANGE_TOKENS higher); later ones were returning users" >&2
        fi
    fi
    local _r requests seconds rps p50 p99 p999 non2xx socket completed cpu_us
    read -r _r requests seconds rps p50 p99 p999 non2xx socket <<<"$result"
    completed=$((requests - non2xx - socket))
    cpu_us=$(awk -v t=$((t2 - t1)) -v hz="$CLK_TCK" -v n="$completed" 'BEGIN { printf "%.0f", (n > 0 ? t * 1e6 / hz / n : 0) }')
    local mode=nocode
    [ "$with_code" = 1 ] && mode=code
    [ -n "$pace" ] && mode=paced
    echo "exchange $name $mode $max $rps $p50 $p99 $p999 $non2xx $socket" \
        "$cpu_us $(cat "$WORK/threads" 2>/dev/null || echo 0) $((c2 - c1)) $((c2 - c0))" | tee -a "$RESULTS"
    [ -z "$stat_pid" ] || awk -F, -v n="$completed" -v run="$name $mode $max" '$3 != "" && n > 0 { c[$3] = $1 }
        END { printf "   (%s, per sign-in: %.2f context switches, %.2f epoll_wait, %.2f write)\n", run,
              c["context-switches"] / n, c["syscalls:sys_enter_epoll_wait"] / n, c["syscalls:sys_enter_write"] / n }' \
        "$WORK/perf-stat.csv"
    [ "$kind" = vapor ] || echo "$w1 $w2" | awk -v run="$name $mode $max" '{ w = $3 - $1; t = $4 - $2
        if (t > 0) printf "   (%s: %.2f writes per SQLite commit, %d commits)\n", run, w / t, t }'
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
    rm -f "$WORK/exchange-$RUN_INDEX.sqlite"*
}

# Each run with a code is followed by one without, paced to the same rate (each connection waits between requests):
# what a sign-in costs depends on how busy the server is, so the exchange's share is read at the same rate.
exchange_server() { # exchange_server NAME KIND BINARY "MAX..."
    local name=$1 kind=$2 binary=$3 max rps pace
    exchange_case "$name" "$kind" "$binary" "${4%% *}" 0
    for max in $4; do
        exchange_case "$name" "$kind" "$binary" "$max" 1
        rps=$(tail -1 "$RESULTS" | awk '{ print $5 }')
        pace=$(awk -v c="$EXCHANGE_CONNS" -v r="$rps" 'BEGIN { if (r > 0) printf "%d", c * 1000 / r }')
        [ -n "$pace" ] && exchange_case "$name" "$kind" "$binary" "$max" 0 "$pace"
    done
}

exchange_workloads() {
    exchange_setup
    echo "== exchange: ${DURATION}s per run, $EXCHANGE_CONNS connections, Apple ${EXCHANGE_DELAY_MS} ms away (connect and answer)," \
        "$EXCHANGE_CODES codes per run"
    echo "   columns: exchange server code|nocode APPLE_MAX_CONNECTIONS sign-ins/s p50_us p99_us p99.9_us non2xx" \
        "socket_errors cpu_us_per_sign-in peak_threads apple_connections_during_run apple_connections_since_start"
    exchange_server ours ours "$SIWA" "$EXCHANGE_MAX_CONNECTIONS"
    [ -z "$BASELINE_SIWA" ] || exchange_server baseline ours "$BASELINE_SIWA" "$EXCHANGE_MAX_CONNECTIONS"
    [ "$OURS_ONLY" = 1 ] || exchange_server vapor vapor "$VAPOR" "$EXCHANGE_VAPOR_POOL"
    echo "== load after: $(uptime)"
    python3 "$BENCH/Tools/exchange-summary.py" "$RESULTS" "$EXCHANGE_DELAY_MS" "$EXCHANGE_CONNS"
}
