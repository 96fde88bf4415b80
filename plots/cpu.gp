# CPU time per RPC on the server and the client host vs achieved load:
# LITE RPC against the native write-imm RPC (busy polling). Points are
# medians of the repetitions at one offered rate; whiskers the lowest and
# highest. The whole host's CPU time (/proc/stat), divided by the calls.
# Variables (gnuplot -e): datafile (data.csv of a cpu run), outbase, testbed.
# CSV columns: system,offered,reps,calls_per_sec,server_us_per_call,
#   server_lo,server_hi,client_us_per_call,client_lo,client_hi,
#   server_cores,client_cores

if (!exists("datafile") || !exists("outbase")) {
	print "usage: gnuplot -e \"datafile='data.csv'; outbase='out/cpu'\" cpu.gp"
	exit status 2
}
if (!exists("testbed")) testbed = "unknown testbed"

set datafile separator ","
set logscale xy 10
set xlabel "achieved load (64 B RPCs per second)"
set ylabel "CPU time per RPC (µs), whole host"
set title sprintf("CPU per RPC: LITE vs native busy-polling write-imm RPC\n{/*0.8 %s}", testbed)
set key top right box opaque
set grid xtics ytics mxtics mytics lc rgb "#dddddd"

sel(s) = sprintf("< awk -F, '$1 == \"%s\"' '%s'", s, datafile)

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 960,640 enhanced font "DejaVu Sans,11"
	} else {
		set terminal svg size 960,640 enhanced font "DejaVu Sans,11" dynamic
	}
	set output sprintf("%s.%s", outbase, fmt)
	plot sel("lite")  using 4:5:6:7  with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE RPC, server host", \
	     sel("lite")  using 4:8:9:10 with yerrorlines lw 2 pt 6 dt 2 lc rgb "#1f77b4" title "LITE RPC, client host", \
	     sel("verbs") using 4:5:6:7  with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "verbs write-imm RPC, server host", \
	     sel("verbs") using 4:8:9:10 with yerrorlines lw 2 pt 8 dt 2 lc rgb "#d62728" title "verbs write-imm RPC, client host"
	unset output
}
