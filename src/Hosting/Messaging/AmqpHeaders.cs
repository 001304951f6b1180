using System.Text;

namespace Prewire.Hosting.Messaging;

/// <summary>Headers between the pipeline's string dictionary and AMQP field tables.</summary>
internal static class AmqpHeaders
{
    public static Dictionary<string, object?> ToAmqp(IReadOnlyDictionary<string, string> headers)
    {
        var table = new Dictionary<string, object?>(headers.Count, StringComparer.Ordinal);
        foreach (var (key, value) in headers) table[key] = value;
        return table;
    }

    // RabbitMQ.Client hands long strings back as byte[]; other field types are rendered invariantly.
    public static Dictionary<string, string> FromAmqp(IDictionary<string, object?>? table)
    {
        var headers = new Dictionary<string, string>(StringComparer.Ordinal);
        if (table is null) return headers;
        foreach (var (key, value) in table)
        {
            headers[key] = value switch
            {
                null => "",
                byte[] bytes => Encoding.UTF8.GetString(bytes),
                IFormattable formattable => formattable.ToString(null, System.Globalization.CultureInfo.InvariantCulture),
                _ => value.ToString() ?? "",
            };
        }
        return headers;
    }
}
