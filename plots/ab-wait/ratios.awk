BEGIN { FS = "," }
NR > 1 { m[$1","$2","$4","$5] = $10; cfg[$2] = 1; pt[$4","$5] = 1; r[$1] = 1 }
function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
END {
	for (p in pt) for (c in cfg) { if (c == "verbs") continue; n = 0
		for (k in r) if ((k","c","p) in m && (k",verbs,"p) in m) x[++n] = m[k","c","p] / m[k",verbs,"p]
		printf "%-14s %-7s ratio vs verbs: median %.2f (n=%d)\n", p, c, med(x, n), n }
}
