package io.zoolander.server.internal.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.server.DumbWatcher;
import org.apache.zookeeper.server.Request;
import org.junit.jupiter.api.Test;

/**
 * Holding client requests: per-session order, other sessions untouched, on a manual clock and
 * scheduler.
 */
class ClientRequestDelaysTest {

  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final List<Runnable> tasks = new ArrayList<>();
  private final List<Long> taskDelays = new ArrayList<>();
  private final List<String> passed = new ArrayList<>();
  private final List<String> asked = new ArrayList<>();
  private final Map<Integer, Long> delayByXid = new HashMap<>();
  private boolean schedulerClosed;

  private final ClientRequestDelays delays =
      new ClientRequestDelays(
          (session, xid, write) -> {
            asked.add(session + ":" + xid + (write ? "w" : "r"));
            return delayByXid.getOrDefault(xid, 0L);
          },
          r -> passed.add(r.sessionId + ":" + r.cxid),
          (task, delayNanos) -> {
            if (schedulerClosed) {
              throw new RejectedExecutionException("closed");
            }
            tasks.add(task);
            taskDelays.add(delayNanos);
          },
          clock::get);

  private static Request request(long session, int xid, int type) {
    return new Request(new DumbWatcher(session), session, xid, type, null, null);
  }

  private void advanceMs(long ms) {
    clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  private void runTasks() {
    List<Runnable> due = new ArrayList<>(tasks);
    tasks.clear();
    due.forEach(Runnable::run);
  }

  @Test
  void aRequestNobodyDelaysPassesAtOnceWithoutTheScheduler() {
    delays.submit(request(1, 1, OpCode.getData));
    delays.submit(request(1, 2, OpCode.setData));
    assertThat(passed).containsExactly("1:1", "1:2");
    assertThat(asked).containsExactly("1:1r", "1:2w");
    assertThat(tasks).isEmpty();
  }

  @Test
  void aHeldRequestHoldsTheLaterRequestsOfItsSessionInOrderButNoOtherSession() {
    delayByXid.put(1, 50L);
    delayByXid.put(3, 10L);
    delays.submit(request(7, 1, OpCode.getData)); // held 50 ms
    delays.submit(request(7, 2, OpCode.exists)); // not delayed itself, but behind 1
    delays.submit(request(7, 3, OpCode.setData)); // due after 10 ms, still behind 1
    delays.submit(
        request(7, 4, OpCode.ping)); // not a data request: never asked about, but behind 1
    delays.submit(request(8, 2, OpCode.getData)); // another session: passes at once
    assertThat(passed).containsExactly("8:2");
    assertThat(asked).doesNotContain("7:4r", "7:4w");
    assertThat(delays.heldRequests()).isEqualTo(4);
    assertThat(taskDelays).containsExactly(TimeUnit.MILLISECONDS.toNanos(50));

    advanceMs(50);
    runTasks();
    assertThat(passed).containsExactly("8:2", "7:1", "7:2", "7:3", "7:4");
    assertThat(delays.heldRequests()).isZero();

    delays.submit(request(7, 5, OpCode.getData)); // the session is free again
    assertThat(passed).endsWith("7:5");
  }

  @Test
  void aLaterRequestDueAfterTheHeadIsReleasedOnItsOwnTime() {
    delayByXid.put(1, 20L);
    delayByXid.put(2, 100L);
    delays.submit(request(3, 1, OpCode.getData));
    advanceMs(5);
    delays.submit(request(3, 2, OpCode.getData)); // due at 105 ms
    delays.submit(request(3, 3, OpCode.getData)); // behind 2
    advanceMs(15);
    runTasks();
    assertThat(passed).containsExactly("3:1");
    assertThat(taskDelays).last().isEqualTo(TimeUnit.MILLISECONDS.toNanos(85));
    advanceMs(85);
    runTasks();
    assertThat(passed).containsExactly("3:1", "3:2", "3:3");
  }

  @Test
  void theServersOwnRequestsAreNeverAskedAbout() {
    delayByXid.put(0, 1_000L);
    delays.submit(new Request(null, 4, 0, OpCode.closeSession, null, null));
    assertThat(asked).isEmpty();
    assertThat(passed).containsExactly("4:0");
  }

  @Test
  void onceTheSchedulerIsClosedNothingIsHeld() {
    delayByXid.put(1, 1_000L);
    schedulerClosed = true;
    delays.submit(request(2, 1, OpCode.getData));
    delays.submit(request(2, 2, OpCode.getData));
    assertThat(passed).containsExactly("2:1", "2:2");
    assertThat(delays.heldRequests()).isZero();
  }

  @Test
  void releaseAllHandsEveryHeldRequestOnInOrder() {
    delayByXid.put(1, 1_000L);
    delays.submit(request(2, 1, OpCode.getData));
    delays.submit(request(2, 2, OpCode.setData));
    delays.releaseAll();
    assertThat(passed).containsExactly("2:1", "2:2");
    runTasks(); // the release that was scheduled finds nothing
    assertThat(passed).containsExactly("2:1", "2:2");
  }
}
