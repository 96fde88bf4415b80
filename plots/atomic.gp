# LITE atomics on the NIC (RDMA atomic work requests) against the CPU
# fallback (a control message served by the owner's CPU): latency of
# fetch-and-add and compare-and-swap on 8 bytes of a remote atomic LMR, and
# the owner host's CPU time per operation. Bars are medians of the
# repetitions; whiskers the lowest and highest.
# Variables (gnuplot -e): datafile (data.csv of an atomic run), outbase,
# testbed.
# CSV columns: path,op,reps,median_us,lat_lo,lat_hi,p99_us,owner_cpu_us,
#   cpu_lo,cpu_hi

if (!exists("datafile") || !exists("outbase")) {
	print "usage: gnuplot -e \"datafile='data.csv'; outbase='out/atomic'\" atomic.gp"
	exit status 2
}
if (!exists("testbed")) testbed = "unknown testbed"

set datafile separator ","
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set yrange [0:*]
set key below
set grid ytics lc rgb "#dddddd"

sel(p) = sprintf("< awk -F, '$1 == \"%s\"' '%s'", p, datafile)

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 1100,520 enhanced font "DejaVu Sans,11"
	} else {
		set terminal svg size 1100,520 enhanced font "DejaVu Sans,11" dynamic
	}
	set output sprintf("%s.%s", outbase, fmt)
	set multiplot layout 1,2 title sprintf("LITE atomics: on the NIC vs on the owner's CPU\n{/*0.8 %s}", testbed)
	set ylabel "latency (µs), median of repetitions"
	set title "latency, one operation at a time"
	plot sel("nic") using 4:5:6:xtic(2) lc rgb "#1f77b4" title "NIC (RDMA atomic WR)", \
	     sel("cpu") using 4:5:6 lc rgb "#d62728" title "owner's CPU (control message)"
	set ylabel "owner host CPU time per operation (µs)"
	set title "owner's CPU per operation"
	plot sel("nic") using 8:9:10:xtic(2) lc rgb "#1f77b4" title "NIC (RDMA atomic WR)", \
	     sel("cpu") using 8:9:10 lc rgb "#d62728" title "owner's CPU (control message)"
	unset multiplot
	unset output
}
