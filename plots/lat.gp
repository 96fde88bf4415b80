# Write and read latency vs message size, one panel over the other: LITE
# (user and kernel space; user space also under the busy wait policy),
# native verbs (verbs_bench busy-polling and, where the run has it,
# sleeping on a completion channel; perftest), TCP. Points are medians of
# the repetitions' medians; whiskers run from the smallest
# minimum to the median p99 (perftest: one run, its median, minimum and
# p99). What a sample is (microbench/README.md): LITE and verbs_bench time
# one signalled write or read from its post to its completion, a full round
# trip (a write completes when its ACK is back); perftest's ib_write_lat
# reports half a ping-pong (RTT/2), ib_read_lat a round trip; TCP a request
# and a response of the size. Both panels share the y range.
# Variables: see common.gp; datafile is the data.csv of a lat run.
# CSV columns: bench,op,size,param,reps,median_us,lo_us,hi_us,min_us,p99_us

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

width = 1100
height = 1000
eval sizeaxes(3, 9, 10)
eval logtics("y", ylo, yhi)
set xlabel "message size"
# Outside: the small sizes' whiskers reach the top left corner.
set key outside right top Left reverse
# The same x axis in both panels, whatever the keys' widths.
set lmargin at screen 0.09
set rmargin at screen 0.66
set ylabel "latency (µs), median with min..p99 whiskers"

# lc, pt and dt of each program, the same in both panels.
lite = 'lw 2 pt 7 lc rgb "#1f77b4"'
kern = 'lw 2 pt 6 dt 2 lc rgb "#1f77b4"'
# LITE under the busy policy, where the run has it (runs before 2026-11-27
# do not).
busy = 'lw 1 pt 5 dt 4 lc rgb "#17becf"'
nbusy = int(system(sprintf("grep -c '^lite_lat_busy,' '%s' || true", datafile)))
busyw = nbusy ? 'sel2("lite_lat_busy", "write") using 3:6:9:10 with yerrorlines ' . busy . ' title "LITE write, busy policy (RTT)",' : ''
busyr = nbusy ? 'sel2("lite_lat_busy", "read") using 3:6:9:10 with yerrorlines ' . busy . ' title "LITE read, busy policy (RTT)",' : ''
verbs = 'lw 2 pt 9 lc rgb "#d62728"'
# verbs_bench --client-wait event, where the run has it (runs before the
# event-driven series do not).
event = 'lw 2 pt 4 dt 2 lc rgb "#ff7f0e"'
nevent = int(system(sprintf("grep -c '^verbs_lat_event,' '%s' || true", datafile)))
eventw = nevent ? 'sel2("verbs_lat_event", "write") using 3:6:9:10 with yerrorlines ' . event . ' title "verbs RDMA write, event-driven (RTT)",' : ''
eventr = nevent ? 'sel2("verbs_lat_event", "read") using 3:6:9:10 with yerrorlines ' . event . ' title "verbs RDMA read, event-driven (RTT)",' : ''
perf = 'lw 1 pt 8 dt 3 lc rgb "#d62728"'
tcp = 'lw 2 pt 13 lc rgb "#2ca02c"'

do for [fmt in formats] {
	eval out(fmt)
	set multiplot layout 2,1 title title("One-sided latency: LITE vs native verbs vs TCP") . \
		note("RTT: one round trip, post to completion (a write completes when its ACK is back); RTT/2: half a ping-pong, as perftest reports writes")
	set title "RDMA write"
	plot sel2("lite_lat", "write")    using 3:6:9:10 with yerrorlines @lite title "LITE write, user space (RTT)", \
	     @busyw \
	     sel2("lite_kernel", "write") using 3:6:9:10 with yerrorlines @kern title "LITE write, kernel space (RTT)", \
	     sel2("verbs_lat", "write")   using 3:6:9:10 with yerrorlines @verbs title "verbs RDMA write (RTT)", \
	     @eventw \
	     sel2("perftest", "write")    using 3:6:9:10 with yerrorlines @perf title "perftest ib\\_write\\_lat (RTT/2)", \
	     sel2("tcp_lat", "tcp")       using 3:6:9:10 with yerrorlines @tcp title "TCP request/response (RTT)"
	set title "RDMA read"
	plot sel2("lite_lat", "read")     using 3:6:9:10 with yerrorlines @lite title "LITE read, user space (RTT)", \
	     @busyr \
	     sel2("lite_kernel", "read")  using 3:6:9:10 with yerrorlines @kern title "LITE read, kernel space (RTT)", \
	     sel2("verbs_lat", "read")    using 3:6:9:10 with yerrorlines @verbs title "verbs RDMA read (RTT)", \
	     @eventr \
	     sel2("perftest", "read")     using 3:6:9:10 with yerrorlines @perf title "perftest ib\\_read\\_lat (RTT)", \
	     sel2("tcp_lat", "tcp")       using 3:6:9:10 with yerrorlines @tcp title "TCP request/response (RTT)"
	unset multiplot
	unset output
}
