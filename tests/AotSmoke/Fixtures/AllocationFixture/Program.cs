using Prewire.Amqp;

// Prewire.AllocationFixture <amqp-uri>: one line per body size, "bodySize=B short=S long=L"
// (bytes allocated process-wide by 1,000 and 5,000 confirmed publishes; see PublishAllocations).
if (args.Length != 1 || !Uri.TryCreate(args[0], UriKind.Absolute, out var uri))
{
    Console.Error.WriteLine("usage: Prewire.AllocationFixture <amqp-uri>");
    return 2;
}

foreach (var bodySize in new[] { 256, 300_000 })
{
    await using var publisher = await AmqpPublisher.ConnectAsync(new AmqpPublisherOptions { Uri = uri, ClientName = "prewire-allocation-fixture" });
    var (shortWindow, longWindow) = await PublishAllocations.MeasureAsync(publisher, bodySize);
    Console.WriteLine($"bodySize={bodySize} short={shortWindow} long={longWindow}");
}
return 0;
