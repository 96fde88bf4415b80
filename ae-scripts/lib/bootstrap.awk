# A bootstrap interval for a median, with the suite's own random numbers so
# that every awk (mawk, gawk, busybox) draws the same resamples and a
# targets table is the same wherever it is recomputed. Needs median.awk.
#
# boot_median(a, n, b): the percentile bootstrap 95% interval of the median
# of a[1..n]: b resamples of n values drawn with replacement, the median of
# each, and their 2.5th and 97.5th percentiles into boot_lo and boot_hi.
# a[] is left as it was. Park-Miller's minimal standard generator, seeded
# alike for every call (16807 * (2^31 - 1) < 2^53: exact in a double).

function boot_rand() {
	boot_seed = (16807 * boot_seed) % 2147483647
	return boot_seed / 2147483647
}

function boot_median(a, n, b,    i, j, s, m) {
	boot_seed = 20261127
	for (i = 1; i <= b; i++) {
		for (j = 1; j <= n; j++) s[j] = a[1 + int(boot_rand() * n)]
		m[i] = median(s, n)
	}
	boot_sort(m, b)
	boot_lo = m[1 + int(0.025 * (b - 1) + 0.5)]
	boot_hi = m[1 + int(0.975 * (b - 1) + 0.5)]
}

# boot_sort(a, n): a[1..n] ascending (Shell sort: b is a few thousand).
function boot_sort(a, n,    gap, i, j, t) {
	for (gap = int(n / 2); gap > 0; gap = int(gap / 2))
		for (i = gap + 1; i <= n; i++) {
			t = a[i]
			for (j = i; j > gap && a[j - gap] > t; j -= gap) a[j] = a[j - gap]
			a[j] = t
		}
}
