#!/usr/bin/env bash
# HttpEndpoint under wrk (Debian's), whole process, loopback, against the throwaway local broker:
# GET /health/live (Kestrel and an endpoint that does next to nothing) and POST /messages/{type} with
# 256 B and 64 KiB bodies (each request published and confirmed). Per scenario, three builds/settings
# alternate within every run: NativeAOT default scheduling, NativeAOT with --inline-scheduling and
# DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=1, and the self-contained JIT build (default scheduling).
# Each case is a fresh server: requests/s, p99 latency, peak RSS (VmHWM), bytes allocated per request
# (the runtime's own counter around a short run and the measured one, differenced: see below), then
# medians and ratios. The POST scenarios
# also run the Kestrel baseline (benchmarks/Prewire.KestrelBaseline, NativeAOT: POST /nothing reads the
# body and answers 202), whose bytes per request are Kestrel's own, and baseline-pending (POST /pending:
# the same, answered from the thread pool, so Kestrel is handed a pending task as the ingress endpoint
# hands it one while it waits for the confirm); the summary subtracts each.
#   benchmarks/http-ingress.sh [RUNS=3] [SECONDS=8] [CONNECTIONS=16]
# PIN=1 pins wrk to CPU 1 (taskset), leaving the server and the broker to share both cores;
# CLIENT=rabbitmq publishes with RabbitMQ.Client (built in with -p:PrewireAmqpClient=Both) instead of
# Prewire's client, the default.
# SCENARIOS (default "live post-256 post-65536") and CASES (default "aot aot-inline jit", aot first:
# the ratios are to it; the POST scenarios add the baseline unless CASES is given) narrow a run;
# CASES may add aot-workstation: the NativeAOT build on workstation GC (DOTNET_gcServer=0), not the
# Web SDK's server GC.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-3}
seconds=${2:-8}
connections=${3:-16}
out=artifacts/http-ingress
mkdir -p "$out"

echo "http-ingress: publishing HttpEndpoint (NativeAOT, then self-contained JIT)..." >&2
clients=(); [[ ${CLIENT:-} == rabbitmq ]] && clients=(-p:PrewireAmqpClient=Both)
dotnet publish samples/HttpEndpoint -c Release -r linux-x64 -p:PublishAot=true "${clients[@]}" -o "$out/aot" -nologo -v:q >/dev/null
dotnet publish samples/HttpEndpoint -c Release -r linux-x64 -p:PublishAot=false --self-contained "${clients[@]}" -o "$out/jit" -nologo -v:q >/dev/null
dotnet publish benchmarks/Prewire.KestrelBaseline -c Release -r linux-x64 -o "$out/baseline" -nologo -v:q >/dev/null
# A body file for every post-N scenario asked for (post-1048576 too: the endpoint's largest body).
for scenario in ${SCENARIOS:-post-256 post-65536} post-65536; do
  [[ $scenario == post-* ]] && head -c "${scenario#post-}" /dev/urandom >"$out/body-${scenario#post-}"
done
cat >"$out/post.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/octet-stream"
local file = io.open(os.getenv("BODY"), "rb")
wrk.body = file:read("*a")
file:close()
EOF

build/broker.sh start >&2
trap '[[ -n ${server:-} ]] && kill "$server" 2>/dev/null; build/broker.sh stop >/dev/null 2>&1 || true' EXIT
source artifacts/broker/env
port=$((20000 + RANDOM % 12000))  # below the ephemeral range (32768 on), as build/broker.sh picks
wrk_prefix=()
[[ ${PIN:-0} == 1 ]] && wrk_prefix=(taskset -c 1)

allocated() {
  if [[ $case == baseline* ]]; then curl -sf "http://127.0.0.1:$port/allocated"
  else curl -sf "http://127.0.0.1:$port/metrics" | awk '/^dotnet_gc_heap_total_allocated_bytes_total/ {print $2}'; fi
}
# wrk prints p99 as 1.23ms / 456.00us / 1.50s: milliseconds.
to_ms() { awk '{ v=$1; if (v ~ /us$/) { sub(/us$/,"",v); v/=1000 } else if (v ~ /ms$/) { sub(/ms$/,"",v) } else if (v ~ /s$/) { sub(/s$/,"",v); v*=1000 } printf "%.2f", v }' <<<"$1"; }

