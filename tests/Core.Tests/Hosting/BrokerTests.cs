using Prewire.Hosting;

namespace Prewire.Hosting;

public sealed class BrokerTests
{
    [Theory]
    [InlineData("amqp://guest:guest@127.0.0.1:5672/")]
    [InlineData("amqps://user:secret@broker.example:5671/vhost")]
    public void ParseUri_accepts_amqp_uris(string value)
    {
        Assert.NotNull(Broker.ParseUri(value));
    }

    [Theory]
    [InlineData("not a uri", "not an absolute URI")]
    [InlineData("http://guest:secret@127.0.0.1/", "scheme 'http'")]
    [InlineData("127.0.0.1:5672", "expected amqp://")]
    public void ParseUri_rejects_with_a_reason_and_never_echoes_the_value(string value, string reason)
    {
        var e = Assert.Throws<AppException>(() => Broker.ParseUri(value));
        Assert.Contains(reason, e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret", e.Message, StringComparison.Ordinal);
        Assert.Equal(ExitCodes.Failure, e.ExitCode);
    }

    [Fact]
    public void Redact_removes_the_credentials()
    {
        var redacted = Broker.Redact(new Uri("amqp://user:secret@127.0.0.1:5672/vh"));
        Assert.Equal("amqp://127.0.0.1:5672/vh", redacted);
    }

    [Fact]
    public async Task ConnectAsync_to_a_closed_port_fails_with_one_clear_message()
    {
        var e = await Assert.ThrowsAsync<AppException>(() =>
            Broker.ConnectAsync(new Uri("amqp://guest:secret@127.0.0.1:1/"), "test", TestContext.Current.CancellationToken));
        Assert.StartsWith("cannot reach RabbitMQ at amqp://127.0.0.1:1/", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("\n", e.Message, StringComparison.Ordinal);
    }
}
