# CPU time per RPC on the server and the client host vs achieved load:
# LITE RPC against the native write-imm RPC, its server busy-polling or
# event-driven (where the run has it; runs before 2026-11-27 do not). Points are
# medians of the repetitions at one offered rate; whiskers the lowest and
# highest. The whole host's CPU time (/proc/stat), divided by the calls.
# Variables: see common.gp; datafile is the data.csv of a cpu run.
# CSV columns: system,offered,reps,calls_per_sec,server_us_per_call,
#   server_lo,server_hi,client_us_per_call,client_lo,client_hi,
#   server_cores,client_cores

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

set logscale xy 10
eval fitlog("x", 4, 4)
eval logtics("x", xlo, xhi)
# From the lowest to the highest whisker of either host.
stats rows('1') using ($6 < $9 ? $6 : $9) nooutput prefix "LO"
stats rows('1') using ($7 > $10 ? $7 : $10) nooutput prefix "HI"
ylo = padlo(LO_min, HI_max)
yhi = padhi(LO_min, HI_max)
set yrange [ylo:yhi]
eval logtics("y", ylo, yhi)
set xlabel "achieved load (64 B RPCs per second)"
set ylabel "CPU time per RPC (µs), whole host"
set title title("CPU per RPC: LITE vs native write-imm RPC")
nevent = int(system(sprintf("grep -c '^verbs-event,' '%s' || true", datafile)))
event = nevent ? 'sel("verbs-event") using 4:5:6:7 with yerrorlines lw 2 pt 5 lc rgb "#ff7f0e" title "verbs write-imm RPC, event-driven server, server host", sel("verbs-event") using 4:8:9:10 with yerrorlines lw 2 pt 4 dt 2 lc rgb "#ff7f0e" title "verbs write-imm RPC, event-driven server, client host",' : ''
set key top right

do for [fmt in formats] {
	eval out(fmt)
	plot sel("lite")  using 4:5:6:7  with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE RPC, server host", \
	     sel("lite")  using 4:8:9:10 with yerrorlines lw 2 pt 6 dt 2 lc rgb "#1f77b4" title "LITE RPC, client host", \
	     @event \
	     sel("verbs") using 4:5:6:7  with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "verbs write-imm RPC, busy-polling server, server host", \
	     sel("verbs") using 4:8:9:10 with yerrorlines lw 2 pt 8 dt 2 lc rgb "#d62728" title "verbs write-imm RPC, busy-polling server, client host"
	unset output
}
