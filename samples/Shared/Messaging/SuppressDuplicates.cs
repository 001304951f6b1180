using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>
/// Receive stage: a delivery whose message id was handled (or dead-lettered) within the window is not
/// handled again; its outcome is <see cref="ReceiveOutcome.Duplicate"/> and the transport acknowledges it.
/// A message without an id is always handled.
/// </summary>
public sealed class SuppressDuplicates(RecentMessageIds recent) : Behavior<TransportReceiveContext>
{
    /// <inheritdoc />
    public override Task Invoke(TransportReceiveContext context, Func<Task> next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        if (context.MessageId.Length == 0) return next();
        if (recent.Contains(context.MessageId))
        {
            context.Outcome = ReceiveOutcome.Duplicate;
            return Task.CompletedTask;
        }
        var handled = next();
        if (!handled.IsCompletedSuccessfully) return RememberWhenDoneAsync(handled, context.MessageId);
        recent.Add(context.MessageId);
        return handled;
    }

    private async Task RememberWhenDoneAsync(Task handled, string messageId)
    {
        await handled.ConfigureAwait(false);
        recent.Add(messageId);
    }
}
