#!/usr/bin/env bash
# Consume throughput/memory: RabbitMQ.Client vs Prewire's AmqpConsumer against the throwaway local
# broker. For each body size the classic queue is filled first (by Prewire's publisher, not measured),
# then drained by one client in a process of its own (so peak RSS is that drain's); the clients
# alternate run by run, every pair repeated RUNS times (default 3). Both read every body and ack every
# message; prefetch 200, one message handled at a time. MODE: jit, aot (the same console published
# NativeAOT, as the apps ship) or both (default). Prints every run, then the medians with Prewire's
# figures as a ratio of the official ones.
#   benchmarks/consume-memory.sh [RUNS] [jit|aot|both]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-3}
mode=${2:-both}
case "$mode" in jit|aot|both) ;; *) echo "usage: $0 [RUNS] [jit|aot|both]" >&2; exit 2 ;; esac
project=benchmarks/Prewire.ConsumeMemory

dotnet build "$project" -c Release -nologo -v:q >/dev/null
fill="dotnet $project/bin/Release/net10.0/Prewire.ConsumeMemory.dll fill"
declare -A command
[[ $mode != aot ]] && command[jit]="dotnet $project/bin/Release/net10.0/Prewire.ConsumeMemory.dll"
if [[ $mode != jit ]]; then
  dotnet publish "$project" -c Release -r linux-x64 -p:PublishAot=true -o artifacts/consume-memory-aot -nologo -v:q >/dev/null
  command[aot]=artifacts/consume-memory-aot/Prewire.ConsumeMemory
fi

source benchmarks/client-pairs.sh
# Messages per size: about the same bytes for the large ones, enough messages for the small.
declare -A count=([256]=50000 [65536]=4000 [1048576]=400)

for m in jit aot; do
  [[ -n ${command[$m]:-} ]] || continue
  results=$(mktemp)
  echo
  echo "### $m"
  echo
  echo "| body | client | msg/s | peak RSS | allocated / message | CPU / message | time |"
  echo "|---:|---|---:|---:|---:|---:|---:|"
  for size in 256 65536 1048576; do
    for run in $(seq 1 "$runs"); do
      clients="official prewire"
      (( run % 2 == 0 )) && clients="prewire official"
      for client in $clients; do
        queue="consume-memory.$m.$size.$client.$run"
        $fill "$RABBITMQ_URI" "$queue" "$size" "${count[$size]}"
        line=$(${command[$m]} "$client" "$RABBITMQ_URI" "$queue" "${count[$size]}")
        echo "$size $client $(get msgPerSec) $(get peakRssMb) $(get allocatedPerMessage) $(get cpuUsPerMessage)" >>"$results"
        echo "| $size | $client | $(get msgPerSec) | $(get peakRssMb) MB | $(get allocatedPerMessage) B | $(get cpuUsPerMessage) µs | $(get seconds) s |"
      done
    done
  done
  echo
  echo "Medians of $runs runs ($m); ratio = Prewire / official:"
  echo
  echo "| body | msg/s official | msg/s Prewire | ratio | peak RSS official | peak RSS Prewire | allocated / msg official | allocated / msg Prewire |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
  for size in 256 65536 1048576; do
    o=$(median "$size" official 3); p=$(median "$size" prewire 3)
    echo "| $size | $o | $p | $(awk -v a="$p" -v b="$o" 'BEGIN {printf "%.2fx", a / b}') | $(median "$size" official 4) MB | $(median "$size" prewire 4) MB | $(median "$size" official 5) B | $(median "$size" prewire 5) B |"
  done
  rm -f "$results"
done
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $(nproc) cores"
