using System.Net;
using System.Net.Http.Headers;
using System.Text.Json;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// The NativeAOT apps' telemetry, read back from what their OTLP exporters sent to a receiver the test
/// runs (<see cref="OtlpReceiver"/>): one trace from an HTTP POST to the Consumer's handler (Kestrel's
/// request span, the HttpEndpoint's publish span as its child, the Consumer's process span as the
/// publish span's child, with the messaging conventions' attributes; a dead letter's span failed), and
/// the conventions' messaging metrics from both consoles.
/// </summary>
public sealed class TelemetryTests(PublishedApps published)
{
    public static TheoryData<string, string> EachWithEachClient => Rids.EachWithEachClient();

    public static TheoryData<string> EachRid => Rids.Each();

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task Both_consoles_export_the_messaging_metrics_with_the_conventions_names_and_units(string rid)
    {
        await using var otlp = new OtlpReceiver();
        var (queue, count) = ($"aotsmoke.metrics.{rid}.{Guid.NewGuid():N}", Rids.Scaled(rid, 200));
        var apps = new BrokerApps(published, rid, TestBroker.Uri.ToString()) { Environment = otlp.Environment() };
        await apps.PublishAsync(queue, count, "--concurrency", "4");
        await apps.ConsumeAsync(queue, count);

        // Cumulative: each series' last point is its total, sent when the app exited.
        await otlp.WaitForAsync(_ => otlp.MetricPoints.Any(p => p.ServiceName == "prewire-consumer"), TimeSpan.FromSeconds(10));
        string Total(string service, string name) => otlp.MetricPoints.LastOrDefault(p => p.ServiceName == service && p.Name == name) is { } last
            ? $"{last.Type} {last.Unit} {(last.Type == "histogram" ? last.Count : last.Value)} {last.Attribute("messaging.system")} {last.Attribute("messaging.operation.name")}"
            : $"no {name} from {service}";
        Assert.Equal(
            [$"sum {{message}} {count} rabbitmq publish", $"histogram s {count} rabbitmq publish", $"sum {{message}} {count} rabbitmq deliver", $"histogram s {count} rabbitmq process"],
            [Total("prewire-publisher", "messaging.client.sent.messages"), Total("prewire-publisher", "messaging.client.operation.duration"),
             Total("prewire-consumer", "messaging.client.consumed.messages"), Total("prewire-consumer", "messaging.process.duration")]);
    }

    [Theory]
    [MemberData(nameof(EachWithEachClient))]
    public async Task A_POST_is_one_trace_from_the_request_through_the_publish_to_the_handler(string rid, string client)
    {
        var ct = TestContext.Current.CancellationToken;
        await using var otlp = new OtlpReceiver();
        var queue = $"aotsmoke.trace.{rid}.{client}.{Guid.NewGuid():N}";
        // Under qemu one message, handled; on the host a poison one as well, dead-lettered.
        string[] texts = Qemu.Emulates(rid) ? ["hello"] : ["hello", "poison pill"];
        var ids = new List<string>();
        await using (var endpoint = await HttpIngressTests.StartAsync(published, rid, TestBroker.Uri.ToString(), queue, Rids.ClientArguments(client), otlp.Environment()))
        {
            foreach (var text in texts)
            {
                // The Consumer reads the samples' text format: its content type, or the message is malformed.
                using var content = new StringContent(text, MediaTypeHeaderValue.Parse("text/plain; charset=utf-8"));
                using var response = await endpoint.Http.PostAsync(new Uri("messages/note", UriKind.Relative), content, ct);
                Assert.Equal(HttpStatusCode.Accepted, response.StatusCode);
                ids.Add(JsonDocument.Parse(await response.Content.ReadAsStringAsync(ct)).RootElement.GetProperty("id").GetString()!);
            }
            // Stopped as a container runtime stops it: what it traced is sent before it exits.
            endpoint.Process.Terminate();
            Assert.Equal(0, await endpoint.Process.WaitForExitAsync(AppRuns.ExitTimeout(rid)));
        }

        var apps = new BrokerApps(published, rid, TestBroker.Uri.ToString()) { Environment = otlp.Environment() };
        var consumed = await apps.ConsumeAsync(queue, texts.Length, [.. Rids.ClientArguments(client), "--poison", "poison", "--max-attempts", "1"]);
        Assert.Equal(texts.Length - 1, BrokerApps.ConsumerReported(consumed, "deadLettered"));

        var spans = await otlp.WaitForAsync(s => s.Count(span => span.Kind == OtlpSpanKind.Consumer) == texts.Length, TimeSpan.FromSeconds(10));
        for (var i = 0; i < texts.Length; i++)
        {
            var id = ids[i];
            var publish = One(spans, s => s.Kind == OtlpSpanKind.Producer && s.Attribute("messaging.message.id") == id, $"the publish span of {id}");
            var request = One(spans, s => s.SpanId == publish.ParentSpanId, $"the publish span's parent, {publish.ParentSpanId}");
            var process = One(spans, s => s.Kind == OtlpSpanKind.Consumer && s.Attribute("messaging.message.id") == id, $"the process span of {id}");
            Assert.Equal((OtlpSpanKind.Server, "prewire-httpendpoint", "Microsoft.AspNetCore", ""), (request.Kind, request.ServiceName, request.Scope, request.ParentSpanId));
            Assert.Equal(("POST", "/messages/note", "202"), (request.Attribute("http.request.method"), request.Attribute("url.path"), request.Attribute("http.response.status_code")));
            Assert.Equal((request.TraceId, "prewire-httpendpoint", "Prewire.Messaging"), (publish.TraceId, publish.ServiceName, publish.Scope));
            Assert.Equal((publish.TraceId, publish.SpanId, "prewire-consumer", $"process {queue}"), (process.TraceId, process.ParentSpanId, process.ServiceName, process.Name));
            Assert.Equal(("rabbitmq", "send", "publish", queue), (publish.Attribute("messaging.system"), publish.Attribute("messaging.operation.type"),
                publish.Attribute("messaging.operation.name"), publish.Attribute("messaging.rabbitmq.destination.routing_key")));
            Assert.Equal(("rabbitmq", "process", queue), (process.Attribute("messaging.system"), process.Attribute("messaging.operation.type"), process.Attribute("messaging.destination.name")));
            // OTLP status codes: 0 unset, 2 error.
            Assert.Equal(texts[i].Contains("poison", StringComparison.Ordinal) ? (2, "System.InvalidOperationException", 1) : (0, "", 0),
                (process.StatusCode, process.Attribute("error.type"), process.Events.Count(e => e == "exception")));
        }
    }

