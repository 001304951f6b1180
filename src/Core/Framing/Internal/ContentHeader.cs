using Prewire.Amqp;

namespace Prewire.Framing.Internal;

/// <summary>A content header as read: the class, the size of the body that follows, the properties.</summary>
internal sealed record ContentHeader(ushort ClassId, ulong BodySize, BasicProperties Properties);
