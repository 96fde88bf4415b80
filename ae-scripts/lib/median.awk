# The suite's one median, for every awk program that summarises
# repetitions (prepended to the program text: awk "$(cat median.awk)"'...').
# median(a, n): the median of a[1..n], the mean of the two middle values
# when n is even. Sorts a[1..n] in place, so a[1] and a[n] are then the
# lowest and the highest (insertion sort: n, a count of repetitions, is
# small).
function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
