#!/usr/bin/env bash
# CPU per message of the published Publisher and Consumer, each build or setting against the others in
# one run, alternating: the broker pinned to core 0 and the app to core 1 (taskset), so the CPU each app
# uses is its own and not the broker's. Per app and message: CPU (perf stat's task-clock), user and
# system time (getrusage), context switches (perf stat), and msg/s from the app's --json report.
#
#   [PIN=no] [SIZE=BYTES] benchmarks/app-cpu.sh ROUNDS COUNT LABEL=DIR[,client][,VAR=VALUE...] ...
#
# DIR holds Publisher/Prewire.Publisher and Consumer/Prewire.Consumer (as client-instructions.sh takes
# them); client is prewire (the default) or rabbitmq (a build with -p:PrewireAmqpClient=Both); VAR=VALUE
# sets an environment variable for both apps, e.g. DOTNET_ThreadPool_UnfairSemaphoreSpinLimit=0. Each
# round publishes COUNT messages with 16 awaiting confirms, then drains them with the Consumer.
# Prints each run and the medians. Needs 2 cores or more and an otherwise idle machine. PIN=no runs
# the broker and the app unpinned, sharing the cores as they would without taskset. SIZE sets the
# Publisher's --size (the body's bytes; the text alone when not given).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:?ROUNDS} count=${2:?COUNT}; shift 2
(($# > 0)) || { echo "usage: $0 ROUNDS COUNT LABEL=DIR[,client][,VAR=VALUE...] ..." >&2; exit 2; }
source benchmarks/client-pairs.sh
pin_apart

results=$(mktemp)
trap 'rm -f "$results"; build/broker.sh stop >/dev/null 2>&1 || true' EXIT

# One app run on core 1: "msg/s cpu-µs user-µs sys-µs switches", each per message but msg/s.
measure() {
  local stat json times
  stat=$(mktemp) json=$(mktemp) times=$(mktemp)
  TIMEFORMAT='%3U %3S'
  { time "${pin[@]}" perf stat -x, -e task-clock,context-switches -o "$stat" env "${environment[@]}" "$@" --json >"$json" 2>/dev/null; } 2>"$times"
  awk -F, -v n="$count" -v rate="$(grep -o '"msgsPerSecond": *[0-9.]*' "$json" | grep -o '[0-9.]*$')" -v times="$(cat "$times")" '
    $3 == "task-clock" { cpu = $1 * 1000 / n }            # msec → µs a message
    $3 == "context-switches" { cs = $1 / n }
    END { split(times, t, " "); printf "%s %.2f %.2f %.2f %.3f\n", rate, cpu, t[1] * 1e6 / n, t[2] * 1e6 / n, cs }' "$stat"
  rm -f "$stat" "$json" "$times"
}

echo "| round | build | app | msg/s | CPU µs/msg | user µs/msg | system µs/msg | context switches/msg |"
echo "|---:|---|---|---:|---:|---:|---:|---:|"
for round in $(seq "$rounds"); do
  for spec in "$@"; do
    label=${spec%%=*} rest=${spec#*=}
    IFS=, read -r -a parts <<<"$rest"
    dir=${parts[0]} client=prewire environment=()
    for part in "${parts[@]:1}"; do
      if [[ $part == *=* ]]; then environment+=("$part"); else client=$part; fi
    done
    queue=bench.cpu.$label.$round.$RANDOM
    for app in Publisher Consumer; do
      args=(--uri "$RABBITMQ_URI" --queue "$queue" --count "$count" --client "$client")
      [[ $app == Publisher ]] && args+=(--concurrency 16 --size "${SIZE:-0}")
      line=$(measure "$dir/$app/Prewire.$app" "${args[@]}")
      echo "$label $app $round $line" >>"$results"
      echo "| $round | $label | $app | ${line// / | } |"
    done
  done
done

echo
echo "Medians of $rounds rounds, $count messages each:"
echo
echo "| build | app | msg/s | CPU µs/msg | user µs/msg | system µs/msg | context switches/msg |"
echo "|---|---|---:|---:|---:|---:|---:|"
for spec in "$@"; do
  label=${spec%%=*}
  for app in Publisher Consumer; do
    row="| $label | $app |"
    for col in 4 5 6 7 8; do row+=" $(median "$label" "$app" "$col" | sed 's/^$/-/') |"; done
    echo "$row"
  done
done
echo
echo "$(date -u '+%F %H:%M UTC'), commit $(git rev-parse --short HEAD), $(nproc) cores, $placement, bodies of ${SIZE:-0} B (0: the text alone)"
