package io.zoolander.server.internal.plugin;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.zoolander.server.jmx.MeterNames;
import io.zoolander.server.plugin.ZoolanderPluginView;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One plugin's meters ({@link MeterNames}), tagged with its duplicate and server. The plugin has no
 * builder (ZooKeeper creates it from {@code zoo.cfg}), so they go to Micrometer's {@link
 * Metrics#globalRegistry}: a no-op until a registry is added to it, as {@code zoolander server}
 * does with a JMX registry. Removed when the plugin stops. Internal.
 */
final class PluginMeters implements AutoCloseable {
  private final MeterRegistry registry;
  private final Tags tags;
  private final List<Meter> meters = new ArrayList<>();
  private final Timer applyLatency;
  private final Counter tlsFailures;
  private final Counter authFailures;

  PluginMeters(MeterRegistry registry, int duplicateId, long serverId) {
    this.registry = registry;
    this.tags =
        Tags.of(
            MeterNames.TAG_DUPLICATE,
            Integer.toString(duplicateId),
            MeterNames.TAG_SERVER,
            Long.toString(serverId));
    applyLatency =
        add(
            Timer.builder(MeterNames.PLUGIN_APPLY_LATENCY)
                .tags(tags)
                .description(
                    "Per applied write: the ZooKeeper multi that applied it with its bookkeeping (a batch's multi once per write in it)")
                .register(registry));
    tlsFailures =
        add(
            Counter.builder(MeterNames.PLUGIN_SECURITY_FAILURES)
                .tags(tags)
                .tag(MeterNames.TAG_KIND, "tls")
                .description("Connections refused for TLS (a failed handshake) or authentication")
                .register(registry));
    authFailures =
        add(
            Counter.builder(MeterNames.PLUGIN_SECURITY_FAILURES)
                .tags(tags)
                .tag(MeterNames.TAG_KIND, "auth")
                .register(registry));
  }

  /** Meters that record nowhere: for an applier without a plugin around it. */
  static PluginMeters none() {
    return new PluginMeters(new CompositeMeterRegistry(), -1, -1);
  }

  /** Adds the gauges over the plugin's applied state. */
  void watch(ZoolanderPluginView plugin) {
    add(
        Gauge.builder(MeterNames.PLUGIN_APPLIED_SEQ, plugin, p -> p.snapshot().appliedSeq())
            .tags(tags)
            .description("The seq of the last write applied")
            .register(registry));
    add(
        Gauge.builder(MeterNames.PLUGIN_EPOCH, plugin, p -> p.snapshot().epoch())
            .tags(tags)
            .description("The highest repeater epoch recorded")
            .register(registry));
  }

  /**
   * Adds the counters of the in-process data path: reads the applier did not have to answer, multis
   * submitted in-process, the applier's lookups answered from the tree. (Micrometer holds the
   * applier weakly: the plugin keeps it.)
   */
  void watchDataPath(Applier applier) {
    add(
        FunctionCounter.builder(
                MeterNames.PLUGIN_MULTIS_LOCAL, applier, a -> (double) a.multisInProcess())
            .tags(tags)
            .description("Multis submitted in-process into the leader's request pipeline")
            .register(registry));
    add(
        FunctionCounter.builder(
                MeterNames.PLUGIN_READS_DIRECT, applier, a -> (double) a.readsServedOnEventLoop())
            .tags(tags)
            .description(
                "Client reads answered on their connection's event loop from the in-memory tree")
            .register(registry));
    add(
        FunctionCounter.builder(
                MeterNames.PLUGIN_LOOKUPS_LOCAL, applier, a -> (double) a.lookupsFromTree())
            .tags(tags)
            .description(
                "The applier's lookups before a write (predicted results' stats, client records)"
                    + " answered from the in-memory tree")
            .register(registry));
  }

  /** Adds the counter of writes to the data root that did not come through the stream. */
  void watchForeignWrites(Applier applier) {
    add(
        FunctionCounter.builder(
                MeterNames.PLUGIN_WRITES_FOREIGN, applier, a -> (double) a.foreignWrites())
            .tags(tags)
            .description(
                "Writes to the data root by ZooKeeper sessions other than the plugin's (each one"
                    + " fences the duplicate)")
            .register(registry));
  }

  /** Adds the gauge of armed watches and the counter of watch events sent. */
  void watchWatches(Applier applier) {
    add(
        Gauge.builder(MeterNames.PLUGIN_WATCHES, applier, a -> a.watchesArmed())
            .tags(tags)
            .description("Watches clients have armed on this duplicate")
            .register(registry));
    add(
        FunctionCounter.builder(
                MeterNames.PLUGIN_WATCH_EVENTS, applier, a -> (double) a.watchEventsSent())
            .tags(tags)
            .description("Watch events sent to clients (RESYNC included)")
            .register(registry));
  }

  private <M extends Meter> M add(M meter) {
    meters.add(meter);
    return meter;
  }

  void applied(long nanos) {
    applyLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  void tlsFailure() {
    tlsFailures.increment();
  }

  void authFailure() {
    authFailures.increment();
  }

  @Override
  public void close() {
    meters.forEach(registry::remove);
    meters.clear();
  }
}
