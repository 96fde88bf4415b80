# RPC latency vs request size (reply of the same size): LITE RPC, native
# verbs RPCs (write-imm ping-pong, send/recv), TCP. Points are medians of
# the repetitions' medians; whiskers run from the smallest minimum to the
# median p99.
# Variables (gnuplot -e): datafile (data.csv of an rpc-lat run), outbase, testbed.
# CSV columns: bench,op,size,param,reps,median_us,lo_us,hi_us,min_us,p99_us

if (!exists("datafile") || !exists("outbase")) {
	print "usage: gnuplot -e \"datafile='data.csv'; outbase='out/rpc-lat'\" rpc-lat.gp"
	exit status 2
}
if (!exists("testbed")) testbed = "unknown testbed"

set datafile separator ","
set logscale xy 2
set format x "%.0s%cB"
set xrange [4:131072]
set xlabel "request and reply size (bytes)"
set ylabel "round trip (µs), median with min..p99 whiskers"
set title sprintf("RPC latency: LITE vs native verbs RPC vs TCP\n{/*0.8 %s}", testbed)
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
	plot sel("lite_rpc", "rpc")       using 3:6:9:10 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE RPC (write-imm, shared poller)", \
	     sel("verbs_rpc", "writeimm") using 3:6:9:10 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "verbs write-imm ping-pong (busy poll)", \
	     sel("verbs_rpc", "sendrecv") using 3:6:9:10 with yerrorlines lw 2 pt 11 lc rgb "#ff9896" title "verbs send/recv (busy poll)", \
	     sel("tcp_lat", "tcp")        using 3:6:9:10 with yerrorlines lw 2 pt 13 lc rgb "#2ca02c" title "TCP request/response"
	unset output
}
