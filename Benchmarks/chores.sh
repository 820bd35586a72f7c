# Benchmarks/run --chores N: issue 29's scenario. `siwa apple validate-tokens` over N stored refresh tokens, with
# Apple 50 ms away: the stand-in (core 1) behind Tools/latency-proxy.py (core 1, EXCHANGE_DELAY_MS), the command on
# core 0. Sourced by Benchmarks/run, after exchange.sh (the stand-in, the proxy and their helpers).
#
# For each engine (CHORES_ENGINES, "sqlite postgres") and each APPLE_MAX_CONNECTIONS in CHORES_BOUNDS ("16"), a
# fresh database is seeded with N/10 and then N tokens (Benchmarks/Chores: users and sealed refresh tokens the
# stand-in honours, written straight into the database) and validate-tokens runs over them: tokens/s, the wall
# time, peak RSS (GNU time's maximum resident set), and connections the proxy accepted; then two commands at once
# over N tokens (two instances or an overlapping cron split the work), each with its own bound.
#
# Then the server under sign-in load while its own schedule runs validate-tokens (APPLE_CHORES_INTERVAL=24h: due at
# start) over CHORES_SERVING tokens, against the same server with the schedule off: sign-ins/s and p99 from wrk
# (core 1, 64 connections, sign-ins without a code), and how many tokens the chore settled meanwhile (/metrics).
CHORES_ENGINES=${CHORES_ENGINES:-"sqlite postgres"}
CHORES_BOUNDS=${CHORES_BOUNDS:-16}
CHORES_SERVING=${CHORES_SERVING:-20000}
# Which parts run: validate (N/10, N and a same-day rerun), two (two commands at once), serving.
CHORES_STEPS=${CHORES_STEPS:-"validate two serving"}
CHORES_METRICS=bench-metrics-token-0123456789abcdef0123456789
CHORES_INDEX=0

chores_env() { # chores_env ENGINE BOUND: the environment of the command and the server
    local engine=$1 bound=$2
    CHORES_VARS=(IOS_APPLICATION_IDENTIFIER=dev.siwa.ios APPLE_BASE_URL="http://127.0.0.1:$PROXY_PORT"
        APPLE_TEAM_ID="$EXCHANGE_TEAM_ID" APPLE_KEY_ID="$EXCHANGE_KEY_ID" APPLE_PRIVATE_KEY_PATH="$WORK/apple.p8"
        SIWA_ENCRYPTION_KEY="$ENCRYPTION_KEY" APPLE_MAX_CONNECTIONS="$bound" LOG_LEVEL=warning)
    if [ "$engine" = postgres ]; then
        CHORES_VARS+=(DATABASE_URL="$DATABASE_URL")
    else
        CHORES_VARS+=(DATABASE_PATH="$WORK/chores.sqlite")
    fi
}

chores_fresh_database() { # chores_fresh_database ENGINE COUNT BOUND: an empty database with COUNT seeded tokens
    local engine=$1 count=$2
    CHORES_INDEX=$((CHORES_INDEX + 1))
    if [ "$engine" = postgres ]; then
        pg_database "chores_$CHORES_INDEX"
    else
        rm -f "$WORK/chores.sqlite" "$WORK/chores.sqlite-wal" "$WORK/chores.sqlite-shm"
    fi
    chores_env "$engine" "$3"
    env "${CHORES_VARS[@]}" APPLE_CHORES_INTERVAL=0 "$SEED" "$count" "b$CHORES_INDEX" >"$WORK/seed.log" 2>&1 ||
        { cat "$WORK/seed.log" >&2; return 1; }
}

chores_validate() { # chores_validate NAME: validate-tokens over what is seeded; one result line
    local name=$1 c0 c1 seconds rss summary
    c0=$(proxy_count)
    /usr/bin/time -f "%e %M" -o "$WORK/chores.time" env "${CHORES_VARS[@]}" APPLE_CHORES_INTERVAL=0 \
        taskset -c 0 "$SIWA" apple validate-tokens --env-file "$WORK/none.env" >"$WORK/chores.out" 2>&1 || true
    c1=$(proxy_count)
    read -r seconds rss <"$WORK/chores.time"
    summary=$(grep -o 'validate-tokens: [0-9]* due.*' "$WORK/chores.out" | tail -1)
    chores_record "$name" "$seconds" "$rss" $((c1 - c0)) "$(chores_valid "$WORK/chores.out")" "$summary"
}

chores_valid() { # chores_valid FILE: the valid count of the summary line in FILE
    sed -n 's/^.*validate-tokens: [0-9]* due, \([0-9]*\) valid.*$/\1/p' "$1" | tail -1
}

