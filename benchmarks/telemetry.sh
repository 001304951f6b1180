#!/usr/bin/env bash
# What exporting traces and metrics costs each NativeAOT app as it ships: telemetry off against on
# (OTEL_EXPORTER_OTLP_ENDPOINT set, to an OTLP/HTTP receiver the harness runs), alternating run by run,
# RUNS rounds (default 3). The Publisher and the Consumer on each client, COUNT messages (default
# 20,000): msgs/s and bytes allocated per message; the HttpEndpoint: requests/s and bytes per request.
# Prints every run, then the medians and on / off (build/Harness/TelemetryCost.cs). RID linux-arm64
# runs the arm64 binaries under qemu (use a smaller COUNT, e.g. 2,000).
#   benchmarks/telemetry.sh [RUNS] [COUNT] [RID]
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/../build.sh" telemetry "${1:-3}" "${2:-20000}" ${3:+"$3"}
