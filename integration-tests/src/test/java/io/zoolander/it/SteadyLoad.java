package io.zoolander.it;

import io.zoolander.client.NodeData;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.wire.Op;
import io.zoolander.wire.Znodes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Steady write and read load from several clients while faults are injected, with a recorded
 * history and its checks.
 *
 * <p>Client {@code i} owns {@code <root>/c<i>}: its writes alternately append a sequential child
 * holding the write's counter and set {@code c<i>}'s data to the counter, with up to {@code window}
 * writes in flight; after every few writes it reads {@code c<i>} back. Each client runs on its own
 * thread, bounded in writes and in time.
 *
 * <p>What is checked ({@link #problems()} on the client side, {@link #problems(ZooKeeper, Znodes)}
 * in a duplicate): every write acknowledged, its results OK, and the seqs of one client's
 * acknowledged writes increasing in the order it issued them (per-client order); every read returns
 * a counter at least that of the client's last acknowledged setData before the read, and never less
 * than its previous read (read-your-writes, monotonic reads); in every duplicate, each acknowledged
 * create is present exactly once, the children's counters increase with their sequential names
 * (applied in issue order), and {@code c<i>}'s version counts exactly the applied setData calls
 * (none lost, none applied twice). A write that failed (its outcome unknown) may be present at most
 * once.
 */
final class SteadyLoad implements AutoCloseable {
  private static final int READ_EVERY = 4;
  private static final long TIMEOUT_SECONDS = 120;

  private final String root;
  private final int window;
  private final int maxWritesPerClient;
  private final byte[] padding;
  private final long deadlineNanos;
  private final List<ClientLoad> loads = new ArrayList<>();

  /** {when, seq} of every acknowledgement. */
  private final ConcurrentLinkedQueue<long[]> ackNanos = new ConcurrentLinkedQueue<>();

  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong reads = new AtomicLong();
  private final AtomicLong readFailures = new AtomicLong();
  private final AtomicLong maxReadNanos = new AtomicLong();
  private volatile boolean running = true;

  /** Nanoseconds between two writes of one client; 0 = as fast as the window allows. */
  private long writeIntervalNanos;

  /**
   * @param root the parent of the clients' znodes (created by the first client)
   * @param maxTime bound on the whole run
   */
  SteadyLoad(
      String root,
      List<ZoolanderClient> clients,
      int window,
      int maxWritesPerClient,
      Duration maxTime) {
    this(root, clients, window, maxWritesPerClient, maxTime, 0);
  }

  /**
   * @param paddingBytes bytes added to each write's data after the counter (larger writes)
   */
  SteadyLoad(
      String root,
      List<ZoolanderClient> clients,
      int window,
      int maxWritesPerClient,
      Duration maxTime,
      int paddingBytes) {
    this.padding = new byte[paddingBytes];
    java.util.Arrays.fill(padding, (byte) ' ');
    this.root = root;
    this.window = window;
    this.maxWritesPerClient = maxWritesPerClient;
    this.deadlineNanos = System.nanoTime() + maxTime.toNanos();
    for (int i = 0; i < clients.size(); i++) {
      loads.add(new ClientLoad(i, clients.get(i)));
    }
  }

  /**
   * Paces each client to at most {@code writesPerSecond} writes a second (call before {@link
   * #start()}). Unpaced, the load runs as fast as the data path answers, so what it writes during a
   * fault of a given length grows with the machine's speed; paced, a test can size the repeater's
   * log against the fault's length.
   */
  SteadyLoad pacedAt(int writesPerSecond) {
    if (writesPerSecond <= 0) {
      throw new IllegalArgumentException("writesPerSecond must be positive: " + writesPerSecond);
    }
    this.writeIntervalNanos = TimeUnit.SECONDS.toNanos(1) / writesPerSecond;
    return this;
  }

  String parent(int client) {
    return root + "/c" + client;
  }

  /** Creates the root and the clients' znodes, then starts every client's thread. */
  SteadyLoad start() throws Exception {
    WriteResult created =
        loads.get(0).client.create(root, bytes(-1)).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (!created.succeeded()) {
      throw new IllegalStateException("create " + root + ": " + created);
    }
    for (ClientLoad load : loads) {
      WriteResult r =
          load.client.create(parent(load.index), bytes(-1)).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      if (!r.succeeded()) {
        throw new IllegalStateException("create " + parent(load.index) + ": " + r);
      }
      load.thread.start();
    }
    return this;
  }

  long acked() {
    return acked.get();
  }

  long reads() {
    return reads.get();
  }

  long readFailures() {
    return readFailures.get();
  }

  Duration longestRead() {
    return Duration.ofNanos(maxReadNanos.get());
  }

  /** Waits until {@code count} writes in all have been acknowledged. */
  void awaitAcked(long count, Duration timeout) throws Exception {
    await("acked writes >= " + count, () -> acked.get() >= count, timeout);
  }

  /** Stops issuing and waits for the writes in flight. */
  void stop() throws InterruptedException {
    running = false;
    for (ClientLoad load : loads) {
      load.thread.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
    }
  }

  /**
   * The longest time between two consecutive acknowledgements (of any client) between two instants.
   */
  Duration longestAckGap(long fromNanos, long toNanos) {
    List<Long> times = new ArrayList<>(ackNanos.stream().map(a -> a[0]).toList());
    Collections.sort(times);
    long previous = fromNanos;
    long longest = 0;
    for (long t : times) {
      if (t < fromNanos) {
        continue;
      }
      if (t > toNanos) {
        break;
      }
      longest = Math.max(longest, t - previous);
      previous = t;
    }
    return Duration.ofNanos(longest);
  }

  /**
   * When the first write with a seq of at least {@code seq} was acknowledged ({@link
   * System#nanoTime()}).
   */
  long firstAckOfSeqAtLeast(long seq) {
    return ackNanos.stream().filter(a -> a[1] >= seq).mapToLong(a -> a[0]).min().orElseThrow();
  }

  /** Problems seen by the clients (empty when the history is good). */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    for (ClientLoad load : loads) {
      problems.addAll(load.problems);
      long previous = 0;
      for (Map.Entry<Integer, Long> e : load.ackedSeqs.entrySet()) {
        if (e.getValue() <= previous) {
          problems.add(
              "client "
                  + load.index
                  + ": write "
                  + e.getKey()
                  + " got seq "
                  + e.getValue()
                  + " after "
                  + previous
                  + ": not in issue order");
        }
        previous = e.getValue();
      }
    }
    return problems;
  }

  /** Writes that failed (their outcome unknown), in all. */
  int failedWrites() {
    return loads.stream().mapToInt(l -> l.failed.size()).sum();
  }

  /**
   * Problems in one duplicate's tree, read with a plain ZooKeeper client (empty when it applied the
   * history).
   */
  List<String> problems(ZooKeeper zk, Znodes znodes) throws KeeperException, InterruptedException {
    List<String> problems = new ArrayList<>();
    for (ClientLoad load : loads) {
      String parent = znodes.toZnode(parent(load.index));
      Stat stat = new Stat();
      zk.getData(parent, false, stat);
      long sets = load.ackedSeqs.keySet().stream().filter(k -> k % 2 == 1).count();
      long failedSets = load.failed.stream().filter(k -> k % 2 == 1).count();
      if (stat.getVersion() < sets || stat.getVersion() > sets + failedSets) {
        problems.add(
            parent
                + " has version "
                + stat.getVersion()
                + " but "
                + sets
                + " setData calls were acked ("
                + failedSets
                + " failed): one was lost or applied twice");
      }
      List<String> children = new ArrayList<>(zk.getChildren(parent, false));
      Collections.sort(children); // sequential suffixes sort in creation order
      Set<Integer> present = new HashSet<>();
      int previous = -1;
      for (String child : children) {
        int counter = counter(zk.getData(parent + "/" + child, false, null));
        if (!present.add(counter)) {
          problems.add(parent + ": write " + counter + " applied twice");
        }
        if (counter <= previous) {
          problems.add(
              parent
                  + "/"
                  + child
                  + " holds write "
                  + counter
                  + " after "
                  + previous
                  + ": out of order");
        }
        if (!load.ackedSeqs.containsKey(counter) && !load.failed.contains(counter)) {
          problems.add(
              parent + "/" + child + " holds write " + counter + ", which was never issued");
        }
        previous = counter;
      }
      for (int counter : load.ackedSeqs.keySet()) {
        if (counter % 2 == 0 && !present.contains(counter)) {
          problems.add(
              parent
                  + ": acknowledged write "
                  + counter
                  + " (seq "
                  + load.ackedSeqs.get(counter)
                  + ") is missing");
        }
      }
    }
    return problems;
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }

  static byte[] bytes(int counter) {
    return Integer.toString(counter).getBytes(StandardCharsets.UTF_8);
  }

  private byte[] padded(int counter) {
    byte[] digits = bytes(counter);
    byte[] data = java.util.Arrays.copyOf(digits, digits.length + padding.length);
    System.arraycopy(padding, 0, data, digits.length, padding.length);
    return data;
  }

  /** The counter at the start of a write's data (before any padding). */
  static int counter(byte[] data) {
    return Integer.parseInt(new String(data, StandardCharsets.UTF_8).trim());
  }

  static void await(String what, BooleanSupplier condition, Duration timeout) throws Exception {
    await(what, condition, timeout, () -> "");
  }

  static void await(
      String what, BooleanSupplier condition, Duration timeout, Supplier<?> diagnostics)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new TimeoutException(
            "not true after " + timeout + ": " + what + " " + diagnostics.get());
      }
      Thread.sleep(20);
    }
  }

  /** One client's loop and history. */
  private final class ClientLoad {
    final int index;
    final ZoolanderClient client;
    final Thread thread;

    /** Counter of each acknowledged write to its seq, in counter (issue) order. */
    final ConcurrentSkipListMap<Integer, Long> ackedSeqs = new ConcurrentSkipListMap<>();

    final Set<Integer> failed = ConcurrentHashMap.newKeySet();
    final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    final AtomicInteger highestAckedSet = new AtomicInteger(-1);
    int lastRead = -1;

    ClientLoad(int index, ZoolanderClient client) {
      this.index = index;
      this.client = client;
      this.thread = new Thread(this::run, "steady-load-" + index);
      this.thread.setDaemon(true);
    }

    void run() {
      Semaphore inFlight = new Semaphore(window);
      long startNanos = System.nanoTime();
      try {
        for (int k = 0;
            k < maxWritesPerClient && running && System.nanoTime() - deadlineNanos < 0;
            k++) {
          long dueNanos = startNanos + k * writeIntervalNanos;
          for (long wait = dueNanos - System.nanoTime(); wait > 0 && running; ) {
            java.util.concurrent.locks.LockSupport.parkNanos(wait);
            wait = dueNanos - System.nanoTime();
          }
          if (!inFlight.tryAcquire(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            problems.add(
                "client " + index + ": no write completed within " + TIMEOUT_SECONDS + " s");
            return;
          }
          int counter = k;
          Op op =
              k % 2 == 0
                  ? Op.createSequential(parent(index) + "/w-", padded(k))
                  : Op.setData(parent(index), padded(k), -1);
          client
              .write(List.of(op))
              .whenComplete(
                  (r, e) -> {
                    if (e != null) {
                      failed.add(counter);
                      problems.add("client " + index + ": write " + counter + " failed: " + e);
                    } else if (!r.succeeded()) {
                      problems.add(
                          "client " + index + ": write " + counter + " returned " + r.code());
                    } else {
                      ackedSeqs.put(counter, r.seq());
                      if (counter % 2 == 1) {
                        highestAckedSet.accumulateAndGet(counter, Math::max);
                      }
                      ackNanos.add(new long[] {System.nanoTime(), r.seq()});
                      acked.incrementAndGet();
                    }
                    inFlight.release();
                  });
          if (k % READ_EVERY == READ_EVERY - 1) {
            read();
          }
        }
        if (!inFlight.tryAcquire(window, TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
          problems.add(
              "client " + index + ": writes still in flight after " + TIMEOUT_SECONDS + " s");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void read() throws InterruptedException {
      int floor = highestAckedSet.get();
      long start = System.nanoTime();
      try {
        NodeData d = client.getData(parent(index)).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        maxReadNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
        reads.incrementAndGet();
        int seen = counter(d.data());
        if (seen < floor) {
          problems.add(
              "client "
                  + index
                  + ": read "
                  + seen
                  + " from duplicate "
                  + d.duplicateId()
                  + " (applied seq "
                  + d.appliedSeq()
                  + ") after setData "
                  + floor
                  + " was acknowledged: not read-your-writes");
        }
        if (seen < lastRead) {
          problems.add(
              "client "
                  + index
                  + ": read "
                  + seen
                  + " after reading "
                  + lastRead
                  + ": went back in time");
        }
        lastRead = Math.max(lastRead, seen);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        readFailures.incrementAndGet();
      }
    }
  }
}
