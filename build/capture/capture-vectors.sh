#!/usr/bin/env bash
# Records the framing test vectors in tests/Core.Tests/Framing/Vectors/: one RabbitMQ.Client
# connection (handshake, channel, confirm.select, queue.declare, basic.qos, publishes with
# properties and bodies around frame-max 4096, consume, deliveries, acks, cancel, close) through a
# recording proxy to the throwaway broker. The vectors are committed; CI does not re-record them.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
out=tests/Core.Tests/Framing/Vectors

build/broker.sh start
source artifacts/broker/env
trap 'build/broker.sh stop >/dev/null 2>&1 || true' EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 build/capture/recording-proxy.py "$port" "$RABBITMQ_NODE_PORT" "$out" &
proxy=$!
sleep 1
dotnet run --project build/capture/CaptureDriver -c Release -- "amqp://guest:guest@127.0.0.1:$port/"
wait "$proxy"
ls -l "$out"
