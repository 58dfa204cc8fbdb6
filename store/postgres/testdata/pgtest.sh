#!/usr/bin/env bash
# pgtest.sh starts a throwaway PostgreSQL cluster for the store/postgres
# tests: initdb in a temporary folder (as the postgres user when run as
# root, since PostgreSQL refuses to run as root), listening on 127.0.0.1
# only, on a free port, with its unix socket in that folder.
#
#   pgtest.sh CMD ARGS...   start, run CMD with POLITE_TEST_POSTGRES set, stop
#   pgtest.sh start DIR     start in the empty folder DIR; print the export
#                           line for eval, e.g.
#                             eval "$(pgtest.sh start "$dir")"
#   pgtest.sh stop DIR      stop the cluster in DIR and remove DIR
#
# It needs PostgreSQL's server programs (Debian: apt-get install postgresql).
set -euo pipefail

bindir() {
	local d
	for d in ${PGBIN:-} $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		[ -x "$d/initdb" ] && { echo "$d"; return; }
	done
	d=$(command -v initdb 2>/dev/null) && { dirname "$d"; return; }
	echo "pgtest.sh: no initdb found: install PostgreSQL (apt-get install postgresql) or set PGBIN" >&2
	return 1
}

# as runs a command as the postgres user when we are root, else as ourselves.
as() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# port_free reports whether nothing listens on 127.0.0.1:$1.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
	local dir=$1 bin port try
	bin=$(bindir)
	mkdir -p "$dir"
	[ "$(id -u)" = 0 ] && chown postgres: "$dir"
	as "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log" >&2; return 1; }
	for try in 1 2 3 4 5 6 7 8; do
		port=$((20000 + RANDOM % 40000))
		port_free "$port" || continue
		if as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start \
			-o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off" >/dev/null; then
			as "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres polite_test
			echo "$port" >"$dir/port"
			echo "export POLITE_TEST_POSTGRES='postgres://postgres@127.0.0.1:$port/polite_test?sslmode=disable'"
			return 0
		fi
	done
	echo "pgtest.sh: could not start PostgreSQL; see $dir/server.log" >&2
	tail -20 "$dir/server.log" >&2 || true
	return 1
}

stop() {
	local dir=$1
	[ -d "$dir" ] || return 0
	if [ -f "$dir/data/postmaster.pid" ]; then
		as "$(bindir)/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
}

case "${1:-}" in
start) start "${2:?usage: pgtest.sh start DIR}" ;;
stop) stop "${2:?usage: pgtest.sh stop DIR}" ;;
"") sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
*)
	dir=$(mktemp -d "${TMPDIR:-/tmp}/polite-pg.XXXXXX")
	trap 'stop "$dir"' EXIT
	eval "$(start "$dir")"
	echo "pgtest.sh: PostgreSQL at $POLITE_TEST_POSTGRES" >&2
	"$@"
	;;
esac
