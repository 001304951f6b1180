using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

// Alone: the heap after a full collection is the process's, so a test class running beside it would move it.
[Collection(nameof(LongRunTests))]
public sealed class LongRunTests
{
    private static readonly string[] _ids = [.. Enumerable.Range(0, 1_000).Select(i => $"message-{i}")];
    private static readonly Dictionary<string, string> _headers = new();
    private static readonly System.Buffers.ReadOnlySequence<byte> _body = new("a message body"u8.ToArray());

    [Fact]
    public void The_Consumers_incoming_pipeline_neither_allocates_more_over_a_long_run_nor_keeps_anything()
    {
        Assert.Empty(LongRun.Check("incoming", Incoming(_ => Task.CompletedTask)));
    }

    [Fact]
    public void The_Publishers_outgoing_pipeline_neither_allocates_more_over_a_long_run_nor_keeps_anything()
    {
        var pipeline = SamplePipelines.Outgoing(new Route("", "q"), new WarmupReport.Sink<DispatchContext>()).Build<OutgoingLogicalContext>();
        var next = 0;
        Assert.Empty(LongRun.Check("outgoing", () => SendAsync(pipeline, _ids[next++ % _ids.Length])));

        static async ValueTask SendAsync(Pipeline<OutgoingLogicalContext> pipeline, string id)
        {
            using var message = OutgoingLogicalContext.Rent(id, "a message");
            await pipeline.Invoke(message).ConfigureAwait(false);
        }
    }

    [Fact]
    public void A_handler_that_keeps_64_bytes_once_every_5000_messages_fails_both_checks()
    {
        var kept = new List<byte[]>();
        var handled = 0;
        var failures = LongRun.Check("leaking", Incoming(_ =>
        {
            if (++handled % 5_000 == 0) kept.Add(new byte[64]);
            return Task.CompletedTask;
        }));

        Assert.Contains(failures, f => f.Contains("more than", StringComparison.Ordinal));
        Assert.Contains(failures, f => f.Contains("heap after a full collection grew", StringComparison.Ordinal));
        GC.KeepAlive(kept);
    }

    private static Func<ValueTask> Incoming(Func<IncomingLogicalContext, Task> handler)
    {
        var pipeline = SamplePipelines.Incoming(handler, WarmupReport.NoDeadLetters, new RecentMessageIds(10_000), 3, Serilog.Core.Logger.None)
            .Build<TransportReceiveContext>();
        // A new id every message, as a stream of deliveries has: the duplicate window (10,000) fills
        // during the warm-up and forgets one id for each it remembers from then on.
        var next = 0L;
        return () => pipeline.Invoke(new TransportReceiveContext($"message-{next++:D12}", _headers, _body));
    }
}

[CollectionDefinition(nameof(LongRunTests), DisableParallelization = true)]
public sealed class LongRunCollection;
