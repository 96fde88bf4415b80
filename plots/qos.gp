# Left: latency of a high-priority LITE RPC stream alone and under
# low-priority background traffic, with priorities on and off. Boxes are
# medians of the repetitions' medians; whiskers run from the smallest
# minimum to the median p99. Right, when the run has a background.csv
# beside data.csv: what that costs the background, its throughput outside
# the stream's timed calls and while they ran (medians of the repetitions,
# whiskers their range).
# Variables: see common.gp; datafile is the data.csv of a qos run.
# CSV columns: bench,op,size,param,reps,median_us,lo_us,hi_us,min_us,p99_us
# (bench is the case: idle, load-prio, load-noprio); background.csv:
# bench,rep,size,alone_bytes_per_sec,during_bytes_per_sec

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

bgfile = system(sprintf("dirname '%s'", datafile)) . "/background.csv"
hasbg = system(sprintf("test -s '%s' && echo 1 || echo 0", bgfile)) + 0
if (hasbg) width = 1280

# bgstat(case, col, name): median, min and max of a background.csv column
# (bytes/s) in MiB/s over the case's repetitions, as name_median etc.
bgrows(case, col) = sprintf("< awk -F, 'NR > 1 && $1 == \"%s\" { print $%d / 1048576 }' '%s'", case, col, bgfile)
bgstat(case, col, name) = sprintf("stats bgrows('%s', %d) using 1 nooutput prefix '%s'", case, col, name)
if (hasbg) {
	eval bgstat("load-prio", 4, "PA"); eval bgstat("load-prio", 5, "PD")
	eval bgstat("load-noprio", 4, "NA"); eval bgstat("load-noprio", 5, "ND")
	set print $bg
	print sprintf("0,%g,%g,%g", PA_median, PA_min, PA_max)
	print sprintf("1,%g,%g,%g", PD_median, PD_min, PD_max)
	print sprintf("2.5,%g,%g,%g", NA_median, NA_min, NA_max)
	print sprintf("3.5,%g,%g,%g", ND_median, ND_min, ND_max)
	unset print
	bgmax = 1.15 * (PA_max > NA_max ? (PA_max > PD_max ? PA_max : PD_max) : (NA_max > ND_max ? NA_max : ND_max))
}

do for [fmt in formats] {
	eval out(fmt)
	if (hasbg) { set multiplot layout 1, 2 title title("QoS: a high-priority LITE RPC stream and the low-priority load beside it") }
	eval bars(0.6, 0.5)
	set autoscale	# the right panel's ranges, from the format before
	set xrange [-0.6:2.6]
	eval fitzero("y", 10)
	set xtics ("alone" 0, "with low-priority load,\npriorities on" 1, "with low-priority load,\npriorities off" 2)
	set ylabel "64 B RPC latency (µs), median with min..p99"
	set title (hasbg ? "high priority: latency of the stream" : title("QoS: a high-priority LITE RPC stream"))
	set key off
	set bmargin 5
	plot sel("idle")        using (0):6 with boxes lc rgb "#1f77b4", \
	     sel("idle")        using (0):6:9:10 with yerrorbars lc rgb "black" pt 0, \
	     sel("load-prio")   using (1):6 with boxes lc rgb "#2ca02c", \
	     sel("load-prio")   using (1):6:9:10 with yerrorbars lc rgb "black" pt 0, \
	     sel("load-noprio") using (2):6 with boxes lc rgb "#d62728", \
	     sel("load-noprio") using (2):6:9:10 with yerrorbars lc rgb "black" pt 0
	if (hasbg) {
		set xrange [-0.7:4.2]
		set yrange [0:bgmax]
		set xtics ("priorities on" 0.5, "priorities off" 3)
		set ylabel "background throughput (MiB/s), median with range"
		set title "low priority: 2 threads of 64 KiB LITE writes from the same node"
		set key top right box opaque
		set label 1 sprintf("%.0f%%", 100 * PD_median / PA_median) at 1, PD_max center offset 0, 1
		set label 2 sprintf("%.0f%%", 100 * ND_median / NA_median) at 3.5, ND_max center offset 0, 1
		plot $bg every ::0::0 using 1:2 with boxes lc rgb "#7f7f7f" title "while the stream is idle", \
		     $bg every ::2::2 using 1:2 with boxes lc rgb "#7f7f7f" notitle, \
		     $bg every ::1::1 using 1:2 with boxes lc rgb "#2ca02c" title "while it runs, priorities on", \
		     $bg every ::3::3 using 1:2 with boxes lc rgb "#d62728" title "while it runs, priorities off", \
		     $bg using 1:2:3:4 with yerrorbars lc rgb "black" pt 0 notitle
		unset label 1
		unset label 2
		unset multiplot
	}
	unset output
}
