# Sourced by the scripts that run RabbitMQ.Client and Prewire's client in turn (publish-memory.sh,
# consume-memory.sh, amqps.sh, app-cpu.sh): starts the throwaway broker (stopped when the script exits) and gives them
#   get FIELD                       one key=value of the last run's line ($line)
#   median CASE CLIENT COLUMN       the median of a column over the runs so far ($results)
#   ratio A B                       A / B to two places
#   cpu_medians HEADING CASE...     the table of CPU per message, official against prewire, from
#                                   columns 6-9 of $results (CPU, user, system, context switches)
#   pin_apart                       unless PIN=no: the broker on core 0, and "${pin[@]}" to put what the
#                                   script measures on core 1, so the CPU each client uses is its own
#                                   ($placement says which, for the footer)
build/broker.sh start --tls   # --tls: amqps.sh compares the two; the others use the plain port
trap 'build/broker.sh stop >/dev/null 2>&1 || true' EXIT
source artifacts/broker/env

get() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$line"; }
median() { grep "^$1 $2 " "$results" | awk -v col="$3" '{print $col}' | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}'; }
pin_apart() {
  pin=() placement="broker and client unpinned"
  [[ ${PIN:-yes} == no ]] && return
  (($(nproc) >= 2)) || { echo "$0: pinning apart needs 2 cores (PIN=no shares them)" >&2; exit 1; }
  taskset -a -p -c 0 "$(build/broker.sh ctl eval 'os:getpid().' | tr -d '"')" >/dev/null
  pin=(taskset -c 1) placement="broker on core 0, client on core 1"
}
cpu_medians() {
  local heading=$1 case oc pc; shift
  echo "| $heading | CPU official | CPU Prewire | ratio | user official | user Prewire | system official | system Prewire | switches official | switches Prewire |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for case in "$@"; do
    oc=$(median "$case" official 6); pc=$(median "$case" prewire 6)
    echo "| $case | $oc µs | $pc µs | $(ratio "$pc" "$oc") | $(median "$case" official 7) µs | $(median "$case" prewire 7) µs | $(median "$case" official 8) µs | $(median "$case" prewire 8) µs | $(median "$case" official 9) | $(median "$case" prewire 9) |"
  done
}
