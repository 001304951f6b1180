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
        var pipeline = Build<OutgoingLogicalContext>(SamplePipelines.Outgoing("orders", captured, clock), builder);

        await pipeline.Invoke(new OutgoingLogicalContext("id-1", "héllo"));

        var dispatched = Assert.Single(captured.Dispatched);
        Assert.Equal(("", "orders", "id-1"), (dispatched.Exchange, dispatched.RoutingKey, dispatched.MessageId));
        Assert.Equal("héllo"u8.ToArray(), dispatched.Body.ToArray());
        Assert.Equal("id-1", dispatched.Headers[MessageHeaders.MessageId]);
        Assert.Equal(TextMessages.ContentType, dispatched.Headers[MessageHeaders.ContentType]);
        Assert.Equal("2026-11-22T07:00:00.0000000+00:00", dispatched.Headers[MessageHeaders.SentAt]);
    }

    [Theory]
    [MemberData(nameof(Builders))]
    public async Task Incoming_reads_the_body_in_place_and_hands_the_text_to_the_handler(string builder)
    {
        IncomingLogicalContext? handled = null;
        var pipeline = Build<TransportReceiveContext>(SamplePipelines.Incoming(c => { handled = c; return Task.CompletedTask; }), builder);
        var headers = new Dictionary<string, string> { [MessageHeaders.ContentType] = TextMessages.ContentType };

        await pipeline.Invoke(new TransportReceiveContext("id-2", headers, Encoding.UTF8.GetBytes("wörld")));

        Assert.NotNull(handled);
        Assert.Equal(("id-2", "wörld"), (handled.MessageId, (string)handled.Message));
    }

    [Theory]
    [MemberData(nameof(Builders))]
    public async Task Incoming_rejects_a_foreign_content_type_with_a_clear_error(string builder)
    {
        var pipeline = Build<TransportReceiveContext>(SamplePipelines.Incoming(_ => Task.CompletedTask), builder);
        var headers = new Dictionary<string, string> { [MessageHeaders.ContentType] = "application/json" };

        var e = await Assert.ThrowsAsync<InvalidDataException>(() => pipeline.Invoke(new TransportReceiveContext("id-3", headers, "{}"u8.ToArray())));
        Assert.Contains("message id-3 has content type 'application/json'", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Outgoing_describes_itself_stage_by_stage()
    {
        var text = SamplePipelines.Outgoing("orders", new Capture()).Build<OutgoingLogicalContext>().Describe();

        Assert.Contains("Pipeline<OutgoingLogicalContext> (prewired, 4 steps)", text, StringComparison.Ordinal);
        Assert.Contains("stage OutgoingPhysicalContext", text, StringComparison.Ordinal);
        Assert.Contains("stage DispatchContext", text, StringComparison.Ordinal);
        Assert.Contains("addresses queue 'orders' via the default exchange -> DispatchContext", text, StringComparison.Ordinal);
    }

    private sealed class Capture : PipelineTerminator<DispatchContext>
    {
        public List<DispatchContext> Dispatched { get; } = [];

        protected override Task Terminate(DispatchContext context)
        {
            Dispatched.Add(context);
            return Task.CompletedTask;
        }
    }

    private sealed class FixedClock(DateTimeOffset now) : TimeProvider
    {
        public override DateTimeOffset GetUtcNow() => now;
    }
}
