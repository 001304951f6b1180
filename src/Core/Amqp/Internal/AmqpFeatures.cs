using System.Diagnostics.CodeAnalysis;

namespace Prewire.Amqp.Internal;

/// <summary>
/// Parts of the client an app may build without. TLS is 1.7 MB of a NativeAOT console built without
/// RabbitMQ.Client (SslStream, X509 chains, the OpenSSL shim): an app that never connects over amqps
/// sets the switch off
/// (<c>-p:PrewireTls=false</c> for the samples) and the trimmer drops all of it.
/// </summary>
internal static class AmqpFeatures
{
    public const string TlsSwitch = "Prewire.Amqp.Tls.IsSupported";

    [FeatureSwitchDefinition(TlsSwitch)]
    public static bool TlsIsSupported => !AppContext.TryGetSwitch(TlsSwitch, out var on) || on;
}
