using System.Runtime.InteropServices;

namespace Prewire.Samples;

public sealed class StopSignalsTests
{
    [Fact]
    public void A_signal_cancels_the_token_and_keeps_the_process()
    {
        using var signals = new StopSignals();
        var signal = new PosixSignalContext(PosixSignal.SIGTERM);

        signals.Stop(signal);

        Assert.True(signals.Token.IsCancellationRequested);
        Assert.True(signal.Cancel);
    }

    [Fact]
    public void A_signal_handled_after_the_run_ended_does_not_throw()
    {
        // The runtime hands a signal to every handler registered when it arrived, on a thread of its
        // own, however late: the web host's handler can stop the app and the app end before this one runs.
        var signals = new StopSignals();
        var token = signals.Token;
        signals.Dispose();
        var signal = new PosixSignalContext(PosixSignal.SIGTERM);

        signals.Stop(signal);

        Assert.True(token.IsCancellationRequested);
        Assert.True(signal.Cancel);
    }
}
