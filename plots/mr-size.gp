# Random-offset write throughput vs total memory written to: native verbs
# (one MR of that size) against LITE (one LMR of that size), 64 B and 1 KiB
# writes. Points are medians of the repetitions; whiskers the lowest and
# highest. The legends give the writes in flight that the clients recorded
# in raw/*.csv, when the run left those.
# Variables: see common.gp; datafile is the data.csv of an mr-size run.
# CSV columns: bench,op,size,param,reps,ops_per_sec,lo,hi,bytes_per_sec

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

eval tputaxes(2)
eval bytetics(4)
set xlabel "total registered memory written at random"
set ylabel "writes per second (median, lowest..highest)"
verbs = inflight("verbs_bench", "all")
lite = inflight("lite_bench", "all")
# rxe keeps no MR translations on a NIC: nothing to miss as MRs grow.
set title title("MR-size scalability: native verbs vs LITE") . \
	note(softroce ? "Soft-RoCE has no NIC MR cache: flat verbs curves are expected on this test bed" : "") . \
	note(inflight_note(verbs . lite))
set key bottom left

sz(b, s) = rows(sprintf('$1 == "%s" && $3 == %d', b, s))

do for [fmt in formats] {
	eval out(fmt)
	plot sz("verbs_tput", 64)   using 4:6:7:8 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "verbs, 64 B writes" . with(verbs), \
	     sz("verbs_tput", 1024) using 4:6:7:8 with yerrorlines lw 2 pt 11 lc rgb "#ff9896" title "verbs, 1 KiB writes" . with(verbs), \
	     sz("lite_tput", 64)    using 4:6:7:8 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE, 64 B writes" . with(lite), \
	     sz("lite_tput", 1024)  using 4:6:7:8 with yerrorlines lw 2 pt 5 lc rgb "#6baed6" title "LITE, 1 KiB writes" . with(lite)
	unset output
}
