using Prewire.Framing.Internal.Methods;
using Prewire.Framing.Internal;

namespace Prewire.Framing;

/// <summary>Something to do with a method frame once its type is known.</summary>
internal interface IMethodVisitor
{
    void Visit<T>(in Frame frame)
        where T : struct, IAmqpMethod<T>;
}

/// <summary>Maps a method frame's ids to its type in Framing/Methods, for tests that go over every method.</summary>
internal static class MethodDispatch
{
    /// <summary>Calls the visitor with the frame's method type; <see langword="false"/> for ids no type has.</summary>
    public static bool TryVisit<TVisitor>(in Frame frame, TVisitor visitor)
        where TVisitor : IMethodVisitor
    {
        switch (AmqpFrameReader.ReadCommandId(frame))
        {
            case AmqpCommandId.ConnectionStart: visitor.Visit<ConnectionStart>(frame); return true;
            case AmqpCommandId.ConnectionStartOk: visitor.Visit<ConnectionStartOk>(frame); return true;
            case AmqpCommandId.ConnectionTune: visitor.Visit<ConnectionTune>(frame); return true;
            case AmqpCommandId.ConnectionTuneOk: visitor.Visit<ConnectionTuneOk>(frame); return true;
            case AmqpCommandId.ConnectionOpen: visitor.Visit<ConnectionOpen>(frame); return true;
            case AmqpCommandId.ConnectionOpenOk: visitor.Visit<ConnectionOpenOk>(frame); return true;
            case AmqpCommandId.ConnectionClose: visitor.Visit<ConnectionClose>(frame); return true;
            case AmqpCommandId.ConnectionCloseOk: visitor.Visit<ConnectionCloseOk>(frame); return true;
            case AmqpCommandId.ConnectionBlocked: visitor.Visit<ConnectionBlocked>(frame); return true;
            case AmqpCommandId.ConnectionUnblocked: visitor.Visit<ConnectionUnblocked>(frame); return true;
            case AmqpCommandId.ChannelOpen: visitor.Visit<ChannelOpen>(frame); return true;
            case AmqpCommandId.ChannelOpenOk: visitor.Visit<ChannelOpenOk>(frame); return true;
            case AmqpCommandId.ChannelClose: visitor.Visit<ChannelClose>(frame); return true;
            case AmqpCommandId.ChannelCloseOk: visitor.Visit<ChannelCloseOk>(frame); return true;
            case AmqpCommandId.QueueDeclare: visitor.Visit<QueueDeclare>(frame); return true;
            case AmqpCommandId.QueueDeclareOk: visitor.Visit<QueueDeclareOk>(frame); return true;
            case AmqpCommandId.BasicQos: visitor.Visit<BasicQos>(frame); return true;
            case AmqpCommandId.BasicQosOk: visitor.Visit<BasicQosOk>(frame); return true;
            case AmqpCommandId.BasicConsume: visitor.Visit<BasicConsume>(frame); return true;
            case AmqpCommandId.BasicConsumeOk: visitor.Visit<BasicConsumeOk>(frame); return true;
            case AmqpCommandId.BasicCancel: visitor.Visit<BasicCancel>(frame); return true;
            case AmqpCommandId.BasicCancelOk: visitor.Visit<BasicCancelOk>(frame); return true;
            case AmqpCommandId.BasicPublish: visitor.Visit<BasicPublish>(frame); return true;
            case AmqpCommandId.BasicReturn: visitor.Visit<BasicReturn>(frame); return true;
            case AmqpCommandId.BasicDeliver: visitor.Visit<BasicDeliver>(frame); return true;
            case AmqpCommandId.BasicAck: visitor.Visit<BasicAck>(frame); return true;
            case AmqpCommandId.BasicReject: visitor.Visit<BasicReject>(frame); return true;
            case AmqpCommandId.BasicNack: visitor.Visit<BasicNack>(frame); return true;
            case AmqpCommandId.ConfirmSelect: visitor.Visit<ConfirmSelect>(frame); return true;
            case AmqpCommandId.ConfirmSelectOk: visitor.Visit<ConfirmSelectOk>(frame); return true;
            default: return false;
        }
    }
}
