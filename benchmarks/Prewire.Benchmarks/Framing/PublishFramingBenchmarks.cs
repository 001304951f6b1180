using System.Buffers;
using BenchmarkDotNet.Attributes;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;
using Prewire.Amqp;

namespace Prewire.Benchmarks.Framing;

/// <summary>
/// Writing one publish (basic.publish + content header + body frames at frame-max 128 KiB) into a
/// reused output buffer standing in for the connection's PipeWriter: our writer, straight into the
/// output, against the approach RabbitMQ.Client 7.x takes (frames serialized into one rented array,
/// the body copied into it, then that array copied to the output by the writer loop).
/// </summary>
[MemoryDiagnoser]
public class PublishFramingBenchmarks
{
    private const uint FrameMax = 131072;
    private readonly BasicPublish _publish = new(0, "exchange", "routing.key", Mandatory: true, Immediate: false);
    private readonly BasicProperties _properties = new()
    {
        ContentType = "application/octet-stream",
        DeliveryMode = 2,
        MessageId = "0123456789abcdef",
        Headers = new() { ["prewire.message-id"] = "0123456789abcdef", ["attempt"] = 1 },
    };
    private byte[] _body = [];
    private ArrayBufferWriter<byte> _output = null!;

    [Params(256, 64 * 1024, 1024 * 1024)]
    public int BodySize { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _body = new byte[BodySize];
        Random.Shared.NextBytes(_body);
        _output = new ArrayBufferWriter<byte>(BodySize + 64 * 1024);
    }

    [Benchmark(Baseline = true)]
    public int CopyIntoRentedArray()
    {
        _output.ResetWrittenCount();
        // Serialize everything into one rented array (the body copied in), as a queue item would hold it...
        var maxFrames = (BodySize / (int)(FrameMax - AmqpConstants.FrameOverhead)) + 3;
        var rented = ArrayPool<byte>.Shared.Rent(BodySize + (maxFrames * AmqpConstants.FrameOverhead) + 1024);
        var written = WriteInto(rented);
        // ...then the background writer copies it to the pipe and returns the array.
        _output.Write(rented.AsSpan(0, written));
        ArrayPool<byte>.Shared.Return(rented);
        return _output.WrittenCount;
    }

    [Benchmark]
    public int WriteStraightIntoOutput()
    {
        _output.ResetWrittenCount();
        AmqpFrameWriter.WritePublish(_output, 1, _publish, _properties, _body, FrameMax);
        return _output.WrittenCount;
    }

    private readonly ArrayWriter _arrayWriter = new();

    private int WriteInto(byte[] destination)
    {
        _arrayWriter.Reset(destination);
        AmqpFrameWriter.WritePublish(_arrayWriter, 1, _publish, _properties, _body, FrameMax);
        return _arrayWriter.Written;
    }

    /// <summary>An IBufferWriter over a given array, for the baseline's rented buffer; reused.</summary>
    private sealed class ArrayWriter : IBufferWriter<byte>
    {
        private byte[] _buffer = [];

        public int Written { get; private set; }

        public void Reset(byte[] buffer)
        {
            _buffer = buffer;
            Written = 0;
        }

        public void Advance(int count) => Written += count;

        public Memory<byte> GetMemory(int sizeHint = 0) => _buffer.AsMemory(Written);

        public Span<byte> GetSpan(int sizeHint = 0) => _buffer.AsSpan(Written);
    }
}
