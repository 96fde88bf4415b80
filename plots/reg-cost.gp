# Time to make memory remotely accessible, and to give it back, vs size:
# ibv_reg_mr / ibv_dereg_mr (of memory allocated beforehand, and with the
# allocation: mmap + touch + reg, dereg + munmap) against LITE's LMR
# allocation / free. Points are medians of the repetitions; whiskers the
# lowest and highest.
# Variables: see common.gp; datafile is the data.csv of a reg-cost run.
# CSV columns: bench,op,size,param,reps,median_us,lo_us,hi_us,min_us,p99_us

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

set logscale x 2
set logscale y 10
eval fitlog("x", 3, 3)
eval bytetics(3)
eval fitlog("y", 7, 8)
eval logtics("y", ylo, yhi)
set xlabel "bytes made remotely accessible"
set ylabel "time (µs), median with lowest..highest"
set title title("Registration cost: ibv\\_reg\\_mr vs LITE allocation")
# Runs before the allocation was timed have no alloc-reg, dereg-free rows.
allocreg = sel2("verbs_reg", "alloc-reg")
deregfree = sel2("verbs_reg", "dereg-free")
allocreg_c = opt("allocreg", 'using 3:6:7:8 with yerrorlines lw 2 pt 8 dt 2 lc rgb "#d62728" title "mmap + touch + ibv\\_reg\\_mr"')
deregfree_c = opt("deregfree", 'using 3:6:7:8 with yerrorlines lw 2 pt 10 dt 2 lc rgb "#ff9896" title "ibv\\_dereg\\_mr + munmap"')

do for [fmt in formats] {
	eval out(fmt)
	plot sel2("verbs_reg", "reg")        using 3:6:7:8 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "ibv\\_reg\\_mr", \
	     sel2("verbs_reg", "dereg")      using 3:6:7:8 with yerrorlines lw 2 pt 11 lc rgb "#ff9896" title "ibv\\_dereg\\_mr", \
	     @allocreg_c, \
	     @deregfree_c, \
	     sel2("lite_reg", "alloc")       using 3:6:7:8 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE alloc (LMR)", \
	     sel2("lite_reg", "free")        using 3:6:7:8 with yerrorlines lw 2 pt 5 lc rgb "#6baed6" title "LITE free"
	unset output
}
