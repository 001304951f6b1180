namespace Prewire.Amqp;

public sealed class AmqpUriTests
{
    [Theory]
    [InlineData("amqp://guest:guest@127.0.0.1:5672/", "127.0.0.1", 5672, "guest", "guest", "/", false)]
    [InlineData("amqp://127.0.0.1", "127.0.0.1", 5672, "guest", "guest", "/", false)]
    [InlineData("amqps://user:s%40cret@broker.example/orders", "broker.example", 5671, "user", "s@cret", "orders", true)]
    [InlineData("amqp://u:p@h:1234/%2F", "h", 1234, "u", "p", "/", false)]
    [InlineData("amqp://only-user@h/", "h", 5672, "only-user", "", "/", false)]
    public void Parse_takes_the_uri_apart(string text, string host, int port, string user, string password, string vhost, bool tls)
    {
        var uri = AmqpUri.Parse(text);
        Assert.Equal((host, port, user, password, vhost, tls), (uri.Host, uri.Port, uri.UserName, uri.Password, uri.VirtualHost, uri.IsTls));
    }

    [Theory]
    [InlineData("not a uri", "not an absolute URI")]
    [InlineData("http://guest:secret@127.0.0.1/", "scheme 'http'")]
    [InlineData("127.0.0.1:5672", "expected amqp://")]
    [InlineData(null, "not an absolute URI")]
    [InlineData("amqp://", "no host")]
    public void TryParse_says_what_is_wrong_and_never_echoes_the_text(string? text, string reason)
    {
        Assert.False(AmqpUri.TryParse(text, out _, out var error));
        Assert.Contains(reason, error, StringComparison.Ordinal);
        Assert.DoesNotContain("secret", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("amqp://user:secret@127.0.0.1:5672/vh", "amqp://127.0.0.1:5672/vh")]
    [InlineData("amqps://user:secret@broker.example/", "amqps://broker.example:5671/")]
    public void ToString_leaves_the_credentials_out(string text, string expected)
    {
        Assert.Equal(expected, AmqpUri.Parse(text).ToString());
    }
}
