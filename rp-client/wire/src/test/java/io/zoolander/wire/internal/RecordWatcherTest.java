package io.zoolander.wire.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A record followed through a real ZooKeeper server: appears, changes, turns malformed, goes. */
class RecordWatcherTest {
  private static final long WAIT_SECONDS = 30;
  private static final String PATH = "/record";

  @TempDir Path dir;
  private ServerCnxnFactory factory;
  private ZooKeeperServer server;
  private ZooKeeper writer;
  private final BlockingQueue<Optional<Integer>> seen = new LinkedBlockingQueue<>();

  @BeforeEach
  @SuppressWarnings("AddressSelection") // 127.0.0.1 exactly: the connect string names it
  void startServer() throws Exception {
    File data = dir.resolve("data").toFile();
    factory = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 10);
    server = new ZooKeeperServer(data, data, 2_000);
    factory.startup(server);
    CountDownLatch connected = new CountDownLatch(1);
    writer =
        new ZooKeeper(
            connectString(),
            30_000,
            e -> {
              if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            });
    assertThat(connected.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  @AfterEach
  void stopServer() throws Exception {
    writer.close();
    factory.shutdown();
  }

  private String connectString() {
    return "127.0.0.1:" + factory.getLocalPort();
  }

  private static Integer decode(byte[] data) {
    String s = new String(data, UTF_8);
    try {
      return Integer.valueOf(s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a number: " + s, e);
    }
  }

  private Optional<Integer> next() throws InterruptedException {
    Optional<Integer> record = seen.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(record).as("a change reported within %d s", WAIT_SECONDS).isNotNull();
    return record;
  }

  @Test
  void reportsEveryChangeOnceAndAMalformedRecordAsAbsent() throws Exception {
    try (RecordWatcher<Integer> watcher =
        new RecordWatcher<>(connectString(), PATH, 30_000, RecordWatcherTest::decode, seen::add)) {
      watcher.start();
      writer.create(PATH, "1".getBytes(UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      assertThat(next()).contains(1); // absent at first: nothing to report until it appears
      writer.setData(PATH, "2".getBytes(UTF_8), -1);
      assertThat(next()).contains(2);
      assertThat(watcher.current()).contains(2);
      writer.setData(PATH, "two".getBytes(UTF_8), -1);
      assertThat(next()).isEmpty();
      writer.setData(PATH, "3".getBytes(UTF_8), -1);
      assertThat(next()).contains(3);
      writer.delete(PATH, -1);
      assertThat(next()).isEmpty();
      writer.create(PATH, "4".getBytes(UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      assertThat(next()).contains(4);
      assertThat(seen).as("each change reported once").isEmpty();
    }
  }

  @Test
  void aRecordThatExistsAtStartIsReportedOnceConnected() throws Exception {
    writer.create(PATH, "7".getBytes(UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    try (RecordWatcher<Integer> watcher =
        new RecordWatcher<>(connectString(), PATH, 30_000, RecordWatcherTest::decode, seen::add)) {
      watcher.start();
      assertThat(next()).contains(7);
    }
  }

  @Test
  void closeAllEndsEveryWatchersSession() throws Exception {
    List<RecordWatcher<Integer>> watchers = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        RecordWatcher<Integer> watcher =
            new RecordWatcher<>(
                connectString(), PATH, 30_000, RecordWatcherTest::decode, seen::add);
        watchers.add(watcher);
        watcher.start();
      }
      writer.create(PATH, "5".getBytes(UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      for (int i = 0; i < 3; i++) {
        assertThat(next()).as("watcher %d connected and watching", i).contains(5);
      }
      assertThat(sessions()).isEqualTo(4);

      RecordWatcher.closeAll(watchers);

      // A session is gone from the server before the answer to its close is sent.
      assertThat(sessions()).as("only the writer's session is left").isEqualTo(1);
      RecordWatcher.closeAll(List.of());
    } finally {
      for (RecordWatcher<Integer> watcher : watchers) {
        watcher.close(); // closing again does nothing
      }
    }
  }

  private long sessions() {
    return server.getSessionExpiryMap().values().stream().mapToLong(Set::size).sum();
  }
}
