# Latency of a high-priority LITE RPC stream alone and under low-priority
# background traffic, with priorities on and off. Boxes are medians of the
# repetitions' medians; whiskers run from the smallest minimum to the
# median p99.
# Variables: see common.gp; datafile is the data.csv of a qos run.
# CSV columns: bench,op,size,param,reps,median_us,lo_us,hi_us,min_us,p99_us
# (bench is the case: idle, load-prio, load-noprio)

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

set style fill solid 0.6 border -1
set boxwidth 0.5
set xrange [-0.6:2.6]
eval fitzero("y", 10)
set xtics ("alone" 0, "with low-priority load,\npriorities on" 1, "with low-priority load,\npriorities off" 2)
set grid noxtics
set ylabel "64 B RPC latency (µs), median with min..p99"
set title title("QoS: a high-priority LITE RPC stream")
set key off
set bmargin 5

do for [fmt in formats] {
	eval out(fmt)
	plot sel("idle")        using (0):6 with boxes lc rgb "#1f77b4", \
	     sel("idle")        using (0):6:9:10 with yerrorbars lc rgb "black" pt 0, \
	     sel("load-prio")   using (1):6 with boxes lc rgb "#2ca02c", \
	     sel("load-prio")   using (1):6:9:10 with yerrorbars lc rgb "black" pt 0, \
	     sel("load-noprio") using (2):6 with boxes lc rgb "#d62728", \
	     sel("load-noprio") using (2):6:9:10 with yerrorbars lc rgb "black" pt 0
	unset output
}
