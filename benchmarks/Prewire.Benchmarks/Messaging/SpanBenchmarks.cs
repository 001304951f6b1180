using System.Buffers;
using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using Prewire.Messaging;
using Prewire.Messaging.Internal;

namespace Prewire.Benchmarks.Messaging;

/// <summary>
/// What a message's span costs Prewire itself, apart from the SDK's batching and export: the publish
/// span (with its trace context written into the headers) and the process span (parented to the context
/// read back), with nobody listening, with a listener that asks only for propagation (the span object
/// and the context, no attributes) and with one that records everything (the attributes too), as an
/// exporting SDK does.
/// </summary>
[MemoryDiagnoser]
public class SpanBenchmarks
{
    private readonly Dictionary<string, object?> _published = [];
    private readonly Dictionary<string, string> _delivered = [];
    private ActivityListener? _listener;
    private DispatchContext _context = null!;
    private TransportReceiveContext _delivery = null!;

    [Params("nobody", "propagation", "all data")]
    public string Listener { get; set; } = "nobody";

    [GlobalSetup]
    public void Setup()
    {
        var id = Guid.NewGuid().ToString();
        _context = new DispatchContext(new OutgoingLogicalContext(id, "", default), "orders", "order.created", id, _delivered, new ReadOnlySequence<byte>(new byte[256]));
        if (Listener != "nobody")
        {
            var result = Listener == "propagation" ? ActivitySamplingResult.PropagationData : ActivitySamplingResult.AllDataAndRecorded;
            _listener = new ActivityListener
            {
                ShouldListenTo = source => source.Name == MessagingTelemetry.ActivitySourceName,
                Sample = (ref _) => result,
            };
            ActivitySource.AddActivityListener(_listener);
        }
        // The delivery carries what a publish wrote, as the broker hands it over.
        MessagingActivities.StartPublish(_context, _published)?.Dispose();
        foreach (var (key, value) in _published) _delivered[key] = (string)value!;
        _delivery = new TransportReceiveContext(_context.MessageId, _delivered, new ReadOnlySequence<byte>(new byte[256]));
    }

    [GlobalCleanup]
    public void Cleanup() => _listener?.Dispose();

    [Benchmark]
    public void Publish() => MessagingActivities.StartPublish(_context, _published)?.Dispose();

    [Benchmark]
    public void Process() => MessagingActivities.StartProcess("process orders", "orders", _delivery)?.Dispose();
}
