# Write and read latency vs message size: LITE (user and kernel space),
# native verbs (verbs_bench and perftest), TCP. Points are medians of the
# repetitions' medians; whiskers run from the smallest minimum to the median
# p99 (perftest: one run, its median, minimum and p99).
# Variables (gnuplot -e): datafile (data.csv of a lat run), outbase, testbed.
# CSV columns: bench,op,size,param,reps,median_us,lo_us,hi_us,min_us,p99_us

if (!exists("datafile") || !exists("outbase")) {
	print "usage: gnuplot -e \"datafile='data.csv'; outbase='out/lat'\" lat.gp"
	exit status 2
}
if (!exists("testbed")) testbed = "unknown testbed"

set datafile separator ","
set logscale xy 2
set format x "%.0s%cB"
set xrange [4:131072]
set xlabel "message size (bytes)"
set ylabel "latency (µs), median with min..p99 whiskers"
set title sprintf("One-sided latency: LITE vs native verbs vs TCP\n{/*0.8 %s}", testbed)
set key top left box opaque
set grid xtics ytics mxtics mytics lc rgb "#dddddd"

sel(b, o) = sprintf("< awk -F, '$1 == \"%s\" && $2 == \"%s\"' '%s'", b, o, datafile)

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 960,640 enhanced font "DejaVu Sans,11"
	} else {
		set terminal svg size 960,640 enhanced font "DejaVu Sans,11" dynamic
	}
	set output sprintf("%s.%s", outbase, fmt)
	plot sel("lite_lat", "write")  using 3:6:9:10 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE write (user space)", \
	     sel("lite_lat", "read")   using 3:6:9:10 with yerrorlines lw 2 pt 5 lc rgb "#6baed6" title "LITE read (user space)", \
	     sel("verbs_lat", "write") using 3:6:9:10 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "verbs RDMA write", \
	     sel("lite_kernel", "write") using 3:6:9:10 with yerrorlines lw 2 pt 6 dt 2 lc rgb "#1f77b4" title "LITE write (kernel space)", \
	     sel("lite_kernel", "read")  using 3:6:9:10 with yerrorlines lw 2 pt 4 dt 2 lc rgb "#6baed6" title "LITE read (kernel space)", \
	     sel("verbs_lat", "read")  using 3:6:9:10 with yerrorlines lw 2 pt 11 lc rgb "#ff9896" title "verbs RDMA read", \
	     sel("perftest", "write")  using 3:6:9:10 with yerrorlines lw 1 pt 8 dt 3 lc rgb "#d62728" title "perftest ib\\_write\\_lat (RTT/2)", \
	     sel("perftest", "read")   using 3:6:9:10 with yerrorlines lw 1 pt 10 dt 3 lc rgb "#ff9896" title "perftest ib\\_read\\_lat", \
	     sel("tcp_lat", "tcp")     using 3:6:9:10 with yerrorlines lw 2 pt 13 lc rgb "#2ca02c" title "TCP request/response"
	unset output
}
