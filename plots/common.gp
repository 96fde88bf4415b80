# What every plots/<figure>.gp shares. A figure script starts with
#   call system("dirname '" . ARG0 . "'") . "/common.gp" ARG0
# (ARG0 of a loaded file is that file: the figure's own path comes as ARG1)
# and writes each format with
#   do for [fmt in formats] { eval out(fmt); plot ...; unset output }
# Variables (gnuplot -e): datafile (the run's data.csv), outbase (output
# path without extension), testbed (subtitle; provenance.txt's "testbed:"),
# judging (optional: a line naming the points run oversubscribed).

fig = system("basename '" . ARG1 . "' .gp")
plotdir = system("dirname '" . ARG1 . "'")
if (!exists("datafile") || !exists("outbase")) {
	print sprintf("usage: gnuplot -e \"datafile='data.csv'; outbase='out/%s'; testbed='...'\" %s.gp", fig, fig)
	exit status 2
}
if (!exists("testbed")) testbed = "unknown testbed"
# judging: points the targets left out, "oversubscribed, not judged: ..."
# (results.sh's fig_oversub_note); a line under the test bed's.
if (!exists("judging")) judging = ""

# Output: PNG and SVG of one size; a figure may set width/height first.
formats = "png svg"
width = 960
height = 640
out(fmt) = sprintf("set terminal %s size %d,%d enhanced font 'DejaVu Sans,11'%s; set output '%s.%s'", \
	fmt eq "png" ? "pngcairo" : "svg", width, height, fmt eq "svg" ? " dynamic" : "", outbase, fmt)

set datafile separator ","
set grid xtics ytics lc rgb "#dddddd"
set key top left box opaque

# The test bed as literal text in enhanced mode (an inventory name may
# hold "_"); a loop, as a recursive function overflows on long names.
bed = ""
do for [i = 1:strlen(testbed)] {
	bed = bed . (strstrt("_^{}@&~\\", testbed[i:i]) > 0 ? "\\" : "") . testbed[i:i]
}
# Title over a smaller line naming the test bed; title(...) . note(s) adds
# a line in that size (none for "").
title(what) = sprintf("%s\n{/*0.8 %s}", what, bed) . note(judging)
note(s) = s eq "" ? "" : sprintf("\n{/*0.8 %s}", s)
# The local cluster's testbed line ends in "Soft-RoCE" (results.sh); a real
# cluster's names its inventory, which may say rxe.
softroce = strstrt(testbed, "Soft-RoCE") > 0 || strstrt(testbed, "rxe") > 0

# eval bars(fill, width): a bar chart's boxes (solid, FILL opaque, with a
# border) WIDTH wide, and no vertical grid lines between the bars.
bars(fill, width) = sprintf("set style fill solid %g border -1; set boxwidth %g; set grid noxtics", fill, width)

# The data rows (not the header) matching an awk condition on the columns.
rows(cond) = sprintf("< awk -F, 'NR > 1 && (%s)' '%s'", cond, datafile)
sel(a) = rows(sprintf('$1 == "%s"', a))
sel2(a, b) = rows(sprintf('$1 == "%s" && $2 == "%s"', a, b))
# A curve that older runs did not measure: c = opt("var", 'using ...')
# with var = rows(...), then "plot ..., @c" draws it, or nothing (and no
# warning) when var has no rows.
opt(var, spec) = system(sprintf("%s | head -n 1 | wc -l", value(var)[3:])) > 0 ? var . " " . spec : "NaN notitle"

# Sizes in binary units: 8 B, 64 B, 1 KiB, 64 KiB, 1 MiB, 1 GiB (gnuplot's
# %c is decimal: it printed 66kB for 64 KiB).
bytes(x) = x >= 2**30 ? sprintf("%g GiB", x / 2.0**30) : x >= 2**20 ? sprintf("%g MiB", x / 2.0**20) : \
	x >= 1024 ? sprintf("%g KiB", x / 1024.0) : sprintf("%g B", x)
