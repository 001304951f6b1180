using System.CommandLine;
using System.Globalization;
using System.Net;

namespace Prewire.Samples;

/// <summary>
/// <c>--liveness-port</c> and <c>--readiness-port</c>: TCP ports an orchestrator probes (Kubernetes'
/// <c>tcpSocket</c> probes) in an app that has no HTTP server. Made by <see cref="AppCommand.AddProbes"/>.
/// </summary>
/// <remarks>
/// A TCP port rather than HTTP, an exec probe or a file: it links no server (the socket code is there
/// for the broker anyway), a probe costs the app one accepted connection instead of a process
/// started in its container, and it needs no writable filesystem. A bare port listens on every
/// interface (the kubelet probes the pod's address); <c>HOST:PORT</c> on one.
/// </remarks>
public sealed class ProbeOptions
{
    private readonly Option<IPEndPoint?> _liveness;
    private readonly Option<IPEndPoint?> _readiness;

    internal ProbeOptions(AppCommand app, string readyWhen)
    {
        _liveness = Add(app, "--liveness-port", "PREWIRE_LIVENESS_PORT", "TCP port that accepts connections while the process runs and its thread pool answers");
        _readiness = Add(app, "--readiness-port", "PREWIRE_READINESS_PORT", $"TCP port that accepts connections only while {readyWhen}");
    }

    /// <summary>Opens the liveness port now and the readiness port closed, as the command line asks; each is left out when not given.</summary>
    /// <exception cref="AppException">A port could not be listened on (in use, or an address not of this machine).</exception>
    public ProbePorts Open(ParseResult parsed)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        var liveness = parsed.GetValue(_liveness) is { } live ? ProbePort.Listen(live, "liveness") : null;
        try
        {
            var readiness = parsed.GetValue(_readiness) is { } ready ? new ProbePort(ready, "readiness") : null;
            // Listened on once now, so a port in use is an error at start, not once consuming.
            readiness?.SetOpen(true);
            readiness?.SetOpen(false);
            return new ProbePorts(liveness, readiness);
        }
        catch
        {
            liveness?.Dispose();
            throw;
        }
    }

    private static Option<IPEndPoint?> Add(AppCommand app, string name, string environmentVariable, string description) =>
        app.AddParsed<IPEndPoint?>(name, $"{description}: PORT (every interface) or HOST:PORT; not opened when not given.", environmentVariable, null, "a port (1-65535) or HOST:PORT",
            text => TryParse(text, out var endpoint) ? (true, endpoint) : (false, null));

    internal static bool TryParse(string text, out IPEndPoint? endpoint)
    {
        endpoint = int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var port) && port is > 0 and <= IPEndPoint.MaxPort
            ? new IPEndPoint(IPAddress.Any, port)
            : IPEndPoint.TryParse(text, out var parsed) && parsed.Port > 0 && text.Contains(':', StringComparison.Ordinal) ? parsed : null;
        return endpoint is not null;
    }
}
