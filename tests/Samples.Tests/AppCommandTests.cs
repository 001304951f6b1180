using System.CommandLine;
using System.CommandLine.Help;
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
        var e = Assert.Throws<AppException>(() => app.Session(parsed, "test", confirms: false));
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
        var options = app.Session(parsed, "test", confirms: false);
        Assert.Null(BrokerOptions.Connecting(options, _log, neededBy: null));
        var e = Assert.Throws<AppException>(() => BrokerOptions.Connecting(options, _log, neededBy: "--count"));
        Assert.Equal((ExitCodes.Usage, "--count needs a broker: give --uri or RABBITMQ_URI"), (e.ExitCode, e.Message));
    }

    [Fact]
    public void A_good_broker_uri_is_parsed()
    {
        var (app, parsed) = Parse("--uri", "amqp://u:p@127.0.0.1:5673/v");
        Assert.Equal(["amqp://127.0.0.1:5673/v"], app.Session(parsed, "test", confirms: false).Endpoints.Select(e => e.ToString()));
    }

    [Fact]
    public void An_empty_uri_is_an_error_not_no_broker()
    {
        var (app, parsed) = Parse("--uri", "");
        Assert.Equal("invalid broker URI (--uri / RABBITMQ_URI): empty", Assert.Throws<AppException>(() => app.Session(parsed, "test", confirms: false)).Message);
    }

    [Fact]
    public void Several_nodes_are_given_by_repeating_uri_or_separating_with_commas_in_order()
    {
        var (app, parsed) = Parse("--uri", "amqp://127.0.0.1:1/,amqp://127.0.0.1:2/", "--uri", "amqp://127.0.0.1:3/");
        Assert.Equal(["amqp://127.0.0.1:1/", "amqp://127.0.0.1:2/", "amqp://127.0.0.1:3/"], app.Session(parsed, "test", confirms: false).Endpoints.Select(e => e.ToString()));
    }

    [Fact]
    public void The_topology_defaults_to_a_quorum_queue_on_the_default_exchange_and_takes_its_options()
    {
        var (app, parsed) = Parse("--queue", "orders");
        var options = app.Session(parsed, "test", confirms: true);
        Assert.Equal((Prewire.Messaging.BrokerQueueType.Quorum, "", "orders", "orders.dlx", "orders.dead-letter"),
            (options.QueueType, options.Exchange, options.RoutingKey, options.DeadLetterExchange, options.DeadLetterQueue));

        (app, parsed) = Parse("--queue", "orders", "--queue-type", "Classic", "--exchange", "shop", "--routing-key", "order.placed");
        options = app.Session(parsed, "test", confirms: true);
        Assert.Equal((Prewire.Messaging.BrokerQueueType.Classic, "shop", "order.placed"), (options.QueueType, options.Exchange, options.RoutingKey));
    }

    [Theory]
    [InlineData("")]
    [InlineData("--client prewire")]
    [InlineData("--client Prewire")]
    [InlineData("--amqp-publisher")]
    public void The_client_is_Prewires_unless_asked_otherwise(string args)
    {
        var (app, parsed) = Parse(args.Split(' ', StringSplitOptions.RemoveEmptyEntries));
        Assert.Empty(parsed.Errors);
        Assert.Same(Prewire.Messaging.AmqpClient.Instance, app.Client(parsed));
    }

    [Theory]
    [InlineData("--client", "rabbitmq")]
    [InlineData("--client", "RabbitMQ")]
    public void Asked_for_RabbitMQ_Client_the_default_build_gives_a_usage_error_naming_the_property_that_builds_it_in(params string[] args)
    {
        // This project builds samples/Shared as a plain build does: Prewire's client only.
        Assert.False(BrokerClients.HasRabbitMQ);
        var (app, parsed) = Parse(args);
        Assert.Empty(parsed.Errors);
        var e = Assert.Throws<AppException>(() => app.Client(parsed));
        Assert.Equal(ExitCodes.Usage, e.ExitCode);
        Assert.Equal("--client rabbitmq: this build has no RabbitMQ.Client (build the app with -p:PrewireAmqpClient=Both for it); use --client prewire", e.Message);
    }

    [Fact]
    public void The_client_comes_from_PREWIRE_CLIENT_when_not_given_and_a_wrong_one_is_a_parse_error()
    {
        Environment.SetEnvironmentVariable("PREWIRE_CLIENT", "rabbitmq");
        try
        {
            var (app, parsed) = Parse();
            Assert.Equal(ExitCodes.Usage, Assert.Throws<AppException>(() => app.Client(parsed)).ExitCode);
            (app, parsed) = Parse("--client", "prewire");
            Assert.Same(Prewire.Messaging.AmqpClient.Instance, app.Client(parsed));
        }
        finally
        {
            Environment.SetEnvironmentVariable("PREWIRE_CLIENT", null);
        }
        Assert.Equal("--client must be prewire or rabbitmq, not 'pika'.", Assert.Single(Parse("--client", "pika").Parsed.Errors).Message);
    }

    [Theory]
    [InlineData(new string[0], 10.0)]
    [InlineData(new[] { "--connect-timeout", "2.5" }, 2.5)]
    [InlineData(new[] { "--connect-timeout", "60" }, 60.0)]
    public void The_connect_timeout_is_10_s_unless_given(string[] args, double seconds)
    {
        var (app, parsed) = Parse(args);
        Assert.Empty(parsed.Errors);
        Assert.Equal(TimeSpan.FromSeconds(seconds), app.Session(parsed, "test", confirms: false).ConnectTimeout);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("-1")]
    [InlineData("ten")]
    [InlineData("86401")]
    public void A_connect_timeout_that_is_not_a_positive_number_of_seconds_is_a_parse_error(string value)
    {
        var (_, parsed) = Parse("--connect-timeout", value);
        Assert.Equal($"--connect-timeout must be a number of seconds above 0 and at most 86400, not '{value}'.", Assert.Single(parsed.Errors).Message);
    }

    [Theory]
    [InlineData("mirrored")]
    [InlineData("1")]
    public void An_unknown_queue_type_is_a_parse_error(string value)
    {
        var (_, parsed) = Parse("--queue-type", value);
        Assert.Equal($"--queue-type must be quorum or classic, not '{value}'.", Assert.Single(parsed.Errors).Message);
    }

    [Theory]
    [InlineData("abc")]
    [InlineData("-5")]
    [InlineData("1.5")]
    [InlineData("99999999999")]
    public void A_count_that_is_not_a_whole_number_of_0_or_more_is_a_parse_error_naming_the_option(string value)
    {
        var app = new AppCommand("test", "a test app");
        app.AddCount("--count", "How many.", "PREWIRE_TEST_COUNT", 0);
        var parsed = app.Parse(["--count", value]);
        Assert.Equal($"--count must be a whole number of 0 or more, not '{value}'.", Assert.Single(parsed.Errors).Message);
    }

    [Fact]
    public void A_count_falls_back_to_its_environment_variable_which_is_checked_the_same_way()
    {
        var app = new AppCommand("test", "a test app");
        var count = app.AddCount("--count", "How many.", "PREWIRE_TEST_COUNT_ENV", 7);
        Assert.Equal(7, app.Parse([]).GetValue(count));
        Environment.SetEnvironmentVariable("PREWIRE_TEST_COUNT_ENV", "12");
        try
        {
            Assert.Equal(12, app.Parse([]).GetValue(count));
            Assert.Equal(3, app.Parse(["--count", "3"]).GetValue(count));
            Environment.SetEnvironmentVariable("PREWIRE_TEST_COUNT_ENV", "lots");
            Assert.Equal("PREWIRE_TEST_COUNT_ENV must be a whole number of 0 or more, not 'lots'.", Assert.Single(app.Parse([]).Errors).Message);
        }
        finally
        {
            Environment.SetEnvironmentVariable("PREWIRE_TEST_COUNT_ENV", null);
        }
    }

    [Theory]
    [InlineData("--help", typeof(HelpAction))]
    [InlineData("--count 3 -h", typeof(HelpAction))]
    [InlineData("-?", typeof(HelpAction))]
    [InlineData("/h", typeof(HelpAction))]
    [InlineData("--version", null)]
    public void Help_and_version_answer_their_names_and_are_not_built_for_a_command_line_without_them(string args, Type? action)
    {
        var app = new AppCommand("test", "a test app");
        var count = app.AddCount("--count", "How many.", "PREWIRE_TEST_HELP_COUNT", 0);
        var plain = app.Parse(["--count", "3"]);
        Assert.Empty(plain.Errors);
        Assert.DoesNotContain(plain.CommandResult.Command.Options, o => o is HelpOption or VersionOption);

        var parsed = app.Parse(args.Split(' '));
        Assert.Empty(parsed.Errors);
        Assert.Equal(action ?? new VersionOption().Action!.GetType(), parsed.Action?.GetType());
        Assert.Equal(3, app.Parse(["--count", "3"]).GetValue(count));
    }

    [Fact]
    public void Help_named_only_in_a_response_file_is_help()
    {
        var file = Path.GetTempFileName();
        try
        {
            File.WriteAllText(file, "--help");
            Assert.IsType<HelpAction>(new AppCommand("test", "a test app").Parse([$"@{file}"]).Action);
        }
        finally
        {
            File.Delete(file);
        }
    }

    private static (BrokerOptions App, System.CommandLine.ParseResult Parsed) Parse(params string[] args)
    {
        var app = new AppCommand("test", "a test app");
        var broker = app.AddBroker("a queue");
        return (broker, app.Parse(args));
    }
}
