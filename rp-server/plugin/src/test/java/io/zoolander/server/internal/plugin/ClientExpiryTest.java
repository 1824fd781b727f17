package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.testsupport.StandaloneZooKeeper;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.Znodes;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The records of clients gone longer than the retention are deleted, counting only time the plugin
 * streamed; a live client's record stays. One in-process standalone ZooKeeper server, a fake clock.
 */
class ClientExpiryTest {
  private static final Znodes ZNODES = new Znodes("/zl");
  private static final long RETENTION_MS = 60_000;

  @TempDir Path dir;
  private StandaloneZooKeeper server;
  private ZooKeeper zk;
  private final ApplierThread thread = new ApplierThread("test-applier");
  private final ExecutorService applier = Executors.newSingleThreadExecutor(thread);
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final AtomicBoolean streaming = new AtomicBoolean(true);
  private final ClientTable clients = new ClientTable(ZNODES);
  private ClientExpiry expiry;

  @BeforeEach
  void start() throws Exception {
    server = StandaloneZooKeeper.start(dir);
    zk = ZooKeepers.connect(server.connectString());
    for (String path : List.of(ZNODES.basePath(), ZNODES.clients())) {
      zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
    for (long id : new long[] {1, 2, 3}) {
      record(id);
    }
    expiry =
        onApplier(
            () -> new ClientExpiry(thread, 1, ZNODES, RETENTION_MS, nanos::get, streaming::get));
  }

  @AfterEach
  void stop() throws Exception {
    applier.shutdownNow();
    zk.close();
    server.close();
  }

  private void record(long id) throws Exception {
    ClientRecord r = ClientTable.after(null, 1, 1, List.of(new OpResult.Checked()));
    zk.create(ZNODES.client(id), r.encode(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }

  private <T> T onApplier(Callable<T> task) throws Exception {
    return applier.submit(task).get(30, TimeUnit.SECONDS);
  }

  private void advanceMs(long ms) {
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  private int sweep() throws Exception {
    return onApplier(() -> expiry.sweep(zk, clients));
  }

  private List<String> records() throws Exception {
    return zk.getChildren(ZNODES.clients(), false).stream().sorted().toList();
  }

  @Test
  void aClientGoneLongerThanTheRetentionLosesItsRecordAndALiveOneKeepsIt() throws Exception {
    assertThat(sweep()).isZero(); // starts the clocks: every listed record seen now
    onApplier(() -> clients.get(zk, 1)); // cached
    advanceMs(RETENTION_MS / 2);
    onApplier(
        () -> {
          expiry.touched(2); // client 2 writes again
          return null;
        });
    assertThat(sweep()).isZero();
    advanceMs(RETENTION_MS / 2 + 1);
    assertThat(sweep()).isEqualTo(2);
    assertThat(records()).containsExactly("2");
    assertThat(onApplier(() -> clients.get(zk, 1).version()))
        .as("the cache forgot the deleted record: a new write of client 1 creates it again")
        .isEqualTo(ClientTable.ABSENT);
    advanceMs(RETENTION_MS / 2);
    assertThat(sweep()).isEqualTo(1);
    assertThat(records()).isEmpty();
    assertThat(onApplier(expiry::expired)).isEqualTo(3);
  }

  @Test
  void timeWithoutStreamingDoesNotCount() throws Exception {
    assertThat(sweep()).isZero();
    streaming.set(false); // no repeater, or a gap open: older writes may still come
    advanceMs(10 * RETENTION_MS);
    assertThat(sweep()).isZero();
    streaming.set(true);
    advanceMs(1_000);
    assertThat(sweep()).as("the clocks restart when streaming does").isZero();
    advanceMs(RETENTION_MS - 10_000);
    assertThat(sweep()).isZero();
    assertThat(records()).containsExactly("1", "2", "3");
    advanceMs(10_000);
    assertThat(sweep()).isEqualTo(3);
    // A record created later (a state transfer, a new client) starts its clock when listed.
    record(4);
    advanceMs(RETENTION_MS - 1);
    assertThat(sweep()).isZero();
    advanceMs(RETENTION_MS);
    assertThat(sweep()).isEqualTo(1);
    assertThat(records()).isEmpty();
  }
}
