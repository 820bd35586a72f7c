# Helpers of Scripts/cluster (sourced, not run): its children, free ports, HTTP probes, the throwaway PostgreSQL.

# The children started so far: names[i] runs as pids[i], its output in logs[i].
names=() pids=() logs=()

# Starts <name> in the background, its output into <log>: start <name> <log> <command...>
start() {
    "${@:3}" >"$2" 2>&1 &
    names+=("$1") pids+=($!) logs+=("$2")
}

# Fails naming the process and showing its log's end: fail <index> <what went wrong>
fail() {
    echo "${names[$1]}: $2; the end of its log:" >&2
    tail -20 "${logs[$1]}" >&2
    exit 1
}

# Sends SIGTERM to the children named <pattern> and waits for them, SIGKILL after <seconds>:
# stop_children <pattern> <seconds>
stop_children() {
    local i started=$SECONDS seconds=$2
    for i in "${!names[@]}"; do [[ "${names[$i]}" == $1 ]] && kill -TERM "${pids[$i]}" 2>/dev/null; done
    for i in "${!names[@]}"; do
        [[ "${names[$i]}" == $1 ]] || continue
        while alive "${pids[$i]}" && [ $((SECONDS - started)) -lt "$seconds" ]; do sleep 0.1; done
        alive "${pids[$i]}" && { echo "${names[$i]} did not stop in $seconds s: killed" >&2; kill -KILL "${pids[$i]}"; }
        wait "${pids[$i]}" 2>/dev/null
    done
}

chosen_ports=()

# Sets the variable <name> to a loopback port nothing listens on and not chosen before, from 20000-32767 (below
# Linux's ephemeral range, so no outgoing connection holds it): a refused connection means it is free.
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 12768))
        [[ " ${chosen_ports[*]} " == *" $port "* ]] && continue
        (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
        chosen_ports+=("$port")
        printf -v "$1" %s "$port"
        return
    done
}

# Prints the status code of GET <path> on 127.0.0.1:<port>, or nothing when nothing answers within 2 s.
http_status() {
    local port=$1 path=$2 line=""
    if exec 3<>"/dev/tcp/127.0.0.1/$port"; then
        printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$path" "$port" >&3 \
            && read -r -t 2 line <&3
        exec 3<&-
    fi 2>/dev/null
    line=${line#HTTP/1.1 }
    echo "${line%% *}"
}

# Whether <pid> still runs (a child that exited stays a zombie until waited for).
alive() {
    local stat
    { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1  # a builtin: see the watch in Scripts/cluster
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}

# Waits until GET <path> on <port> answers 200, or until <seconds> pass (then fails). Fails at once when the
# process <pid> is gone.
wait_for_200() {
    local port=$1 path=$2 pid=$3 seconds=$4 started=$SECONDS
    until [ "$(http_status "$port" "$path")" = 200 ]; do
        alive "$pid" || return 1
        [ $((SECONDS - started)) -lt "$seconds" ] || return 1
        sleep 0.2
    done
}

# The throwaway PostgreSQL: initdb into <folder>/data, listening on 127.0.0.1:<port> and a socket in <folder>,
# as the postgres user when run as root (PostgreSQL refuses root).
pg_folder="" pg_port="" pg_as=()
pg_tool() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    "${pg_as[@]}" "$bin/$1" "${@:2}"
}

start_postgres() {
    pg_folder=$1 pg_port=$2
    mkdir -p "$pg_folder"
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres: "$pg_folder"
        pg_as=(runuser -u postgres --)
    fi
    pg_tool initdb -D "$pg_folder/data" -U postgres -A trust -E UTF8 --no-sync --no-instructions \
        >"$pg_folder/initdb.log" 2>&1 || { cat "$pg_folder/initdb.log" >&2; return 1; }
    pg_tool pg_ctl -D "$pg_folder/data" -l "$pg_folder/server.log" -w -t 60 start \
        -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $pg_folder -c fsync=off" >/dev/null \
        || { cat "$pg_folder/server.log" >&2; return 1; }
    pg_tool createdb -h 127.0.0.1 -p "$pg_port" -U postgres siwa
}

stop_postgres() {
    [ -n "$pg_folder" ] && [ -f "$pg_folder/data/postmaster.pid" ] || return 0
    pg_tool pg_ctl -D "$pg_folder/data" -m fast -w stop >/dev/null
}

postgres_pid() {
    head -1 "$pg_folder/data/postmaster.pid" 2>/dev/null
}
