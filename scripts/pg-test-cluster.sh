#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the tests of the hosted store (test/fixtures/postgres.ts).
#
#   bash scripts/pg-test-cluster.sh start DIR   makes a new cluster in DIR (absent or empty), starts it
#                                               and prints one line on stdout, its admin URL:
#                                               postgres://postgres@127.0.0.1:PORT/postgres
#                                               (also kept in DIR/url)
#   bash scripts/pg-test-cluster.sh stop DIR    stops that cluster (fast shutdown) and removes DIR
#
# The server listens on 127.0.0.1 only, on a free port, its unix socket inside DIR/socket, its log in
# DIR/log. It keeps fsync and synchronous_commit on: the store's durability is what the tests check,
# so the cluster must not lie about a commit. Binaries: PG_BINDIR, else `pg_config --bindir`, else the
# highest /usr/lib/postgresql/*/bin (Debian's `postgresql` package).
#
# Authentication is `trust`, on loopback only: any local user of this machine can connect as the
# superuser, without a password. That is acceptable for a throw-away cluster holding test data only,
# and never for anything else.
#
# initdb and pg_ctl refuse to run as root: as root, DIR is given to the `postgres` user and the
# server runs as that user; otherwise it runs as the caller.
set -euo pipefail

me=pg-test-cluster
die() {
  echo "$me: $*" >&2
  exit 1
}
usage() { die "usage: bash scripts/pg-test-cluster.sh start|stop DIR"; }

