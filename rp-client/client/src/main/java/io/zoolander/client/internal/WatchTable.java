package io.zoolander.client.internal;

import io.netty.channel.EventLoop;
import io.zoolander.client.WatchEvent;
import io.zoolander.client.WatchHandle;
import io.zoolander.client.Watcher;
import io.zoolander.client.ZoolanderException;
import io.zoolander.wire.Message;
import io.zoolander.wire.WatchEventType;
import io.zoolander.wire.WatchKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's watches: each is armed (WATCH) on every duplicate link that is ready, and armed
 * again on a link whenever it becomes ready (a reconnect, a leader change in the duplicate), from
 * the last seq delivered, so the duplicate sends what happened meanwhile (or RESYNC). Of the
 * WATCH_EVENTs the duplicates send, the first for a seq above the last delivered is delivered
 * ({@link WatchDelivery}) and the others dropped: once per change, in seq order. The client's read
 * floor is raised to an event's seq before the watcher sees it. A duplicate that lost track (it
 * restarted, or rejoined by a state transfer) sends RESYNC; while another duplicate still reports
 * every change, that RESYNC is held back and the lost one's reports are left to the other until it
 * has caught up with them; only if the other goes away first is the RESYNC delivered. A one-shot
 * watch is removed (UNWATCH on every link) once it fired. Confined to the client's event loop,
 * except {@link #add} and {@link #remove}, which hop onto it.
 */
final class WatchTable {

  private static final Logger LOG = LoggerFactory.getLogger(WatchTable.class);

  private final long clientId;
  private final EventLoop loop;
  private final List<PeerLink> plugins;
  private final LongConsumer advanceSeen;
  private final WatchDelivery delivery;
  private final long armTimeoutMs;
  private final Map<Long, ClientWatch> watches = new HashMap<>();

  /** One watch. Fields are confined to the event loop. */
  private final class ClientWatch implements WatchHandle {
    final long id;
    final WatchKind kind;
    final String path;
    final Watcher watcher;
    final CompletableFuture<WatchHandle> armed;

    /** The highest seq delivered (or, before the first event, the seq the watch starts after). */
    long delivered;

    /** Set by {@link #close()} on the caller's thread: events still queued are not delivered. */
    volatile boolean closed;

    /**
     * Links whose stream (on their current connection) holds every change after {@link #delivered}:
     * those that acknowledged the watch, and were not behind.
     */
    final Set<PeerLink> complete = new HashSet<>();

    /**
     * Links that sent RESYNC while another link was complete: their stream is complete only after
     * the seq here (the RESYNC's, or a later event of theirs held back), so their reports above
     * {@link #delivered} are left to the complete link until it has delivered up to that seq.
     */
    final Map<PeerLink, Long> behind = new HashMap<>();

    /** Links that refused the watch. */
    final Set<PeerLink> refusedBy = new HashSet<>();

    ClientWatch(
        long id,
        WatchKind kind,
        String path,
        long since,
        Watcher watcher,
        CompletableFuture<WatchHandle> armed) {
      this.id = id;
      this.kind = kind;
      this.path = path;
      this.delivered = since;
      this.watcher = watcher;
      this.armed = armed;
    }

    @Override
    public String path() {
      return path;
    }

    @Override
    public void close() {
      closed = true;
      remove(id);
    }

    Message.Watch message() {
      return new Message.Watch(clientId, id, kind, path, delivered);
    }
  }

  /**
   * @param plugins the duplicate links, by index (it grows when a duplicate is added while the
   *     client runs; a retired duplicate's link stays in it, closed)
   * @param advanceSeen raises the client's read floor
   * @param armTimeoutMs how long {@link #add}'s future waits for a duplicate to arm the watch
   */
  WatchTable(
      long clientId,
      EventLoop loop,
      List<PeerLink> plugins,
      LongConsumer advanceSeen,
      WatchDelivery delivery,
      long armTimeoutMs) {
    this.clientId = clientId;
    this.loop = loop;
    this.plugins = plugins;
    this.advanceSeen = advanceSeen;
    this.delivery = delivery;
    this.armTimeoutMs = armTimeoutMs;
  }

  /**
   * Arms watch {@code id} on every ready link, for the changes after {@code sinceSeq}. Any thread.
   *
   * @return completes with the watch once a duplicate armed it; fails when every duplicate refused
   *     it, or none armed it within the arm timeout (and the watch is removed)
   */
  CompletableFuture<WatchHandle> add(
      long id, WatchKind kind, String path, long sinceSeq, Watcher watcher) {
    CompletableFuture<WatchHandle> armed = new CompletableFuture<>();
    ClientWatch w = new ClientWatch(id, kind, path, sinceSeq, watcher, armed);
    if (loop.inEventLoop()) {
      arm(w);
    } else {
      loop.execute(() -> arm(w));
    }
    return armed;
  }

  private void arm(ClientWatch w) {
    watches.put(w.id, w);
    Message.Watch m = w.message();
    for (PeerLink link : plugins) {
      link.send(m);
    }
    if (w.kind.oneShot()) {
      return; // armed with a read a duplicate answered; kept until it fires, across reconnects
    }
    loop.schedule(
        () -> {
          if (!w.armed.isDone()) {
            fail(
                w,
                new ZoolanderException(
                    KeeperException.Code.CONNECTIONLOSS,
                    "no duplicate armed the watch on " + w.path + " in " + armTimeoutMs + " ms"));
          }
        },
        armTimeoutMs,
        TimeUnit.MILLISECONDS);
  }

  /** Removes watch {@code id} here and on every link. Any thread; idempotent. */
  void remove(long id) {
    if (!loop.inEventLoop()) {
      loop.execute(() -> remove(id));
      return;
    }
    if (watches.remove(id) != null) {
      Message.Unwatch m = new Message.Unwatch(clientId, id);
      for (PeerLink link : plugins) {
        link.send(m);
      }
    }
  }

  /**
   * {@code link} became ready (connected again, perhaps to a new leader): arm every watch there.
   */
  void linkReady(PeerLink link) {
    assert loop.inEventLoop();
    for (ClientWatch w : List.copyOf(watches.values())) {
      w.refusedBy.remove(link);
      w.complete.remove(link);
      w.behind.remove(link);
      link.send(w.message());
    }
  }

  /**
   * {@code link} is no longer connected. A watch that held back a RESYNC from another link because
   * this one was complete, and has no complete link left, delivers that RESYNC now: what this link
   * had not sent yet may be missing.
   */
  void linkLost(PeerLink link) {
    assert loop.inEventLoop();
    for (ClientWatch w : List.copyOf(watches.values())) {
      w.complete.remove(link);
      w.behind.remove(link);
      if (w.behind.isEmpty() || hasComplete(w, null)) {
        continue;
      }
      long upTo = w.delivered;
      for (long seq : w.behind.values()) {
        upTo = Math.max(upTo, seq);
      }
      w.complete.addAll(w.behind.keySet()); // complete after their seq, which upTo covers
      w.behind.clear();
      if (upTo > w.delivered) {
        deliver(w, upTo, List.of(new WatchEvent(WatchEvent.Type.RESYNC, w.path, upTo)));
      }
    }
  }

  /** Whether a link other than {@code except} is ready and complete for {@code w}. */
  private static boolean hasComplete(ClientWatch w, PeerLink except) {
    for (PeerLink l : w.complete) {
      if (l != except && l.isReady()) {
        return true;
      }
    }
    return false;
  }

  /** A WATCH_EVENT from {@code from}: delivered if it is the first report of a newer seq. */
  void onEvent(PeerLink from, Message.WatchEvent event) {
    assert loop.inEventLoop();
    ClientWatch w = watches.get(event.watchId());
    if (w == null) {
      return; // removed, or a one-shot that fired already
    }
    if (event.armed()) {
      if (!w.behind.containsKey(from)) {
        // That duplicate has sent every change up to event.seq() since the WATCH's sinceSeq (at
        // most what had been delivered then): nothing up to it is missing any more. A watch armed
        // again later starts from there, however idle it was.
        w.complete.add(from);
        w.delivered = Math.max(w.delivered, event.seq());
        caughtUp(w);
      }
      w.armed.complete(w);
      return;
    }
    if (event.seq() <= w.delivered) {
      return; // a slower duplicate's copy of a change delivered already
    }
    Long behind = w.behind.get(from);
    boolean resync =
        event.changes().size() == 1 && event.changes().get(0).type() == WatchEventType.RESYNC;
    if (behind != null || (resync && hasComplete(w, from))) {
      // This duplicate lost track (a restart, a state transfer) while another one still reports
      // every change: that one's reports are delivered instead, and a RESYNC only if it goes away.
      w.complete.remove(from);
      w.behind.put(from, Math.max(event.seq(), behind == null ? 0 : behind));
      return;
    }
    List<WatchEvent> events = new ArrayList<>(event.changes().size());
    for (Message.WatchEvent.Change c : event.changes()) {
      events.add(new WatchEvent(WatchEvent.Type.valueOf(c.type().name()), c.path(), event.seq()));
    }
    deliver(w, event.seq(), events);
  }

  /** Delivers {@code events} of {@code seq}, the next delivered for {@code w}. */
  private void deliver(ClientWatch w, long seq, List<WatchEvent> events) {
    w.delivered = seq;
    advanceSeen.accept(seq);
    caughtUp(w);
    if (w.kind.oneShot()) {
      events = events.subList(0, 1); // a one-shot watch fires once
      remove(w.id);
    }
    delivery.deliver(w.watcher, events, () -> !w.closed);
  }

  /** The links behind that the delivered seq has caught up with are complete again. */
  private static void caughtUp(ClientWatch w) {
    if (w.behind.isEmpty()) {
      return;
    }
    var it = w.behind.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<PeerLink, Long> e = it.next();
      if (e.getValue() <= w.delivered) {
        w.complete.add(e.getKey());
        it.remove();
      }
    }
  }

  /**
   * An ERROR from {@code from}; true if it refuses a watch (its request id is a watch id). A watch
   * every duplicate refused is removed (its future fails).
   */
  boolean onError(PeerLink from, Message.Error error) {
    assert loop.inEventLoop();
    ClientWatch w = watches.get(error.requestId());
    if (w == null) {
      return false;
    }
    LOG.warn(
        "{} refused the watch on {}: {}: {}", from.name(), w.path, error.code(), error.message());
    w.refusedBy.add(from);
    // Every link still open refused it (a retired duplicate's link is closed and does not count).
    if (plugins.stream().filter(l -> !l.isClosed()).allMatch(w.refusedBy::contains)) {
      fail(
          w,
          new ZoolanderException(
              KeeperException.Code.BADARGUMENTS,
              error.code(),
              "every duplicate refused the watch on " + w.path + ": " + error.message(),
              null));
    }
    return true;
  }

  private void fail(ClientWatch w, ZoolanderException e) {
    if (w.armed.completeExceptionally(e)) {
      remove(w.id);
      if (w.kind.oneShot()) {
        LOG.warn("one-shot watch on {} dropped: {}", w.path, e.getMessage());
      }
    }
  }

  /** Watches armed (for tests). */
  int size() {
    assert loop.inEventLoop();
    return watches.size();
  }

  /** Forgets every watch (the client closes). */
  void clear() {
    assert loop.inEventLoop();
    for (ClientWatch w : watches.values()) {
      w.armed.completeExceptionally(
          new ZoolanderException(KeeperException.Code.CONNECTIONLOSS, "client is closed"));
    }
    watches.clear();
  }
}
