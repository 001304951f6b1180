using System.Buffers;
using System.Collections.Concurrent;

namespace Prewire.Amqp;

/// <summary>Our consumer against the real broker; our publisher and topology calls set each scene up.</summary>
public sealed class AmqpConsumerTests
{
    internal static AmqpConnectionOptions Options(bool tls = false)
    {
        var options = new AmqpConnectionOptions { Uri = AmqpUri.Parse(TestBroker.Uri.OriginalString), ClientName = "prewire-consumer-tests" };
        return tls ? OverTls(options) : options;
    }

    /// <summary><paramref name="options"/> pointed at the test broker's amqps:// listener, trusting its CA.</summary>
    internal static T OverTls<T>(T options)
        where T : AmqpConnectionOptions
    {
        options.Uri = AmqpUri.Parse(TestBroker.TlsUri.OriginalString);
        options.Tls.CaFile = TestBroker.CaFile;
        return options;
    }

    internal static async Task<string> NewQueueAsync(AmqpConnection connection, string type = "classic", string? deadLetterExchange = null)
    {
        var queue = $"test.consume.{Guid.NewGuid():N}";
        var arguments = new Dictionary<string, object?> { ["x-queue-type"] = type };
        if (deadLetterExchange is not null) arguments["x-dead-letter-exchange"] = deadLetterExchange;
        await connection.DeclareQueueAsync(queue, durable: true, arguments: arguments, cancellationToken: TestContext.Current.CancellationToken);
        return queue;
    }

