package io.zoolander.server.jmx;

/**
 * The names of Zoolander's Micrometer meters: {@code zoolander.<component>.<what>}, with tags such
 * as {@code duplicate}. They are stable: {@code docs/operations.md} ("Meter reference") lists every
 * one with its type, tags and meaning, and a test checks that the list and the meters the code
 * registers agree.
 *
 * <p>Exported over JMX by {@link ZoolanderJmx#newMeterRegistry()}; any other Micrometer registry
 * works too (give it to {@code Repeater.Builder#meterRegistry}, {@code
 * ZoolanderClientBuilder#meterRegistry}, or add it to {@link
 * io.micrometer.core.instrument.Metrics#globalRegistry} for the plugins).
 */
public final class MeterNames {
  /**
   * Tag: the duplicate id (the plugin's {@code zoolander.duplicateId}). On the client: its index in
   * the builder.
   */
  public static final String TAG_DUPLICATE = "duplicate";

  /** Tag: the ZooKeeper server id ({@code myid}) a plugin runs on. */
  public static final String TAG_SERVER = "server";

  /**
   * Tag: what failed, {@code tls} (a TLS handshake) or {@code auth} (AUTH after CHALLENGE, or a
   * missing AUTH).
   */
  public static final String TAG_KIND = "kind";

  /** Tag: the bound tau, in milliseconds, of an SLA meter. */
  public static final String TAG_TAU_MS = "tauMs";

  // -------------------------------------------------------------------------------------------
  // repeater

  /** Gauge: the repeater's epoch. */
  public static final String REPEATER_EPOCH = "zoolander.repeater.epoch";

  /** Gauge: the seq the next write gets. */
  public static final String REPEATER_NEXT_SEQ = "zoolander.repeater.seq.next";

  /** Function counter: writes sequenced since start. */
  public static final String REPEATER_WRITES = "zoolander.repeater.writes";

  /**
   * Gauge: sequenced writes per second over the last {@code
   * RepeaterSettings.ARRIVAL_RATE_WINDOW_MS}.
   */
  public static final String REPEATER_ARRIVAL_RATE = "zoolander.repeater.arrival.rate";

  /** Gauge: sequenced writes the retransmission log holds. */
  public static final String REPEATER_LOG_SIZE = "zoolander.repeater.log.size";

  /** Gauge, per duplicate: the highest seq the duplicate acknowledged. */
  public static final String REPEATER_APPLIED_SEQ = "zoolander.repeater.duplicate.applied.seq";

  /** Gauge, per duplicate: writes sequenced that the duplicate has not acknowledged yet. */
  public static final String REPEATER_LAG = "zoolander.repeater.duplicate.lag";

  /** Gauge, per duplicate: 1 while the duplicate is fenced, else 0. */
  public static final String REPEATER_DUPLICATE_FENCED = "zoolander.repeater.duplicate.fenced";

  /**
   * Timer, per duplicate: from sending a write to the duplicate's plugin to its ACK (sampled: one
   * probe at a time).
   */
  public static final String REPEATER_ACK_LATENCY = "zoolander.repeater.duplicate.ack.latency";

  /** Gauge: how many duplicates are fenced. */
  public static final String REPEATER_FENCED = "zoolander.repeater.duplicates.fenced";

  /**
   * Gauge, tag {@code tauMs}: the SLA rp-model predicts for the live duplicates at the measured
   * arrival rate.
   */
  public static final String REPEATER_PREDICTED_SLA = "zoolander.repeater.sla.predicted";

  /** Counter, tag {@code kind}: client connections refused for TLS or authentication. */
  public static final String REPEATER_SECURITY_FAILURES = "zoolander.repeater.security.failures";

  /** Prefix of the admission-control meters (admission decisions, shed writes). */
  public static final String REPEATER_ADMISSION_PREFIX = "zoolander.repeater.admission.";

  /** Counter: WRITEs admission control let through. */
  public static final String REPEATER_ADMISSION_ADMITTED = REPEATER_ADMISSION_PREFIX + "admitted";

  /** Counter: WRITEs admission control shed (ERROR OVERLOADED with a retry-after hint). */
  public static final String REPEATER_ADMISSION_SHED = REPEATER_ADMISSION_PREFIX + "shed";

