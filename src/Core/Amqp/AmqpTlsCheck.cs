using System.Net.Security;
using System.Security.Authentication;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace Prewire.Amqp;

/// <summary>
/// One connection's TLS from <see cref="AmqpTlsOptions"/>, as Prewire's client does it and any other
/// client can (the apps give it to RabbitMQ.Client's <c>SslOption</c>): the files read, the broker's
/// certificate checked (its name, its dates, its chain: to the CA file when one is given, else to the
/// system's store), and why a certificate was refused in words, for the one line a failed connection prints.
/// </summary>
/// <remarks>
/// Nothing is fetched during a handshake: no missing intermediate certificate is downloaded from the
/// address a certificate names (AIA), so the broker must send its chain (RabbitMQ sends what its
/// certfile holds) or the CA file must hold the intermediates. That keeps an HTTP client out of the
/// handshake, and out of a NativeAOT binary built without RabbitMQ.Client (1.2 MB, docs/transport.md).
/// Nor is revocation checked: that would fetch CRLs or ask an OCSP responder, and a private PKI's
/// brokers rarely publish either.
/// </remarks>
public sealed class AmqpTlsCheck
{
    /// <summary>The TLS versions offered: 1.2 and 1.3.</summary>
    public const SslProtocols Protocols = SslProtocols.Tls12 | SslProtocols.Tls13;

    private const string SubjectAlternativeName = "2.5.29.17";
    private const string ServerAuthentication = "1.3.6.1.5.5.7.3.1";

    private readonly X509Certificate2Collection? _authorities;
    private readonly string? _caFile;

    /// <summary>Reads the files <paramref name="options"/> names, for a connection to <paramref name="host"/>.</summary>
    /// <exception cref="ArgumentException">A file cannot be read or holds no certificate (or key); the message names it.</exception>
    public AmqpTlsCheck(AmqpTlsOptions options, string host)
    {
        ArgumentNullException.ThrowIfNull(options);
        ThrowIfKeyWithoutCertificate(options);
        Host = host;
        _caFile = options.CaFile;
        if (options.CaFile is { } caFile) _authorities = Authorities(caFile);
        if (options.ClientCertificateFile is { } certificateFile) ClientCertificate = Client(certificateFile, options.ClientKeyFile);
    }

    /// <summary>The host the broker's certificate must name.</summary>
    public string Host { get; }

    /// <summary>The certificate to show the broker, when one was given: EXTERNAL authentication then.</summary>
    public X509Certificate2? ClientCertificate { get; }

    /// <summary>Why the broker's certificate was refused, once it was.</summary>
    public string? Refusal { get; private set; }

    /// <summary>SslStream's options for this check: the host, the versions, <see cref="Validate"/>, the client certificate.</summary>
    public SslClientAuthenticationOptions ClientOptions() => new()
    {
        TargetHost = Host,
        EnabledSslProtocols = Protocols,
        CertificateRevocationCheckMode = X509RevocationMode.NoCheck,
        CertificateChainPolicy = NoDownloads(new X509ChainPolicy()),
        RemoteCertificateValidationCallback = Validate,
        ClientCertificates = ClientCertificate is null ? null : [ClientCertificate],
    };

    /// <summary>The check itself, as SslStream and RabbitMQ.Client's SslOption call it; records <see cref="Refusal"/> when it refuses.</summary>
    public bool Validate(object sender, X509Certificate? certificate, X509Chain? chain, SslPolicyErrors errors)
    {
        if (certificate is null)
        {
            Refusal = "it showed no certificate";
            return false;
        }
        var presented = certificate as X509Certificate2 ?? new X509Certificate2(certificate);
        List<string> reasons = [.. ChainProblems(presented, chain, errors)];
        if ((errors & SslPolicyErrors.RemoteCertificateNameMismatch) != 0)
            reasons.Add($"its certificate names {string.Join(", ", Names(presented))}, not {Host}");
        if (reasons.Count == 0) return true;
        Refusal = string.Join("; ", reasons);
        return false;
    }

    /// <summary>The one line for a failed handshake with <paramref name="endpoint"/>.</summary>
    public string Describe(string endpoint, Exception failure) => Refusal is { } refusal
        ? $"TLS with {endpoint} failed: {refusal}"
        : $"TLS with {endpoint} failed: {failure.Message} (is it the broker's TLS port? a plain AMQP port answers the TLS hello with its protocol header and hangs up)";

