package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.server.internal.leader.LocalServer;
import io.zoolander.server.internal.leader.TreeReader;
import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.server.plugin.ZoolanderPluginView.Snapshot;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.Message;
import io.zoolander.wire.Ticker;
import io.zoolander.wire.Znodes;
import io.zoolander.wire.internal.WriteTrace;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's state machine: applies SEQUENCED writes in seq order, on one dedicated thread (the
 * applier thread, {@link ApplierThread}), and serves reads in between. Netty's event loops only
 * hand messages over ({@link #sequenced}, {@link #read}, {@link #fenced}...) and never wait for
 * ZooKeeper; a connection that floods is paused ({@link BackPressure}).
 *
 * <p>The applier thread owns the parts that do the work, each one concern, wired here:
 *
 * <ul>
 *   <li>{@link ApplierState}: the recorded {@code (epoch, appliedSeq)}, ACTIVE or FENCED, a
 *       transfer in progress, and the {@link Snapshot} published for other threads;
 *   <li>{@link SequencedWrites}: the rules for each SEQUENCED of {@code docs/architecture.md}
 *       (refused, replayed, held, applied), then ACKs to the repeaters ({@link Outbound});
 *   <li>{@link BatchApplier} and {@link WriteApplier}: applying writes, as batches of consecutive
 *       writes ({@link Batch}) or one at a time, with the client table ({@link ClientTable}) and
 *       the predicted results ({@link ResultPredictor}); {@link WriteStall}: the injected write
 *       stalls;
 *   <li>{@link GapTracker}: held messages and RETRANSMIT requests; {@link EpochGuard}: stale epochs
 *       and newly recorded ones;
 *   <li>{@link Recovery}: ZooKeeper failures, the state read again, a new session;
 *   <li>{@link ReadGate}: reads wait until {@code appliedSeq >= minSeq}, and are issued on the
 *       applier's session between two applies ({@link SessionReads});
 *   <li>{@link TransferSource}: recent writes for a repeater taking over, snapshots for a state
 *       transfer; {@link TransferInstall}: installing one; {@link Fencing}.
 * </ul>
 *
 * Everything they do with ZooKeeper goes through the plugin's own session ({@link OwnSession}).
 */
final class Applier {

  private static final Logger LOG = LoggerFactory.getLogger(Applier.class);

  /** Period of the timer that repeats unanswered RETRANSMITs and expires waiting reads. */
  static final long TICK_MS = 50;

  /** Re-opens the ZooKeeper session after expiry and publishes the endpoint again. */
  @FunctionalInterface
  interface SessionRenewal {
    void renew() throws Exception;
  }

  private record Received(Channel from, List<Message.Sequenced> messages) {}

  @FunctionalInterface
  private interface Task {
    void run() throws InterruptedException;
  }

  private final int duplicateId;
  private final ApplierThread thread;
  private final ScheduledExecutorService executor;
  private final BackPressure backPressure;

  /**
   * SEQUENCED received and not yet taken by the applier: everything there when it starts is one run
   * of batches.
   */
  private final ConcurrentLinkedQueue<Received> inbox = new ConcurrentLinkedQueue<>();

  /**
   * Most SEQUENCED one slice of a drain applies before the urgent tasks get their turn: one full
   * batch.
   */
  static final int MAX_RUN_WRITES = Batch.MAX_BATCH_WRITES;

  /**
   * Tasks that must not wait behind a backlog of writes (a snapshot for a state transfer): run
   * between two slices of a drain, or on their own when no drain is under way. A duplicate slower
   * than the write rate never empties its inbox, and a drain takes the inbox until it is empty.
   */
  private final ConcurrentLinkedQueue<Task> urgent = new ConcurrentLinkedQueue<>();

  private final ApplierState state;
  private final SequencedWrites writes;
  private final WriteApplier single;
  private final ReadGate reads;
  private final Fencing fencing;
  private final ForeignWrites foreignWrites;
  private final Recovery recovery;
  private final TransferSource source;
  private final TransferInstall transfers;
  private final TreeReads treeReads;
  private final LocalMultis localMultis;
  private final OwnSession session;
  private final ClientTable clients;
  private final ClientExpiry expiry;
  private final Watches watches;

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
        PluginMeters.none(),
        null,
        null,
        ZoolanderPluginConfig.CLIENT_RECORD_RETENTION_MS_DEFAULT,
        true);
  }

  /**
   * @param acl the ACL of every znode a write creates (the plugin's identity writes, see
   *     PluginSecurity)
   * @param meters where the time of each write's multi goes
   * @param local the leader's ZooKeeper server, in-process: client reads are answered from its
   *     in-memory tree and writes submitted into its request pipeline; null: both go through the
   *     session
   * @param digestAuth the plugin's ZooKeeper identity ({@code user:password}), or null
   * @param clientRecordRetentionMs how long a client must be gone before its record is deleted
   *     ({@link ClientExpiry})
   * @param fenceOnForeignWrite whether a write to the data root by another session fences the
   *     duplicate ({@link ForeignWrites})
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
      PluginMeters meters,
      LocalServer local,
      byte[] digestAuth,
      long clientRecordRetentionMs,
      boolean fenceOnForeignWrite) {
    int id = config.duplicateId();
    Znodes znodes = config.znodes();
    this.duplicateId = id;
    this.thread = new ApplierThread("zoolander-applier-" + id);
    this.backPressure = new BackPressure(id, config.maxQueuedMessages());
    GapTracker gaps = new GapTracker(config.gapBufferMessages(), state.appliedSeq());
    this.state = new ApplierState(thread, gaps, state, stateVersion);
    TreeReader treeReader = local == null ? null : local.treeReader(znodes);
    ClientTable clients = new ClientTable(znodes, acl, treeReader);
    ResultPredictor predictor = new ResultPredictor(znodes);
    RecentWrites recent =
        new RecentWrites(
            config.recentWritesMessages(), ZoolanderPluginConfig.RECENT_WRITES_MAX_BYTES);
    this.watches =
        new Watches(
            thread,
            id,
            this.state::appliedSeq,
            new WatchLog(
                state.appliedSeq(),
                config.recentWritesMessages(),
                ZoolanderPluginConfig.RECENT_WRITES_MAX_BYTES),
            config.maxWatchesPerConnection(),
            channel ->
                channel.closeFuture().addListener(f -> execute(() -> watchesClosed(channel))));
    Outbound out = new Outbound(id, peers, this.state, watches);
    MovedNames movedNames = new MovedNames();
    this.treeReads =
        local == null
            ? null
            : new TreeReads(id, znodes, treeReader, this.state, anomalies, movedNames);
    SessionReads sessionReads =
        new SessionReads(
            thread,
            id,
            znodes,
            session,
            anomalies,
            config.sessionTimeoutMs(),
            treeReads,
            movedNames);
    this.localMultis = local == null ? null : new LocalMultis(thread, local, session, digestAuth);
    Multis multis = localMultis != null ? localMultis : Multis.through(session);
    this.reads =
        new ReadGate(
            thread, id, this.state, sessionReads, config.readWaitMs(), config.maxWaitingReads());
    FenceRecord fenceRecord = new FenceRecord(id, znodes, session, acl);
    this.fencing =
        new Fencing(thread, id, this.state, gaps, reads, out::statusToRepeaters, fenceRecord);
    EpochGuard epochs = new EpochGuard(thread, id, this.state, gaps);
    this.recovery =
        new Recovery(
            thread,
            id,
            znodes,
            session,
            renewal,
            this.state,
            epochs,
            fencing,
            clients,
            predictor,
            out);
    WriteStall stall = new WriteStall(thread, id, anomalies);
    this.single =
        new WriteApplier(
            thread,
            id,
            znodes,
            acl,
            session,
            multis,
            sessionReads,
            this.state,
            epochs,
            clients,
            predictor,
            recovery,
            fencing,
            out,
            meters);
    BatchApplier batches =
        new BatchApplier(
            thread,
            id,
            znodes,
            acl,
            session,
            multis,
            sessionReads,
            this.state,
            epochs,
            clients,
            predictor,
            recent,
            stall,
            recovery,
            out,
            meters,
            config.maxBatchBytes());
    this.writes =
        new SequencedWrites(
            thread,
            id,
            this.state,
            gaps,
            epochs,
            batches,
            single,
            stall,
            recent,
            reads,
            out,
            config.retransmitTimeoutMs());
    this.source =
        new TransferSource(
            thread, id, znodes, session, this.state, gaps, recent, config.sessionTimeoutMs());
    this.transfers =
        new TransferInstall(
            thread,
            id,
            znodes,
            acl,
            session,
            this.state,
            gaps,
            reads,
            fencing,
            clients,
            predictor,
            recent,
            recovery,
            watches,
            config.sessionTimeoutMs());
    this.session = session;
    this.clients = clients;
    this.expiry =
        new ClientExpiry(
            thread,
            id,
            znodes,
            clientRecordRetentionMs,
            Ticker.system(),
            () -> !peers.repeaters().isEmpty() && !gaps.open(this.state.appliedSeq()));
    this.executor = Executors.newSingleThreadScheduledExecutor(thread);
    executor.scheduleWithFixedDelay(
        () -> run(this::onTick), TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
    this.foreignWrites =
        local == null
            ? null
            : new ForeignWrites(
                id,
                local,
                znodes.dataRoot(),
                session::isOwnOrPrevious,
                fenceOnForeignWrite,
                reason -> execute(() -> fencing.fenceAndTellRepeaters(reason)),
                fenceRecord);
  }

  /**
   * @return the state to report, as of the last handled message; any thread
   */
  Snapshot snapshot() {
    return state.snapshot();
  }

  /**
   * @return how many retried writes were recognised as applied already (and not applied again); any
   *     thread
   */
  long duplicateRequests() {
    return single.duplicateRequests();
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
    if (treeReads != null && treeReads.tryServe(from, read)) {
      return;
    }
    submit(from, 1, () -> reads.read(from, read));
  }

  /** A client arms a watch on {@code from} ({@link Watches#watch}). Any thread; never blocks. */
  void watch(Channel from, Message.Watch request) {
    submit(from, 1, () -> watches.watch(from, request));
  }

  /** A client removes a watch on {@code from}. Any thread; never blocks. */
  void unwatch(Channel from, Message.Unwatch request) {
    submit(from, 1, () -> watches.unwatch(from, request.watchId()));
  }

  private void watchesClosed(Channel channel) {
    watches.closed(channel);
  }

  /** Watches armed on this duplicate, on every client connection. Any thread. */
  int watchesArmed() {
    return watches.armed();
  }

  /** Watch events (WATCH_EVENTs with changes) sent so far. Any thread. */
  long watchEventsSent() {
    return watches.eventsSent();
  }

  /** Multis submitted in-process into the leader's request pipeline. */
  long multisInProcess() {
    return localMultis == null ? 0 : localMultis.submitted();
  }

  /** Writes to the data root by sessions other than the plugin's, seen so far. Any thread. */
  long foreignWrites() {
    return foreignWrites == null ? 0 : foreignWrites.seen();
  }

  /**
   * The applier's lookups before a write (the predictor's stats, client records not cached)
   * answered from the in-memory tree, without the session. Any thread.
   */
  long lookupsFromTree() {
    return (treeReads == null ? 0 : treeReads.statsFromTree()) + clients.readFromTree();
  }

  /** Client reads answered on an event loop from the in-memory tree, without the applier. */
  long readsServedOnEventLoop() {
    return treeReads == null ? 0 : treeReads.servedOnEventLoop();
  }

  /**
   * A repeater taking over asks, with a RETRANSMIT on its connection, for the writes this duplicate
   * applied in {@code request.fromSeq()..toSeq()}: it gets those still held ({@link RecentWrites}),
   * as SEQUENCED in seq order, then a STATUS that ends the answer. Any thread; never blocks.
   */
  void recentWritesRequested(Channel from, Message.Retransmit request) {
    execute(() -> source.recentWrites(from, request));
  }

  /**
   * The repeater asks for a snapshot of this duplicate for a state transfer: it is read between two
   * applies, without waiting for a backlog of writes to be applied first (the target streams from
   * the snapshot's seq, which the repeater's log still holds), and sent back on {@code from} as
   * TRANSFER_CHUNKs. Any thread; never blocks.
   */
  void transferRequested(Channel from, Message.TransferRequest request) {
    urgent.add(() -> source.snapshot(from, request));
    execute(this::runUrgent);
  }

  /**
   * A chunk of a state transfer to this duplicate, relayed by the repeater. Any thread; never
   * blocks.
   */
  void transferChunk(Channel from, Message.TransferChunk chunk) {
    submit(from, 1, () -> transfers.chunk(from, chunk));
  }

  /** The repeater fenced this duplicate. Any thread; never blocks. */
  void fenced(String reason) {
    execute(() -> fencing.fence(reason));
  }

  /**
   * Fences the duplicate for a reason found at start, before the plugin serves. Blocks until the
   * applier has taken the fence, so that no STATUS ever says ACTIVE first.
   */
  void fenceAtStart(String reason) throws InterruptedException {
    awaitOnApplier(() -> fencing.fence(reason));
  }

  /**
   * As {@link #fenceAtStart}, for a fence an earlier plugin of this duplicate recorded ({@link
   * FenceRecord}) that no state transfer has repaired since.
   */
  void fencedBefore(String recordedReason) throws InterruptedException {
    awaitOnApplier(() -> fencing.fenceAsRecorded(recordedReason));
  }

  private void awaitOnApplier(Task task) throws InterruptedException {
    try {
      executor.submit(() -> run(task)).get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("the applier failed", e.getCause());
    }
  }

  /**
   * The session expired: open a new one (and publish the endpoint again). Any thread; never blocks.
   */
  void sessionExpired() {
    execute(recovery::renewSession);
  }

  /**
   * Stops applying, waiting at most {@code timeoutMs} for a ZooKeeper call in progress to give up.
   */
  void stop(long timeoutMs) {
    if (foreignWrites != null) {
      foreignWrites.close();
    }
    state.stop();
    executor.shutdownNow();
    try {
      if (!executor.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS)) {
        LOG.warn(
            "Duplicate {}: the applier thread did not stop within {} ms", duplicateId, timeoutMs);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    state.reportStopped();
  }

  // ---------------------------------------------------------------------------------------------
  // Hand-over from other threads, with back-pressure on the connection that floods.

  /**
   * @param messages how many received messages {@code task} handles (see {@link BackPressure})
   */
  private void submit(Channel from, int messages, Task task) {
    backPressure.queued(from, messages);
    try {
      executor.execute(
          () -> {
            try {
              run(task);
            } finally {
              backPressure.handled(messages);
            }
          });
    } catch (RejectedExecutionException e) {
      backPressure.rejected(messages); // stopping
    }
  }

  private void execute(Task task) {
    try {
      executor.execute(() -> run(task));
    } catch (RejectedExecutionException e) {
      // stopping
    }
  }

  /** On the applier thread: runs {@code task}, then publishes the state it left. */
  private void run(Task task) {
    assert thread.isCurrent() : ApplierThread.ONLY;
    if (state.stopped()) {
      return;
    }
    try {
      task.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // stop() interrupts: the executor is shutting down
    } catch (RuntimeException e) {
      LOG.error("Duplicate {}: unexpected failure in the applier", duplicateId, e);
    } catch (AssertionError e) {
      // The executor would keep it in the task's future, unseen.
      LOG.error("Duplicate {}: broken assertion in the applier", duplicateId, e);
      throw e;
    } finally {
      state.publish();
    }
  }

  /**
   * Takes every SEQUENCED received so far (while the applier was busy, several reads' worth may
   * have queued up), so consecutive writes from one connection go into one batch however they
   * arrived; later drain tasks find the inbox empty. It applies them in slices of at most {@link
   * #MAX_RUN_WRITES}, and runs the urgent tasks between two slices.
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
      for (Message.Sequenced m : run) {
        WriteTrace.mark(WriteTrace.Stage.APPLIER_TOOK, m.clientId(), m.requestId());
        expiry.touched(m.clientId());
      }
      // In slices, the urgent tasks between two: a slice's applies are done when it returns, so
      // nothing is in flight then.
      for (int start = 0; start < run.size(); start += MAX_RUN_WRITES) {
        writes.received(
            first.from(), run.subList(start, Math.min(run.size(), start + MAX_RUN_WRITES)));
        runUrgent();
      }
      first = next;
    }
  }

  /** Runs the urgent tasks queued so far; one that fails is logged and the others still run. */
  private void runUrgent() throws InterruptedException {
    assert thread.isCurrent() : ApplierThread.ONLY;
    for (Task task = urgent.poll(); task != null; task = urgent.poll()) {
      if (state.stopped()) {
        return;
      }
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.error("Duplicate {}: unexpected failure in the applier", duplicateId, e);
      }
    }
  }

  private void onTick() throws InterruptedException {
    writes.requestRetransmitIfNeeded();
    reads.expire();
    if (state.active() && state.transfer() == null) {
      expiry.sweep(session.zk(), clients);
    }
  }
}
