#!/usr/bin/env bash
# A throwaway RabbitMQ node for tests and the demo: everything on 127.0.0.1 (AMQP, epmd, Erlang
# distribution), on free ports picked at start, data and logs under artifacts/broker/.
#
#   build/broker.sh start [--tls]
#                            start the node, wait until it is ready, write artifacts/broker/env; --tls
#                            adds an amqps listener beside the plain one, with a CA and certificates
#                            made on the spot (tls/ in the state folder, see make_pki), and writes
#                            RABBITMQ_TLS_URI, PREWIRE_CA_FILE and PREWIRE_TLS_DIR into the env
#   build/broker.sh stop     stop the node and its epmd, keep the logs
#   build/broker.sh status   exit 0 when the node answers
#   build/broker.sh ctl ...  run rabbitmqctl against the node (e.g. "ctl set_vm_memory_high_watermark 0")
#   build/broker.sh kill     SIGKILL the node (a crash: no goodbye to clients), keep its data
#   build/broker.sh revive   start a killed node again on the same ports with its data
#   build/broker.sh cluster [N] [--tls]
#                                     start N nodes (default 3) clustered, in node-1..N under the state
#                                     folder, sharing one epmd; env's RABBITMQ_URI lists them all,
#                                     comma-separated (what --uri takes), and with --tls
#                                     RABBITMQ_TLS_URI likewise, one CA for all. Address one node with
#                                     PREWIRE_BROKER_STATE=<state>/node-K build/broker.sh ctl|kill|revive
#   build/broker.sh cluster-stop      stop them all
#   build/broker.sh restart  restart one node the way the RabbitMQ cluster operator rolls a pod: wait
#                            until its quorum queues can lose it, drain it (maintenance mode: clients
#                            move, leaders move), stop it keeping its data, start it, revive it
#
# artifacts/broker/env holds RABBITMQ_URI and the node's settings; `source` it to talk to the node.
# PREWIRE_BROKER_STATE=DIR keeps a node's data, logs and env there instead, so several nodes (the test
# runs' own, the demo's) never touch each other.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
state="${PREWIRE_BROKER_STATE:-$root/artifacts/broker}"
envfile="$state/env"

say() { printf 'broker: %s\n' "$*" >&2; }

free_port() {
  # A port no socket uses (listening or connected), below the kernel's ephemeral range: a port from
  # inside it can be taken by any client's outgoing connection between the pick and the bind (CI saw
  # a node fail with eaddrinuse on 36004). Never one of the arguments (picked already, not bound yet).
  local port low
  low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
  (( low > 21000 )) || low=32768
  for _ in $(seq 1 200); do
    port=$((20000 + RANDOM % (low - 20000)))
    [[ " $* " == *" $port "* ]] && continue
    if ! ss -Htan "sport = :$port" | grep -q .; then echo "$port"; return 0; fi
  done
  say "no free port found"; return 1
}

