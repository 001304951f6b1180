namespace Prewire.Framing;

/// <summary>A content header as read: the class, the size of the body that follows, the properties.</summary>
public sealed record ContentHeader(ushort ClassId, ulong BodySize, BasicProperties Properties);
