# Sourced by the scripts that run RabbitMQ.Client and Prewire's client in turn (publish-memory.sh,
# consume-memory.sh, amqps.sh): starts the throwaway broker (stopped when the script exits) and gives them
#   get FIELD                       one key=value of the last run's line ($line)
#   median CASE CLIENT COLUMN       the median of a column over the runs so far ($results)
build/broker.sh start --tls   # --tls: amqps.sh compares the two; the others use the plain port
trap 'build/broker.sh stop >/dev/null 2>&1 || true' EXIT
source artifacts/broker/env

get() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" <<<"$line"; }
median() { grep "^$1 $2 " "$results" | awk -v col="$3" '{print $col}' | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
