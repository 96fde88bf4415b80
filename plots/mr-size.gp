# Random-offset write throughput vs total memory written to: native verbs
# (one MR of that size) against LITE (one LMR of that size), 64 B and 1 KiB
# writes. Points are medians of the repetitions; whiskers the lowest and
# highest.
# Variables (gnuplot -e): datafile (data.csv of an mr-size run), outbase, testbed.
# CSV columns: bench,op,size,param,reps,ops_per_sec,lo,hi,bytes_per_sec

if (!exists("datafile") || !exists("outbase")) {
	print "usage: gnuplot -e \"datafile='data.csv'; outbase='out/mr-size'\" mr-size.gp"
	exit status 2
}
if (!exists("testbed")) testbed = "unknown testbed"

set datafile separator ","
set logscale x 2
set format x "%.0s%cB"
set xrange [524288:2147483648]
set yrange [0:*]
set xlabel "total registered memory written at random"
set ylabel "writes per second (median, lowest..highest)"
set title sprintf("MR-size scalability: native verbs vs LITE\n{/*0.8 %s}", testbed)
set key bottom left box opaque
set grid xtics ytics lc rgb "#dddddd"

sel(b, s) = sprintf("< awk -F, '$1 == \"%s\" && $3 == %d' '%s'", b, s, datafile)

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 960,640 enhanced font "DejaVu Sans,11"
	} else {
		set terminal svg size 960,640 enhanced font "DejaVu Sans,11" dynamic
	}
	set output sprintf("%s.%s", outbase, fmt)
	plot sel("verbs_tput", 64)   using 4:6:7:8 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "verbs, 64 B writes, 16 in flight", \
	     sel("verbs_tput", 1024) using 4:6:7:8 with yerrorlines lw 2 pt 11 lc rgb "#ff9896" title "verbs, 1 KiB writes, 16 in flight", \
	     sel("lite_tput", 64)    using 4:6:7:8 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE, 64 B writes, 16 in flight", \
	     sel("lite_tput", 1024)  using 4:6:7:8 with yerrorlines lw 2 pt 5 lc rgb "#6baed6" title "LITE, 1 KiB writes, 16 in flight"
	unset output
}
