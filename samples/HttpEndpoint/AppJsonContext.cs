using System.Text.Json;
using System.Text.Json.Serialization;

namespace Prewire.HttpEndpoint;

/// <summary>Source-generated JSON for every type the endpoints read or write: no reflection at run time.</summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
[JsonSerializable(typeof(Health))]
internal sealed partial class AppJsonContext : JsonSerializerContext;
