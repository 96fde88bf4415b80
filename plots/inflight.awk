# Operations in flight in a throughput run, from the "# key=value"
# provenance the clients (microbench/) print at the top of raw/*.csv.
# awk -v prog=lite_bench|verbs_bench -v per=all|each -f inflight.awk FILES
# per=all: all of one client's threads (LITE) or QPs (verbs) together;
# per=each: per LITE thread or verbs QP. Prints e.g. "16 in flight", or
# the distinct phrases joined by "; ", or nothing without such a client.
# lite_bench before --depth (no "# depth=") wrote synchronously: depth 0.

function flush(n, d, s) {
	if (p != prog || role != "client" || mode != "tput")
		return
	d = m["depth"] + 0
	if (prog == "lite_bench") {
		n = (d > 0 ? d : 1) * (per == "each" ? 1 : m["threads"])
		s = n " in flight" (per == "each" ? " each" : "") (d > 0 ? "" : ", synchronous")
		if (per != "each" && m["threads"] > 1)
			s = s " (" m["threads"] " threads)"
	} else {
		n = d * (per == "each" ? 1 : m["qps"])
		s = n " in flight" (per == "each" ? " each" : "")
		if (per != "each" && m["qps"] > 1)
			s = s " (" m["qps"] " QPs)"
	}
	if (!(s in seen)) {
		seen[s] = 1
		out = out (out == "" ? "" : "; ") s
	}
}

FNR == 1 {
	if (NR > 1)
		flush()
	split("", m)
	p = role = mode = ""
}
/^# [a-z_]+=/ {
	k = substr($0, 3, index($0, "=") - 3)
	v = substr($0, index($0, "=") + 1)
	if (k == "program") p = v
	else if (k == "role") role = v
	else if (k == "mode") mode = v
	else m[k] = v
}
END {
	if (NR > 0)
		flush()
	printf "%s", out
}
