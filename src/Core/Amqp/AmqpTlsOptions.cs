namespace Prewire.Amqp;

/// <summary>
/// How an <c>amqps://</c> connection checks the broker and shows who it is. TLS 1.2 or 1.3; the broker's
/// certificate must be valid now, name the host of the URI, and chain to a trusted authority.
/// </summary>
public sealed class AmqpTlsOptions
{
    /// <summary>
    /// A PEM file of the certificate authorities trusted to sign the broker's certificate, in place of
    /// the system's trust store (a private CA, a test broker's).
    /// </summary>
    /// <remarks>Defaults to <see langword="null"/>: the system's trust store.</remarks>
    public string? CaFile { get; set; }

    /// <summary>
    /// A PEM file of the certificate to show the broker. With one, the connection authenticates by
    /// RabbitMQ's EXTERNAL mechanism (the broker takes the user from the certificate) instead of the
    /// URI's user name and password.
    /// </summary>
    /// <remarks>Defaults to <see langword="null"/>: no client certificate, PLAIN authentication.</remarks>
    public string? ClientCertificateFile { get; set; }

    /// <summary>A PEM file of <see cref="ClientCertificateFile"/>'s private key, unencrypted.</summary>
    /// <remarks>Defaults to <see langword="null"/>: the key is in <see cref="ClientCertificateFile"/>.</remarks>
    public string? ClientKeyFile { get; set; }

    /// <summary>Reads the files named, as a connection will: a command line can refuse them before connecting.</summary>
    /// <exception cref="ArgumentException">A file cannot be read or holds no certificate (or key); the message names it and why.</exception>
    public void Validate()
    {
        AmqpTlsCheck.ThrowIfKeyWithoutCertificate(this);
        if (CaFile is null && ClientCertificateFile is null) return;
        if (!Internal.AmqpFeatures.TlsIsSupported) throw new ArgumentException($"this build has no TLS ({Internal.AmqpFeatures.TlsSwitch} is off): a CA file or client certificate has no use");
        _ = new AmqpTlsCheck(this, host: "");
    }
}
