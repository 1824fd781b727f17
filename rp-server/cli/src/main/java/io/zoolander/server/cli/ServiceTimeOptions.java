package io.zoolander.server.cli;

import io.zoolander.model.LatencyDistribution;
import io.zoolander.model.TradeOff;
import java.nio.file.Path;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * Where a command takes the service-time distribution from: a sample file or the built-in example.
 */
final class ServiceTimeOptions {

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  @Option(
      names = "--units-per-ms",
      defaultValue = "1000",
      description =
          "Units per millisecond of an HdrHistogram log's values (default: ${DEFAULT-VALUE}, microseconds).")
  double unitsPerMs;

  static final class Source {
    @Option(
        names = "--samples",
        paramLabel = "FILE",
        description = "Service-time samples: one value in ms per line, or an HdrHistogram log.")
    Path samples;

    @Option(
        names = "--example",
        description =
            "Use the thesis-like ZooKeeper write distribution (1 ms normal body, 0.5%% anomalies of ~100 ms).")
    boolean example;
  }

  LatencyDistribution serviceTime() {
    if (!(unitsPerMs > 0)) {
      throw new CliException("--units-per-ms must be > 0, was " + unitsPerMs);
    }
    return source.example
        ? TradeOff.thesisLikeWrites()
        : LatencySamples.read(source.samples, unitsPerMs);
  }

  String describe() {
    return source.example ? "example (thesis-like ZooKeeper writes)" : source.samples.toString();
  }
}
