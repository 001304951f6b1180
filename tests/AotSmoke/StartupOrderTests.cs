using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// The apps' startup-order.txt (<c>IlcOrderFile</c>, build/NativeAot.props) lays the managed methods a
/// start runs out together: the default build's start without a broker runs its managed code in about
/// as few 64 KiB windows as that code can fill, each window a page fault of the file (docs/benchmarks.md,
/// "A start's code laid out together"). Traced natively; the arm64 builds take the same file.
/// </summary>
public sealed class StartupOrderTests(PublishedApps published)
{
    // Laid out in order, the consoles' starts ran in 5 and 6 windows where their methods fill 3, the
    // HttpEndpoint's in 19 where they fill 14: the block's two ends share windows with other code, a few
    // methods ILC places itself (its Main, runtime helpers) lie elsewhere, and some a start runs on some
    // days and not others (a thread-pool thread, a timer) are not in the file. Without the order: 43, 46
    // and 90. Half again and 3 more allows the first and catches a handful of methods gone astray.
    private static int AllowedWindows(StartupTraceResult trace) => trace.LeastWindows + (trace.LeastWindows / 2) + 3;

    public static TheoryData<string> EachApp => new(App.All.Select(a => a.Name).ToArray());

    [Theory]
    [MemberData(nameof(EachApp))]
    public async Task A_start_runs_its_managed_code_in_about_as_few_64_KiB_windows_as_it_fills(string appName)
    {
        var app = App.Named(appName);
        var rid = Repo.HostRid;
        Assert.True(StartupTrace.Traces(rid), "valgrind is not installed: build/bootstrap.sh installs it");
        var aot = await published.GetSucceededAsync(app, rid);

        var trace = await StartupTrace.RunAsync(aot, AppRuns.Arguments(app, null, out _), app.IsWeb);

        var order = Path.Combine(Repo.Root, app.ProjectDirectory, "startup-order.txt");
        var listed = File.Exists(order) ? File.ReadLines(order).ToHashSet(StringComparer.Ordinal) : [];
        var unlisted = trace.Methods.Where(m => !listed.Contains(m)).ToList();
        TestContext.Current.TestOutputHelper?.WriteLine($"{app} {rid}: {trace.Methods.Count} methods, {trace.CodeBytes:N0} B, run in {trace.CodeWindows} windows of 64 KiB (at least {trace.LeastWindows}, allowed {AllowedWindows(trace)}); {unlisted.Count} not in startup-order.txt: {string.Join(", ", unlisted.Take(10))}");
        Assert.True(trace.CodeWindows <= AllowedWindows(trace),
            $"{app}'s start ran its {trace.Methods.Count} managed methods ({trace.CodeBytes:N0} B) in {trace.CodeWindows} windows of 64 KiB where they fill {trace.LeastWindows} (allowed {AllowedWindows(trace)}); " +
            $"{unlisted.Count} of them are not in {app.ProjectDirectory}/startup-order.txt (the first: {string.Join(", ", unlisted.Take(5))}): run ./build.sh startup-order and commit what it writes");
    }
}
