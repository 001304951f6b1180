#!/usr/bin/env bash
# Memory that does not grow with time: MESSAGES (default 1,000,000) Publisher -> quorum queue ->
# Consumer on the throwaway local broker, NativeAOT, once per Publisher client (RabbitMQ.Client,
# AmqpPublisher), 16 publishes in flight. Both apps report the managed heap after a full collection
# at a tenth of the run and at its end (--heap-check), and their peak RSS. Exits 1 when a heap grew
# by more than 16 KiB between the two (build/Harness/Soak.cs).
#   benchmarks/soak.sh [MESSAGES]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build/bootstrap.sh
build/broker.sh start
trap 'build/broker.sh stop >/dev/null 2>&1 || true' EXIT
set -a; source artifacts/broker/env; set +a
dotnet run --project build/Harness -c Release -- soak "${1:-1000000}"
