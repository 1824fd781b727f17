package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.wire.Op;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A write workload for the write-path tests: each client owns {@code /c<i>}, and alternately
 * appends a sequential child holding its write counter and sets {@code /c<i>}'s data to the
 * counter. Per-client order is then visible in every duplicate: the sequential children's counters
 * must increase with their names, and {@code /c<i>}'s version must equal the number of setData
 * calls (a write applied twice would raise it).
 */
final class WriteWorkload {
  private WriteWorkload() {}

  /** What one client did. */
  record ClientRun(
      int client, int sequentialCreates, int setDatas, long lastSeq, List<String> problems) {}

  static String parent(int client) {
    return "/c" + client;
  }

  /**
   * Runs {@code writes} writes on {@code client} (after creating its parent), at most {@code
   * window} in flight; checks that the seqs it is given increase in the order it issued the writes.
   */
  static ClientRun run(ZoolanderClient client, int index, int writes, int window)
      throws InterruptedException {
    List<String> problems = new ArrayList<>();
    WriteResult created = client.create(parent(index), bytes(-1)).join();
    assertThat(created.succeeded()).as("create %s: %s", parent(index), created).isTrue();
    Semaphore inFlight = new Semaphore(window);
    ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<WriteResult>> futures = new ArrayList<>(writes);
    int creates = 0;
    int sets = 0;
    for (int k = 0; k < writes; k++) {
      inFlight.acquire();
      Op op;
      if (k % 2 == 0) {
        op = Op.createSequential(parent(index) + "/w-", bytes(k));
        creates++;
      } else {
        op = Op.setData(parent(index), bytes(k), -1);
        sets++;
      }
      int counter = k;
      CompletableFuture<WriteResult> f = client.write(List.of(op));
      f.whenComplete(
          (r, e) -> {
            inFlight.release();
            if (e != null) {
              errors.add("write " + counter + " failed: " + e);
            } else if (!r.succeeded()) {
              errors.add("write " + counter + " returned " + r.code());
            }
          });
      futures.add(f);
    }
    inFlight.acquire(window);
    long previous = created.seq();
    for (int k = 0; k < futures.size(); k++) {
      CompletableFuture<WriteResult> f = futures.get(k);
      if (f.isCompletedExceptionally()) {
        continue;
      }
      long seq = f.join().seq();
      if (seq <= previous) {
        problems.add("write " + k + " got seq " + seq + " after " + previous);
      }
      previous = seq;
    }
    problems.addAll(errors);
    return new ClientRun(index, creates, sets, previous, problems);
  }

  static byte[] bytes(int counter) {
    return Integer.toString(counter).getBytes(StandardCharsets.UTF_8);
  }

  static int counter(byte[] data) {
    return Integer.parseInt(new String(data, StandardCharsets.UTF_8));
  }

  static void await(CompletableFuture<?> f) throws Exception {
    f.get(60, TimeUnit.SECONDS);
  }
}