  /** Gauge: the admitted rate limit, writes/s (+Inf while not limiting). */
  public static final String REPEATER_ADMISSION_RATE_LIMIT =
      REPEATER_ADMISSION_PREFIX + "rate.limit";

  /** Gauge: WRITEs offered per second. */
  public static final String REPEATER_ADMISSION_OFFERED_RATE =
      REPEATER_ADMISSION_PREFIX + "offered.rate";

  /** Gauge: the model's SLA at the admission tau and the offered rate. */
  public static final String REPEATER_ADMISSION_PREDICTED_SLA =
      REPEATER_ADMISSION_PREFIX + "predicted.sla";

  /** Gauge: fraction of recent writes first acknowledged within the admission tau. */
  public static final String REPEATER_ADMISSION_OBSERVED_SLA =
      REPEATER_ADMISSION_PREFIX + "observed.sla";

  /** Prefix of the adaptive-batching meters (batch sizes, batching interval). */
  public static final String REPEATER_BATCH_PREFIX = "zoolander.repeater.batch.";

  /** Distribution summary: sequenced writes flushed to the duplicates together. */
  public static final String REPEATER_BATCH_SIZE = REPEATER_BATCH_PREFIX + "size";

  /**
   * Timer: from a batch's flush to the first ACK covering it (what the adaptive interval reacts
   * to).
   */
  public static final String REPEATER_BATCH_LATENCY = REPEATER_BATCH_PREFIX + "latency";

  /** Gauge: the current batching interval, in microseconds. */
  public static final String REPEATER_BATCH_INTERVAL = REPEATER_BATCH_PREFIX + "interval";

  /**
   * Tag: what the load controller did, {@code add}, {@code retire}, {@code raise}, {@code lower} or
   * {@code hold}.
   */
  public static final String TAG_ACTION = "action";

  /** Tag: why the load controller decided as it did ({@code below_target}, ...). */
  public static final String TAG_REASON = "reason";

  /** Prefix of the meters of the controller that follows the load. */
  public static final String REPEATER_CONTROLLER_PREFIX = "zoolander.repeater.controller.";

  /** Counter, tags {@code action, reason}: the controller's decisions, one per period. */
  public static final String REPEATER_CONTROLLER_DECISIONS =
      REPEATER_CONTROLLER_PREFIX + "decisions";

  /**
   * Counter, tag {@code action} ({@code add}, {@code retire}, {@code fan_out}): changes that
   * failed.
   */
  public static final String REPEATER_CONTROLLER_CHANGES_FAILED =
      REPEATER_CONTROLLER_PREFIX + "changes.failed";

  /** Gauge: the active duplicates (N) as of the controller's last period. */
  public static final String REPEATER_CONTROLLER_DUPLICATES =
      REPEATER_CONTROLLER_PREFIX + "duplicates";

  /** Gauge: spares of the controller's pool that are not members, as of its last period. */
  public static final String REPEATER_CONTROLLER_SPARES_FREE =
      REPEATER_CONTROLLER_PREFIX + "spares.free";

  /** Gauge: the SLA at the controller's tau predicted for N duplicates in its last period. */
  public static final String REPEATER_CONTROLLER_SLA_CURRENT =
      REPEATER_CONTROLLER_PREFIX + "sla.current";

  /** Gauge: the same for N - 1 (NaN when not asked). */
  public static final String REPEATER_CONTROLLER_SLA_FEWER =
      REPEATER_CONTROLLER_PREFIX + "sla.fewer";

  /** Gauge: the same for N + 1 (NaN when not asked). */
  public static final String REPEATER_CONTROLLER_SLA_MORE = REPEATER_CONTROLLER_PREFIX + "sla.more";

  /**
   * Counter: the load controller's decisions on the read fan-out, tagged with action and reason.
   */
  public static final String REPEATER_CONTROLLER_FAN_OUT_DECISIONS =
      REPEATER_CONTROLLER_PREFIX + "fanout.decisions";

  /** Gauge: the read fan-out the load controller advises (0: none). */
  public static final String REPEATER_CONTROLLER_FAN_OUT = REPEATER_CONTROLLER_PREFIX + "fanout";

  // -------------------------------------------------------------------------------------------
  // plugin

  /** Gauge, tags {@code duplicate, server}: the seq of the last write the plugin applied. */
  public static final String PLUGIN_APPLIED_SEQ = "zoolander.plugin.applied.seq";

