using Prewire.Harness;

namespace Prewire.AotSmoke;

internal static class Rids
{
    public static readonly string[] All = ["linux-x64", "linux-arm64"];

    public static TheoryData<string, string> AppsByRid()
    {
        var data = new TheoryData<string, string>();
        foreach (var rid in All)
            foreach (var app in App.All)
                data.Add(app.Name, rid);
        return data;
    }

    public static TheoryData<string> Each() => new(All);
}