make_pki() {
  # $1: a folder of PEM files, EC P-256, the keys unencrypted (readable by the rabbitmq user). The
  # layout of a private PKI: a root that signs an intermediate, which signs the broker's certificate;
  # the broker sends both (server-chain.pem), a client's CA file holds the root alone.
  #   ca.pem/.key          the root: the CA file clients trust; it signs clients' certificates too
  #   intermediate.pem/.key a CA signed by ca.pem; it signs the broker's certificates:
  #   server.pem/.key      the broker's: localhost and 127.0.0.1, 30 days; server-chain.pem adds the intermediate
  #   client.pem/.key      a client's (CN prewire-client, a user of the node) for EXTERNAL authentication
  #   other-ca.pem/.key    a root that signed nothing here but rogue-intermediate.pem, which signed
  #   rogue.pem/.key       the broker's names; rogue-chain.pem sends it with its intermediate
  #   and, with the broker's names unless said, for the refusal tests:
  #   expired.pem/.key     valid for 3 days, until yesterday
  #   notyet.pem/.key      valid from tomorrow
  #   elsewhere.pem/.key   valid, for elsewhere.invalid only
  #   clientonly.pem/.key  valid, but for client authentication only (no serverAuth usage)
  #   unsent.pem/.key      its issuer only to be fetched (AIA caIssuers, a closed port), never sent
  local dir=$1
  mkdir -p "$dir"
  (
    set -e
    cd "$dir"
    key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
    authority() { key "$1.key"; openssl req -x509 -key "$1.key" -out "$1.pem" -days 30 -subj "/CN=$2" 2>/dev/null; }
    # signed NAME CN SAN EKU ISSUER [VALIDITY [EXTRA-EXTENSION]]: VALIDITY is "-days N", or
    # "START END" (YYYYMMDDHHMMSSZ, through `openssl ca`, the one OpenSSL 3.0 command that sets a start)
    signed() {
      key "$1.key"
      openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr" 2>/dev/null
      printf 'subjectAltName=%s\nextendedKeyUsage=%s\n%s\n' "$3" "$4" "${7:-}" > "$1.ext"
      local validity=${6:--days 30}
      if [[ $validity == -days* ]]; then
        # shellcheck disable=SC2086
        openssl x509 -req -in "$1.csr" -CA "$5.pem" -CAkey "$5.key" -CAcreateserial $validity -extfile "$1.ext" -out "$1.pem" 2>/dev/null
      else
        mkdir -p ca-db; : > ca-db/index.txt; [[ -f ca-db/serial ]] || echo 1000 > ca-db/serial
        printf '[ca]\ndefault_ca=d\n[d]\ndatabase=ca-db/index.txt\nnew_certs_dir=ca-db\nserial=ca-db/serial\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n' > ca-db/ca.cnf
        openssl ca -batch -notext -config ca-db/ca.cnf -cert "$5.pem" -keyfile "$5.key" -in "$1.csr" -out "$1.pem" \
          -startdate "${validity% *}" -enddate "${validity#* }" -extfile "$1.ext" 2>/dev/null
      fi
      rm -f "$1.csr" "$1.ext"
    }
    # intermediate NAME CN ISSUER
    intermediate() {
      key "$1.key"
      openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr" 2>/dev/null
      printf 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n' > "$1.ext"
      openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial -days 30 -extfile "$1.ext" -out "$1.pem" 2>/dev/null
      rm -f "$1.csr" "$1.ext"
    }
    at() { date -u -d "$1" +%Y%m%d%H%M%SZ; }
    local broker="DNS:localhost,IP:127.0.0.1"
    authority ca "Prewire test CA"
    authority other-ca "Prewire other CA"
    intermediate intermediate "Prewire test intermediate" ca
    intermediate rogue-intermediate "Prewire rogue intermediate" other-ca
    signed server localhost "$broker" serverAuth intermediate
    cat server.pem intermediate.pem > server-chain.pem
    signed client prewire-client "DNS:prewire-client" clientAuth ca
    signed rogue localhost "$broker" serverAuth rogue-intermediate
    cat rogue.pem rogue-intermediate.pem > rogue-chain.pem
    signed expired localhost "$broker" serverAuth intermediate "$(at '-4 days') $(at '-1 day')"
    signed notyet localhost "$broker" serverAuth intermediate "$(at '+1 day') $(at '+30 days')"
    signed elsewhere elsewhere.invalid "DNS:elsewhere.invalid" serverAuth intermediate
    signed clientonly localhost "$broker" clientAuth intermediate
    signed unsent localhost "$broker" serverAuth intermediate "-days 30" "authorityInfoAccess=caIssuers;URI:http://127.0.0.1:9/intermediate.pem"
    rm -rf ca-db
  ) || { say "could not make the TLS certificates in $dir (is openssl installed?)"; return 1; }
}

