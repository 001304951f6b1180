using System.Buffers.Binary;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// The consoles built with <c>-p:PrewireFastStart=true</c> (build/NativeAot.props): an executable linked at
/// a fixed address whose type structures are stored expanded, so nothing is expanded or relocated
/// before <c>Main</c>; counted against the default build, and moving messages on both RIDs.
/// </summary>
public sealed class FastStartTests(PublishedApps published)
{
    // ELF e_type (offset 16): 2 for an executable at a fixed address, 3 for a position-independent one.
    private const ushort FixedAddressExecutable = 2;

    public static TheoryData<string> EachRid => Rids.Each();

    [Fact]
    public async Task Built_for_a_fast_start_the_Publisher_loads_at_a_fixed_address_on_under_half_the_instructions()
    {
        var rid = Repo.HostRid;
        var app = App.Publisher;
        var fast = await published.GetSucceededAsync(app, rid, PublishMode.AotFastStart);
        var plain = await published.GetSucceededAsync(app, rid);
        Assert.Equal(FixedAddressExecutable, ElfType(fast.ExecutablePath));
        Assert.DoesNotContain(fast.TrimWarnings, w => !w.IsPackage);

        // The default build spends two thirds of this start expanding its type structures (11.96 M
        // instructions against 3.85 M, docs/benchmarks.md): a fast-start build that expands them again
        // lands near the default's count, far above half of it.
        var args = AppRuns.Arguments(app, null, out _);
        var fastCount = await Cachegrind.CountAsync(fast.ExecutablePath, rid, args, app.IsWeb);
        var plainCount = await Cachegrind.CountAsync(plain.ExecutablePath, rid, args, app.IsWeb);
        TestContext.Current.TestOutputHelper?.WriteLine($"{app} {rid}: {fastCount:N0} instructions to start built for a fast start ({fast.Size:N0} B), {plainCount:N0} as a plain publish builds it ({plain.Size:N0} B)");
        Assert.True(2 * fastCount < plainCount, $"{app} built for a fast start executed {fastCount:N0} instructions to start, the default build {plainCount:N0}: is it expanding its type structures again (IlcDehydrate, build/NativeAot.props)?");
    }

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task Built_for_a_fast_start_the_Publisher_and_Consumer_move_every_message_through_the_broker(string rid)
    {
        var queue = $"prewire.fast-start.{rid}.{Guid.NewGuid():N}";
        var count = Rids.Scaled(rid, 2_000);
        var broker = TestBroker.Uri.ToString();
        var consumer = await published.GetSucceededAsync(App.Consumer, rid, PublishMode.AotFastStart);
        Assert.Equal(FixedAddressExecutable, ElfType(consumer.ExecutablePath));
        var apps = new BrokerApps(published, rid, broker) { Mode = PublishMode.AotFastStart };

        await apps.PublishAsync(queue, count, "--concurrency", "8");
        // Read from the queue itself, by a client not written here.
        Assert.Equal(count, await Pika.CountAsync(broker, queue));
        await apps.ConsumeAsync(queue, count, "--concurrency", "4");
        Assert.Equal(0, await Pika.CountAsync(broker, queue));
        Assert.Equal(0, await Pika.CountAsync(broker, $"{queue}.dead-letter"));
    }

    private static ushort ElfType(string executable)
    {
        Span<byte> header = stackalloc byte[18];
        using var file = File.OpenRead(executable);
        file.ReadExactly(header);
        return BinaryPrimitives.ReadUInt16LittleEndian(header[16..]);
    }
}