chores_record() { # chores_record NAME SECONDS RSS_KB CONNECTIONS VALID SUMMARY: wall time, start-up included
    awk -v n="$1" -v s="$2" -v r="$3" -v c="$4" -v v="${5:-0}" 'BEGIN {
        printf "chores %s: %d valid in %.1f s, %.0f tokens/s, peak RSS %.1f MB, %d connections\n",
               n, v, s, (s > 0 ? v / s : 0), r / 1024, c }' | tee -a "$RESULTS"
    echo "   $6"
}

chores_two_runs() { # chores_two_runs NAME: two commands at once over what is seeded
    local name=$1 c0 c1 start end
    c0=$(proxy_count)
    start=$(date +%s.%N)
    env "${CHORES_VARS[@]}" APPLE_CHORES_INTERVAL=0 taskset -c 0 "$SIWA" apple validate-tokens --env-file "$WORK/none.env" >"$WORK/chores.a" 2>&1 &
    local a=$!
    env "${CHORES_VARS[@]}" APPLE_CHORES_INTERVAL=0 taskset -c 0 "$SIWA" apple validate-tokens --env-file "$WORK/none.env" >"$WORK/chores.b" 2>&1 &
    local b=$!
    wait "$a" "$b" || true
    end=$(date +%s.%N)
    c1=$(proxy_count)
    local va vb
    va=$(chores_valid "$WORK/chores.a")
    vb=$(chores_valid "$WORK/chores.b")
    chores_record "$name" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" 0 $((c1 - c0)) \
        $((${va:-0} + ${vb:-0})) "two commands at once: ${va:-0} + ${vb:-0} valid"
}

chores_settled() { # tokens the server's schedule has settled so far (/metrics)
    curl -s -H "Authorization: Bearer $CHORES_METRICS" "http://127.0.0.1:$PORT/metrics" |
        awk '/^siwa_apple_chore_tokens_total\{chore="validate-tokens"/ { n += $2 } END { print n + 0 }'
}

chores_serving() { # chores_serving ENGINE INTERVAL: sign-ins/s while the schedule runs (INTERVAL 24h) or not (0)
    local engine=$1 interval=$2 before after result
    chores_fresh_database "$engine" "$CHORES_SERVING" 16
    env "${CHORES_VARS[@]}" APPLE_CHORES_INTERVAL="$interval" PORT="$PORT" METRICS_TOKEN="$CHORES_METRICS" \
        MAX_CONNECTIONS=20000 taskset -c 0 "$SIWA" serve --env-file "$WORK/none.env" >>"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 600); do
        if curl -s -o /dev/null "http://127.0.0.1:$PORT/health"; then break; fi
        sleep 0.05
    done
    sleep 2 # the schedule's first look, and a steady rate of checks
    before=$(chores_settled)
    result=$(TOKENS="$CACHE/exchange-tokens.txt" taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" --timeout 5s \
        -s "$WRK_DIR/signin.lua" "http://127.0.0.1:$PORT/api/users/siwa" 2>"$WORK/wrk.err" |
        grep '^RESULT' || echo "RESULT 0 0 0 0 0 0 0 0")
    after=$(chores_settled)
    local _r requests seconds rps p50 p99
    read -r _r requests seconds rps p50 p99 _ <<<"$result"
    echo "chores serving $engine schedule=$interval: $rps sign-ins/s, p50 $p50 us, p99 $p99 us;" \
        "$((after - before)) tokens settled by the chore meanwhile" | tee -a "$RESULTS"
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}

chores_workloads() {
    echo "== chores: validate-tokens over $CHORES tokens, Apple ${EXCHANGE_DELAY_MS} ms away"
    swift build -c release --product ChoresSeed >/dev/null
    SEED="$ROOT/.build/release/ChoresSeed"
    exchange_setup
    for engine in $CHORES_ENGINES; do
        [ "$engine" = postgres ] && [ -z "$PG_DIR" ] && postgres_start
        if [[ " $CHORES_STEPS " == *" validate "* ]]; then
            for bound in $CHORES_BOUNDS; do
                for count in $((CHORES / 10)) "$CHORES"; do
                    chores_fresh_database "$engine" "$count" "$bound"
                    chores_validate "$engine bound=$bound tokens=$count"
                done
                chores_validate "$engine bound=$bound rerun-same-day"
            done
        fi
        if [[ " $CHORES_STEPS " == *" two "* ]]; then
            chores_fresh_database "$engine" "$CHORES" 16
            chores_two_runs "$engine bound=16x2 tokens=$CHORES"
        fi
        if [[ " $CHORES_STEPS " == *" serving "* ]]; then
            chores_serving "$engine" 0
            chores_serving "$engine" 24h
        fi
    done
}
