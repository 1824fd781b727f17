package io.zoolander.it.bench;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.server.testing.EmbeddedCluster;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Latency of one sequenced write (client -> repeater -> plugin -> ZooKeeper multi -> reply) against
 * a direct ZooKeeper setData on the same single-server ensemble, in one run. Closed loop, one write
 * at a time, the two kinds interleaved so they share the machine's noise; 2 KB values. A benchmark,
 * not a test. Run:
 *
 * <pre>
 * mvn -q -pl integration-tests -am test-compile exec:exec -Dexec.executable=java -Dexec.classpathScope=test \
 *     -Dexec.args="-cp %classpath io.zoolander.it.bench.WriteOverheadBenchmark [warmup measured fsync]"
 * </pre>
 *
 * (exec:exec, not exec:java: the ZooKeeper servers are child JVMs started with this JVM's class
 * path.)
 */
public final class WriteOverheadBenchmark {
  private WriteOverheadBenchmark() {}

  public static void main(String[] args) throws Exception {
    int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
    int measured = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    boolean fsync = args.length > 2 && Boolean.parseBoolean(args[2]);
    byte[] value = new byte[2048];
    Histogram direct = new Histogram(3);
    Histogram sequenced = new Histogram(3);
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().duplicates(1).fsync(fsync).start();
        ZoolanderClient client = cluster.newClient()) {
      CountDownLatch connected = new CountDownLatch(1);
      try (ZooKeeper zk =
          new ZooKeeper(
              cluster.duplicate(1).connectString(),
              30_000,
              e -> {
                if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                  connected.countDown();
                }
              })) {
        connected.await(30, TimeUnit.SECONDS);
        zk.create("/bench-direct", value, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        client.create("/bench", value).get(30, TimeUnit.SECONDS);
        for (int i = 0; i < warmup + measured; i++) {
          long t0 = System.nanoTime();
          zk.setData("/bench-direct", value, -1);
          long t1 = System.nanoTime();
          client.setData("/bench", value, -1).get(30, TimeUnit.SECONDS);
          long t2 = System.nanoTime();
          if (i >= warmup) {
            direct.recordValue((t1 - t0) / 1_000);
            sequenced.recordValue((t2 - t1) / 1_000);
          }
        }
      }
    }
    System.out.printf(
        "%d writes each after %d warm-up, 2 KB values, fsync=%s, 1 duplicate of 1 server%n",
        measured, warmup, fsync);
    System.out.printf(
        "%-28s %9s %9s %9s %9s %9s%n", "", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms");
    print("direct ZooKeeper setData", direct);
    print("sequenced write (N=1)", sequenced);
    System.out.printf(
        "%-28s %9.2f %9.2f %9.2f %9.2f%n",
        "ratio sequenced/direct",
        ratio(sequenced, direct, 50),
        ratio(sequenced, direct, 90),
        ratio(sequenced, direct, 99),
        ratio(sequenced, direct, 99.9));
  }

  private static void print(String name, Histogram h) {
    System.out.printf(
        "%-28s %9.3f %9.3f %9.3f %9.3f %9.3f%n",
        name,
        h.getValueAtPercentile(50) / 1e3,
        h.getValueAtPercentile(90) / 1e3,
        h.getValueAtPercentile(99) / 1e3,
        h.getValueAtPercentile(99.9) / 1e3,
        h.getMaxValue() / 1e3);
  }

  private static double ratio(Histogram a, Histogram b, double percentile) {
    return (double) a.getValueAtPercentile(percentile) / b.getValueAtPercentile(percentile);
  }
}
