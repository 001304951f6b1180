#!/usr/bin/env bash
# Instructions per message of the Publisher and the Consumer, two builds of each, counted by cachegrind
# (user-space instructions: the same under any load, where msg/s and CPU time on a shared 2-core machine
# are not). Each round publishes N1 and then N2 messages of the default body with 16 awaiting confirms,
# then drains each queue with the Consumer; a message's count is (I(N2) - I(N1)) / (N2 - N1), so the
# start and the connection cancel out.
#
#   benchmarks/client-instructions.sh BEFORE_DIR AFTER_DIR [rounds]
#
# Each DIR holds Publisher/Prewire.Publisher and Consumer/Prewire.Consumer, e.g. from
#   dotnet publish samples/Publisher -r linux-x64 -p:PublishAot=true -c Release -o DIR/Publisher
# in a clone at each commit. Prints each round and the ratio of the means (after / before).
# What the count leaves out: time waiting on the broker, and what the kernel does for the sockets.
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:?BEFORE_DIR} after=${2:?AFTER_DIR} rounds=${3:-3}
n1=1000 n2=6000
source benchmarks/client-pairs.sh

count() { valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,; }
results=$(mktemp)
for round in $(seq "$rounds"); do
  for build in before after; do
    dir=${!build}
    for n in $n1 $n2; do
      queue=bench.instructions.$build.$round.$n.$RANDOM
      pub=$(count "$dir/Publisher/Prewire.Publisher" --uri "$RABBITMQ_URI" --queue "$queue" --count "$n" --concurrency 16)
      con=$(count "$dir/Consumer/Prewire.Consumer" --uri "$RABBITMQ_URI" --queue "$queue" --count "$n")
      echo "$build $round $n $pub $con" >> "$results"
    done
  done
done
awk -v n1=$n1 -v n2=$n2 '
  { i[$1, $2, $3, "Publisher"] = $4; i[$1, $2, $3, "Consumer"] = $5; if ($2 > rounds) rounds = $2 }
  END {
    printf "| app | build | instructions per message, each round | mean |\n|---|---|---|---:|\n"
    split("Publisher Consumer", apps, " "); split("before after", builds, " ")
    for (a = 1; a <= 2; a++) {
      for (b = 1; b <= 2; b++) {
        sum = 0; line = ""
        for (r = 1; r <= rounds; r++) {
          per = (i[builds[b], r, n2, apps[a]] - i[builds[b], r, n1, apps[a]]) / (n2 - n1)
          sum += per; line = line (r > 1 ? " / " : "") sprintf("%.0f", per)
        }
        mean[a, b] = sum / rounds
        printf "| %s | %s | %s | %.0f |\n", apps[a], builds[b], line, mean[a, b]
      }
      ratio[a] = mean[a, 2] / mean[a, 1]
    }
    printf "\nafter / before: Publisher %.3fx, Consumer %.3fx\n", ratio[1], ratio[2]
  }' "$results"
rm -f "$results"
