package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Message.WatchEvent.Change;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.WatchEventType;
import io.zoolander.wire.WatchKind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The plugin's watches: which changes concern which watch, one-shot and persistent watches, the
 * replay from the log for a watch armed with a {@code sinceSeq}, RESYNC when the log does not reach
 * back, the per-connection bound. Runs on an applier thread, as in the plugin.
 */
class WatchesTest {

  private static final long CLIENT = 7;

  private final ApplierThread thread = new ApplierThread("test-applier");
  private final ExecutorService applier = Executors.newSingleThreadExecutor(thread);
  private final AtomicLong applied = new AtomicLong();
  private final EmbeddedChannel client = new EmbeddedChannel();

  @AfterEach
  void stop() throws InterruptedException {
    applier.shutdownNow();
    applier.awaitTermination(5, TimeUnit.SECONDS);
    client.finishAndReleaseAll();
  }

  private Watches watches(int logEntries, int maxPerConnection) throws Exception {
    return onApplier(
        () ->
            new Watches(
                thread,
                3,
                applied::get,
                new WatchLog(applied.get(), logEntries, 1 << 20),
                maxPerConnection,
                channel -> {}));
  }

  private interface Call<T> {
    T call() throws Exception;
  }

  private <T> T onApplier(Call<T> call) throws Exception {
    return applier.submit(call::call).get(10, TimeUnit.SECONDS);
  }

  private void watch(Watches w, long id, WatchKind kind, String path, long since) throws Exception {
    onApplier(
        () -> {
          w.watch(client, new Message.Watch(CLIENT, id, kind, path, since));
          return null;
        });
  }

  /** Applies the next write, of {@code ops} with {@code results}. */
  private void apply(Watches w, List<Op> ops, List<OpResult> results) throws Exception {
    long seq = applied.incrementAndGet();
    onApplier(
        () -> {
          w.applied(seq, WatchChanges.of(ops, results));
          return null;
        });
  }

  private void create(Watches w, String path) throws Exception {
    apply(w, List.of(Op.create(path, new byte[0])), List.of(new OpResult.Created(path)));
  }

  private void set(Watches w, String path) throws Exception {
    apply(w, List.of(Op.setData(path, new byte[] {1}, -1)), List.of(new OpResult.DataSet(1)));
  }

  private void delete(Watches w, String path) throws Exception {
    apply(w, List.of(Op.delete(path, -1)), List.of(new OpResult.Deleted()));
  }

  private List<Message> sent() {
    List<Message> out = new ArrayList<>();
    for (Object m = client.readOutbound(); m != null; m = client.readOutbound()) {
      out.add((Message) m);
    }
    return out;
  }

  private static Message.WatchEvent event(long id, long seq, WatchEventType type, String path) {
    return new Message.WatchEvent(CLIENT, id, 3, seq, List.of(new Change(type, path)));
  }

  private static Message.WatchEvent armed(long id, long seq) {
    return new Message.WatchEvent(CLIENT, id, 3, seq, List.of());
  }

  @Test
  void changesAreDerivedFromOpsAndResults() {
    assertThat(
            WatchChanges.of(
                List.of(Op.createSequential("/q/n-", new byte[0]), Op.delete("/a", -1)),
                List.of(new OpResult.Created("/q/n-0000000004"), new OpResult.Deleted())))
        .containsExactly(
            new Change(WatchEventType.NODE_CREATED, "/q/n-0000000004"),
            new Change(WatchEventType.NODE_CHILDREN_CHANGED, "/q"),
            new Change(WatchEventType.NODE_DELETED, "/a"),
            new Change(WatchEventType.NODE_CHILDREN_CHANGED, "/"));
    // a failed multi changed nothing; a check changes nothing
    assertThat(
            WatchChanges.of(
                List.of(Op.setData("/a", new byte[0], -1), Op.check("/b", 3)),
                List.of(new OpResult.Failed(Code.OK), new OpResult.Failed(Code.BADVERSION))))
        .isEmpty();
    assertThat(WatchChanges.of(List.of(Op.check("/b", 3)), List.of(new OpResult.Checked())))
        .isEmpty();
  }

