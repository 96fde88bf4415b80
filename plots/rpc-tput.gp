# RPC throughput (64 B request and reply) vs client threads: LITE RPC,
# native verbs RPCs, TCP. Points are medians of the repetitions; whiskers
# the lowest and highest.
# Variables: see common.gp; datafile is the data.csv of an rpc-tput run.
# CSV columns: bench,op,size,param,reps,ops_per_sec,lo,hi,bytes_per_sec

call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0

eval tputaxes(2)
set xlabel "client threads"
set ylabel "RPCs per second (median, lowest..highest)"
set title title("RPC throughput: LITE vs native verbs RPC vs TCP")

do for [fmt in formats] {
	eval out(fmt)
	plot sel2("lite_rpc", "rpc")       using 4:6:7:8 with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "LITE RPC", \
	     sel2("verbs_rpc", "writeimm") using 4:6:7:8 with yerrorlines lw 2 pt 9 lc rgb "#d62728" title "verbs write-imm RPC", \
	     sel2("verbs_rpc", "sendrecv") using 4:6:7:8 with yerrorlines lw 2 pt 11 lc rgb "#ff9896" title "verbs send/recv RPC", \
	     sel2("tcp_rpc", "tcp")        using 4:6:7:8 with yerrorlines lw 2 pt 13 lc rgb "#2ca02c" title "TCP"
	unset output
}
