using System.Diagnostics;

namespace Prewire.Messaging.Internal;

/// <summary>The attributes every messaging span and measurement carries, one definition for both (the conventions' names, RabbitMQ's values).</summary>
internal static class MessagingAttributes
{
    /// <summary>System, operation type and name, destination, and <c>error.type</c> when <paramref name="error"/> is given.</summary>
    public static TagList Of(string operationType, string operationName, string destination, Exception? error)
    {
        var tags = new TagList
        {
            { "messaging.system", "rabbitmq" },
            { "messaging.operation.type", operationType },
            { "messaging.operation.name", operationName },
            { "messaging.destination.name", destination },
        };
        if (error is not null) tags.Add("error.type", error.GetType().FullName);
        return tags;
    }
}
