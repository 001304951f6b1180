using Prewire.Amqp;

// Prewire.AllocationFixture <amqp-uri>: one line per case, "bodySize=B publishers=P short=S long=L tolerance=T"
// (bytes allocated process-wide by 1,000 and 5,000 confirmed publishes; see PublishAllocations).
if (args.Length != 1 || !Uri.TryCreate(args[0], UriKind.Absolute, out var uri))
{
    Console.Error.WriteLine("usage: Prewire.AllocationFixture <amqp-uri>");
    return 2;
}

foreach (var (bodySize, publishers) in new[] { (256, 1), (300_000, 1), (256, 16) })
{
    await using var publisher = await AmqpPublisher.ConnectAsync(new AmqpPublisherOptions { Uri = uri, Channels = publishers, ClientName = "prewire-allocation-fixture" });
    var (shortWindow, longWindow) = await PublishAllocations.MeasureAsync(publisher, bodySize, publishers);
    Console.WriteLine($"bodySize={bodySize} publishers={publishers} short={shortWindow} long={longWindow} tolerance={PublishAllocations.Tolerance(publishers)}");
}
return 0;
