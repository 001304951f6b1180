using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;

namespace Prewire.Build;

/// <summary>
/// How a binary of a RID starts here (natively, or under qemu for linux-arm64 on an x64 host) and
/// where its start ends: the first output line matching <see cref="Ready"/>, at which it is sent
/// SIGTERM, or its exit when there is no pattern.
/// </summary>
internal sealed record StartupCommand(string Binary, IReadOnlyList<string> Args, Regex? Ready, string Rid)
{
    /// <summary>Whether the RID's binaries run under qemu here.</summary>
    public bool Emulated => Rid != HostRid;

    public static string HostRid => RuntimeInformation.OSArchitecture switch
    {
        Architecture.X64 => "linux-x64",
        Architecture.Arm64 => "linux-arm64",
        var other => $"linux-{other.ToString().ToLowerInvariant()}",
    };

    /// <summary>The command line that starts it, under <paramref name="launcher"/> if given (valgrind, nice).</summary>
    public ProcessStartInfo StartInfo(IReadOnlyList<string>? launcher = null)
    {
        IReadOnlyList<string> line = [.. launcher ?? [], .. Emulator(), Binary, .. Args];
        var start = new ProcessStartInfo(line[0]) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in line.Skip(1)) start.ArgumentList.Add(arg);
        return start;
    }

    private IReadOnlyList<string> Emulator()
    {
        if (!Emulated) return [];
        if (Rid != "linux-arm64" || HostRid != "linux-x64")
            throw new GateException($"{Rid} binaries cannot start on this {HostRid} host; publish with -p:PrewireStartupGate=false for this RID");
        var qemu = StartupInstruments.Qemu
            ?? throw new GateException("linux-arm64 binaries start here under qemu, which is not installed (Debian: qemu-user-static); or publish with -p:PrewireStartupGate=false for this RID");
        return Directory.Exists(StartupInstruments.Arm64SysRoot) ? [qemu, "-L", StartupInstruments.Arm64SysRoot] : [qemu];
    }
}

/// <summary>A start the gate could not measure (what to install, or how to turn the gate off); the publish fails with it.</summary>
internal sealed class GateException(string message) : Exception(message);
