package io.zoolander.server.bench;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * The systems built from plain ZooKeeper ensembles and the standard client: what a user would
 * otherwise pick.
 */
final class PlainSystems {
  private PlainSystems() {}

  /** The path of key {@code key} in a plain ensemble. */
  static String path(int key) {
    return "/bench/key-" + key;
  }

  /** System 1: plain ZooKeeper, one ensemble, reads and writes. */
  static SystemUnderTest plain(PlainEnsemble ensemble) {
    AtomicLong reads = new AtomicLong();
    AtomicLong writes = new AtomicLong();
    return new SystemUnderTest() {
      @Override
      public String name() {
        return "plain";
      }

      @Override
      public String description() {
        return "plain ZooKeeper, standard client, one ensemble: getData and setData";
      }

      @Override
      public CompletableFuture<?> read(int key) {
        reads.incrementAndGet();
        return ensemble.getData(path(key));
      }

      @Override
      public CompletableFuture<?> write(int key, byte[] value) {
        writes.incrementAndGet();
        return ensemble.setData(path(key), value);
      }

      @Override
      public long readMessages() {
        return reads.get();
      }

      @Override
      public long writeMessages() {
        return writes.get();
      }
    };
  }

  /**
   * Writes to every ensemble, acknowledged once all have applied it: without a sequencer, that is
   * what keeps independent ensembles identical for a single writer and lets a later read anywhere
   * see the write.
   */
  private static CompletableFuture<?> writeAll(
      List<PlainEnsemble> ensembles, int key, byte[] value, AtomicLong writes) {
    CompletableFuture<?>[] all = new CompletableFuture<?>[ensembles.size()];
    for (int i = 0; i < all.length; i++) {
      writes.incrementAndGet();
      all[i] = ensembles.get(i).setData(path(key), value);
    }
    return CompletableFuture.allOf(all);
  }

  /**
   * System 2: replication for throughput, reads spread over the ensembles (one request each),
   * writes to all.
   */
  static SystemUnderTest balanced(
      List<PlainEnsemble> ensembles, BenchSettings.Balance balance, long seed) {
    AtomicLong reads = new AtomicLong();
    AtomicLong writes = new AtomicLong();
    SplittableRandom random = new SplittableRandom(seed);
    return new SystemUnderTest() {
      @Override
      public String name() {
        return "balanced";
      }

      @Override
      public String description() {
        return "replication for throughput: "
            + ensembles.size()
            + " plain ensembles, each read to one of them ("
            + (balance == BenchSettings.Balance.ROUND_ROBIN ? "round robin" : "at random")
            + "), each write to all, done when all applied it";
      }

      @Override
      public CompletableFuture<?> read(int key) {
        long n = reads.getAndIncrement();
        int target =
            balance == BenchSettings.Balance.ROUND_ROBIN
                ? (int) (n % ensembles.size())
                : random.nextInt(ensembles.size()); // only the generator's thread reads
        return ensembles.get(target).getData(path(key));
      }

      @Override
      public CompletableFuture<?> write(int key, byte[] value) {
        return writeAll(ensembles, key, value, writes);
      }

      @Override
      public long readMessages() {
        return reads.get();
      }

      @Override
      public long writeMessages() {
        return writes.get();
      }
    };
  }

  /**
   * System 3: client-side hedged reads over plain ensembles (what gRPC, Finagle and the Cassandra
   * driver offer): a read goes to one ensemble (round robin) and, if no reply came within {@code
   * hedgeDelayMicros}, to the next one too; the first reply wins. Writes as in {@link #balanced}.
   *
   * @param hedgeDelayMicros the hedge delay; {@code Long.MAX_VALUE} never hedges (to measure the
   *     delay)
   */
  static SystemUnderTest hedged(
      List<PlainEnsemble> ensembles, long hedgeDelayMicros, double percentile) {
    return hedged(ensembles, hedgeDelayMicros, percentile, "hedged");
  }

  /** {@link #hedged(List, long, double)} under another name. */
  static SystemUnderTest hedged(
      List<PlainEnsemble> ensembles, long hedgeDelayMicros, double percentile, String name) {
    AtomicLong reads = new AtomicLong();
    AtomicLong messages = new AtomicLong();
    AtomicLong writes = new AtomicLong();
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "bench-hedge-timer");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true);
    return new SystemUnderTest() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String description() {
        return "client-side hedged reads: "
            + ensembles.size()
            + " plain ensembles, each read to one (round robin), "
            + "to the next as well if no reply within the p"
            + trim(percentile)
            + " of unhedged read latency measured in warm-up; first reply wins; each write to all";
      }

      @Override
      public CompletableFuture<?> read(int key) {
        int primary = (int) (reads.getAndIncrement() % ensembles.size());
        messages.incrementAndGet();
        CompletableFuture<Integer> a = ensembles.get(primary).getData(path(key));
        if (hedgeDelayMicros == Long.MAX_VALUE) {
          return a;
        }
        CompletableFuture<Object> first = new CompletableFuture<>();
        AtomicInteger pending = new AtomicInteger(1);
        BiConsumer<Object, Throwable> onReply =
            (v, e) -> {
              if (e == null) {
                first.complete(v);
              } else if (pending.decrementAndGet() == 0) {
                first.completeExceptionally(e); // every request sent failed
              }
            };
        ScheduledFuture<?> hedge =
            timer.schedule(
                () -> {
                  if (!first.isDone()) {
                    pending.incrementAndGet();
                    messages.incrementAndGet();
                    ensembles
                        .get((primary + 1) % ensembles.size())
                        .getData(path(key))
                        .whenComplete(onReply);
                  }
                },
                hedgeDelayMicros,
                TimeUnit.MICROSECONDS);
        a.whenComplete(onReply);
        first.whenComplete((v, e) -> hedge.cancel(false));
        return first;
      }

      @Override
      public CompletableFuture<?> write(int key, byte[] value) {
        return writeAll(ensembles, key, value, writes);
      }

      @Override
      public long readMessages() {
        return messages.get();
      }

      @Override
      public long writeMessages() {
        return writes.get();
      }

      @Override
      public double hedgeDelayMs() {
        return hedgeDelayMicros == Long.MAX_VALUE ? Double.NaN : hedgeDelayMicros / 1e3;
      }

      @Override
      public void close() {
        timer.shutdownNow();
      }
    };
  }

  static String trim(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}
