namespace Prewire.Amqp.Internal;

/// <summary>An AMQP URI taken apart: where to connect and as whom. <see cref="ToString"/> leaves the credentials out.</summary>
internal sealed record AmqpAddress(string Host, int Port, string User, string Password, string VirtualHost)
{
    public static AmqpAddress Parse(Uri uri)
    {
        if (uri.Scheme != "amqp") throw new ArgumentException($"the publisher speaks amqp://, not {uri.Scheme}://", nameof(uri));
        var user = "guest";
        var password = "guest";
        if (!string.IsNullOrEmpty(uri.UserInfo))
        {
            var colon = uri.UserInfo.IndexOf(':', StringComparison.Ordinal);
            user = Uri.UnescapeDataString(colon < 0 ? uri.UserInfo : uri.UserInfo[..colon]);
            password = colon < 0 ? "" : Uri.UnescapeDataString(uri.UserInfo[(colon + 1)..]);
        }
        var path = uri.AbsolutePath;
        var vhost = path is "" or "/" ? "/" : Uri.UnescapeDataString(path[1..]);
        return new AmqpAddress(uri.Host, uri.Port > 0 ? uri.Port : 5672, user, password, vhost);
    }

    public override string ToString() => $"amqp://{Host}:{Port}/{(VirtualHost == "/" ? "" : Uri.EscapeDataString(VirtualHost))}";
}
