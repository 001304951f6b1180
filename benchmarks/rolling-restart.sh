#!/usr/bin/env bash
# A rolling restart on loopback, bounded in time: a three-node RabbitMQ cluster, two HttpEndpoints,
# two Consumers (workers), a client posting 200 messages a second with ids of its own for SECONDS
# (default 60; longer when the restarts need it). Each app instance restarts in turn (SIGTERM, start,
# ready), then each node the way the cluster operator rolls one (build/broker.sh restart). At the end,
# by id: every message answered 202 was handled. Last line:
#   rolling restart: accepted A, lost L, duplicates D, 503s R
# and the script exits 1 when anything accepted was lost (or left in a queue).
#
#   benchmarks/rolling-restart.sh [SECONDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build/bootstrap.sh
exec dotnet run --project build/Harness -c Release -- rolling-restart "${1:-60}"
