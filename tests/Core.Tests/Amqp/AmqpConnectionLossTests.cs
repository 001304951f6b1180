using Prewire.Amqp.Internal;
using Prewire.Testing;

namespace Prewire.Amqp;

/// <summary>A connection the network drops, through a relay to the real broker that resets it.</summary>
public sealed class AmqpConnectionLossTests
{
    [Fact]
    public async Task Closing_a_connection_whose_send_failed_before_its_read_loop_saw_the_loss_does_not_throw()
    {
        var ct = TestContext.Current.CancellationToken;
        using var relay = new TcpRelay(TestBroker.Uri.Port);
        await using var connection = await ConnectAsync(relay, ct);
        var queue = await AmqpConsumerTests.NewQueueAsync(connection);
        await AmqpConsumerTests.PublishAsync(connection, queue, 1);
        await using var publisher = await AmqpPublisher.OpenAsync(connection, cancellationToken: ct);

        // The handler runs on the read loop and holds it: the reset stays unseen there while a send fails.
        using var handling = new SemaphoreSlim(0);
        using var release = new ManualResetEventSlim();
        await using var consumer = await AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = queue }, _ =>
        {
            handling.Release();
            release.Wait(TimeSpan.FromSeconds(30));
            return ValueTask.CompletedTask;
        }, ct);
        try
        {
            await handling.WaitAsync(ct);
            await relay.ResetClientAsync();
            // Its confirm never comes; the send loop fails on its frames.
            var unconfirmed = publisher.PublishAsync("", queue, null, new byte[16], cancellationToken: ct).AsTask();
            await SendFailedAsync(connection, ct);

            // What a reconnect does with the lost connection: close it. The loss is no news to the caller,
            // and the handler still holding the read loop does not keep it past CloseTimeout (5 s).
            var closing = System.Diagnostics.Stopwatch.StartNew();
            await connection.CloseAsync(ct);
            Assert.InRange(closing.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(10));
            await Assert.ThrowsAnyAsync<Exception>(() => unconfirmed);
        }
        finally
        {
            release.Set();
        }
    }

    [Fact]
    public async Task A_pool_threads_rounds_after_the_loss_end_without_throwing_and_free_the_turn()
    {
        var ct = TestContext.Current.CancellationToken;
        using var relay = new TcpRelay(TestBroker.Uri.Port);
        await using var connection = await ConnectAsync(relay, ct);
        await relay.ResetClientAsync();
        await SendFailedAsync(connection, ct);

        // What a pool thread runs once a writer left it the turn (writers kept coming for four rounds): its
        // flush fails, and only the writes it carries are there to be told. Thrown, it ended the process:
        // 16 publishers on a connection reset under them, 10 resets a run, made 27 to 55 such exceptions.
        var thrown = Record.Exception(((IThreadPoolWorkItem)connection.Writer).Execute);
        Assert.Null(thrown);
        // The turn is free: the next write takes it and fails with the loss, at once.
        await Assert.ThrowsAsync<IOException>(async () => await connection.Writer.WriteAsync(FixedFrames.Heartbeat, ct).AsTask().WaitAsync(TimeSpan.FromSeconds(10), ct));
    }

    private static Task<AmqpConnection> ConnectAsync(TcpRelay relay, CancellationToken ct)
    {
        var options = AmqpConsumerTests.Options();
        options.Uri = AmqpUri.Parse($"amqp://guest:guest@127.0.0.1:{relay.Port}/");
        return AmqpConnection.ConnectAsync(options, ct);
    }

    // The send loop failed once a flush rethrows its error.
    private static async Task SendFailedAsync(AmqpConnection connection, CancellationToken ct)
    {
        for (var started = DateTime.UtcNow; DateTime.UtcNow - started < TimeSpan.FromSeconds(10); await Task.Delay(10, ct))
        {
            try
            {
                // A heartbeat: something to flush, harmless to a broker still there.
                await connection.Writer.WriteAsync(FixedFrames.Heartbeat, ct);
            }
            catch (IOException)
            {
                return;
            }
        }
        Assert.Fail("the send loop did not fail within 10 s of the reset");
    }
}
