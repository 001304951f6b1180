#!/usr/bin/env bash
# Publish memory/throughput: RabbitMQ.Client vs Prewire's AmqpPublisher against the throwaway local
# broker, each scenario in its own process (so peak RSS is that scenario's), the two clients
# alternating within each scenario (first one, then the other, run by run), every pair repeated RUNS
# times (default 3). MODE: jit (net10.0,
# the issue's setting), aot (the same console published NativeAOT on net10.0, as the apps ship) or both (default).
# Prints, per mode, every run and then the medians with Prewire's figures as a ratio of the official ones:
# msg/s and memory, then CPU per message (user and system apart) and context switches per message.
# The broker runs on core 0 and the benchmark on core 1 (PIN=no: both share the cores).
# SCENARIOS picks some of them (default "A B C D").
#   [PIN=no] [SCENARIOS="C D"] benchmarks/publish-memory.sh [RUNS] [jit|aot|both]
# Both consoles set the thread pool's spin to 0, as the apps do (their .csproj says how to measure the default).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-3}
mode=${2:-both}
case "$mode" in jit|aot|both) ;; *) echo "usage: $0 [RUNS] [jit|aot|both]" >&2; exit 2 ;; esac
project=benchmarks/Prewire.PublishMemory
scenarios=${SCENARIOS:-A B C D}

declare -A command
if [[ $mode != aot ]]; then
  dotnet build "$project" -c Release -nologo -v:q >/dev/null
  command[jit]="dotnet $project/bin/Release/net10.0/Prewire.PublishMemory.dll"
fi
if [[ $mode != jit ]]; then
  dotnet publish "$project" -c Release -r linux-x64 -p:PublishAot=true -o artifacts/publish-memory-aot -nologo -v:q >/dev/null
  command[aot]=artifacts/publish-memory-aot/Prewire.PublishMemory
fi

source benchmarks/client-pairs.sh
pin_apart

for m in jit aot; do
  [[ -n ${command[$m]:-} ]] || continue
  results=$(mktemp)
  echo
  echo "### $m"
  echo
  echo "| scenario | client | msg/s | peak RSS | allocated / message | CPU / message | user / message | system / message | context switches / message | time |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for scenario in $scenarios; do
    for run in $(seq 1 "$runs"); do
      # Which client goes first alternates run by run, so neither always meets the broker as the other left it.
      clients="official prewire"
      (( run % 2 == 0 )) && clients="prewire official"
      for client in $clients; do
        line=$("${pin[@]}" ${command[$m]} "$client" "$scenario" "$RABBITMQ_URI")
        echo "$scenario $client $(get msgPerSec) $(get peakRssMb) $(get allocatedPerMessage) $(get cpuUsPerMessage) $(get userUsPerMessage) $(get systemUsPerMessage) $(get switchesPerMessage)" >>"$results"
        echo "| $scenario | $client | $(get msgPerSec) | $(get peakRssMb) MB | $(get allocatedPerMessage) B | $(get cpuUsPerMessage) µs | $(get userUsPerMessage) µs | $(get systemUsPerMessage) µs | $(get switchesPerMessage) | $(get seconds) s |"
      done
    done
  done
  echo
  echo "Medians of $runs runs ($m); ratio = Prewire / official:"
  echo
  echo "| scenario | msg/s official | msg/s Prewire | ratio | peak RSS official | peak RSS Prewire | allocated / msg official | allocated / msg Prewire |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for scenario in $scenarios; do
    om=$(median "$scenario" official 3); pm=$(median "$scenario" prewire 3)
    echo "| $scenario | $om | $pm | $(ratio "$pm" "$om") | $(median "$scenario" official 4) MB | $(median "$scenario" prewire 4) MB | $(median "$scenario" official 5) B | $(median "$scenario" prewire 5) B |"
  done
  echo
  echo "CPU per message, medians ($m); ratio = Prewire / official:"
  echo
  cpu_medians scenario $scenarios
  rm -f "$results"
done
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $(nproc) cores, $placement"
