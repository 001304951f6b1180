using System.Runtime.CompilerServices;
using Prewire.Messaging;
using Prewire.Pipeline;
using Prewire.Tasks;
using Serilog;

namespace Prewire.Samples.Messaging;

/// <summary>
/// Receive stage: runs the rest of the pipeline up to <c>maxAttempts</c> times while it throws, then
/// sends the delivery to the dead-letter queue with the last exception as its reason. A
/// <see cref="MalformedMessageException"/> goes there at once: trying again cannot help. Either way the
/// outcome is <see cref="ReceiveOutcome.DeadLettered"/> and the pipeline completes, so no message
/// crashes the consumer or comes back forever.
/// </summary>
public sealed class RetryThenDeadLetter : Behavior<TransportReceiveContext>
{
    private readonly IDeadLetterQueue _deadLetters;
    private readonly int _maxAttempts;
    private readonly ILogger _log;

    /// <summary>Creates the stage.</summary>
    /// <param name="deadLetters">Where failed and malformed messages go.</param>
    /// <param name="maxAttempts">Times the handler runs before the message is dead-lettered; at least 1.</param>
    /// <param name="log">Each dead letter is a warning; each retry a debug line.</param>
    public RetryThenDeadLetter(IDeadLetterQueue deadLetters, int maxAttempts, ILogger log)
    {
        ArgumentNullException.ThrowIfNull(deadLetters);
        ArgumentOutOfRangeException.ThrowIfLessThan(maxAttempts, 1);
        ArgumentNullException.ThrowIfNull(log);
        (_deadLetters, _maxAttempts, _log) = (deadLetters, maxAttempts, log);
    }

    /// <inheritdoc />
    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    public override async ValueTask Invoke(TransportReceiveContext context, Func<ValueTask> next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                await next().ConfigureAwait(false);
                return;
            }
            catch (MalformedMessageException e)
            {
                await DeadLetterAsync(context, e, attempts: 0).ConfigureAwait(false);
                return;
            }
#pragma warning disable CA1031 // Any handler failure is retried, then dead-lettered: a message never crashes the consumer.
            catch (Exception e) when (attempt < _maxAttempts)
            {
                _log.Debug("Message {MessageId} failed attempt {Attempt} of {MaxAttempts}: {Error}", context.MessageId, attempt, _maxAttempts, e.Message);
            }
            catch (Exception e)
#pragma warning restore CA1031
            {
                await DeadLetterAsync(context, e, attempt).ConfigureAwait(false);
                return;
            }
        }
    }

    private async Task DeadLetterAsync(TransportReceiveContext context, Exception failure, int attempts)
    {
        await _deadLetters.SendAsync(context, failure, attempts).ConfigureAwait(false);
        (context.Outcome, context.Failure) = (ReceiveOutcome.DeadLettered, failure);
        _log.Warning("Message {MessageId} dead-lettered after {Attempts} attempts: {ExceptionType}: {Error}",
            context.MessageId.Length == 0 ? "(no id)" : context.MessageId, attempts, failure.GetType().Name, failure.Message);
    }
}
