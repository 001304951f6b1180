using Prewire.Samples;

// What every NativeAOT process here pays before its first line, and nothing more: the clock and
// the ready line exactly as the apps start and print them.
StartupClock.Start();
ReadyLine.Write(Console.Out);
return 0;
