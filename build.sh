#!/usr/bin/env bash
# The one entry point. Verbs:
#   ./build.sh test      bootstrap, run every project under tests/ (those that need a broker start their own);
#                        fails on any failed or skipped test
#   ./build.sh demo      bootstrap, publish the apps (NativeAOT + JIT) for this host, start a broker,
#                        run each app to its ready line, print size and start-up per app and build, then the
#                        main job on each client both ways (RabbitMQ.Client from -p:PrewireAmqpClient=Both)
#   ./build.sh publish [rid...]   NativeAOT publish of every app into artifacts/publish/<rid>/aot/
#   ./build.sh size [rid]         what each app's binary is made of, per assembly (ILC's mstat), and what
#                        the OTLP exporter adds, by the code that asked for it
#   ./build.sh report [runs]      one table, app x RID: sizes (binary, image), start-up, warm-up, B/message, warnings;
#                        then the consoles against their -p:PrewireFastStart=true builds (size, start, instructions)
#                        and the HttpEndpoint against Microsoft's webapiaot template (size, ready, first response)
#   ./build.sh telemetry [runs] [count] [rid]   telemetry off against on in each NativeAOT app (benchmarks/telemetry.sh)
#   ./build.sh baseline [pairs]   re-record build/startup-baseline.json (each app x RID's start-up and exit
#                        times beyond a NativeAOT hello world, and its size; on an idle machine, on
#                        purpose: commit it with the change that moved them); `baseline counts` re-records
#                        only what load does not move (instructions, faults, peak RSS), keeping the times
#   ./build.sh gate-sensitivity [rounds]   which start-up regressions the gate catches (a Consumer
#                        published with known delays, timed as the gate does)
#   ./build.sh gate-repeat [rounds]   the gate on the unchanged apps, that many rounds: every failure is a
#                        false one (run it under the load the gate must stand)
#   ./build.sh long-run [rounds] [rid]   the smoke tests' long-run leak check, that many rounds on the unchanged
#                        Publisher and Consumer and on builds that keep 64 B every 5,000 messages
#   ./build.sh startup-order   write each app's startup-order.txt: the managed methods its start runs (traced
#                        with valgrind's lackey, without a broker and with one), which ILC then lays out first
#   ./build.sh doctor    preflight: C toolchains (host and arm64 under qemu) and AOT packs per RID;
#                        exits 1 when either RID is not ready
#   ./build.sh bootstrap install what building and testing need (apt)
#   ./build.sh deploy-check       validate deploy/ (Kubernetes manifests) with the Kubernetes schemas;
#                        exits 1 naming each file, object and field that is wrong (needs node and npm)
#   ./build.sh codegen [--check]  write src/Core/Framing/Internal/Methods from build/codegen/amqp_methods.py,
#                        or (--check) fail naming each file that differs
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$root"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

with_broker() {
  # The broker lives exactly as long as this script: stopped on success, failure and Ctrl+C.
  trap 'build/broker.sh stop >/dev/null 2>&1 || true' EXIT
  trap 'exit 130' INT TERM
  build/broker.sh start
  set -a; source artifacts/broker/env; set +a
}

harness() { dotnet run --project build/Harness -c Release -- "$@"; }

verb=${1:-}
[[ $# -gt 0 ]] && shift
case "$verb" in
  bootstrap) build/bootstrap.sh ;;
  doctor) build/doctor.sh ;;
  codegen) python3 build/codegen/amqp_methods.py "$@" ;;
  deploy-check)
    command -v npm >/dev/null || { echo "deploy-check: node and npm are needed (Node.js 20 or later)" >&2; exit 1; }
    # The validators at the versions package-lock.json pins.
    npm ci --prefix deploy/check --no-audit --no-fund --loglevel=error >/dev/null
    node deploy/check/check.mjs deploy
    ;;
  publish) harness publish "$@" ;;
  size) harness size "$@" ;;
  baseline|gate-repeat|long-run|startup-order)
    build/bootstrap.sh
    with_broker
    harness "$verb" "$@"
    ;;
  gate-sensitivity)
    build/bootstrap.sh
    harness gate-sensitivity "$@"
    ;;
  demo|report|telemetry)
    build/bootstrap.sh
    with_broker
    harness "$verb" "$@"
    ;;
  test)
    build/bootstrap.sh
    # No broker here: each test run starts its own throwaway node on first use (tests/Shared/TestBroker.cs),
    # as it does under `dotnet test` or an IDE; RABBITMQ_URI, when set, points them at another one.
    rm -rf artifacts/test-results; mkdir -p artifacts/test-results
    # A clone holds 7.7 GB after a whole run (the NativeAOT publishes for both RIDs, the images); on a
    # full disk every publish fails with "No space left on device" and some 200 tests go red with it.
    read -r free_kb mount < <(df -Pk . | awk 'NR == 2 { print $4, $6 }')
    free_gb=$(( free_kb / 1024 / 1024 ))
    if (( free_gb < 10 )); then
      echo "test: $free_gb GB free on $mount, a run needs 10 GB; free some and run again" >&2
      exit 1
    fi
    status=0
    for project in tests/Core.Tests tests/RabbitMQ.Tests tests/Samples.Tests tests/AotSmoke; do
      name=$(basename "$project")
      echo "test: $project"
      dotnet test "$project" -c Release --logger "trx;LogFileName=$name.trx" \
        --results-directory artifacts/test-results "$@" || status=1
    done
    summary=$(build/test-summary.sh "$status")
    echo "$summary"
    # Every machine we build on has the NativeAOT packs for both RIDs and the tools bootstrap installs:
    # a skipped test (PublishedApps skips an app whose packs are missing) is a broken machine, not a
    # pass. It fails the run here as in CI, so a user's own CI gets the same verdict.
    skipped=$(tail -n 1 <<<"$summary" | sed -n 's/.*, \([0-9]*\) skipped$/\1/p')
    if (( ${skipped:-0} > 0 )); then
      echo "test: $skipped tests skipped; a skip fails the run (each is listed above, with why)"
      status=1
    fi
    exit $status
    ;;
  *)
    # The opening comment, all of it: a verb added there is listed here.
    awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'
    [[ -z "$verb" || "$verb" == help || "$verb" == --help ]] && exit 0
    echo "build.sh: no verb '$verb'; the verbs are listed above" >&2
    exit 2
    ;;
esac
