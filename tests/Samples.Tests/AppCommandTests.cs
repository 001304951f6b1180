using Serilog;

namespace Prewire.Samples;

public sealed class AppCommandTests
{
    private static readonly ILogger _log = new LoggerConfiguration().CreateLogger();

    [Theory]
    [InlineData("http://guest:topsecret@127.0.0.1/", "scheme 'http'")]
    [InlineData("not a uri", "not an absolute URI")]
    public void A_malformed_broker_uri_fails_with_exit_1_naming_the_option_never_the_password(string uri, string reason)
    {
        var (app, parsed) = Parse("--uri", uri);
        var e = Assert.Throws<AppException>(() => app.GetBrokerUri(parsed, _log));
        Assert.Equal(ExitCodes.Failure, e.ExitCode);
        Assert.StartsWith("invalid broker URI (--uri / RABBITMQ_URI): ", e.Message, StringComparison.Ordinal);
        Assert.Contains(reason, e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("topsecret", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void No_broker_uri_is_null_unless_a_flag_needs_one_then_a_usage_error()
    {
        // The option falls back to RABBITMQ_URI; nothing else in this test assembly reads it.
        Environment.SetEnvironmentVariable("RABBITMQ_URI", null);
        var (app, parsed) = Parse();
        Assert.Null(app.GetBrokerUri(parsed, _log));
        var e = Assert.Throws<AppException>(() => app.GetBrokerUri(parsed, _log, neededBy: "--count"));
        Assert.Equal((ExitCodes.Usage, "--count needs a broker: give --uri or RABBITMQ_URI"), (e.ExitCode, e.Message));
    }

    [Fact]
    public void A_good_broker_uri_is_parsed()
    {
        var (app, parsed) = Parse("--uri", "amqp://u:p@127.0.0.1:5673/v");
        Assert.Equal("amqp://127.0.0.1:5673/v", app.GetBrokerUri(parsed, _log)?.ToString());
    }

    private static (AppCommand App, System.CommandLine.ParseResult Parsed) Parse(params string[] args)
    {
        var app = new AppCommand("test", "a test app");
        app.AddBroker("a queue");
        return (app, app.Parse(args));
    }
}
