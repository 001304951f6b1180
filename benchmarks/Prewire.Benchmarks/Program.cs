using BenchmarkDotNet.Running;

// dotnet run -c Release --project benchmarks/Prewire.Benchmarks -- --filter '*Pipeline*'
BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
