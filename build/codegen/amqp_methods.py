#!/usr/bin/env python3
"""Generates src/Core/Framing/Methods/*.cs: one record struct per AMQP 0-9-1 method the publisher and
consumer paths use, from the table below (class and method ids and argument lists as the 0-9-1
specification gives them). Run from the repository root: python3 build/codegen/amqp_methods.py"""
import os

# (type name, class id, method id, spec name, [(argument, kind)]); kind: octet short long longlong
# shortstr longstr table bit
METHODS = [
    ("ConnectionStart", 10, 10, "connection.start", [("VersionMajor", "octet"), ("VersionMinor", "octet"), ("ServerProperties", "table"), ("Mechanisms", "longstr"), ("Locales", "longstr")]),
    ("ConnectionStartOk", 10, 11, "connection.start-ok", [("ClientProperties", "table"), ("Mechanism", "shortstr"), ("Response", "longstr"), ("Locale", "shortstr")]),
    ("ConnectionTune", 10, 30, "connection.tune", [("ChannelMax", "short"), ("FrameMax", "long"), ("Heartbeat", "short")]),
    ("ConnectionTuneOk", 10, 31, "connection.tune-ok", [("ChannelMax", "short"), ("FrameMax", "long"), ("Heartbeat", "short")]),
    ("ConnectionOpen", 10, 40, "connection.open", [("VirtualHost", "shortstr"), ("Reserved1", "shortstr"), ("Reserved2", "bit")]),
    ("ConnectionOpenOk", 10, 41, "connection.open-ok", [("Reserved1", "shortstr")]),
    ("ConnectionClose", 10, 50, "connection.close", [("ReplyCode", "short"), ("ReplyText", "shortstr"), ("FailingClassId", "short"), ("FailingMethodId", "short")]),
    ("ConnectionCloseOk", 10, 51, "connection.close-ok", []),
    ("ConnectionBlocked", 10, 60, "connection.blocked", [("Reason", "shortstr")]),
    ("ConnectionUnblocked", 10, 61, "connection.unblocked", []),
    ("ChannelOpen", 20, 10, "channel.open", [("Reserved1", "shortstr")]),
    ("ChannelOpenOk", 20, 11, "channel.open-ok", [("Reserved1", "longstr")]),
    ("ChannelClose", 20, 40, "channel.close", [("ReplyCode", "short"), ("ReplyText", "shortstr"), ("FailingClassId", "short"), ("FailingMethodId", "short")]),
    ("ChannelCloseOk", 20, 41, "channel.close-ok", []),
    ("QueueDeclare", 50, 10, "queue.declare", [("Reserved1", "short"), ("Queue", "shortstr"), ("Passive", "bit"), ("Durable", "bit"), ("Exclusive", "bit"), ("AutoDelete", "bit"), ("NoWait", "bit"), ("Arguments", "table")]),
    ("QueueDeclareOk", 50, 11, "queue.declare-ok", [("Queue", "shortstr"), ("MessageCount", "long"), ("ConsumerCount", "long")]),
    ("BasicQos", 60, 10, "basic.qos", [("PrefetchSize", "long"), ("PrefetchCount", "short"), ("Global", "bit")]),
    ("BasicQosOk", 60, 11, "basic.qos-ok", []),
    ("BasicConsume", 60, 20, "basic.consume", [("Reserved1", "short"), ("Queue", "shortstr"), ("ConsumerTag", "shortstr"), ("NoLocal", "bit"), ("NoAck", "bit"), ("Exclusive", "bit"), ("NoWait", "bit"), ("Arguments", "table")]),
    ("BasicConsumeOk", 60, 21, "basic.consume-ok", [("ConsumerTag", "shortstr")]),
    ("BasicCancel", 60, 30, "basic.cancel", [("ConsumerTag", "shortstr"), ("NoWait", "bit")]),
    ("BasicCancelOk", 60, 31, "basic.cancel-ok", [("ConsumerTag", "shortstr")]),
    ("BasicPublish", 60, 40, "basic.publish", [("Reserved1", "short"), ("Exchange", "shortstr"), ("RoutingKey", "shortstr"), ("Mandatory", "bit"), ("Immediate", "bit")]),
    ("BasicReturn", 60, 50, "basic.return", [("ReplyCode", "short"), ("ReplyText", "shortstr"), ("Exchange", "shortstr"), ("RoutingKey", "shortstr")]),
    ("BasicDeliver", 60, 60, "basic.deliver", [("ConsumerTag", "shortstr"), ("DeliveryTag", "longlong"), ("Redelivered", "bit"), ("Exchange", "shortstr"), ("RoutingKey", "shortstr")]),
    ("BasicAck", 60, 80, "basic.ack", [("DeliveryTag", "longlong"), ("Multiple", "bit")]),
    ("BasicReject", 60, 90, "basic.reject", [("DeliveryTag", "longlong"), ("Requeue", "bit")]),
    ("BasicNack", 60, 120, "basic.nack", [("DeliveryTag", "longlong"), ("Multiple", "bit"), ("Requeue", "bit")]),
    ("ConfirmSelect", 85, 10, "confirm.select", [("NoWait", "bit")]),
    ("ConfirmSelectOk", 85, 11, "confirm.select-ok", []),
]

