# 64 B random write throughput vs number of memory regions: native verbs
# (that many MRs) against LITE (that many LMRs). Points are medians of the
# repetitions; whiskers the lowest and highest. The legends give the writes
# in flight that the clients recorded in raw/*.csv, when the run left those.
# Variables: see common.gp; datafile is the data.csv of an mr-count run.
# CSV columns: bench,op,size,param,reps,ops_per_sec,lo,hi,bytes_per_sec

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

eval tputaxes(4)
set xlabel "memory regions written at random (64 KiB each)"
set ylabel "64 B writes per second (median, lowest..highest)"
verbs = inflight("verbs_bench", "all")
lite = inflight("lite_bench", "all")
# rxe keeps no MR state on a NIC: nothing to miss as MRs multiply.
set title title("MR-count scalability: native verbs vs LITE") . \
	note(softroce ? "Soft-RoCE has no NIC MR cache: a flat verbs curve is expected on this test bed" : "") . \
	note(inflight_note(verbs . lite))
set key bottom left

do for [fmt in formats] {
	eval out(fmt)
	plot sel("verbs_tput") using 4:6:7:8 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "verbs, one MR each (ibv\\_reg\\_mr)" . with(verbs), \
	     sel("lite_tput")  using 4:6:7:8 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE, one LMR each (global key)" . with(lite)
	unset output
}
