using System.Globalization;
using RabbitMQ.Client;

// Usage: CaptureDriver <amqp-uri-through-the-proxy>
// Publishes (with confirms) messages whose bodies sit on both sides of frame-max, with properties
// and headers, then consumes and acknowledges them: every frame the publisher and consumer paths use.
const uint FrameMax = 4096;
int[] sizes = [0, 1, (int)FrameMax - 9, (int)FrameMax - 8, (int)FrameMax - 7, (int)FrameMax - 1, (int)FrameMax, (int)FrameMax + 1, 20_000];

var factory = new ConnectionFactory
{
    Uri = new Uri(args[0]),
    RequestedFrameMax = FrameMax,
    RequestedHeartbeat = TimeSpan.FromSeconds(30),
    ClientProvidedName = "prewire-capture",
    AutomaticRecoveryEnabled = false,
};
await using var connection = await factory.CreateConnectionAsync();
await using var channel = await connection.CreateChannelAsync(new CreateChannelOptions(publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true));
const string Queue = "prewire.capture";
await channel.QueueDeclareAsync(Queue, durable: false, exclusive: true, autoDelete: true);
await channel.BasicQosAsync(0, 10, false);

for (var i = 0; i < sizes.Length; i++)
{
    var body = new byte[sizes[i]];
    for (var b = 0; b < body.Length; b++) body[b] = (byte)(b * 31 + i);
    var properties = new BasicProperties
    {
        ContentType = "application/octet-stream",
        DeliveryMode = DeliveryModes.Persistent,
        MessageId = $"m{i}",
        CorrelationId = "c",
        Timestamp = new AmqpTimestamp(1_790_000_000 + i),
        Headers = new Dictionary<string, object?>
        {
            ["size"] = sizes[i],
            ["name"] = "vector",
            ["flag"] = true,
            ["nested"] = new Dictionary<string, object?> { ["n"] = 1L },
            ["list"] = new List<object?> { "a", 2 },
        },
    };
    await channel.BasicPublishAsync("", Queue, mandatory: true, properties, body);
}

var received = 0;
var done = new TaskCompletionSource();
var consumer = new RabbitMQ.Client.Events.AsyncEventingBasicConsumer(channel);
consumer.ReceivedAsync += async (_, delivery) =>
{
    await channel.BasicAckAsync(delivery.DeliveryTag, multiple: false);
    if (++received == sizes.Length) done.TrySetResult();
};
var tag = await channel.BasicConsumeAsync(Queue, autoAck: false, consumerTag: "capture", consumer);
await done.Task.WaitAsync(TimeSpan.FromSeconds(30));
await channel.BasicCancelAsync(tag);
await channel.CloseAsync();
await connection.CloseAsync();
Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"published, consumed and acknowledged {received} messages"));
