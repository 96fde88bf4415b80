#!/bin/bash
# evcount.sh WINDOW: on a guest, as root: trace events over WINDOW seconds,
# counted by kind: timers started (by function), interrupts (by handler),
# softirqs (by kind), wake-ups (by task, digits folded). For run.sh.
set -euo pipefail
t=/sys/kernel/tracing
mountpoint -q "$t" || mount -t tracefs nodev "$t"
echo 0 >"$t/tracing_on"; echo nop >"$t/current_tracer"; echo >"$t/trace"
echo 8192 >"$t/buffer_size_kb"
for e in timer/timer_start timer/hrtimer_start irq/irq_handler_entry irq/softirq_entry irq_vectors/local_timer_entry irq_vectors/call_function_single_entry irq_vectors/reschedule_entry sched/sched_wakeup; do
	echo 1 >"$t/events/$e/enable"
done
echo 1 >"$t/tracing_on"; sleep "$1"; echo 0 >"$t/tracing_on"
echo 0 >"$t/events/enable"
awk '/^#/ { next } {
	ev = ""; for (i = 1; i <= NF; i++) if ($i ~ /^[a-z_]+:$/) { ev = $i; j = i; break }
	if (ev == "") next
	k = ev
	if (ev == "timer_start:" || ev == "hrtimer_start:") { for (i = j; i <= NF; i++) if ($i ~ /^function=/) k = k " " $i }
	else if (ev == "irq_handler_entry:") { for (i = j; i <= NF; i++) if ($i ~ /^name=/) k = k " " $i }
	else if (ev == "softirq_entry:") { k = k " " $NF }
	else if (ev == "sched_wakeup:") { for (i = j; i <= NF; i++) if ($i ~ /^comm=/) { c = $i; sub(/[0-9]+$/, "N", c); k = k " " c } }
	n[k]++ } END { for (k in n) print n[k], k }' "$t/trace" | sort -rn
