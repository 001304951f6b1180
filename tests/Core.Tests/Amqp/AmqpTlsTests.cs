using System.Buffers;
using Prewire.Testing;

namespace Prewire.Amqp;

/// <summary>Our client over amqps against the test node's TLS listener (build/broker.sh --tls), and every way the check refuses.</summary>
public sealed class AmqpTlsTests
{
    // A password of its own, to show no message ever carries it.
    private const string Password = "tls-s3cret";

    private static string File(string name) => Path.Combine(TestBroker.TlsDirectory, name);

    private static AmqpUri Uri(int port, string user = "guest", string password = "guest") =>
        AmqpUri.Parse($"amqps://{user}:{password}@127.0.0.1:{port}/");

    private static AmqpConnectionOptions Options(AmqpUri uri, string? caFile = "ca.pem", bool clientCertificate = false) => new()
    {
        Uri = uri,
        ClientName = $"prewire-tls-tests-{Guid.NewGuid():N}",
        HandshakeTimeout = TimeSpan.FromSeconds(3),
        Tls = new AmqpTlsOptions
        {
            CaFile = caFile is null ? null : File(caFile),
            ClientCertificateFile = clientCertificate ? File("client.pem") : null,
            ClientKeyFile = clientCertificate ? File("client.key") : null,
        },
    };

    private static int TlsPort => TestBroker.TlsUri.Port;

    // What the broker says of a connection of ours: its user, and whether it came over TLS and which version.
    private static async Task<string> BrokerSeesAsync(string clientName)
    {
        var output = await Tool.RunCheckedAsync(Path.Combine(Repo.Root, "build", "broker.sh"), ["ctl", "list_connections", "client_properties", "user", "ssl", "ssl_protocol"], Repo.Root,
            new Dictionary<string, string> { ["PREWIRE_BROKER_STATE"] = Path.Combine(Repo.Artifacts, "test-broker", typeof(TestBroker).Assembly.GetName().Name!) });
        return output.Split('\n').SingleOrDefault(l => l.Contains(clientName, StringComparison.Ordinal)) ?? $"no connection named {clientName} in:\n{output}";
    }

    [Fact]
    public async Task Over_amqps_what_our_publisher_sends_our_consumer_receives_byte_for_byte_and_the_broker_sees_TLS()
    {
        var ct = TestContext.Current.CancellationToken;
        var options = Options(Uri(TlsPort));
        await using var connection = await AmqpConnection.ConnectAsync(options, ct);
        var queue = await AmqpConsumerTests.NewQueueAsync(connection);
        var payload = (int)connection.FrameMax - 8;
        int[] sizes = [0, 1, payload - 1, payload, payload + 1, 2 * payload + 1, (1 << 20) + 1];
        await using (var publisher = await AmqpPublisher.OpenAsync(connection, cancellationToken: ct))
        {
            for (var i = 0; i < sizes.Length; i++)
                await publisher.PublishAsync("", queue, new BasicProperties { MessageId = $"{i}" }, Body(i, sizes[i]), mandatory: true, ct);
        }

        var received = new List<byte[]>();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var consumer = await AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = queue }, delivery =>
        {
            received.Add(delivery.Body.ToArray());
            if (received.Count == sizes.Length) done.TrySetResult();
            return ValueTask.CompletedTask;
        }, ct);
        await done.Task.WaitAsync(TimeSpan.FromSeconds(30), ct);

        for (var i = 0; i < sizes.Length; i++) Assert.True(Body(i, sizes[i]).AsSpan().SequenceEqual(received[i]), $"body {i} ({sizes[i]} bytes) differs: {received[i].Length} bytes received");
        var seen = await BrokerSeesAsync(options.ClientName);
        Assert.Matches(@"\tguest\ttrue\ttlsv1\.[23]", seen);
    }

    [Fact]
    public async Task A_client_certificate_authenticates_by_EXTERNAL_as_the_user_it_names_whatever_the_URI_says()
    {
        var ct = TestContext.Current.CancellationToken;
        var options = Options(Uri(TlsPort, "nobody", Password), clientCertificate: true);
        await using var connection = await AmqpConnection.ConnectAsync(options, ct);
        await AmqpConsumerTests.NewQueueAsync(connection);

        Assert.Matches(@"\tprewire-client\ttrue\t", await BrokerSeesAsync(options.ClientName));
    }

    [Theory]
    [MemberData(nameof(TlsRefusals.Cases), MemberType = typeof(TlsRefusals))]
    public async Task Each_refusal_is_one_IOException_naming_the_endpoint_and_why_never_the_password(string refusal)
    {
        await using var peer = await TlsRefusals.ArrangeAsync(refusal);
        var options = Options(Uri(peer.Port, "guest", Password), caFile: null);
        (options.Tls.CaFile, options.HandshakeTimeout) = (peer.CaFile, TimeSpan.FromSeconds(10));

        var e = await Assert.ThrowsAsync<IOException>(() => AmqpConnection.ConnectAsync(options, TestContext.Current.CancellationToken));
        TestContext.Current.TestOutputHelper?.WriteLine(e.Message);

        Assert.Contains(peer.Expected, e.Message, StringComparison.Ordinal);
        Assert.Contains($"127.0.0.1:{peer.Port}", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(Password, e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain('\n', e.Message);
    }

    private static byte[] Body(int index, int size)
    {
        var body = new byte[size];
        for (var j = 0; j < size; j++) body[j] = (byte)((index * 31) + (j * 7) + (j >> 8));
        return body;
    }
}
