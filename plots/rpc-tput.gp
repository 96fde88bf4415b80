# RPC throughput (64 B request and reply) vs client threads: LITE RPC,
# native verbs RPCs, TCP. Points are medians of the repetitions; whiskers
# the lowest and highest.
# Variables (gnuplot -e): datafile (data.csv of an rpc-tput run), outbase, testbed.
# CSV columns: bench,op,size,param,reps,ops_per_sec,lo,hi,bytes_per_sec

if (!exists("datafile") || !exists("outbase")) {
	print "usage: gnuplot -e \"datafile='data.csv'; outbase='out/rpc-tput'\" rpc-tput.gp"
	exit status 2
}
if (!exists("testbed")) testbed = "unknown testbed"

set datafile separator ","
set logscale x 2
set xrange [0.7:24]
set yrange [0:*]
set xlabel "client threads"
set ylabel "RPCs per second (median, lowest..highest)"
set title sprintf("RPC throughput: LITE vs native verbs RPC vs TCP\n{/*0.8 %s}", testbed)
set key top left box opaque
set grid xtics ytics lc rgb "#dddddd"

sel(b, o) = sprintf("< awk -F, '$1 == \"%s\" && $2 == \"%s\"' '%s'", b, o, datafile)

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 960,640 enhanced font "DejaVu Sans,11"
	} else {
		set terminal svg size 960,640 enhanced font "DejaVu Sans,11" dynamic
	}
	set output sprintf("%s.%s", outbase, fmt)
	plot sel("lite_rpc", "rpc")       using 4:6:7:8 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE RPC", \
	     sel("verbs_rpc", "writeimm") using 4:6:7:8 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "verbs write-imm RPC", \
	     sel("verbs_rpc", "sendrecv") using 4:6:7:8 with yerrorlines lw 2 pt 11 lc rgb "#ff9896" title "verbs send/recv RPC", \
	     sel("tcp_rpc", "tcp")        using 4:6:7:8 with yerrorlines lw 2 pt 13 lc rgb "#2ca02c" title "TCP"
	unset output
}
