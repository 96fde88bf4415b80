# shellcheck shell=bash
# Figure qp-count: 64 B write throughput (random offsets in 16 MiB) vs
# connections, node1 to node2: native verbs with one RC QP per connection
# (1..256 QPs, driven by up to 8 threads, 16 writes in flight per QP)
# against LITE with 1..64 client threads sharing the node pair's K pooled
# QPs, each thread keeping 16 posted writes in flight (lite_post_write,
# --depth 16): at N connections both have 16 x N writes in flight.
# DEPTH=N changes LITE's (0: synchronous writes). Interleaved
# (lib/bench.sh): for each repetition and N the systems that have the
# point run back to back in a shuffled order (order.csv), each for that
# one point (-r 1).
# Knobs: QUICK=1 (1 s windows, 1 repetition, fewer points), FULL=1 (10 s);
# default 2 s windows, MB_REPS_SHOWN repetitions (lib/bench.sh; no target
# judges it); SEED=N the shuffle.

# qpcount_case OUTDIR REP N SYSTEM: one system at N connections, one rep.
qpcount_case() {
	local out=$1 rep=$2 n=$3 sys=$4 tag="$4-$3-$2" t
	case $sys in
	verbs)
		t=$((n < 8 ? n : 8))
		MB_REP=$rep mb_verbs "$out" "$tag" "-m tput -o write --depth 16 -q $n -t $t --param-name qps $common" ;;
	lite)
		MB_REP=$rep mb_lite "$out" "$tag" \
			"-m tput -o write -t $n --depth ${DEPTH:-16} --param-name threads $common" ;;
	esac || ae_die "qp-count: $sys at $n, repetition $rep failed"
}

figure_run() {
	local out=$1 dur=2 reps=$MB_REPS_SHOWN qps threads n rep common points order sys
	local -a systems
	qps="1 2 4 8 16 32 64 128 256" threads="1 2 4 8 16 32 64"
	[ "${QUICK:-0}" = 1 ] && dur=1 reps=1 qps="1 8 64" threads="1 8 32"
	[ "${FULL:-0}" = 1 ] && dur=10
	qps=${QPS:-$qps} threads=${THREADS:-$threads}
	mb_two_nodes qp-count
	common="-s 64 -D $dur -w 0.5 -r 1 --mr-total 16M"
	points=$(printf '%s\n' $qps $threads | sort -n -u | tr '\n' ' ')
	mb_note "$out" "method: interleaved, $reps repetitions x N in $points, systems shuffled per (repetition, N) with seed $MB_SEED (order.csv)"
	mb_note "$out" "in_flight: verbs 16 writes per QP (--depth 16), N QPs; LITE ${DEPTH:-16} posted writes per thread (--depth ${DEPTH:-16}), N threads"
	for rep in $(seq "$reps"); do
		for n in $points; do
			systems=()
			grep -qw -- "$n" <<<"$qps" && systems+=(verbs)
			grep -qw -- "$n" <<<"$threads" && systems+=(lite)
			order=$(mb_order "$out" "$rep" "$n" "${systems[@]}") || ae_die "cannot shuffle"
			for sys in $order; do
				mb_timed "$out" "$rep" "$n" "$sys" qpcount_case "$out" "$rep" "$n" "$sys"
			done
		done
	done
	mb_summarize "$out"
}