load_env() {
  [[ -f "$envfile" ]] || { say "not started (no $envfile)"; return 1; }
  set -a; source "$envfile"; set +a
  if [[ -z "${RABBITMQ_NODENAME:-}" ]]; then
    # A cluster's env lists its nodes' URIs only: each node has its own folder and env.
    local nodes; nodes=$(find "$state" -maxdepth 1 -name 'node-*' -type d | wc -l)
    say "a cluster of $nodes runs in ${state#$root/}: address one node with PREWIRE_BROKER_STATE=$state/node-K (K = 1..$nodes), or stop it with cluster-stop"
    return 1
  fi
}

ctl() { load_env && rabbitmqctl -q -n "$RABBITMQ_NODENAME" "$@"; }
upgrade() { load_env && rabbitmq-upgrade -q -n "$RABBITMQ_NODENAME" "$@"; }

start() {
  local tls=false
  case "${1:-}" in --tls) tls=true ;; "") ;; *) say "start takes --tls or nothing, not $1"; exit 2 ;; esac
  command -v rabbitmq-server >/dev/null || { say "rabbitmq-server is not installed: run build/bootstrap.sh"; exit 1; }
  if [[ -f "$envfile" ]]; then
    load_env || exit 1
    if ctl status >/dev/null 2>&1; then say "already running ($RABBITMQ_URI)"; return 0; fi
  fi
  stop_quietly

  rm -rf "$state"; mkdir -p "$state/mnesia" "$state/log"
  local amqp dist epmd
  # A cluster's nodes share one epmd (PREWIRE_EPMD_PORT): that is how they find each other.
  amqp=$(free_port); dist=$(free_port "$amqp"); epmd=${PREWIRE_EPMD_PORT:-$(free_port "$amqp" "$dist")}
  cat > "$state/rabbitmq.conf" <<CONF
listeners.tcp.1 = 127.0.0.1:$amqp
loopback_users.guest = true
log.console = false
log.file.level = info
CONF
  echo '[].' > "$state/enabled_plugins"
  local amqps="" pki=""
  if $tls; then
    # A cluster's nodes share one CA (PREWIRE_TLS_PKI), so one CA file trusts them all.
    pki=${PREWIRE_TLS_PKI:-$state/tls}
    [[ -f "$pki/server-chain.pem" ]] || make_pki "$pki" || exit 1
    amqps=$(free_port "$amqp" "$dist" "$epmd")
    cat >> "$state/rabbitmq.conf" <<CONF
listeners.ssl.1 = 127.0.0.1:$amqps
ssl_options.cacertfile = $pki/ca.pem
ssl_options.certfile = $pki/server-chain.pem
ssl_options.keyfile = $pki/server.key
ssl_options.versions.1 = tlsv1.3
ssl_options.versions.2 = tlsv1.2
ssl_options.verify = verify_peer
ssl_options.fail_if_no_peer_cert = false
auth_mechanisms.1 = PLAIN
auth_mechanisms.2 = AMQPLAIN
auth_mechanisms.3 = EXTERNAL
ssl_cert_login_from = common_name
CONF
    echo '[rabbitmq_auth_mechanism_ssl].' > "$state/enabled_plugins"
  fi
  cat > "$envfile" <<ENV
RABBITMQ_NODENAME=prewire-$amqp@localhost
RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
RABBITMQ_NODE_PORT=$amqp
RABBITMQ_DIST_PORT=$dist
ERL_EPMD_ADDRESS=127.0.0.1
ERL_EPMD_PORT=$epmd
RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
RABBITMQ_CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
RABBITMQ_MNESIA_BASE=$state/mnesia
RABBITMQ_LOG_BASE=$state/log
RABBITMQ_CONFIG_FILE=$state/rabbitmq
RABBITMQ_ENABLED_PLUGINS_FILE=$state/enabled_plugins
RABBITMQ_URI=amqp://guest:guest@127.0.0.1:$amqp/
ENV
  if $tls; then
    cat >> "$envfile" <<ENV
