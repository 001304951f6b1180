#!/usr/bin/env python3
"""A loopback TCP proxy that records both directions of one connection, byte for byte.

    recording-proxy.py LISTEN_PORT TARGET_PORT OUT_DIR

Accepts one client on 127.0.0.1:LISTEN_PORT, connects to 127.0.0.1:TARGET_PORT, forwards both ways
and writes OUT_DIR/client-to-broker.bin and OUT_DIR/broker-to-client.bin when both sides closed."""
import os
import socket
import sys
import threading


def pump(src, dst, sink):
    while True:
        try:
            data = src.recv(65536)
        except ConnectionResetError:  # a peer that closes right after close-ok may reset
            break
        if not data:
            break
        sink.extend(data)
        dst.sendall(data)
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def main():
    listen_port, target_port, out_dir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", listen_port))
    server.listen(1)
    print("listening", flush=True)
    client, _ = server.accept()
    broker = socket.create_connection(("127.0.0.1", target_port))
    up, down = bytearray(), bytearray()
    threads = [threading.Thread(target=pump, args=(client, broker, up)),
               threading.Thread(target=pump, args=(broker, client, down))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "client-to-broker.bin"), "wb") as f:
        f.write(up)
    with open(os.path.join(out_dir, "broker-to-client.bin"), "wb") as f:
        f.write(down)
    print(f"recorded {len(up)} bytes up, {len(down)} bytes down", flush=True)


if __name__ == "__main__":
    main()
