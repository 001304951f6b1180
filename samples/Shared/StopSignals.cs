using System.Runtime.InteropServices;

namespace Prewire.Samples;

/// <summary>
/// SIGTERM and SIGINT (Ctrl+C) as a cancellation token and nothing else: left to the runtime, SIGTERM
/// ends the process at once (exit 143), and what a container runtime sends on stop would drop
/// in-flight work. Both signals only ask the run to stop.
/// </summary>
internal sealed class StopSignals : IDisposable
{
    // Never disposed: a signal's handlers run on a thread of their own, from the list of registrations
    // taken when it arrived, and the runtime (10.0.12) runs every one of them even after one cancels.
    // The HttpEndpoint's web host stops on SIGTERM too (its own handler, first), so the run could be
    // over and this source disposed before Stop ran: the HttpEndpoint died with exit 134 on an
    // ObjectDisposedException beside busy loops on both cores. A source with no timer and no linked
    // token holds nothing that Dispose would free.
    private readonly CancellationTokenSource _stopping = new();
    private readonly PosixSignalRegistration _onTerm;
    private readonly PosixSignalRegistration _onInt;

    public StopSignals()
    {
        _onTerm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Stop);
        _onInt = PosixSignalRegistration.Create(PosixSignal.SIGINT, Stop);
    }

    /// <summary>Cancelled by the first SIGTERM or SIGINT.</summary>
    public CancellationToken Token => _stopping.Token;

    /// <summary>A signal's handler: the process is not ended, the run is asked to stop. Safe at any time, before or after <see cref="Dispose"/>.</summary>
    internal void Stop(PosixSignalContext signal)
    {
        signal.Cancel = true;
        _stopping.Cancel();
    }

    public void Dispose()
    {
        _onInt.Dispose();
        _onTerm.Dispose();
    }
}
