using System.IO.Pipelines;

namespace Prewire.Amqp.Internal;

/// <summary>
/// Frames for <see cref="ConnectionWriter"/>, written in the writer's turn. An interface, not a generic
/// state: one async write method serves every kind of frame (a generic one was an async state machine
/// and a box pool per kind, 147 KB more in every app and 2.3 % more instructions at start-up).
/// </summary>
internal interface IFrameSource
{
    /// <summary>Writes the frames into <paramref name="output"/>; throws, writing nothing, when they must not go out (the channel is closed).</summary>
    void WriteFrames(PipeWriter output);
}
