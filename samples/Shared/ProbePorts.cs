namespace Prewire.Samples;

/// <summary>An app's probe ports (<see cref="ProbeOptions"/>): liveness open from the start, readiness as the app says.</summary>
public sealed class ProbePorts : IDisposable
{
    private readonly ProbePort? _liveness;
    private readonly ProbePort? _readiness;

    internal ProbePorts(ProbePort? liveness, ProbePort? readiness) => (_liveness, _readiness) = (liveness, readiness);

    /// <summary>Opens the readiness port (ready) or closes it (not ready).</summary>
    /// <exception cref="AppException">The port could not be listened on.</exception>
    public void SetReady(bool ready) => _readiness?.SetOpen(ready);

    /// <summary>Closes both ports: first readiness, so nothing new is sent here, then liveness.</summary>
    public void Dispose()
    {
        _readiness?.Dispose();
        _liveness?.Dispose();
    }
}
