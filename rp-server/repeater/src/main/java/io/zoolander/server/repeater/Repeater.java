package io.zoolander.server.repeater;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.zoolander.model.SlaEstimate;
import io.zoolander.server.internal.repeater.BatchingController;
import io.zoolander.server.internal.repeater.CoreConfig;
import io.zoolander.server.internal.repeater.DuplicateSource;
import io.zoolander.server.internal.repeater.RepeaterConsole;
import io.zoolander.server.internal.repeater.RepeaterCore;
import io.zoolander.server.internal.repeater.RepeaterMeters;
import io.zoolander.server.internal.repeater.ZooKeeperDuplicateSource;
import io.zoolander.server.internal.repeater.admission.AdmissionController;
import io.zoolander.server.internal.repeater.control.LoadController;
import io.zoolander.server.internal.security.ConnectionLimits;
import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.jmx.ZoolanderJmx;
import io.zoolander.server.security.PluginSecurity;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.Credential;
import io.zoolander.wire.Membership;
import io.zoolander.wire.Role;
import io.zoolander.wire.Ticker;
import io.zoolander.wire.TlsSettings;
import io.zoolander.wire.Znodes;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import javax.management.InstanceAlreadyExistsException;
import javax.management.MBeanServer;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * The repeater: receives every client WRITE, stamps it with {@code (epoch, seq)} and streams it, in
 * seq order, to the active plugin of every duplicate. Follows {@code docs/architecture.md}.
 *
 * <pre>{@code
 * try (Repeater repeater = Repeater.builder()
 *         .duplicate(1, "127.0.0.1:2181")
 *         .duplicate(2, "127.0.0.1:2182")
 *         .build()) {
 *     repeater.start();
 *     InetSocketAddress clientsConnectHere = repeater.boundAddress();
 *     ...
 * }
 * }</pre>
 *
 * <p>{@link #start()} takes over from any earlier repeater. It reads the duplicates' bookkeeping
 * state ({@code <base>/state}; a majority must answer) and chooses the highest epoch found plus one
 * (or the configured one, which must be higher still); it <em>claims</em> that epoch at a majority
 * of the duplicates, with a conditional update of the state, so no two repeaters ever hold the same
 * epoch (two majorities share a duplicate) and every claimed plugin refuses the older repeaters'
 * writes from then on; a duplicate left out is fenced when it comes back and rejoins by state
 * transfer; the sequence continues after the highest applied seq of the claimed ones. The writes
 * that the most advanced duplicates applied and others did not are recovered from the most advanced
 * duplicates' plugins and streamed to the others again ({@link #takeover()} reports it). Then the
 * repeater follows each duplicate's plugin through its endpoint znode, connects, resumes it from
 * its applied seq and streams the live sequence. See the {@linkplain io.zoolander.server.repeater
 * package documentation} for back-pressure and fencing. Thread-safe.
 */
public final class Repeater implements AutoCloseable {
  private final RepeaterCore core;
  private final MBeanServer mbeanServer;
  private final double slaTauMs;
  private final LoadController controller; // null when off
  private RepeaterConsole console;

  private Repeater(
      RepeaterCore core, MBeanServer mbeanServer, double slaTauMs, LoadController controller) {
    this.core = core;
    this.mbeanServer = mbeanServer;
    this.slaTauMs = slaTauMs;
    this.controller = controller;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Takes over (claims an epoch at a majority of the duplicates, recovers what the duplicates
   * behind missed), binds the client listener and starts following the plugins. Returns once
   * clients can connect; plugin connections come up in the background (see {@link #duplicates()}).
   *
   * @throws IllegalStateException if already started or closed, if the configured epoch is not
   *     above every duplicate's (or another repeater claimed it first), or if a duplicate's state
   *     znode is not a bookkeeping record
   * @throws TimeoutException if no majority of the duplicates' states can be read and claimed
   *     within the start timeout (those that do not answer are left out and rejoin by state
   *     transfer: see docs/repeater.md, "Start: taking over")
   * @throws IOException if a state cannot be read or the listener cannot be bound
   * @throws IllegalStateException also if the {@linkplain Builder#mbeanServer MBean server} holds
   *     another repeater's MBeans
   */
  public Repeater start() throws IOException, InterruptedException, TimeoutException {
    // Checked before the claim (which deposes the running repeater), as is the client listener.
    if (mbeanServer != null) {
      for (javax.management.ObjectName name :
          List.of(ZoolanderJmx.REPEATER, ZoolanderJmx.PREDICTOR, ZoolanderJmx.ADMISSION)) {
        if (mbeanServer.isRegistered(name)) {
          core.close();
          throw new IllegalStateException(
              "the MBean server already holds a repeater's MBeans ("
                  + name
                  + "): one repeater per MBean server");
        }
      }
    }
    core.start();
    if (mbeanServer != null) {
      try {
        synchronized (this) {
          console = RepeaterConsole.register(mbeanServer, core, slaTauMs);
        }
      } catch (InstanceAlreadyExistsException e) {
        core.close();
        throw new IllegalStateException(
            "the MBean server already holds a repeater's MBeans ("
                + e.getMessage()
                + "): one repeater per MBean server",
            e);
      }
    }
    if (controller != null) {
      controller.start();
    }
    return this;
  }

  /**
   * Refuses further WRITEs, lets queued SEQUENCED messages reach the plugins briefly, closes
   * everything; unregisters its MBeans and removes its meters. Idempotent.
   */
  @Override
  public void close() {
    if (controller != null) {
      controller.close();
    }
    synchronized (this) {
      if (console != null) {
        console.close();
        console = null;
      }
    }
    core.close();
  }

  /**
   * The address clients connect to.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public InetSocketAddress boundAddress() {
    return core.boundAddress();
  }

  /**
   * This repeater's epoch.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public long epoch() {
    return started(core.epoch());
  }

  /**
   * The seq the next WRITE will get (one more than the last sequenced).
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public long nextSeq() {
    return started(core.nextSeq());
  }

  /**
   * How this repeater took over when it started: the epoch it claimed, each duplicate's applied seq
   * at the claim, the writes it recovered for the duplicates behind, and how long that took.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public Takeover takeover() {
    Takeover t = core.takeover();
    if (t == null) {
      throw new IllegalStateException("repeater not started");
    }
    return t;
  }

  /**
   * Whether a plugin reported a newer repeater: this one then stops listening, closes its client
   * connections (so clients move to the next repeater they know) and refuses every WRITE still
   * arriving with STALE_EPOCH.
   */
  public boolean isDeposed() {
    return core.isDeposed();
  }

  /**
   * How many sequenced writes the retransmission log holds now: at most {@link
   * Builder#logCapacity(int)}, whatever the duplicates do (the memory a slow or cut-off duplicate
   * can pin). -1 when not running.
   */
  public int logSize() {
    return core.logSize();
  }

  /**
   * Brings duplicate {@code duplicateId} back by <em>state transfer</em>, then follows the stream:
   * the repeater asks the most advanced healthy duplicate's plugin for a snapshot of its data root
   * and client records, taken between two applied writes, and relays it in bounded chunks to the
   * duplicate's plugin, which replaces its own with it (reproducing data versions and child
   * versions) and records the snapshot's applied seq; the repeater then streams to it from that seq
   * on, out of the log, which keeps the writes after the snapshot meanwhile. The duplicate serves
   * no reads (ERROR {@code REJOINING}, which clients take as "ask another duplicate") from the
   * first chunk until it has applied what was sequenced when the snapshot arrived. For a fenced
   * duplicate, a duplicate brought back empty or stale, or one fenced by {@link #fence}; a
   * duplicate already rejoining gets the same transfer. See {@code docs/operations.md}.
   *
   * @return completes once the duplicate is streamed to again; fails (IllegalStateException) if no
   *     other duplicate is streaming, the snapshot is over the plugin's limit (TRANSFER_TOO_LARGE),
   *     a connection is lost, the log no longer holds the writes after the snapshot, or {@link
   *     RepeaterSettings#TRANSFER_TIMEOUT_MILLIS} passes; the duplicate then stays fenced
   * @throws IllegalArgumentException if no duplicate has this id
   */
  public CompletableFuture<Void> rejoin(int duplicateId) {
    return core.rejoin(duplicateId);
  }

  /**
   * Fences duplicate {@code duplicateId} for the operator: the repeater sends it nothing more (and
   * does not rejoin it by itself), tells its plugin, which then refuses reads (ERROR {@code
   * FENCED}: clients ask another duplicate), and no longer holds the log for it. A state transfer
   * in progress to it is abandoned. {@link #rejoin} brings it back. Returns once the repeater has
   * fenced it; fencing a fenced duplicate does nothing.
   *
   * @throws IllegalArgumentException if no duplicate has this id
   * @throws IllegalStateException if the repeater is not started
   */
  public void fence(int duplicateId) {
    core.fence(duplicateId);
  }

  /**
   * Adds duplicate {@code duplicateId} to the running deployment: a ZooKeeper ensemble whose
   * servers run the plugin with {@code zoolander.duplicateId=<duplicateId>}, reached at {@code
   * connectString}. The repeater claims its epoch there, records the duplicate as joining in the
   * membership record of every member ({@code <base>/members}), rejoins it by state transfer from
   * the most advanced duplicate (whatever its ensemble held), streams to it, and then records it as
   * active: clients that follow the record start reading from it. One change at a time; each is
   * written to a majority of the active duplicates before it takes effect, so a repeater that takes
   * over later finds it. See {@code docs/operations.md}, "Adding and retiring duplicates online".
   *
   * @return completes with the new set once the duplicate is active; fails with
   *     IllegalArgumentException (already a member, a bad id or connect string) or
   *     IllegalStateException (the repeater is not running, admission control is on, the
   *     duplicate's ensemble holds a newer repeater's epoch, too few duplicates took the record, or
   *     the state transfer failed: the duplicate then stays joining, and becomes active when a
   *     later {@link #rejoin} succeeds)
   */
  public CompletableFuture<Membership> addDuplicate(int duplicateId, String connectString) {
    return core.addDuplicate(duplicateId, connectString);
  }

  /**
   * Retires duplicate {@code duplicateId} from the running deployment: the membership record
   * without it is written to a majority of the active duplicates (and to it, best effort), then the
   * repeater fences it (its plugin refuses reads from then on, across restarts) and forgets it.
   * Clients that follow the record stop reading from it; writes no longer wait for it.
   *
   * @return completes with the new set once it is fenced and forgotten; fails with
   *     IllegalArgumentException (not a member) or IllegalStateException (the last active
   *     duplicate, the repeater not running, admission control on, too few duplicates took the
   *     record)
   */
  public CompletableFuture<Membership> retireDuplicate(int duplicateId) {
    return core.retireDuplicate(duplicateId);
  }

  /**
   * Advises clients to ask {@code fanOut} duplicates per read (0 withdraws the advice): the
   * membership record with it is written to a majority of the active duplicates, and clients whose
   * read policy is {@code ReadPolicy.advised} follow it as soon as they read it (at most the active
   * duplicates, whatever it says). The load controller sets it when it runs ({@link
   * ControllerSettings}); an operator may set it by hand otherwise.
   *
   * @return completes with the record once written; fails with IllegalArgumentException (negative)
   *     or IllegalStateException (the repeater is not running, too few duplicates took the record)
   */
  public CompletableFuture<Membership> setReadFanOut(int fanOut) {
    return core.setReadFanOut(fanOut);
  }

  /**
   * The duplicates the deployment runs now: the newest membership record this repeater wrote or
   * read at start, or, while no duplicate was ever added or retired online, the configured ones
   * (version 1).
   */
  public Membership membership() {
    return core.membership();
  }

  /**
   * The state transfers in progress ({@link #rejoin}, or automatic ones): chunks relayed of how
   * many, and about how long the rest will take. Each is also logged once per tenth of its chunks.
   */
  public List<TransferProgress> transfers() {
    return core.transfers();
  }

  /**
   * Writes per second to each top-level name over the last complete window ({@link
   * Builder#nameWriteRates}, 10 seconds by default), highest first: what this partition's writes
   * are made of, the names to move to another partition when they outgrow it. One write in 8 is
   * counted by default, scaled back; empty when no write came in the last window.
   */
  public Map<String, Double> nameWriteRates() {
    return core.nameWriteRates();
  }

  /**
   * The highest write rate at which this partition's live duplicates are predicted to meet {@code
   * targetSla} at {@code tauMs}, from their recent ACK latencies (the model's engine, to 1% of the
   * rate): how many writes per second the partition can take, which a balancer compares with its
   * {@link #nameWriteRates()}. Runs the engine: tens of milliseconds, not for every write.
   *
   * @param targetSla the fraction of writes to be first acknowledged within tau, in (0, 1)
   * @param tauMs the bound, in milliseconds, positive
   * @return writes per second (0 if not even an idle partition meets the target); NaN while no
   *     write was acknowledged recently (an idle partition has no samples)
   * @throws IllegalArgumentException if either is out of range
   */
  public double writeCapacityPerSec(double targetSla, double tauMs) {
    return core.writeCapacityPerSec(targetSla, tauMs);
  }

  /** A snapshot of every duplicate, in configuration order. */
  public List<DuplicateView> duplicates() {
    return core.duplicates();
  }

  /**
   * A snapshot of one duplicate.
   *
   * @throws IllegalArgumentException if no duplicate has this id
   */
  public DuplicateView duplicate(int duplicateId) {
    for (DuplicateView view : core.duplicates()) {
      if (view.id() == duplicateId) {
        return view;
      }
    }
    throw new IllegalArgumentException("no duplicate " + duplicateId);
  }

  /**
   * The last decision of the controller that follows the load, with the numbers behind it; empty
   * when the controller is off ({@link Builder#controller}) or before its first period.
   */
  public Optional<ControllerDecision> controllerDecision() {
    return controller == null ? Optional.empty() : Optional.ofNullable(controller.last());
  }

  /**
   * Admission control as of its last control period, empty when it is off ({@link
   * Builder#admission}).
   */
  public Optional<AdmissionState> admission() {
    AdmissionController controller = core.admission();
    return controller == null ? Optional.empty() : Optional.of(controller.state());
  }

  /**
   * Changes admission control's target at run time, from its next control period on.
   *
   * @param targetSla the fraction of writes to be first acknowledged within tau, in (0, 1)
   * @param tauMs the bound, in milliseconds, positive
   * @throws IllegalArgumentException if either is out of range
   * @throws IllegalStateException if admission control is off
   */
  public void admissionTarget(double targetSla, double tauMs) {
    AdmissionController controller = core.admission();
    if (controller == null) {
      throw new IllegalStateException(
          "admission control is off: build the repeater with Builder.admission(...)");
    }
    controller.target(targetSla, tauMs);
  }

  private static long started(long value) {
    if (value < 0) {
      throw new IllegalStateException("repeater not started");
    }
    return value;
  }

  /**
   * Configures a {@link Repeater}; every setter validates its argument and {@link #build()} the
   * whole.
   */
  public static final class Builder {
    private String clientHost = RepeaterSettings.DEFAULT_CLIENT_HOST;
    private int clientPort = RepeaterSettings.DEFAULT_CLIENT_PORT;
    private final Map<Integer, String> duplicates = new LinkedHashMap<>();
    private String basePath = RepeaterSettings.DEFAULT_BASE_PATH;
    private int logCapacityMessages = RepeaterSettings.DEFAULT_LOG_CAPACITY_MESSAGES;
    private long logCapacityBytes = RepeaterSettings.DEFAULT_LOG_CAPACITY_BYTES;
    private int sessionTimeoutMillis = RepeaterSettings.DEFAULT_SESSION_TIMEOUT_MILLIS;
    private long startTimeoutMillis = RepeaterSettings.DEFAULT_START_TIMEOUT_MILLIS;
    private OptionalLong epoch = OptionalLong.empty();
    private int clientIoThreads = RepeaterSettings.DEFAULT_CLIENT_IO_THREADS;
    private ConnectionLimits connectionLimits = ConnectionLimits.DEFAULTS;
    private long epochCheckMillis = RepeaterSettings.DEFAULT_EPOCH_CHECK_MILLIS;
    private int juteMaxBufferBytes = RepeaterSettings.DEFAULT_JUTE_MAX_BUFFER_BYTES;
    private long pluginAckTimeoutMillis = RepeaterSettings.DEFAULT_PLUGIN_ACK_TIMEOUT_MILLIS;
    private long nameRatesWindowMillis = RepeaterSettings.DEFAULT_NAME_RATES_WINDOW_MILLIS;
    private int nameRatesSampleEvery = RepeaterSettings.DEFAULT_NAME_RATES_SAMPLE_EVERY;
    private long missingDuplicateGraceMillis =
        RepeaterSettings.DEFAULT_MISSING_DUPLICATE_GRACE_MILLIS;
    private boolean autoRejoin = RepeaterSettings.DEFAULT_AUTO_REJOIN;
    private RepeaterListener listener;
    private BatchingPolicy batching = BatchingPolicy.adaptive();
    private TlsSettings tls;
    private AccessControl access = AccessControl.none();
    private Credential credential;
    private byte[] zooKeeperAuth; // user:password, null without ZooKeeper ACLs
    private MeterRegistry meterRegistry;
    private MBeanServer mbeanServer;
    private double slaTauMs = RepeaterSettings.DEFAULT_SLA_TAU_MS;
    private AdmissionSettings admission;
    private ControllerSettings controller;
    private Ticker ticker = Ticker.system();
    private Duration predictorSampleMaxAge =
        Duration.ofMillis(RepeaterMeters.DEFAULT_SAMPLE_MAX_AGE_MS);

    private Builder() {}

    // What a Failover needs of the repeater it runs (same package: not public API).

    Map<Integer, String> duplicateConnectStrings() {
      return Map.copyOf(duplicates);
    }

    String basePathValue() {
      return basePath;
    }

    String clientHostValue() {
      return clientHost;
    }

    int sessionTimeoutMillisValue() {
      return sessionTimeoutMillis;
    }

    byte[] zooKeeperAuthValue() {
      return zooKeeperAuth == null ? null : zooKeeperAuth.clone();
    }

    /**
     * TLS on the client listener and on the connections to plugins (default: plaintext). The
     * settings need a key and certificate (the repeater is a server to clients); with {@link
     * TlsSettings#requireClientCertificate()} clients must present certificates, and the same key
     * is shown to plugins that require client certificates.
     *
     * @throws IllegalArgumentException if {@code tls} has no key and certificate
     */
    public Builder tls(TlsSettings tls) {
      Objects.requireNonNull(tls, "tls must not be null");
      if (!tls.hasKey()) {
        throw new IllegalArgumentException("tls: the repeater needs a key and certificate");
      }
      this.tls = tls;
      return this;
    }

    /**
     * Who may write (default: anyone): with {@link AccessControl.Builder#allow allow(Role.CLIENT,
     * ...)} a client must authenticate as an allowed principal before its WRITEs are sequenced.
     *
     * @throws IllegalArgumentException if {@code access} names a role other than {@link
     *     Role#CLIENT}
     */
    public Builder access(AccessControl access) {
      Objects.requireNonNull(access, "access must not be null");
      for (Role role : Role.values()) {
        if (role != Role.CLIENT && access.requires(role)) {
          throw new IllegalArgumentException(
              "access: the repeater authenticates only clients, not " + role);
        }
      }
      this.access = access;
      return this;
    }

    /** How the repeater proves who it is to plugins that require authentication (default: none). */
    public Builder credential(Credential credential) {
      this.credential = Objects.requireNonNull(credential, "credential must not be null");
      return this;
    }

    /**
     * The plugins' ZooKeeper identity (their {@code zoolander.zookeeper.user} and {@code
     * zoolander.zookeeper.passwordFile}; default: none). With ZooKeeper ACLs on, only that identity
     * may write Zoolander's znodes, and the repeater writes one: it claims its epoch in every
     * duplicate's state znode at start. Without it, a repeater cannot start once the plugins have
     * protected the state znodes.
     *
     * @throws IllegalArgumentException if the user contains ':' or the password file cannot be read
     *     or is empty
     */
    public Builder zooKeeperIdentity(String user, Path passwordFile) {
      Objects.requireNonNull(user, "user must not be null");
      Objects.requireNonNull(passwordFile, "passwordFile must not be null");
      this.zooKeeperAuth = PluginSecurity.digestAuth(user, passwordFile);
      return this;
    }

    /**
     * Where clients connect (default {@value RepeaterSettings#DEFAULT_CLIENT_HOST}:{@value
     * RepeaterSettings#DEFAULT_CLIENT_PORT}, an ephemeral port).
     *
     * @param port 0 to 65535; 0 picks a free port
     */
    public Builder clientListen(String host, int port) {
      Objects.requireNonNull(host, "host must not be null");
      if (host.isBlank()) {
        throw new IllegalArgumentException("host must not be blank");
      }
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in 0..65535, was " + port);
      }
      this.clientHost = host;
      this.clientPort = port;
      return this;
    }

    /**
     * Adds a duplicate: an independent ZooKeeper ensemble whose plugin publishes its endpoint
     * there.
     *
     * @param duplicateId {@code >= 0}, unique; the id its plugin reports
     * @param connectString the ensemble's ZooKeeper connect string, e.g. {@code
     *     127.0.0.1:2181,127.0.0.1:2182}
     */
    public Builder duplicate(int duplicateId, String connectString) {
      if (duplicateId < 0) {
        throw new IllegalArgumentException("duplicateId must be >= 0, was " + duplicateId);
      }
      Objects.requireNonNull(connectString, "connectString must not be null");
      if (connectString.isBlank()) {
        throw new IllegalArgumentException(
            "connectString of duplicate " + duplicateId + " must not be blank");
      }
      if (duplicates.containsKey(duplicateId)) {
        throw new IllegalArgumentException("duplicate " + duplicateId + " is already configured");
      }
      duplicates.put(duplicateId, connectString);
      return this;
    }

    /**
     * Base path of Zoolander's znodes in every duplicate (default {@value
     * RepeaterSettings#DEFAULT_BASE_PATH}).
     */
    public Builder basePath(String basePath) {
      new Znodes(basePath); // validates
      this.basePath = basePath;
      return this;
    }

    /**
     * Retransmission log capacity (default {@value
     * RepeaterSettings#DEFAULT_LOG_CAPACITY_MESSAGES}).
     *
     * @param messages 1 to {@value RepeaterSettings#MAX_LOG_CAPACITY_MESSAGES}
     */
    public Builder logCapacity(int messages) {
      if (messages < 1 || messages > RepeaterSettings.MAX_LOG_CAPACITY_MESSAGES) {
        throw new IllegalArgumentException(
            "logCapacity must be in 1.."
                + RepeaterSettings.MAX_LOG_CAPACITY_MESSAGES
                + " messages, was "
                + messages);
      }
      this.logCapacityMessages = messages;
      return this;
    }

    /**
     * Retransmission log capacity in bytes of encoded writes (default {@value
     * RepeaterSettings#DEFAULT_LOG_CAPACITY_BYTES}); the log holds at most {@link #logCapacity}
     * writes and at most this many bytes, and one write whatever its size.
     *
     * @param bytes {@value RepeaterSettings#MIN_LOG_CAPACITY_BYTES} to {@value
     *     RepeaterSettings#MAX_LOG_CAPACITY_BYTES}
     */
    public Builder logCapacityBytes(long bytes) {
      if (bytes < RepeaterSettings.MIN_LOG_CAPACITY_BYTES
          || bytes > RepeaterSettings.MAX_LOG_CAPACITY_BYTES) {
        throw new IllegalArgumentException(
            "logCapacityBytes must be in "
                + RepeaterSettings.MIN_LOG_CAPACITY_BYTES
                + ".."
                + RepeaterSettings.MAX_LOG_CAPACITY_BYTES
                + ", was "
                + bytes);
      }
      this.logCapacityBytes = bytes;
      return this;
    }

    /**
     * ZooKeeper session timeout of the repeater's sessions with the ensembles (default {@value
     * RepeaterSettings#DEFAULT_SESSION_TIMEOUT_MILLIS} ms); the servers clamp it to 2..20 ticks.
     */
    public Builder sessionTimeout(Duration timeout) {
      this.sessionTimeoutMillis = Math.toIntExact(positiveMillis(timeout, "sessionTimeout"));
      return this;
    }

    /**
     * Bound on reading every duplicate's state in {@link #start()} (default {@value
     * RepeaterSettings#DEFAULT_START_TIMEOUT_MILLIS} ms).
     */
    public Builder startTimeout(Duration timeout) {
      this.startTimeoutMillis = positiveMillis(timeout, "startTimeout");
      return this;
    }

    /**
     * A fixed epoch instead of the highest found plus one; {@link #start()} still fails unless it
     * is higher than every duplicate's.
     *
     * @param epoch {@code >= 1}
     */
    public Builder epoch(long epoch) {
      if (epoch < 1) {
        throw new IllegalArgumentException("epoch must be >= 1, was " + epoch);
      }
      this.epoch = OptionalLong.of(epoch);
      return this;
    }

    /**
     * Threads reading client connections (default {@value
     * RepeaterSettings#DEFAULT_CLIENT_IO_THREADS}), 0 to 64. With 0 the sequencer loop reads the
     * client connections itself: a write is sequenced without crossing to another thread (one
     * thread wake-up less per write), and the sequencer thread also does the clients' decoding.
     */
    public Builder clientIoThreads(int threads) {
      if (threads < 0 || threads > 64) {
        throw new IllegalArgumentException("clientIoThreads must be in 0..64, was " + threads);
      }
      this.clientIoThreads = threads;
      return this;
    }

    /**
     * What the client port allows a connection (defaults: {@value
     * ConnectionLimits#DEFAULT_HANDSHAKE_TIMEOUT_MS} ms, {@value
     * ConnectionLimits#DEFAULT_FRAME_IDLE_TIMEOUT_MS} ms, {@value
     * ConnectionLimits#DEFAULT_FRAME_TIMEOUT_MS} ms, {@value
     * ConnectionLimits#DEFAULT_MAX_CONNECTIONS} connections).
     *
     * @param handshakeTimeout a connection that has not finished HELLO (and AUTH) this long after
     *     it was accepted is refused and closed
     * @param frameIdleTimeout a connection that sent part of a frame and then nothing this long is
     *     refused and closed (a quiet client with no partial frame never is)
     * @param frameTimeout a connection that has been sending one frame for longer than this is
     *     refused and closed (a client trickling a byte at a time never stalls for {@code
     *     frameIdleTimeout})
     * @param maxConnections most client connections open at once; more are refused with OVERLOADED
     * @throws IllegalArgumentException if a value is out of bounds ({@link
     *     RepeaterKeys#HANDSHAKE_TIMEOUT_MS}, {@link RepeaterKeys#FRAME_IDLE_TIMEOUT_MS}, {@link
     *     RepeaterKeys#FRAME_TIMEOUT_MS}, {@link RepeaterKeys#MAX_CONNECTIONS})
     */
    public Builder clientConnectionLimits(
        Duration handshakeTimeout,
        Duration frameIdleTimeout,
        Duration frameTimeout,
        int maxConnections) {
      Objects.requireNonNull(handshakeTimeout, "handshakeTimeout must not be null");
      Objects.requireNonNull(frameIdleTimeout, "frameIdleTimeout must not be null");
      Objects.requireNonNull(frameTimeout, "frameTimeout must not be null");
      this.connectionLimits =
          new ConnectionLimits(
              handshakeTimeout.toMillis(),
              frameIdleTimeout.toMillis(),
              frameTimeout.toMillis(),
              maxConnections);
      return this;
    }

    /**
     * How long a takeover still waits for the other duplicates once a majority has answered (its
     * state read, its epoch claimed; default {@value
     * RepeaterSettings#DEFAULT_MISSING_DUPLICATE_GRACE_MILLIS} ms). Those that do not answer by
     * then are left out and rejoin by state transfer when they come back: longer spares a slow but
     * living duplicate that transfer on a loaded host, shorter brings a takeover with a duplicate
     * down closer to one with all of them up.
     *
     * @throws IllegalArgumentException if negative or over an hour
     */
    public Builder missingDuplicateGrace(Duration grace) {
      this.missingDuplicateGraceMillis = millisUpToAnHour(grace, "missingDuplicateGrace");
      return this;
    }

    /**
     * How often the repeater reads every duplicate's state znode it can reach and deposes itself if
     * one holds a newer epoch (default {@value RepeaterSettings#DEFAULT_EPOCH_CHECK_MILLIS} ms;
     * {@link Duration#ZERO} turns it off): a repeater cut off from the plugins but not from
     * ZooKeeper then tells its clients STALE_EPOCH, so they move to the next repeater, instead of
     * letting their writes time out.
     *
     * @throws IllegalArgumentException if negative or over an hour
     */
    public Builder epochCheckInterval(Duration interval) {
      this.epochCheckMillis = millisUpToAnHour(interval, "epochCheckInterval");
      return this;
    }

    /**
     * How {@link Repeater#nameWriteRates()} measures: over windows of {@code window} (default
     * {@value RepeaterSettings#DEFAULT_NAME_RATES_WINDOW_MILLIS} ms), counting one write in {@code
     * sampleEvery} at random (default {@value RepeaterSettings#DEFAULT_NAME_RATES_SAMPLE_EVERY}; 1
     * counts every write). A shorter window follows the load sooner and is noisier; so is a sparser
     * count at a low write rate.
     *
     * @throws IllegalArgumentException if the window is not positive or {@code sampleEvery < 1}
     */
    public Builder nameWriteRates(Duration window, int sampleEvery) {
      this.nameRatesWindowMillis = positiveMillis(window, "nameWriteRates window");
      if (sampleEvery < 1) {
        throw new IllegalArgumentException(
            "nameWriteRates sampleEvery must be >= 1, was " + sampleEvery);
      }
      this.nameRatesSampleEvery = sampleEvery;
      return this;
    }

    /**
     * The duplicates' {@code jute.maxbuffer} (default {@value
     * RepeaterSettings#DEFAULT_JUTE_MAX_BUFFER_BYTES}, ZooKeeper's default): a write too large for
     * one ZooKeeper request of this size is refused with ERROR TOO_LARGE before it is sequenced.
     * Set it to the servers' value when they raise it.
     *
     * @param bytes at least {@value RepeaterSettings#MIN_JUTE_MAX_BUFFER_BYTES}
     */
    public Builder juteMaxBuffer(int bytes) {
      if (bytes < RepeaterSettings.MIN_JUTE_MAX_BUFFER_BYTES) {
        throw new IllegalArgumentException(
            "juteMaxBuffer must be >= "
                + RepeaterSettings.MIN_JUTE_MAX_BUFFER_BYTES
                + " bytes, was "
                + bytes);
      }
      this.juteMaxBufferBytes = bytes;
      return this;
    }

    /**
     * How long a plugin connection may leave sent writes unacknowledged, hearing nothing from the
     * plugin, before the repeater drops and reconnects it (default {@value
     * RepeaterSettings#DEFAULT_PLUGIN_ACK_TIMEOUT_MILLIS} ms).
     */
    public Builder pluginAckTimeout(Duration timeout) {
      this.pluginAckTimeoutMillis = positiveMillis(timeout, "pluginAckTimeout");
      return this;
    }

    /**
     * Where the repeater's meters go ({@code zoolander.repeater.*}, admission control's and
     * batching's included, {@link io.zoolander.server.jmx.MeterNames}, {@code docs/operations.md});
     * default: none. They are removed from the registry when the repeater closes.
     */
    public Builder meterRegistry(MeterRegistry meterRegistry) {
      this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry must not be null");
      return this;
    }

    /**
     * How long sequenced writes are held before they are flushed to the duplicates, each of which
     * applies the writes it receives together as one ZooKeeper multi (default {@link
     * BatchingPolicy#adaptive()}: see docs/benchmarks.md).
     */
    public Builder batching(BatchingPolicy policy) {
      this.batching = Objects.requireNonNull(policy, "batching must not be null");
      return this;
    }

    /**
     * Turns admission control on with these settings (default: off): WRITEs above the rate at which
     * the duplicates keep the target SLA at tau are refused with ERROR OVERLOADED and a retry-after
     * hint. See {@link AdmissionSettings}.
     */
    public Builder admission(AdmissionSettings settings) {
      this.admission = Objects.requireNonNull(settings, "admission must not be null");
      return this;
    }

    /**
     * Turns on the controller that follows the load (default: off): every period it adds a spare
     * duplicate when the model predicts the target SLA is missed, and retires one it added when one
     * fewer would do, within the budget. See {@link ControllerSettings}. Refused with admission
     * control, whose model is sized by the configured duplicates; a spare that is also a configured
     * duplicate must have the same connect string.
     */
    public Builder controller(ControllerSettings settings) {
      this.controller = Objects.requireNonNull(settings, "controller must not be null");
      return this;
    }

    /**
     * Registers the repeater's MBeans ({@link io.zoolander.server.jmx.RepeaterMXBean}, {@link
     * io.zoolander.server.jmx.PredictorMXBean}) in {@code mbeanServer} from {@link
     * Repeater#start()} until {@link Repeater#close()} (default: no MBeans). The {@code zoolander
     * repeater} command uses the platform MBean server.
     */
    public Builder mbeanServer(MBeanServer mbeanServer) {
      this.mbeanServer = Objects.requireNonNull(mbeanServer, "mbeanServer must not be null");
      return this;
    }

    /**
     * The bound of the predicted-SLA meter and of the predictor MBean's questions (default {@value
     * RepeaterSettings#DEFAULT_SLA_TAU_MS} ms).
     *
     * @throws IllegalArgumentException unless positive and finite
     */
    public Builder slaTau(Duration tau) {
      Objects.requireNonNull(tau, "slaTau must not be null");
      if (tau.isNegative() || tau.isZero()) {
        throw new IllegalArgumentException("slaTau must be positive, was " + tau);
      }
      this.slaTauMs = tau.toNanos() / 1e6;
      return this;
    }

    /**
     * How long an ACK latency stays an input of the SLA predictor (default {@value
     * RepeaterMeters#DEFAULT_SAMPLE_MAX_AGE_MS} ms): older samples are left out, so a burst long
     * past does not speak for an idle deployment, and the predictor answers NaN when none is left.
     *
     * @throws IllegalArgumentException unless positive
     */
    public Builder predictorSampleMaxAge(Duration maxAge) {
      Objects.requireNonNull(maxAge, "predictorSampleMaxAge must not be null");
      if (maxAge.isNegative() || maxAge.isZero()) {
        throw new IllegalArgumentException("predictorSampleMaxAge must be positive, was " + maxAge);
      }
      this.predictorSampleMaxAge = maxAge;
      return this;
    }

    /**
     * The clock the predictor ages its samples by, admission control measures its periods with and
     * the load controller its cooldowns (default {@link Ticker#system()}); tests inject one to move
     * time without sleeping.
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
      return this;
    }

    /**
     * Whether a duplicate that comes back needing writes the log no longer holds (brought back
     * empty or stale, or cut off too long), or whose plugin reports it is fenced, rejoins by state
     * transfer by itself, as {@link Repeater#rejoin} does (default {@value
     * RepeaterSettings#DEFAULT_AUTO_REJOIN}). A slow duplicate fenced because the full log evicted
     * what it had not been sent, one fenced by {@link Repeater#fence}, and one whose transfer
     * failed stay fenced until {@link Repeater#rejoin}.
     */
    public Builder autoRejoin(boolean autoRejoin) {
      this.autoRejoin = autoRejoin;
      return this;
    }

    /** Hears about duplicate state changes, fencing and deposition (default: none). */
    public Builder listener(RepeaterListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener must not be null");
      return this;
    }

    /**
     * A repeater with this configuration, not started.
     *
     * @throws IllegalStateException if no duplicate is configured, or the load controller is on
     *     with admission control, with a spare whose connect string differs from the configured
     *     duplicate of its id, or with fewer duplicates in its budget than its minimum
     */
    public Repeater build() {
      if (duplicates.isEmpty()) {
        throw new IllegalStateException("a repeater needs at least one duplicate");
      }
      int controllerBudget = controllerBudget();
      if (credential != null && credential.isCertificate() && tls == null) {
        throw new IllegalStateException("credential: a certificate credential needs tls");
      }
      Znodes znodes = new Znodes(basePath);
      List<DuplicateSource> sources = new ArrayList<>();
      byte[] auth = zooKeeperAuth;
      List<ACL> acl =
          auth == null
              ? ZooDefs.Ids.OPEN_ACL_UNSAFE
              : PluginSecurity.aclFor(new String(auth, StandardCharsets.UTF_8));
      duplicates.forEach(
          (id, connectString) ->
              sources.add(
                  new ZooKeeperDuplicateSource(
                      id, connectString, znodes, sessionTimeoutMillis, auth, acl)));
      CoreConfig config =
          new CoreConfig(
              clientHost,
              clientPort,
              logCapacityMessages,
              startTimeoutMillis,
              epoch,
              clientIoThreads,
              znodes,
              juteMaxBufferBytes,
              pluginAckTimeoutMillis,
              autoRejoin,
              logCapacityBytes,
              missingDuplicateGraceMillis,
              nameRatesWindowMillis,
              nameRatesSampleEvery);
      MeterRegistry registry = meterRegistry != null ? meterRegistry : new CompositeMeterRegistry();
      RepeaterMeters meters = new RepeaterMeters(registry, slaTauMs, ticker, predictorSampleMaxAge);
      BatchingController batchingController =
          new BatchingController(batching, System::nanoTime, registry);
      batchingController.meters().forEach(meters::register);
      RepeaterCore core =
          new RepeaterCore(
              config,
              sources,
              listener,
              new LinkSecurity(tls, access, credential),
              meters,
              batchingController);
      core.connectionLimits(connectionLimits);
      int sessionTimeout = sessionTimeoutMillis;
      core.sourceFactory(
          (id, connectString) ->
              new ZooKeeperDuplicateSource(id, connectString, znodes, sessionTimeout, auth, acl));
      core.epochCheckMillis(epochCheckMillis);
      if (admission != null) {
        AdmissionController controller =
            AdmissionController.withModelThread(admission, sources.size(), ticker, registry);
        controller.meters().forEach(meters::register);
        core.admission(controller);
      }
      LoadController loadController = null;
      if (controller != null) {
        loadController =
            new LoadController(
                controller, controllerBudget, new CoreDeployment(core), ticker, meters);
      }
      return new Repeater(core, mbeanServer, slaTauMs, loadController);
    }

    /**
     * The load controller's budget in duplicates, once its settings are checked against the rest; 0
     * when it is off.
     */
    private int controllerBudget() {
      if (controller == null) {
        return 0;
      }
      if (admission != null) {
        throw new IllegalStateException(
            "controller: the load controller and admission control cannot be on together"
                + " (membership changes are refused while admission control is on)");
      }
      int notConfigured = 0;
      for (Map.Entry<Integer, String> spare : controller.spares().entrySet()) {
        String configured = duplicates.get(spare.getKey());
        if (configured == null) {
          notConfigured++;
        } else if (!configured.equals(spare.getValue())) {
          throw new IllegalStateException(
              "controller: spare "
                  + spare.getKey()
                  + " is configured duplicate "
                  + spare.getKey()
                  + " at another connect string ("
                  + configured
                  + ", not "
                  + spare.getValue()
                  + ")");
        }
      }
      int budget = controller.maxDuplicates().orElse(duplicates.size() + notConfigured);
      if (budget < controller.minDuplicates()) {
        throw new IllegalStateException(
            "controller: the budget of "
                + budget
                + " duplicates (the configured ones plus the spares) is below minDuplicates "
                + controller.minDuplicates());
      }
      return budget;
    }

    private static long millisUpToAnHour(Duration d, String name) {
      Objects.requireNonNull(d, name + " must not be null");
      if (d.isNegative() || d.toMillis() > RepeaterKeys.MAX_TIMEOUT_MS) {
        throw new IllegalArgumentException(
            name + " must be 0 to " + RepeaterKeys.MAX_TIMEOUT_MS + " ms, was " + d);
      }
      return d.toMillis();
    }

    private static long positiveMillis(Duration d, String name) {
      Objects.requireNonNull(d, name + " must not be null");
      if (d.isNegative() || d.isZero() || d.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(name + " must be positive and below 2^31 ms, was " + d);
      }
      return d.toMillis();
    }
  }

  /** The load controller's view of the repeater. */
  private record CoreDeployment(RepeaterCore core) implements LoadController.Deployment {
    @Override
    public Membership membership() {
      return core.membership();
    }

    @Override
    public double arrivalRatePerSec() {
      return core.arrivalRatePerSec();
    }

    @Override
    public int predictorSamples() {
      return core.predictorSamples();
    }

    @Override
    public SlaEstimate predict(int duplicates, double arrivalRatePerSec, double tauMs) {
      return core.predict(duplicates, arrivalRatePerSec, tauMs);
    }

    @Override
    public SlaEstimate predictWithout(
        int withoutId, int duplicates, double arrivalRatePerSec, double tauMs) {
      return core.predictWithout(withoutId, duplicates, arrivalRatePerSec, tauMs);
    }

    @Override
    public CompletableFuture<Membership> setReadFanOut(int fanOut) {
      return core.setReadFanOut(fanOut);
    }

    @Override
    public CompletableFuture<Membership> addDuplicate(int duplicateId, String connectString) {
      return core.addDuplicate(duplicateId, connectString);
    }

    @Override
    public CompletableFuture<Membership> retireDuplicate(int duplicateId) {
      return core.retireDuplicate(duplicateId);
    }
  }
}
