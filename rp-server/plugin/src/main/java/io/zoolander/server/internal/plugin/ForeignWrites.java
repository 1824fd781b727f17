package io.zoolander.server.internal.plugin;

import io.zoolander.server.internal.leader.AppliedWrite;
import io.zoolander.server.internal.leader.LocalServer;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the data root of a leader for writes that did not come through the stream: only the
 * plugin's own session writes there, in seq order, so a write by any other session (a plain
 * ZooKeeper client, an operator's {@code zkCli.sh}) has made this duplicate differ from the others.
 * The first one fences the duplicate (unless {@code zoolander.plugin.fenceOnForeignWrite} is
 * false), so that it serves no more reads and is repaired by a state transfer; each one is counted
 * and logged.
 *
 * <p>Only a plugin hosted by a leader in-process can watch ({@link LocalServer#observeWrites}): the
 * leader applies every write of its ensemble, whichever server the writer was connected to. Writes
 * the leader applied before this plugin observed are reported first (the leader keeps them), so the
 * moments between the leader's start and the plugin's are covered too. {@link #onWrite} runs on
 * ZooKeeper's commit threads: it queues the fence's {@link FenceRecord record} on the plugin's
 * session at once (the applier may be busy for a while, and the duplicate may crash before it takes
 * the fence: the record makes the next plugin start fenced) and hands the fence itself over to the
 * applier thread. Thread-safe.
 */
final class ForeignWrites implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ForeignWrites.class);

  private final int duplicateId;
  private final LongPredicate ownSession;
  private final Consumer<String> fence;
  private final FenceRecord record;
  private final boolean fences;
  private final LongAdder seen = new LongAdder();
  private final AutoCloseable registration;

  /**
   * @param ownSession whether a session is the plugin's (its current or previous own session)
   * @param fences whether a foreign write fences the duplicate ({@code
   *     zoolander.plugin.fenceOnForeignWrite}), or is only logged and counted
   * @param fence fences the duplicate for the reason given; called on a ZooKeeper thread, it must
   *     hand the work over
   * @param record where the fence is recorded at once, before the applier takes it
   */
  ForeignWrites(
      int duplicateId,
      LocalServer server,
      String dataRoot,
      LongPredicate ownSession,
      boolean fences,
      Consumer<String> fence,
      FenceRecord record) {
    this.duplicateId = duplicateId;
    this.ownSession = ownSession;
    this.fence = fence;
    this.record = record;
    this.fences = fences;
    this.registration = server.observeWrites(dataRoot, this::onWrite);
  }

  private void onWrite(AppliedWrite write) {
    if (ownSession.test(write.sessionId())) {
      return;
    }
    seen.increment();
    String reason =
        "the data root was written outside the stream: "
            + write.op()
            + " "
            + write.path()
            + " by ZooKeeper session 0x"
            + Long.toHexString(write.sessionId())
            + " (only the plugin may write there; the duplicates now differ)";
    if (fences) {
      LOG.error("Duplicate {}: {}", duplicateId, reason);
      record.write(reason);
      fence.accept(reason);
    } else {
      LOG.error(
          "Duplicate {}: {}; not fenced (zoolander.plugin.fenceOnForeignWrite=false)",
          duplicateId,
          reason);
    }
  }

  /** Writes by other sessions seen so far. Any thread. */
  long seen() {
    return seen.sum();
  }

  @Override
  public void close() {
    try {
      registration.close();
    } catch (Exception e) {
      LOG.warn("Duplicate {}: cannot stop watching the data root", duplicateId, e);
    }
  }
}
