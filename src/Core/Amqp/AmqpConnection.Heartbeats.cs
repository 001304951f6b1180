using Prewire.Amqp.Internal;

namespace Prewire.Amqp;

public sealed partial class AmqpConnection
{
    /// <summary>Sends a heartbeat every half interval; two silent intervals from the broker fail the connection.</summary>
    private async Task HeartbeatLoopAsync(PeriodicTimer timer)
    {
        try
        {
            while (await timer.WaitForNextTickAsync().ConfigureAwait(false) && _failure is null)
            {
                var silent = TimeSpan.FromMilliseconds(Environment.TickCount64 - Volatile.Read(ref _lastReceived));
                if (silent > _heartbeat * 2)
                {
                    var missed = new IOException($"{Broker} sent nothing for {silent.TotalSeconds:0} s (heartbeat {_heartbeat.TotalSeconds:0} s): connection considered dead");
                    Fail(missed);
                    _transport.Abort(missed);
                    return;
                }
                await Writer.WriteAsync(FixedFrames.Heartbeat).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (e is IOException or InvalidOperationException or ObjectDisposedException)
        {
            Fail(e);
        }
    }
}
