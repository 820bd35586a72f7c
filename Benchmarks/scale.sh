# Benchmarks/run --scale: sign-ins per second with 1 and 2 siwa instances on one PostgreSQL, and what each sign-in
# costs the database (CPU time of every PostgreSQL process, round trips) and the instances (their CPU time).
# Sourced by Benchmarks/run after postgres.sh.
#
# Placement on this 2-core machine: PostgreSQL, wrk and the stand-in on core 1 (as in --engine postgres), every
# instance on core 0. Two instances therefore share the core one had: the 2-instance row shows what running two
# costs (connections, pools, nothing shared between them), not more cores. Each instance gets its own wrk with half
# the connections and half the tokens, as a balancer would split them (nginx's own CPU is left out). The capacity
# of a larger PostgreSQL follows from its CPU time per sign-in: BENCHMARKS.md "Scale on paper".

cpu_ticks() { # cpu_ticks PID... -> utime + stime of those processes, in clock ticks
    local total=0 pid fields
    for pid in "$@"; do
        fields=$(cut -d' ' -f14,15 "/proc/$pid/stat" 2>/dev/null) || continue
        total=$((total + ${fields% *} + ${fields#* }))
    done
    echo "$total"
}

postgres_pids() { # every process of the cluster: postmaster, backends, walwriter, checkpointer, ...
    local postmaster
    postmaster=$(head -1 "$PG_DIR/data/postmaster.pid")
    echo "$postmaster" $(pgrep -P "$postmaster")
}

scale_start_instances() { # scale_start_instances N: siwa on PORT, PORT+1, ... (core 0); sets SCALE_PIDS
    local i port
    SCALE_PIDS=()
    for ((i = 0; i < $1; i++)); do
        port=$((PORT + i))
        env PORT="$port" DATABASE_URL="$DATABASE_URL" DATABASE_POOL_SIZE="$PG_POOL" METRICS_TOKEN="$PG_METRICS" \
            IOS_APPLICATION_IDENTIFIER=dev.siwa.ios APPLE_BASE_URL="http://127.0.0.1:$APPLE_PORT" \
            MAX_CONNECTIONS=20000 taskset -c 0 "$SIWA" serve --env-file "$WORK/none.env" >>"$WORK/server.log" 2>&1 &
        SCALE_PIDS+=($!)
        PIDS+=($!)
    done
    for ((i = 0; i < $1; i++)); do
        wait_for_port $((PORT + i))
        curl -s -o /dev/null -H 'Content-Type: application/json' \
            -d "{\"token\":\"$WARM_TOKEN\",\"name\":\"Warm Up\"}" "http://127.0.0.1:$((PORT + i))/api/users/siwa"
    done
}

scale_round_trips() { # the sum of every instance's siwa_postgres_round_trips_total
    local i sum=0 value
    for ((i = 0; i < $1; i++)); do
        value=$(curl -s -H "Authorization: Bearer $PG_METRICS" "http://127.0.0.1:$((PORT + i))/metrics" |
            awk '$1 == "siwa_postgres_round_trips_total" { print $2 }')
        sum=$((sum + ${value:-0}))
    done
    echo "$sum"
}

scale_run() { # scale_run INSTANCES WORKLOAD CONNS: one wrk per instance, CONNS split between them
    local n=$1 workload=$2 conns=$3 i pg0 pg1 siwa0 siwa1 trips0 trips1 requests=0 rate=0 tokens r s
    local waiting=()
    pg_database "scale_${workload}_${n}"
    scale_start_instances "$n"
    tokens="$CACHE/new.txt"
    if [ "$workload" = returning ]; then
        PORT=$PORT seed
        tokens="$CACHE/returning.txt"
    fi
    split -n "l/$n" -d "$tokens" "$WORK/tokens-$workload-$n-"
    pg0=$(cpu_ticks $(postgres_pids)); siwa0=$(cpu_ticks "${SCALE_PIDS[@]}"); trips0=$(scale_round_trips "$n")
    for ((i = 0; i < n; i++)); do
        TOKENS="$WORK/tokens-$workload-$n-0$i" taskset -c 1 wrk -t1 -c$((conns / n)) -d"${DURATION}s" --timeout 5s \
            -s "$WRK_DIR/signin.lua" "http://127.0.0.1:$((PORT + i))/api/users/siwa" 2>/dev/null |
            grep '^RESULT' >"$WORK/scale-wrk-$i" &
        waiting+=($!)
    done
    wait "${waiting[@]}"
    pg1=$(cpu_ticks $(postgres_pids)); siwa1=$(cpu_ticks "${SCALE_PIDS[@]}"); trips1=$(scale_round_trips "$n")
    for ((i = 0; i < n; i++)); do
        read -r _ r _ s _ <"$WORK/scale-wrk-$i"
        requests=$((requests + r))
        rate=$(awk -v a="$rate" -v b="$s" 'BEGIN { print a + b }')
    done
    awk -v n="$n" -v w="$workload" -v c="$conns" -v req="$requests" -v rate="$rate" -v hz="$(getconf CLK_TCK)" \
        -v pg=$((pg1 - pg0)) -v siwa=$((siwa1 - siwa0)) -v trips=$((trips1 - trips0)) 'BEGIN {
            if (req == 0) req = 1
            printf "scale instances=%d %s conns=%d signins_per_s=%.0f pg_cpu_us_per_signin=%.0f " \
                   "siwa_cpu_us_per_signin=%.0f round_trips_per_signin=%.2f\n",
                   n, w, c, rate, pg * 1e6 / hz / req, siwa * 1e6 / hz / req, trips / req
        }' | tee -a "$RESULTS"
    for pid in "${SCALE_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${SCALE_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}

scale_workloads() {
    postgres_start
    echo "== scale: PostgreSQL $(pg_sql postgres 'SHOW server_version') + wrk on core 1, instances on core 0;" \
         "pool $PG_POOL per instance; ${DURATION}s per run; $(nproc) cores"
    local n workload
    for workload in new returning; do
        for n in 1 2; do scale_run "$n" "$workload" 64; done
    done
}
