package io.zoolander.server.internal.repeater;

import io.zoolander.model.SlaEstimate;
import io.zoolander.server.internal.jmx.RegisteredMBean;
import io.zoolander.server.internal.repeater.admission.AdmissionController;
import io.zoolander.server.jmx.AdmissionMXBean;
import io.zoolander.server.jmx.DuplicateInfo;
import io.zoolander.server.jmx.PredictorMXBean;
import io.zoolander.server.jmx.RepeaterMXBean;
import io.zoolander.server.jmx.ZoolanderJmx;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.TransferProgress;
import io.zoolander.wire.Membership;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.PluginEndpoint;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.management.InstanceAlreadyExistsException;
import javax.management.MBeanServer;

/**
 * The repeater's MBeans, {@link RepeaterMXBean}, {@link PredictorMXBean} and (with admission
 * control on) {@link AdmissionMXBean}, over its core. Internal.
 */
public final class RepeaterConsole implements RepeaterMXBean, AutoCloseable {
  /** How long {@link #unfence} waits for the state transfer: as long as a transfer may take. */
  private static final long UNFENCE_TIMEOUT_MS = 120_000;

  private final RepeaterCore core;
  private final double tauMs;
  private final List<RegisteredMBean> registered = new ArrayList<>();

  private RepeaterConsole(RepeaterCore core, double tauMs) {
    this.core = core;
    this.tauMs = tauMs;
  }

  /**
   * Registers the repeater's MBeans ({@link ZoolanderJmx#REPEATER}, {@link ZoolanderJmx#PREDICTOR})
   * in {@code server}.
   *
   * @throws InstanceAlreadyExistsException if another repeater's are registered there
   */
  public static RepeaterConsole register(MBeanServer server, RepeaterCore core, double tauMs)
      throws InstanceAlreadyExistsException {
    RepeaterConsole console = new RepeaterConsole(core, tauMs);
    try {
      console.registered.add(
          RegisteredMBean.register(
              server,
              ZoolanderJmx.REPEATER,
              console,
              RepeaterMXBean.class,
              Map.of(
                  "fence",
                  new String[] {"duplicateId"},
                  "unfence",
                  new String[] {"duplicateId"},
                  "rejoin",
                  new String[] {"duplicateId"},
                  "addDuplicate",
                  new String[] {"duplicateId", "connectString"},
                  "retireDuplicate",
                  new String[] {"duplicateId"},
                  "setReadFanOut",
                  new String[] {"fanOut"})));
      // A second object: the MXBean machinery maps one object to one name.
      console.registered.add(
          RegisteredMBean.register(
              server,
              ZoolanderJmx.PREDICTOR,
              console.new Predictor(),
              PredictorMXBean.class,
              Map.of(
                  "predictSla", new String[] {"duplicates", "arrivalRatePerSec"},
                  "predictSlaAt", new String[] {"duplicates", "arrivalRatePerSec", "tauMs"},
                  "writeCapacityPerSec", new String[] {"targetSla", "tauMs"},
                  "serviceTimeSamplesMs", new String[] {"duplicateId"})));
      AdmissionController admission = core.admission();
      if (admission != null) {
        console.registered.add(
            RegisteredMBean.register(
                server,
                ZoolanderJmx.ADMISSION,
                new Admission(admission),
                AdmissionMXBean.class,
                Map.of("setTarget", new String[] {"targetSla", "tauMs"})));
      }
    } catch (InstanceAlreadyExistsException | RuntimeException e) {
      console.close();
      throw e;
    }
    return console;
  }

  @Override
  public void close() {
    registered.forEach(RegisteredMBean::close);
    registered.clear();
  }

  // -------------------------------------------------------------------------------------------
  // RepeaterMXBean

  @Override
  public long getEpoch() {
    return core.epoch();
  }

  @Override
  public long getNextSeq() {
    return core.nextSeq();
  }

  @Override
  public int getLogSize() {
    return core.logSize();
  }

  @Override
  public boolean isDeposed() {
    return core.isDeposed();
  }

