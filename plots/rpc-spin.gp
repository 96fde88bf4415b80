# The wait policy's trade-off for RPC: 64 B call latency (left) and the
# server's CPU time per call (right) for LITE under the adaptive policy at
# several spin limits and under the busy policy, and for the native
# write-imm RPC (busy-polling server). Bars are medians of the
# repetitions; whiskers the lowest and highest repetition.
# Variables: see common.gp; datafile is the data.csv of an rpc-spin run.
# CSV columns: system,reps,median_us,lo_us,hi_us,p99_us,server_us_per_call,
#   cpu_lo,cpu_hi

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

width = 1100
height = 520
# x: LITE's spin limit (adaptive), LITE busy, the native verbs RPC
name(s) = s eq "verbs" ? "verbs" : s eq "lite-busy" ? "busy" : sprintf("%s µs", s[10:])
color(s) = s eq "verbs" ? 0xd62728 : s eq "lite-busy" ? 0x08519c : 0x6baed6
eval bars(0.85, 0.7)
set yrange [0:*]
set xrange [-0.6:*]
set xlabel "LITE adaptive: spin limit (light) | LITE busy (dark) | native verbs write-imm RPC (red)" font ",10"
unset key

do for [fmt in formats] {
	eval out(fmt)
	set multiplot layout 1,2 title title("RPC wait policy: latency against server CPU per call (64 B, one call in flight)")
	set ylabel "round trip (µs), median of repetitions"
	set title "latency"
	plot datafile using 0:3:(color(strcol(1))):xtic(name(strcol(1))) every ::1 with boxes lc rgb variable, \
	     "" using 0:3:4:5 every ::1 with yerrorbars lc rgb "black" pt -1
	set ylabel "server CPU time per call (µs)"
	set title "server CPU per call"
	plot datafile using 0:7:(color(strcol(1))):xtic(name(strcol(1))) every ::1 with boxes lc rgb variable, \
	     "" using 0:7:8:9 every ::1 with yerrorbars lc rgb "black" pt -1
	unset multiplot
	unset output
}
