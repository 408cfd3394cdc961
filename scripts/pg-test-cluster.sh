#!/bin/sh
# A throwaway PostgreSQL cluster for the backend tests (no system service touched).
#
#   pg-test-cluster.sh start DIR PORT   initdb in DIR/data, listen on 127.0.0.1:PORT, trust auth
#   pg-test-cluster.sh stop  DIR PORT   stop it (fast shutdown); DIR can then be removed
#
# Needs Debian's `postgresql` package (initdb/pg_ctl under /usr/lib/postgresql/*/bin).
# initdb refuses to run as root, so as root the cluster runs as the `postgres` user
# (or `nobody`), in a directory made writable for it.
set -eu
cmd=$1 dir=$2 port=$3
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)" >&2
    exit 3
fi
as_user() {
    if [ "$(id -u)" = 0 ]; then
        user=postgres
        id -u postgres >/dev/null 2>&1 || user=nobody
        runuser -u "$user" -- "$@"
    else
        "$@"
    fi
}
case $cmd in
start)
    chmod 0777 "$dir"
    as_user "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    as_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories='$dir' -c fsync=off" start \
        >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    ;;
stop)
    as_user "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
*)
    echo "usage: $0 start|stop DIR PORT" >&2
    exit 2
    ;;
esac
