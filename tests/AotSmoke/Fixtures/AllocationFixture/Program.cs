using System.Globalization;
using Prewire.Amqp;

// Prewire.AllocationFixture <amqp-uri> [scale]: one line per case,
// "bodySize=B publishers=P more=N short=S long=L allowance=A": bytes allocated process-wide by the short
// and the long window of confirmed publishes (see PublishAllocations), N publishes apart. A scale
// divides the windows (arm64 under qemu runs a fifth).
if (args.Length is < 1 or > 2 || !AmqpUri.TryParse(args[0], out var uri, out _)
    || !int.TryParse(args.Length == 2 ? args[1] : "1", NumberStyles.None, CultureInfo.InvariantCulture, out var scale) || scale < 1)
{
    Console.Error.WriteLine("usage: Prewire.AllocationFixture <amqp-uri> [scale]");
    return 2;
}

foreach (var (bodySize, publishers) in new[] { (256, 1), (300_000, 1), (256, 16) })
{
    await using var publisher = await AmqpPublisher.ConnectAsync(new AmqpPublisherOptions { Uri = uri, Channels = publishers, ClientName = "prewire-allocation-fixture" });
    var (shortWindow, longWindow) = await PublishAllocations.MeasureAsync(publisher, bodySize, publishers, scale);
    var more = (PublishAllocations.LongCount - PublishAllocations.ShortCount) / scale;
    Console.WriteLine($"bodySize={bodySize} publishers={publishers} more={more} short={shortWindow} long={longWindow} allowance={PublishAllocations.Allowance(publishers)}");
}
return 0;