  @Override
  public List<String> getTransfers() {
    return core.transfers().stream().map(TransferProgress::describe).toList();
  }

  @Override
  public String getClientAddress() {
    try {
      InetSocketAddress a = core.boundAddress();
      return a.getHostString() + ":" + a.getPort();
    } catch (IllegalStateException e) {
      return "";
    }
  }

  @Override
  public int getFencedDuplicates() {
    return core.fencedCount();
  }

  @Override
  public List<DuplicateInfo> getDuplicates() {
    long lastSeq = core.nextSeq() - 1;
    List<DuplicateInfo> rows = new ArrayList<>();
    for (DuplicateView d : core.duplicates()) {
      rows.add(
          new DuplicateInfo(
              d.id(),
              d.fenced() ? "FENCED" : d.linkState().name(),
              d.ackedSeq(),
              Math.max(0, lastSeq - d.ackedSeq()),
              d.endpoint().map(PluginEndpoint::address).orElse(""),
              d.connectString(),
              d.fenceReason().orElse("")));
    }
    return rows;
  }

  @Override
  public void fence(int duplicateId) {
    core.fence(duplicateId);
  }

  @Override
  public String unfence(int duplicateId) {
    try {
      core.rejoin(duplicateId).get(UNFENCE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      return "duplicate " + duplicateId + " rejoined by state transfer and is streamed to";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while duplicate " + duplicateId + " rejoined", e);
    } catch (ExecutionException e) {
      // Only the message crosses JMX: a JMX client without our jars cannot load our exception
      // classes.
      throw new IllegalStateException(
          "duplicate " + duplicateId + " did not rejoin: " + e.getCause().getMessage());
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "duplicate "
              + duplicateId
              + " did not rejoin within "
              + UNFENCE_TIMEOUT_MS
              + " ms; its row in Duplicates shows where it is");
    }
  }

  @Override
  public String rejoin(int duplicateId) {
    core.rejoin(duplicateId);
    return "rejoin of duplicate "
        + duplicateId
        + " started; its row in Duplicates shows its progress";
  }

  @Override
  public List<String> getNameWriteRates() {
    List<String> rows = new ArrayList<>();
    core.nameWriteRates()
        .forEach(
            (name, rate) ->
                rows.add(
                    (name.equals(NameRoutes.OTHER_NAMES) ? name : "/" + name)
                        + String.format(Locale.ROOT, " %.1f/s", rate)));
    return rows;
  }

  @Override
  public Map<String, Double> getNameWriteRatesPerSec() {
    return core.nameWriteRates();
  }

  @Override
  public List<String> getMembers() {
    Membership m = core.membership();
    List<String> rows = new ArrayList<>();
    rows.add("version " + m.version());
    if (m.readFanOut() > 0) {
      rows.add("read fan-out " + m.readFanOut());
    }
    for (Membership.Member member : m.members()) {
      rows.add(
          member.duplicateId()
              + " "
              + (member.active() ? "active" : "joining")
              + " "
              + member.connectString());
    }
    return rows;
  }

  @Override
  public String addDuplicate(int duplicateId, String connectString) {
    Membership m =
        await(core.addDuplicate(duplicateId, connectString), "add duplicate " + duplicateId);
    return "duplicate "
        + duplicateId
        + " joined by state transfer and is active (membership version "
        + m.version()
        + ")";
  }

  @Override
  public String retireDuplicate(int duplicateId) {
    Membership m = await(core.retireDuplicate(duplicateId), "retire duplicate " + duplicateId);
    return "duplicate "
        + duplicateId
        + " is retired: fenced and no longer streamed to (membership version "
        + m.version()
        + ")";
  }

  @Override
  public String setReadFanOut(int fanOut) {
    Membership m = await(core.setReadFanOut(fanOut), "set the read fan-out to " + fanOut);
    return (fanOut == 0
            ? "no read fan-out is advised"
            : "clients with the advised read policy ask "
                + fanOut
                + (fanOut == 1 ? " duplicate" : " duplicates")
                + " per read")
        + " (membership version "
        + m.version()
        + ")";
  }

