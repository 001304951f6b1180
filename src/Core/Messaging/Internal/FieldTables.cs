using System.Globalization;
using System.Text;

namespace Prewire.Messaging.Internal;

/// <summary>Delivered AMQP field tables back into the pipeline's string headers.</summary>
internal static class FieldTables
{
    // RabbitMQ.Client hands long strings back as byte[]; other field types are rendered invariantly.
    public static Dictionary<string, string> ToHeaders(IDictionary<string, object?>? table)
    {
        var headers = new Dictionary<string, string>(StringComparer.Ordinal);
        if (table is null) return headers;
        foreach (var (key, value) in table)
        {
            // Our publisher's own tag on a mandatory publish (to match a basic.return to it), not the message's.
            if (key == Amqp.AmqpPublisher.SequenceHeader) continue;
            headers[key] = value switch
            {
                null => "",
                byte[] bytes => Encoding.UTF8.GetString(bytes),
                IFormattable formattable => formattable.ToString(null, CultureInfo.InvariantCulture),
                _ => value.ToString() ?? "",
            };
        }
        return headers;
    }
}
