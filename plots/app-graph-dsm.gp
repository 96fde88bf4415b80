# LITE-Graph-DSM (PageRank on LITE-Kernel-DSM) against ga-graph (the same
# on Global Arrays), LITE-Graph (pull mode) and mpi-graph (OpenMPI over
# TCP) on 1..N nodes, and the single-node reference (graph-ref): time per
# iteration (graph generation excluded) against the number of nodes.
# Points are medians of the repetitions, whiskers the fastest and
# slowest; graph-ref's median is also drawn across as a dashed line. Every
# run's ranks matched graph-ref's (verified.txt beside data.csv).
# Variables: see common.gp; datafile is the data.csv of an app-graph-dsm run.
# CSV columns: bench,op,size,param,reps,ops_per_sec,lo,hi,bytes_per_sec
# (ops are iterations, size the R-MAT scale, param the nodes).

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

ms(c) = 1000.0 / column(c)
scale = system(sprintf("awk -F, 'NR == 2 { print $3 }' '%s'", datafile))
stats rows('1') using 4 nooutput prefix "N"
stats rows('1') using (ms(7)) nooutput prefix "Y"
set xrange [0.7:N_max + 0.3]
set xtics 1
set yrange [0:Y_max * 1.1]
width = 1150
set xlabel "nodes"
set ylabel "time per iteration (ms), median; whiskers: fastest..slowest"
set title title(sprintf("PageRank, R-MAT scale %s: LITE-Graph-DSM vs Global Arrays, LITE-Graph, MPI", scale)) . \
	note("LITE-Graph-DSM's pages live on every node of the cluster, whatever the run's node count: 1 node is shown, not judged")
set key outside right top vertical box
refrows = sel("graph_ref")
ref = opt("refrows", 'using 4:(ms(6)):(ms(8)):(ms(7)) with yerrorbars pt 5 lc rgb "#555555" title "graph-ref, one node"')
mpirows = sel("mpi_graph")
mpi = opt("mpirows", 'using 4:(ms(6)):(ms(8)):(ms(7)) with yerrorlines lw 1 dt 2 pt 9 lc rgb "#d62728" title "mpi-graph (OpenMPI, TCP)"')
literows = sel("lite_graph")
lite = opt("literows", 'using 4:(ms(6)):(ms(8)):(ms(7)) with yerrorlines lw 1 dt 2 pt 6 lc rgb "#1f77b4" title "LITE-Graph (pull: reads)"')
garows = sel("ga_graph")
ga = opt("garows", 'using 4:(ms(6)):(ms(8)):(ms(7)) with yerrorlines lw 2 pt 9 lc rgb "#ff7f0e" title "ga-graph (Global Arrays)"')

do for [fmt in formats] {
	eval out(fmt)
	plot sel("lite_graph_dsm") using 4:(ms(6)):(ms(8)):(ms(7)) with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE-Graph-DSM (loads and stores)", \
	     @ga, @lite, @mpi, @ref
	unset output
}
