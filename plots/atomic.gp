# LITE atomics on the NIC (RDMA atomic work requests) against the CPU
# fallback (a control message served by the owner's CPU): latency of
# fetch-and-add and compare-and-swap on 8 bytes of a remote atomic LMR, and
# the owner host's CPU time per operation. Bars are medians of the
# repetitions; whiskers the lowest and highest.
# Variables: see common.gp; datafile is the data.csv of an atomic run.
# CSV columns: path,op,reps,median_us,lat_lo,lat_hi,p99_us,owner_cpu_us,
#   cpu_lo,cpu_hi

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

width = 1100
height = 520
set style data histograms
set style histogram errorbars gap 1 lw 1
eval bars(0.8, 0.9)
set yrange [0:*]
set key below

do for [fmt in formats] {
	eval out(fmt)
	set multiplot layout 1,2 title title("LITE atomics: on the NIC vs on the owner's CPU")
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