RABBITMQ_TLS_PORT=$amqps
RABBITMQ_TLS_URI=amqps://guest:guest@127.0.0.1:$amqps/
PREWIRE_CA_FILE=$pki/ca.pem
PREWIRE_TLS_DIR=$pki
ENV
  fi
  load_env
  # Started as root, rabbitmq-server drops to the rabbitmq user, which must own its folders.
  if [[ $(id -u) == 0 ]] && id rabbitmq >/dev/null 2>&1; then
    chown -R rabbitmq:rabbitmq "$state"
    [[ -n "$pki" ]] && chown -R rabbitmq:rabbitmq "$pki"
    # ...and reach it: every folder above it must be searchable.
    local dir=$state; while [[ "$dir" != / ]]; do dir=$(dirname "$dir"); chmod a+x "$dir" 2>/dev/null || true; done
  fi

  # Our own epmd, bound to loopback on our port, so stopping it never touches another node's.
  if [[ -z "${PREWIRE_EPMD_PORT:-}" ]]; then
    epmd -port "$epmd" -address 127.0.0.1 >/dev/null 2>&1 &
    echo $! > "$state/epmd.pid"
  fi
  launch
  if $tls; then
    # The client certificate's CN is a user (EXTERNAL needs no password; this one is never told).
    ctl add_user prewire-client "$(head -c 24 /dev/urandom | base64)" >/dev/null
    ctl set_permissions -p / prewire-client '.*' '.*' '.*' >/dev/null
    say "amqps on 127.0.0.1:$amqps (CA ${pki#$root/}/ca.pem)"
  fi
}

launch() {
  setsid rabbitmq-server >> "$state/log/server.out" 2>&1 < /dev/null &
  echo $! > "$state/server.pid"

  say "starting on 127.0.0.1:$RABBITMQ_NODE_PORT (node $RABBITMQ_NODENAME, data in ${state#$root/})"
  for _ in $(seq 1 120); do
    if ctl status >/dev/null 2>&1 && ctl await_startup >/dev/null 2>&1; then say "ready: amqp://127.0.0.1:$RABBITMQ_NODE_PORT/"; return 0; fi
    if ! kill -0 "$(cat "$state/server.pid")" 2>/dev/null; then break; fi
    sleep 0.5
  done
  say "did not start; last log lines:"; tail -n 20 "$state/log/"*.log "$state/log/server.out" >&2 2>/dev/null || true
  stop_quietly; exit 1
}

