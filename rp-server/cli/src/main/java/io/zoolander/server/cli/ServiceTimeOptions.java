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

  @ArgGroup(exclusive = true, multiplicity = "1", heading = "Service time, exactly one of:%n")
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
        names = "--paired-samples",
        paramLabel = "FILE",
        description =
            "Paired per-duplicate latencies: a CSV with one row per access and one column per duplicate (ms),"
                + " an optional header row; the service time pools the columns and the duplicates'"
                + " dependence is fitted from the rows.")
    Path pairedSamples;

    @Option(
        names = "--example",
        description =
            "Use the thesis-like ZooKeeper write distribution (1 ms normal body, 0.5%% anomalies of ~100 ms).")
    boolean example;
  }

  private PairedSamples paired;

  LatencyDistribution serviceTime() {
    if (!(unitsPerMs > 0)) {
      throw CliException.usage("--units-per-ms must be > 0, was " + unitsPerMs);
    }
    if (source.example) {
      return TradeOff.thesisLikeWrites();
    }
    PairedSamples pairs = pairedSamples();
    return pairs != null ? pairs.pooled() : LatencySamples.read(source.samples, unitsPerMs);
  }

  /** The paired samples, read once; null unless {@code --paired-samples} was given. */
  PairedSamples pairedSamples() {
    if (paired == null && source.pairedSamples != null) {
      paired = PairedSamples.read(source.pairedSamples);
    }
    return paired;
  }

  String describe() {
    if (source.example) {
      return "example (thesis-like ZooKeeper writes)";
    }
    if (source.pairedSamples != null) {
      PairedSamples pairs = pairedSamples();
      return String.format(
          "%s, %d columns pooled (%d paired accesses)",
          source.pairedSamples, pairs.columns(), pairs.rows());
    }
    return String.valueOf(source.samples);
  }
}
