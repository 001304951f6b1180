#!/usr/bin/env bash
# The apps end to end: Publisher -> quorum queue -> Consumer on the throwaway local broker, at 256 B
# (20,000 messages) and 64 KiB (2,000), NativeAOT vs the self-contained JIT build and AmqpPublisher
# (zero-copy) vs RabbitMQ.Client, every combination once per run, alternating, RUNS runs (default 3).
# Prints every run, the medians, and the ratios of the medians (build/Harness/MessagingBenchmark.cs).
#   benchmarks/end-to-end.sh [RUNS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build/broker.sh start
trap 'build/broker.sh stop >/dev/null 2>&1 || true' EXIT
set -a; source artifacts/broker/env; set +a
dotnet run --project build/Harness -c Release -- messaging "${1:-3}"
