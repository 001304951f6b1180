System.Console.WriteLine("ready");
return 0;