[ $# -eq 2 ] || usage
command=$1
dir=$2
[ -n "$dir" ] || usage
case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
dir=${dir%/}
[ -n "$dir" ] || die "refusing to use / as the cluster directory"
# Written first into a new cluster's DIR: `stop` removes only a directory that carries it.
marker=pg-test-cluster

bindir() {
  local candidate
  if [ -n "${PG_BINDIR:-}" ]; then
    [ -x "$PG_BINDIR/initdb" ] || die "PG_BINDIR=$PG_BINDIR holds no executable initdb"
    echo "$PG_BINDIR"
    return
  fi
  if command -v pg_config >/dev/null 2>&1; then
    candidate=$(pg_config --bindir 2>/dev/null || true)
    if [ -n "$candidate" ] && [ -x "$candidate/initdb" ]; then
      echo "$candidate"
      return
    fi
  fi
  candidate=$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/initdb' -executable 2>/dev/null | sort -V | tail -n 1)
  [ -n "$candidate" ] || die "no PostgreSQL server binaries found (no initdb from pg_config --bindir, none in /usr/lib/postgresql/*/bin): install them with apt-get install postgresql, or set PG_BINDIR"
  dirname "$candidate"
}

# Runs a command as `user` (set below): as-is when that is us, through runuser (or setpriv) when we are root.
as_user() {
  if [ "$(id -u)" -ne 0 ]; then
    "$@"
  elif command -v runuser >/dev/null 2>&1; then
    runuser -u "$user" -- "$@"
  elif command -v setpriv >/dev/null 2>&1; then
    setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups -- "$@"
  else
    die "running as root, and neither runuser nor setpriv is here to run PostgreSQL as $user"
  fi
}

# A port nobody listens on now on 127.0.0.1 (the server may still lose a race for it: start retries).
free_port() {
  if command -v node >/dev/null 2>&1; then
    node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
  elif command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()'
  else
    die "neither node nor python3 is here to find a free port"
  fi
}

start() {
  local bin port url attempt started out
  bin=$(bindir)
  if [ -e "$dir" ]; then
    [ -d "$dir" ] || die "$dir exists and is not a directory"
    [ -z "$(ls -A "$dir")" ] || die "$dir is not empty: give start a new or empty directory (stop removes a cluster's directory)"
  else
    mkdir -p "$dir" || die "could not create $dir"
  fi
  # The socket's path must fit a unix socket address (107 bytes on Linux): DIR/socket/.s.PGSQL.PORT.
  [ ${#dir} -le 80 ] || die "$dir is too long a path for the cluster's unix socket (at most 80 characters)"
  : > "$dir/$marker" || die "could not write in $dir"

  if [ "$(id -u)" -eq 0 ]; then
    user=postgres
    id "$user" >/dev/null 2>&1 || die "running as root but there is no '$user' user to run PostgreSQL as (Debian's postgresql package creates it)"
    chown "$user:" "$dir" "$dir/$marker" || die "could not give $dir to the $user user"
    as_user test -w "$dir" || die "the $user user cannot write in $dir: is a parent directory closed to it? (use one under /tmp)"
  else
    user=$(id -un)
  fi
  # initdb and the server chdir nowhere in particular: start them from DIR, which the user can read.
  cd "$dir"

  # --no-locale: the C locale exists everywhere (a container's environment may name one that does not).
  # --no-sync: initdb's own files need not reach the disk for a throw-away cluster; the server's writes do.
  out=$(as_user "$bin/initdb" --pgdata="$dir/data" --username=postgres --auth=trust --encoding=UTF8 --no-locale --no-sync 2>&1) \
    || die "initdb failed (as $user, in $dir/data):
$out"
  # Explicitly: trust on the unix socket in DIR and on 127.0.0.1, nothing else (see the header).
  cat > "$dir/data/pg_hba.conf" <<'EOF'
# TYPE  DATABASE  USER  ADDRESS       METHOD
local   all       all                 trust
host    all       all   127.0.0.1/32  trust
EOF
  as_user mkdir "$dir/socket" || die "could not create $dir/socket"
  echo "include_if_exists = 'test-cluster.conf'" >> "$dir/data/postgresql.conf"

  started=
  for attempt in 1 2 3; do
    port=$(free_port)
    cat > "$dir/data/test-cluster.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir/socket'
fsync = on
synchronous_commit = on
full_page_writes = on
max_connections = 200
EOF
    [ "$(id -u)" -ne 0 ] || chown "$user:" "$dir/data/pg_hba.conf" "$dir/data/test-cluster.conf"
    if out=$(as_user "$bin/pg_ctl" --pgdata="$dir/data" --log="$dir/log" --wait --timeout=60 start 2>&1); then
      started=1
      break
    fi
    # Lost the race for the port to another process: pick another one. Any other failure is final.
    grep -q 'could not bind\|Address already in use' "$dir/log" 2>/dev/null || break
    echo "$me: port $port was taken before the server bound it (attempt $attempt); trying another" >&2
  done
  [ -n "$started" ] || die "the server did not start (pg_ctl as $user: $out)
last lines of $dir/log:
$(tail -n 20 "$dir/log" 2>/dev/null || echo '(no log)')
(bash scripts/pg-test-cluster.sh stop $dir removes what is left)"

  for attempt in $(seq 1 60); do
    "$bin/pg_isready" --quiet --host=127.0.0.1 --port="$port" --username=postgres --dbname=postgres && break
    [ "$attempt" -lt 60 ] || die "the server started but pg_isready never answered on 127.0.0.1:$port in 30 s; see $dir/log"
    sleep 0.5
  done
  url="postgres://postgres@127.0.0.1:$port/postgres"
  echo "$url" > "$dir/url"
  echo "$url"
}

stop() {
  local bin out
  if [ ! -e "$dir" ]; then
    echo "$me: $dir does not exist: nothing to stop" >&2
    return 0
  fi
  [ -d "$dir" ] || die "$dir is not a directory"
  if [ ! -e "$dir/$marker" ]; then
    # An empty directory (start failed before writing anything) is safe to remove; anything else is not ours.
    [ -z "$(ls -A "$dir")" ] || die "$dir has no $marker file: not a cluster made by this script, so it is left alone"
    rmdir "$dir"
    return 0
  fi
  if [ -f "$dir/data/postmaster.pid" ]; then
    bin=$(bindir)
    user=$(stat -c %U "$dir/data")
    cd "$dir"
    if as_user "$bin/pg_ctl" --pgdata="$dir/data" status >/dev/null 2>&1; then
      out=$(as_user "$bin/pg_ctl" --pgdata="$dir/data" --mode=fast --wait --timeout=60 stop 2>&1) \
        || die "could not stop the server of $dir (pg_ctl as $user: $out); $dir is kept"
    fi
    cd /
  fi
  rm -rf "$dir" || die "could not remove $dir"
}

case "$command" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
