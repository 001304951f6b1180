using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// Steady-state allocations through the apps' own path, in their NativeAOT binaries on each RID
/// (<c>--warmup-report --count N</c>: warm-up, then the least of three windows of N messages,
/// process-wide). Core adds nothing; what a message costs is the samples' own objects: none for the
/// Publisher, to an in-process sink or awaited through the broker. Each figure is derived object by
/// object below, so any new byte per message fails, naming what was expected.
/// </summary>
public sealed class AppAllocationTests(PublishedApps published)
{
    // 64-bit object sizes (x64 and arm64 alike): a 16 B header, 8 B per reference, arrays and strings
    // with a length, everything padded to 8. A string of n chars is 22 + 2n, padded.
    // Nothing of its own: the context comes from a pool (OutgoingLogicalContext.Rent) with its headers
    // dictionary and its physical and dispatch children and goes back when disposed; the body is
    // written into a buffer it rents; its id and time sent are values the dispatch formats into the frame.
    private static readonly (string What, long Bytes)[] _outgoingMessage = [];

    // The dispatch awaits the broker's confirm in a pooled async method (ValueTask pipeline), and
    // everything under it is pooled too (properties with the envelope's bytes, header table, publish
    // state machine, confirm completion).
    private static readonly (string What, long Bytes)[] _confirmedPublish = _outgoingMessage;

    // The transport's context is rented and given back, as a receiver does, and brings back the
    // physical and logical contexts kept with it (TransportReceiveContext.ToPhysical, IncomingPhysicalContext.ToLogical);
    // its id is a value, as the transport reads 32 hex digits, and no step asks for its text.
    private static readonly (string What, long Bytes)[] _incomingMessage =
    [
        ("the text, 15 chars", 56),
    ];

    // A request's message, as the HttpEndpoint's ingress pipeline takes it to the sink: the context and
    // the raw message (type, content type, the body as Kestrel's pipe holds it) come from pools and go back.
    private static readonly (string What, long Bytes)[] _ingressRequest = [];

    public static TheoryData<string> EachRid => Rids.Each();

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task A_publish_confirmed_by_the_broker_through_AmqpPublisher_allocates_nothing_per_message(string rid) =>
        await AssertPerMessageAsync(App.Publisher, rid, _confirmedPublish,
            ["--uri", TestBroker.Uri.ToString(), "--queue", $"prewire.allocations.{rid}"]);

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task A_message_to_the_in_process_sink_allocates_nothing_per_message(string rid) =>
        await AssertPerMessageAsync(App.Publisher, rid, _outgoingMessage, []);

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task A_delivery_through_the_incoming_pipeline_costs_its_own_objects_only(string rid) =>
        await AssertPerMessageAsync(App.Consumer, rid, _incomingMessage, []);

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task A_request_through_the_ingress_pipeline_allocates_nothing_per_request(string rid) =>
        await AssertPerMessageAsync(App.HttpEndpoint, rid, _ingressRequest, []);

    private async Task AssertPerMessageAsync(App app, string rid, (string What, long Bytes)[] expected, string[] args)
    {
        var build = await published.GetSucceededAsync(app, rid);
        var count = Rids.Scaled(rid, 2_000);
        var run = await WarmupRun.RunAsync(build.ExecutablePath, rid, ["--count", $"{count}", .. args]);
        var allocated = run.AllocatedBytes;
        Assert.Equal(count, run.Messages);

        var perMessage = expected.Sum(e => e.Bytes);
        TestContext.Current.TestOutputHelper?.WriteLine($"{app} {rid}: {allocated} B over {count} messages, {(double)allocated / count:0.##} B/message (derived: {perMessage}); {run.Windows}");
        // Less than one byte per message either way: a one-off (a pool or pipe growing) is not a cost per message.
        Assert.True(Math.Abs(allocated - (perMessage * count)) < count,
            $"{app} {rid}: {(double)allocated / count:0.##} B per message, expected {perMessage} ({run.Windows}):\n"
            + string.Join('\n', expected.Select(e => $"  {e.Bytes,4} B  {e.What}")));
    }
}
