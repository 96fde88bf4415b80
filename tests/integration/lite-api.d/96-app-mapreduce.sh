# shellcheck shell=bash
# Part of tests/integration/lite-api (sourced): LITE-MapReduce
# (lite/apps/lite-mapreduce), as the unprivileged user, in miniature:
# wordcount over a MR_WC_MIB MiB corpus (default 4) with the write
# shuffle and the inverted index over MR_II_MIB MiB (default 2) with the
# RPC shuffle (the default) and 2 threads per node, each on the 3 nodes; node1's output
# must equal the single-node reference's (mr-ref) byte for byte. Then a
# partition that does not fit (--inbox 1 for an index of 8 MiB): every
# node must stop with the error that names the node and the bytes it
# needed, none may hang. Then mrmpi-mapreduce, the MapReduce-MPI baseline,
# with 3 ranks on node1 only (mpirun across the guests would need ssh
# between them as the user), against the same reference; skipped with a
# note where mpirun or mrmpi-mapreduce is missing.

mr_src=$R/lite/apps/lite-mapreduce
mr_wc="--job wordcount -m ${MR_WC_MIB:-4}"
mr_ii="--job invindex -m ${MR_II_MIB:-2}"
ae exec all -- "install -m 755 $mr_src/lite-mapreduce $mr_src/mr-ref $GUEST_BIN/ &&
	rm -f /tmp/app-mr.*"
MR() { as_user "$GUEST_USER" "$GUEST_BIN/$1"; }

mr_t0=$SECONDS
c=$(MR "lite-mapreduce -n 3 $mr_wc --shuffle write -o /tmp/app-mr.wc")
on_nodes app-mr-wc "$c" "$c" "$c"
mr_secs=$((SECONDS - mr_t0))
assert_match "app-mapreduce: wordcount, node1's result line" '^result prog=lite-mapreduce job=wordcount .* nodes=3 .* shuffle=write ' \
	"$(grep '^result ' "$TEST_TMP/app-mr-wc.node1")"
assert_eq "app-mapreduce: wordcount, a phases line from each node" 3 \
	"$(cat "$TEST_TMP"/app-mr-wc.node* | grep -c '^phases map_s=')"
echo "app-mapreduce: wordcount on 3 nodes in ${mr_secs}s: $(grep '^result ' "$TEST_TMP/app-mr-wc.node1")"

c=$(MR "lite-mapreduce -n 3 $mr_ii --shuffle rpc -t 2 -o /tmp/app-mr.ii")
on_nodes app-mr-ii "$c" "$c" "$c"
assert_match "app-mapreduce: invindex over RPC, node1's result line" '^result prog=lite-mapreduce job=invindex .* shuffle=rpc threads=2' \
	"$(grep '^result ' "$TEST_TMP/app-mr-ii.node1")"

out=$(ae exec node1 -- "$(MR "mr-ref $mr_wc -o /tmp/app-mr.wc.ref") && $(MR "mr-ref $mr_ii -o /tmp/app-mr.ii.ref") &&
	cmp /tmp/app-mr.wc /tmp/app-mr.wc.ref && cmp /tmp/app-mr.ii /tmp/app-mr.ii.ref && echo same && wc -l </tmp/app-mr.wc")
echo "app-mapreduce: mr-ref: $(grep '^result ' <<<"$out" | tr '\n' ' ')"
assert_match "app-mapreduce: both outputs equal mr-ref's" '^same$' "$out"
assert_eq "app-mapreduce: the wordcount has keys" 1 "$(tail -n 1 <<<"$out" | awk '{ print ($1 > 1000) }')"

# A partition larger than the inbox: every node stops, with the same error.
c=$(MR "lite-mapreduce -n 3 --job invindex -m 8 --inbox 1 --id 0x4d52001000; echo rc=\$?")
on_nodes app-mr-full "$c" "$c" "$c"
for n in 1 2 3; do
	assert_match "app-mapreduce: node$n refuses an inbox too small" \
		"partitions need [0-9]+ bytes of shuffle room, --inbox gives 1048576" "$(cat "$TEST_TMP/app-mr-full.node$n")"
	assert_match "app-mapreduce: node$n exits 1" '^rc=1$' "$(cat "$TEST_TMP/app-mr-full.node$n")"
done

if [ -x "$AE_ROOT/lite/apps/lite-mapreduce/mrmpi-mapreduce" ] && ae exec node1 -- "command -v mpirun" >/dev/null 2>&1; then
	ae exec node1 -- "install -m 755 $mr_src/mrmpi-mapreduce $GUEST_BIN/"
	out=$(ae -t 300 exec node1 -- "$(as_user "$GUEST_USER" "mpirun --oversubscribe -np 3 --mca btl tcp,self $GUEST_BIN/mrmpi-mapreduce $mr_ii -o /tmp/app-mr.ii.mpi") &&
		cmp /tmp/app-mr.ii.mpi /tmp/app-mr.ii.ref && echo same")
	echo "app-mapreduce: mrmpi-mapreduce, 3 ranks on node1: $(grep '^result ' <<<"$out")"
	assert_match "app-mapreduce: MapReduce-MPI's index equals the reference's" '^same$' "$out"
else
	echo "app-mapreduce: mpirun or mrmpi-mapreduce missing (make deps installs libmrmpi-dev): MapReduce-MPI not checked"
fi
ae dmesg-check
