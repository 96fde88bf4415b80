# Native verbs latency vs message size (perftest), one curve per operation.
# Points are medians; whiskers run from the minimum to the 99th percentile.
# Variables (gnuplot -e): datafile (data.csv of a verbs-lat run), outbase
# (output path without extension), testbed (legend text).
# CSV columns: op,bytes,iters,min_us,median_us,avg_us,stdev_us,p99_us,p999_us,max_us

if (!exists("datafile") || !exists("outbase")) {
	print "usage: gnuplot -e \"datafile='data.csv'; outbase='out/verbs-lat'\" verbs-lat.gp"
	exit status 2
}
if (!exists("testbed")) testbed = "unknown testbed"

set datafile separator ","
set logscale xy 2
set format x "%.0s%cB"
set xrange [4:131072]
set xlabel "message size (bytes)"
set ylabel "latency (µs), median with min..p99 whiskers"
set title sprintf("Native RDMA verbs latency (perftest)\n{/*0.8 %s; write/send = RTT/2, read = RTT}", testbed)
set key top left box opaque
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set style line 1 lc rgb "#1f77b4" lw 2 pt 7 ps 0.8
set style line 2 lc rgb "#d62728" lw 2 pt 5 ps 0.8
set style line 3 lc rgb "#2ca02c" lw 2 pt 9 ps 0.9

# The rows of one operation (the header row matches none).
op(name) = sprintf("< awk -F, '$1 == \"%s\"' '%s'", name, datafile)

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 960,640 enhanced font "DejaVu Sans,11"
	} else {
		set terminal svg size 960,640 enhanced font "DejaVu Sans,11" dynamic
	}
	set output sprintf("%s.%s", outbase, fmt)
	plot op("write") using 2:5:4:8 with yerrorlines ls 1 title "RDMA write (ib\\_write\\_lat)", \
	     op("read")  using 2:5:4:8 with yerrorlines ls 2 title "RDMA read (ib\\_read\\_lat)", \
	     op("send")  using 2:5:4:8 with yerrorlines ls 3 title "send/recv (ib\\_send\\_lat)"
	unset output
}
