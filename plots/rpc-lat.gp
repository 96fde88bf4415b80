# RPC latency vs request size (reply of the same size): LITE RPC, native
# verbs RPCs (write-imm ping-pong, send/recv; both busy-polling, and the
# write-imm one event-driven where the run has it: callers and server
# sleep on completion channels), TCP. Points are medians of the
# repetitions' medians; whiskers run from the smallest minimum to the
# median p99.
# Variables: see common.gp; datafile is the data.csv of an rpc-lat run.
# CSV columns: bench,op,size,param,reps,median_us,lo_us,hi_us,min_us,p99_us

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

eval sizeaxes(3, 9, 10)
eval logtics("y", ylo, yhi)
set xlabel "request and reply size"
set ylabel "round trip (µs), median with min..p99 whiskers"
set title title("RPC latency: LITE vs native verbs RPC vs TCP")
# Runs before the event-driven native RPC have no verbs_rpc_event rows.
nevent = int(system(sprintf("grep -c '^verbs_rpc_event,' '%s' || true", datafile)))
event = nevent ? 'sel2("verbs_rpc_event", "writeimm") using 3:6:9:10 with yerrorlines lw 2 pt 5 dt 2 lc rgb "#ff7f0e" title "verbs write-imm ping-pong (event-driven: sleeps on completion channels)",' : ''

do for [fmt in formats] {
	eval out(fmt)
	plot sel2("lite_rpc", "rpc")       using 3:6:9:10 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE RPC (write-imm, shared poller)", \
	     sel2("verbs_rpc", "writeimm") using 3:6:9:10 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "verbs write-imm ping-pong (busy poll)", \
	     @event \
	     sel2("verbs_rpc", "sendrecv") using 3:6:9:10 with yerrorlines lw 2 pt 11 lc rgb "#ff9896" title "verbs send/recv (busy poll)", \
	     sel2("tcp_lat", "tcp")        using 3:6:9:10 with yerrorlines lw 2 pt 13 lc rgb "#2ca02c" title "TCP request/response"
	unset output
}
