package io.zoolander.server.internal.repeater;

import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.zoolander.model.SlaEstimate;
import io.zoolander.server.internal.repeater.admission.AdmissionController;
import io.zoolander.server.internal.security.ConnectionLimits;
import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.internal.security.ServerAuth;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.RepeaterListener;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.server.repeater.Takeover;
import io.zoolander.server.repeater.TransferProgress;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Membership;
import io.zoolander.wire.Message;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.Ticker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The repeater: sequences WRITEs from clients and streams them, in seq order, to every duplicate's
 * plugin. This class starts and stops it and answers for it; the work is done by its parts:
 *
 * <ul>
 *   <li>{@link EpochClaim}: claims an epoch at a majority of the duplicates and recovers the writes
 *       some missed (on the starting thread);
 *   <li>{@link Sequencer}: the seq counter, the {@link RetransmissionLog}, the {@link FrameRun},
 *       flushes and trimming;
 *   <li>{@link ClientFlow}: the client connections ({@link ClientHandler}) and pausing them;
 *   <li>{@link DuplicateLink}, one per duplicate: its plugin connection; {@link DuplicateLinks} all
 *       of them, and the repeater as they see it ({@link LinkHost});
 *   <li>{@link Transfers}: state transfers that bring fenced duplicates back;
 *   <li>{@link NettyRuntime}: the event loops, the client listener and the plugin bootstrap;
 *   <li>{@link Notifier}: listener calls and callers' futures, on a thread of their own.
 * </ul>
 *
 * <h2>Threads</h2>
 *
 * <ul>
 *   <li>Client connections are read and decoded on the client I/O threads ({@link ClientHandler}).
 *       Each read burst's WRITEs are handed to the sequencer in one task, in arrival order.
 *   <li>One <em>sequencer</em> thread (a single-threaded Netty event loop) owns everything else:
 *       the epoch and seq counter, the log, every plugin connection ({@link DuplicateLink}), which
 *       are registered on that same loop, and the transfers. Sequencing is therefore lock-free, and
 *       a frame written to a plugin channel from the loop goes out immediately and in seq order. A
 *       client's WRITEs arrive on one connection and are handed over in order, so they are never
 *       reordered. The parts assert that their loop-confined methods run there.
 *   <li>Listener notifications run on their own thread.
 * </ul>
 *
 * <p>Per write, the SEQUENCED frames of one handoff are encoded back to back into one pooled
 * buffer, a run of at most {@link FrameRun#MAX_RUN_BYTES}, written whole to each streaming plugin
 * connection; flushes are coalesced, one per burst of handoffs. Back-pressure: see {@link
 * Sequencer} (the log), {@link ClientFlow} (pausing clients) and {@link ClientHandler} (handoffs
 * per client).
 */
public final class RepeaterCore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RepeaterCore.class);

  private final CoreConfig config;
  private final LinkSecurity security;

  /**
   * In the same order as {@link DuplicateLinks#all()} (claims are matched to links by index);
   * changed only before start or on the loop, by a membership change.
   */
  private final List<DuplicateSource> sources;

  private final DuplicateLinks links;
  private final RepeaterMeters meters;
  private final NettyRuntime runtime;
  private final Notifier notifier;
  private final ClientFlow clients;
  private final Sequencer sequencer;

  private final NameWriteRates nameWriteRates;
  private final Transfers transfers;
  private final SlaWhatIf whatIf = new SlaWhatIf();
  private final LivePrediction livePrediction;
  private final Object lifecycle = new Object();
  private final MembershipChanges membership;

  /** Makes the source of a duplicate added online; null: changes are refused. Set before start. */
  private volatile BiFunction<Integer, String, DuplicateSource> sourceFactory;

  private boolean started;
  private boolean closed;
  private volatile Takeover takeover;

  /** Sheds WRITEs above the admitted rate; null when admission control is off. Set before start. */
  private AdmissionController admission;

  /** How often the state znodes are read for a newer epoch, 0 for never. Set before start. */
  private long epochCheckMillis = RepeaterSettings.DEFAULT_EPOCH_CHECK_MILLIS;

  /** Reads the state znodes for a newer epoch; null when off or not started. */
  private volatile EpochWatch epochWatch;

  /** What the client port allows a connection. Set before start. */
  private ConnectionLimits connectionLimits = ConnectionLimits.DEFAULTS;

  public RepeaterCore(CoreConfig config, List<DuplicateSource> sources, RepeaterListener listener) {
    this(config, sources, listener, LinkSecurity.NONE);
  }

  /**
   * @param security TLS on both sides, who may write, and the credential shown to plugins
   */
  public RepeaterCore(
      CoreConfig config,
      List<DuplicateSource> sources,
      RepeaterListener listener,
      LinkSecurity security) {
    this(
        config,
        sources,
        listener,
        security,
        new RepeaterMeters(new CompositeMeterRegistry(), RepeaterSettings.DEFAULT_SLA_TAU_MS),
        BatchingController.none());
  }

  /**
   * @param meters where the repeater's meters go; closed with the repeater (its meters are removed)
   * @param batching how long to hold sequenced writes before flushing them to the plugins (see
   *     BatchingPolicy)
   */
  public RepeaterCore(
      CoreConfig config,
      List<DuplicateSource> sources,
      RepeaterListener listener,
      LinkSecurity security,
      RepeaterMeters meters,
      BatchingController batching) {
    this.security = security;
    this.meters = meters;
    this.livePrediction = new LivePrediction(meters.ticker());
    this.config = config;
    this.sources = new CopyOnWriteArrayList<>(sources);
    this.notifier = new Notifier(listener);
    this.runtime = new NettyRuntime(security, meters);
    this.clients = new ClientFlow(runtime, config.logCapacityMessages());
    this.links = new DuplicateLinks(this.sources, meters, runtime, security, notifier, clients);
    this.nameWriteRates =
        new NameWriteRates(
            meters.ticker(),
            config.nameRatesWindowMillis(),
            config.nameRatesSampleEvery(),
            System.nanoTime());
    this.sequencer = new Sequencer(config, runtime, links.all(), batching, clients, nameWriteRates);
    this.transfers =
        new Transfers(
            runtime, links.all(), sequencer, notifier, config.autoRejoin(), this::rejoined);
    links.wire(sequencer, transfers);
    meters.registerGauges(this, links.all());
    this.membership =
        new MembershipChanges(
            new MembershipHost(),
            TimeUnit.MILLISECONDS.toNanos(config.missingDuplicateGraceMillis()));
  }

  /**
   * How to reach a duplicate added online, or named in the membership record at start and not
   * configured (before {@link #start()}); without it, the set cannot change.
   */
  public void sourceFactory(BiFunction<Integer, String, DuplicateSource> factory) {
    synchronized (lifecycle) {
      if (started) {
        throw new IllegalStateException("the source factory must be set before start");
      }
      this.sourceFactory = java.util.Objects.requireNonNull(factory, "factory");
    }
  }

  /**
   * Turns admission control on (before {@link #start()}): WRITEs above the rate it admits are
   * refused with OVERLOADED and its retry-after hint.
   */
  public void admission(AdmissionController controller) {
    synchronized (lifecycle) {
      if (started) {
        throw new IllegalStateException("admission control must be set before start");
      }
      this.admission = controller;
    }
  }

  /**
   * Sets what the client port allows a connection (before {@link #start()}; default {@link
   * ConnectionLimits#DEFAULTS}).
   */
  public void connectionLimits(ConnectionLimits limits) {
    synchronized (lifecycle) {
      if (started) {
        throw new IllegalStateException("connection limits must be set before start");
      }
      this.connectionLimits = java.util.Objects.requireNonNull(limits, "limits");
    }
  }

  /**
   * How often (ms) the repeater reads every duplicate's state znode it can reach and deposes itself
   * if one holds a newer epoch (before {@link #start()}; 0: never). Default {@link
   * RepeaterSettings#DEFAULT_EPOCH_CHECK_MILLIS}.
   */
  public void epochCheckMillis(long millis) {
    synchronized (lifecycle) {
      if (started) {
        throw new IllegalStateException("the epoch check must be set before start");
      }
      this.epochCheckMillis = millis;
    }
  }

  /** The admission controller, null when admission control is off. */
  public AdmissionController admission() {
    return admission;
  }

  // -------------------------------------------------------------------------------------------
  // lifecycle

  /**
   * Takes over: reads the duplicates' states, claims an epoch above all of them at a majority
   * (which fences every older repeater; the duplicates left out are fenced when they come back),
   * recovers from the most advanced duplicates the writes others missed ({@link EpochClaim}),
   * starts following the duplicates' plugins and accepts clients. The client listener is bound
   * before the claim (and accepts nobody until the end), so that a repeater that cannot listen
   * fails without deposing the running one. On failure everything started is closed again.
   *
   * @throws IllegalStateException if already started, or the configured epoch is not above every
   *     duplicate's epoch or was claimed by another repeater first
   * @throws TimeoutException if no majority's states can be read or claimed within the start
   *     timeout
   * @throws IOException if a state cannot be read or the listener cannot be bound
   */
  public void start() throws IOException, InterruptedException, TimeoutException {
    synchronized (lifecycle) {
      if (started || closed) {
        throw new IllegalStateException(closed ? "repeater is closed" : "repeater already started");
      }
      started = true;
    }
    try {
      startUp();
    } catch (IOException | InterruptedException | TimeoutException | RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  private void startUp() throws IOException, InterruptedException, TimeoutException {
    long startNanos = System.nanoTime();
    long deadline = startNanos + TimeUnit.MILLISECONDS.toNanos(config.startTimeoutMillis());
    // The set to claim at: the newest membership record, if duplicates were added or retired
    // online, else the configured duplicates. Before the loop exists: links change here freely.
    Set<Integer> joining = adoptMembership(membership.readAtStart(deadline, Ticker.system()));
    notifier.start();
    runtime.startSequencer();
    // Bind first, accepting nothing yet: a repeater that cannot listen (its port taken, say) must
    // fail before it claims an epoch, or it would depose the running repeater for nothing.
    runtime.listen(
        config.clientHost(),
        config.clientPort(),
        config.clientIoThreads(),
        connectionLimits,
        () ->
            new ClientHandler(
                sequencer,
                clients,
                new ServerAuth(security.access(), Credential.REPEATER, meters::authFailure)));

    EpochClaim claim = new EpochClaim(config, sources, runtime, security);
    EpochClaim.Claimed claimed = claim.claim(deadline);
    sequencer.epoch(claimed.epoch());
    long claimedNanos = System.nanoTime();
    Map<Integer, Long> applied = new LinkedHashMap<>();
    long maxApplied = 0;
    // The route record of a most advanced duplicate: as of maxApplied, after every write recovered.
    NameRoutes.Versioned routes = NameRoutes.Versioned.ABSENT;
    for (Map.Entry<Integer, DuplicateSource.Claim> claimOf : claimed.claims().entrySet()) {
      DuplicateSource.Claim c = claimOf.getValue();
      long appliedSeq = c.state().appliedSeq();
      DuplicateLink link = links.all().get(claimOf.getKey());
      link.initialAck(appliedSeq);
      applied.put(link.id(), appliedSeq);
      if (appliedSeq >= maxApplied) {
        maxApplied = appliedSeq;
        routes = c.routes();
      }
    }
    for (Map.Entry<Integer, String> left : claimed.leftOut().entrySet()) {
      DuplicateLink link = links.all().get(left.getKey());
      link.initialAck(maxApplied); // holds the log no lower than the others until it is back
      link.leftOutOfClaim(left.getValue());
    }
    for (int id : joining) {
      // A transfer to it may have been cut short with the old repeater: it starts over.
      links.get(id).leftOutOfClaim("still joining the deployment: it rejoins by state transfer");
    }
    List<Message.Sequenced> recovered = claim.recover(claimed, applied, deadline);
    long firstSeq = sequencer.begin(maxApplied, recovered, admission, routes);
    long doneNanos = System.nanoTime();
    takeover =
        new Takeover(
            claimed.epoch(),
            applied,
            firstSeq,
            maxApplied,
            TimeUnit.NANOSECONDS.toMillis(claimedNanos - startNanos),
            TimeUnit.NANOSECONDS.toMillis(doneNanos - claimedNanos));
    LOG.info(
        "repeater epoch {}, next seq {}: claimed in {} ms (applied seqs {}); recovered {} writes"
            + " ({}..{}) for the duplicates behind in {} ms",
        claimed.epoch(),
        sequencer.nextSeq(),
        takeover.claimMillis(),
        applied,
        takeover.recoveredWrites(),
        firstSeq,
        maxApplied,
        takeover.recoveryMillis());

    scheduleHousekeeping();
    followPlugins();
    if (epochCheckMillis > 0) {
      EpochWatch watch =
          new EpochWatch(sources, sequencer::epoch, epochCheckMillis, runtime, links);
      epochWatch = watch;
      watch.start();
    }
    runtime.acceptClients();
    LOG.info("repeater listening for clients on {}", runtime.boundAddress());
  }

  /**
   * A duplicate rejoined by state transfer: it holds a healthy duplicate's tree now, so a record of
   * it being left out of a claim must no longer make later repeaters distrust it. Cleared at every
   * duplicate that answers, off the sequencer loop (ZooKeeper calls block); if this fails, the next
   * repeater fences it once more, which is safe.
   */
  private void rejoined(int duplicateId) {
    membership.rejoined(duplicateId);
    long epoch = sequencer.epoch();
    Thread clearer =
        new Thread(
            () -> {
              for (DuplicateSource source : sources) {
                try {
                  source.clearLeftOut(
                      duplicateId, epoch, RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  return;
                } catch (Exception e) {
                  LOG.warn(
                      "duplicate {}: cannot clear the record of duplicate {} left out: {}",
                      source.duplicateId(),
                      duplicateId,
                      e.toString());
                }
              }
            },
            "zoolander-repeater-left-out-" + duplicateId);
    clearer.setDaemon(true);
    clearer.start();
  }

  /**
   * Makes the links and sources match the membership record read at start: a member not configured
   * gets a link (last in order), a configured duplicate the record retired loses its. Before the
   * loop exists.
   *
   * @return the members still joining
   */
  private Set<Integer> adoptMembership(Optional<Membership> record) {
    Set<Integer> joining = new TreeSet<>();
    if (record.isEmpty()) {
      return joining;
    }
    Membership m = record.get();
    for (DuplicateLink link : List.copyOf(links.all())) {
      if (m.member(link.id()).isEmpty()) {
        LOG.info(
            "duplicate {}: retired (membership version {}); not streamed to",
            link.id(),
            m.version());
        links.remove(link);
        sources.remove(link.source());
        link.source().close();
      }
    }
    for (Membership.Member member : m.members()) {
      if (!member.active()) {
        joining.add(member.duplicateId());
      }
      if (sources.stream().anyMatch(s -> s.duplicateId() == member.duplicateId())) {
        continue;
      }
      BiFunction<Integer, String, DuplicateSource> factory = sourceFactory;
      if (factory == null) {
        throw new IllegalStateException(
            "the membership record (version "
                + m.version()
                + ") names duplicate "
                + member.duplicateId()
                + ", which this repeater cannot reach: it was built without a source factory");
      }
      DuplicateSource source = factory.apply(member.duplicateId(), member.connectString());
      sources.add(source);
      meters.registerDuplicate(this, links.add(source));
      LOG.info(
          "duplicate {} at {}: a member (membership version {}), not configured",
          member.duplicateId(),
          member.connectString(),
          m.version());
    }
    if (links.all().isEmpty()) {
      throw new IllegalStateException("the membership record names no duplicate: " + m);
    }
    return joining;
  }

  /** What a membership change needs of this repeater. */
  private final class MembershipHost implements MembershipChanges.Host {
    @Override
    public List<DuplicateSource> sources() {
      return sources;
    }

    @Override
    public DuplicateSource newSource(int duplicateId, String connectString) {
      BiFunction<Integer, String, DuplicateSource> factory = sourceFactory;
      if (factory == null) {
        throw new IllegalStateException(
            "this repeater was built without a way to reach new duplicates");
      }
      return factory.apply(duplicateId, connectString);
    }

    @Override
    public String cannotPublish() {
      if (!sequencer.begun()) {
        return "the repeater has not started";
      }
      if (sequencer.stopped()) {
        return "the repeater is closing or deposed";
      }
      return null;
    }

    @Override
    public String cannotChange() {
      String why = cannotPublish();
      if (why != null) {
        return why;
      }
      if (admission != null) {
        return "admission control is on, and its model is sized by the configured duplicates";
      }
      if (sourceFactory == null) {
        return "this repeater was built without a way to reach new duplicates";
      }
      return null;
    }

    @Override
    public long epoch() {
      return sequencer.epoch();
    }

    @Override
    public CompletableFuture<Void> attachAndRejoin(DuplicateSource source) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      DuplicateLink[] added = new DuplicateLink[1];
      runtime.onLoopAndWait(
          () -> {
            sources.add(source);
            DuplicateLink link = links.add(source);
            meters.registerDuplicate(RepeaterCore.this, link);
            added[0] = link;
            // Should the transfer fail before it begins, the link must neither pin the log (it
            // holds it no lower than the head) nor be streamed to from what its plugin reports
            // (it is fenced and rejoined when its plugin first speaks, as one left out of a claim).
            link.initialAck(sequencer.nextSeq() - 1);
            link.leftOutOfClaim("added online: it joins by state transfer");
            transfers.start(link, done, false);
          });
      DuplicateLink link = added[0];
      try {
        source.watchEndpoint(endpoint -> runtime.execute(() -> link.endpointChanged(endpoint)));
      } catch (Exception e) {
        done.completeExceptionally(
            new IOException("cannot watch the endpoint of duplicate " + link.id() + ": " + e, e));
      }
      return done;
    }

    @Override
    public void detach(int duplicateId) {
      DuplicateLink link = links.get(duplicateId);
      runtime.onLoopAndWait(
          () -> {
            link.retire();
            links.remove(link);
            sources.remove(link.source());
            sequencer.trim(); // it no longer holds the log
          });
      link.source().close();
    }
  }

  /** The periodic work on the sequencer loop: ACK timeouts, admission control, arrival rate. */
  private void scheduleHousekeeping() {
    EventLoop loop = runtime.loop();
    long checkMillis = Math.max(10, config.pluginAckTimeoutMillis() / 4);
    loop.scheduleWithFixedDelay(
        () ->
            links.checkAcks(
                System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(config.pluginAckTimeoutMillis())),
        checkMillis,
        checkMillis,
        TimeUnit.MILLISECONDS);
    if (admission != null) {
      loop.scheduleAtFixedRate(
          admission::tick, admission.periodNanos(), admission.periodNanos(), TimeUnit.NANOSECONDS);
    }

    long firstNextSeq = sequencer.nextSeq();
    long sampleMillis = RepeaterMeters.ARRIVAL_RATE_WINDOW_MS / RepeaterMeters.ARRIVAL_RATE_SAMPLES;
    meters.sampleArrivals(System.nanoTime(), 0);
    loop.scheduleAtFixedRate(
        () -> meters.sampleArrivals(System.nanoTime(), sequencer.nextSeq() - firstNextSeq),
        sampleMillis,
        sampleMillis,
        TimeUnit.MILLISECONDS);
    sequencer.countFrom(firstNextSeq);
  }

  /** Watches every duplicate's plugin endpoint; each change goes to its link on the loop. */
  private void followPlugins() throws IOException, InterruptedException {
    for (DuplicateLink link : links.all()) {
      try {
        link.source()
            .watchEndpoint(
                endpoint -> runtime.execute(() -> link.endpointChanged(endpoint))); // or closing
      } catch (IOException | RuntimeException e) {
        throw e;
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        throw new IOException("cannot watch the endpoint of duplicate " + link.id() + ": " + e, e);
      }
    }
  }

  /**
   * Stops: refuses further WRITEs (SHUTTING_DOWN), gives queued SEQUENCED frames {@link
   * RepeaterSettings#CLOSE_DRAIN_TIMEOUT_MILLIS} to reach the plugins, then closes every connection
   * and thread. Idempotent.
   */
  @Override
  public void close() {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
    }
    membership.close();
    sequencer.close();
    meters.close();
    if (admission != null) {
      admission.close();
    }
    runtime.stopListening(true);
    if (runtime.loop() != null) {
      List<Future<?>> drains = new ArrayList<>();
      runtime.onLoopAndWait(() -> drains.addAll(links.drain()));
      long deadline =
          System.nanoTime()
              + TimeUnit.MILLISECONDS.toNanos(RepeaterSettings.CLOSE_DRAIN_TIMEOUT_MILLIS);
      for (Future<?> drained : drains) {
        drained.awaitUninterruptibly(
            Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    }
    EpochWatch watch = epochWatch;
    if (watch != null) {
      watch.close();
    }
    closeSources();
    if (runtime.loop() != null) {
      runtime.onLoopAndWait(
          () -> {
            links.shutdown();
            sequencer.clearLog();
          });
    }
    runtime.closeClients();
    runtime.shutdown();
    notifier.shutdown();
    LOG.info("repeater closed");
  }

  /** Closes the duplicates' sources in parallel: closing a ZooKeeper session takes about 100 ms. */
  private void closeSources() {
    List<Thread> closers = new ArrayList<>();
    for (DuplicateSource source : sources) {
      Thread closer =
          new Thread(
              () -> {
                try {
                  source.close();
                } catch (RuntimeException e) {
                  LOG.warn(
                      "closing the source of duplicate {}: {}", source.duplicateId(), e.toString());
                }
              },
              "zoolander-repeater-close-" + source.duplicateId());
      closer.setDaemon(true);
      closer.start();
      closers.add(closer);
    }
    long deadline =
        System.nanoTime()
            + TimeUnit.MILLISECONDS.toNanos(RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS);
    for (Thread closer : closers) {
      long millis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (millis > 0) {
        try {
          closer.join(millis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // the operator

  /**
   * Brings a duplicate back by state transfer (see {@link
   * io.zoolander.server.repeater.Repeater#rejoin}).
   *
   * @throws IllegalArgumentException if no duplicate has this id
   */
  public CompletableFuture<Void> rejoin(int duplicateId) {
    DuplicateLink link = links.get(duplicateId);
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (runtime.loop() == null || !sequencer.begun()) {
      done.completeExceptionally(new IllegalStateException("repeater not started"));
      return done;
    }
    if (!runtime.execute(() -> transfers.start(link, done, false))) {
      done.completeExceptionally(new IllegalStateException("repeater is closed"));
    }
    return done;
  }

  /**
   * Fences a duplicate for the operator (see {@link io.zoolander.server.repeater.Repeater#fence});
   * returns once done.
   *
   * @throws IllegalArgumentException if no duplicate has this id
   * @throws IllegalStateException if the repeater is not started
   */
  public void fence(int duplicateId) {
    DuplicateLink link = links.get(duplicateId);
    if (runtime.loop() == null || !sequencer.begun()) {
      throw new IllegalStateException("repeater not started");
    }
    runtime.onLoopAndWait(link::fenceByOperator);
  }

  /** Adds a duplicate online (see {@link io.zoolander.server.repeater.Repeater#addDuplicate}). */
  public CompletableFuture<Membership> addDuplicate(int duplicateId, String connectString) {
    return membership.add(duplicateId, connectString);
  }

  /**
   * Retires a duplicate online (see {@link io.zoolander.server.repeater.Repeater#retireDuplicate}).
   */
  public CompletableFuture<Membership> retireDuplicate(int duplicateId) {
    return membership.retire(duplicateId);
  }

  /**
   * Advises clients a read fan-out (see {@link
   * io.zoolander.server.repeater.Repeater#setReadFanOut}).
   */
  public CompletableFuture<Membership> setReadFanOut(int fanOut) {
    return membership.setReadFanOut(fanOut);
  }

  /** The duplicates the deployment runs now: the newest record, or the configured set. */
  public Membership membership() {
    return membership.current();
  }

  // -------------------------------------------------------------------------------------------
  // views (any thread)

  public InetSocketAddress boundAddress() {
    return runtime.boundAddress();
  }

  /** The epoch, or -1 before start. */
  public long epoch() {
    return sequencer.epoch();
  }

  /** How this repeater took over at start; null before. */
  public Takeover takeover() {
    return takeover;
  }

  /** The seq the next write gets, or -1 before start. */
  public long nextSeq() {
    return sequencer.nextSeq();
  }

  /** {@link NameWriteRates#rates()}: writes per second to each top-level name, highest first. */
  public Map<String, Double> nameWriteRates() {
    return nameWriteRates.rates();
  }

  public boolean isDeposed() {
    return sequencer.isDeposed();
  }

  /**
   * How many sequenced writes the retransmission log holds now (asked of the sequencer thread); -1
   * if stopped.
   */
  public int logSize() {
    return sequencer.logSize();
  }

  /** Writes sequenced since start (0 before). */
  long sequencedWrites() {
    return sequencer.sequencedWrites();
  }

  /** How many duplicates are fenced. */
  public int fencedCount() {
    return links.fencedCount();
  }

  /** How many duplicates are not fenced. */
  public int liveDuplicates() {
    return links.all().size() - fencedCount();
  }

  /** The meters and the predictor's inputs. */
  public RepeaterMeters meters() {
    return meters;
  }

  /**
   * Writes sequenced per second, measured over the last {@link
   * RepeaterMeters#ARRIVAL_RATE_WINDOW_MS}.
   */
  public double arrivalRatePerSec() {
    return meters.arrivalRatePerSec();
  }

  /**
   * The ACK latencies (ms) the predictor holds for duplicate {@code duplicateId}, oldest first: of
   * writes sent while it owed no ACK ({@link RepeaterMeters.Duplicate}), no older than {@link
   * #predictorSampleMaxAgeMs()}.
   */
  public double[] serviceTimeSamplesMs(int duplicateId) {
    return links.samplesMs(duplicateId);
  }

  /**
   * The SLA at {@code tauMs} the engine predicts for {@code duplicates} duplicates at {@code
   * arrivalRatePerSec}, with its interval, from the ACK latencies of the duplicates that are not
   * fenced, no older than the maximum age ({@link SlaWhatIf}); null while there are none.
   */
  public SlaEstimate predict(int duplicates, double arrivalRatePerSec, double tauMs) {
    return whatIf.predict(links.liveSamplesMs(), duplicates, arrivalRatePerSec, tauMs);
  }

  /**
   * As {@link #predict}, from the ACK latencies of the duplicates that would remain without {@code
   * withoutId}: what retiring it would leave. Pooled with the others', a slow duplicate's samples
   * are diluted by a fast one's; the question whether the slow one alone would do must not be.
   */
  public SlaEstimate predictWithout(
      int withoutId, int duplicates, double arrivalRatePerSec, double tauMs) {
    return whatIf.predict(links.liveSamplesMs(withoutId), duplicates, arrivalRatePerSec, tauMs);
  }

  /**
   * The highest write rate at which the live duplicates are predicted to meet {@code targetSla} at
   * {@code tauMs}, from their samples; NaN without samples.
   *
   * @throws IllegalArgumentException if {@code targetSla} is not in (0, 1) or {@code tauMs} is not
   *     positive and finite
   */
  public double writeCapacityPerSec(double targetSla, double tauMs) {
    if (!(targetSla > 0 && targetSla < 1)) {
      throw new IllegalArgumentException("targetSla must be in (0, 1), was " + targetSla);
    }
    if (!(tauMs > 0) || Double.isInfinite(tauMs)) {
      throw new IllegalArgumentException("tauMs must be finite and > 0, was " + tauMs);
    }
    return whatIf.writeCapacityPerSec(links.liveSamplesMs(), liveDuplicates(), targetSla, tauMs);
  }

  /**
   * How many ACK latencies the predictions use now: those of the duplicates that are not fenced, no
   * older than {@link #predictorSampleMaxAgeMs()}.
   */
  public int predictorSamples() {
    int count = 0;
    for (double[] samples : links.liveSamplesMs()) {
      count += samples.length;
    }
    return count;
  }

  /**
   * The SLA at {@code tauMs} predicted for the live duplicates at the measured rate, reused for a
   * second ({@link LivePrediction}) so that the Predictor MBean's attributes agree with each other;
   * null while there are no samples.
   */
  public SlaEstimate livePrediction(double tauMs) {
    int live = Math.max(1, liveDuplicates());
    return livePrediction.get(
        tauMs, predictorSamples() > 0, live, () -> predict(live, arrivalRatePerSec(), tauMs));
  }

  /** How long an ACK latency stays the predictor's input, in ms. */
  public long predictorSampleMaxAgeMs() {
    return meters.sampleMaxAgeMs();
  }

  /** The state transfers in progress; empty when the repeater does not run. */
  public List<TransferProgress> transfers() {
    if (runtime.loop() == null) {
      return List.of();
    }
    List<TransferProgress> progress = new ArrayList<>();
    runtime.onLoopAndWait(() -> progress.addAll(transfers.progress(System.nanoTime())));
    return progress;
  }

  public List<DuplicateView> duplicates() {
    return links.views();
  }
}
