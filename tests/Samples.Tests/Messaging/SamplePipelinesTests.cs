using System.Buffers;
using System.Text;
using Prewire.Messaging;
using Prewire.Pipeline;
using Prewire.Pipeline.ExpressionTree;

namespace Prewire.Samples.Messaging;

public sealed class SamplePipelinesTests
{
    public static TheoryData<string> Builders => new("prewired", "expression-tree");

    private static Pipeline<T> Build<T>(PipelineBuilder builder, string which)
        where T : class, IBehaviorContext =>
        which == "prewired" ? builder.Build<T>() : builder.BuildWithExpressionTrees<T>();

    [Theory]
    [MemberData(nameof(Builders))]
    public async Task Outgoing_stamps_headers_serializes_once_and_routes_to_the_queue(string builder)
    {
        var captured = new Capture();
        var clock = new FixedClock(new DateTimeOffset(2026, 11, 22, 7, 0, 0, TimeSpan.Zero));
        var pipeline = Build<OutgoingLogicalContext>(SamplePipelines.Outgoing(new Route("", "orders"), captured, clock), builder);

        await pipeline.Invoke(new OutgoingLogicalContext("id-1", "héllo"));

        var dispatched = Assert.Single(captured.Dispatched);
        Assert.Equal(("", "orders", "id-1"), (dispatched.Exchange, dispatched.RoutingKey, dispatched.MessageId));
        Assert.Equal("héllo"u8.ToArray(), dispatched.Body.ToArray());
        Assert.Equal(TextMessages.ContentType, dispatched.Headers[MessageHeaders.ContentType]);
        Assert.Equal(new DateTimeOffset(2026, 11, 22, 7, 0, 0, TimeSpan.Zero), dispatched.SentAt);
    }

    [Theory]
    [MemberData(nameof(Builders))]
    public async Task Outgoing_pads_a_sized_text_in_the_messages_pooled_buffer_which_dispose_returns(string builder)
    {
        var captured = new Capture();
        var pipeline = Build<OutgoingLogicalContext>(SamplePipelines.Outgoing(new Route("", "orders"), captured), builder);

        var message = new OutgoingLogicalContext("id-9", new TextMessages.Numbered { Index = 3, Count = 12, Size = 20 });
        await pipeline.Invoke(message);

        var body = Assert.Single(captured.Dispatched).Body;
        Assert.Equal("message 3 of 12....."u8.ToArray(), body.ToArray());
        // The body is the rented buffer itself, not a copy of it...
        Assert.True(System.Runtime.InteropServices.MemoryMarshal.TryGetArray(body.First, out var segment) && segment.Array!.Length >= 20);
        message.Dispose();
        message.Dispose();
        // ...and once given back, the pool hands it out again.
        Assert.Same(segment.Array, System.Buffers.ArrayPool<byte>.Shared.Rent(32));
    }

    [Theory]
    [MemberData(nameof(Builders))]
    public async Task Incoming_reads_the_body_in_place_and_hands_the_text_to_the_handler(string builder)
    {
        IncomingLogicalContext? handled = null;
        var pipeline = Build<TransportReceiveContext>(Incoming(c => { handled = c; return Task.CompletedTask; }, new DeadLetters()), builder);
        var headers = new Dictionary<string, string> { [MessageHeaders.ContentType] = TextMessages.ContentType };

        await pipeline.Invoke(new TransportReceiveContext("id-2", headers, new ReadOnlySequence<byte>(Encoding.UTF8.GetBytes("wörld"))));

        Assert.NotNull(handled);
        Assert.Equal(("id-2", "wörld"), (handled.MessageId, (string)handled.Message));
    }

    [Theory]
    [MemberData(nameof(Builders))]
    public async Task Incoming_dead_letters_a_foreign_content_type_at_once_without_running_the_handler(string builder)
    {
        var (deadLetters, handled) = (new DeadLetters(), 0);
        var pipeline = Build<TransportReceiveContext>(Incoming(_ => { handled++; return Task.CompletedTask; }, deadLetters), builder);
        var headers = new Dictionary<string, string> { [MessageHeaders.ContentType] = "application/json" };

        var message = new TransportReceiveContext("id-3", headers, new ReadOnlySequence<byte>("{}"u8.ToArray()));
        await pipeline.Invoke(message);

        var (sent, failure, attempts) = Assert.Single(deadLetters.Sent);
        Assert.Equal((message, ReceiveOutcome.DeadLettered, 0, 0), (sent, message.Outcome, attempts, handled));
        Assert.Equal("content type 'application/json'; expected 'text/plain; charset=utf-8'", Assert.IsType<MalformedMessageException>(failure).Message);
    }

