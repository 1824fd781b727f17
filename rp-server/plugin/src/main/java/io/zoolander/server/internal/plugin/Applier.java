package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.server.internal.zk.ZkOps;
import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.server.plugin.ZoolanderPluginView.Snapshot;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.Znodes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.jute.BinaryInputArchive;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's state machine: applies SEQUENCED writes in seq order, on one dedicated thread, and
 * serves reads in between. Consecutive writes waiting together (received in one read, or queued
 * while the applier was busy) are applied as batches, one ZooKeeper multi each ({@link Batch}),
 * with the same outcome per write as the rules below. Everything it does with ZooKeeper goes
 * through the plugin's own session; Netty's event loops only hand messages over ({@link
 * #sequenced}, {@link #read}, {@link #fenced}) and never wait for ZooKeeper.
 *
 * <p>The rules are those of {@code docs/architecture.md}. For {@code SEQUENCED(epoch, seq)} against
 * the recorded {@code (state.epoch, appliedSeq)}:
 *
 * <ul>
 *   <li>{@code epoch < state.epoch}: refused, ERROR(STALE_EPOCH, requestId = seq) to the sender;
 *   <li>{@code seq <= appliedSeq}: a replay, ACK again to the sender;
 *   <li>{@code seq > appliedSeq + 1}: held in a bounded buffer, and RETRANSMIT(appliedSeq + 1,
 *       first held seq - 1) sent, once per gap until applying progresses or the retransmission
 *       timeout passes;
 *   <li>{@code seq == appliedSeq + 1}, and the client record ({@link ClientTable}) says the request
 *       id was applied already: a retry, sequenced again. Only the state advances ({@code
 *       setData(state, ..., stateVersion)}); the client gets the original seq and results from the
 *       record, or ERROR(DUPLICATE_REQUEST) if they fell out of its window;
 *   <li>{@code seq == appliedSeq + 1} otherwise: applied with one ZooKeeper multi, {@code
 *       setData(state, (max(epoch, state.epoch), seq), stateVersion)}, the client record's update
 *       holding the write's predicted results ({@link ResultPredictor}), plus the write's ops. If
 *       an application op fails, the bookkeeping updates are applied alone, the record holding the
 *       failure, and the failure is the write's result. If a bookkeeping update fails (its version
 *       moved, the connection was lost, the session expired), the state is read again and the
 *       message evaluated again: the version check makes a write apply at most once, and reading
 *       the state tells whether a lost attempt applied (whose outcome the client record then
 *       gives).
 * </ul>
 *
 * After applying: REPLY to the client's registered connection, one cumulative ACK to every repeater
 * connection. The {@link AnomalyInjector} may stall the applier before a write is applied (a test
 * and demo tool, off by default).
 *
 * <p>Reads are issued asynchronously on the same session between two applies, so ZooKeeper's
 * per-session order makes each one see exactly the state at the {@code appliedSeq} it reports. The
 * anomaly injector may hold a read's answer back; it is then sent from the connection's event loop,
 * later, without delaying other reads.
 */
final class Applier {

  private static final Logger LOG = LoggerFactory.getLogger(Applier.class);

  /** Period of the timer that repeats unanswered RETRANSMITs and expires waiting reads. */
  static final long TICK_MS = 50;

  /** First and largest pause before retrying after a ZooKeeper failure. */
  static final long BACKOFF_MIN_MS = 20;

  static final long BACKOFF_MAX_MS = 1_000;

  /**
   * {@code retryAfterMillis} of the OVERLOADED error refusing a read this duplicate has not caught
   * up with.
   */
  static final long NOT_CAUGHT_UP_RETRY_AFTER_MS = 50;

  private static final byte[] NO_DATA = new byte[0];

  /** Re-opens the ZooKeeper session after expiry and publishes the endpoint again. */
  @FunctionalInterface
  interface SessionRenewal {
    void renew() throws Exception;
  }

  private final ZoolanderPluginConfig config;
  private final int duplicateId;
  private final Znodes znodes;
  private final List<ACL> acl;
  private final PluginMeters meters;
  private final OwnSession session;
  private final Peers peers;
  private final SessionRenewal renewal;
  private final AnomalyInjector anomalies;
  private final ScheduledExecutorService executor;
  private final AtomicInteger queued = new AtomicInteger();

  /**
   * SEQUENCED received and not yet taken by the applier: everything there when it starts is one run
   * of batches.
   */
  private final ConcurrentLinkedQueue<Received> inbox = new ConcurrentLinkedQueue<>();

  private final Set<Channel> paused = ConcurrentHashMap.newKeySet();
  private volatile Snapshot snapshot;
  private volatile boolean stopped;
  private volatile long duplicateRequests; // written by the applier thread only

  // Confined to the applier thread.
  private long epoch;
  private long appliedSeq;
  private int stateVersion;
  private final ClientTable clients;
  private final ResultPredictor predictor;
  private final RecentWrites recent;
  private DuplicateState mode = DuplicateState.ACTIVE;
  private final TreeMap<Long, Held> held = new TreeMap<>();

  /** The state transfer being received, or null. */
  private StateTransfer.Install install;

  /** After a state transfer: reads are refused (REJOINING) until this seq is applied. */
  private long rejoinUntil = -1;

  private long highestSeen;

  /**
   * The stale epoch last warned about, so that a deposed repeater's stream is one warning, not one
   * per write.
   */
  private long warnedStaleEpoch = -1;

  private long gapEpoch;
  private Channel gapChannel;
  private long requestedFrom = -1;
  private long requestedTo = -1;
  private long requestedAtNanos;
  private final PriorityQueue<WaitingRead> waiting =
      new PriorityQueue<>(Comparator.comparingLong((WaitingRead w) -> w.read().minSeq()));
  private int failures;
  private long lastStalledSeq = -1;

  private record Held(Channel from, Message.Sequenced message) {}

  private record Received(Channel from, List<Message.Sequenced> messages) {}

  private record WaitingRead(Channel channel, Message.Read read, long deadlineNanos) {}

  @FunctionalInterface
  private interface Task {
    void run() throws InterruptedException;
  }

  /**
   * @param state the state read at start-up
   * @param stateVersion its znode's data version
   */
  Applier(
      ZoolanderPluginConfig config,
      OwnSession session,
      Peers peers,
      SessionRenewal renewal,
      AnomalyInjector anomalies,
      BookkeepingState state,
      int stateVersion) {
    this(
        config,
        session,
        peers,
        renewal,
        anomalies,
        state,
        stateVersion,
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        PluginMeters.none());
  }

  /**
   * @param acl the ACL of every znode a write creates (the plugin's identity writes, see
   *     PluginSecurity)
   * @param meters where the time of each write's multi goes
   */
  Applier(
      ZoolanderPluginConfig config,
      OwnSession session,
      Peers peers,
      SessionRenewal renewal,
      AnomalyInjector anomalies,
      BookkeepingState state,
      int stateVersion,
      List<ACL> acl,
      PluginMeters meters) {
    this.acl = acl;
    this.meters = meters;
    this.config = config;
    this.duplicateId = config.duplicateId();
    this.znodes = config.znodes();
    this.session = session;
    this.peers = peers;
    this.renewal = renewal;
    this.anomalies = anomalies;
    this.clients = new ClientTable(znodes, acl);
    this.predictor = new ResultPredictor(znodes);
    this.recent =
        new RecentWrites(
            config.recentWritesMessages(), ZoolanderPluginConfig.RECENT_WRITES_MAX_BYTES);
    this.epoch = state.epoch();
    this.appliedSeq = state.appliedSeq();
    this.highestSeen = state.appliedSeq();
    this.stateVersion = stateVersion;
    this.snapshot = new Snapshot(epoch, appliedSeq, DuplicateState.ACTIVE);
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "zoolander-applier-" + duplicateId);
              t.setDaemon(true);
              return t;
            });
    executor.scheduleWithFixedDelay(
        () -> run(this::onTick), TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
  }

  /**
   * @return the state to report, as of the last handled message
   */
  Snapshot snapshot() {
    return snapshot;
  }

  /**
   * @return how many retried writes were recognised as applied already (and not applied again)
   */
  long duplicateRequests() {
    return duplicateRequests;
  }

  /**
   * A repeater sent {@code messages} on {@code from}, in this order, together (one read of its
   * connection): the consecutive ones among them are applied as batches ({@link Batch}). Any
   * thread; never blocks.
   */
  void sequenced(Channel from, List<Message.Sequenced> messages) {
    inbox.add(new Received(from, messages));
    submit(from, messages.size(), this::drainInbox);
  }

  /** A client sent {@code read} on {@code from}. Any thread; never blocks. */
  void read(Channel from, Message.Read read) {
    submit(from, 1, () -> onRead(from, read));
  }

  /**
   * A repeater taking over asks, with a RETRANSMIT on its connection, for the writes this duplicate
   * applied in {@code request.fromSeq()..toSeq()}: it gets those still held ({@link RecentWrites}),
   * as SEQUENCED in seq order, then a STATUS that ends the answer. Any thread; never blocks.
   */
  void recentWritesRequested(Channel from, Message.Retransmit request) {
    execute(() -> onRecentWritesRequested(from, request));
  }

  /**
   * The repeater asks for a snapshot of this duplicate for a state transfer: it is read between two
   * applies and sent back on {@code from} as TRANSFER_CHUNKs. Any thread; never blocks.
   */
  void transferRequested(Channel from, Message.TransferRequest request) {
    execute(() -> onTransferRequested(from, request));
  }

  /**
   * A chunk of a state transfer to this duplicate, relayed by the repeater. Any thread; never
   * blocks.
   */
  void transferChunk(Channel from, Message.TransferChunk chunk) {
    submit(from, 1, () -> onTransferChunk(from, chunk));
  }

  /** The repeater fenced this duplicate. Any thread; never blocks. */
  void fenced(String reason) {
    execute(() -> onFenced(reason));
  }

  /**
   * The session expired: open a new one (and publish the endpoint again). Any thread; never blocks.
   */
  void sessionExpired() {
    execute(this::renewSession);
  }

  /**
   * Stops applying, waiting at most {@code timeoutMs} for a ZooKeeper call in progress to give up.
   */
  void stop(long timeoutMs) {
    stopped = true;
    executor.shutdownNow();
    try {
      if (!executor.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "Duplicate {}: the applier thread did not stop within {} ms", duplicateId, timeoutMs);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Snapshot last = snapshot;
    snapshot = new Snapshot(last.epoch(), last.appliedSeq(), DuplicateState.STOPPED);
  }

  // ---------------------------------------------------------------------------------------------
  // Hand-over from other threads, with back-pressure on the connection that floods.

  /**
   * @param messages how many received messages {@code task} handles: the back-pressure threshold
   *     counts messages, and one read of the connection can bring hundreds of SEQUENCED (counting
   *     it as one let a lagging duplicate queue a thousand reads' worth and run out of memory)
   */
  private void submit(Channel from, int messages, Task task) {
    if (queued.addAndGet(messages) >= config.maxQueuedMessages() && paused.add(from)) {
      from.config().setAutoRead(false);
      LOG.debug(
          "Duplicate {}: {} messages queued, pausing reads from {}",
          duplicateId,
          queued.get(),
          from.remoteAddress());
    }
    try {
      executor.execute(
          () -> {
            try {
              run(task);
            } finally {
              if (queued.addAndGet(-messages) <= config.maxQueuedMessages() / 2
                  && !paused.isEmpty()) {
                resumePaused();
              }
            }
          });
    } catch (RejectedExecutionException e) {
      queued.addAndGet(-messages); // stopping
    }
  }

  private void resumePaused() {
    for (Iterator<Channel> it = paused.iterator(); it.hasNext(); ) {
      Channel channel = it.next();
      it.remove();
      channel.config().setAutoRead(true);
    }
  }

  private void execute(Task task) {
    try {
      executor.execute(() -> run(task));
    } catch (RejectedExecutionException e) {
      // stopping
    }
  }

  private void run(Task task) {
    if (stopped) {
      return;
    }
    try {
      task.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // stop() interrupts: the executor is shutting down
    } catch (RuntimeException e) {
      LOG.error("Duplicate {}: unexpected failure in the applier", duplicateId, e);
    } finally {
      publish();
    }
  }

  private void publish() {
    if (stopped) {
      return;
    }
    DuplicateState reported =
        install != null || (mode == DuplicateState.ACTIVE && (gapOpen() || rejoining()))
            ? DuplicateState.CATCHING_UP
            : mode;
    Snapshot last = snapshot;
    if (last.epoch() != epoch || last.appliedSeq() != appliedSeq || last.state() != reported) {
      snapshot = new Snapshot(epoch, appliedSeq, reported);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Writes.

  /**
   * Takes every SEQUENCED received so far (while the applier was busy, several reads' worth may
   * have queued up), so consecutive writes from one connection go into one batch however they
   * arrived; later drain tasks find the inbox empty.
   */
  private void drainInbox() throws InterruptedException {
    Received first = inbox.poll();
    while (first != null) {
      List<Message.Sequenced> run = new ArrayList<>(first.messages());
      Received next = inbox.poll();
      while (next != null && next.from() == first.from()) {
        run.addAll(next.messages());
        next = inbox.poll();
      }
      onSequenced(first.from(), run);
      first = next;
    }
  }

  private void onSequenced(Channel from, List<Message.Sequenced> messages)
      throws InterruptedException {
    if (mode != DuplicateState.ACTIVE || install != null) {
      LOG.debug(
          "Duplicate {} is {}: ignoring seq {}..{}",
          duplicateId,
          mode,
          messages.get(0).seq(),
          messages.get(messages.size() - 1).seq());
      return;
    }
    long before = appliedSeq;
    applyRun(from, messages);
    drainHeld();
    if (appliedSeq > before) {
      Message.Ack ack = ack();
      for (Channel repeater : peers.repeaters()) {
        send(repeater, ack);
      }
      releaseWaitingReads();
    }
    requestRetransmitIfNeeded();
  }

  private void handle(Channel from, Message.Sequenced message) throws InterruptedException {
    boolean stalled = false;
    boolean attempted = false;
    while (mode == DuplicateState.ACTIVE) {
      if (attempted && message.seq() == appliedSeq) {
        // An attempt whose answer was lost did apply it (before a newer repeater's epoch was
        // recorded, if one
        // was: that check comes after this one).
        recent.applied(message);
        send(from, ack());
        return;
      }
      if (message.epoch() < epoch) {
        if (message.epoch()
            != warnedStaleEpoch) { // once per epoch: a deposed repeater's stream is long
          warnedStaleEpoch = message.epoch();
          LOG.warn(
              "Duplicate {}: refusing seq {} of stale epoch {} (recorded epoch {}); further writes of"
                  + " that epoch are refused with no more warnings",
              duplicateId,
              message.seq(),
              message.epoch(),
              epoch);
        } else {
          LOG.debug(
              "Duplicate {}: refusing seq {} of stale epoch {} (recorded epoch {})",
              duplicateId,
              message.seq(),
              message.epoch(),
              epoch);
        }
        send(
            from,
            Message.Error.forRequest(
                ErrorCode.STALE_EPOCH,
                message.seq(),
                "epoch "
                    + message.epoch()
                    + " is older than duplicate "
                    + duplicateId
                    + "'s epoch "
                    + epoch));
        return;
      }
      if (message.seq() <= appliedSeq) {
        send(from, ack());
        return;
      }
      if (message.seq() > appliedSeq + 1) {
        hold(from, message);
        return;
      }
      if (!stalled) {
        stalled = true;
        stall(message.seq());
      }
      attempted = true;
      if (apply(message)) {
        recent.applied(message);
        return;
      }
      // The state was read again: evaluate the message again.
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Batches: consecutive writes received together, applied as one multi (see Batch).

  /** Handles {@code messages} in order, the consecutive writes among them in batches. */
  private void applyRun(Channel from, List<Message.Sequenced> messages)
      throws InterruptedException {
    int i = 0;
    while (i < messages.size() && mode == DuplicateState.ACTIVE) {
      int end = batchEnd(messages, i);
      int handled = end - i >= 2 ? applyBatch(from, messages.subList(i, end)) : 0;
      if (handled > 0) {
        i += handled;
      } else if (handled == 0) {
        handle(from, messages.get(i));
        i++;
      }
      // handled < 0: the state was read again; evaluate from i again
    }
  }

  /**
   * @return the end (exclusive) of the writes from {@code start} that are next in seq, of one
   *     current epoch
   */
  private int batchEnd(List<Message.Sequenced> messages, int start) {
    Message.Sequenced first = messages.get(start);
    if (first.seq() != appliedSeq + 1 || first.epoch() < epoch) {
      return start;
    }
    int end = start + 1;
    while (end < messages.size()
        && end - start < Batch.MAX_BATCH_WRITES
        && messages.get(end).seq() == messages.get(end - 1).seq() + 1
        && messages.get(end).epoch() == first.epoch()) {
      end++;
    }
    return end;
  }

  /**
   * Applies a leading part of {@code run} (at least two writes, the first at {@code appliedSeq +
   * 1}) as one multi.
   *
   * @return how many writes were applied and replied to; 0 if the first write must be handled
   *     alone; negative if the state was read again after a ZooKeeper failure and the writes must
   *     be evaluated again
   */
  private int applyBatch(Channel from, List<Message.Sequenced> run) throws InterruptedException {
    for (Message.Sequenced write : run) {
      stall(write.seq());
    }
    ZooKeeper zk = session.zk();
    Map<Long, ClientTable.Known> known = new HashMap<>();
    Map<String, Stat> stats;
    ResultPredictor.BatchPrediction prediction;
    try {
      for (Message.Sequenced write : run) {
        if (!known.containsKey(write.clientId())) {
          known.put(write.clientId(), clients.get(zk, write.clientId()));
        }
      }
      run = run.subList(0, Batch.admissible(znodes, run, known));
      if (run.size() < 2) {
        return 0;
      }
      List<Op> all = new ArrayList<>();
      for (Message.Sequenced write : run) {
        all.addAll(write.ops());
      }
      stats = readStats(zk, predictor.statsNeeded(all));
      prediction = predictor.predictEach(Batch.opsOf(run), stats);
    } catch (KeeperException | IllegalArgumentException e) {
      return 0; // the one-at-a-time path meets it again and recovers (or fences)
    }
    Batch batch = null;
    int size =
        Math.min(run.size(), prediction.results().size()); // a write expected to fail goes alone
    while (size >= 2) {
      if (size < prediction.results().size() || size < run.size()) {
        run = run.subList(0, size);
        prediction =
            predictor.predictEach(Batch.opsOf(run), stats); // the tree after exactly these writes
      }
      BookkeepingState next =
          new BookkeepingState(Math.max(run.get(0).epoch(), epoch), run.get(run.size() - 1).seq());
      batch =
          Batch.plan(znodes, acl, clients, run, known, prediction.results(), next, stateVersion);
      if (batch.fits(Math.min(BinaryInputArchive.maxBuffer, config.maxBatchBytes()))) {
        break;
      }
      batch = null;
      size /= 2; // too large for one request (jute.maxbuffer) or over maxBatchBytes: halve
    }
    if (batch == null) {
      return 0;
    }
    List<org.apache.zookeeper.OpResult> done;
    try {
      long startNanos = System.nanoTime();
      done = zk.multi(batch.multi());
      long multiNanos = System.nanoTime() - startNanos;
      for (int i = 0; i < batch.writes().size(); i++) {
        meters.applied(multiNanos); // per write: the multi that applied it, as when applied alone
      }
    } catch (KeeperException e) {
      int failing = batch.writeOf(e.getResults());
      if (failing < 0) {
        return recoverBatch(e, batch.writes());
      }
      // An application op failed: nothing changed. The writes before it go as a smaller batch, it
      // goes alone.
      predictor.learn(stats);
      LOG.debug(
          "Duplicate {}: batch {}..{}: write seq {} fails; splitting",
          duplicateId,
          run.get(0).seq(),
          run.get(run.size() - 1).seq(),
          run.get(failing).seq());
      return failing >= 2 ? applyBatch(from, run.subList(0, failing)) : 0;
    } catch (IllegalArgumentException e) {
      return 0; // refused by the ZooKeeper client's own validation: the one-at-a-time path fails it
      // alone
    }
    BookkeepingState next =
        new BookkeepingState(Math.max(run.get(0).epoch(), epoch), run.get(run.size() - 1).seq());
    advance(next, ZkOps.stateVersion(done));
    for (int i = 0; i < batch.clientIds().size(); i++) {
      long clientId = batch.clientIds().get(i);
      clients.updated(clientId, batch.record(clientId), Batch.clientVersion(done, i));
    }
    List<List<OpResult>> results = batch.results(znodes, done);
    if (results.equals(batch.predicted())) {
      predictor.applied(prediction.after());
    } else {
      predictor.forget();
      LOG.error(
          "Duplicate {}: batch {}..{}: the predicted results {} differ from the actual {}; correcting the"
              + " client records",
          duplicateId,
          run.get(0).seq(),
          run.get(run.size() - 1).seq(),
          batch.predicted(),
          results);
      correctBatchRecords(zk, batch, known, results);
    }
    failures = 0;
    for (int i = 0; i < run.size(); i++) {
      recent.applied(run.get(i));
      reply(run.get(i), run.get(i).seq(), results.get(i));
    }
    return run.size();
  }

  /**
   * After a ZooKeeper failure applying a batch: as {@link #recover}, and every write of it that a
   * lost attempt did apply gets the outcome its client record holds.
   *
   * @return -1: the writes must be evaluated again
   */
  private int recoverBatch(KeeperException e, List<Message.Sequenced> run)
      throws InterruptedException {
    long before = appliedSeq;
    recover(e, run.get(0));
    for (Message.Sequenced write : run.subList(1, run.size())) {
      if (write.seq() <= appliedSeq && write.seq() > before) {
        replyFromRecord(write);
      }
    }
    return -1;
  }

  /** As {@link #correctRecord}, for every client of a batch whose results were mispredicted. */
  private void correctBatchRecords(
      ZooKeeper zk, Batch batch, Map<Long, ClientTable.Known> known, List<List<OpResult>> results)
      throws InterruptedException {
    Map<Long, ClientRecord> corrected = new LinkedHashMap<>();
    for (int i = 0; i < batch.writes().size(); i++) {
      Message.Sequenced write = batch.writes().get(i);
      ClientRecord base =
          corrected.containsKey(write.clientId())
              ? corrected.get(write.clientId())
              : known.get(write.clientId()).record();
      corrected.put(
          write.clientId(),
          ClientTable.after(base, write.requestId(), write.seq(), results.get(i)));
    }
    for (Map.Entry<Long, ClientRecord> e : corrected.entrySet()) {
      if (e.getValue().equals(batch.record(e.getKey()))) {
        continue;
      }
      try {
        ClientTable.Known current = clients.get(zk, e.getKey());
        Stat stat = zk.setData(znodes.client(e.getKey()), e.getValue().encode(), current.version());
        clients.updated(e.getKey(), e.getValue(), stat.getVersion());
      } catch (KeeperException ex) {
        LOG.warn(
            "Duplicate {}: cannot correct the record of client {}: {}",
            duplicateId,
            e.getKey(),
            ex.code());
        clients.clear();
      }
    }
  }

  /**
   * The anomaly injector hit the write {@code seq}: stall the applier, as a GC pause or an fsync
   * stall would.
   */
  private void stall(long seq) throws InterruptedException {
    if (seq <= lastStalledSeq) {
      return; // stalled already, when a batch holding it was tried
    }
    lastStalledSeq = seq;
    long delayMs = anomalies.writeDelayMs(seq);
    if (delayMs > 0) {
      LOG.debug(
          "Duplicate {}: injected anomaly: stalling {} ms before seq {}",
          duplicateId,
          delayMs,
          seq);
      Thread.sleep(delayMs);
    }
  }

  /**
   * Applies {@code message}, whose seq is {@code appliedSeq + 1}: as a duplicate of a request the
   * client record says was applied already, or as a new write.
   *
   * @return true if it was applied (and replied to); false if the state was read again instead and
   *     the message must be evaluated again
   */
  private boolean apply(Message.Sequenced message) throws InterruptedException {
    BookkeepingState next = new BookkeepingState(Math.max(message.epoch(), epoch), message.seq());
    ZooKeeper zk = session.zk();
    ClientTable.Known known;
    try {
      known = clients.get(zk, message.clientId());
    } catch (KeeperException e) {
      recover(e, message);
      return false;
    } catch (IllegalArgumentException e) {
      onFenced(
          "the client record "
              + znodes.client(message.clientId())
              + " is unreadable: "
              + e.getMessage());
      return false;
    }
    if (known.record() != null && known.record().isDuplicate(message.requestId())) {
      return applyDuplicate(zk, message, next, known.record());
    }
    Map<String, Stat> stats = Map.of();
    ResultPredictor.Prediction prediction;
    try {
      stats = readStats(zk, predictor.statsNeeded(message.ops()));
      prediction = predictor.predict(message.ops(), stats);
    } catch (KeeperException e) {
      recover(e, message);
      return false;
    } catch (IllegalArgumentException e) {
      prediction =
          new ResultPredictor.Prediction(null, Map.of()); // not a valid ZooKeeper path: fails below
    }
    List<OpResult> predicted = prediction.results();
    List<OpResult> results;
    try {
      ClientRecord record =
          ClientTable.after(known.record(), message.requestId(), message.seq(), predicted);
      List<org.apache.zookeeper.Op> multi = multiFitting(message, next, known, record);
      if (multi == null) {
        // Without the outcome held, then: a retry gets DUPLICATE_REQUEST.
        record = ClientTable.after(known.record(), message.requestId(), message.seq(), null);
        multi = multiFitting(message, next, known, record);
      }
      if (multi == null) {
        throw new IllegalArgumentException(
            "the write exceeds jute.maxbuffer="
                + BinaryInputArchive.maxBuffer
                + " bytes as one ZooKeeper request");
      }
      long startNanos = System.nanoTime();
      List<org.apache.zookeeper.OpResult> done = zk.multi(multi);
      meters.applied(System.nanoTime() - startNanos);
      results = ZkOps.succeeded(znodes, done);
      advance(next, ZkOps.stateVersion(done));
      clients.updated(message.clientId(), record, ZkOps.clientVersion(done));
      if (results.equals(predicted)) {
        predictor.applied(prediction);
      } else {
        predictor.forget();
      }
      if (predicted != null && !predicted.equals(results)) {
        LOG.error(
            "Duplicate {}: seq {}: the predicted results {} differ from the actual {}; correcting the"
                + " record of client {}",
            duplicateId,
            message.seq(),
            predicted,
            results,
            message.clientId());
      }
      if (!results.equals(predicted) && record.find(message.requestId()).isPresent()) {
        correctRecord(zk, message, known.record(), results);
      }
    } catch (KeeperException e) {
      List<org.apache.zookeeper.OpResult> multiResults = e.getResults();
      if (multiResults == null
          || multiResults.size() != message.ops().size() + ZkOps.BOOKKEEPING_OPS
          || ZkOps.stateUpdateCode(multiResults) != Code.OK
          || ZkOps.clientUpdateCode(multiResults) != Code.OK) {
        recover(e, message);
        return false;
      }
      // An application op failed: deterministic, every duplicate fails it the same way. Advance
      // alone.
      predictor.learn(stats);
      results = ZkOps.failed(multiResults, message.ops());
      if (!advanceAlone(zk, next, message, known, results)) {
        return false;
      }
    } catch (IllegalArgumentException e) {
      // Too large for one request, or refused by the ZooKeeper client's own validation:
      // deterministic too
      // (given the same jute.maxbuffer on every duplicate).
      LOG.warn(
          "Duplicate {}: seq {} cannot be applied and fails with BADARGUMENTS: {}",
          duplicateId,
          message.seq(),
          e.getMessage());
      results = new ArrayList<>();
      for (int i = 0; i < message.ops().size(); i++) {
        results.add(new OpResult.Failed(Code.BADARGUMENTS));
      }
      if (!advanceAlone(zk, next, message, known, results)) {
        return false;
      }
    }
    failures = 0;
    reply(message, message.seq(), results);
    return true;
  }

  /**
   * @return the multi applying {@code message} with {@code record}, or null if it is too large for
   *     one request
   */
  private List<org.apache.zookeeper.Op> multiFitting(
      Message.Sequenced message,
      BookkeepingState next,
      ClientTable.Known known,
      ClientRecord record) {
    byte[] encoded = record.encode();
    List<org.apache.zookeeper.Op> multi =
        ZkOps.multi(
            znodes,
            next,
            stateVersion,
            clients.update(message.clientId(), known, encoded),
            message.ops(),
            acl);
    return ZkOps.fitsInOneRequest(
            multi, message.ops(), encoded.length, BinaryInputArchive.maxBuffer)
        ? multi
        : null;
  }

  /**
   * A request the client record says was applied already (a retry under a new seq): only the state
   * advances, and the client gets the original seq and results, or ERROR(DUPLICATE_REQUEST) if the
   * record no longer holds them. A request id the record shows was never applied (a client that
   * broke the ordering assumption) is not applied either: ERROR(INVALID_OP).
   */
  private boolean applyDuplicate(
      ZooKeeper zk, Message.Sequenced message, BookkeepingState next, ClientRecord record)
      throws InterruptedException {
    try {
      Stat stat = zk.setData(znodes.state(), next.encode(), stateVersion);
      advance(next, stat.getVersion());
    } catch (KeeperException e) {
      recover(e, message);
      return false;
    }
    failures = 0;
    if (record.neverApplied(message.requestId())) {
      LOG.warn(
          "Duplicate {}: seq {}: request {} of client {} was never applied but request {} was: the client"
              + " sent its request ids out of order; refused",
          duplicateId,
          message.seq(),
          message.requestId(),
          message.clientId(),
          record.highestRequestId());
      sendToClient(
          message.clientId(),
          Message.Error.forRequest(
              ErrorCode.INVALID_OP,
              message.requestId(),
              "request "
                  + message.requestId()
                  + " of client "
                  + message.clientId()
                  + " arrived after request "
                  + record.highestRequestId()
                  + " was applied: request ids must increase in the order the"
                  + " writes are first sent; not applied (send it again under a new request id)"));
      return true;
    }
    duplicateRequests++;
    Optional<ClientRecord.Entry> original = record.find(message.requestId());
    LOG.debug(
        "Duplicate {}: seq {} is request {} of client {} again, applied earlier at {}",
        duplicateId,
        message.seq(),
        message.requestId(),
        message.clientId(),
        original.map(o -> "seq " + o.seq()).orElse("a seq no longer held"));
    if (original.isPresent()) {
      reply(message, original.get().seq(), original.get().results());
    } else {
      sendToClient(
          message.clientId(),
          Message.Error.forRequest(
              ErrorCode.DUPLICATE_REQUEST,
              message.requestId(),
              "request "
                  + message.requestId()
                  + " of client "
                  + message.clientId()
                  + " was applied earlier at an unknown seq; its results are no longer held (the last "
                  + ClientRecord.WINDOW
                  + " requests are)"));
    }
    return true;
  }

  /**
   * Records the failure {@code results} of {@code message} in the client record and advances the
   * state, without applying anything else; false if the state must be read again.
   */
  private boolean advanceAlone(
      ZooKeeper zk,
      BookkeepingState next,
      Message.Sequenced message,
      ClientTable.Known known,
      List<OpResult> results)
      throws InterruptedException {
    ClientRecord record =
        ClientTable.after(known.record(), message.requestId(), message.seq(), results);
    try {
      List<org.apache.zookeeper.OpResult> done =
          zk.multi(
              List.of(
                  ZkOps.stateUpdate(znodes, next, stateVersion),
                  clients.update(message.clientId(), known, record.encode())));
      advance(next, ZkOps.stateVersion(done));
      clients.updated(message.clientId(), record, ZkOps.clientVersion(done));
      return true;
    } catch (KeeperException e) {
      recover(e, message);
      return false;
    }
  }

  /**
   * The results held for the write just applied differ from its actual results (a misprediction):
   * replace them. This is an extra write outside the write's multi, but it is deterministic: every
   * duplicate holding the same data makes the same correction.
   */
  private void correctRecord(
      ZooKeeper zk, Message.Sequenced message, ClientRecord base, List<OpResult> results)
      throws InterruptedException {
    ClientRecord corrected = ClientTable.after(base, message.requestId(), message.seq(), results);
    try {
      ClientTable.Known current = clients.get(zk, message.clientId());
      Stat stat =
          zk.setData(znodes.client(message.clientId()), corrected.encode(), current.version());
      clients.updated(message.clientId(), corrected, stat.getVersion());
    } catch (KeeperException e) {
      LOG.warn(
          "Duplicate {}: cannot correct the record of client {}: {}",
          duplicateId,
          message.clientId(),
          e.code());
      clients.clear();
    }
  }

  /**
   * Reads the stats of {@code znodes}, all requests in flight together on the applier's session
   * (after the writes before them, so they see the state at {@code appliedSeq}).
   *
   * @return each znode's stat, null if it does not exist
   */
  private Map<String, Stat> readStats(ZooKeeper zk, Set<String> paths)
      throws KeeperException, InterruptedException {
    if (paths.isEmpty()) {
      return Map.of();
    }
    Map<String, Stat> stats = new HashMap<>();
    CountDownLatch done = new CountDownLatch(paths.size());
    AtomicReference<Code> failure = new AtomicReference<>();
    for (String path : paths) {
      zk.exists(
          path,
          false,
          (rc, p, ctx, stat) -> {
            Code code = Code.get(rc);
            if (code == Code.OK || code == Code.NONODE) {
              synchronized (stats) {
                stats.put(p, stat);
              }
            } else {
              failure.compareAndSet(null, code);
            }
            done.countDown();
          },
          null);
    }
    if (!done.await(config.sessionTimeoutMs(), TimeUnit.MILLISECONDS)) {
      throw KeeperException.create(Code.OPERATIONTIMEOUT);
    }
    if (failure.get() != null) {
      throw KeeperException.create(failure.get());
    }
    synchronized (stats) {
      return new HashMap<>(stats);
    }
  }

  private void advance(BookkeepingState next, int version) {
    boolean newEpoch = next.epoch() > epoch;
    epoch = next.epoch();
    appliedSeq = next.appliedSeq();
    stateVersion = version;
    if (newEpoch) {
      LOG.info("Duplicate {} recorded repeater epoch {} at seq {}", duplicateId, epoch, appliedSeq);
      dropStaleHeld();
    }
    publish(); // before the REPLY and ACK go out, so a STATUS asked for after them is never older
  }

  /**
   * After a ZooKeeper failure applying {@code message}: wait or re-open as needed, then read the
   * state again. If an attempt whose answer was lost did apply it, the client gets the outcome its
   * record holds.
   */
  private void recover(KeeperException e, Message.Sequenced message) throws InterruptedException {
    long seq = message.seq();
    Code code = e.code();
    List<org.apache.zookeeper.OpResult> multiResults = e.getResults();
    if (multiResults != null
        && multiResults.size() > 1
        && ZkOps.stateUpdateCode(multiResults) == Code.OK
        && ZkOps.clientUpdateCode(multiResults) == Code.NONODE) {
      onFenced(
          "the client record "
              + znodes.client(message.clientId())
              + " or its parent "
              + znodes.clients()
              + " was deleted under the plugin");
      return;
    }
    clients.clear(); // a lost attempt may have changed a record, and the tree
    predictor.forget();
    switch (code) {
      case BADVERSION ->
          LOG.info(
              "Duplicate {}: seq {}: the state znode changed under the plugin (a new repeater"
                  + " claiming its epoch, or another writer); reading it again",
              duplicateId,
              seq);
      case NONODE, NODEEXISTS ->
          LOG.warn(
              "Duplicate {}: seq {}: a bookkeeping znode changed under the plugin ({}); reading it again",
              duplicateId,
              seq,
              code);
      case CONNECTIONLOSS, OPERATIONTIMEOUT, REQUESTTIMEOUT, THROTTLEDOP, SESSIONMOVED -> {
        LOG.warn(
            "Duplicate {}: seq {}: {} from the own ZooKeeper server; retrying",
            duplicateId,
            seq,
            code);
        backoff();
      }
      case SESSIONEXPIRED -> renewSession();
      default -> {
        LOG.error(
            "Duplicate {}: seq {}: unexpected ZooKeeper failure; retrying", duplicateId, seq, e);
        backoff();
      }
    }
    long before = appliedSeq;
    reloadState();
    if (appliedSeq >= seq && before < seq) {
      replyFromRecord(message);
    }
  }

  /**
   * {@code message} was applied by an attempt whose answer was lost: reply what the client record
   * holds, if any.
   */
  private void replyFromRecord(Message.Sequenced message) throws InterruptedException {
    Optional<ClientRecord.Entry> entry = Optional.empty();
    try {
      ClientTable.Known known = clients.get(session.zk(), message.clientId());
      entry = known.record() == null ? Optional.empty() : known.record().find(message.requestId());
    } catch (KeeperException | IllegalArgumentException e) {
      LOG.debug(
          "Duplicate {}: cannot read the record of client {}: {}",
          duplicateId,
          message.clientId(),
          e.toString());
    }
    if (entry.isPresent()) {
      LOG.info(
          "Duplicate {}: seq {} was applied by an attempt whose answer was lost; replying the outcome its"
              + " client record holds",
          duplicateId,
          message.seq());
      reply(message, entry.get().seq(), entry.get().results());
    } else {
      LOG.info(
          "Duplicate {}: seq {} was applied by an attempt whose answer was lost and its results are not"
              + " held; this duplicate sends no REPLY for it",
          duplicateId,
          message.seq());
    }
  }

  private void reloadState() throws InterruptedException {
    while (!stopped) {
      try {
        Stat stat = new Stat();
        BookkeepingState state =
            BookkeepingState.decode(session.zk().getData(znodes.state(), false, stat));
        if (state.appliedSeq() < appliedSeq || state.epoch() < epoch) {
          LOG.error(
              "Duplicate {}: the state znode went back from (epoch {}, seq {}) to (epoch {}, seq {})",
              duplicateId,
              epoch,
              appliedSeq,
              state.epoch(),
              state.appliedSeq());
        }
        advance(state, stat.getVersion());
        failures = 0;
        return;
      } catch (KeeperException.NoNodeException | IllegalArgumentException e) {
        onFenced(
            "the bookkeeping znode "
                + znodes.state()
                + " is gone or unreadable: "
                + e.getMessage());
        return;
      } catch (KeeperException.SessionExpiredException e) {
        renewSession();
      } catch (KeeperException e) {
        LOG.warn("Duplicate {}: cannot read the state znode: {}; retrying", duplicateId, e.code());
        backoff();
      }
    }
  }

  private void renewSession() throws InterruptedException {
    while (!stopped) {
      ZooKeeper zk = session.zk();
      if (zk != null && zk.getState().isAlive()) {
        return; // renewed already
      }
      try {
        renewal.renew();
        failures = 0;
        return;
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        LOG.warn(
            "Duplicate {}: cannot open a new ZooKeeper session: {}; retrying",
            duplicateId,
            e.toString());
        backoff();
      }
    }
  }

  private void backoff() throws InterruptedException {
    long pause = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS << Math.min(failures, 10));
    failures++;
    Thread.sleep(pause);
  }

  private void reply(Message.Sequenced message, long seq, List<OpResult> results) {
    sendToClient(
        message.clientId(),
        new Message.Reply(message.clientId(), message.requestId(), seq, duplicateId, results));
  }

  private void sendToClient(long clientId, Message answer) {
    Channel client = peers.client(clientId);
    if (client == null) {
      return;
    }
    if (!client.isWritable()) {
      LOG.warn(
          "Duplicate {}: client {} does not read its replies; dropping a {}",
          duplicateId,
          clientId,
          answer.getClass().getSimpleName());
      return;
    }
    client.writeAndFlush(answer);
  }

  private Message.Ack ack() {
    return new Message.Ack(duplicateId, epoch, appliedSeq);
  }

  // ---------------------------------------------------------------------------------------------
  // Gaps.

  private void hold(Channel from, Message.Sequenced message) {
    highestSeen = Math.max(highestSeen, message.seq());
    gapEpoch = Math.max(gapEpoch, message.epoch());
    gapChannel = from;
    Held existing = held.get(message.seq());
    if (existing != null) {
      if (message.epoch() > existing.message().epoch()) {
        held.put(message.seq(), new Held(from, message));
      }
    } else if (held.size() < config.gapBufferMessages()) {
      held.put(message.seq(), new Held(from, message));
    } else if (message.seq() < held.lastKey()) {
      held.pollLastEntry();
      held.put(message.seq(), new Held(from, message));
    }
    // else dropped: it is asked for again once the gap before it is filled
    publish(); // CATCHING_UP, before the RETRANSMIT goes out
  }

  private void drainHeld() throws InterruptedException {
    while (mode == DuplicateState.ACTIVE && !held.isEmpty()) {
      Map.Entry<Long, Held> first = held.firstEntry();
      if (first.getKey() <= appliedSeq) {
        held.pollFirstEntry();
      } else if (first.getKey() == appliedSeq + 1) {
        held.pollFirstEntry();
        handle(first.getValue().from(), first.getValue().message());
      } else {
        return;
      }
    }
  }

  /**
   * Held messages of an epoch older than the one just recorded can never apply: refuse them now.
   */
  private void dropStaleHeld() {
    for (Iterator<Held> it = held.values().iterator(); it.hasNext(); ) {
      Held h = it.next();
      if (h.message().epoch() < epoch) {
        it.remove();
        send(
            h.from(),
            Message.Error.forRequest(
                ErrorCode.STALE_EPOCH,
                h.message().seq(),
                "epoch "
                    + h.message().epoch()
                    + " is older than duplicate "
                    + duplicateId
                    + "'s epoch "
                    + epoch));
      }
    }
    highestSeen = held.isEmpty() ? appliedSeq : Math.max(appliedSeq, held.lastKey());
    gapEpoch = epoch;
  }

  private boolean gapOpen() {
    return highestSeen > appliedSeq;
  }

  /**
   * Asks for the missing range, unless it was asked for already and neither progress nor a timeout
   * happened.
   */
  private void requestRetransmitIfNeeded() {
    if (mode != DuplicateState.ACTIVE || !gapOpen()) {
      requestedFrom = -1;
      requestedTo = -1;
      return;
    }
    long from = appliedSeq + 1;
    long to = held.isEmpty() ? highestSeen : held.firstKey() - 1;
    if (to < from) {
      return;
    }
    long now = System.nanoTime();
    boolean progressed = from != requestedFrom;
    boolean widened = to > requestedTo;
    boolean timedOut =
        now - requestedAtNanos >= TimeUnit.MILLISECONDS.toNanos(config.retransmitTimeoutMs());
    if (!progressed && !widened && !timedOut) {
      return;
    }
    Channel target = gapChannel != null && gapChannel.isActive() ? gapChannel : anyRepeater();
    if (target == null) {
      return; // asked when a repeater is connected again (it resends from STATUS anyway)
    }
    LOG.info(
        "Duplicate {}: gap after seq {}; asking for {}..{} (epoch {})",
        duplicateId,
        appliedSeq,
        from,
        to,
        Math.max(gapEpoch, epoch));
    send(target, new Message.Retransmit(duplicateId, Math.max(gapEpoch, epoch), from, to));
    requestedFrom = from;
    requestedTo = to;
    requestedAtNanos = now;
  }

  private Channel anyRepeater() {
    for (Channel channel : peers.repeaters()) {
      if (channel.isActive()) {
        return channel;
      }
    }
    return null;
  }

  private void onTick() {
    requestRetransmitIfNeeded();
    expireWaitingReads();
  }

  // ---------------------------------------------------------------------------------------------
  // Recovery by a new repeater.

  private void onRecentWritesRequested(Channel to, Message.Retransmit request) {
    if (!to.isActive()) {
      return;
    }
    List<Message.Sequenced> held =
        recent.range(request.fromSeq(), Math.min(request.toSeq(), appliedSeq));
    LOG.info(
        "Duplicate {}: a repeater taking over (epoch {}) asks for applied writes {}..{}; sending {}",
        duplicateId,
        request.epoch(),
        request.fromSeq(),
        request.toSeq(),
        held.isEmpty()
            ? "none (none held)"
            : held.get(0).seq() + ".." + held.get(held.size() - 1).seq());
    for (Message.Sequenced write : held) {
      to.write(write, to.voidPromise());
    }
    to.writeAndFlush(
        new Message.Status(duplicateId, epoch, appliedSeq, snapshot.state()), to.voidPromise());
  }

  // ---------------------------------------------------------------------------------------------
  // State transfer.

  /**
   * After a state transfer, until the duplicate has applied what the repeater had sequenced when it
   * ended.
   */
  private boolean rejoining() {
    return appliedSeq < rejoinUntil;
  }

  /**
   * The source side: a snapshot at the current applied seq, read between two applies, sent in
   * chunks.
   */
  private void onTransferRequested(Channel to, Message.TransferRequest request)
      throws InterruptedException {
    if (mode != DuplicateState.ACTIVE || gapOpen() || install != null || rejoining()) {
      send(
          to,
          Message.Error.forRequest(
              ErrorCode.TRANSFER_FAILED,
              request.transferId(),
              "duplicate "
                  + duplicateId
                  + " is "
                  + snapshot.state()
                  + " at seq "
                  + appliedSeq
                  + ": not a source for a state"
                  + " transfer"));
      return;
    }
    long start = System.nanoTime();
    StateTransfer.Snapshot taken;
    try {
      taken =
          StateTransfer.read(
              session.zk(),
              znodes,
              new BookkeepingState(epoch, appliedSeq),
              StateTransfer.MAX_BYTES,
              config.sessionTimeoutMs());
    } catch (StateTransfer.TooLargeException e) {
      LOG.warn(
          "Duplicate {}: state transfer {} for duplicate {} refused: {}",
          duplicateId,
          request.transferId(),
          request.targetDuplicateId(),
          e.getMessage());
      send(
          to,
          Message.Error.forRequest(
              ErrorCode.TRANSFER_TOO_LARGE, request.transferId(), e.getMessage()));
      return;
    } catch (KeeperException e) {
      LOG.warn(
          "Duplicate {}: state transfer {}: cannot read the snapshot: {}",
          duplicateId,
          request.transferId(),
          e.toString());
      send(
          to,
          Message.Error.forRequest(
              ErrorCode.TRANSFER_FAILED,
              request.transferId(),
              "duplicate " + duplicateId + " cannot read its snapshot: " + e.getMessage()));
      return;
    }
    List<Message.TransferChunk> chunks =
        StateTransfer.chunks(request.transferId(), duplicateId, taken);
    LOG.info(
        "Duplicate {}: state transfer {} for duplicate {}: snapshot at seq {} (epoch {}), {} znodes, {} bytes,"
            + " read in {} ms; sending {} chunks",
        duplicateId,
        request.transferId(),
        request.targetDuplicateId(),
        appliedSeq,
        epoch,
        taken.nodes().size(),
        taken.bytes(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
        chunks.size());
    if (!to.isActive()) {
      return;
    }
    for (Message.TransferChunk chunk : chunks) {
      to.write(chunk, to.voidPromise()); // bounded by StateTransfer.MAX_BYTES
    }
    to.flush();
  }

  /**
   * The receiving side: collects the chunks, then replaces the data root and the state, and follows
   * from there.
   */
  private void onTransferChunk(Channel from, Message.TransferChunk chunk)
      throws InterruptedException {
    if (chunk.index() == 0) {
      if (install != null) {
        LOG.warn(
            "Duplicate {}: state transfer {} abandoned for transfer {}",
            duplicateId,
            install.transferId(),
            chunk.transferId());
      }
      install = new StateTransfer.Install(znodes, StateTransfer.MAX_BYTES, chunk.transferId());
      held.clear();
      highestSeen = appliedSeq;
      while (!waiting.isEmpty()) {
        WaitingRead w = waiting.poll();
        send(w.channel(), rejoiningError(w.read().requestId()));
      }
      LOG.info(
          "Duplicate {}: receiving state transfer {} from duplicate {} (snapshot at seq {}); serving no reads"
              + " until it is installed and caught up",
          duplicateId,
          chunk.transferId(),
          chunk.sourceDuplicateId(),
          chunk.appliedSeq());
    } else if (install == null || install.transferId() != chunk.transferId()) {
      send(
          from,
          Message.Error.forRequest(
              ErrorCode.TRANSFER_FAILED,
              chunk.transferId(),
              "duplicate "
                  + duplicateId
                  + " has no state transfer "
                  + chunk.transferId()
                  + " in progress"));
      return;
    }
    StateTransfer.Install current = install;
    try {
      if (!current.add(chunk)) {
        return;
      }
    } catch (StateTransfer.TooLargeException e) {
      install = null;
      transferFailed(from, chunk.transferId(), ErrorCode.TRANSFER_TOO_LARGE, e.getMessage());
      return;
    } catch (IllegalArgumentException e) {
      install = null;
      transferFailed(from, chunk.transferId(), ErrorCode.TRANSFER_FAILED, e.getMessage());
      return;
    }
    long start = System.nanoTime();
    Message.TransferChunk header = current.header();
    try {
      ZooKeeper zk = session.zk();
      Stat stat = new Stat();
      BookkeepingState recorded = BookkeepingState.decode(zk.getData(znodes.state(), false, stat));
      BookkeepingState next =
          new BookkeepingState(Math.max(recorded.epoch(), header.epoch()), header.appliedSeq());
      int version = current.install(zk, acl, next, stat.getVersion(), config.sessionTimeoutMs());
      install = null;
      mode = DuplicateState.ACTIVE;
      clients.clear();
      predictor.forget();
      recent.clear();
      epoch = next.epoch();
      appliedSeq = next.appliedSeq();
      highestSeen = appliedSeq;
      stateVersion = version;
      rejoinUntil = header.catchUpToSeq();
      failures = 0;
      publish();
      LOG.info(
          "Duplicate {}: state transfer {} installed: {} znodes, {} bytes from duplicate {} in {} ms; now at"
              + " seq {} (epoch {}), serving reads again once seq {} is applied",
          duplicateId,
          current.transferId(),
          current.znodes(),
          current.bytes(),
          header.sourceDuplicateId(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
          appliedSeq,
          epoch,
          rejoinUntil);
      send(from, new Message.Status(duplicateId, epoch, appliedSeq, snapshot.state()));
    } catch (KeeperException | IllegalArgumentException e) {
      install = null;
      transferFailed(
          from,
          chunk.transferId(),
          ErrorCode.TRANSFER_FAILED,
          "installing the snapshot failed: " + e);
    }
  }

  private void transferFailed(Channel to, long transferId, ErrorCode code, String reason) {
    LOG.error("Duplicate {}: state transfer {} failed: {}", duplicateId, transferId, reason);
    onFenced("state transfer " + transferId + " failed: " + reason);
    send(
        to, Message.Error.forRequest(code, transferId, "duplicate " + duplicateId + ": " + reason));
  }

  private Message.Error rejoiningError(long requestId) {
    return Message.Error.forRequest(
        ErrorCode.REJOINING,
        requestId,
        "duplicate "
            + duplicateId
            + " is rejoining"
            + " after a state transfer (at seq "
            + appliedSeq
            + "): it serves no reads until caught up");
  }

  // ---------------------------------------------------------------------------------------------
  // Fencing.

  private void onFenced(String reason) {
    install = null; // a transfer in progress is abandoned: the next one starts from its first chunk
    if (mode == DuplicateState.FENCED) {
      return;
    }
    mode = DuplicateState.FENCED;
    LOG.error(
        "DUPLICATE {} IS FENCED at seq {} (epoch {}): {}. It applies no more writes and serves no reads"
            + " until a state transfer; STATUS still answers.",
        duplicateId,
        appliedSeq,
        epoch,
        reason);
    held.clear();
    highestSeen = appliedSeq;
    publish();
    while (!waiting.isEmpty()) {
      WaitingRead w = waiting.poll();
      send(w.channel(), fencedError(w.read().requestId()));
    }
  }

  private Message.Error fencedError(long requestId) {
    return Message.Error.forRequest(
        ErrorCode.FENCED, requestId, "duplicate " + duplicateId + " is fenced");
  }

  // ---------------------------------------------------------------------------------------------
  // Reads.

  private void onRead(Channel from, Message.Read read) {
    if (mode == DuplicateState.FENCED && install == null) {
      send(from, fencedError(read.requestId()));
    } else if (install != null || rejoining()) {
      send(from, rejoiningError(read.requestId()));
    } else if (read.minSeq() <= appliedSeq) {
      issueRead(from, read);
    } else if (config.readWaitMs() == 0 || waiting.size() >= config.maxWaitingReads()) {
      refuseNotCaughtUp(from, read);
    } else {
      waiting.add(
          new WaitingRead(
              from, read, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.readWaitMs())));
    }
  }

  private void releaseWaitingReads() {
    while (!waiting.isEmpty() && waiting.peek().read().minSeq() <= appliedSeq) {
      WaitingRead w = waiting.poll();
      if (w.channel().isActive()) {
        issueRead(w.channel(), w.read());
      }
    }
  }

  private void expireWaitingReads() {
    if (waiting.isEmpty()) {
      return;
    }
    long now = System.nanoTime();
    waiting.removeIf(
        w -> {
          if (now - w.deadlineNanos() >= 0 || !w.channel().isActive()) {
            refuseNotCaughtUp(w.channel(), w.read());
            return true;
          }
          return false;
        });
  }

  private void refuseNotCaughtUp(Channel channel, Message.Read read) {
    send(
        channel,
        new Message.Error(
            ErrorCode.OVERLOADED,
            read.requestId(),
            NOT_CAUGHT_UP_RETRY_AFTER_MS,
            "duplicate "
                + duplicateId
                + " has applied seq "
                + appliedSeq
                + ", not yet minSeq "
                + read.minSeq()));
  }

  /**
   * Issues the read on the applier's session, between two applies: ZooKeeper answers a session's
   * requests in order, so the read sees exactly the state at the current {@code appliedSeq}.
   */
  private void issueRead(Channel channel, Message.Read read) {
    String znode = znodes.toZnode(read.path());
    long asOf = appliedSeq;
    ZooKeeper zk = session.zk();
    switch (read.kind()) {
      case GET_DATA ->
          zk.getData(
              znode,
              false,
              (rc, path, ctx, data, stat) ->
                  readDone(channel, read, asOf, rc, data, stat, List.of()),
              null);
      case EXISTS ->
          zk.exists(
              znode,
              false,
              (rc, path, ctx, stat) -> readDone(channel, read, asOf, rc, null, stat, List.of()),
              null);
      case GET_CHILDREN ->
          zk.getChildren(
              znode,
              false,
              (rc, path, ctx, children, stat) ->
                  readDone(channel, read, asOf, rc, null, stat, children),
              null);
    }
  }

  /** On ZooKeeper's event thread. */
  private void readDone(
      Channel channel,
      Message.Read read,
      long asOf,
      int rc,
      byte[] data,
      Stat stat,
      List<String> children) {
    Code code = Code.get(rc);
    Message answer;
    try {
      if (code == Code.OK && stat != null) {
        List<String> sorted = children == null ? List.of() : children.stream().sorted().toList();
        answer =
            new Message.ReadReply(
                read.clientId(),
                read.requestId(),
                duplicateId,
                asOf,
                Code.OK,
                data == null ? NO_DATA : data,
                stat.getVersion(),
                sorted);
      } else if (code == Code.NONODE) {
        answer =
            new Message.ReadReply(
                read.clientId(),
                read.requestId(),
                duplicateId,
                asOf,
                Code.NONODE,
                NO_DATA,
                -1,
                List.of());
      } else {
        answer =
            Message.Error.forRequest(
                ErrorCode.INTERNAL,
                read.requestId(),
                "read of " + read.path() + " failed in ZooKeeper: " + code);
      }
    } catch (IllegalArgumentException e) {
      answer =
          Message.Error.forRequest(
              ErrorCode.INTERNAL,
              read.requestId(),
              "read of " + read.path() + " cannot be answered: " + e.getMessage());
    }
    long delayMs = anomalies.readDelayMs(read.clientId(), read.requestId());
    if (delayMs > 0) {
      Message late = answer;
      channel.eventLoop().schedule(() -> send(channel, late), delayMs, TimeUnit.MILLISECONDS);
    } else if (channel.isActive()) {
      channel.writeAndFlush(answer);
    }
  }

  private static void send(Channel channel, Message message) {
    if (channel != null && channel.isActive()) {
      channel.writeAndFlush(message);
    }
  }
}
