using System.Text.Json.Serialization;

namespace Prewire.HttpEndpoint;

/// <summary>The body of <c>GET /health/live</c> and <c>GET /health/ready</c>; <paramref name="Reason"/> says why it is not ready.</summary>
internal sealed record Health(string Status, [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] string? Reason = null);