  @Test
  void aDataWatchFiresOnceOnItsOwnPath() throws Exception {
    Watches w = watches(100, 10);
    create(w, "/a");
    watch(w, 1, WatchKind.DATA, "/a", 1);
    set(w, "/b");
    create(w, "/a/child");
    set(w, "/a");
    set(w, "/a");
    assertThat(sent())
        .containsExactly(armed(1, 1), event(1, 4, WatchEventType.NODE_DATA_CHANGED, "/a"));
    assertThat(onApplier(w::count)).isZero();
    assertThat(w.eventsSent()).isEqualTo(1);
  }

  @Test
  void aChildWatchFiresOnAChildOrItsOwnDeletion() throws Exception {
    Watches w = watches(100, 10);
    watch(w, 1, WatchKind.CHILDREN, "/p", 0);
    set(w, "/p");
    create(w, "/p/c");
    watch(w, 2, WatchKind.CHILDREN, "/p", 2);
    delete(w, "/p/c");
    watch(w, 3, WatchKind.CHILDREN, "/p", 3);
    delete(w, "/p");
    assertThat(sent())
        .containsExactly(
            armed(1, 0),
            new Message.WatchEvent(
                CLIENT, 1, 3, 2, List.of(new Change(WatchEventType.NODE_CHILDREN_CHANGED, "/p"))),
            armed(2, 2),
            event(2, 3, WatchEventType.NODE_CHILDREN_CHANGED, "/p"),
            armed(3, 3),
            event(3, 4, WatchEventType.NODE_DELETED, "/p"));
  }

  @Test
  void aPersistentRecursiveWatchSeesEveryNodeBelowButNoChildEvents() throws Exception {
    Watches w = watches(100, 10);
    watch(w, 9, WatchKind.PERSISTENT_RECURSIVE, "/a", 0);
    create(w, "/a");
    create(w, "/a/b");
    create(w, "/ab"); // a sibling whose name starts alike
    set(w, "/a/b");
    delete(w, "/a/b");
    assertThat(sent())
        .containsExactly(
            armed(9, 0),
            event(9, 1, WatchEventType.NODE_CREATED, "/a"),
            event(9, 2, WatchEventType.NODE_CREATED, "/a/b"),
            event(9, 4, WatchEventType.NODE_DATA_CHANGED, "/a/b"),
            event(9, 5, WatchEventType.NODE_DELETED, "/a/b"));
    assertThat(onApplier(w::count)).isEqualTo(1);
    onApplier(
        () -> {
          w.unwatch(client, 9);
          return null;
        });
    set(w, "/a");
    assertThat(sent()).isEmpty();
  }

  @Test
  void aWatchArmedAgainGetsWhatItMissedFromTheLog() throws Exception {
    Watches w = watches(100, 10);
    create(w, "/r");
    set(w, "/r");
    set(w, "/other");
    set(w, "/r");
    watch(w, 5, WatchKind.PERSISTENT_RECURSIVE, "/r", 2);
    assertThat(sent())
        .containsExactly(event(5, 4, WatchEventType.NODE_DATA_CHANGED, "/r"), armed(5, 4));
    // armed on a duplicate behind the client: the changes up to sinceSeq are skipped
    watch(w, 6, WatchKind.PERSISTENT_RECURSIVE, "/r", 6);
    set(w, "/r");
    set(w, "/r");
    set(w, "/r");
    assertThat(sent())
        .containsExactly(
            armed(6, 4),
            event(5, 5, WatchEventType.NODE_DATA_CHANGED, "/r"),
            event(5, 6, WatchEventType.NODE_DATA_CHANGED, "/r"),
            event(5, 7, WatchEventType.NODE_DATA_CHANGED, "/r"),
            event(6, 7, WatchEventType.NODE_DATA_CHANGED, "/r"));
  }

