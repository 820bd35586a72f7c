# Benchmarks/run --engine postgres: the sign-in workloads on PostgreSQL, siwa against the Vapor peer on Fluent's
# PostgreSQL driver, with database statements and round trips per sign-in. Sourced by Benchmarks/run.
#
# A throwaway cluster (initdb into $WORK/pg, 127.0.0.1:$BENCH_PG_PORT, run as postgres when root) pinned to core 1
# beside wrk and the stand-in, the server on core 0. Settings: PostgreSQL's defaults (synchronous_commit on, fsync
# per commit) but shared_buffers=256MB, max_connections=200 and pg_stat_statements loaded (top-level statements:
# what clients send, not the foreign-key checks PostgreSQL runs inside them). A fresh database per
# workload; both servers keep $PG_POOL connections (DATABASE_POOL_SIZE; the peer's maxConnectionsPerEventLoop,
# one event loop on one core).
PG_PORT=${BENCH_PG_PORT:-25432}
PG_POOL=${BENCH_PG_POOL:-8}
PG_METRICS=bench-metrics-token-0123456789abcdef0123456789
# Extra server settings, e.g. BENCH_PG_SETTINGS="-c commit_delay=200 -c commit_siblings=2"; written in the results.
PG_DIR=
DATABASE_URL=

postgres_run() { # as the postgres user when root (PostgreSQL refuses root)
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

postgres_start() {
    if ! dpkg -s postgresql >/dev/null 2>&1; then apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; fi
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    PG_DIR="$WORK/pg"
    mkdir -p "$PG_DIR"
    [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR" && chmod 755 "$WORK"
    postgres_run "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres -A trust -E UTF8 --no-sync >/dev/null
    postgres_run taskset -c 1 "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -o \
        "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c shared_buffers=256MB -c max_connections=200 \
         -c shared_preload_libraries=pg_stat_statements ${BENCH_PG_SETTINGS:-}" start >/dev/null
    pg_sql postgres "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
}

postgres_stop() {
    [ -n "$PG_DIR" ] && [ -d "$PG_DIR/data" ] && postgres_run "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >/dev/null 2>&1
    PG_DIR=
}

pg_sql() { # pg_sql DATABASE SQL -> unaligned rows
    PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$1" -Atq -c "$2"
}

pg_database() { # pg_database NAME: a fresh database; sets DATABASE_URL
    pg_sql postgres "DROP DATABASE IF EXISTS $1" >/dev/null
    pg_sql postgres "CREATE DATABASE $1" >/dev/null
    DATABASE_URL="postgres://postgres@127.0.0.1:${PG_URL_PORT:-$PG_PORT}/$1"
}

pg_statements() { # pg_statements DATABASE: statements run there since the last reset (pg_stat_statements)
    pg_sql postgres "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                     WHERE d.datname = '$1' AND s.query NOT ILIKE '%pg_stat_statements%'"
}

round_trips() { # siwa's own count of round trips (siwa_postgres_round_trips_total)
    curl -s -H "Authorization: Bearer $PG_METRICS" "http://127.0.0.1:$PORT/metrics" |
        awk '$1 == "siwa_postgres_round_trips_total" { print $2 }'
}

postgres_workload() { # postgres_workload SERVER WORKLOAD CONNS [PATH]: PATH names the run (postgres-paths.sh)
    local server=$1 workload=$2 conns=$3 name result requests statements trips_before trips_after
    name="${server}_${workload}_${conns}${4:+_${4//-/_}}"
    pg_database "$name"
    start_server "$server" "$WORK/unused.sqlite"
    curl -s -o /dev/null -H 'Content-Type: application/json' \
        -d "{\"token\":\"$WARM_TOKEN\",\"name\":\"Warm Up\"}" "http://127.0.0.1:$PORT/api/users/siwa"
    [ "$workload" = returning ] && seed
    pg_sql postgres "SELECT pg_stat_statements_reset()" >/dev/null
    trips_before=$(round_trips)
    if [ "$workload" = new ]; then
        result=$(TOKENS="$CACHE/new.txt" run_wrk "$conns" "$DURATION" signin.lua /api/users/siwa)
    else
        result=$(TOKENS="$CACHE/returning.txt" run_wrk "$conns" "$DURATION" signin.lua /api/users/siwa)
    fi
    trips_after=$(round_trips)
    statements=$(pg_statements "$name")
    read -r _ requests _ <<<"$result"
    record "$server" "pg-$workload${4:+-$4}" "$conns" "$result" "$(peak_rss)"
    awk -v s="$server" -v w="$workload" -v c="$conns" -v r="$requests" -v st="$statements" \
        -v a="${trips_before:-}" -v b="${trips_after:-}" 'BEGIN {
            if (r == 0) r = 1
            trips = (a == "" || b == "") ? "n/a" : sprintf("%.2f", (b - a) / r)
            printf "roundtrips %s %s %s statements_per_signin=%.2f round_trips_per_signin=%s\n", s, w, c, st / r, trips
        }' | tee -a "$RESULTS"
    stop_server
}

postgres_workloads() {
    postgres_start
    echo "== PostgreSQL $(pg_sql postgres 'SHOW server_version'), pinned to core 1; pool $PG_POOL per server"
    echo "== workloads: ${DURATION}s each at $CONNS connections; columns: server workload conns req/s p50_us p99_us p99.9_us non2xx socket_errors peak_rss_kB"
    local conns
    for conns in $CONNS; do
        for server in ours vapor; do
            [ "$server" = vapor ] && [ "$OURS_ONLY" = 1 ] && continue
            postgres_workload "$server" new "$conns"
            postgres_workload "$server" returning "$conns"
        done
    done
    echo "== summary (PostgreSQL)"
    awk '$2 ~ /^pg-/ { rate[$1 " " $2 " " $3] = $4; keys[$2 " " $3] = 1 }
         END { for (k in keys) { o = rate["ours " k]; v = rate["vapor " k];
               printf "%-18s ours %8.0f/s  vapor %8.0f/s  %s\n", k, o, v, (v > 0 ? sprintf("%.2fx", o / v) : "-") } }' \
        "$RESULTS" | sort
    grep '^roundtrips' "$RESULTS"
}
