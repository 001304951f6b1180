namespace Prewire.HttpEndpoint;

/// <summary>The body of <c>GET /health</c>.</summary>
internal sealed record Health(string Status);
