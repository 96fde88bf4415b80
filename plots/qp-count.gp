# 64 B random write throughput vs connections: native verbs with one QP
# per connection against LITE threads sharing the pooled QPs. Medians of the
# repetitions; whiskers the lowest and highest. The legends give the writes
# in flight per connection that the clients recorded in raw/*.csv, when the
# run left those.
# Variables: see common.gp; datafile is the data.csv of a qp-count run.
# CSV columns: bench,op,size,param,reps,ops_per_sec,lo,hi,bytes_per_sec

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

eval tputaxes(2)
set xlabel "connections: verbs QPs, or LITE client threads"
set ylabel "64 B writes per second (median, lowest..highest)"
verbs = inflight("verbs_bench", "each")
lite = inflight("lite_bench", "each")
set title title("QP-count scalability: native verbs vs LITE") . note(inflight_note(verbs . lite))
set key bottom left

do for [fmt in formats] {
	eval out(fmt)
	plot sel("verbs_tput") using 4:6:7:8 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "verbs, one RC QP per connection" . with(verbs), \
	     sel("lite_tput")  using 4:6:7:8 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE, threads over K shared QPs" . with(lite)
	unset output
}
