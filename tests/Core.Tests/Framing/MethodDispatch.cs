using Prewire.Framing.Methods;

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
        switch (AmqpFrameReader.ReadMethodId(frame))
        {
            case (10, 10): visitor.Visit<ConnectionStart>(frame); return true;
            case (10, 11): visitor.Visit<ConnectionStartOk>(frame); return true;
            case (10, 30): visitor.Visit<ConnectionTune>(frame); return true;
            case (10, 31): visitor.Visit<ConnectionTuneOk>(frame); return true;
            case (10, 40): visitor.Visit<ConnectionOpen>(frame); return true;
            case (10, 41): visitor.Visit<ConnectionOpenOk>(frame); return true;
            case (10, 50): visitor.Visit<ConnectionClose>(frame); return true;
            case (10, 51): visitor.Visit<ConnectionCloseOk>(frame); return true;
            case (10, 60): visitor.Visit<ConnectionBlocked>(frame); return true;
            case (10, 61): visitor.Visit<ConnectionUnblocked>(frame); return true;
            case (20, 10): visitor.Visit<ChannelOpen>(frame); return true;
            case (20, 11): visitor.Visit<ChannelOpenOk>(frame); return true;
            case (20, 40): visitor.Visit<ChannelClose>(frame); return true;
            case (20, 41): visitor.Visit<ChannelCloseOk>(frame); return true;
            case (50, 10): visitor.Visit<QueueDeclare>(frame); return true;
            case (50, 11): visitor.Visit<QueueDeclareOk>(frame); return true;
            case (60, 10): visitor.Visit<BasicQos>(frame); return true;
            case (60, 11): visitor.Visit<BasicQosOk>(frame); return true;
            case (60, 20): visitor.Visit<BasicConsume>(frame); return true;
            case (60, 21): visitor.Visit<BasicConsumeOk>(frame); return true;
            case (60, 30): visitor.Visit<BasicCancel>(frame); return true;
            case (60, 31): visitor.Visit<BasicCancelOk>(frame); return true;
            case (60, 40): visitor.Visit<BasicPublish>(frame); return true;
            case (60, 50): visitor.Visit<BasicReturn>(frame); return true;
            case (60, 60): visitor.Visit<BasicDeliver>(frame); return true;
            case (60, 80): visitor.Visit<BasicAck>(frame); return true;
            case (60, 90): visitor.Visit<BasicReject>(frame); return true;
            case (60, 120): visitor.Visit<BasicNack>(frame); return true;
            case (85, 10): visitor.Visit<ConfirmSelect>(frame); return true;
            case (85, 11): visitor.Visit<ConfirmSelectOk>(frame); return true;
            default: return false;
        }
    }
}
