using System.Buffers;
using Prewire.Pipeline;
using Prewire.Tasks;

namespace Prewire.Messaging;

/// <summary>
/// A message being sent, as an object: behaviors here validate it and add headers. Disposing it
/// (once its pipeline completed) returns its body buffer and its headers to their pools, and a
/// context from <see cref="Rent(string, object, CancellationToken)"/> goes back to its own pool, children and all.
/// </summary>
public sealed class OutgoingLogicalContext : BehaviorContext, IDisposable
{
    private byte[]? _bodyBuffer;
    // Pooled: a dictionary grown to a message's few headers once serves every message after it.
    private Dictionary<string, string>? _headers;
    private OutgoingPhysicalContext? _physical;
    private bool _rented;
    private string? _messageId;
    private Guid _id;

    /// <summary>A message to send; <see cref="Rent(string, object, CancellationToken)"/> reuses one instead.</summary>
    public OutgoingLogicalContext(string messageId, object message, CancellationToken cancellationToken = default)
        : base(cancellationToken)
    {
        _messageId = messageId;
        Message = message;
        _headers = ObjectPool<Dictionary<string, string>>.TryRent() ?? new(StringComparer.Ordinal);
    }

    /// <summary>
    /// A message to send in a context kept from an earlier message (with its headers dictionary and its
    /// physical and dispatch contexts), or a new one: a message costs no context once the pool is warm.
    /// <see cref="Dispose"/> gives it back; nothing may use it, or its children, after that.
    /// </summary>
    public static OutgoingLogicalContext Rent(string messageId, object message, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(messageId);
        return Rent(messageId, default, message, cancellationToken);
    }

    /// <summary>
    /// As <see cref="Rent(string, object, CancellationToken)"/>, with an id kept as a value: the
    /// dispatch formats it (32 hex digits) straight into the frame, and <see cref="MessageId"/> makes
    /// its string only if something asks for it.
    /// </summary>
    public static OutgoingLogicalContext Rent(Guid messageId, object message, CancellationToken cancellationToken = default) =>
        Rent(null, messageId, message, cancellationToken);

    private static OutgoingLogicalContext Rent(string? messageId, Guid id, object message, CancellationToken cancellationToken)
    {
        var context = ObjectPool<OutgoingLogicalContext>.TryRent();
        if (context is null) context = new OutgoingLogicalContext("", message, cancellationToken);
        else context.Reuse(cancellationToken);
        (context._messageId, context._id, context.Message, context.SentAt, context._rented) = (messageId, id, message, null, true);
        return context;
    }

    /// <summary>The message id (for an id rented as a <see cref="Guid"/>, its 32 hex digits, made on first use).</summary>
    public string MessageId => _messageId ??= _id.ToString("N");

    // The id as a value, when it was given as one and no string was made of it since.
    internal bool TryGetId(out Guid id)
    {
        id = _id;
        return _messageId is null;
    }

    /// <summary>The message.</summary>
    public object Message { get; private set; }

    /// <summary>
    /// When the message was sent, if a behavior stamped it: the dispatch writes it as the
    /// <see cref="MessageHeaders.SentAt"/> header (ISO 8601 round-trip text). Kept as a value, not a
    /// header string: <see cref="AmqpPublisherDispatch"/> formats it straight into the frame.
    /// </summary>
    public DateTimeOffset? SentAt { get; set; }

    /// <summary>Headers to send; behaviors add to them. Theirs until <see cref="Dispose"/>, which clears them for the next message.</summary>
    /// <exception cref="ObjectDisposedException">The context was disposed.</exception>
    public Dictionary<string, string> Headers => _headers ?? throw new ObjectDisposedException(nameof(OutgoingLogicalContext));

    /// <summary>
    /// A buffer of at least <paramref name="minimumLength"/> bytes from the shared pool to serialize the
    /// body into: it stays this message's until <see cref="Dispose"/>, so the body is written once and
    /// handed to the client as it is. Renting again (a replayed step) gives the previous one back first.
    /// </summary>
    public byte[] RentBodyBuffer(int minimumLength)
    {
        ReturnBodyBuffer();
        return _bodyBuffer = ArrayPool<byte>.Shared.Rent(minimumLength);
    }

    /// <summary>
    /// This message as bytes: its one physical context (made on first use, then kept with this context),
    /// with this message's id and headers and <paramref name="body"/>. A replayed step gets the same one, set again.
    /// </summary>
    public OutgoingPhysicalContext ToPhysical(ReadOnlySequence<byte> body)
    {
        var physical = _physical ??= new OutgoingPhysicalContext(this, "", Headers, body);
        physical.Reset(this, Headers, body, SentAt);
        return physical;
    }

    /// <summary>
    /// Returns the body buffer and the headers to their pools (a rented context: itself too): call it
    /// once the pipeline completed, never while the body or the headers (the physical and dispatch
    /// contexts share them) may still be read.
    /// </summary>
    public void Dispose()
    {
        ReturnBodyBuffer();
        if (_rented)
        {
            // Kept with the context: the dictionary and the children come back with it.
            _rented = false;
            _headers!.Clear();
            Message = null!;
            _physical?.Reset(this, _headers, default, null);
            ObjectPool<OutgoingLogicalContext>.Return(this);
        }
        else if (Interlocked.Exchange(ref _headers, null) is { } headers)
        {
            headers.Clear();
            ObjectPool<Dictionary<string, string>>.Return(headers);
        }
    }

    private void ReturnBodyBuffer()
    {
        if (Interlocked.Exchange(ref _bodyBuffer, null) is { } buffer) ArrayPool<byte>.Shared.Return(buffer);
    }
}
