# The control path: a fresh process's time from its start to its first
# completed remote write, native verbs (rdma_cm) against LITE. Left: one
# peer, stacked by step (medians of the repetitions, so the stack need not
# equal the median total). Right: from the process's start to the first
# write to each of k peers, against k; points are medians, whiskers the
# lowest and highest repetition; dashed: the same from main() (without
# exec and loading, measured in 10 ms clock ticks); dotted, where the run
# kept per-run.csv: native verbs from main() without its device list
# (libibverbs loading its provider libraries), the median of each run's
# difference.
# Variables: see common.gp; datafile is the data.csv of a ctrl-path run.
# CSV columns: system,peers,step,reps,median_us,lo_us,hi_us

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

width = 1200
height = 560

# Every step of either system, in the order a process runs them.
steps = "exec args devices open pd cq mr buffer resolve qp connect ask write"
labels = "'exec to main' 'options' 'device list, providers' 'open device, /dev/lite' 'alloc PD' 'create CQ' 'register MR' 'LITE buffer' 'resolve address+route' 'create QP' 'rdma\\_connect' 'lite\\_ask' 'first write'"
colors = "#7f7f7f #c7c7c7 #393b79 #1f77b4 #aec7e8 #17becf #9edae5 #98df8a #ff7f0e #ffbb78 #d62728 #2ca02c #9467bd"

# A step at one peer: one row per system (its name, the median in ms; 0
# for a step it does not have). Row i of every step makes bar i.
step(st) = sprintf("< awk -F, -v s=%s '$2 == 1 && $3 == s { v[$1] = $5 } END { print \"native verbs,\" v[\"verbs\"] / 1000; print \"LITE,\" v[\"lite\"] / 1000 }' '%s'", st, datafile)
sel(sys, st) = sprintf("< awk -F, '$1 == \"%s\" && $3 == \"%s\"' '%s' | sort -t, -k2,2n", sys, st, datafile)
# per-run.csv (system,peers,step,rep,us): verbs' total minus its devices
# step per run, then the median per k (input sorted by k, then value).
perrun = system("dirname '" . datafile . "'") . "/per-run.csv"
nodev_cmd = sprintf("< awk -F, '$1 == \"verbs\" && $3 == \"total\" { t[$2 \",\" $4] = $5 } $1 == \"verbs\" && $3 == \"devices\" { d[$2 \",\" $4] = $5 } END { for (k in t) if (k in d) { split(k, p, \",\"); print p[1] \",\" t[k] - d[k] } }' '%s' | sort -t, -k1,1n -k2,2g | awk -F, 'function flush() { if (n) print k \",\" (n %% 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) } $1 != k { flush(); k = $1; n = 0 } { a[++n] = $2 } END { flush() }'", perrun)
nnodev = int(system(sprintf("cat '%s' 2>/dev/null | grep -c '^verbs,[0-9]*,devices,' || true", perrun)))
nodev = nnodev ? 'nodev_cmd using 1:($2 / 1000) with linespoints lc rgb "#d62728" dt 3 pt 1 title "native verbs, from main(), without the device list",' : ''

do for [fmt in formats] {
	eval out(fmt)
	set multiplot layout 1,2 title title("Control path: process start to the first completed write to a new peer")

	set title "one peer, by step (medians)"
	set style data histograms
	set style histogram rowstacked
	eval bars(0.9, 0.6)
	set yrange [0:*]
	set xrange [-0.6:1.6]
	set ylabel "time (ms)"
	set key outside right top vertical font ",9" reverse Left
	plot for [i=1:words(steps)] step(word(steps, i)) using 2:xtic(1) \
		lc rgb word(colors, i) title word(labels, i)

	set title "k peers: process start to the k-th first write"
	set style data yerrorlines
	set autoscale x
	set offsets 0.3, 0.3, 0, 0
	set xtics 1
	set xlabel "peers k (a connection to each, one write each)"
	set ylabel "time (ms), median of repetitions"
	set key inside left top noreverse Right font ",10"
	plot sel("verbs", "start") using 2:($5 / 1000):($6 / 1000):($7 / 1000) \
		lc rgb "#d62728" pt 7 title "native verbs (rdma\\_cm), from process start", \
	     sel("lite", "start") using 2:($5 / 1000):($6 / 1000):($7 / 1000) \
		lc rgb "#1f77b4" pt 5 title "LITE (lite\\_ask), from process start", \
	     sel("verbs", "total") using 2:($5 / 1000) with linespoints \
		lc rgb "#d62728" dt 2 pt 6 title "native verbs, from main()", \
	     @nodev \
	     sel("lite", "total") using 2:($5 / 1000) with linespoints \
		lc rgb "#1f77b4" dt 2 pt 4 title "LITE, from main()"
	unset multiplot
	unset output
}