# eval bytetics(col): x tics at the distinct sizes in that column, in
# bytes(); every k-th of them, down from the largest, when there are more
# than 10.
bytetics(col) = sprintf("set xtics (%s)", system(sprintf("awk -F, 'NR > 1 && $%d > 0 { print $%d + 0 }' '%s' | sort -gu | " . \
	"awk '{ v[NR] = $1 } END { k = int((NR + 9) / 10); for (i = NR; i >= 1; i -= k) printf \"%%sbytes(%%.0f) %%.0f\", (i < NR ? \", \" : \"\"), v[i], v[i] }'", \
	col, col, datafile)))

# Axis ranges from the data (all rows), padded, never whole empty decades:
# eval fitlog("x", lo, hi) for a log axis over columns LO..HI (the lowest
# positive value in LO, the highest in HI; one value alone gets x2 either
# side), leaving the range in xlo, xhi; eval fitzero("y", hi) for a linear
# axis from 0.
stat(col, name) = sprintf("stats rows('1') using (column(%d) > 0 ? column(%d) : NaN) nooutput prefix '%s'; ", col, col, name)
padlo(a, b) = a < b ? a / (b / a)**0.05 : a / 2
padhi(a, b) = a < b ? b * (b / a)**0.05 : b * 2
fitlog(ax, lo, hi) = stat(lo, "FITLO") . stat(hi, "FITHI") . \
	sprintf("%slo = padlo(FITLO_min, FITHI_max); %shi = padhi(FITLO_min, FITHI_max); set %srange [%slo:%shi]", ax, ax, ax, ax, ax)
fitzero(ax, hi) = stat(hi, "FITHI") . sprintf("set %srange [0:FITHI_max * 1.08]", ax)
# eval tputaxes(base): throughput (column 6 of a tput data.csv, whiskers to
# column 8) from 0 against the point (column 4) on a log axis of BASE.
tputaxes(base) = sprintf("set logscale x %d; ", base) . fitlog("x", 4, 4) . "; " . fitzero("y", 8)
# eval sizeaxes(size, lo, hi): a log2 size axis over column SIZE with
# tics in bytes, against a log2 y axis over columns LO..HI (then eval
# logtics("y", ylo, yhi) for its labels).
sizeaxes(size, lo, hi) = "set logscale xy 2; " . fitlog("x", size, size) . "; " . bytetics(size) . "; " . fitlog("y", lo, hi)
# eval logtics("y", lo, hi): tics on a log axis at 1, 2, 5 x 10^k between
# LO and HI (at 10^k, so labelled, when that spans more than three
# decades), so a fitted range that holds no power of ten still gets labels.
logtics(ax, lo, hi) = sprintf("set %stics (%s)", ax, system(sprintf("awk -v lo=%g -v hi=%g 'BEGIN { " . \
	"e0 = int(log(lo) / log(10)) - 1; e1 = int(log(hi) / log(10)) + 1; n = split(e1 - e0 > 4 ? \"1\" : \"1 2 5\", m, \" \"); " . \
	"for (e = e0; e <= e1; e++) for (i = 1; i <= n; i++) { v = m[i] * 10 ^ e; if (v >= lo && v <= hi) " . \
	"printf \"%%s\\\"%%s\\\" %%g\", (c++ ? \", \" : \"\"), (n == 1 ? \"10^{\" e \"}\" : v >= 1 ? sprintf(\"%%.0f\", v) : sprintf(\"%%g\", v)), v } }'", lo, hi)))

# Operations in flight as the client programs' provenance in raw/*.csv
# beside data.csv recorded them (plots/inflight.awk): "16 in flight", or ""
# when the run left no such files (plots/reference keeps only data.csv).
inflight(prog, per) = system(sprintf("awk -v prog=%s -v per=%s -f '%s/inflight.awk' \"$(dirname '%s')\"/raw/*.csv 2>/dev/null", \
	prog, per, plotdir, datafile))
# with(s): ", s", or nothing for "".
with(s) = s eq "" ? "" : ", " . s
inflight_note(s) = s eq "" ? "operations in flight: not recorded beside this data (no raw/*.csv)" : ""
