package io.zoolander.client.internal;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.zoolander.client.BlockingZoolanderClient;
import io.zoolander.client.ConnectionState;
import io.zoolander.client.ConnectionStateListener;
import io.zoolander.client.InconsistencyEvent;
import io.zoolander.client.InconsistencyListener;
import io.zoolander.client.NodeData;
import io.zoolander.client.Peer;
import io.zoolander.client.ReadPolicy;
import io.zoolander.client.ReplyEvent;
import io.zoolander.client.ReplyListener;
import io.zoolander.client.WatchHandle;
import io.zoolander.client.Watcher;
import io.zoolander.client.WriteResult;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderException;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Membership;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.ReadKind;
import io.zoolander.wire.WatchKind;
import io.zoolander.wire.internal.RecordWatcher;
import io.zoolander.wire.internal.WriteChecks;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.common.PathUtils;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client implementation. One event-loop thread owns every piece of mutable state (pending
 * requests, ranking, adaptive policy, meters, the set of duplicates), so there are no locks on the
 * request path: public methods hand their work to it, and replies are handled where their bytes
 * arrive. The writes in flight live in {@link ClientWrites}, the reads in {@link ClientReads}, the
 * barriers in {@link ClientBarriers}, the watches in {@link WatchTable}; this class dispatches to
 * them and keeps the membership and the links.
 *
 * <p>The set of duplicates follows the membership record ({@link Membership}, in {@link
 * io.zoolander.wire.Znodes#members()}), watched in every duplicate known by connect string: an
 * active member without a link gets one, appended (indexes never move: {@code plugins}, the
 * ranking, the slowness table and the meters all grow by one), a linked duplicate the newest record
 * no longer lists is retired (its link and watchers closed, its index left in place and never read
 * from or waited for again), and a joining one is linked but not read from. Those changes are made
 * on the event loop too; {@code plugins} is copy-on-write so that other threads (the
 * connection-state query, connecting) may read it. Internal: not part of the public API.
 */
public final class DefaultZoolanderClient implements ZoolanderClient {
  private static final Logger LOG = LoggerFactory.getLogger(DefaultZoolanderClient.class);

  /** How many answered writes and reads are kept to compare later replies from other duplicates. */
  static final int ANSWERED_KEPT = 4_096;

  static final long DEFAULT_RETRY_AFTER_MS = 50;

  private final ClientSettings settings;
  private final EventLoopGroup group;
  private final EventLoop loop;
  private final PeerLink repeater;
  private final ClientWrites writes;
  private final ClientReads reads;
  private final ClientBarriers barriers;
  private final RepeaterDiscovery discovery;

  /** The duplicate links by index; appended to on the event loop, read by any thread. */
  private final List<PeerLink> plugins = new CopyOnWriteArrayList<>();

  /** Where each link stands in the newest membership record (event loop, see MemberTable). */
  private final MemberTable members = new MemberTable();

  /**
   * The ZooKeeper watchers of each link's ensemble (its endpoint record, the membership record), by
   * link index; guarded by itself, so that a watcher started on the event loop is not missed by
   * {@link #close()}.
   */
  private final Map<Integer, List<RecordWatcher<?>>> watchers = new HashMap<>();

  /** Whether a forced reconciliation of the membership record is scheduled (event loop). */
  private boolean forcedReconcileScheduled;

  /** Membership records read, followed or not (event loop; for tests). */
  private long membershipRecordsRead;

  private final DuplicateRanking ranking;
  private final PlannedSlownessTable slowness;
  private final AdaptiveConcurrency concurrency;
  private final ClientMetrics metrics;
  private final WatchDelivery watchDelivery = new WatchDelivery();

  /** Watches (event loop only, see WatchTable). */
  private final WatchTable watchTable;

  /** Read retries draw on it (event loop only). */
  private final AtomicLong nextRequestId = new AtomicLong();

  private final AtomicLong lastSeenSeq = new AtomicLong();
  private final List<ConnectionStateListener> stateListeners = new CopyOnWriteArrayList<>();
  private final List<InconsistencyListener> inconsistencyListeners = new CopyOnWriteArrayList<>();
  private final List<ReplyListener> replyListeners = new CopyOnWriteArrayList<>();
  // Event-loop confined:
  private volatile boolean closed;

  private DefaultZoolanderClient(ClientSettings settings) {
    this.settings = settings;
    this.group = new NioEventLoopGroup(1, new DefaultThreadFactory("zoolander-client", true));
    this.loop = group.next();
    int n = settings.duplicates().size();
    this.ranking = new DuplicateRanking(n);
    this.slowness = new PlannedSlownessTable(n, settings.ticker());
    this.concurrency = new AdaptiveConcurrency(settings.readPolicy(), n, settings.ticker());
    this.metrics = new ClientMetrics(settings.meterRegistry(), n, concurrency, settings.slaTauMs());
    this.repeater =
        new PeerLink(
            "repeater",
            settings.clientId(),
            loop,
            false,
            settings.sessionTimeoutMs(),
            this::onMessage,
            this::onState,
            settings.tls(),
            settings.credential(),
            Credential.REPEATER);
    RequestsHost host = new RequestsHost();
    this.writes =
        new ClientWrites(settings, loop, repeater, plugins, metrics, nextRequestId, lru(), host);
    this.reads =
        new ClientReads(
            settings,
            loop,
            plugins,
            ranking,
            slowness,
            concurrency,
            metrics,
            nextRequestId,
            lru(),
            host);
    this.barriers = new ClientBarriers(settings, loop, plugins, members, nextRequestId, host);
    this.discovery = new RepeaterDiscovery(repeater, settings.repeaters());
    this.watchTable =
        new WatchTable(
            settings.clientId(),
            loop,
            plugins,
            this::advanceSeen,
            watchDelivery,
            settings.requestTimeoutMs());
  }

  private static <V> Map<Long, V> lru() {
    return new LinkedHashMap<>(256, 0.75f, false) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, V> eldest) {
        return size() > ANSWERED_KEPT;
      }
    };
  }

  /** Builds and connects a client; see {@code ZoolanderClientBuilder#build()}. */
  public static DefaultZoolanderClient connect(ClientSettings settings) {
    DefaultZoolanderClient client = new DefaultZoolanderClient(settings);
    try {
      client.repeater.targets(settings.repeaters());
      client.discovery.start(settings);
      for (DuplicateTarget target : settings.duplicates()) {
        int index = client.link(target.connectString(), -1);
        if (target.endpoint() != null) {
          client.plugins.get(index).target(target.endpoint());
        } else {
          client.watchEndpoint(index, target.connectString());
        }
      }
      // Only once every configured duplicate has its index: a record may name any of them.
      for (int i = 0; i < settings.duplicates().size(); i++) {
        String connectString = settings.duplicates().get(i).connectString();
        if (connectString != null) {
          client.watchMembers(i, connectString);
        }
      }
      client.awaitConnected(settings.connectTimeoutMs());
      return client;
    } catch (IOException | RuntimeException e) {
      client.close();
      if (e instanceof ZoolanderException z) {
        throw z;
      }
      throw new ZoolanderException(
          KeeperException.Code.CONNECTIONLOSS, null, "cannot connect: " + e, e);
    }
  }

  /**
   * Appends a duplicate link (not connected yet). The configured duplicates are linked by {@link
   * #connect} before anything runs on the event loop, in the tables sized for them; a duplicate
   * learned from the membership record is linked on the event loop, and the tables grow by one.
   *
   * @param connectString its ensemble's connect string, null for a fixed endpoint
   * @param duplicateId the duplicate it serves, -1 if not known yet
   * @return its index
   */
  private int link(@Nullable String connectString, int duplicateId) {
    int index = plugins.size();
    PeerLink link =
        new PeerLink(
            "duplicate[" + index + "]",
            settings.clientId(),
            loop,
            true,
            settings.sessionTimeoutMs(),
            this::onMessage,
            this::onState,
            settings.tls(),
            settings.credential(),
            Credential.ANY_DUPLICATE);
    if (index >= ranking.size()) { // learned while running (event loop): grow every table
      ranking.add();
      slowness.add();
      metrics.add();
    }
    members.add(connectString, duplicateId, MemberTable.Standing.ACTIVE);
    plugins.add(link); // second: an index in plugins is in members (other threads read both)
    return index;
  }

  /**
   * Points link {@code index} at the plugin its ensemble's endpoint record names, as it changes.
   */
  private void watchEndpoint(int index, String connectString) throws IOException {
    PeerLink link = plugins.get(index);
    startWatcher(
        index,
        new RecordWatcher<>(
            connectString,
            settings.znodes().endpoint(),
            settings.sessionTimeoutMs(),
            PluginEndpoint::decode,
            endpoint -> {
              endpoint.ifPresent(e -> link.expectServer(Credential.duplicate(e.duplicateId())));
              link.target(endpoint.map(DefaultZoolanderClient::address).orElse(null));
              endpoint.ifPresent(e -> loop.execute(() -> learned(index, e.duplicateId())));
            }));
  }

  /** Follows the membership record in link {@code index}'s ensemble. */
  private void watchMembers(int index, String connectString) throws IOException {
    startWatcher(
        index,
        new RecordWatcher<>(
            connectString,
            settings.znodes().members(),
            settings.sessionTimeoutMs(),
            Membership::decode,
            record -> record.ifPresent(m -> loop.execute(() -> onMembership(m)))));
  }

  private void startWatcher(int index, RecordWatcher<?> watcher) throws IOException {
    synchronized (watchers) {
      if (closed) {
        return;
      }
      watchers.computeIfAbsent(index, i -> new ArrayList<>()).add(watcher);
      watcher.start();
    }
  }

  /** Closes link {@code index}'s watchers, off the event loop (closing a session waits). */
  private void closeWatchers(int index) {
    List<RecordWatcher<?>> closing;
    synchronized (watchers) {
      closing = watchers.remove(index);
    }
    if (closing != null) {
      // A thread of its own: closing waits for each session's close to be answered, and the
      // common pool may have one worker.
      Thread t = new Thread(() -> closeAll(closing), "zoolander-client-close-watchers");
      t.setDaemon(true);
      t.start();
    }
  }

  private static void closeAll(List<RecordWatcher<?>> closing) {
    try {
      RecordWatcher.closeAll(closing);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ------------------------------------------------------------------ membership (event loop)

  /** A membership record read in some duplicate: followed if newer than any seen. */
  private void onMembership(Membership record) {
    if (closed) {
      return;
    }
    membershipRecordsRead++;
    long followed = members.version();
    MemberTable.Changes changes = members.follow(record);
    if (changes == null) {
      LOG.debug(
          "membership version {} ignored: version {} is followed already",
          record.version(),
          followed);
      return;
    }
    LOG.info(
        "following membership version {}: {}",
        record.version(),
        record.members().stream()
            .map(m -> m.duplicateId() + (m.active() ? " active" : " joining"))
            .collect(Collectors.joining(", ")));
    apply(changes);
    // Whether or not the set changed: a record may change the advised fan-out alone.
    followAdvice(record);
  }

  /**
   * Applies the read fan-out the record just followed advises (0: none) to C: an advised policy
   * follows it, the others ignore it. Before any record is read, none is advised.
   */
  private void followAdvice(Membership record) {
    int fanOut = record.readFanOut();
    if (fanOut != concurrency.advisedFanOut()) {
      String ignored =
          settings.readPolicy() instanceof ReadPolicy.Advised
              ? ""
              : " (ignored: read policy " + settings.readPolicy() + ")";
      if (fanOut > 0) {
        LOG.info(
            "membership version {} advises {} per read{}",
            record.version(),
            fanOut == 1 ? "1 duplicate" : fanOut + " duplicates",
            ignored);
      } else {
        LOG.info("membership version {} advises no read fan-out{}", record.version(), ignored);
      }
    }
    concurrency.setAdvisedFanOut(fanOut);
  }

  /** Link {@code index} serves {@code duplicateId} (its endpoint record or STATUS says so). */
  private void learned(int index, int duplicateId) {
    if (!closed && members.learned(index, duplicateId)) {
      apply(members.reconcile(false));
    }
  }

  private void apply(MemberTable.Changes changes) {
    for (int index : changes.retired()) {
      retire(index);
    }
    for (int index : changes.joining()) {
      ranking.setReadable(index, false);
      barriers.duplicateGone(index);
      LOG.info(
          "duplicate {} is joining: not read from until it has caught up",
          members.duplicateId(index));
    }
    for (int index : changes.activated()) {
      ranking.setReadable(index, true);
      LOG.info("duplicate {} joined the read set", members.duplicateId(index));
    }
    for (Membership.Member member : changes.toLink()) {
      int index = link(member.connectString(), member.duplicateId());
      try {
        watchEndpoint(index, member.connectString());
        watchMembers(index, member.connectString());
      } catch (IOException | RuntimeException e) {
        LOG.warn(
            "cannot watch duplicate {}'s ensemble {}: {}",
            member.duplicateId(),
            member.connectString(),
            e.toString());
      }
      LOG.info(
          "duplicate {} joined the read set (as {}, ensemble {})",
          member.duplicateId(),
          Peer.duplicate(index),
          member.connectString());
    }
    if (!changes.isEmpty()) {
      concurrency.setDuplicates(members.activeCount());
    }
    if (changes.waiting() && !forcedReconcileScheduled) {
      forcedReconcileScheduled = true;
      LOG.info(
          "membership version {}: waiting up to {} ms to learn which duplicate each link serves"
              + " before linking the new members",
          members.version(),
          settings.connectTimeoutMs());
      loop.schedule(
          () -> {
            forcedReconcileScheduled = false;
            if (!closed) {
              apply(members.reconcile(true));
            }
          },
          settings.connectTimeoutMs(),
          TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Link {@code index} is no longer a member (or a second link to one): never read from or waited
   * for again; its link and watchers are closed, what was waiting on it moves on.
   */
  private void retire(int index) {
    PeerLink link = plugins.get(index);
    ranking.setReadable(index, false);
    int duplicateId = members.duplicateId(index);
    if (members.indexOf(duplicateId) >= 0) {
      LOG.info(
          "duplicate {} is linked twice: {} closed, {} kept",
          duplicateId,
          Peer.duplicate(index),
          Peer.duplicate(members.indexOf(duplicateId)));
    } else {
      LOG.info("duplicate {} retired", duplicateId);
    }
    link.close();
    closeWatchers(index);
    linkGone(index, link, false);
    notifyState(Peer.duplicate(index), ConnectionState.LOST);
  }

  private static InetSocketAddress address(PluginEndpoint endpoint) {
    return InetSocketAddress.createUnresolved(endpoint.host(), endpoint.port());
  }

  private void awaitConnected(long timeoutMs) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (System.nanoTime() < deadline) {
      if (repeater.isReady() && live().allMatch(PeerLink::isReady)) {
        return;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ZoolanderException(
            KeeperException.Code.CONNECTIONLOSS, null, "interrupted while connecting", e);
      }
    }
    if (!repeater.isReady()) {
      throw new ZoolanderException(
          KeeperException.Code.CONNECTIONLOSS, "repeater not reachable in " + timeoutMs + " ms");
    }
    if (live().noneMatch(PeerLink::isReady)) {
      throw new ZoolanderException(
          KeeperException.Code.CONNECTIONLOSS, "no duplicate reachable in " + timeoutMs + " ms");
    }
    LOG.warn(
        "connected to the repeater and some duplicates; still waiting for {}",
        live().filter(p -> !p.isReady()).map(PeerLink::name).toList());
  }

  /** The links not retired. Any thread. */
  private Stream<PeerLink> live() {
    return IntStream.range(0, plugins.size()) // a link is in members before it is in plugins
        .filter(i -> members.standing(i) != MemberTable.Standing.RETIRED)
        .mapToObj(plugins::get);
  }

  // ------------------------------------------------------------------ public API

  @Override
  public long clientId() {
    return settings.clientId();
  }

  @Override
  public long lastSeenSeq() {
    return lastSeenSeq.get();
  }

  @Override
  public int readConcurrency() {
    return concurrency.current();
  }

  @Override
  public ConnectionState connectionState(Peer peer) {
    if (peer.kind() == Peer.Kind.REPEATER) {
      return repeater.state();
    }
    return members.standing(peer.index()) == MemberTable.Standing.RETIRED
        ? ConnectionState.LOST // retired: its link is closed for good
        : plugins.get(peer.index()).state();
  }

  @Override
  public void addConnectionStateListener(ConnectionStateListener listener) {
    stateListeners.add(Objects.requireNonNull(listener, "listener must not be null"));
  }

  @Override
  public void addInconsistencyListener(InconsistencyListener listener) {
    inconsistencyListeners.add(Objects.requireNonNull(listener, "listener must not be null"));
  }

  @Override
  public void addReplyListener(ReplyListener listener) {
    replyListeners.add(Objects.requireNonNull(listener, "listener must not be null"));
  }

  private void notifyReply(
      boolean write, long requestId, int index, long latencyNanos, boolean first) {
    if (replyListeners.isEmpty() || index < 0) {
      return;
    }
    ReplyEvent event = new ReplyEvent(write, requestId, index, latencyNanos, first);
    for (ReplyListener listener : replyListeners) {
      try {
        listener.replied(event);
      } catch (RuntimeException e) {
        LOG.warn("reply listener failed", e);
      }
    }
  }

  @Override
  public BlockingZoolanderClient blocking() {
    return BlockingZoolanderClient.of(this);
  }

  @Override
  public CompletableFuture<WriteResult> write(List<Op> ops) {
    CompletableFuture<WriteResult> future = new CompletableFuture<>();
    if (closed) {
      future.completeExceptionally(closedException());
      return future;
    }
    Message.Write validated;
    try {
      // Validated here so a bad write fails at once; its request id is drawn on the I/O thread
      // (startWrite). The
      // repeater checks all of it again (and the duplicates' jute.maxbuffer, which only it knows).
      validated = new Message.Write(settings.clientId(), 0, ops);
      WriteChecks.check(validated, settings.znodes());
    } catch (IllegalArgumentException | NullPointerException e) {
      future.completeExceptionally(
          new ZoolanderException(KeeperException.Code.BADARGUMENTS, null, e.getMessage(), e));
      return future;
    }
    writes.submit(validated, future);
    return future;
  }

  @Override
  public CompletableFuture<WriteResult> writeAll(List<Op> ops) {
    return write(ops).thenCompose(result -> barrier(result.seq()).thenApply(ignored -> result));
  }

  @Override
  public CompletableFuture<Void> barrier(long seq) {
    if (closed) {
      return CompletableFuture.failedFuture(closedException());
    }
    if (seq < 0) {
      return CompletableFuture.failedFuture(
          new ZoolanderException(
              KeeperException.Code.BADARGUMENTS, "seq must be >= 0, was " + seq));
    }
    return barriers.submit(seq);
  }

  @Override
  public CompletableFuture<NodeData> getData(String path) {
    return read(ReadKind.GET_DATA, path, reply -> nodeData(path, reply));
  }

  @Override
  public CompletableFuture<Boolean> exists(String path) {
    return read(ReadKind.EXISTS, path, reply -> existence(path, reply));
  }

  @Override
  public CompletableFuture<List<String>> getChildren(String path) {
    return read(ReadKind.GET_CHILDREN, path, reply -> children(path, reply));
  }

  private static NodeData nodeData(String path, Message.ReadReply reply) {
    if (reply.code() != KeeperException.Code.OK) {
      throw new ZoolanderException(reply.code(), reply.code() + " for " + path);
    }
    return new NodeData(reply.data(), reply.version(), reply.appliedSeq(), reply.duplicateId());
  }

  private static boolean existence(String path, Message.ReadReply reply) {
    if (reply.code() != KeeperException.Code.OK && reply.code() != KeeperException.Code.NONODE) {
      throw new ZoolanderException(reply.code(), reply.code() + " for " + path);
    }
    return reply.code() == KeeperException.Code.OK;
  }

  private static List<String> children(String path, Message.ReadReply reply) {
    if (reply.code() != KeeperException.Code.OK) {
      throw new ZoolanderException(reply.code(), reply.code() + " for " + path);
    }
    return reply.children();
  }

  // ------------------------------------------------------------------ watches (see WatchTable)

  @Override
  public CompletableFuture<NodeData> getData(String path, Watcher watcher) {
    Objects.requireNonNull(watcher, "watcher must not be null");
    return read(
        ReadKind.GET_DATA,
        path,
        reply -> armedAfter(reply, WatchKind.DATA, path, watcher, nodeData(path, reply)));
  }

  @Override
  public CompletableFuture<Boolean> exists(String path, Watcher watcher) {
    Objects.requireNonNull(watcher, "watcher must not be null");
    return read(
        ReadKind.EXISTS,
        path,
        reply -> armedAfter(reply, WatchKind.DATA, path, watcher, existence(path, reply)));
  }

  @Override
  public CompletableFuture<List<String>> getChildren(String path, Watcher watcher) {
    Objects.requireNonNull(watcher, "watcher must not be null");
    return read(
        ReadKind.GET_CHILDREN,
        path,
        reply -> armedAfter(reply, WatchKind.CHILDREN, path, watcher, children(path, reply)));
  }

  /**
   * Arms a one-shot watch for the changes after the state {@code reply} read (so nothing between
   * the read and the arming is missed), once the read succeeded; returns {@code result}.
   */
  private <T> T armedAfter(
      Message.ReadReply reply, WatchKind kind, String path, Watcher watcher, T result) {
    watchTable.add(nextRequestId.incrementAndGet(), kind, path, reply.appliedSeq(), watcher);
    return result;
  }

  @Override
  public CompletableFuture<WatchHandle> addPersistentRecursiveWatch(String path, Watcher watcher) {
    Objects.requireNonNull(watcher, "watcher must not be null");
    if (closed) {
      return CompletableFuture.failedFuture(closedException());
    }
    long id = nextRequestId.incrementAndGet();
    try {
      new Message.Watch(settings.clientId(), id, WatchKind.PERSISTENT_RECURSIVE, path, 0);
    } catch (IllegalArgumentException | NullPointerException e) {
      return CompletableFuture.failedFuture(
          new ZoolanderException(KeeperException.Code.BADARGUMENTS, null, e.getMessage(), e));
    }
    // Armed from a seq a duplicate has applied now (a read's, at least this client's floor): it
    // reports the changes after now, and every duplicate it is armed on starts from that seq.
    return read(
            ReadKind.EXISTS,
            path,
            reply ->
                watchTable.add(
                    id, WatchKind.PERSISTENT_RECURSIVE, path, reply.appliedSeq(), watcher))
        .thenCompose(armed -> armed);
  }

  private <T> CompletableFuture<T> read(
      ReadKind kind, String path, Function<Message.ReadReply, T> result) {
    if (closed) {
      return CompletableFuture.failedFuture(closedException());
    }
    try {
      PathUtils.validatePath(path);
    } catch (IllegalArgumentException | NullPointerException e) {
      return CompletableFuture.failedFuture(
          new ZoolanderException(
              KeeperException.Code.BADARGUMENTS, null, "path: " + e.getMessage(), e));
    }
    return reads.submit(kind, path, lastSeenSeq.get(), result);
  }

  // ------------------------------------------------------------------ dispatch (event loop)

  private void onMessage(PeerLink from, Message message) {
    if (from == repeater) {
      writes.heardFromRepeater();
    }
    if (message instanceof Message.Reply reply) {
      writes.onReply(reply);
    } else if (message instanceof Message.ReadReply reply) {
      if (!barriers.onReply(reply)) {
        reads.onReply(reply);
      }
    } else if (message instanceof Message.Error error) {
      onError(from, error);
    } else if (message instanceof Message.WatchEvent event) {
      watchTable.onEvent(from, event);
    } else if (message instanceof Message.PlannedSlowness announcement) {
      int index = plugins.indexOf(from);
      if (index >= 0) {
        slowness.announced(index, announcement);
        metrics.plannedSlowness();
      }
    }
  }

  private void onError(PeerLink from, Message.Error error) {
    long id = error.requestId();
    if (id < 0) {
      LOG.warn("{} reported {}: {}", from.name(), error.code(), error.message());
      return;
    }
    if (watchTable.onError(from, error)) {
      return;
    }
    if (writes.onError(from, error)) {
      return;
    }
    if (reads.onError(from, error)) {
      return;
    }
    barriers.onError(from, error);
  }

  private void onState(PeerLink link, ConnectionState state) {
    Peer peer = link == repeater ? Peer.REPEATER : Peer.duplicate(plugins.indexOf(link));
    LOG.info("{} is {}", peer, state);
    if (link == repeater && state == ConnectionState.RECONNECTED) {
      // Re-send every unanswered write in request order: a plugin applies each request id at most
      // once. At once: the link became ready on this I/O thread, and a startWrite already queued
      // behind us would otherwise send a newer write first, which makes the plugins take the older
      // one for a retry.
      Runnable resend = writes::resendAll;
      if (loop.inEventLoop()) {
        resend.run();
      } else {
        loop.execute(resend);
      }
    }
    if (link != repeater && state.isConnected()) {
      // Arm every watch on it again, from the last seq delivered: it sends what happened meanwhile.
      // Its STATUS says which duplicate it serves: the membership record may need it.
      Runnable ready =
          () -> {
            watchTable.linkReady(link);
            learned(peer.index(), link.duplicateId());
          };
      if (loop.inEventLoop()) {
        ready.run();
      } else {
        loop.execute(ready);
      }
    }
    if (link != repeater && !state.isConnected()) {
      loop.execute(() -> linkGone(peer.index(), link, true));
    }
    notifyState(peer, state);
  }

  /**
   * Link {@code index} is not connected any more (or retired): its watches, the barriers waiting
   * for it and the reads sent to it move on (event loop).
   *
   * @param failure whether it counts as a failure in the ranking (a retired duplicate did not fail)
   */
  private void linkGone(int index, PeerLink link, boolean failure) {
    watchTable.linkLost(link);
    barriers.duplicateGone(index);
    reads.linkGone(index, failure);
  }

  private void notifyState(Peer peer, ConnectionState state) {
    for (ConnectionStateListener listener : stateListeners) {
      try {
        listener.stateChanged(peer, state);
      } catch (RuntimeException e) {
        LOG.warn("connection state listener failed", e);
      }
    }
  }

  private void reportInconsistency(InconsistencyEvent event) {
    metrics.inconsistency();
    LOG.error("inconsistency between duplicates {}: {}", event.duplicateIds(), event.description());
    for (InconsistencyListener listener : inconsistencyListeners) {
      try {
        listener.inconsistencyDetected(event);
      } catch (RuntimeException e) {
        LOG.warn("inconsistency listener failed", e);
      }
    }
  }

  /** What the writes, the reads and the barriers need of the rest of the client (event loop). */
  private final class RequestsHost implements ClientWrites.Host {
    @Override
    public boolean closed() {
      return closed;
    }

    @Override
    public void advanceSeen(long seq) {
      DefaultZoolanderClient.this.advanceSeen(seq);
    }

    @Override
    public int indexOf(int duplicateId) {
      return DefaultZoolanderClient.this.indexOf(duplicateId);
    }

    @Override
    public void notifyReply(
        boolean write, long requestId, int index, long latencyNanos, boolean first) {
      DefaultZoolanderClient.this.notifyReply(write, requestId, index, latencyNanos, first);
    }

    @Override
    public int liveDuplicates() {
      return members.liveCount();
    }

    @Override
    public void reportInconsistency(InconsistencyEvent event) {
      DefaultZoolanderClient.this.reportInconsistency(event);
    }
  }

  // ------------------------------------------------------------------ helpers

  /**
   * The index of the live (not retired) link to the duplicate with this id (learned from its
   * STATUS), -1 if unknown.
   */
  private int indexOf(int duplicateId) {
    for (int i = 0; i < plugins.size(); i++) {
      if (plugins.get(i).duplicateId() == duplicateId
          && members.standing(i) != MemberTable.Standing.RETIRED) {
        return i;
      }
    }
    return -1;
  }

  private void advanceSeen(long seq) {
    lastSeenSeq.accumulateAndGet(seq, Math::max);
  }

  static long retryAfter(Message.Error error) {
    return error.retryAfterMillis() > 0 ? error.retryAfterMillis() : DEFAULT_RETRY_AFTER_MS;
  }

  static ZoolanderException closedException() {
    return new ZoolanderException(KeeperException.Code.CONNECTIONLOSS, "client is closed");
  }

  /** The observed SLA meter's current value (for tests). */
  double observedSla() {
    return metrics.observedSla();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<RecordWatcher<?>> closing = new ArrayList<>();
    synchronized (watchers) { // closed is set: no watcher starts any more
      watchers.values().forEach(closing::addAll);
      watchers.clear();
    }
    discovery.closeWith(closing);
    CompletableFuture<Void> failed = new CompletableFuture<>();
    loop.execute(
        () -> {
          ZoolanderException e = closedException();
          writes.failAll(e);
          reads.failAll(e);
          barriers.failAll(e);
          watchTable.clear();
          failed.complete(null);
        });
    try {
      failed.get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("pending requests not failed in time on close: {}", e.toString());
    }
    repeater.close();
    plugins.forEach(PeerLink::close);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    watchDelivery.close();
  }

  /** Membership records read in any duplicate so far, followed or not (for tests). */
  long membershipRecordsRead() {
    return onLoop(() -> membershipRecordsRead);
  }

  /** The version of the membership record followed, 0 before any (for tests). */
  long membershipVersion() {
    return onLoop(members::version);
  }

  private <T> T onLoop(Supplier<T> query) {
    CompletableFuture<T> result = new CompletableFuture<>();
    loop.execute(() -> result.complete(query.get()));
    return result.join();
  }

  /** Pending writes, reads and barriers (for tests: no request bookkeeping may leak). */
  public int pendingRequests() {
    CompletableFuture<Integer> count = new CompletableFuture<>();
    loop.execute(() -> count.complete(writes.pending() + reads.pending() + barriers.pending()));
    return count.join();
  }
}
