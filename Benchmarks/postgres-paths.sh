# Benchmarks/run --pg-paths: our sign-ins on PostgreSQL by four paths in one run, each a fresh database, 64
# connections, DURATION seconds, new users then returning ones (postgres_workload, postgres.sh):
#   direct        the server's pool straight to the primary (DATABASE_PREPARED_STATEMENTS on, the default);
#   unnamed       the same with DATABASE_PREPARED_STATEMENTS=off (what a transaction pooler needs), no pooler;
#   pgbouncer     through Debian's PgBouncer in transaction mode (PGB_POOL server connections, core 1), setting off;
#   sync-standby  direct, with a streaming standby (pg_basebackup -R, core 1) in synchronous replication
#                 (synchronous_standby_names = '*', synchronous_commit on): each commit waits for the standby.
# Sourced by Benchmarks/run, after postgres.sh.
PGB_PORT=${BENCH_PGB_PORT:-26432}
PGB_POOL=${BENCH_PGB_POOL:-$PG_POOL}
PG_STANDBY_PORT=${BENCH_PG_STANDBY_PORT:-25433}
PG_PATHS=${PG_PATHS:-"direct unnamed pgbouncer sync-standby"}

pgbouncer_start() {
    command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || { apt-get update -qq && apt-get install -y -qq pgbouncer >/dev/null; }
    cat >"$PG_DIR/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=$PG_PORT
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGB_PORT
unix_socket_dir =
auth_type = trust
auth_file = $PG_DIR/pgbouncer.users
pool_mode = transaction
default_pool_size = $PGB_POOL
max_client_conn = 1000
server_reset_query =
logfile = $PG_DIR/pgbouncer.log
pidfile = $PG_DIR/pgbouncer.pid
INI
    echo '"postgres" ""' >"$PG_DIR/pgbouncer.users"
    [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR/pgbouncer.ini" "$PG_DIR/pgbouncer.users"
    postgres_run taskset -c 1 /usr/sbin/pgbouncer -d "$PG_DIR/pgbouncer.ini"
    for _ in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$PGB_PORT") 2>/dev/null; then return 0; fi
        sleep 0.05
    done
    echo "pgbouncer did not start" >&2
    return 1
}

pgbouncer_stop() {
    [ -s "$PG_DIR/pgbouncer.pid" ] && kill -TERM "$(cat "$PG_DIR/pgbouncer.pid")" 2>/dev/null || true
}

standby_start() { # a streaming standby of the primary, in synchronous replication (a hot standby needs at least
    # the primary's max_connections, so it gets postgres_start's settings)
    postgres_run "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PG_PORT" -U postgres -D "$PG_DIR/standby" -R -X stream >/dev/null
    postgres_run taskset -c 1 "$PG_BIN/pg_ctl" -D "$PG_DIR/standby" -l "$PG_DIR/standby.log" -w -o \
        "-c listen_addresses=127.0.0.1 -p $PG_STANDBY_PORT -k $PG_DIR -c shared_buffers=256MB -c max_connections=200" \
        start >/dev/null || { tail -5 "$PG_DIR/standby.log" >&2; return 1; }
    pg_sql postgres "ALTER SYSTEM SET synchronous_standby_names = '*'" >/dev/null
    pg_sql postgres "SELECT pg_reload_conf()" >/dev/null
    for _ in $(seq 1 100); do
        [ "$(pg_sql postgres "SELECT sync_state FROM pg_stat_replication")" = sync ] && return 0
        sleep 0.1
    done
    echo "the standby did not become synchronous" >&2
    return 1
}

standby_stop() {
    pg_sql postgres "ALTER SYSTEM RESET synchronous_standby_names" >/dev/null
    pg_sql postgres "SELECT pg_reload_conf()" >/dev/null
    postgres_run "$PG_BIN/pg_ctl" -D "$PG_DIR/standby" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$PG_DIR/standby"
}

postgres_paths_workloads() {
    postgres_start
    echo "== PostgreSQL $(pg_sql postgres 'SHOW server_version') paths, pinned to core 1; pool $PG_POOL per server," \
         "PgBouncer pool $PGB_POOL; ${DURATION}s at 64 connections"
    local path
    for path in $PG_PATHS; do
        unset DATABASE_PREPARED_STATEMENTS
        PG_URL_PORT=$PG_PORT
        case "$path" in
            direct) ;;
            unnamed) export DATABASE_PREPARED_STATEMENTS=off ;;
            pgbouncer) export DATABASE_PREPARED_STATEMENTS=off; pgbouncer_start; PG_URL_PORT=$PGB_PORT ;;
            sync-standby) standby_start ;;
            *) echo "unknown path $path" >&2; return 64 ;;
        esac
        for workload in new returning; do
            postgres_workload ours "$workload" 64 "$path"
        done
        case "$path" in
            pgbouncer) pgbouncer_stop ;;
            sync-standby) standby_stop ;;
        esac
    done
    unset DATABASE_PREPARED_STATEMENTS
    echo "== summary (PostgreSQL paths): sign-ins/s"
    grep '^ours pg-' "$RESULTS" | awk '{ printf "%-26s %8.0f/s  p99 %6.1f ms\n", $2, $4, $6 / 1000 }'
}

postgres_paths_stop() { # whatever a path left running (an interrupted run)
    pgbouncer_stop
    [ -d "$PG_DIR/standby" ] && postgres_run "$PG_BIN/pg_ctl" -D "$PG_DIR/standby" -m immediate -w stop >/dev/null 2>&1
    return 0
}
