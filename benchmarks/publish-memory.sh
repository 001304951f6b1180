#!/usr/bin/env bash
# Publish memory/throughput: RabbitMQ.Client vs Prewire's AmqpPublisher against the throwaway local
# broker, each scenario in its own process (so peak RSS is that scenario's), the two clients
# alternating within each scenario, every run repeated RUNS times (default 1). Prints a Markdown table.
#   benchmarks/publish-memory.sh [RUNS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-1}

dotnet build benchmarks/Prewire.PublishMemory -c Release -nologo -v:q >/dev/null
exe=benchmarks/Prewire.PublishMemory/bin/Release/net10.0/Prewire.PublishMemory.dll
build/broker.sh start
trap 'build/broker.sh stop >/dev/null 2>&1 || true' EXIT
source artifacts/broker/env

echo "| scenario | client | msg/s | peak RSS | allocated / message | time |"
echo "|---|---|---:|---:|---:|---:|"
for scenario in A B C D; do
  for run in $(seq 1 "$runs"); do
    for client in official prewire; do
      line=$(dotnet "$exe" "$client" "$scenario" "$RABBITMQ_URI")
      get() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$line"; }
      echo "| $scenario | $client | $(get msgPerSec) | $(get peakRssMb) MB | $(get allocatedPerMessage) B | $(get seconds) s |"
    done
  done
done
