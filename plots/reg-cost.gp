# Time to make memory remotely accessible, and to give it back, vs size:
# ibv_reg_mr / ibv_dereg_mr (of memory allocated beforehand, and with the
# allocation: mmap + touch + reg, dereg + munmap) against LITE's LMR
# allocation / free. Points are medians of the repetitions; whiskers the
# lowest and highest.
# Variables (gnuplot -e): datafile (data.csv of a reg-cost run), outbase, testbed.
# CSV columns: bench,op,size,param,reps,median_us,lo_us,hi_us,min_us,p99_us

if (!exists("datafile") || !exists("outbase")) {
	print "usage: gnuplot -e \"datafile='data.csv'; outbase='out/reg-cost'\" reg-cost.gp"
	exit status 2
}
if (!exists("testbed")) testbed = "unknown testbed"

set datafile separator ","
set logscale x 2
set logscale y 10
set format x "%.0s%cB"
set format y "10^{%L}"
set xlabel "bytes made remotely accessible"
set ylabel "time (µs), median with lowest..highest"
set title sprintf("Registration cost: ibv\\_reg\\_mr vs LITE allocation\n{/*0.8 %s}", testbed)
set key top left box opaque
set grid xtics ytics mxtics mytics lc rgb "#dddddd"

sel(b, o) = sprintf("< awk -F, '$1 == \"%s\" && $2 == \"%s\"' '%s'", b, o, datafile)

do for [fmt in "png svg"] {
	if (fmt eq "png") {
		set terminal pngcairo size 960,640 enhanced font "DejaVu Sans,11"
	} else {
		set terminal svg size 960,640 enhanced font "DejaVu Sans,11" dynamic
	}
	set output sprintf("%s.%s", outbase, fmt)
	plot sel("verbs_reg", "reg")   using 3:6:7:8 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "ibv\\_reg\\_mr", \
	     sel("verbs_reg", "dereg") using 3:6:7:8 with yerrorlines lw 2 pt 11 lc rgb "#ff9896" title "ibv\\_dereg\\_mr", \
	     sel("verbs_reg", "alloc-reg")  using 3:6:7:8 with yerrorlines lw 2 pt 8 dt 2 lc rgb "#d62728" title "mmap + touch + ibv\\_reg\\_mr", \
	     sel("verbs_reg", "dereg-free") using 3:6:7:8 with yerrorlines lw 2 pt 10 dt 2 lc rgb "#ff9896" title "ibv\\_dereg\\_mr + munmap", \
	     sel("lite_reg", "alloc")  using 3:6:7:8 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE alloc (LMR)", \
	     sel("lite_reg", "free")   using 3:6:7:8 with yerrorlines lw 2 pt 5 lc rgb "#6baed6" title "LITE free"
	unset output
}
