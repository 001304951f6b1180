using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Prewire.Samples;
using Serilog;
using Serilog.Events;
using Serilog.Extensions.Logging;
using ILogger = Serilog.ILogger;

namespace Prewire.HttpEndpoint;

/// <summary>Kestrel as the endpoint runs it: addresses checked before start, limits set, bind failures in one line.</summary>
internal static class Server
{
    /// <summary>The addresses of <c>--urls</c>, each read by Kestrel's own parser; one it cannot read is a usage error.</summary>
    public static string[] Addresses(string urls)
    {
        var addresses = urls.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        if (addresses.Length == 0) throw new AppException("--urls (PREWIRE_URLS) is empty: give at least one address, e.g. http://127.0.0.1:5080", ExitCodes.Usage);
        foreach (var address in addresses)
        {
            BindingAddress parsed;
            try
            {
                parsed = BindingAddress.Parse(address);
            }
            catch (FormatException e)
            {
                throw new AppException($"invalid address '{address}' in --urls (PREWIRE_URLS): {e.Message}", ExitCodes.Usage);
            }
            if (!string.Equals(parsed.Scheme, "http", StringComparison.OrdinalIgnoreCase))
                throw new AppException($"invalid address '{address}' in --urls (PREWIRE_URLS): only http:// is served (terminate TLS in front of it)", ExitCodes.Usage);
        }
        return addresses;
    }

    public static void Configure(WebApplicationBuilder builder, string[] addresses, int maxBodySize, int maxConnections, bool inlineScheduling, ILogger log)
    {
        builder.WebHost.UseUrls(addresses);
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.AddServerHeader = false;
            var limits = kestrel.Limits;
            limits.MaxRequestBodySize = maxBodySize;
            limits.MaxRequestHeadersTotalSize = 32 * 1024;
            // A body is read whole before it is published and stays in the connection's input pipe until
            // its confirm; that pipe must hold it, or Kestrel stops reading and the request hangs.
            limits.MaxRequestBufferSize = Math.Max(1024 * 1024, (long)maxBodySize + limits.MaxRequestHeadersTotalSize);
            limits.MaxRequestHeaderCount = 100;
            limits.RequestHeadersTimeout = TimeSpan.FromSeconds(10);
            limits.KeepAliveTimeout = TimeSpan.FromSeconds(60);
            limits.MaxConcurrentConnections = maxConnections;
            // 240 B/s after a 5 s grace (Kestrel's default), named here: a body trickled slower is dropped.
            limits.MinRequestBodyDataRate = new MinDataRate(240, TimeSpan.FromSeconds(5));
        });
        builder.Services.Configure<SocketTransportOptions>(sockets => sockets.UnsafePreferInlineScheduling = inlineScheduling);
        if (inlineScheduling)
        {
            log.Information("Inline scheduling on: request code runs on the socket's I/O thread{Completions}",
                Environment.GetEnvironmentVariable("DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS") == "1" ? ", and socket completions inline too" : " (DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=1 not set: completions still go through the thread pool)");
        }
    }

    /// <summary>
    /// The framework's log through the app's Serilog logger: nothing per request at the default level
    /// (ASP.NET Core's request lines come through at Debug and below), and no host error log on a
    /// failed start, which the app says in one line (the host's own would add a stack trace).
    /// </summary>
    public static void ConfigureLogging(WebApplicationBuilder builder, ILogger log, LogEventLevel level)
    {
        // Rules for the Serilog provider itself: AddSerilog adds one (everything) that outranks any rule without a provider.
        var debug = level <= LogEventLevel.Debug;
        builder.Logging.ClearProviders().AddSerilog(log)
            .AddFilter<SerilogLoggerProvider>("Microsoft.AspNetCore", debug ? LogLevel.Information : LogLevel.Warning)
            // Hosting's request log is all Information; while its logger is enabled at any level, hosting
            // makes an Activity and a log scope for every request, logged or not: 824 of the 993 B a
            // GET /health/live allocated (benchmarks/http-ingress.sh).
            .AddFilter<SerilogLoggerProvider>("Microsoft.AspNetCore.Hosting.Diagnostics", debug ? LogLevel.Information : LogLevel.None)
            .AddFilter<SerilogLoggerProvider>("Microsoft.Extensions.Hosting.Internal.Host", LogLevel.Critical);
    }

    /// <summary>Starts listening; an address in use or not available here is one line naming it.</summary>
    public static async Task StartAsync(WebApplication web, CancellationToken cancellationToken)
    {
        try
        {
            await web.StartAsync(cancellationToken);
        }
        catch (IOException e) when (e.Message.StartsWith("Failed to bind", StringComparison.Ordinal))
        {
            // Kestrel's words name the address and the reason ("…: address already in use.").
            throw new AppException($"cannot listen: {e.Message.TrimEnd('.')}", ExitCodes.Failure, e);
        }
    }
}
