#!/usr/bin/env bash
# amqps against amqp, both clients, the NativeAOT apps built with both (-p:PrewireAmqpClient=Both): the Publisher publishes COUNT
# messages of 256 B (16 awaiting confirms) to a classic queue, then the Consumer drains them; over
# amqp:// and over amqps:// (the throwaway broker's TLS listener, its CA trusted with --ca-file), the
# two transports alternating run by run, RUNS rounds (default 3). Prints every run, then the medians
# with amqps as a ratio of amqp: msg/s and bytes allocated per message (--json, steady state, whole
# process) of each app on each client.
#   benchmarks/amqps.sh [RUNS] [COUNT]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${1:-3}
count=${2:-50000}
out=artifacts/amqps-bench
for app in Publisher Consumer; do
  dotnet publish "samples/$app" -c Release -r linux-x64 -p:PublishAot=true -p:PrewireAmqpClient=Both -o "$out/$app" -nologo -v:q >/dev/null
done

source benchmarks/client-pairs.sh
json() { sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p" <<<"$line"; }
results=$(mktemp)

echo "| run | client | transport | publish msg/s | publish B/message | consume msg/s | consume B/message |"
echo "|---:|---|---|---:|---:|---:|---:|"
for run in $(seq 1 "$runs"); do
  transports="amqp amqps"
  (( run % 2 == 0 )) && transports="amqps amqp"
  for client in rabbitmq prewire; do
    for transport in $transports; do
      uri=$RABBITMQ_URI
      [[ $transport == amqps ]] && uri=$RABBITMQ_TLS_URI
      queue="amqps-bench.$client.$transport.$run"
      common=(--uri "$uri" --ca-file "$PREWIRE_CA_FILE" --queue "$queue" --queue-type classic --count "$count" --client "$client" --json)
      line=$("$out/Publisher/Prewire.Publisher" "${common[@]}" --concurrency 16 2>/dev/null | tail -1)
      published="$(json msgsPerSecond) $(json bytesPerMessage)"
      line=$("$out/Consumer/Prewire.Consumer" "${common[@]}" 2>/dev/null | tail -1)
      consumed="$(json msgsPerSecond) $(json bytesPerMessage)"
      echo "publish-$client $transport $published" >>"$results"
      echo "consume-$client $transport $consumed" >>"$results"
      echo "| $run | $client | $transport | ${published% *} | ${published#* } B | ${consumed% *} | ${consumed#* } B |"
    done
  done
done

echo
echo "Medians of $runs runs, $count messages of 256 B each; ratio = amqps / amqp:"
echo
echo "| app | client | msg/s amqp | msg/s amqps | ratio | B/message amqp | B/message amqps |"
echo "|---|---|---:|---:|---:|---:|---:|"
for app in publish consume; do
  for client in rabbitmq prewire; do
    a=$(median "$app-$client" amqp 3); s=$(median "$app-$client" amqps 3)
    echo "| $([[ $app == publish ]] && echo Publisher || echo Consumer) | $client | $a | $s | $(ratio "$s" "$a") | $(median "$app-$client" amqp 4) | $(median "$app-$client" amqps 4) |"
  done
done
rm -f "$results"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $(nproc) cores"
