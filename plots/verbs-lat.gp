# Native verbs latency vs message size (perftest), one curve per operation.
# Points are medians; whiskers run from the minimum to the 99th percentile.
# Variables: see common.gp; datafile is the data.csv of a verbs-lat run.
# CSV columns: op,bytes,iters,min_us,median_us,avg_us,stdev_us,p99_us,p999_us,max_us

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

eval sizeaxes(2, 4, 8)
eval logtics("y", ylo, yhi)
set xlabel "message size"
set ylabel "latency (µs), median with min..p99 whiskers"
set title title("Native RDMA verbs latency (perftest)") . note("as perftest reports them: write and send/recv = RTT/2 (half a ping-pong), read = RTT")

do for [fmt in formats] {
	eval out(fmt)
	plot sel("write") using 2:5:4:8 with yerrorlines lw 2 pt 7 ps 0.8 lc rgb "#1f77b4" title "RDMA write (ib\\_write\\_lat, RTT/2)", \
	     sel("read")  using 2:5:4:8 with yerrorlines lw 2 pt 5 ps 0.8 lc rgb "#d62728" title "RDMA read (ib\\_read\\_lat, RTT)", \
	     sel("send")  using 2:5:4:8 with yerrorlines lw 2 pt 9 ps 0.9 lc rgb "#2ca02c" title "send/recv (ib\\_send\\_lat, RTT/2)"
	unset output
}
