package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import io.zoolander.wire.Message;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The gap between what the duplicate applied and what it has seen: the SEQUENCED that arrived ahead
 * of {@code appliedSeq + 1}, held in a bounded buffer by seq, the highest seq seen, and the
 * RETRANSMIT last asked for. It takes the recorded {@code appliedSeq} and epoch as arguments and
 * sends nothing: its callers act on what it returns ({@link #takeNext}, {@link #dropOlderThan},
 * {@link #retransmit}).
 *
 * <p>A gap asks for {@code appliedSeq + 1 .. firstHeldSeq - 1} (or up to the highest seq seen, when
 * the buffer had to drop messages), again only after progress, a wider gap or the retransmission
 * timeout. Not thread-safe: the plugin confines it to its applier thread.
 */
final class GapTracker {

  /** What to do about the gap, see {@link #retransmit}. */
  enum Ask {
    /** No gap is open (or the duplicate does not apply): nothing to ask for. */
    NONE,
    /** The gap is open, but the first held message is next: nothing is missing. */
    NOTHING_MISSING,
    /** The missing range was asked for already, and neither progress nor a timeout happened. */
    ASKED_ALREADY,
    /** Ask for {@link #askFrom()}..{@link #askTo()}, then say {@link #asked} once sent. */
    ASK
  }

  /** A message held until the gap before it is filled, and the connection it came on. */
  record Held(Channel from, Message.Sequenced message) {}

  private final int capacity;
  private final TreeMap<Long, Held> held = new TreeMap<>();
  private long highestSeen;
  private long gapEpoch;
  private Channel gapChannel;
  private long requestedFrom = -1;
  private long requestedTo = -1;
  private long requestedAtNanos;
  private long askFrom;
  private long askTo;

  /**
   * @param capacity most messages held
   * @param appliedSeq the applied seq at start: nothing seen beyond it yet
   */
  GapTracker(int capacity, long appliedSeq) {
    this.capacity = capacity;
    this.highestSeen = appliedSeq;
  }

  /**
   * @return whether a message beyond {@code appliedSeq} was seen (and not applied yet)
   */
  boolean open(long appliedSeq) {
    return highestSeen > appliedSeq;
  }

  /**
   * Holds {@code message}, which came on {@code from} beyond {@code appliedSeq + 1}. A message of a
   * newer epoch replaces a held one of the same seq; when the buffer is full a message before the
   * last held one takes its place, and a later one is dropped (asked for again once the gap before
   * it is filled).
   */
  void hold(Channel from, Message.Sequenced message) {
    highestSeen = Math.max(highestSeen, message.seq());
    gapEpoch = Math.max(gapEpoch, message.epoch());
    gapChannel = from;
    Held existing = held.get(message.seq());
    if (existing != null) {
      if (message.epoch() > existing.message().epoch()) {
        held.put(message.seq(), new Held(from, message));
      }
    } else if (held.size() < capacity) {
      held.put(message.seq(), new Held(from, message));
    } else if (message.seq() < held.lastKey()) {
      held.pollLastEntry();
      held.put(message.seq(), new Held(from, message));
    }
    // else dropped: it is asked for again once the gap before it is filled
  }

  /**
   * Forgets the held messages at or below {@code appliedSeq} and takes the one right after it.
   *
   * @return the held message of seq {@code appliedSeq + 1}, no longer held; null if there is none
   */
  Held takeNext(long appliedSeq) {
    while (!held.isEmpty()) {
      Map.Entry<Long, Held> first = held.firstEntry();
      if (first.getKey() <= appliedSeq) {
        held.pollFirstEntry();
      } else if (first.getKey() == appliedSeq + 1) {
        held.pollFirstEntry();
        return first.getValue();
      } else {
        return null;
      }
    }
    return null;
  }

  /**
   * The duplicate recorded {@code epoch}: held messages of an older epoch can never apply.
   *
   * @return those messages, no longer held, to refuse (STALE_EPOCH) to their senders
   */
  List<Held> dropOlderThan(long epoch, long appliedSeq) {
    List<Held> stale = new ArrayList<>();
    for (Iterator<Held> it = held.values().iterator(); it.hasNext(); ) {
      Held h = it.next();
      if (h.message().epoch() < epoch) {
        it.remove();
        stale.add(h);
      }
    }
    highestSeen = held.isEmpty() ? appliedSeq : Math.max(appliedSeq, held.lastKey());
    gapEpoch = epoch;
    return stale;
  }

  /** Forgets every held message and the gap: the duplicate is fenced, or its data replaced. */
  void clear(long appliedSeq) {
    held.clear();
    highestSeen = appliedSeq;
  }

  /**
   * Whether to ask for the missing range now: unless it was asked for already and neither progress
   * (a new start), a wider range nor {@code timeoutNanos} since the last ask happened.
   *
   * @param active whether the duplicate applies (a fenced one asks for nothing)
   */
  Ask retransmit(boolean active, long appliedSeq, long nowNanos, long timeoutNanos) {
    if (!active || !open(appliedSeq)) {
      requestedFrom = -1;
      requestedTo = -1;
      return Ask.NONE;
    }
    long from = appliedSeq + 1;
    long to = held.isEmpty() ? highestSeen : held.firstKey() - 1;
    if (to < from) {
      return Ask.NOTHING_MISSING;
    }
    boolean progressed = from != requestedFrom;
    boolean widened = to > requestedTo;
    boolean timedOut = nowNanos - requestedAtNanos >= timeoutNanos;
    if (!progressed && !widened && !timedOut) {
      return Ask.ASKED_ALREADY;
    }
    askFrom = from;
    askTo = to;
    return Ask.ASK;
  }

  /**
   * @return the first missing seq, after {@link Ask#ASK}
   */
  long askFrom() {
    return askFrom;
  }

  /**
   * @return the last missing seq, after {@link Ask#ASK}
   */
  long askTo() {
    return askTo;
  }

  /**
   * @return the epoch to ask in: the highest seen in the gap's messages, at least {@code epoch}
   */
  long askEpoch(long epoch) {
    return Math.max(gapEpoch, epoch);
  }

  /**
   * @return the connection the last held message came on, if still active; null otherwise
   */
  Channel askOn() {
    return gapChannel != null && gapChannel.isActive() ? gapChannel : null;
  }

  /** The range of the last {@link Ask#ASK} was asked for at {@code nowNanos}. */
  void asked(long nowNanos) {
    requestedFrom = askFrom;
    requestedTo = askTo;
    requestedAtNanos = nowNanos;
  }
}
