package io.zoolander.server.jmx;

import java.util.List;
import java.util.Map;

/**
 * The repeater, as an MXBean: {@link ZoolanderJmx#REPEATER}. Attributes are snapshots taken when
 * read.
 */
public interface RepeaterMXBean {
  /** The repeater's epoch; -1 before it started. */
  long getEpoch();

  /** The seq the next write gets; -1 before start. */
  long getNextSeq();

  /** Sequenced writes the retransmission log holds; -1 when not running. */
  int getLogSize();

  /** Whether a newer repeater deposed this one (it then refuses every write). */
  boolean isDeposed();

  /** Where clients connect, {@code host:port}; empty before start. */
  String getClientAddress();

  /** How many duplicates are fenced. */
  int getFencedDuplicates();

  /** Every duplicate, in configuration order: id, state, applied seq, lag, endpoint. */
  List<DuplicateInfo> getDuplicates();

  /**
   * The state transfers in progress, one line each: target and source, chunks relayed of how many,
   * znodes and bytes so far, time spent and about how much is left (e.g. {@code state transfer 3 to
   * duplicate 2 from duplicate 1: 12 of 30 chunks (40%), 12000 znodes, 3.1 MiB in 4.1 s, about 6.2
   * s left}); empty when none runs.
   */
  List<String> getTransfers();

  /**
   * Writes per second to each top-level name (the first component of an application path) over the
   * last complete window (10 seconds by default), highest first, one line each: {@code /users
   * 1250.4/s}; empty once the writes stopped. What a partition's writes are made of: the names to
   * move to another partition when they outgrow it (docs/operations.md, "Moving a name to another
   * partition").
   */
  List<String> getNameWriteRates();

  /**
   * The same for programs: each top-level name, without its slash, to its writes per second (a
   * table of key and value to a JMX client; a partition balancer's probe reads it).
   */
  Map<String, Double> getNameWriteRatesPerSec();

  /**
   * Fences duplicate {@code duplicateId}: the repeater sends it nothing more and its plugin refuses
   * reads (clients ask another duplicate) until {@link #unfence} or {@link #rejoin}. Fencing a
   * fenced duplicate does nothing.
   *
   * @throws IllegalArgumentException if no duplicate has this id
   */
  void fence(int duplicateId);

  /**
   * Brings a fenced duplicate back and waits for it (at most two minutes): a state transfer from
   * the most advanced duplicate, then it follows the stream. The only way back that is safe
   * whatever the duplicate missed.
   *
   * @return what happened, in words
   * @throws IllegalStateException if the transfer failed or took longer (the duplicate stays
   *     fenced)
   */
  String unfence(int duplicateId);

  /**
   * Starts a rejoin of duplicate {@code duplicateId} by state transfer and returns at once; watch
   * its progress in {@link #getTransfers()} and its row in {@link #getDuplicates()} (or {@link
   * #unfence} to wait for it).
   *
   * @return that it started, in words
   */
  String rejoin(int duplicateId);

  /**
   * The duplicates the deployment runs now: {@code version <n>}, then {@code read fan-out <c>} when
   * one is advised, then one row per member, {@code <id> active|joining <connectString>}.
   */
  List<String> getMembers();

  /**
   * Advises clients with {@code ReadPolicy.advised} to ask {@code fanOut} duplicates per read (0
   * withdraws the advice) and waits until the membership record with it is written. The load
   * controller, when on, sets it too, every period it decides to.
   *
   * @return what happened, in words
   * @throws IllegalArgumentException if {@code fanOut} is negative
   * @throws IllegalStateException if the record cannot be written now
   */
  String setReadFanOut(int fanOut);

  /**
   * Adds a duplicate to the running deployment and waits (at most two minutes) until it is active:
   * claimed, recorded as joining, rejoined by state transfer, recorded as active.
   *
   * @return what happened, in words
   * @throws IllegalArgumentException if it is a member already, or the arguments are bad
   * @throws IllegalStateException if it cannot be added now, or did not become active in time
   */
  String addDuplicate(int duplicateId, String connectString);

  /**
   * Retires a duplicate from the running deployment: recorded as gone, fenced, forgotten.
   *
   * @return what happened, in words
   * @throws IllegalArgumentException if it is not a member
   * @throws IllegalStateException if it is the last active duplicate, or cannot be retired now
   */
  String retireDuplicate(int duplicateId);
}