  /** Waits for a change; only messages cross JMX (a JMX client cannot load our classes). */
  private static <T> T await(CompletableFuture<T> change, String what) {
    try {
      return change.get(UNFENCE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + what);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IllegalArgumentException) {
        throw new IllegalArgumentException("cannot " + what + ": " + cause.getMessage());
      }
      throw new IllegalStateException("cannot " + what + ": " + cause.getMessage());
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "cannot "
              + what
              + " within "
              + UNFENCE_TIMEOUT_MS
              + " ms; Duplicates and Members show where it is");
    }
  }

  /** The predictor MBean, over the same core. */
  private final class Predictor implements PredictorMXBean {
    @Override
    public double getTauMs() {
      return tauMs;
    }

    @Override
    public double getArrivalRatePerSec() {
      return core.arrivalRatePerSec();
    }

    @Override
    public int getLiveDuplicates() {
      return core.liveDuplicates();
    }

    @Override
    public int getSamplesUsed() {
      return core.predictorSamples();
    }

    @Override
    public long getSampleMaxAgeMs() {
      return core.predictorSampleMaxAgeMs();
    }

    @Override
    public double getPredictedSla() {
      SlaEstimate e = now();
      return e == null ? Double.NaN : e.sla();
    }

    @Override
    public double getPredictedSlaLow() {
      SlaEstimate e = now();
      return e == null ? Double.NaN : e.low();
    }

    @Override
    public double getPredictedSlaHigh() {
      SlaEstimate e = now();
      return e == null ? Double.NaN : e.high();
    }

    /** For the live duplicates at the measured rate (one engine run for the three attributes). */
    private SlaEstimate now() {
      return core.livePrediction(tauMs);
    }

    @Override
    public double predictSla(int duplicates, double arrivalRatePerSec) {
      return predictSlaAt(duplicates, arrivalRatePerSec, tauMs);
    }

    @Override
    public double predictSlaAt(int duplicates, double arrivalRatePerSec, double tauMs) {
      if (!(tauMs >= 0) || Double.isInfinite(tauMs)) {
        throw new IllegalArgumentException("tauMs must be finite and >= 0, was " + tauMs);
      }
      SlaEstimate p = core.predict(duplicates, arrivalRatePerSec, tauMs);
      return p == null ? Double.NaN : p.sla();
    }

    @Override
    public double writeCapacityPerSec(double targetSla, double tauMs) {
      return core.writeCapacityPerSec(targetSla, tauMs);
    }

    @Override
    public double[] serviceTimeSamplesMs(int duplicateId) {
      return core.serviceTimeSamplesMs(duplicateId);
    }
  }

  /** The admission MBean, over the controller. */
  private static final class Admission implements AdmissionMXBean {
    private final AdmissionController controller;

    Admission(AdmissionController controller) {
      this.controller = controller;
    }

    @Override
    public double getTargetSla() {
      return controller.state().targetSla();
    }

    @Override
    public double getTauMs() {
      return controller.state().tauMs();
    }

    @Override
    public boolean isLimiting() {
      return controller.state().limiting();
    }

    @Override
    public double getRateLimitPerSec() {
      return controller.state().rateLimitPerSec();
    }

    @Override
    public double getOfferedRatePerSec() {
      return controller.state().offeredRatePerSec();
    }

    @Override
    public double getAdmittedRatePerSec() {
      return controller.state().admittedRatePerSec();
    }

    @Override
    public double getObservedSla() {
      return controller.state().observedSla();
    }

    @Override
    public double getPredictedSla() {
      return controller.state().predictedSla();
    }

    @Override
    public long getAdmitted() {
      return controller.state().admitted();
    }

    @Override
    public long getShed() {
      return controller.state().shed();
    }

    @Override
    public String getLastDecision() {
      return controller.state().lastDecision();
    }

    @Override
    public void setTarget(double targetSla, double tauMs) {
      controller.target(targetSla, tauMs);
    }
  }
}
