package io.zoolander.server.internal.leader;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.server.Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds back requests of ZooKeeper clients connected to the leader for as long as the plugin asks
 * ({@link io.zoolander.server.LeaderPlugin#clientRequestDelayMs}), then hands them on to the
 * request pipeline. This is how the anomaly injector slows plain ZooKeeper clients of a duplicate
 * like it slows Zoolander's accesses.
 *
 * <p>ZooKeeper answers a session's requests in the order they were sent, and its client drops the
 * connection when a reply comes out of order; so every request of a session that has a request held
 * (of any type) waits behind it, in order, exactly as a real stall of that request would make it
 * wait. Sessions with nothing held are not touched: the common path is one map lookup.
 *
 * <p>Thread-safe: {@link #submit} runs on ZooKeeper's connection threads (one at a time per
 * session), releases run on the scheduler's thread.
 */
final class ClientRequestDelays {

  private static final Logger LOG = LoggerFactory.getLogger(ClientRequestDelays.class);

  /** Asks how long to hold a data request, in milliseconds. */
  @FunctionalInterface
  interface DelayPolicy {
    long delayMs(long sessionId, int xid, boolean write);
  }

  /** Runs a task after a delay; may throw {@link RejectedExecutionException} once closed. */
  @FunctionalInterface
  interface Scheduler {
    void schedule(Runnable task, long delayNanos);
  }

  private record Held(Request request, long dueNanos) {}

  private final DelayPolicy policy;
  private final Consumer<Request> next;
  private final Scheduler scheduler;
  private final LongSupplier nanoTime;
  private final Map<Long, ArrayDeque<Held>> held =
      new ConcurrentHashMap<>(); // queues changed under lock only
  private final Object lock = new Object();

  /**
   * @param policy how long to hold a data request
   * @param next where requests go once released (the server's own submission)
   * @param scheduler runs the releases
   * @param nanoTime the clock of due times
   */
  ClientRequestDelays(
      DelayPolicy policy, Consumer<Request> next, Scheduler scheduler, LongSupplier nanoTime) {
    this.policy = policy;
    this.next = next;
    this.scheduler = scheduler;
    this.nanoTime = nanoTime;
  }

  /**
   * Passes {@code request} on now, or holds it (and later requests of its session) until it is due.
   */
  void submit(Request request) {
    long delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMs(request));
    long session = request.sessionId;
    if (delayNanos <= 0 && !held.containsKey(session)) {
      next.accept(
          request); // nothing of this session is held, and only its own thread could hold something
      return;
    }
    synchronized (lock) {
      ArrayDeque<Held> queue = held.get(session);
      if (queue == null && delayNanos <= 0) {
        next.accept(request);
        return;
      }
      Held h = new Held(request, nanoTime.getAsLong() + delayNanos);
      if (queue != null) {
        queue.add(h);
        return;
      }
      queue = new ArrayDeque<>();
      queue.add(h);
      held.put(session, queue);
      schedule(session, delayNanos);
    }
  }

  /**
   * @return how many requests are held now
   */
  int heldRequests() {
    synchronized (lock) {
      return held.values().stream().mapToInt(ArrayDeque::size).sum();
    }
  }

  /**
   * Hands every held request on now, in order (the server stops; its pipeline refuses or drops
   * them).
   */
  void releaseAll() {
    synchronized (lock) {
      held.values().forEach(queue -> queue.forEach(h -> pass(h.request())));
      held.clear();
    }
  }

  private long delayMs(Request request) {
    if (request.cnxn == null) {
      return 0; // the server's own requests (a session expiry), not a client's
    }
    boolean write;
    switch (request.type) {
      case OpCode.getData,
          OpCode.exists,
          OpCode.getChildren,
          OpCode.getChildren2,
          OpCode.getACL,
          OpCode.getAllChildrenNumber,
          OpCode.getEphemerals,
          OpCode.multiRead ->
          write = false;
      case OpCode.create,
          OpCode.create2,
          OpCode.createTTL,
          OpCode.createContainer,
          OpCode.delete,
          OpCode.deleteContainer,
          OpCode.setData,
          OpCode.setACL,
          OpCode.check,
          OpCode.multi ->
          write = true;
      default -> {
        return 0; // pings, sessions, watches, sync, auth: never held by themselves
      }
    }
    return policy.delayMs(request.sessionId, request.cxid, write);
  }

  /**
   * On the scheduler's thread: hands on the session's requests that are due, in order, and waits
   * for the rest.
   */
  private void release(long session) {
    synchronized (lock) {
      ArrayDeque<Held> queue = held.get(session);
      if (queue == null) {
        return;
      }
      long now = nanoTime.getAsLong();
      while (!queue.isEmpty() && queue.peek().dueNanos() - now <= 0) {
        pass(queue.poll().request());
      }
      if (queue.isEmpty()) {
        held.remove(session);
      } else {
        schedule(session, queue.peek().dueNanos() - now);
      }
    }
  }

  /** Under the lock. */
  private void schedule(long session, long delayNanos) {
    try {
      scheduler.schedule(() -> release(session), delayNanos);
    } catch (RejectedExecutionException e) {
      ArrayDeque<Held> queue = held.remove(session); // closing: nothing is held any longer
      if (queue != null) {
        queue.forEach(h -> pass(h.request()));
      }
    }
  }

  private void pass(Request request) {
    try {
      next.accept(request);
    } catch (RuntimeException e) {
      LOG.debug(
          "A released request of session 0x{} was refused: {}",
          Long.toHexString(request.sessionId),
          e.toString());
    }
  }
}