    [Theory]
    [MemberData(nameof(Builders))]
    public async Task Incoming_dead_letters_a_body_that_is_not_utf8_at_once(string builder)
    {
        var deadLetters = new DeadLetters();
        var pipeline = Build<TransportReceiveContext>(Incoming(_ => Task.CompletedTask, deadLetters), builder);

        await pipeline.Invoke(new TransportReceiveContext("", new Dictionary<string, string>(), new ReadOnlySequence<byte>([0x66, 0xC3, 0x28])));

        Assert.Equal("the body is not valid UTF-8", Assert.IsType<MalformedMessageException>(Assert.Single(deadLetters.Sent).Failure).Message);
    }

    [Theory]
    [MemberData(nameof(Builders))]
    public async Task Incoming_retries_a_failing_handler_then_dead_letters_it_with_the_attempts(string builder)
    {
        var (deadLetters, runs) = (new DeadLetters(), 0);
        var pipeline = Build<TransportReceiveContext>(Incoming(_ => ++runs < 3 ? throw new TimeoutException($"run {runs}") : Task.CompletedTask, deadLetters, maxAttempts: 3), builder);
        var recovers = new TransportReceiveContext("id-4", new Dictionary<string, string>(), new ReadOnlySequence<byte>("x"u8.ToArray()));
        await pipeline.Invoke(recovers);
        Assert.Equal((3, ReceiveOutcome.Handled, 0), (runs, recovers.Outcome, deadLetters.Sent.Count));

        runs = -100;
        var poison = new TransportReceiveContext("id-5", new Dictionary<string, string>(), new ReadOnlySequence<byte>("x"u8.ToArray()));
        await pipeline.Invoke(poison);
        var (_, failure, attempts) = Assert.Single(deadLetters.Sent);
        Assert.Equal((-97, ReceiveOutcome.DeadLettered, 3, "run -97"), (runs, poison.Outcome, attempts, failure.Message));
    }

    [Theory]
    [MemberData(nameof(Builders))]
    public async Task Incoming_skips_a_message_id_it_handled_or_dead_lettered_but_always_handles_one_without_an_id(string builder)
    {
        var handled = new List<string>();
        var pipeline = Build<TransportReceiveContext>(Incoming(c => { handled.Add((string)c.Message); return Task.CompletedTask; }, new DeadLetters()), builder);
        TransportReceiveContext Message(string id, string text) => new(id, new Dictionary<string, string>(), new ReadOnlySequence<byte>(Encoding.UTF8.GetBytes(text)));

        var outcomes = new List<ReceiveOutcome>();
        foreach (var message in new[] { Message("a", "1"), Message("b", "2"), Message("a", "3"), Message("", "4"), Message("", "5") })
        {
            await pipeline.Invoke(message);
            outcomes.Add(message.Outcome);
        }

        Assert.Equal(["1", "2", "4", "5"], handled);
        Assert.Equal([ReceiveOutcome.Handled, ReceiveOutcome.Handled, ReceiveOutcome.Duplicate, ReceiveOutcome.Handled, ReceiveOutcome.Handled], outcomes);
    }

    private static PipelineBuilder Incoming(Func<IncomingLogicalContext, Task> handler, DeadLetters deadLetters, int maxAttempts = 1) =>
        SamplePipelines.Incoming(handler, deadLetters, new RecentMessageIds(100), maxAttempts, Serilog.Core.Logger.None);

    private sealed class DeadLetters : IDeadLetterQueue
    {
        public List<(TransportReceiveContext Message, Exception Failure, int Attempts)> Sent { get; } = [];

        public Task SendAsync(TransportReceiveContext message, Exception failure, int attempts)
        {
            Sent.Add((message, failure, attempts));
            return Task.CompletedTask;
        }
    }

    [Fact]
    public void Outgoing_describes_itself_stage_by_stage()
    {
        var text = SamplePipelines.Outgoing(new Route("", "orders"), new Capture()).Build<OutgoingLogicalContext>().Describe();

        Assert.Contains("Pipeline<OutgoingLogicalContext> (prewired, 4 steps)", text, StringComparison.Ordinal);
        Assert.Contains("stage OutgoingPhysicalContext", text, StringComparison.Ordinal);
        Assert.Contains("stage DispatchContext", text, StringComparison.Ordinal);
        Assert.Contains("addresses queue 'orders' via the default exchange -> DispatchContext", text, StringComparison.Ordinal);
    }

    private sealed class Capture : PipelineTerminator<DispatchContext>
    {
        public List<DispatchContext> Dispatched { get; } = [];

        protected override ValueTask Terminate(DispatchContext context)
        {
            Dispatched.Add(context);
            return default;
        }
    }

    private sealed class FixedClock(DateTimeOffset now) : TimeProvider
    {
        public override DateTimeOffset GetUtcNow() => now;
    }
}
