package io.zoolander.server.internal.repeater;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.zoolander.wire.Membership;
import io.zoolander.wire.Membership.Member;
import io.zoolander.wire.Membership.State;
import io.zoolander.wire.Ticker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds and retires duplicates while the repeater runs, and keeps the {@link Membership} record that
 * says which duplicates the deployment runs now, in every member's ensemble.
 *
 * <p><b>The rules.</b> One member changes at a time, and each change is written to a majority of
 * the active members before it takes effect. A majority of the set before a change and a majority
 * of the set after it always share a duplicate (Raft's single-server change), so a repeater that
 * takes over, reading the newest record among the duplicates it reaches, claims its epoch at a
 * majority that overlaps this repeater's: fencing still holds across a change.
 *
 * <ul>
 *   <li><b>Add.</b> The repeater claims its epoch at the new duplicate (a duplicate that holds a
 *       newer epoch belongs to another repeater: refused; one this repeater added and retired
 *       before still holds this epoch, and no other repeater can have claimed it since), writes the
 *       record with it {@link State#JOINING}, links it and rejoins it by state transfer from the
 *       most advanced duplicate, whatever its ensemble held. Once the transfer is done it is
 *       streamed to like the others, and the record marks it {@link State#ACTIVE}: clients start
 *       reading from it.
 *   <li><b>Retire.</b> The record without it is written first (to it too, so that clients watching
 *       only it learn of it), then the repeater fences it, which its plugin records in its own
 *       ensemble (a retired duplicate stays fenced across restarts), and forgets it.
 * </ul>
 *
 * <p>Admission control sizes its model by the configured count: with it on, changes are refused.
 *
 * <p><b>Threading.</b> Changes run one at a time on this class's own thread, where the blocking
 * ZooKeeper calls are made; what touches links runs on the sequencer loop through {@link Host}.
 * {@link #readAtStart} runs on the starting thread before the sequencer loop exists.
 */
final class MembershipChanges implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MembershipChanges.class);

  /** Bound on writing the record to the members, and on claiming the epoch at a new duplicate. */
  static final long WRITE_TIMEOUT_MILLIS = 15_000;

  /** The least time the members outside the majority get to take a record. */
  private static final long MIN_BEST_EFFORT_NANOS = TimeUnit.SECONDS.toNanos(2);

  /** What a change needs of the repeater. */
  interface Host {
    /** The repeater's sources, in the same order as its links; changed only through this host. */
    List<DuplicateSource> sources();

    /** A source for a duplicate added online. */
    DuplicateSource newSource(int duplicateId, String connectString);

    /** Null when a change may be made now, else why not. */
    String cannotChange();

    /**
     * Null when a record that changes no member (the read fan-out) may be written now, else why
     * not.
     */
    String cannotPublish();

    long epoch();

    /**
     * Links a new duplicate, follows its endpoint and starts its state transfer; the future
     * completes when the transfer is done.
     */
    CompletableFuture<Void> attachAndRejoin(DuplicateSource source);

    /** Fences a retired duplicate, forgets its link and closes its source; returns once done. */
    void detach(int duplicateId);
  }

  private final Host host;
  private final long graceNanos;
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(
          new DefaultThreadFactory("zoolander-repeater-members", true));

  /**
   * Duplicates this repeater claimed its epoch at when it added them; on this class's thread only.
   */
  private final Set<Integer> claimedHere = new HashSet<>();

  /** Additions waiting for their state transfer, by duplicate id. */
  private final Map<Integer, CompletableFuture<Membership>> joining = new ConcurrentHashMap<>();

  /** The newest record written or read; empty while the configured duplicates are the set. */
  private volatile Optional<Membership> record = Optional.empty();

  /**
   * @param graceNanos how long the other duplicates may still answer once one has, at start
   */
  MembershipChanges(Host host, long graceNanos) {
    this.host = host;
    this.graceNanos = graceNanos;
  }

  /** The newest record this repeater wrote or read; empty while the configured set holds. */
  Optional<Membership> record() {
    return record;
  }

  /** The set as it stands: the record, or the configured duplicates as version 1, all active. */
  Membership current() {
    Optional<Membership> r = record;
    if (r.isPresent()) {
      return r.get();
    }
    List<Member> members = new ArrayList<>();
    for (DuplicateSource source : host.sources()) {
      members.add(new Member(source.duplicateId(), State.ACTIVE, source.connectString()));
    }
    members.sort((a, b) -> Integer.compare(a.duplicateId(), b.duplicateId()));
    return new Membership(1, members);
  }

  // -------------------------------------------------------------------------------------------
  // at start

  /**
   * Reads the record at the configured duplicates (one answer is enough; the others get the grace
   * period, unless a majority has answered: a change is written to a majority of the set before it,
   * so a majority of that set holds the newest record, and one duplicate down must not cost a
   * takeover the grace twice, here and in the claim) and, if one exists, at the members it names
   * that are not configured, and adopts the newest: the set to claim the epoch at and stream to.
   * Nothing changes when no duplicate holds a record.
   *
   * @return the newest record, if any; the caller adds and removes links to match it
   */
  Optional<Membership> readAtStart(long deadline, Ticker ticker)
      throws IOException, InterruptedException, TimeoutException {
    Optional<Membership> newest = readNewest(host.sources(), deadline, ticker);
    if (newest.isPresent()) {
      List<DuplicateSource> others = new ArrayList<>();
      for (Member m : newest.get().members()) {
        if (host.sources().stream().noneMatch(s -> s.duplicateId() == m.duplicateId())) {
          others.add(host.newSource(m.duplicateId(), m.connectString()));
        }
      }
      try {
        if (!others.isEmpty()) {
          Optional<Membership> there = readNewest(others, deadline, ticker);
          if (there.isPresent() && there.get().version() > newest.get().version()) {
            newest = there;
          }
        }
      } catch (IOException | TimeoutException e) {
        LOG.warn(
            "cannot read the membership record at duplicates not configured: {}", e.toString());
      } finally {
        others.forEach(DuplicateSource::close);
      }
    }
    record = newest;
    return newest;
  }

  private Optional<Membership> readNewest(
      List<DuplicateSource> sources, long deadline, Ticker ticker)
      throws IOException, InterruptedException, TimeoutException {
    List<Integer> indexes = new ArrayList<>();
    for (int i = 0; i < sources.size(); i++) {
      indexes.add(i);
    }
    QuorumCall.Answers<Optional<Membership>> answers;
    try {
      answers =
          new QuorumCall(sources, graceNanos, ticker)
              .call(
                  "read the membership record of",
                  indexes,
                  1,
                  QuorumCall.majority(indexes.size()),
                  deadline,
                  source -> source.readMembership(remainingMillis(deadline, ticker)));
    } catch (EpochTakenException e) {
      throw new IllegalStateException(e); // reading claims nothing
    }
    Optional<Membership> newest = Optional.empty();
    for (Optional<Membership> m : answers.answers().values()) {
      if (m.isPresent() && (newest.isEmpty() || m.get().version() > newest.get().version())) {
        newest = m;
      }
    }
    return newest;
  }

  private static long remainingMillis(long deadline, Ticker ticker) {
    return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - ticker.nanoTime()));
  }

  // -------------------------------------------------------------------------------------------
  // changes

  /**
   * Adds duplicate {@code duplicateId}, reached at {@code connectString}: see the class comment.
   *
   * @return completes with the record once the duplicate is active (read from by clients); fails
   *     with IllegalArgumentException (already a member, bad arguments), IllegalStateException (the
   *     repeater cannot change its set now, the duplicate belongs to a newer repeater, too few
   *     members took the record, or the state transfer failed: the duplicate then stays joining and
   *     becomes active when a later rejoin succeeds)
   */
  CompletableFuture<Membership> add(int duplicateId, String connectString) {
    CompletableFuture<Membership> done = new CompletableFuture<>();
    try {
      Member probe = new Member(duplicateId, State.JOINING, connectString); // validates
      thread.execute(() -> addNow(probe, done));
    } catch (IllegalArgumentException | NullPointerException e) {
      done.completeExceptionally(e);
    } catch (RejectedExecutionException e) {
      done.completeExceptionally(new IllegalStateException("the repeater is closed"));
    }
    return done;
  }

  private void addNow(Member member, CompletableFuture<Membership> done) {
    int id = member.duplicateId();
    DuplicateSource source = null;
    boolean attached = false;
    try {
      String why = host.cannotChange();
      if (why != null) {
        throw new IllegalStateException("cannot add duplicate " + id + ": " + why);
      }
      Membership before = current();
      if (before.member(id).isPresent()
          || host.sources().stream().anyMatch(s -> s.duplicateId() == id)) {
        throw new IllegalArgumentException("duplicateId: duplicate " + id + " is already a member");
      }
      source = host.newSource(id, member.connectString());
      try {
        source.claim(host.epoch(), WRITE_TIMEOUT_MILLIS);
      } catch (EpochTakenException e) {
        // Added and retired before by this repeater, its ensemble still holds this repeater's
        // epoch from that addition. A claim needs a strictly higher epoch than the one held, so no
        // other repeater has claimed it since: it may be added again (the load controller retires
        // spares and adds them back).
        if (e.heldEpoch() == host.epoch() && claimedHere.contains(id)) {
          LOG.info("duplicate {}: holds this repeater's epoch from an earlier addition", id);
        } else {
          throw new IllegalStateException(
              "cannot add duplicate "
                  + id
                  + ": its ensemble holds a newer repeater epoch than "
                  + host.epoch()
                  + " (it belongs to another deployment's repeater)",
              e);
        }
      }
      claimedHere.add(id);
      Membership next = before.with(member);
      publish(next, before, List.of(source), true);
      LOG.info(
          "duplicate {} added at {} (membership version {}): joining by state transfer",
          id,
          member.connectString(),
          next.version());
      joining.put(id, done);
      CompletableFuture<Void> transferred = host.attachAndRejoin(source);
      attached = true;
      transferred.whenComplete(
          (v, e) -> {
            if (e != null) {
              CompletableFuture<Membership> waiting = joining.remove(id);
              if (waiting != null) {
                waiting.completeExceptionally(
                    new IllegalStateException(
                        "duplicate "
                            + id
                            + " was added (joining) but its state transfer failed: "
                            + rootMessage(e)
                            + "; it becomes active when a later rejoin succeeds, or retire it",
                        e));
              }
            }
          });
    } catch (Exception e) {
      if (source != null && !attached) {
        source.close();
      }
      done.completeExceptionally(e);
    }
  }

  /**
   * A duplicate rejoined by state transfer: if it is joining, mark it active (on this class's
   * thread). Any thread.
   */
  void rejoined(int duplicateId) {
    try {
      thread.execute(() -> activate(duplicateId));
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  private void activate(int duplicateId) {
    Optional<Member> member = record.flatMap(r -> r.member(duplicateId));
    if (member.isEmpty() || member.get().active()) {
      return;
    }
    CompletableFuture<Membership> waiting = joining.remove(duplicateId);
    Membership before = record.orElseThrow();
    Membership next =
        before.with(new Member(duplicateId, State.ACTIVE, member.get().connectString()));
    try {
      publish(next, before, List.of(), false);
      LOG.info(
          "duplicate {} is active (membership version {}): clients read from it",
          duplicateId,
          next.version());
      if (waiting != null) {
        waiting.complete(next);
      }
    } catch (Exception e) {
      LOG.warn("duplicate {}: cannot mark it active: {}", duplicateId, e.toString());
      if (waiting != null) {
        waiting.completeExceptionally(
            new IllegalStateException(
                "duplicate "
                    + duplicateId
                    + " caught up, but the record marking it active could not be written: "
                    + rootMessage(e),
                e));
      }
    }
  }

  /**
   * Retires duplicate {@code duplicateId}: see the class comment.
   *
   * @return completes with the record once the duplicate is fenced and forgotten; fails with
   *     IllegalArgumentException (not a member) or IllegalStateException (the last active member,
   *     the repeater cannot change its set now, too few members took the record)
   */
  CompletableFuture<Membership> retire(int duplicateId) {
    CompletableFuture<Membership> done = new CompletableFuture<>();
    try {
      thread.execute(() -> retireNow(duplicateId, done));
    } catch (RejectedExecutionException e) {
      done.completeExceptionally(new IllegalStateException("the repeater is closed"));
    }
    return done;
  }

  private void retireNow(int id, CompletableFuture<Membership> done) {
    try {
      String why = host.cannotChange();
      if (why != null) {
        throw new IllegalStateException("cannot retire duplicate " + id + ": " + why);
      }
      Membership before = current();
      Optional<Member> member = before.member(id);
      if (member.isEmpty()) {
        throw new IllegalArgumentException("duplicateId: duplicate " + id + " is not a member");
      }
      if (member.get().active() && before.activeCount() == 1) {
        throw new IllegalStateException(
            "cannot retire duplicate " + id + ": it is the last active duplicate");
      }
      Membership next = before.without(id);
      publish(next, before, List.of(), false);
      host.detach(id);
      CompletableFuture<Membership> waiting = joining.remove(id);
      if (waiting != null) {
        waiting.completeExceptionally(
            new IllegalStateException("duplicate " + id + " was retired before it caught up"));
      }
      LOG.info("duplicate {} retired (membership version {})", id, next.version());
      done.complete(next);
    } catch (Exception e) {
      done.completeExceptionally(e);
    }
  }

  /**
   * Advises {@code fanOut} duplicates per read (0: none): the record with it is written to a
   * majority of the active members, as a change of member is, and so reaches the clients that watch
   * it. A fan-out above the active members is kept as given; clients take at most those.
   *
   * @return completes with the record once written; fails with IllegalArgumentException (a negative
   *     fan-out) or IllegalStateException (the repeater cannot write now, too few members took it)
   */
  CompletableFuture<Membership> setReadFanOut(int fanOut) {
    CompletableFuture<Membership> done = new CompletableFuture<>();
    if (fanOut < 0) {
      done.completeExceptionally(
          new IllegalArgumentException("fanOut must be >= 0, was " + fanOut));
      return done;
    }
    try {
      thread.execute(
          () -> {
            try {
              String why = host.cannotPublish();
              if (why != null) {
                throw new IllegalStateException("cannot set the read fan-out: " + why);
              }
              Membership before = current();
              if (before.readFanOut() == fanOut) {
                done.complete(before);
                return;
              }
              Membership next = before.withReadFanOut(fanOut);
              publish(next, before, List.of(), false);
              LOG.info(
                  "membership version {} advises {}",
                  next.version(),
                  fanOut == 0
                      ? "no read fan-out"
                      : fanOut + (fanOut == 1 ? " duplicate" : " duplicates") + " per read");
              done.complete(next);
            } catch (Exception e) {
              done.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      done.completeExceptionally(new IllegalStateException("the repeater is closed"));
    }
    return done;
  }

  /**
   * Writes {@code next} to the members of {@code before} (a majority of its active members must
   * take it; the others are tried within the grace period) and to {@code extra}, which must all
   * take it when {@code extraNeeded}; then it is this repeater's record.
   */
  private void publish(
      Membership next, Membership before, List<DuplicateSource> extra, boolean extraNeeded)
      throws IOException, InterruptedException, TimeoutException {
    List<DuplicateSource> targets = new ArrayList<>(host.sources());
    List<Integer> active = new ArrayList<>();
    List<Integer> others = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      int id = targets.get(i).duplicateId();
      if (before.member(id).map(Member::active).orElse(false)) {
        active.add(i);
      } else {
        others.add(i);
      }
    }
    Ticker ticker = Ticker.system();
    long deadline = ticker.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WRITE_TIMEOUT_MILLIS);
    try {
      QuorumCall call = new QuorumCall(targets, graceNanos, ticker);
      call.call(
          "write the membership record to",
          active,
          QuorumCall.majority(before.activeCount()),
          deadline,
          source -> source.writeMembership(next, WRITE_TIMEOUT_MILLIS));
      if (!others.isEmpty()) {
        // Best effort (a duplicate being retired may be down): no longer than the grace.
        long restDeadline =
            Math.min(deadline, ticker.nanoTime() + Math.max(graceNanos, MIN_BEST_EFFORT_NANOS));
        QuorumCall.Answers<Long> rest =
            call.call(
                "write the membership record to",
                others,
                0,
                restDeadline,
                source -> source.writeMembership(next, WRITE_TIMEOUT_MILLIS));
        rest.missing().forEach((i, why) -> LOG.warn("membership record not written: {}", why));
      }
      if (!extra.isEmpty()) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < extra.size(); i++) {
          all.add(i);
        }
        new QuorumCall(extra, graceNanos, ticker)
            .call(
                "write the membership record to",
                all,
                extraNeeded ? extra.size() : 0,
                deadline,
                source -> source.writeMembership(next, WRITE_TIMEOUT_MILLIS));
      }
    } catch (EpochTakenException e) {
      throw new IllegalStateException(e); // writing the record claims nothing
    }
    record = Optional.of(next);
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null
        && (t instanceof java.util.concurrent.CompletionException
            || t instanceof java.util.concurrent.ExecutionException)) {
      t = t.getCause();
    }
    return t.getMessage() != null ? t.getMessage() : t.toString();
  }

  @Override
  public void close() {
    thread.shutdownNow();
    IllegalStateException closed = new IllegalStateException("the repeater closed");
    joining.values().forEach(f -> f.completeExceptionally(closed));
    joining.clear();
  }
}
