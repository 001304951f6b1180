#!/usr/bin/env python3
"""Generates src/Core/Framing/Internal/Methods/*.cs: one record struct per AMQP 0-9-1 method the publisher and
consumer paths use, the class-id constants (AmqpClassId) and one command-id enum (AmqpCommandId) to
switch on, from the tables below (ids and argument lists as the 0-9-1 specification gives them).

  python3 build/codegen/amqp_methods.py           rewrite the files
  python3 build/codegen/amqp_methods.py --check   exit 1 naming each file that differs from what this
                                                  script writes (CI runs this)
Run from the repository root."""
import os
import sys

# (constant name, class id), as the specification names the classes.
CLASSES = [("Connection", 10), ("Channel", 20), ("Exchange", 40), ("Queue", 50), ("Basic", 60), ("Confirm", 85)]

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
    ("ExchangeDeclare", 40, 10, "exchange.declare", [("Reserved1", "short"), ("Exchange", "shortstr"), ("Type", "shortstr"), ("Passive", "bit"), ("Durable", "bit"), ("AutoDelete", "bit"), ("Internal", "bit"), ("NoWait", "bit"), ("Arguments", "table")]),
    ("ExchangeDeclareOk", 40, 11, "exchange.declare-ok", []),
    ("QueueDeclare", 50, 10, "queue.declare", [("Reserved1", "short"), ("Queue", "shortstr"), ("Passive", "bit"), ("Durable", "bit"), ("Exclusive", "bit"), ("AutoDelete", "bit"), ("NoWait", "bit"), ("Arguments", "table")]),
    ("QueueDeclareOk", 50, 11, "queue.declare-ok", [("Queue", "shortstr"), ("MessageCount", "long"), ("ConsumerCount", "long")]),
    ("QueueBind", 50, 20, "queue.bind", [("Reserved1", "short"), ("Queue", "shortstr"), ("Exchange", "shortstr"), ("RoutingKey", "shortstr"), ("NoWait", "bit"), ("Arguments", "table")]),
    ("QueueBindOk", 50, 21, "queue.bind-ok", []),
    ("QueueDelete", 50, 40, "queue.delete", [("Reserved1", "short"), ("Queue", "shortstr"), ("IfUnused", "bit"), ("IfEmpty", "bit"), ("NoWait", "bit")]),
    ("QueueDeleteOk", 50, 41, "queue.delete-ok", [("MessageCount", "long")]),
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
        decl = f"internal readonly record struct {name}({params}) : IAmqpMethod<{name}>"
    else:
        decl = f"internal readonly record struct {name} : IAmqpMethod<{name}>"
    writes_text = "\n".join(f"        {w}" for w in writes) if writes else "        _ = writer;"
    reads_text = "\n".join(f"        {r}" for r in body_reads)
    ret = f"new({ctor})" if args else "default"
    read_body = f"{reads_text}\n        return {ret};" if body_reads else f"        _ = reader;\n        return {ret};"
    class_name = dict((v, k) for k, v in CLASSES)[cls]
    return f"""{HEADER}
namespace Prewire.Framing.Internal.Methods;

/// <summary><c>{spec}</c> ({cls}, {mid}).</summary>
{decl}
{{
    /// <inheritdoc />
    public static ushort ClassId => AmqpClassId.{class_name};

    /// <inheritdoc />
    public static ushort MethodId => {mid};

    /// <inheritdoc />
    public static AmqpCommandId CommandId => AmqpCommandId.{name};

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


HEADER = """// <auto-generated>build/codegen/amqp_methods.py</auto-generated>
#nullable enable
"""


def class_ids():
    consts = "\n\n".join(f"    /// <summary><c>{k.lower()}</c>.</summary>\n    public const ushort {k} = {v};" for k, v in CLASSES)
    return f"""{HEADER}
namespace Prewire.Framing.Internal.Methods;

/// <summary>The AMQP 0-9-1 class ids of the methods in this folder.</summary>
internal static class AmqpClassId
{{
{consts}
}}
"""


def command_ids():
    members = "\n\n".join(
        f"    /// <summary><c>{spec}</c> ({cls}, {mid}).</summary>\n    {name} = ((uint)AmqpClassId.{dict((v, k) for k, v in CLASSES)[cls]} << 16) | {mid},"
        for name, cls, mid, spec, _ in METHODS)
    return f"""{HEADER}
namespace Prewire.Framing.Internal.Methods;

/// <summary>
/// A method's class id (high 16 bits) and method id (low 16 bits) in one value, to switch on:
/// <see cref="AmqpFrameReader.ReadCommandId"/> reads it from a method frame.
/// </summary>
internal enum AmqpCommandId : uint
{{
{members}
}}
"""


def files():
    out = os.path.join("src", "Core", "Framing", "Internal", "Methods")
    yield os.path.join(out, "AmqpClassId.cs"), class_ids()
    yield os.path.join(out, "AmqpCommandId.cs"), command_ids()
    for m in METHODS:
        yield os.path.join(out, m[0] + ".cs"), generate(*m)


def main():
    wanted = dict(files())
    out = os.path.dirname(next(iter(wanted)))
    if sys.argv[1:] == ["--check"]:
        on_disk = {os.path.join(out, f) for f in os.listdir(out) if f.endswith(".cs")}
        differ = sorted(p for p, text in wanted.items() if not os.path.exists(p) or open(p).read() != text)
        extra = sorted(on_disk - set(wanted))
        for p in differ:
            print(f"codegen: {p} differs from what build/codegen/amqp_methods.py writes")
        for p in extra:
            print(f"codegen: {p} is not written by build/codegen/amqp_methods.py")
        if differ or extra:
            print("codegen: run python3 build/codegen/amqp_methods.py and commit the result")
            return 1
        print(f"codegen: the {len(wanted)} files in {out} match build/codegen/amqp_methods.py")
        return 0
    if sys.argv[1:]:
        print(__doc__)
        return 2
    os.makedirs(out, exist_ok=True)
    for path, text in wanted.items():
        with open(path, "w") as f:
            f.write(text)
    print(f"wrote {len(wanted)} files to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
