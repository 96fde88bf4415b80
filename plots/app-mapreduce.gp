# LITE-MapReduce against the same jobs on MapReduce-MPI (OpenMPI, TCP) on
# 1..N nodes, and the single-node reference (mr-ref): time to the result
# (input generation excluded) against the number of nodes, wordcount solid
# and invindex dashed; LITE-MapReduce's RPC shuffle, its default, in open
# circles, its write shuffle in filled ones. Points are medians of the repetitions, whiskers the
# fastest and slowest. Every run's output equalled mr-ref's byte for byte
# (verified.txt beside data.csv).
# Variables: see common.gp; datafile is the data.csv of an app-mapreduce run.
# CSV columns: bench,op,size,param,reps,ops_per_sec,lo,hi,bytes_per_sec
# (op is the job, size the corpus MiB, param the nodes; one op per run).

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

s(c) = 1.0 / column(c)
mib(j) = system(sprintf("awk -F, '$2 == \"%s\" { print $3; exit }' '%s'", j, datafile))
stats rows('1') using 4 nooutput prefix "N"
stats rows('1') using (s(7)) nooutput prefix "Y"
set xrange [0.7:N_max + 0.3]
set xtics 1
set yrange [0:Y_max * 1.35]
set xlabel "nodes"
set ylabel "time to result (s), median; whiskers: fastest..slowest"
set title title(sprintf("MapReduce: wordcount (%s MiB) and inverted index (%s MiB, dashed), LITE-MapReduce vs MapReduce-MPI over TCP", mib("wordcount"), mib("invindex")))
set key top left box opaque
wcrpc = sel2("lite_mapreduce_rpc", "wordcount")
iirpc = sel2("lite_mapreduce_rpc", "invindex")
rpcwc = opt("wcrpc", 'using 4:(s(6)):(s(8)):(s(7)) with yerrorlines lw 1 pt 6 lc rgb "#1f77b4" title "LITE-MapReduce, RPC shuffle (default)"')
rpcii = opt("iirpc", 'using 4:(s(6)):(s(8)):(s(7)) with yerrorlines lw 1 dt 2 pt 6 lc rgb "#1f77b4" notitle')

do for [fmt in formats] {
	eval out(fmt)
	plot sel2("lite_mapreduce", "wordcount") using 4:(s(6)):(s(8)):(s(7)) with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE-MapReduce (write shuffle)", \
	     sel2("lite_mapreduce", "invindex") using 4:(s(6)):(s(8)):(s(7)) with yerrorlines lw 2 dt 2 pt 7 lc rgb "#1f77b4" notitle, \
	     @rpcwc, @rpcii, \
	     sel2("mrmpi", "wordcount") using 4:(s(6)):(s(8)):(s(7)) with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "MapReduce-MPI (OpenMPI, TCP)", \
	     sel2("mrmpi", "invindex") using 4:(s(6)):(s(8)):(s(7)) with yerrorlines lw 2 dt 2 pt 9 lc rgb "#d62728" notitle, \
	     sel2("mr_ref", "wordcount") using 4:(s(6)):(s(8)):(s(7)) with yerrorbars pt 5 lc rgb "#555555" title "mr-ref, one node, one thread", \
	     sel2("mr_ref", "invindex") using 4:(s(6)):(s(8)):(s(7)) with yerrorbars pt 4 lc rgb "#555555" notitle
	unset output
}
