package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Message.WatchEvent.Change;
import io.zoolander.wire.WatchEventType;
import io.zoolander.wire.WatchKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watches clients armed on this duplicate (WATCH, UNWATCH), and the WATCH_EVENTs they get: each
 * applied write's changes ({@link WatchChanges}) go to the watches they concern, tagged with the
 * write's seq, and into the {@link WatchLog} from which a watch armed with a {@code sinceSeq} gets
 * what it missed (or RESYNC when the log no longer reaches back that far). A state transfer, or a
 * write applied by an attempt whose results are lost, sends RESYNC to every watch. A client
 * connection that does not read its events (more than {@link #MAX_PENDING_BYTES} queued) is closed
 * (it arms its watches again when it reconnects, from the last seq it delivered), so nothing piles
 * up here and nothing is silently dropped. Owned by the applier thread (asserted).
 */
final class Watches {

  private static final Logger LOG = LoggerFactory.getLogger(Watches.class);

  /**
   * Bytes queued for a client connection (events, replies) beyond which it counts as not reading
   * its events: far above Netty's write buffer mark (64 KiB), so that a replay of many events or a
   * burst does not trip it.
   */
  static final long MAX_PENDING_BYTES = 16L * 1024 * 1024;

  /** One armed watch. */
  private record Watch(
      Channel channel, long clientId, long watchId, WatchKind kind, String path, long skipThrough) {

    /** Whether a change of {@code type} to {@code changed} concerns this watch. */
    boolean concerns(WatchEventType type, String changed) {
      return switch (kind) {
        case DATA ->
            changed.equals(path)
                && (type == WatchEventType.NODE_CREATED
                    || type == WatchEventType.NODE_DELETED
                    || type == WatchEventType.NODE_DATA_CHANGED);
        case CHILDREN ->
            changed.equals(path)
                && (type == WatchEventType.NODE_CHILDREN_CHANGED
                    || type == WatchEventType.NODE_DELETED);
        case PERSISTENT_RECURSIVE ->
            type != WatchEventType.NODE_CHILDREN_CHANGED && under(changed, path);
      };
    }
  }

  private final ApplierThread owner;
  private final int duplicateId;
  private final LongSupplier appliedSeq;
  private final WatchLog log;
  private final int maxPerConnection;
  private final Consumer<Channel> firstWatch;
  private final Map<Channel, Map<Long, Watch>> byChannel = new HashMap<>();

  /** DATA and CHILDREN watches by their path. */
  private final Map<String, List<Watch>> exact = new HashMap<>();

  /** PERSISTENT_RECURSIVE watches by their path. */
  private final Map<String, List<Watch>> recursive = new HashMap<>();

  private int count;
  private volatile int armed; // count, published for the meters
  private volatile long eventsSent; // written by the applier thread only

  /**
   * @param appliedSeq this duplicate's applied seq
   * @param firstWatch told of a connection's first watch, so that its watches are removed ({@link
   *     #closed}) when it closes
   */
  Watches(
      ApplierThread owner,
      int duplicateId,
      LongSupplier appliedSeq,
      WatchLog log,
      int maxPerConnection,
      Consumer<Channel> firstWatch) {
    this.owner = owner;
    this.duplicateId = duplicateId;
    this.appliedSeq = appliedSeq;
    this.log = log;
    this.maxPerConnection = maxPerConnection;
    this.firstWatch = firstWatch;
  }

  /** Watches armed, on every connection. */
  int count() {
    return count;
  }

  /** Watches armed, as of the applier's last change to them. Any thread. */
  int armed() {
    return armed;
  }

  /** WATCH_EVENTs with changes (RESYNC included) sent so far. Any thread. */
  long eventsSent() {
    return eventsSent;
  }

  /**
   * A client asks for {@code request} on {@code from}: armed (replacing a watch of the same id),
   * sent what it missed since its {@code sinceSeq} (or RESYNC), then acknowledged (a WATCH_EVENT
   * without changes at the applied seq); or refused with OVERLOADED. A one-shot watch that fires on
   * what it missed is not armed, nor acknowledged.
   */
  void watch(Channel from, Message.Watch request) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    if (!from.isActive()) {
      return;
    }
    Map<Long, Watch> mine = byChannel.get(from);
    if (mine != null) {
      remove(mine.get(request.watchId()));
    }
    if ((mine == null ? 0 : mine.size()) >= maxPerConnection) {
      Outbound.send(
          from,
          new Message.Error(
              ErrorCode.OVERLOADED,
              request.watchId(),
              0,
              "duplicate "
                  + duplicateId
                  + ": this connection has "
                  + maxPerConnection
                  + " watches armed already (zoolander.plugin.maxWatchesPerConnection)"));
      return;
    }
    if (mine == null) {
      mine = new HashMap<>();
      byChannel.put(from, mine);
      firstWatch.accept(from);
    }
    long applied = appliedSeq.getAsLong();
    Watch watch =
        new Watch(
            from,
            request.clientId(),
            request.watchId(),
            request.kind(),
            request.path(),
            request.sinceSeq());
    if (request.sinceSeq() < applied) {
      if (request.sinceSeq() >= log.completeAfter()) {
        List<WatchLog.Entry> missed =
            watch.kind() == WatchKind.PERSISTENT_RECURSIVE
                ? log.after(request.sinceSeq())
                : log.after(watch.path(), request.sinceSeq());
        for (WatchLog.Entry entry : missed) {
          List<Change> concerned = concerning(watch, entry.changes());
          if (!concerned.isEmpty()) {
            send(watch, entry.seq(), concerned);
            if (watch.kind().oneShot()) {
              return; // fired: not armed any more
            }
          }
        }
      } else {
        resync(watch, applied);
        if (watch.kind().oneShot()) {
          return;
        }
      }
    }
    // Armed, and every change up to the applied seq that concerns the watch has been sent before
    // this (on this connection, in order): the client may count the watch complete up to it.
    send(watch, applied, List.of());
    mine.put(watch.watchId(), watch);
    index(watch);
    count++;
    armed = count;
  }

  /** A client removes its watch {@code watchId} on {@code from}; unknown ids are ignored. */
  void unwatch(Channel from, long watchId) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    Map<Long, Watch> mine = byChannel.get(from);
    if (mine != null) {
      remove(mine.get(watchId));
    }
  }

  /** {@code from} closed: its watches are gone. */
  void closed(Channel from) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    Map<Long, Watch> mine = byChannel.remove(from);
    if (mine != null) {
      for (Watch w : List.copyOf(mine.values())) {
        unindex(w);
        count--;
      }
      armed = count;
    }
  }

  /** Write {@code seq}, the next applied, made {@code changes}: logged and sent to its watches. */
  void applied(long seq, List<Change> changes) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    log.record(seq, changes);
    if (count == 0 || changes.isEmpty()) {
      return;
    }
    Map<Watch, List<Change>> out = new LinkedHashMap<>();
    for (Change change : changes) {
      List<Watch> onPath = exact.get(change.path());
      if (onPath != null) {
        for (Watch w : onPath) {
          if (w.concerns(change.type(), change.path())) {
            out.computeIfAbsent(w, k -> new ArrayList<>()).add(change);
          }
        }
      }
      if (!recursive.isEmpty() && change.type() != WatchEventType.NODE_CHILDREN_CHANGED) {
        for (String p = change.path(); p != null; p = p.equals("/") ? null : parentOf(p)) {
          List<Watch> above = recursive.get(p);
          if (above != null) {
            for (Watch w : above) {
              out.computeIfAbsent(w, k -> new ArrayList<>()).add(change);
            }
          }
        }
      }
    }
    for (Map.Entry<Watch, List<Change>> e : out.entrySet()) {
      Watch w = e.getKey();
      if (seq <= w.skipThrough()) {
        continue; // the client has it from a duplicate ahead of this one
      }
      send(w, seq, e.getValue());
      if (w.kind().oneShot()) {
        remove(w);
      }
    }
  }

  /**
   * This duplicate cannot say what changed up to {@code seq} (a state transfer installed it, or a
   * write's results were lost): every watch gets RESYNC, and the log starts again after {@code
   * seq}.
   */
  void resyncAll(long seq) {
    assert owner.isCurrent() : ApplierThread.ONLY;
    log.reset(seq);
    for (Map<Long, Watch> mine : List.copyOf(byChannel.values())) {
      for (Watch w : List.copyOf(mine.values())) {
        if (seq > w.skipThrough()) {
          resync(w, seq);
          if (w.kind().oneShot()) {
            remove(w);
          }
        }
      }
    }
  }

  private void resync(Watch w, long seq) {
    send(w, seq, List.of(new Change(WatchEventType.RESYNC, w.path())));
  }

  private static List<Change> concerning(Watch w, List<Change> changes) {
    List<Change> out = new ArrayList<>();
    for (Change c : changes) {
      if (w.concerns(c.type(), c.path())) {
        out.add(c);
      }
    }
    return out;
  }

  // eventsSent++ is not atomic, but only the applier thread writes it (every caller asserts it
  // runs there); it is volatile for the meter's readers.
  @SuppressWarnings("NonAtomicVolatileUpdate")
  private void send(Watch w, long seq, List<Change> changes) {
    Channel channel = w.channel();
    if (!channel.isActive()) {
      return;
    }
    ChannelOutboundBuffer pending = channel.unsafe().outboundBuffer();
    if (pending != null && pending.totalPendingWriteBytes() > MAX_PENDING_BYTES) {
      LOG.warn(
          "Duplicate {}: client {} does not read its watch events; closing its connection (it arms"
              + " its watches again from the last seq it delivered)",
          duplicateId,
          w.clientId());
      channel.close();
      return;
    }
    channel.writeAndFlush(
        new Message.WatchEvent(w.clientId(), w.watchId(), duplicateId, seq, changes));
    if (!changes.isEmpty()) {
      eventsSent++;
    }
  }

  private void index(Watch w) {
    (w.kind() == WatchKind.PERSISTENT_RECURSIVE ? recursive : exact)
        .computeIfAbsent(w.path(), k -> new ArrayList<>())
        .add(w);
  }

  private void unindex(Watch w) {
    Map<String, List<Watch>> index = w.kind() == WatchKind.PERSISTENT_RECURSIVE ? recursive : exact;
    List<Watch> onPath = index.get(w.path());
    if (onPath != null) {
      onPath.remove(w);
      if (onPath.isEmpty()) {
        index.remove(w.path());
      }
    }
  }

  private void remove(Watch w) {
    if (w == null) {
      return;
    }
    Map<Long, Watch> mine = byChannel.get(w.channel());
    if (mine != null && mine.remove(w.watchId(), w)) {
      unindex(w);
      count--;
      armed = count;
    }
  }

  /** Whether {@code changed} is {@code path} or below it. */
  static boolean under(String changed, String path) {
    return path.equals("/")
        || changed.equals(path)
        || (changed.startsWith(path) && changed.charAt(path.length()) == '/');
  }

  private static String parentOf(String path) {
    return WatchChanges.parent(path);
  }
}
