# shellcheck shell=bash
# The Python binding (lite/python/lite.py, ctypes over the installed
# liblite.so.0), run as GUEST_USER with Debian's /usr/bin/python3: join
# status on every node; an echo server on node3 answers node1 and node2
# byte-exactly for 1 B..1 MiB (bytes, memoryview, lite.Buffer), with
# EMSGSIZE and ECONNREFUSED mapped to OSError; on all three nodes at once
# fetch_add sums exactly, a lock-protected counter is exact, one CAS wins,
# swap chains (when liblite has lite_swap), node2's LMR is read, written,
# memcpy'd from the others, and barriers hold them together; errno mapping
# (a bad handle is FileNotFoundError/ENOENT...) and argument checks; the
# examples counter.py and rpc_echo.py. Sourced by tests/integration/lite-api.

py_start=$SECONDS
PY=/usr/bin/python3
PYDIR=$GUEST_BIN/python
ae exec all -- "rm -rf $PYDIR && cp -r $R/lite/python $PYDIR &&
	find $PYDIR -name __pycache__ -prune -exec rm -rf {} + ; chmod -R a+rX $PYDIR"
# No __pycache__ next to the sources: the user cannot write there anyway.
py() { as_user "$GUEST_USER" "env PYTHONDONTWRITEBYTECODE=1 $PY $PYDIR/$1"; }

c=$(py "tests/check_cluster.py info 3")
on_nodes py-info "$c" "$c" "$c"

# RPC echo: the server on node3, ports 20 (1 MiB) and 21 (64 B).
py_server_out=$TEST_TMP/py-server.out
py_ssh_cfg=$(ae ssh-config)
timeout 600 ssh -F "$py_ssh_cfg" node3 "$(py "tests/check_cluster.py echo-server 20 2")" \
	>"$py_server_out" 2>&1 &
py_server_pid=$!
wait_line -p "$py_server_pid" "$py_server_out" '^ready$'
c=$(py "tests/check_cluster.py echo-client 3 20")
on_nodes py-echo "$c" "$c"
rc=0
wait "$py_server_pid" || rc=$?
checks_done "python echo server" node3 "$rc" "$(cat "$py_server_out")"
assert_match "python echo server: both clients served" '^ok +served [0-9]+ calls from nodes \[1, 2\]' \
	"$(cat "$py_server_out")"
assert_eq "python echo: reply_max refusals on the server" 2 \
	"$(grep -c 'above its reply_max: EMSGSIZE' "$py_server_out")"

c=$(py "tests/check_cluster.py sync 3 50")
on_nodes py-sync "$c" "$c" "$c"
assert_eq "python: exactly one CAS winner" 1 "$(cat "$TEST_TMP"/py-sync.node* | grep -c '^info cas won')"
assert_eq "python sync: all ok on every node" 3 "$(cat "$TEST_TMP"/py-sync.node* | grep -c '^result: all ok$')"

out=$(ae exec node1 -- "$(py "tests/check_cluster.py errors")") || fail "python errors:
$out"
echo "$out"
assert_match "python: a bad handle is FileNotFoundError" '^ok +read of a bad handle: FileNotFoundError: \[Errno 2\]' "$out"
assert_match "python errors: all ok" '^result: all ok$' "$out"

# The examples.
c=$(py "examples/counter.py 3 10")
on_nodes py-counter "$c" "$c" "$c"
assert_eq "python counter example: totals on every node" 3 \
	"$(cat "$TEST_TMP"/py-counter.node* | grep -c 'fetch_add counter 30, locked counter 30, expected 30$')"
timeout 300 ssh -F "$py_ssh_cfg" node2 "$(py "examples/rpc_echo.py server 22")" \
	>"$TEST_TMP/py-rpc-echo.out" 2>&1 &
py_server_pid=$!
wait_line -p "$py_server_pid" "$TEST_TMP/py-rpc-echo.out" 'serving port 22' 60
out=$(ae exec node1 -- "$(py "examples/rpc_echo.py client 2 22 hello lite")")
rc=0
wait "$py_server_pid" || rc=$?
cat "$TEST_TMP/py-rpc-echo.out"
assert_eq "python rpc_echo example: replies" "HELLO
LITE" "$out"
assert_eq "python rpc_echo example: server exit status" 0 "$rc"
assert_match "python rpc_echo example: server quit" '^quit from node 1$' "$(cat "$TEST_TMP/py-rpc-echo.out")"
echo "ok: python binding ($((SECONDS - py_start)) s)"
