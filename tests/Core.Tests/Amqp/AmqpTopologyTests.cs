namespace Prewire.Amqp;

/// <summary>The connection's topology calls against the real broker.</summary>
public sealed class AmqpTopologyTests
{
    [Fact]
    public async Task A_quorum_queue_with_a_dead_letter_exchange_is_declared_bound_and_found_again()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(AmqpConsumerTests.Options(), ct);
        var (exchange, dlx, queue) = ($"test.ex.{Guid.NewGuid():N}", $"test.dlx.{Guid.NewGuid():N}", $"test.q.{Guid.NewGuid():N}");
        await connection.DeclareExchangeAsync(dlx, "fanout", cancellationToken: ct);
        await connection.DeclareExchangeAsync(exchange, "direct", cancellationToken: ct);
        var declared = await connection.DeclareQueueAsync(queue, arguments: new() { ["x-queue-type"] = "quorum", ["x-dead-letter-exchange"] = dlx }, cancellationToken: ct);
        Assert.Equal(new AmqpQueueState(queue, 0, 0), declared);
        await connection.BindQueueAsync(queue, exchange, "rk", cancellationToken: ct);

        await using (var publisher = await AmqpPublisher.OpenAsync(connection, cancellationToken: ct))
            await publisher.PublishAsync(exchange, "rk", null, new byte[3], mandatory: true, ct);
        Assert.Equal(1u, (await connection.DeclareQueuePassiveAsync(queue, ct)).MessageCount);

        // Declared again the same way: fine. Otherwise: the broker's 406, and the connection goes on.
        await connection.DeclareQueueAsync(queue, arguments: new() { ["x-queue-type"] = "quorum", ["x-dead-letter-exchange"] = dlx }, cancellationToken: ct);
        var e = await Assert.ThrowsAsync<AmqpException>(() => connection.DeclareQueueAsync(queue, arguments: new() { ["x-queue-type"] = "classic" }, cancellationToken: ct));
        Assert.Equal((AmqpExceptionKind.ChannelClosed, (ushort)406), (e.Kind, e.ReplyCode));
        Assert.Contains("PRECONDITION_FAILED", e.Message, StringComparison.Ordinal);
        Assert.Equal(1u, await connection.DeleteQueueAsync(queue, ct));
    }

    [Fact]
    public async Task A_passive_declare_of_a_missing_queue_is_a_404_and_the_next_call_works()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(AmqpConsumerTests.Options(), ct);
        var e = await Assert.ThrowsAsync<AmqpException>(() => connection.DeclareQueuePassiveAsync($"missing.{Guid.NewGuid():N}", ct));
        Assert.Equal((AmqpExceptionKind.ChannelClosed, (ushort)404), (e.Kind, e.ReplyCode));
        Assert.Contains("NOT_FOUND - no queue", e.Message, StringComparison.Ordinal);

        var named = await connection.DeclareQueueAsync("", durable: false, exclusive: true, cancellationToken: ct);
        Assert.StartsWith("amq.gen-", named.Queue, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_refused_virtual_host_names_the_broker_without_the_password()
    {
        var uri = AmqpUri.Parse(new UriBuilder(TestBroker.Uri) { Path = "/no-such-vhost" }.Uri.OriginalString);
        var e = await Assert.ThrowsAsync<AmqpException>(() => AmqpConnection.ConnectAsync(new AmqpConnectionOptions { Uri = uri }, TestContext.Current.CancellationToken));
        Assert.Equal((AmqpExceptionKind.ConnectionClosed, (ushort)530), (e.Kind, e.ReplyCode));
        Assert.StartsWith($"{uri}: the broker closed the connection: 530 NOT_ALLOWED", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(uri.Password, e.Message, StringComparison.Ordinal);
    }
}
