using System.Buffers;
using System.IO.Pipelines;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;
using Prewire.Tasks;

namespace Prewire.Amqp.Internal;

/// <summary>
/// One channel of a publisher: its publish sequence (the broker's delivery tags count per channel),
/// its outstanding confirms, and the basic.return whose content header it is waiting for.
/// </summary>
internal sealed class PublishChannel(AmqpPublisher publisher) : AmqpChannel, IFrameSource
{
    private (FramedContent, ChannelBodySend)? _direct;
    private PooledCompletion<bool> _confirm;
    private (BasicPublish Method, BasicProperties? Properties, ReadOnlySequence<byte> Body) _outgoing;

    /// <summary>
    /// Held by one publish from its method frame to its last body frame: AMQP lets frames of different
    /// channels interleave on a connection, never two contents on one channel.
    /// </summary>
    public AsyncLock Turn { get; } = new();

    public ConfirmTracker Confirms { get; } = new();

    /// <summary>The channel is in confirm mode: returns are matched to their publishes.</summary>
    public bool ConfirmsEnabled { get; set; }

    /// <summary>The last sequence number given out; advanced under <see cref="Turn"/>.</summary>
    public ulong LastSequence { get; private set; }

    /// <summary>A large publish's frames around its body, and their send; made on the first one, used under <see cref="Turn"/>.</summary>
    public (FramedContent Content, ChannelBodySend Send) Direct => _direct ??= (new FramedContent(), new ChannelBodySend(this));

    /// <summary>
    /// The connection writer's <see cref="ConnectionWriter.Flushes"/> when the channel's last publish was
    /// written into the pipe (-1: sent directly); set and read under <see cref="Turn"/>. While it has not
    /// moved, that publish may still be in the pipe, and a direct send must not overtake it.
    /// </summary>
    public long LastPipeWrite { get; private set; } = -1;

    /// <summary>Writes a publish's frames into the pipe in <paramref name="writer"/>'s turn (a body up to its flush threshold); under <see cref="Turn"/>.</summary>
    public ValueTask WriteAsync(ConnectionWriter writer, in BasicPublish method, BasicProperties? properties, in ReadOnlySequence<byte> body, CancellationToken cancellationToken)
    {
        _outgoing = (method, properties, body);
        return writer.WriteAsync(this, cancellationToken);
    }

    void IFrameSource.WriteFrames(PipeWriter output)
    {
        // Let go of the caller's body and properties whatever happens: the channel outlives the publish.
        var (method, properties, body) = _outgoing;
        _outgoing = default;
        publisher.WriteToPipe(output, this, method, properties, body);
    }

    /// <summary>A publish with <paramref name="sequence"/> was written (at <paramref name="pipeWrite"/>); in confirm mode its confirm is awaited from here on.</summary>
    public void Published(ulong sequence, long pipeWrite)
    {
        LastSequence = sequence;
        LastPipeWrite = pipeWrite;
        if (ConfirmsEnabled) _confirm = Confirms.Register(sequence);
    }

    /// <summary>The confirm of the publish just written, taken by that publish under <see cref="Turn"/> (default without confirms).</summary>
    public PooledCompletion<bool> TakeConfirm()
    {
        var confirm = _confirm;
        _confirm = default;
        return confirm;
    }

    /// <summary>Set by basic.return; the content header that follows names the publish.</summary>
    private (ushort Code, string Text)? _pendingReturn;

    public override void OnFrame(in Frame frame, AmqpCommandId method)
    {
        switch (frame.Type)
        {
            case FrameType.Method:
                OnMethod(frame, method);
                break;
            case FrameType.ContentHeader when _pendingReturn is { } returned:
                var header = AmqpFrameReader.ReadContentHeader(frame);
                if (ConfirmsEnabled && header.Properties.Headers?.GetValueOrDefault(AmqpPublisher.SequenceHeader) is long sequence)
                    Confirms.Returned((ulong)sequence, returned.Code, returned.Text);
                _pendingReturn = null;
                break;
        }
    }

    protected override void OnClosed(Exception reason) => publisher.Fail(reason);

    private void OnMethod(in Frame frame, AmqpCommandId method)
    {
        switch (method)
        {
            case AmqpCommandId.BasicAck:
                var ack = AmqpFrameReader.ReadMethod<BasicAck>(frame);
                Confirms.Ack(ack.DeliveryTag, ack.Multiple);
                break;
            case AmqpCommandId.BasicNack:
                var nack = AmqpFrameReader.ReadMethod<BasicNack>(frame);
                Confirms.Nack(nack.DeliveryTag, nack.Multiple);
                break;
            case AmqpCommandId.BasicReturn:
                var basicReturn = AmqpFrameReader.ReadMethod<BasicReturn>(frame);
                _pendingReturn = (basicReturn.ReplyCode, basicReturn.ReplyText);
                break;
        }
    }
}