  @Test
  void aWatchArmedBeyondTheLogGetsResync() throws Exception {
    Watches w = watches(2, 10);
    for (int i = 0; i < 5; i++) {
      set(w, "/x");
    }
    watch(w, 1, WatchKind.PERSISTENT_RECURSIVE, "/x", 2); // the log holds 4 and 5 only
    watch(w, 2, WatchKind.PERSISTENT_RECURSIVE, "/x", 3); // it holds every change after 3
    watch(w, 3, WatchKind.DATA, "/x", 1);
    assertThat(sent())
        .containsExactly(
            event(1, 5, WatchEventType.RESYNC, "/x"),
            armed(1, 5),
            event(2, 4, WatchEventType.NODE_DATA_CHANGED, "/x"),
            event(2, 5, WatchEventType.NODE_DATA_CHANGED, "/x"),
            armed(2, 5),
            event(3, 5, WatchEventType.RESYNC, "/x")); // a one-shot that fired is not armed
    assertThat(onApplier(w::count)).as("the one-shot fired with RESYNC").isEqualTo(2);
    applied.set(9);
    onApplier(
        () -> {
          w.resyncAll(9); // a state transfer installed seq 9
          return null;
        });
    assertThat(sent())
        .containsExactly(
            event(1, 9, WatchEventType.RESYNC, "/x"), event(2, 9, WatchEventType.RESYNC, "/x"));
    // the log starts again after 9
    watch(w, 4, WatchKind.PERSISTENT_RECURSIVE, "/x", 8);
    watch(w, 5, WatchKind.PERSISTENT_RECURSIVE, "/x", 9);
    assertThat(sent())
        .containsExactly(event(4, 9, WatchEventType.RESYNC, "/x"), armed(4, 9), armed(5, 9));
  }

  @Test
  void aOneShotWatchReplaysFromThePathsOwnEntriesAsTheLogMovesOn() throws Exception {
    Watches w = watches(3, 10);
    set(w, "/a"); // 1
    set(w, "/b"); // 2
    set(w, "/a"); // 3
    set(w, "/c"); // 4: the log holds 2..4 now
    watch(w, 1, WatchKind.DATA, "/a", 1);
    watch(w, 2, WatchKind.DATA, "/a", 3);
    watch(w, 3, WatchKind.DATA, "/b", 0);
    set(w, "/a"); // 5: evicts 2
    set(w, "/d"); // 6: evicts 3
    set(w, "/d"); // 7: evicts 4; the log is complete after 4
    watch(w, 4, WatchKind.DATA, "/a", 4);
    watch(w, 5, WatchKind.DATA, "/d", 6);
    watch(w, 6, WatchKind.DATA, "/a", 3);
    assertThat(sent())
        .containsExactly(
            event(1, 3, WatchEventType.NODE_DATA_CHANGED, "/a"),
            armed(2, 4),
            event(3, 4, WatchEventType.RESYNC, "/b"),
            event(2, 5, WatchEventType.NODE_DATA_CHANGED, "/a"),
            event(4, 5, WatchEventType.NODE_DATA_CHANGED, "/a"),
            event(5, 7, WatchEventType.NODE_DATA_CHANGED, "/d"),
            event(6, 7, WatchEventType.RESYNC, "/a"));
  }

  @Test
  void watchesPerConnectionAreBoundedAndGoWithTheConnection() throws Exception {
    Watches w = watches(100, 2);
    watch(w, 1, WatchKind.DATA, "/a", 0);
    watch(w, 1, WatchKind.DATA, "/b", 0); // replaces watch 1
    watch(w, 2, WatchKind.DATA, "/c", 0);
    watch(w, 3, WatchKind.DATA, "/d", 0);
    List<Message> sent = sent();
    assertThat(sent).hasSize(4);
    assertThat(sent.get(3))
        .isInstanceOfSatisfying(
            Message.Error.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.OVERLOADED);
              assertThat(e.requestId()).isEqualTo(3);
              assertThat(e.message()).contains("zoolander.plugin.maxWatchesPerConnection");
            });
    assertThat(onApplier(w::count)).isEqualTo(2);
    assertThat(w.armed()).as("published for the meters").isEqualTo(2);
    onApplier(
        () -> {
          w.closed(client);
          return w.count();
        });
    assertThat(onApplier(w::count)).isZero();
    assertThat(w.armed()).isZero();
  }
}
