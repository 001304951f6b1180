using Prewire.Amqp;

namespace Prewire.RabbitMQ;

/// <summary>RabbitMQ.Client over amqps, checked by the same AmqpTlsCheck as Prewire's client: the same refusals, in the same words.</summary>
public sealed class RabbitMqTlsTests
{
    private const string Password = "tls-s3cret";

    [Fact]
    public async Task With_the_CA_file_it_connects_over_TLS_and_with_a_client_certificate_as_the_user_the_certificate_names()
    {
        var ct = TestContext.Current.CancellationToken;
        var tls = new AmqpTlsOptions { CaFile = TestBroker.CaFile };
        await using (var connection = await RabbitMqConnector.ConnectAsync(AmqpUri.Parse(TestBroker.TlsUri.OriginalString), "rabbitmq-tls-tests", ct, tls))
        {
            Assert.True(connection.IsOpen);
        }

        (tls.ClientCertificateFile, tls.ClientKeyFile) = (Path.Combine(TestBroker.TlsDirectory, "client.pem"), Path.Combine(TestBroker.TlsDirectory, "client.key"));
        // The URI's user and password are not what the broker checks: EXTERNAL takes the certificate's name.
        var uri = AmqpUri.Parse($"amqps://nobody:{Password}@127.0.0.1:{TestBroker.TlsUri.Port}/");
        await using var external = await RabbitMqConnector.ConnectAsync(uri, "rabbitmq-tls-tests", ct, tls);
        await using var channel = await external.CreateChannelAsync(cancellationToken: ct);
        await channel.QueueDeclareAsync($"rabbitmq-tls-tests.{Guid.NewGuid():N}", durable: false, exclusive: true, autoDelete: true, cancellationToken: ct);
    }

    [Theory]
    [MemberData(nameof(TlsRefusals.Cases), MemberType = typeof(TlsRefusals))]
    public async Task Each_refusal_is_the_line_Prewires_client_says(string refusal)
    {
        await using var peer = await TlsRefusals.ArrangeAsync(refusal);
        var uri = AmqpUri.Parse($"amqps://guest:{Password}@127.0.0.1:{peer.Port}/");

        var e = await Assert.ThrowsAsync<AmqpException>(() => RabbitMqConnector.ConnectAsync(uri, "rabbitmq-tls-tests", TestContext.Current.CancellationToken, new AmqpTlsOptions { CaFile = peer.CaFile }));
        TestContext.Current.TestOutputHelper?.WriteLine(e.Message);

        Assert.StartsWith($"cannot reach RabbitMQ at {uri}: ", e.Message, StringComparison.Ordinal);
        Assert.Contains(peer.Expected, e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(Password, e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', e.Message);
    }
}