crash() {
  load_env
  # rabbitmq-server drops to its own user in a session of its own: find the node by its AMQP port and
  # kill its whole group (beam and its helpers).
  local beam pgid
  beam=$(ss -Hltnp "sport = :$RABBITMQ_NODE_PORT" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
  [[ -n "$beam" ]] || { say "$RABBITMQ_NODENAME is not running"; return 1; }
  pgid=$(ps -o pgid= -p "$beam" | tr -d ' ')
  kill -KILL -- "-$pgid" 2>/dev/null || kill -KILL "$beam"
  while kill -0 "$beam" 2>/dev/null || ss -Hltn "sport = :$RABBITMQ_NODE_PORT" | grep -q .; do sleep 0.1; done
  rm -f "$state/server.pid"
  say "killed $RABBITMQ_NODENAME (data kept)"
}

stop_quietly() {
  [[ -f "$envfile" ]] || return 0
  load_env || return 0
  rabbitmqctl -q -n "$RABBITMQ_NODENAME" stop >/dev/null 2>&1 || true
  local pid
  for f in server.pid epmd.pid; do
    pid=$(cat "$state/$f" 2>/dev/null) || continue
    # The server runs in its own session (setsid): stop the whole group; epmd is a plain child.
    kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    rm -f "$state/$f"
  done
  # Anything of this node still alive (beam started under su) goes too.
  pkill -f -- "-sname $RABBITMQ_NODENAME" 2>/dev/null || pkill -f -- "$RABBITMQ_NODENAME" 2>/dev/null || true
  rm -f "$envfile"
}

restart() {
  load_env
  local pid
  # The operator's preStop hook, then the pod's stop: no quorum queue loses its majority, no client
  # is cut off mid-publish by the node vanishing (drain closes their connections first).
  # The node's process, found by its AMQP listener before the drain suspends it.
  pid=$(ss -Hltnp "sport = :$RABBITMQ_NODE_PORT" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2) || true
  upgrade await_online_quorum_plus_one -t 120 >/dev/null
  upgrade drain >/dev/null 2>&1
  rabbitmqctl -q -n "$RABBITMQ_NODENAME" stop >/dev/null
  while [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  say "stopped $RABBITMQ_NODENAME (drained, data kept)"
  launch
  # A node started again leaves maintenance by itself on recent versions; saying so costs nothing.
  upgrade revive >/dev/null 2>&1
}

cluster() {
  local nodes=3 tls="" epmd uris=() tls_uris=() first=""
  while (( $# )); do
    case "$1" in --tls) tls=--tls ;; *[!0-9]*|"") say "cluster takes a node count and --tls, not $1"; exit 2 ;; *) nodes=$1 ;; esac
    shift
  done
  cluster_stop
  rm -rf "$state"; mkdir -p "$state"
  [[ -n "$tls" ]] && { make_pki "$state/tls" || exit 1; }
  epmd=$(free_port)
  epmd -port "$epmd" -address 127.0.0.1 >/dev/null 2>&1 &
  echo $! > "$state/epmd.pid"
  for i in $(seq 1 "$nodes"); do
    PREWIRE_BROKER_STATE="$state/node-$i" PREWIRE_EPMD_PORT="$epmd" PREWIRE_TLS_PKI="$state/tls" "$0" start $tls
    local nodeenv="$state/node-$i/env"
    uris+=("$(sed -n 's/^RABBITMQ_URI=//p' "$nodeenv")")
    [[ -n "$tls" ]] && tls_uris+=("$(sed -n 's/^RABBITMQ_TLS_URI=//p' "$nodeenv")")
    local name; name=$(sed -n 's/^RABBITMQ_NODENAME=//p' "$nodeenv")
    if [[ -z "$first" ]]; then first=$name; continue; fi
    PREWIRE_BROKER_STATE="$state/node-$i" "$0" ctl stop_app
    PREWIRE_BROKER_STATE="$state/node-$i" "$0" ctl join_cluster "$first"
    PREWIRE_BROKER_STATE="$state/node-$i" "$0" ctl start_app
  done
  local joined; joined=$(IFS=,; echo "${uris[*]}")
  echo "RABBITMQ_URI=$joined" > "$state/env"
  if [[ -n "$tls" ]]; then
    printf 'RABBITMQ_TLS_URI=%s\nPREWIRE_CA_FILE=%s\nPREWIRE_TLS_DIR=%s\n' "$(IFS=,; echo "${tls_uris[*]}")" "$state/tls/ca.pem" "$state/tls" >> "$state/env"
  fi
  say "cluster of $nodes ready: $joined"
}

cluster_stop() {
  local dir
  for dir in "$state"/node-*; do
    [[ -d "$dir" ]] && PREWIRE_BROKER_STATE="$dir" "$0" stop 2>/dev/null
  done
  if [[ -f "$state/epmd.pid" ]]; then kill "$(cat "$state/epmd.pid")" 2>/dev/null || true; rm -f "$state/epmd.pid"; fi
  rm -f "$state/env"
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) if [[ -f "$envfile" ]]; then load_env || exit 1; fi; stop_quietly; say "stopped" ;;
  status) ctl status >/dev/null ;;
  ctl) shift; ctl "$@" ;;
  kill) crash ;;
  revive) load_env; launch ;;
  restart) restart ;;
  cluster) shift; cluster "$@" ;;
  cluster-stop) cluster_stop; say "cluster stopped" ;;
  *) echo "usage: build/broker.sh start [--tls]|stop|status|ctl ...|kill|revive|restart|cluster [N] [--tls]|cluster-stop" >&2; exit 2 ;;
esac
