#!/usr/bin/env bash
# A/B of lite/module/wait.c and cq.c, interleaved: LITE write and read latency
# with a spinning waiter that polls the CQ itself (poll, the default), that
# leaves it to softirq (nopoll: spin_polls_cq=N), and under the busy
# policy; next to verbs (ae-scripts/ab-lat; R rounds, N operations).
set -euo pipefail
exec "$(dirname "$(readlink -f "$0")")/../../ae-scripts/ab-lat" "${OUT:-lat.csv}" "${R:-4}" \
	poll="spin_polls_cq=Y wait_policy=adaptive" \
	nopoll="spin_polls_cq=N wait_policy=adaptive" \
	busy="spin_polls_cq=Y wait_policy=busy" verbs
