# LITE-Log against Redis streams on the same nodes. Left: appends per
# second of all nodes together (64 B records) against appending threads per
# node, and (dashed, where the run has them) of the nodes other than the
# log's home; points are medians of the repetitions, whiskers the lowest
# and highest. Right, when the run has a data-lat.csv beside data.csv: the
# append latency (median over runs of each node's median; dashed: of the
# p99s) against the record size, one thread per node.
# Variables: see common.gp; datafile is the data.csv of an app-log run.
# CSV columns: bench,op,size,param,reps,ops_per_sec,lo,hi,bytes_per_sec;
# data-lat.csv: bench,op,size,param,runs,median_us,p99_us

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

latfile = system(sprintf("dirname '%s'", datafile)) . "/data-lat.csv"
haslat = system(sprintf("test -s '%s' && echo 1 || echo 0", latfile)) + 0
if (haslat) width = 1280
literows = rows('$1 == "lite_log" && $2 == "append-remote" && $3 == 64')
redisrows = rows('$1 == "redis_log" && $2 == "append-remote" && $3 == 64')
literemote = opt("literows", 'using 4:6:7:8 with yerrorlines lw 1 dt 2 pt 6 lc rgb "#1f77b4" title "LITE-Log, remote nodes only"')
redisremote = opt("redisrows", 'using 4:6:7:8 with yerrorlines lw 1 dt 2 pt 8 lc rgb "#d62728" title "Redis XADD, remote nodes only"')
lat(sys) = sprintf("< awk -F, 'NR > 1 && $1 == \"%s\" && $4 == 1' '%s'", sys, latfile)

do for [fmt in formats] {
	eval out(fmt)
	if (haslat) { set multiplot layout 1, 2 title title("LITE-Log vs Redis streams: appends from every node at once") }
	set autoscale
	unset logscale
	set logscale x 2
	set xrange [0.7:5.5]
	set xtics (1, 2, 4)
	eval fitzero("y", 8)
	set xlabel "appending threads per node"
	set ylabel "appends per second, all nodes (median, lowest..highest)"
	set title (haslat ? "throughput, 64 B records" : title("LITE-Log vs Redis streams: appends from every node at once"))
	set key top left box opaque
	plot rows('$1 == "lite_log" && $2 == "append" && $3 == 64') using 4:6:7:8 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE-Log", \
	     rows('$1 == "redis_log" && $2 == "append" && $3 == 64') using 4:6:7:8 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "Redis XADD", \
	     @literemote, @redisremote
	if (haslat) {
		set autoscale
		set logscale xy 2
		set xrange [40:6500]
		set xtics ("64 B" 64, "256 B" 256, "1 KiB" 1024, "4 KiB" 4096)
		set ytics auto
		set xlabel "record size"
		set ylabel "append latency (µs), median; dashed: p99"
		set title "latency, 1 thread per node"
		plot lat("lite_log") using 3:6 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "LITE-Log", \
		     lat("lite_log") using 3:7 with linespoints lw 1 dt 2 pt 7 lc rgb "#1f77b4" notitle, \
		     lat("redis_log") using 3:6 with linespoints lw 2 pt 9 lc rgb "#d62728" title "Redis XADD", \
		     lat("redis_log") using 3:7 with linespoints lw 1 dt 2 pt 9 lc rgb "#d62728" notitle
		unset multiplot
	}
	unset output
}