    private IEnumerable<string> ChainProblems(X509Certificate2 certificate, X509Chain? given, SslPolicyErrors errors)
    {
        X509ChainStatusFlags problems;
        if (_authorities is not null)
        {
            // The CA file stands in for the system's store: the chain the TLS stack built against that store does not count.
            using var chain = new X509Chain();
            chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
            chain.ChainPolicy.CustomTrustStore.AddRange(_authorities);
            // The intermediates the broker sent (a private PKI's usual layout: its certificate and its
            // issuer in the certfile, the root alone in the clients' CA file) help build the chain; they
            // are never anchors, which come from the CA file alone.
            if (given is not null) chain.ChainPolicy.ExtraStore.AddRange(Sent(given));
            chain.ChainPolicy.ApplicationPolicy.Add(new Oid(ServerAuthentication));
            NoDownloads(chain.ChainPolicy);
            if (chain.Build(certificate)) yield break;
            problems = Flags(chain.ChainStatus);
        }
        else if ((errors & SslPolicyErrors.RemoteCertificateChainErrors) == 0)
        {
            yield break;
        }
        else
        {
            problems = Flags(given?.ChainStatus ?? []);
        }

        if ((problems & X509ChainStatusFlags.NotTimeValid) != 0)
        {
            yield return certificate.NotAfter < DateTime.Now
                ? $"its certificate expired on {certificate.NotAfter.ToUniversalTime():yyyy-MM-dd HH:mm} UTC"
                : $"its certificate is not valid before {certificate.NotBefore.ToUniversalTime():yyyy-MM-dd HH:mm} UTC";
        }
        const X509ChainStatusFlags untrusted = X509ChainStatusFlags.UntrustedRoot | X509ChainStatusFlags.PartialChain;
        if ((problems & untrusted) != 0)
            yield return $"its certificate, issued by '{certificate.Issuer}', is not signed by {(_caFile is null ? "an authority the system trusts" : $"the CA in {_caFile}")}";
        if ((problems & X509ChainStatusFlags.NotValidForUsage) != 0)
            yield return "its certificate is not one for a server (no serverAuth in its extended key usage)";
        var rest = problems & ~(untrusted | X509ChainStatusFlags.NotTimeValid | X509ChainStatusFlags.NotValidForUsage);
        if (rest != X509ChainStatusFlags.NoError || problems == X509ChainStatusFlags.NoError)
            yield return $"its certificate chain is not valid ({rest})";
    }

    // What came with the broker's certificate: SslStream puts it in its chain's extra store, and the
    // chain it built holds it too when it got that far.
    private static X509Certificate2Collection Sent(X509Chain given)
    {
        var sent = new X509Certificate2Collection(given.ChainPolicy.ExtraStore);
        for (var i = 1; i < given.ChainElements.Count; i++) sent.Add(given.ChainElements[i].Certificate);
        return sent;
    }

    private static X509ChainPolicy NoDownloads(X509ChainPolicy policy)
    {
        policy.DisableCertificateDownloads = true;
        policy.RevocationMode = X509RevocationMode.NoCheck;
        return policy;
    }

    private static X509ChainStatusFlags Flags(X509ChainStatus[] statuses) =>
        statuses.Aggregate(X509ChainStatusFlags.NoError, (all, status) => all | status.Status);

    private static IEnumerable<string> Names(X509Certificate2 certificate)
    {
        var extension = certificate.Extensions.FirstOrDefault(e => e.Oid?.Value == SubjectAlternativeName);
        if (extension is null) return [certificate.GetNameInfo(X509NameType.SimpleName, forIssuer: false)];
        var names = new X509SubjectAlternativeNameExtension(extension.RawData);
        return [.. names.EnumerateDnsNames(), .. names.EnumerateIPAddresses().Select(a => a.ToString())];
    }

    internal static void ThrowIfKeyWithoutCertificate(AmqpTlsOptions options)
    {
        if (options.ClientKeyFile is not null && options.ClientCertificateFile is null)
            throw new ArgumentException($"the client key {options.ClientKeyFile} was given without a client certificate");
    }

    private static X509Certificate2Collection Authorities(string caFile)
    {
        var authorities = new X509Certificate2Collection();
        try
        {
            authorities.ImportFromPemFile(caFile);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or CryptographicException)
        {
            throw new ArgumentException($"the CA file {caFile} cannot be read: {e.Message}", e);
        }
        return authorities.Count > 0 ? authorities : throw new ArgumentException($"the CA file {caFile} holds no PEM certificate");
    }

    private static X509Certificate2 Client(string certificateFile, string? keyFile)
    {
        try
        {
            return X509Certificate2.CreateFromPemFile(certificateFile, keyFile);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or CryptographicException)
        {
            throw new ArgumentException($"the client certificate {certificateFile}{(keyFile is null ? "" : $" with the key {keyFile}")} cannot be read: {e.Message}", e);
        }
    }
}
