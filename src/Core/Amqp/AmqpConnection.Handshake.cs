using System.Text;
using Prewire.Amqp.Internal;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;

namespace Prewire.Amqp;

public sealed partial class AmqpConnection
{
    private async Task HandshakeAsync(AmqpConnectionOptions options, CancellationToken cancellationToken)
    {
        await Writer.WriteAsync(FixedFrames.ProtocolHeader, cancellationToken).ConfigureAwait(false);

        var start = await ExpectAsync<ConnectionStart>(cancellationToken).ConfigureAwait(false);
        var mechanism = _external ? "EXTERNAL" : "PLAIN";
        var offered = Encoding.UTF8.GetString(start.Mechanisms);
        if (!offered.Split(' ').Contains(mechanism))
        {
            throw new IOException($"{Broker} does not offer {mechanism} authentication (it offers {offered})"
                + (_external ? "; a client certificate needs the rabbitmq_auth_mechanism_ssl plugin" : ""));
        }

        // EXTERNAL: the broker takes the user from the certificate; the response is empty.
        var startOk = new ConnectionStartOk(ClientProperties(options.ClientName), mechanism, _external ? [] : PlainResponse(), "en_US");
        await Writer.WriteAsync(new MethodFrames<ConnectionStartOk>(startOk), cancellationToken).ConfigureAwait(false);

        var tune = await ExpectAsync<ConnectionTune>(cancellationToken).ConfigureAwait(false);
        _channelMax = tune.ChannelMax;
        _frameMax = Negotiate(tune.FrameMax, options.RequestedFrameMax);
        var heartbeat = (ushort)Negotiate(tune.Heartbeat, (uint)Math.Min(ushort.MaxValue, options.RequestedHeartbeat.TotalSeconds));
        if (options.RequestedHeartbeat == TimeSpan.Zero) heartbeat = 0;
        _heartbeat = TimeSpan.FromSeconds(heartbeat);
        await Writer.WriteAsync(new MethodFrames<ConnectionTuneOk>(new(tune.ChannelMax, _frameMax, heartbeat)), cancellationToken).ConfigureAwait(false);
        await Writer.WriteAsync(new MethodFrames<ConnectionOpen>(new(_address.VirtualHost, "", false)), cancellationToken).ConfigureAwait(false);
        await ExpectAsync<ConnectionOpenOk>(cancellationToken).ConfigureAwait(false);
    }

    // AMQP's rule: when one side says 0 (no limit), the other side's value holds; else the smaller.
    private static uint Negotiate(uint server, uint client) => server == 0 || client == 0 ? Math.Max(server, client) : Math.Min(server, client);

    private byte[] PlainResponse()
    {
        var user = Encoding.UTF8.GetBytes(_address.UserName);
        var password = Encoding.UTF8.GetBytes(_address.Password);
        var response = new byte[2 + user.Length + password.Length];
        user.CopyTo(response, 1);
        password.CopyTo(response, 2 + user.Length);
        return response;
    }

    private static Dictionary<string, object?> ClientProperties(string name) => new()
    {
        ["product"] = "Prewire",
        ["platform"] = ".NET",
        ["connection_name"] = name,
        ["capabilities"] = new Dictionary<string, object?>
        {
            ["publisher_confirms"] = true,
            ["basic.nack"] = true,
            ["connection.blocked"] = true,
            // Ask for basic.cancel when a consumer's queue is deleted, instead of a consumer left waiting.
            ["consumer_cancel_notify"] = true,
            // Ask for connection.close with the reason instead of a silent hang-up on bad credentials.
            ["authentication_failure_close"] = true,
        },
    };

    /// <summary>Reads frames until method <typeparamref name="T"/>; heartbeats are skipped, a close from the broker is thrown.</summary>
    private async Task<T> ExpectAsync<T>(CancellationToken cancellationToken)
        where T : struct, IAmqpMethod<T>
    {
        var input = _transport.Input;
        while (true)
        {
            var result = await input.ReadAsync(cancellationToken).ConfigureAwait(false);
            var buffer = result.Buffer;
            T? method = null;
            try
            {
                while (method is null && AmqpFrameReader.TryReadFrame(ref buffer, _frameMax, out var frame))
                {
                    if (frame.Type == FrameType.Heartbeat) continue;
                    var id = AmqpFrameReader.ReadCommandId(frame);
                    if (id == AmqpCommandId.ConnectionClose) throw ConnectionClosed(frame);
                    if (id == AmqpCommandId.ChannelClose) throw ChannelClosed(frame);
                    method = AmqpFrameReader.ReadMethod<T>(frame);
                }
            }
            finally
            {
                // Found: the frames after it are still unread, so only what was consumed counts as examined.
                if (method is null) input.AdvanceTo(buffer.Start, buffer.End);
                else input.AdvanceTo(buffer.Start);
            }
            if (method is { } found) return found;
            if (result.IsCompleted)
                throw new IOException($"{Broker} closed the connection during the handshake, before {typeof(T).Name}");
        }
    }
}
