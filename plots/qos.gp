# Latency of a high-priority LITE RPC stream alone and under low-priority
# background traffic, with priorities on and off. Boxes are medians of the
# repetitions' medians; whiskers run from the smallest minimum to the
# median p99.
# Variables (gnuplot -e): datafile (data.csv of a qos run), outbase, testbed.
# CSV columns: bench,op,size,param,reps,median_us,lo_us,hi_us,min_us,p99_us
# (bench is the case: idle, load-prio, load-noprio)

if (!exists("datafile") || !exists("outbase")) {
	print "usage: gnuplot -e \"datafile='data.csv'; outbase='out/qos'\" qos.gp"
	exit status 2
}
if (!exists("testbed")) testbed = "unknown testbed"

set datafile separator ","
set style fill solid 0.6 border -1
set boxwidth 0.5
set xrange [-0.6:2.6]
set yrange [0:*]
set xtics ("alone" 0, "with low-priority load,\npriorities on" 1, "with low-priority load,\npriorities off" 2)
set ylabel "64 B RPC latency (µs), median with min..p99"
set title sprintf("QoS: a high-priority LITE RPC stream\n{/*0.8 %s}", testbed)
set key off
set bmargin 5
set grid ytics lc rgb "#dddddd"

sel(b) = sprintf("< awk -F, '$1 == \"%s\"' '%s'", b, datafile)

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 960,640 enhanced font "DejaVu Sans,11"
	} else {
		set terminal svg size 960,640 enhanced font "DejaVu Sans,11" dynamic
	}
	set output sprintf("%s.%s", outbase, fmt)
	plot sel("idle")        using (0):6 with boxes lc rgb "#1f77b4", \
	     sel("idle")        using (0):6:9:10 with yerrorbars lc rgb "black" pt 0, \
	     sel("load-prio")   using (1):6 with boxes lc rgb "#2ca02c", \
	     sel("load-prio")   using (1):6:9:10 with yerrorbars lc rgb "black" pt 0, \
	     sel("load-noprio") using (2):6 with boxes lc rgb "#d62728", \
	     sel("load-noprio") using (2):6:9:10 with yerrorbars lc rgb "black" pt 0
	unset output
}
