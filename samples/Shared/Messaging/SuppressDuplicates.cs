using System.Runtime.CompilerServices;
using Prewire.Messaging;
using Prewire.Pipeline;
using Prewire.Tasks;

namespace Prewire.Samples.Messaging;

/// <summary>
/// Receive stage: a delivery whose message id was handled (or dead-lettered) within the window is not
/// handled again; its outcome is <see cref="ReceiveOutcome.Duplicate"/> and the transport acknowledges it.
/// A message without an id is always handled.
/// </summary>
public sealed class SuppressDuplicates(RecentMessageIds recent) : Behavior<TransportReceiveContext>
{
    /// <inheritdoc />
    public override ValueTask Invoke(TransportReceiveContext context, Func<ValueTask> next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        if (recent.Contains(context))
        {
            context.Outcome = ReceiveOutcome.Duplicate;
            return default;
        }
        var handled = next();
        if (!handled.IsCompletedSuccessfully) return RememberWhenDoneAsync(handled, context);
        handled.GetAwaiter().GetResult();
        recent.Add(context);
        return default;
    }

    // The context stays valid until the pipeline, this stage included, is done with it.
    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private async ValueTask RememberWhenDoneAsync(ValueTask handled, TransportReceiveContext context)
    {
        await handled.ConfigureAwait(false);
        recent.Add(context);
    }
}