# Starts a server on $port publishing to queue $1 (env and arguments after it) and waits until $2 answers.
start_server() {
  local queue=$1 ready=$2; shift 2
  env "$@" --urls "http://127.0.0.1:$port" --uri "$RABBITMQ_URI" --queue "$queue" --queue-type classic >"$out/server.log" 2>&1 &
  server=$!
  until curl -sf "http://127.0.0.1:$port$ready" >/dev/null; do sleep 0.05; done
}
# Stops it; what it published goes with its queue (a 64 KiB case leaves a gigabyte behind).
stop_server() {
  kill -TERM "$server"; wait "$server" || true; server=
  build/broker.sh ctl delete_queue "$1" >/dev/null 2>&1 || true
  build/broker.sh ctl delete_queue "$1.dead-letter" >/dev/null 2>&1 || true
}

# The broker's first minutes are slower (the first 64 KiB case measured 0.55-0.6x the later ones):
# an unmeasured load first, so no case pays for it.
echo "http-ingress: warming the broker up (10 s of 64 KiB posts)..." >&2
start_server bench.http.warmup /health/ready "$out/aot/Prewire.HttpEndpoint"
BODY=$out/body-65536 wrk -t1 -c"$connections" -d10s -s "$out/post.lua" "http://127.0.0.1:$port/messages/bench" >/dev/null
stop_server bench.http.warmup

