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
"""
import json
import sys

import pika


def main(argv):
    command, uri, queue = argv[1], argv[2], argv[3]
    connection = pika.BlockingConnection(pika.URLParameters(uri))
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
                headers = {k: v.decode() if isinstance(v, bytes) else str(v) for k, v in (properties.headers or {}).items()}
                print(json.dumps({"body_hex": body.hex(), "message_id": properties.message_id,
                                  "content_type": properties.content_type, "headers": headers}))
        elif command == "count":
            print(channel.queue_declare(queue, passive=True).method.message_count)
        else:
            sys.exit(f"unknown command {command}")
    finally:
        connection.close()


if __name__ == "__main__":
    main(sys.argv)