CS = {"octet": "byte", "short": "ushort", "long": "uint", "longlong": "ulong", "shortstr": "string",
      "longstr": "byte[]", "table": "Dictionary<string, object?>?", "bit": "bool"}
SIZE = {"octet": "1", "short": "2", "long": "4", "longlong": "8"}


def groups(args):
    """Consecutive bits share octets (8 per octet); yields ('bits', [names]) or (name, kind)."""
    out, bits = [], []
    for name, kind in args:
        if kind == "bit":
            bits.append(name)
            if len(bits) == 8:
                out.append(("bits", bits)); bits = []
        else:
            if bits:
                out.append(("bits", bits)); bits = []
            out.append((name, kind))
    if bits:
        out.append(("bits", bits))
    return out


def generate(name, cls, mid, spec, args):
    params = ", ".join(f"{CS[k]} {n}" for n, k in args)
    size_terms, writes, reads = [], [], []
    for g in groups(args):
        if g[0] == "bits":
            size_terms.append("1")
            names = g[1]
            expr = " | ".join(f"({n} ? {1 << i} : 0)" for i, n in enumerate(names))
            writes.append(f"writer.WriteOctet((byte)({expr}));")
            reads.append(("bits", names))
        else:
            n, k = g
            if k in SIZE:
                size_terms.append(SIZE[k])
            elif k == "shortstr":
                size_terms.append(f"AmqpWriter.ShortStringSize({n})")
            elif k == "longstr":
                size_terms.append(f"4 + {n}.Length")
            elif k == "table":
                size_terms.append(f"FieldTable.GetSize({n})")
            method = {"octet": "Octet", "short": "Short", "long": "Long", "longlong": "LongLong", "shortstr": "ShortString",
                      "longstr": "LongString", "table": "Table"}[k]
            writes.append(f"writer.Write{method}({n});")
            reads.append((n, method))
    size = " + ".join(size_terms) if size_terms else "0"
    body_reads, ctor_args = [], []
    for r in reads:
        if r[0] == "bits":
            var = "bits" if sum(1 for x in reads if x[0] == "bits") == 1 else f"bits{len(body_reads)}"
            body_reads.append(f"var {var} = reader.ReadOctet();")
            for i, n in enumerate(r[1]):
                ctor_args.append((n, f"({var} & {1 << i}) != 0"))
        else:
            n, method = r
            var = n[0].lower() + n[1:]
            body_reads.append(f"var {var} = reader.Read{method}();")
            ctor_args.append((n, var))
    order = [n for n, _ in args]
    ctor = ", ".join(dict(ctor_args)[n] for n in order)
    if args:
        decl = f"public readonly record struct {name}({params}) : IAmqpMethod<{name}>"
    else:
        decl = f"public readonly record struct {name} : IAmqpMethod<{name}>"
    writes_text = "\n".join(f"        {w}" for w in writes) if writes else "        _ = writer;"
    reads_text = "\n".join(f"        {r}" for r in body_reads)
    ret = f"new({ctor})" if args else "default"
    read_body = f"{reads_text}\n        return {ret};" if body_reads else f"        _ = reader;\n        return {ret};"
    return f"""// <auto-generated>build/codegen/amqp_methods.py</auto-generated>
#nullable enable

namespace Prewire.Framing.Methods;

/// <summary><c>{spec}</c> ({cls}, {mid}).</summary>
{decl}
{{
    /// <inheritdoc />
    public static ushort ClassId => {cls};

    /// <inheritdoc />
    public static ushort MethodId => {mid};

    /// <inheritdoc />
    public int GetArgumentsSize() => {size};

    /// <inheritdoc />
    public void WriteArguments(ref AmqpWriter writer)
    {{
{writes_text}
    }}

    /// <inheritdoc />
    public static {name} ReadArguments(ref AmqpReader reader)
    {{
{read_body}
    }}
}}
"""


def main():
    out = os.path.join("src", "Core", "Framing", "Methods")
    os.makedirs(out, exist_ok=True)
    for m in METHODS:
        with open(os.path.join(out, m[0] + ".cs"), "w") as f:
            f.write(generate(*m))
    print(f"wrote {len(METHODS)} methods to {out}")


if __name__ == "__main__":
    main()
