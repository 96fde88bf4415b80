# 64 B random write throughput vs connections: native verbs with one QP
# per connection against LITE threads sharing the pooled QPs. Medians of the
# repetitions; whiskers the lowest and highest.
# Variables (gnuplot -e): datafile (data.csv of a qp-count run), outbase, testbed.
# CSV columns: bench,op,size,param,reps,ops_per_sec,lo,hi,bytes_per_sec

if (!exists("datafile") || !exists("outbase")) {
	print "usage: gnuplot -e \"datafile='data.csv'; outbase='out/qp-count'\" qp-count.gp"
	exit status 2
}
if (!exists("testbed")) testbed = "unknown testbed"

set datafile separator ","
set logscale x 2
set xrange [0.5:512]
set yrange [0:*]
set xlabel "connections: verbs QPs, or LITE client threads"
set ylabel "64 B writes per second (median, lowest..highest)"
set title sprintf("QP-count scalability: native verbs vs LITE\n{/*0.8 %s}", testbed)
set key bottom left box opaque
set grid xtics ytics lc rgb "#dddddd"

sel(b) = sprintf("< awk -F, '$1 == \"%s\"' '%s'", b, datafile)

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 960,640 enhanced font "DejaVu Sans,11"
	} else {
		set terminal svg size 960,640 enhanced font "DejaVu Sans,11" dynamic
	}
	set output sprintf("%s.%s", outbase, fmt)
	plot sel("verbs_tput") using 4:6:7:8 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "verbs, one RC QP per connection, 16 in flight each", \
	     sel("lite_tput")  using 4:6:7:8 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE, threads over K shared QPs, 16 in flight each"
	unset output
}
