package io.zoolander.client.internal;

import io.zoolander.wire.ActiveRepeater;
import io.zoolander.wire.Znodes;
import io.zoolander.wire.internal.RecordWatcher;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the active repeater through the duplicates: watches its record ({@link
 * Znodes#activeRepeater()}, published by a repeater running with automatic failover) in every
 * duplicate the client knows by connect string, and points the repeater link at the newest one
 * (highest epoch), ahead of the statically configured addresses, which stay as alternates. A
 * repeater that takes over publishes a higher epoch, so clients move to it without trying dead
 * addresses first.
 */
final class RepeaterDiscovery {
  private static final Logger LOG = LoggerFactory.getLogger(RepeaterDiscovery.class);

  private final PeerLink link;
  private final List<InetSocketAddress> configured;
  private final List<RecordWatcher<ActiveRepeater>> watchers = new ArrayList<>();
  private long newestEpoch;

  /**
   * @param configured the addresses given to the builder, tried after the discovered one
   */
  RepeaterDiscovery(PeerLink link, List<InetSocketAddress> configured) {
    this.link = link;
    this.configured = List.copyOf(configured);
  }

  /** Starts watching the record in every duplicate known by connect string. */
  void start(ClientSettings settings) throws IOException {
    for (DuplicateTarget target : settings.duplicates()) {
      if (target.connectString() == null) {
        continue;
      }
      RecordWatcher<ActiveRepeater> watcher =
          new RecordWatcher<>(
              target.connectString(),
              settings.znodes().activeRepeater(),
              settings.sessionTimeoutMs(),
              ActiveRepeater::decode,
              record -> record.ifPresent(this::found));
      watchers.add(watcher);
      watcher.start();
    }
  }

  /** A record read in some duplicate: follow it if it is newer than any seen. */
  void found(ActiveRepeater record) {
    List<InetSocketAddress> targets = new ArrayList<>();
    synchronized (this) {
      if (record.epoch() <= newestEpoch) {
        return;
      }
      newestEpoch = record.epoch();
    }
    InetSocketAddress discovered =
        InetSocketAddress.createUnresolved(record.clientHost(), record.clientPort());
    targets.add(discovered);
    for (InetSocketAddress a : configured) {
      if (!a.equals(discovered)) {
        targets.add(a);
      }
    }
    LOG.info("repeater epoch {} discovered at {}", record.epoch(), discovered);
    link.targets(targets);
  }

  /**
   * Closes the watchers together with {@code others}, all at once: the client closes its own
   * watchers in the same round, so closing takes one session's close, not two.
   */
  void closeWith(Collection<? extends RecordWatcher<?>> others) {
    List<RecordWatcher<?>> closing = new ArrayList<>(watchers);
    closing.addAll(others);
    try {
      RecordWatcher.closeAll(closing);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
