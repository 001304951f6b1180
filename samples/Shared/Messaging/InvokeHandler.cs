using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>Incoming: the terminator that hands the message to the app's handler.</summary>
public sealed class InvokeHandler(Func<IncomingLogicalContext, Task> handler) : PipelineTerminator<IncomingLogicalContext>
{
    /// <inheritdoc />
    protected override ValueTask Terminate(IncomingLogicalContext context) => new(handler(context));
}
