using Prewire.Messaging;
using Prewire.Amqp;

namespace Prewire.RabbitMQ;

public sealed class RabbitMqConnectorTests
{
    [Fact]
    public async Task A_closed_port_fails_with_one_clear_line_naming_the_broker_without_credentials()
    {
        using var refusing = new Testing.RefusingPort();
        var port = refusing.Port;
        var e = await Assert.ThrowsAsync<AmqpException>(() =>
            RabbitMqConnector.ConnectAsync(AmqpUri.Parse($"amqp://guest:secret@127.0.0.1:{port}/"), "test", TestContext.Current.CancellationToken));
        // Exact: a port that accepted and stayed silent would fail too, but on the handshake's timer.
        Assert.Equal($"cannot reach RabbitMQ at amqp://127.0.0.1:{port}/: Connection refused", e.Message);
    }

    [Fact]
    public async Task A_missing_virtual_host_is_named()
    {
        var missing = AmqpUri.Parse(new UriBuilder(TestBroker.Uri) { Path = "/no-such-vhost" }.Uri.OriginalString);
        var e = await Assert.ThrowsAsync<AmqpException>(() => BrokerSession.OpenAsync(new BrokerSessionOptions { Endpoints = [missing], Queue = "q", ClientName = "test" }, RabbitMqSession.OpenAsync, TestContext.Current.CancellationToken));
        Assert.StartsWith($"RabbitMQ at {missing} refused virtual host 'no-such-vhost': NOT_ALLOWED", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("\n", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Wrong_credentials_are_named_as_such()
    {
        var wrong = AmqpUri.Parse(new UriBuilder(TestBroker.Uri) { Password = "topsecret" }.Uri.OriginalString);
        var e = await Assert.ThrowsAsync<AmqpException>(() => RabbitMqConnector.ConnectAsync(wrong, "test", TestContext.Current.CancellationToken));
        Assert.Contains("credentials refused", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("topsecret", e.Message, StringComparison.Ordinal);
    }
}
