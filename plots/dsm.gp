# LITE-Kernel-DSM's operations from user space (microbench/dsm_bench),
# beside LITE's one-sided read (lite_bench) and Global Arrays' get and
# fenced put (ga_bench), one operation at a time. Left: each operation's
# latency (dots: medians of the repetitions' medians; whiskers from the
# smallest minimum to the median p99). Right: a release against the
# number of pages dirtied before it. Both panels share the y range.
# What a sample is: microbench/README.md; the figure: exp.md, "dsm".
# Variables: see common.gp; datafile is the data.csv of a dsm run.
# CSV columns: bench,op,size,param,reps,median_us,lo_us,hi_us,min_us,p99_us

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

width = 1200
height = 640

# The left panel's operations, in order: bench op size|label|group (1 DSM,
# 2 LITE, 3 GA). Rows for x = 1, 2, ... with their label and group.
# (Labels without commas: the rows are CSV.)
left = "dsm_lat read_fault 4096|DSM read fault 4 KiB (1-page block)|1;" . \
	"lite_lat read 4096|LITE read 4 KiB|2;" . \
	"ga_lat get 4096|GA get 4 KiB|3;" . \
	"dsm_lat block_fault 65536|DSM block fault 64 KiB|1;" . \
	"lite_lat read 65536|LITE read 64 KiB|2;" . \
	"dsm_lat cached_fault 4096|DSM fault on a cached page|1;" . \
	"dsm_lat write_fault 4096|DSM write fault (twin)|1;" . \
	"ga_lat put 4096|GA put + fence 4 KiB|3;" . \
	"dsm_lat acquire 0|DSM acquire|1;" . \
	"dsm_lat barrier 0|DSM barrier|1"
# ops(g): x,label,median,min,p99 of group g's operations in datafile.
ops(g) = sprintf("< awk -F, -v spec='%s' -v g=%d 'BEGIN { n = split(spec, s, \";\"); for (i = 1; i <= n; i++) { split(s[i], f, \"|\"); x[f[1]] = i; lab[f[1]] = f[2]; grp[f[1]] = f[3] } } " . \
	"NR > 1 { k = $1 \" \" $2 \" \" $3; if ((k in x) && grp[k] == g) print x[k] \",\" lab[k] \",\" $6 \",\" $9 \",\" $10 }' '%s' | sort -t, -k1,1n", left, g, datafile)
dsmops = ops(1)
liteops = ops(2)
gaops = ops(3)
dsm_c = opt("dsmops", 'using 1:3:4:5:xtic(2) with yerrorbars pt 7 ps 1.3 lc rgb "#1f77b4" title "LITE-Kernel-DSM"')
lite_c = opt("liteops", 'using 1:3:4:5:xtic(2) with yerrorbars pt 5 ps 1.3 lc rgb "#555555" title "LITE read (lite\\_bench)"')
ga_c = opt("gaops", 'using 1:3:4:5:xtic(2) with yerrorbars pt 9 ps 1.3 lc rgb "#d62728" title "Global Arrays (ga\\_bench)"')
nleft = 10

rel = sel2("dsm_lat", "release")
rel_c = opt("rel", 'using 4:6:9:10 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "DSM release (median, min..p99)"')
# Whole pages rewritten (size = 4096 x pages) or one byte of each.
dirtied = system(sprintf("awk -F, 'NR > 1 && $2 == \"release\" && $4 > 0 { print ($3 / $4 >= 4096 ? \"every byte of each page changed\" : \"one byte of each page changed\"); exit }' '%s'", datafile))
nodes = system(sprintf("awk -F, 'NR > 1 && $2 == \"barrier\" { print $4; exit }' '%s'", datafile))
# The release's page counts: the x range (padded) and its tics.
klist = system(sprintf("awk -F, 'NR > 1 && $1 == \"dsm_lat\" && $2 == \"release\" { print $4 + 0 }' '%s' | sort -gu | paste -sd' ' -", datafile))
kmin = words(klist) ? real(word(klist, 1)) : 1
kmax = words(klist) ? real(word(klist, words(klist))) : 256
ktics = ""
do for [i = 1:words(klist)] { ktics = ktics . (i > 1 ? ", " : "") . word(klist, i) }

set logscale y 10
eval fitlog("y", 9, 10)
eval logtics("y", ylo, yhi)
set ylabel "latency (µs), median; whiskers min..p99"

do for [fmt in formats] {
	eval out(fmt)
	set multiplot layout 1,2 title title("LITE-Kernel-DSM: faults, locks, release, barrier, beside LITE's read and GA's get/put") . \
		note(sprintf("one operation at a time from the first node; pages, homes and locks on other nodes%s", nodes eq "" ? "" : sprintf("; barrier of %s nodes", nodes)))

	set title "one operation"
	unset logscale x
	set xrange [0.4:nleft + 0.6]
	set xtics rotate by -35 font ",9" nomirror
	set xlabel ""
	set key top left box opaque font ",10"
	plot @dsm_c, @lite_c, @ga_c

	set title sprintf("release with k dirty pages%s", dirtied eq "" ? "" : " (" . dirtied . ")")
	set logscale x 2
	set xrange [kmin / 1.5:kmax * 1.5]
	set xtics norotate font "" autofreq
	if (ktics ne "") { eval "set xtics (" . ktics . ")" }
	set xlabel "dirty pages k at the release (a 64 KiB block: 16)"
	set key top left box opaque
	plot @rel_c
	unset multiplot
	unset output
}