  /** Gauge, tags {@code duplicate, server}: the repeater epoch the plugin recorded. */
  public static final String PLUGIN_EPOCH = "zoolander.plugin.epoch";

  /**
   * Timer, tags {@code duplicate, server}, one sample per applied write: the ZooKeeper multi that
   * applied it (a batch's multi counts once for each write in it).
   */
  public static final String PLUGIN_APPLY_LATENCY = "zoolander.plugin.apply.latency";

  /**
   * Counter, tags {@code duplicate, server}: client reads answered on their connection's event loop
   * from the leader's in-memory tree, without waiting for the applier.
   */
  public static final String PLUGIN_READS_DIRECT = "zoolander.plugin.reads.direct";

  /**
   * Counter, tags {@code duplicate, server}: the applier's lookups before a write answered from the
   * leader's in-memory tree, without a request through the plugin's session: the stats the result
   * predictor needs (an unconditional {@code setData} or a sequential create on a node it has not
   * seen) and client records not cached (a client's first write since start).
   */
  public static final String PLUGIN_LOOKUPS_LOCAL = "zoolander.plugin.lookups.local";

  /**
   * Counter, tags {@code duplicate, server}: writes to the data root by ZooKeeper sessions other
   * than the plugin's; the first fences the duplicate.
   */
  public static final String PLUGIN_WRITES_FOREIGN = "zoolander.plugin.writes.foreign";

  /** Gauge: the watches clients have armed on this duplicate's plugin. */
  public static final String PLUGIN_WATCHES = "zoolander.plugin.watches";

  /** Counter: the watch events (WATCH_EVENTs with changes, RESYNC included) the plugin sent. */
  public static final String PLUGIN_WATCH_EVENTS = "zoolander.plugin.watch.events";

  /**
   * Counter, tags {@code duplicate, server}: multis the plugin submitted in-process into its
   * leader's request pipeline (the others went through its ZooKeeper session).
   */
  public static final String PLUGIN_MULTIS_LOCAL = "zoolander.plugin.multis.local";

  /**
   * Counter, tags {@code duplicate, server, kind}: connections refused for TLS or authentication.
   */
  public static final String PLUGIN_SECURITY_FAILURES = "zoolander.plugin.security.failures";

  // -------------------------------------------------------------------------------------------
  // client

  /**
   * Timer, tags {@code duplicate, reply} ({@code first} or {@code other}): read replies per
   * duplicate.
   */
  public static final String CLIENT_READ_LATENCY = "zoolander.client.read.latency";

  /** Counter, per duplicate: reads it answered first (first-reply wins). */
  public static final String CLIENT_READ_WINS = "zoolander.client.read.wins";

  /** Counter: hedged reads sent. */
  public static final String CLIENT_READ_HEDGES = "zoolander.client.read.hedges";

  /** Counter: READ requests sent (first tries, hedges, retries). */
  public static final String CLIENT_READ_REQUESTS = "zoolander.client.read.requests";

  /** Counter, tag {@code op} ({@code read}, {@code write}): requests sent again. */
  public static final String CLIENT_RETRIES = "zoolander.client.retries";

  /** Counter: replies for the same seq that differ between duplicates. */
  public static final String CLIENT_INCONSISTENCIES = "zoolander.client.inconsistencies";

  /** Timer: time to the first reply of a write. */
  public static final String CLIENT_WRITE_LATENCY = "zoolander.client.write.latency";

  /** Counter: writes the repeater shed (ERROR OVERLOADED), each resent after the hint or failed. */
  public static final String CLIENT_WRITE_SHED = "zoolander.client.write.shed";

  /** Counter: read retries the client's retry budget refused. */
  public static final String CLIENT_READ_RETRIES_DENIED = "zoolander.client.read.retries.denied";

  /** Counter: planned-slowness announcements received from plugins (starts and ends). */
  public static final String CLIENT_READ_PLANNED_SLOWNESS =
      "zoolander.client.read.planned.slowness";

  /** Gauge: the current degree of concurrency C. */
  public static final String CLIENT_READ_CONCURRENCY = "zoolander.client.read.concurrency";

  /**
   * Gauge, tag {@code tauMs}: the fraction of the client's recent operations completed within tau.
   */
  public static final String CLIENT_OBSERVED_SLA = "zoolander.client.sla.observed";

  private MeterNames() {}
}
