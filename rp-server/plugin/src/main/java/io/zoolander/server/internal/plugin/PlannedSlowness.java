package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.wire.Message;
import io.zoolander.wire.WireSettings;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Announces planned slowness to the plugin's clients: when the server starts background work (a
 * snapshot), every connected client gets {@code PLANNED_SLOWNESS(duplicateId, maxDurationMs)} and
 * leaves this duplicate out of its read set; when the work ends, {@code
 * PLANNED_SLOWNESS(duplicateId, 0)}. A client that connects meanwhile is told too. The announced
 * maximum bounds how long a client keeps the duplicate out if the end is lost. Thread-safe: the
 * work's thread announces, Netty's event loop registers clients. Internal to the plugin.
 */
final class PlannedSlowness {

  private static final Logger LOG = LoggerFactory.getLogger(PlannedSlowness.class);

  /** Plugin setting: the longest background work announced, in ms; 0 announces nothing. */
  static final String MAX_MS_KEY = ZoolanderPluginConfig.PLANNED_SLOWNESS_MAX_MS_KEY;

  static final long MAX_MS_DEFAULT = ZoolanderPluginConfig.PLANNED_SLOWNESS_MAX_MS_DEFAULT;

  private final int duplicateId;
  private final long maxDurationMs;
  private final LongSupplier nanoTime;
  private int working; // background works in progress
  private long startedNanos;

  PlannedSlowness(int duplicateId, long maxDurationMs, LongSupplier nanoTime) {
    if (maxDurationMs < 0 || maxDurationMs > WireSettings.MAX_PLANNED_SLOWNESS_MS) {
      throw new IllegalArgumentException(
          "plannedSlownessMaxMs must be in 0.."
              + WireSettings.MAX_PLANNED_SLOWNESS_MS
              + ", was "
              + maxDurationMs);
    }
    this.duplicateId = duplicateId;
    this.maxDurationMs = maxDurationMs;
    this.nanoTime = nanoTime;
  }

  /**
   * @return the {@link #MAX_MS_KEY} setting of {@code properties}
   * @throws IllegalArgumentException if it is not an integer in range
   */
  static long maxDurationMs(Map<String, String> properties) {
    String value = properties.get(MAX_MS_KEY);
    if (value == null) {
      return MAX_MS_DEFAULT;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(MAX_MS_KEY + " must be an integer, was '" + value + "'");
    }
  }

  /** Background work {@code what} starts or ends; {@code clients} are told. */
  void backgroundWork(String what, boolean started, Collection<Channel> clients) {
    if (maxDurationMs == 0) {
      return;
    }
    Message announcement;
    synchronized (this) {
      if (started) {
        if (working++ > 0) {
          return;
        }
        startedNanos = nanoTime.getAsLong();
        announcement = new Message.PlannedSlowness(duplicateId, maxDurationMs);
      } else {
        if (working == 0 || --working > 0) {
          return;
        }
        announcement = new Message.PlannedSlowness(duplicateId, 0);
      }
    }
    LOG.debug(
        "Duplicate {}: {} {}; telling the clients",
        duplicateId,
        what,
        started ? "starts" : "ended");
    for (Channel client : clients) {
      send(client, announcement);
    }
  }

  /** A client connected: if work is in progress, it learns for how much longer at most. */
  void clientConnected(Channel client) {
    long left;
    synchronized (this) {
      if (working == 0) {
        return;
      }
      left = maxDurationMs - TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - startedNanos);
    }
    if (left > 0) {
      send(client, new Message.PlannedSlowness(duplicateId, left));
    }
  }

  private static void send(Channel channel, Message message) {
    if (channel.isActive()) {
      channel.writeAndFlush(message, channel.voidPromise());
    }
  }
}
