using Prewire.Framing.Internal.Methods;

namespace Prewire.Framing.Internal;

/// <summary>
/// An AMQP 0-9-1 method's arguments: its ids, its exact encoded size, how to write and read it.
/// Implemented by the record structs in <c>Framing/Methods</c>; generic so writing never boxes.
/// </summary>
internal interface IAmqpMethod<TSelf>
    where TSelf : struct, IAmqpMethod<TSelf>
{
    /// <summary>The class id.</summary>
    static abstract ushort ClassId { get; }

    /// <summary>The method id within the class.</summary>
    static abstract ushort MethodId { get; }

    /// <summary>Both ids in one value, as <see cref="AmqpFrameReader.ReadCommandId"/> reads them.</summary>
    static abstract AmqpCommandId CommandId { get; }

    /// <summary>The encoded size of the arguments, in bytes.</summary>
    int GetArgumentsSize();

    /// <summary>Writes the arguments; <paramref name="writer"/> has room for exactly <see cref="GetArgumentsSize"/> bytes.</summary>
    void WriteArguments(ref AmqpWriter writer);

    /// <summary>Reads the arguments; throws <see cref="AmqpProtocolException"/> when they are malformed.</summary>
    static abstract TSelf ReadArguments(ref AmqpReader reader);
}
