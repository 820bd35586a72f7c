# nginx helpers shared by Scripts/cluster and Scripts/check-nginx (sourced, not run).

nginx_templates="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../deploy/nginx" && pwd)"

# Prints the load balancer's nginx.conf (deploy/nginx/cluster.conf.template filled in).
# Usage: render_cluster_conf <folder for nginx's files> <port nginx listens on> <instance port>...
render_cluster_conf() {
    local prefix=$1 port=$2 servers="" user="" text instance
    shift 2
    for instance in "$@"; do
        servers+="        server 127.0.0.1:$instance max_fails=1 fail_timeout=5s;"$'\n'
    done
    # Run as root, the master would start its workers as nobody, who cannot enter the temporary folder.
    [ "$(id -u)" -eq 0 ] && user="user root;"
    text=$(<"$nginx_templates/cluster.conf.template")
    text=${text//@SERVERS@/"${servers%$'\n'}"}
    text=${text//@USER@/"$user"}
    text=${text//@PREFIX@/"$prefix"}
    text=${text//@PORT@/"$port"}
    printf '%s\n' "$text"
}

# Becomes nginx (exec: call it in a subshell), in the foreground, with everything (logs, pid, temporary files)
# under <folder>. Usage: run_nginx <folder> <conf> [nginx args]
run_nginx() {
    local prefix=$1 conf=$2
    shift 2
    exec nginx -p "$prefix/" -e "$prefix/error.log" -c "$conf" -g 'daemon off;' "$@"
}
