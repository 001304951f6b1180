using Prewire.Amqp;
using System.Globalization;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>
/// The outgoing pipeline's terminator: hands a <see cref="DispatchContext"/> to an AMQP client and
/// completes when the broker confirmed it. Built before any connection exists, so an app can validate
/// and describe its pipeline without a broker; each client connects its own way afterwards.
/// </summary>
/// <remarks>
/// Every client publishes the same way: persistent (delivery mode 2), mandatory (a message no queue
/// takes fails its publish instead of vanishing), the content type from <see cref="MessageHeaders.ContentType"/>,
/// and the envelope: the message id as the AMQP message-id and as <see cref="MessageHeaders.MessageId"/>,
/// the time sent as <see cref="MessageHeaders.SentAt"/>.
/// </remarks>
public abstract class BrokerDispatch : PipelineTerminator<DispatchContext>, IAsyncDisposable
{
    /// <summary>Persistent delivery mode (2): the broker writes the message to disk in a durable queue.</summary>
    protected const byte PersistentDeliveryMode = 2;

    /// <summary>Mandatory: the broker returns a message no queue takes, which fails the publish.</summary>
    protected const bool Mandatory = true;

    /// <summary>The client that publishes, for logs.</summary>
    public abstract string Client { get; }

    /// <summary>Publishes through <paramref name="connection"/> from now on, whichever session it has at the time (again after every reconnection).</summary>
    /// <exception cref="AmqpException">The broker refused what publishing needs (a channel), or the connection is gone.</exception>
    public abstract Task AttachAsync(BrokerConnection connection, CancellationToken cancellationToken);

    /// <summary>The AMQP content type of <paramref name="context"/>'s body.</summary>
    protected static string? ContentTypeOf(DispatchContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        return context.Headers.GetValueOrDefault(MessageHeaders.ContentType);
    }

    /// <summary>
    /// <paramref name="context"/>'s headers, its id (<see cref="MessageHeaders.MessageId"/>, unless a
    /// header gives it) and its <see cref="DispatchContext.SentAt"/> as a new AMQP field table (long strings).
    /// </summary>
    protected static Dictionary<string, object?> FieldTableOf(DispatchContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var table = new Dictionary<string, object?>(context.Headers.Count + 2, StringComparer.Ordinal);
        CopyHeaders(context, table);
        table.TryAdd(MessageHeaders.MessageId, context.MessageId);
        if (context.SentAt is { } sentAt) table[MessageHeaders.SentAt] = sentAt.ToString("O", CultureInfo.InvariantCulture);
        return table;
    }

    /// <summary>Adds <paramref name="context"/>'s headers to <paramref name="table"/> (long strings).</summary>
    protected static void CopyHeaders(DispatchContext context, Dictionary<string, object?> table)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(table);
        // Through the interface, enumerating boxes the enumerator: the samples' headers are a Dictionary.
        if (context.Headers is Dictionary<string, string> headers)
        {
            foreach (var (key, value) in headers) table[key] = value;
        }
        else
        {
            foreach (var (key, value) in context.Headers) table[key] = value;
        }
    }

    /// <inheritdoc />
    public virtual ValueTask DisposeAsync()
    {
        GC.SuppressFinalize(this);
        return default;
    }
}
