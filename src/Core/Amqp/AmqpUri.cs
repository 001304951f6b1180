using System.Diagnostics.CodeAnalysis;

namespace Prewire.Amqp;

/// <summary>
/// An AMQP URI taken apart (<c>amqp://user:password@host:port/vhost</c>, or <c>amqps://</c>): the one
/// parser both clients use. <see cref="ToString"/> leaves the credentials out, so it is what logs and
/// messages show; <see cref="Uri"/> keeps them for the client that connects.
/// </summary>
public sealed class AmqpUri
{
    private AmqpUri(Uri uri, string userName, string password, string virtualHost)
    {
        Uri = uri;
        UserName = userName;
        Password = password;
        VirtualHost = virtualHost;
    }

    /// <summary>The URI as given, credentials included: hand it to a client, never to a log.</summary>
    public Uri Uri { get; }

    /// <summary><see langword="true"/> for <c>amqps://</c> (TLS).</summary>
    public bool IsTls => Uri.Scheme == "amqps";

    /// <summary>The host.</summary>
    public string Host => Uri.Host;

    /// <summary>The port.</summary>
    /// <remarks>Defaults to 5672, or 5671 for <c>amqps://</c>.</remarks>
    public int Port => Uri.IsDefaultPort || Uri.Port <= 0 ? (IsTls ? 5671 : 5672) : Uri.Port;

    /// <summary>The user.</summary>
    /// <remarks>Defaults to <c>guest</c>, as RabbitMQ's own clients do.</remarks>
    public string UserName { get; }

    /// <summary>The password.</summary>
    /// <remarks>Defaults to <c>guest</c> when the URI names no user.</remarks>
    public string Password { get; }

    /// <summary>The virtual host, unescaped.</summary>
    /// <remarks>Defaults to <c>/</c> when the URI has no path.</remarks>
    public string VirtualHost { get; }

    /// <summary>Parses <paramref name="text"/>; throws <see cref="FormatException"/> saying what is wrong and never echoing the text (it may carry a password).</summary>
    public static AmqpUri Parse(string text) =>
        TryParse(text, out var uri, out var error) ? uri : throw new FormatException(error);

    /// <summary>Parses <paramref name="text"/>; on failure <paramref name="error"/> says what is wrong without echoing the text.</summary>
    public static bool TryParse(string? text, [NotNullWhen(true)] out AmqpUri? uri, [NotNullWhen(false)] out string? error)
    {
        uri = null;
        if (!Uri.TryCreate(text, UriKind.Absolute, out var parsed))
        {
            error = "not an absolute URI; expected amqp://user:password@host:port/vhost";
            return false;
        }
        if (parsed.Scheme is not ("amqp" or "amqps"))
        {
            error = $"scheme '{parsed.Scheme}' is not amqp or amqps";
            return false;
        }
        if (parsed.Host.Length == 0)
        {
            error = "no host; expected amqp://user:password@host:port/vhost";
            return false;
        }
        string userName = "guest", password = "guest";
        if (parsed.UserInfo.Length > 0)
        {
            var colon = parsed.UserInfo.IndexOf(':', StringComparison.Ordinal);
            userName = Uri.UnescapeDataString(colon < 0 ? parsed.UserInfo : parsed.UserInfo[..colon]);
            password = colon < 0 ? "" : Uri.UnescapeDataString(parsed.UserInfo[(colon + 1)..]);
        }
        // No path, or "/", is RabbitMQ's default vhost "/" (as its own clients read it); "/%2F" is "/" too.
        var path = parsed.AbsolutePath;
        var virtualHost = path is "" or "/" ? "/" : Uri.UnescapeDataString(path[1..]);
        uri = new AmqpUri(parsed, userName, password, virtualHost);
        error = null;
        return true;
    }

    /// <summary>The address without credentials, e.g. <c>amqp://127.0.0.1:5672/</c>: safe to log.</summary>
    public override string ToString() => $"{Uri.Scheme}://{Host}:{Port}{Uri.AbsolutePath}";
}
