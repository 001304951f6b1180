#!/usr/bin/python3
"""An AMQP client not written here (Debian's python3-pika), for the interop tests.

  pika_client.py publish URI QUEUE BODY_HEX [MESSAGE_ID] [KEY=VALUE ...]
      publishes one persistent message to QUEUE via the default exchange, with confirms
  pika_client.py get URI QUEUE
      takes one message (acknowledged) and prints it as JSON: body_hex, message_id, content_type,
      headers (values as text); {"empty": true} when the queue has none
  pika_client.py count URI QUEUE
      prints the messages ready in QUEUE, read from the queue itself (a passive queue.declare):
      exact, where rabbitmqctl list_queues lags for a quorum queue
  pika_client.py delete URI QUEUE
      deletes QUEUE with its messages
  pika_client.py publish-sizes URI QUEUE SIZE...
      publishes one persistent message per size, with confirms: message i has body(i, size),
      message-id "m<i>", content-type, correlation-id, a timestamp and typed headers as pika
      encodes Python's values
  pika_client.py consume-sizes URI QUEUE COUNT
      consumes COUNT messages (acknowledged) and prints one JSON line each: message_id, size,
      whether the body is body(i, size) byte for byte, and the headers (values as text)

Bodies of the -sizes commands are made from their index and size alone, the same way on the other
side (body below), so nothing large crosses the command line. An amqps:// URI connects over TLS with
Python's ssl, trusting the CA file PREWIRE_CA_FILE names (else the system's store) and checking the
host name.
"""
import datetime
import decimal
import json
import os
import ssl
import sys

import pika


def body(index, size):
    return bytes(((index * 31) + (j * 7) + (j >> 8)) & 0xFF for j in range(size))


def as_text(headers):
    return {k: v.decode() if isinstance(v, bytes) else str(v) for k, v in (headers or {}).items()}


def parameters(uri):
    parameters = pika.URLParameters(uri)
    if uri.startswith("amqps://"):
        context = ssl.create_default_context(cafile=os.environ.get("PREWIRE_CA_FILE"))
        parameters.ssl_options = pika.SSLOptions(context, parameters.host)
    return parameters


def main(argv):
    command, uri, queue = argv[1], argv[2], argv[3]
    connection = pika.BlockingConnection(parameters(uri))
    channel = connection.channel()
    try:
        if command == "publish":
            body = bytes.fromhex(argv[4])
            message_id = argv[5] if len(argv) > 5 and argv[5] else None
            headers = dict(kv.split("=", 1) for kv in argv[6:])
            channel.confirm_delivery()
            channel.basic_publish("", queue, body, pika.BasicProperties(
                message_id=message_id, headers=headers or None, delivery_mode=2), mandatory=True)
        elif command == "get":
            method, properties, body = channel.basic_get(queue, auto_ack=True)
            if method is None:
                print(json.dumps({"empty": True}))
            else:
                print(json.dumps({"body_hex": body.hex(), "message_id": properties.message_id,
                                  "content_type": properties.content_type, "headers": as_text(properties.headers)}))
        elif command == "count":
            print(channel.queue_declare(queue, passive=True).method.message_count)
        elif command == "delete":
            channel.queue_delete(queue)
        elif command == "publish-sizes":
            publish_sizes(channel, queue, [int(s) for s in argv[4:]])
        elif command == "consume-sizes":
            consume_sizes(channel, queue, int(argv[4]))
        else:
            sys.exit(f"unknown command {command}")
    finally:
        connection.close()


def publish_sizes(channel, queue, sizes):
    channel.confirm_delivery()
    for index, size in enumerate(sizes):
        headers = {
            "int": 42, "long": 1 << 40, "negative": -7, "text": "héllo", "flag": True,
            "decimal": decimal.Decimal("3.14"), "when": datetime.datetime(2026, 11, 25, 12, 0, 0),
            "nested": {"inner": "value", "n": 1}, "list": [1, "two", False], "none": None,
        }
        channel.basic_publish("", queue, body(index, size), pika.BasicProperties(
            message_id=f"m{index}", content_type="application/octet-stream", correlation_id="corr",
            delivery_mode=2, timestamp=1_700_000_000, headers=headers), mandatory=True)


def consume_sizes(channel, queue, count):
    seen = 0
    for method, properties, payload in channel.consume(queue, inactivity_timeout=30):
        if method is None:
            sys.exit(f"only {seen} of {count} messages arrived within 30 s")
        index = int(properties.message_id[1:])
        print(json.dumps({"message_id": properties.message_id, "size": len(payload),
                          "exact": payload == body(index, len(payload)), "headers": as_text(properties.headers)}))
        channel.basic_ack(method.delivery_tag)
        seen += 1
        if seen == count:
            break
    channel.cancel()


if __name__ == "__main__":
    main(sys.argv)
