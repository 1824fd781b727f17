package io.zoolander.server.cli;

import io.zoolander.model.LatencyDistribution;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Inputs every model command takes: the service-time source, tau and the network delay (a picocli
 * mixin).
 */
final class ModelInputs {

  // A mixin, not a group around the source's exclusive group: picocli 4.7 lists the options of a
  // group nested in another twice in the help.
  @Mixin ServiceTimeOptions service;

  @Option(
      names = "--tau-ms",
      description = "SLA bound tau in ms (default: twice the mean service time).")
  Double tauMs;

  @Option(
      names = "--network-ms",
      defaultValue = "0",
      description = "Round-trip network delay in ms (default: 0).")
  double networkMs;

  private LatencyDistribution serviceTime;

  /** The service-time distribution, read once. */
  LatencyDistribution serviceTime() {
    if (serviceTime == null) {
      serviceTime = service.serviceTime();
    }
    return serviceTime;
  }

  double tauMs() {
    return tauMs != null ? Options.nonNegative(tauMs, "--tau-ms") : 2 * serviceTime().meanMs();
  }

  double networkMs() {
    return Options.nonNegative(networkMs, "--network-ms");
  }

  /** The paired per-duplicate samples; null unless {@code --paired-samples} was given. */
  PairedSamples pairedSamples() {
    return service.pairedSamples();
  }

  String describe() {
    return service.describe();
  }
}