    [Fact]
    public async Task A_real_Prometheus_scrapes_the_HttpEndpoint_and_PromQL_returns_its_counts_under_its_service_name()
    {
        var ct = TestContext.Current.CancellationToken;
        var queue = $"aotsmoke.prometheus.{Guid.NewGuid():N}";
        await using var endpoint = await HttpIngressTests.StartAsync(published, Repo.HostRid, TestBroker.Uri.ToString(), queue, []);
        await using var prometheus = await PrometheusServer.StartAsync(endpoint.Address.Authority, "prewire");
        for (var i = 0; i < 5; i++)
        {
            using var content = new StringContent($"message {i}", MediaTypeHeaderValue.Parse("text/plain; charset=utf-8"));
            using var accepted = await endpoint.Http.PostAsync(new Uri("messages/note", UriKind.Relative), content, ct);
            Assert.Equal(HttpStatusCode.Accepted, accepted.StatusCode);
        }
        using (var invalid = await endpoint.Http.PostAsync(new Uri("messages/no%20spaces", UriKind.Relative), new ByteArrayContent([1]), ct))
            Assert.Equal(HttpStatusCode.BadRequest, invalid.StatusCode);

        // The resource's service name is on target_info (the OpenTelemetry exporter's way), joined in by job and instance.
        var accepted5 = await prometheus.WaitForAsync("prewire_ingress_accepted_total * on (job, instance) group_left (service_name) target_info",
            result => result.Count == 1 && result[0].Value == 5, TimeSpan.FromSeconds(30));
        var series = Assert.Single(accepted5);
        Assert.Equal((5.0, "prewire-httpendpoint", "prewire"), (series.Value, series.Labels.GetValueOrDefault("service_name"), series.Labels.GetValueOrDefault("job")));
        var rejected = await prometheus.WaitForAsync("prewire_ingress_rejected_total", result => result.Count == 1, TimeSpan.FromSeconds(10));
        Assert.Equal((1.0, "invalid-type"), (Assert.Single(rejected).Value, Assert.Single(rejected).Labels.GetValueOrDefault("reason")));
        var sent = await prometheus.QueryAsync("sum by (messaging_operation_name, messaging_destination_name) (messaging_client_sent_messages_total)");
        Assert.Equal((5.0, "publish"), (Assert.Single(sent).Value, Assert.Single(sent).Labels.GetValueOrDefault("messaging_operation_name")));
    }

    private static OtlpSpan One(IReadOnlyList<OtlpSpan> spans, Func<OtlpSpan, bool> match, string what)
    {
        var found = spans.Where(match).ToList();
        Assert.True(found.Count == 1, $"{found.Count} spans are {what}; received {spans.Count}:\n" + string.Join("\n", spans.Select(s =>
            $"  {s.ServiceName} {s.Scope} {s.Kind} '{s.Name}' trace {s.TraceId} span {s.SpanId} parent {s.ParentSpanId} status {s.StatusCode} [{string.Join(", ", s.Attributes.Select(a => $"{a.Key}={a.Value}"))}]")));
        return found[0];
    }
}
