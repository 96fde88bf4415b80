# The decision rule of exp.md ("Decision rule"), the one ae-scripts/targets
# applies and tests/unit/verdict checks. Needs median.awk (prepended:
# awk "$(cat median.awk verdict.awk)"'...').
#
# The interval is the exact order-statistic (binomial, sign-test) confidence
# interval for the median of n values: from the k-th lowest to the k-th
# highest value, k the largest with P(k <= B <= n - k) >= 95% for
# B ~ Binomial(n, 1/2) (the chance that the true median lies between them,
# whatever the distribution of the values, as long as they are independent
# and share it). Its coverage, 1 - 2 P(B <= k - 1), is what it says, and is
# stated: n discrete, it is 95% or more, never exactly 95%. Under 6 values
# no k reaches 95% (5 values: 93.75% for their range): then there is no
# interval and the point is undecided.
#
# Verdict for a goal "ratio CMP GOAL" (CMP "<=" or ">="), no margin on
# either side:
#   yes        the whole interval meets the goal (for "<=": its upper end
#              <= GOAL; for ">=": its lower end >= GOAL);
#   no         the whole interval misses it (for "<=": lower end > GOAL);
#   undecided  anything else, and every point with no 95% interval.
# A "yes" is wrong (the true median misses the goal) at most 2.5% of the
# time, as a "no" is: one tail of the interval each.

# No exp() or log() here: some awks (busybox built without math) lack them.

# vd_k(n): k for n values (0: no 95% interval); its coverage in vd_kcov.
# Exact in doubles up to n = 1000 (2^-1000 is still a normal double).
function vd_k(n,    k, pmf, cdf, cov, best, i) {
	vd_kcov = 0
	best = 0
	if (n < 1 || n > 1000) return 0
	pmf = 1
	for (i = 1; i <= n; i++) pmf /= 2	# P(B = 0)
	cdf = 0
	for (k = 1; 2 * k <= n + 1; k++) {
		cdf += pmf		# P(B <= k - 1)
		cov = 1 - 2 * cdf
		if (cov < 0.95) break
		best = k
		vd_kcov = cov
		pmf = pmf * (n - k + 1) / k	# P(B = k)
	}
	return best
}

# vd_interval(a, n): the interval of the median of a[1..n] (sorted in
# place, as median() does) into vd_lo, vd_hi ("" without one), with vd_n,
# vd_kk (k) and vd_cov; returns the median.
function vd_interval(a, n,    m) {
	m = median(a, n)
	vd_n = n
	vd_kk = vd_k(n)
	vd_cov = vd_kcov
	if (vd_kk) { vd_lo = a[vd_kk]; vd_hi = a[n - vd_kk + 1] }
	else { vd_lo = ""; vd_hi = "" }
	return m
}

# vd_judge(a, n, cmp, goal): the verdict on a[1..n] ("yes", "no",
# "undecided"); leaves the interval as vd_interval does. For "undecided",
# vd_pairs(a, n, cmp, goal) is the pairs that would likely decide (not
# computed here: it takes a while, and a simulation has no use for it).
function vd_judge(a, n, cmp, goal,    v) {
	vd_med = vd_interval(a, n)
	if (vd_kk) {
		if (cmp == "<=") v = vd_hi <= goal ? "yes" : (vd_lo > goal ? "no" : "")
		else v = vd_lo >= goal ? "yes" : (vd_hi < goal ? "no" : "")
		if (v != "") return v
	}
	return "undecided"
}

# vd_pairs(a, n, cmp, goal): how many pairs a run would likely need to
# decide, judging from these: a new pair is taken to meet the goal with
# the chance p = (w + 1/2) / (n + 1), w the pairs here that meet it (pulled
# toward 1/2 so that a few pairs promise no certainty), and the count is
# the smallest m >= 6 at which the whole interval of m pairs lies on the
# side the pairs lean to with a chance of at least 80% (the interval of m
# pairs meets the goal when at least m - k + 1 of them do: a binomial
# tail). 0: none up to 1000 (the pairs lean to neither side, or hardly).
# A planning figure for the next run's fixed count, not a licence to add
# pairs to this one until it decides.
function vd_pairs(a, n, cmp, goal,    i, w, p, m, k) {
	w = 0
	for (i = 1; i <= n; i++)
		if (cmp == "<=" ? a[i] <= goal : a[i] >= goal) w++
	p = (w + 0.5) / (n + 1)
	if (p < 0.5) p = 1 - p
	if (p == 0.5) return 0
	for (m = 6; m <= 1000; m++) {
		k = vd_k(m)
		if (k && vd_tail(m, p, m - k + 1) >= 0.8) return m
	}
	return 0
}

# vd_tail(m, p, t): P(X >= t) for X ~ Binomial(m, p), 0 < p < 1: the
# probabilities relative to the one at the mode (p^m would underflow),
# those far from it going harmlessly to 0, over their sum.
function vd_tail(m, p, t,    i, i0, r, term, all, s) {
	i0 = int((m + 1) * p)
	if (i0 > m) i0 = m
	r = p / (1 - p)
	all = 1
	s = i0 >= t ? 1 : 0
	term = 1
	for (i = i0; i < m; i++) {	# P(i + 1) / P(i)
		term = term * (m - i) / (i + 1) * r
		all += term
		if (i + 1 >= t) s += term
	}
	term = 1
	for (i = i0; i > 0; i--) {	# P(i - 1) / P(i)
		term = term * i / (m - i + 1) / r
		all += term
		if (i - 1 >= t) s += term
	}
	return s / all
}

# vd_text(v, need): the verdict as the table shows it: "yes", "no", or
# "undecided (...)" with what would decide it (need: vd_pairs's answer).
function vd_text(v, need) {
	if (v != "undecided") return v
	return "undecided (" vd_why(vd_n, need) ")"
}

# vd_why(n, need): why a point is undecided and what would decide it.
function vd_why(n, need,    s) {
	s = need ? "about " need " pairs would decide" : (n >= 6 ? "the pairs lean to neither side: no count up to 1000 is likely to decide" : "")
	if (n < 6) return n " pair" (n == 1 ? "" : "s") ": a 95% interval needs >= 6" (s != "" ? "; " s : "")
	return s
}
