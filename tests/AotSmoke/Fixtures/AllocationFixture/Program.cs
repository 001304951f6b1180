using System.Globalization;
using Prewire.Amqp;

// Prewire.AllocationFixture <amqp-uri> [scale]: one line per case,
// "bodySize=B publishers=P more=N short=S long=L allowance=A": bytes allocated process-wide by the short
// and the long window of confirmed publishes (see PublishAllocations), N publishes apart; then
// "consume bodySize=B concurrency=C more=N short=S long=L": the same for messages published, consumed
// and acked on a second connection (see ConsumeAllocations). A scale divides the windows (arm64 under
// qemu runs a fifth).
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

foreach (var (bodySize, concurrency) in new[] { (256, 1), (300_000, 1), (256, 8) })
{
    var options = new AmqpConnectionOptions { Uri = uri, ClientName = "prewire-allocation-fixture" };
    await using var publishing = await AmqpConnection.ConnectAsync(options);
    await using var consuming = await AmqpConnection.ConnectAsync(options);
    var queue = (await publishing.DeclareQueueAsync("", durable: false, autoDelete: true)).Queue;
    await using var publisher = await AmqpPublisher.OpenAsync(publishing);
    var measure = new ConsumeAllocations(publisher, queue);
    await using var consumer = await AmqpConsumer.StartAsync(consuming, new AmqpConsumerOptions { Queue = queue, Concurrency = concurrency }, measure.Handle);
    var (shortWindow, longWindow) = await measure.MeasureAsync(bodySize, scale);
    var more = (ConsumeAllocations.LongCount - ConsumeAllocations.ShortCount) / scale;
    Console.WriteLine($"consume bodySize={bodySize} concurrency={concurrency} more={more} short={shortWindow} long={longWindow}");
}
return 0;