scenarios=${SCENARIOS:-live post-256 post-65536}
case_list=${CASES:-aot aot-inline jit}
results=$(mktemp)
echo "| run | scenario | case | requests/s | p99 | non-2xx | peak RSS | allocated / request |"
echo "|---:|---|---|---:|---:|---:|---:|---:|"
for run in $(seq 1 "$runs"); do
  for scenario in $scenarios; do
    cases=($case_list)
    [[ $scenario == post-* && -z ${CASES:-} ]] && cases+=(baseline baseline-pending)
    # Each run starts the rotation one case later, so no case is always the first after a change of scenario.
    shift_by=$(( (run - 1) % ${#cases[@]} ))
    cases=("${cases[@]:shift_by}" "${cases[@]:0:shift_by}")
    for case in "${cases[@]}"; do
      binary=$out/aot/Prewire.HttpEndpoint; args=(); env_extra=(); path=/messages/bench
      [[ ${CLIENT:-} == rabbitmq ]] && args=(--client rabbitmq)
      [[ $case == jit ]] && binary=$out/jit/Prewire.HttpEndpoint
      [[ $case == aot-inline ]] && { args+=(--inline-scheduling); env_extra=(DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=1); }
      [[ $case == aot-workstation ]] && env_extra=(DOTNET_gcServer=0)
      queue=bench.http.$RANDOM$RANDOM
      if [[ $case == baseline* ]]; then
        "$out/baseline/Prewire.KestrelBaseline" "http://127.0.0.1:$port" >"$out/server.log" 2>&1 &
        server=$!; path=/nothing; [[ $case == baseline-pending ]] && path=/pending
        until curl -sf "http://127.0.0.1:$port/allocated" >/dev/null; do sleep 0.05; done
      else
        start_server "$queue" /health/ready "${env_extra[@]}" "$binary" "${args[@]}"
      fi
      if [[ $scenario == live ]]; then
        target=(http://127.0.0.1:$port/health/live); body=""
      else
        target=(-s "$out/post.lua" "http://127.0.0.1:$port$path"); body=$out/body-${scenario#post-}
      fi
      # Warm-up (tiered JIT, pools), then a short run and the measured one. Bytes per request are the two
      # runs' difference over their difference in requests: what each run costs once (its connections
      # opened, ~8 KB each in Kestrel; a scrape) cancels, and what is left is a request's own cost. A
      # whole run's bytes over its requests would spread those over fewer requests the slower the case.
      BODY=$body "${wrk_prefix[@]}" wrk -t1 -c"$connections" -d2s "${target[@]}" >/dev/null
      start=$(allocated)
      short=$(BODY=$body "${wrk_prefix[@]}" wrk -t1 -c"$connections" -d2s "${target[@]}")
      before=$(allocated)
      report=$(BODY=$body "${wrk_prefix[@]}" wrk -t1 -c"$connections" -d"${seconds}s" --latency "${target[@]}")
      after=$(allocated)
      rss=$(awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$server/status")
      stop_server "$queue"
      rps=$(awk '/Requests\/sec/ {print $2}' <<<"$report")
      requests=$(awk '/requests in/ {print $1}' <<<"$report")
      p99=$(to_ms "$(awk '$1 == "99%" {print $2}' <<<"$report")")
      non2xx=$(awk '/Non-2xx/ {print $NF}' <<<"$report"); non2xx=${non2xx:-0}
      short_requests=$(awk '/requests in/ {print $1}' <<<"$short")
      per_request=$(awk -v s="$start" -v a="$before" -v b="$after" -v n="$requests" -v m="$short_requests" 'BEGIN {printf "%.0f", ((b - a) - (a - s)) / (n - m)}')
      echo "$scenario $case $rps $p99 $rss $per_request" >>"$results"
      echo "| $run | $scenario | $case | $rps | $p99 ms | $non2xx | $rss MB | $per_request B |"
    done
  done
done

median() { grep "^$1 $2 " "$results" | awk -v col="$3" '{print $col}' | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
echo
echo "Medians of $runs runs ($connections connections, ${seconds} s each${PIN:+, wrk pinned to CPU 1}, $([[ ${CLIENT:-} == rabbitmq ]] && echo RabbitMQ.Client || echo "Prewire's client")); ratios of the medians:"
echo
echo "| scenario | case | requests/s | p99 | peak RSS | allocated / request | requests/s vs AOT | p99 vs AOT | RSS vs AOT |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for scenario in $scenarios; do
  base_rps=$(median "$scenario" aot 3); base_p99=$(median "$scenario" aot 4); base_rss=$(median "$scenario" aot 5)
  for case in $case_list; do
    rps=$(median "$scenario" "$case" 3); p99=$(median "$scenario" "$case" 4); rss=$(median "$scenario" "$case" 5)
    echo "| $scenario | $case | $rps | $p99 ms | $rss MB | $(median "$scenario" "$case" 6) B | $(ratio "$rps" "$base_rps")x | $(ratio "$p99" "$base_p99")x | $(ratio "$rss" "$base_rss")x |"
  done
done
if grep -q " baseline " "$results"; then
  echo
  echo "Allocated per request beyond Kestrel's own (the baseline's POST /nothing with the same body; POST"
  echo "/pending: the same answered after a wait, Kestrel handed a pending task), medians:"
  echo
  echo "| scenario | Kestrel's own | answered after a wait | aot | beyond /nothing | beyond /pending |"
  echo "|---|---:|---:|---:|---:|---:|"
  for scenario in $scenarios; do
    grep -q "^$scenario baseline " "$results" || continue
    own=$(median "$scenario" baseline 6); ours=$(median "$scenario" aot 6)
    pending=n/a; beyond_pending=n/a
    if grep -q "^$scenario baseline-pending " "$results"; then
      pending=$(median "$scenario" baseline-pending 6)
      beyond_pending="$(awk -v a="$ours" -v b="$pending" 'BEGIN {printf "%.0f", a - b}') B"; pending="$pending B"
    fi
    echo "| $scenario | $own B | $pending | $ours B | $(awk -v a="$ours" -v b="$own" 'BEGIN {printf "%.0f", a - b}') B | $beyond_pending |"
  done
fi
rm -f "$results"