    internal static async Task PublishAsync(AmqpConnection connection, string queue, int count, Func<int, byte[]>? body = null)
    {
        await using var publisher = await AmqpPublisher.OpenAsync(connection, cancellationToken: TestContext.Current.CancellationToken);
        var properties = new BasicProperties();
        for (var i = 0; i < count; i++)
        {
            properties.MessageId = $"m{i}";
            await publisher.PublishAsync("", queue, properties, body?.Invoke(i) ?? BitConverter.GetBytes(i), cancellationToken: TestContext.Current.CancellationToken);
        }
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Every_message_is_handled_once_in_queue_order_and_consecutive_acks_go_out_together_unless_asked_not_to(bool coalesce)
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(Options(), ct);
        var queue = await NewQueueAsync(connection);
        await PublishAsync(connection, queue, 2000);

        var seen = new List<int>();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var consumer = await AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = queue, Prefetch = 200, CoalesceAcks = coalesce }, delivery =>
        {
            // The 4 bytes may lie across two pipe blocks: FirstSpan alone would be short (and the handler throw).
            Span<byte> index = stackalloc byte[4];
            delivery.Body.CopyTo(index);
            seen.Add(BitConverter.ToInt32(index));
            if (seen.Count == 2000) done.TrySetResult();
            return ValueTask.CompletedTask;
        }, ct);
        if (await Task.WhenAny(done.Task, Task.Delay(TimeSpan.FromSeconds(30), ct)) != done.Task)
        {
            Assert.Fail($"{seen.Count} of 2,000 handled in 30 s: {consumer.Delivered} delivered, {consumer.Settled} settled in {consumer.SettlementFrames} frames; " +
                $"consumer {consumer.Completion.Status} {consumer.Completion.Exception?.InnerException?.Message}");
        }
        await consumer.StopAsync(TimeSpan.FromSeconds(5), ct);

        Assert.Equal(Enumerable.Range(0, 2000), seen);
        Assert.Equal(2000, consumer.Settled);
        // One ack frame per delivery would be 2,000; in order, a read's deliveries share one.
        if (coalesce) Assert.True(consumer.SettlementFrames < 1000, $"{consumer.SettlementFrames} ack frames for 2,000 deliveries");
        else Assert.Equal(2000, consumer.SettlementFrames);
        // Every ack landed: nothing is left to redeliver once the channel closed.
        Assert.Equal(0u, (await connection.DeclareQueuePassiveAsync(queue, ct)).MessageCount);
    }

    [Fact]
    public async Task Acks_written_after_a_read_while_a_publisher_holds_the_connections_turn_all_go_out()
    {
        // A read's acks are written on the read loop once it is handed out; with a publisher on the same
        // connection the turn is often held then, and the write is left to the settlements' own loop.
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(Options(), ct);
        var queue = await NewQueueAsync(connection);
        await PublishAsync(connection, queue, 5000);
        // Routed nowhere, so the broker drops each publish as it reads it: the turn stays busy without a
        // queue to fill. Into a queue, a run kept 320,000 to 520,000 messages of 2 KiB (up to 1 GB on
        // disk) and the broker's flow control held the connection's acks back behind them: 3 runs of 8
        // went past the limit, the others took 20 to 33 s; routed nowhere, 3 to 5 s.
        var sink = $"test.nowhere.{Guid.NewGuid():N}";
        await using var publisher = await AmqpPublisher.OpenAsync(connection, channels: 4, confirms: false, cancellationToken: ct);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var publishing = Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(async () =>
        {
            var body = new byte[2048];
            while (!stop.IsCancellationRequested) await publisher.PublishAsync("", sink, null, body, cancellationToken: ct);
        }, ct)));

        var handled = 0;
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var consumer = await AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = queue, Prefetch = 100 }, _ =>
        {
            if (++handled == 5000) done.TrySetResult();
            return ValueTask.CompletedTask;
        }, ct);
        var finished = await Task.WhenAny(done.Task, Task.Delay(TimeSpan.FromSeconds(30), ct)) == done.Task;
        await stop.CancelAsync();
        await publishing;
        Assert.True(finished, $"{handled} of 5,000 handled in 30 s: {consumer.Delivered} delivered, {consumer.Settled} settled");
        await consumer.StopAsync(TimeSpan.FromSeconds(5), ct);

        // A prefetch of 100 lets no more than 100 through unacked: all 5,000 handled means acks went out
        // all along; none left to redeliver once the channel closed means the last did too.
        Assert.Equal(0u, (await connection.DeclareQueuePassiveAsync(queue, ct)).MessageCount);
    }

    [Fact]
    public async Task An_asynchronous_handler_reads_its_body_intact_while_the_read_loop_reads_on()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(Options(), ct);
        var queue = await NewQueueAsync(connection);
        // Bodies of 1 to 3 frames, so held bodies lie in single pieces and in several, across pipe blocks.
        static byte[] Body(int i)
        {
            var body = new byte[(i * 7919) % 300_000];
            for (var j = 0; j < body.Length; j++) body[j] = (byte)(i + j * 13);
            return body;
        }
        await PublishAsync(connection, queue, 200, Body);

        var handled = new ConcurrentDictionary<int, bool>();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var consumer = await AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = queue, Prefetch = 50, Concurrency = 16 }, async delivery =>
        {
            var index = int.Parse(delivery.Properties.MessageId.AsSpan(1), provider: null);
            // The read loop moves on meanwhile: later deliveries land in the pipe after this one's frames.
            await Task.Delay(Random.Shared.Next(1, 20));
            handled[index] = delivery.Body.ToArray().AsSpan().SequenceEqual(Body(index));
            if (handled.Count == 200) done.TrySetResult();
        }, ct);
        await done.Task.WaitAsync(TimeSpan.FromSeconds(60), ct);
        // Handlers finished out of order: acks went out alone and in multiples, none twice (the broker
        // would have closed the channel), all of them: nothing left to redeliver.
        await consumer.StopAsync(TimeSpan.FromSeconds(5), ct);
        await consumer.Completion;
        Assert.Equal(0u, (await connection.DeclareQueuePassiveAsync(queue, ct)).MessageCount);

        Assert.Equal(200, handled.Count);
        Assert.All(handled, pair => Assert.True(pair.Value, $"body of m{pair.Key} changed while its handler held it"));
    }

    [Fact]
    public async Task Prefetch_bounds_the_deliveries_in_hand_and_settling_them_lets_the_rest_come()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(Options(), ct);
        var queue = await NewQueueAsync(connection);
        await PublishAsync(connection, queue, 20);

        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var count = 0;
        await using var consumer = await AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = queue, Prefetch = 5, Concurrency = 100 }, async _ =>
        {
            Interlocked.Increment(ref count);
            await release.Task;
        }, ct);
        await Task.Delay(TimeSpan.FromSeconds(1), ct);
        Assert.Equal(5, Volatile.Read(ref count));

        release.SetResult();
        while (Volatile.Read(ref count) < 20) await Task.Delay(10, ct);
        Assert.Equal(20, consumer.Delivered);
    }

    [Fact]
    public async Task Rejected_and_nacked_deliveries_go_where_they_were_told_and_a_throwing_handler_rejects()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(Options(), ct);
        var deadLetters = $"test.dlx.{Guid.NewGuid():N}";
        await connection.DeclareExchangeAsync(deadLetters, "fanout", durable: false, autoDelete: true, cancellationToken: ct);
        var dlq = await NewQueueAsync(connection);
        await connection.BindQueueAsync(dlq, deadLetters, "", cancellationToken: ct);
        var queue = await NewQueueAsync(connection, deadLetterExchange: deadLetters);
        await PublishAsync(connection, queue, 4);

        var redelivered = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var consumer = await AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = queue }, delivery =>
        {
            switch (delivery.Properties.MessageId)
            {
                case "m0": delivery.Reject(requeue: false); break;
                case "m1": delivery.Nack(requeue: false); break;
                case "m2": throw new InvalidOperationException("handler failed");
                case "m3" when !delivery.Redelivered: delivery.Nack(requeue: true); break;
                case "m3": redelivered.TrySetResult(true); break;
            }
            return ValueTask.CompletedTask;
        }, ct);
        Assert.True(await redelivered.Task.WaitAsync(TimeSpan.FromSeconds(10), ct));
        await consumer.StopAsync(TimeSpan.FromSeconds(5), ct);

        var state = await connection.DeclareQueuePassiveAsync(dlq, ct);
        Assert.Equal(3u, state.MessageCount);
        Assert.Equal(0u, (await connection.DeclareQueuePassiveAsync(queue, ct)).MessageCount);
    }

    [Fact]
    public async Task Settling_a_delivery_twice_is_refused()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(Options(), ct);
        var queue = await NewQueueAsync(connection);
        await PublishAsync(connection, queue, 1);
        var second = new TaskCompletionSource<Exception?>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var consumer = await AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = queue }, delivery =>
        {
            delivery.Ack();
            second.TrySetResult(Record.Exception(delivery.Ack));
            return ValueTask.CompletedTask;
        }, ct);
        Assert.IsType<InvalidOperationException>(await second.Task.WaitAsync(TimeSpan.FromSeconds(10), ct));
        // The channel is still good (a second ack on the wire would have closed it): the next delivery comes.
        await PublishAsync(connection, queue, 1);
        while (consumer.Delivered < 2) await Task.Delay(10, ct);
        Assert.False(consumer.Completion.IsCompleted);
    }

    [Fact]
    public async Task Deleting_the_queue_ends_the_consumer_with_a_clear_error()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(Options(), ct);
        var queue = await NewQueueAsync(connection);
        await using var consumer = await AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = queue }, _ => ValueTask.CompletedTask, ct);
        await connection.DeleteQueueAsync(queue, ct);

        var e = await Assert.ThrowsAsync<AmqpException>(() => consumer.Completion.WaitAsync(TimeSpan.FromSeconds(10), ct));
        Assert.Equal(AmqpExceptionKind.ConsumerCancelled, e.Kind);
        Assert.Contains("cancelled the consumer", e.Message, StringComparison.Ordinal);
        // The connection serves on.
        Assert.Equal(0u, (await connection.DeclareQueueAsync(queue, durable: false, autoDelete: true, cancellationToken: ct)).MessageCount);
    }

    [Fact]
    public async Task Stopping_settles_what_is_being_handled_and_leaves_the_rest_in_the_queue()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(Options(), ct);
        var queue = await NewQueueAsync(connection);
        await PublishAsync(connection, queue, 10);

        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var finish = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var handled = 0;
        var consumer = await AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = queue, Prefetch = 10, Concurrency = 2 }, async _ =>
        {
            started.TrySetResult();
            await finish.Task;
            Interlocked.Increment(ref handled);
        }, ct);
        await started.Task.WaitAsync(TimeSpan.FromSeconds(10), ct);
        while (consumer.Delivered < 10) await Task.Delay(10, ct);

        var stopping = consumer.StopAsync(TimeSpan.FromSeconds(10), ct);
        await Task.Delay(200, ct);
        Assert.False(stopping.IsCompleted, "the stop did not wait for the handlers in progress");
        finish.SetResult();
        await stopping;

        Assert.Equal(2, handled);
        await consumer.Completion;
        // The broker puts a closed channel's unsettled deliveries back after its close-ok: beside a NativeAOT
        // publish the first read found 0. Read until they are back, 5 s at most.
        var ready = 0u;
        for (var i = 0; i < 50 && (ready = (await connection.DeclareQueuePassiveAsync(queue, ct)).MessageCount) != 8; i++) await Task.Delay(100, ct);
        Assert.Equal(8u, ready);
    }

    [Fact]
    public async Task Consuming_a_missing_queue_is_refused_with_the_brokers_words()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(Options(), ct);
        var e = await Assert.ThrowsAsync<AmqpException>(() => AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = $"missing.{Guid.NewGuid():N}" }, _ => ValueTask.CompletedTask, ct));
        Assert.Equal((AmqpExceptionKind.ChannelClosed, (ushort)404), (e.Kind, e.ReplyCode));
        Assert.Contains("NOT_FOUND", e.Message, StringComparison.Ordinal);
    }
}
