#!/usr/bin/env bash
# Consume throughput/memory: RabbitMQ.Client vs Prewire's AmqpConsumer against the throwaway local
# broker. For each body size the classic queue is filled first (by Prewire's publisher, not measured),
# then drained by one client in a process of its own (so peak RSS is that drain's); the clients
# take turns in an order that rotates run by run, every round repeated RUNS times (default 3). All read
# every body and ack every message; prefetch 200, one message handled at a time. The third client,
# prewire-single, is Prewire's with its acks not coalesced (each a frame of its own, as RabbitMQ.Client
# writes them here): what coalescing saves. MODE: jit, aot (the same console published NativeAOT, as
# the apps ship) or both (default). Prints every run, then the medians with Prewire's figures as a
# ratio of the official ones (msg/s and memory, then CPU per message with user and system apart and
# context switches per message), and coalesced against single acks. The broker runs on core 0 and the
# drains (and fills) on core 1 (PIN=no: all share the cores).
#   [PIN=no] benchmarks/consume-memory.sh [RUNS] [jit|aot|both]
# Both consoles set the thread pool's spin to 0, as the apps do (their .csproj says how to measure the default).
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
pin_apart
# Messages per size: enough for a second or more of draining each (CPU per message from getrusage is
# noisy over the quarter second that 4,000 messages of 64 KiB took), about the same bytes for the large ones.
declare -A count=([256]=100000 [65536]=16000 [1048576]=1000)

for m in jit aot; do
  [[ -n ${command[$m]:-} ]] || continue
  results=$(mktemp)
  echo
  echo "### $m"
  echo
  echo "| body | client | msg/s | peak RSS | allocated / message | CPU / message | user / message | system / message | context switches / message | ack frames / message | time |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for size in 256 65536 1048576; do
    for run in $(seq 1 "$runs"); do
      case $(( run % 3 )) in
        1) clients="official prewire prewire-single" ;;
        2) clients="prewire prewire-single official" ;;
        0) clients="prewire-single official prewire" ;;
      esac
      for client in $clients; do
        queue="consume-memory.$m.$size.$client.$run"
        "${pin[@]}" $fill "$RABBITMQ_URI" "$queue" "$size" "${count[$size]}"
        line=$("${pin[@]}" ${command[$m]} "$client" "$RABBITMQ_URI" "$queue" "${count[$size]}")
        echo "$size $client $(get msgPerSec) $(get peakRssMb) $(get allocatedPerMessage) $(get cpuUsPerMessage) $(get userUsPerMessage) $(get systemUsPerMessage) $(get switchesPerMessage) $(get ackFramesPerMessage)" >>"$results"
        echo "| $size | $client | $(get msgPerSec) | $(get peakRssMb) MB | $(get allocatedPerMessage) B | $(get cpuUsPerMessage) µs | $(get userUsPerMessage) µs | $(get systemUsPerMessage) µs | $(get switchesPerMessage) | $(get ackFramesPerMessage) | $(get seconds) s |"
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
    echo "| $size | $o | $p | $(ratio "$p" "$o") | $(median "$size" official 4) MB | $(median "$size" prewire 4) MB | $(median "$size" official 5) B | $(median "$size" prewire 5) B |"
  done
  echo
  echo "CPU per message, medians ($m); ratio = Prewire / official:"
  echo
  cpu_medians body 256 65536 1048576
  echo
  echo "What coalescing saves, medians ($m); ratio = coalesced / single:"
  echo
  echo "| body | ack frames / msg single | ack frames / msg coalesced | msg/s single | msg/s coalesced | ratio | CPU / msg single | CPU / msg coalesced | ratio |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for size in 256 65536 1048576; do
    s=$(median "$size" prewire-single 3); p=$(median "$size" prewire 3)
    sc=$(median "$size" prewire-single 6); pc=$(median "$size" prewire 6)
    echo "| $size | $(median "$size" prewire-single 10) | $(median "$size" prewire 10) | $s | $p | $(ratio "$p" "$s") | $sc µs | $pc µs | $(ratio "$pc" "$sc") |"
  done
  rm -f "$results"
done
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $(nproc) cores, $placement"
