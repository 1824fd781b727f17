package io.zoolander.server.plugin;

import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.PluginEndpoint;
import java.util.Optional;

/**
 * A read-only view of a running Zoolander plugin: what it has applied, where it listens, how many
 * retried writes it recognised and whether its anomaly injector is on. Every call returns the
 * latest published value without blocking; the values of separate calls may come from different
 * moments (use {@link #snapshot()} for a consistent set).
 */
public interface ZoolanderPluginView {

  /**
   * @return the duplicate this plugin serves
   */
  int duplicateId();

  /**
   * @return the highest repeater epoch this duplicate has recorded
   */
  default long epoch() {
    return snapshot().epoch();
  }

  /**
   * @return the seq of the last write applied (0 before the first)
   */
  default long appliedSeq() {
    return snapshot().appliedSeq();
  }

  /**
   * @return the plugin's state, as it reports it in STATUS
   */
  default DuplicateState state() {
    return snapshot().state();
  }

  /**
   * @return epoch, applied seq and state, taken together
   */
  Snapshot snapshot();

  /**
   * @return the published endpoint, empty until the plugin listens and after it stopped
   */
  Optional<PluginEndpoint> endpoint();

  /**
   * @return how many retried writes (a request id the client record says was applied already,
   *     sequenced again) this plugin recognised and did not apply again, since it started
   */
  long duplicateRequests();

  /**
   * @return the anomaly injector's settings in force, from the {@code <base>/anomaly} znode; {@link
   *     AnomalySettings#OFF} (not {@link AnomalySettings#enabled() enabled}) when the znode is
   *     absent or malformed
   */
  AnomalySettings anomalyInjector();

  /**
   * A consistent view of the applied state.
   *
   * @param epoch the highest repeater epoch recorded
   * @param appliedSeq the seq of the last applied write
   * @param state the plugin's state
   */
  record Snapshot(long epoch, long appliedSeq, DuplicateState state) {}
}
