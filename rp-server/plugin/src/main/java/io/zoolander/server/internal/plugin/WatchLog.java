package io.zoolander.server.internal.plugin;

import io.zoolander.wire.Message.WatchEvent.Change;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The changes of the writes this plugin applied most recently, by seq, so that a watch armed again
 * (on another duplicate, after a reconnect) with a {@code sinceSeq} gets what happened meanwhile.
 * The log is complete for every seq after {@link #completeAfter()}: writes without changes have no
 * entry, and dropping the oldest entry (bounded in count and bytes) moves that seq forward. In
 * memory only: a plugin that starts is complete after its applied seq at start, and after a state
 * transfer after the installed seq. Not thread-safe: confined to the applier thread.
 */
final class WatchLog {

  /**
   * Bytes counted per entry and per change (its path indexed too) besides the path's characters.
   */
  private static final long ENTRY_OVERHEAD_BYTES = 64;

  private static final long CHANGE_OVERHEAD_BYTES = 64;

  /**
   * @param paths the distinct paths {@code changes} touch, computed once: every entry is indexed by
   *     them when recorded and unindexed when dropped
   */
  record Entry(long seq, List<Change> changes, long bytes, Set<String> paths) {}

  private final int maxEntries;
  private final long maxBytes;
  private final ArrayDeque<Entry> entries = new ArrayDeque<>();

  /**
   * The entries that change each path, in seq order: a watch on one path replays without a scan.
   */
  private final Map<String, ArrayDeque<Entry>> byPath = new HashMap<>();

  private long bytes;
  private long completeAfter;

  /**
   * @param completeAfter the seq applied when the log starts
   * @param maxEntries most writes with changes held
   * @param maxBytes most bytes held (estimated)
   */
  WatchLog(long completeAfter, int maxEntries, long maxBytes) {
    this.completeAfter = completeAfter;
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  /** Write {@code seq} (the next applied) made {@code changes}. */
  void record(long seq, List<Change> changes) {
    if (changes.isEmpty()) {
      return;
    }
    long size = ENTRY_OVERHEAD_BYTES;
    for (Change c : changes) {
      size += CHANGE_OVERHEAD_BYTES + 2L * c.path().length();
    }
    Entry entry = new Entry(seq, changes, size, paths(changes));
    entries.addLast(entry);
    for (String path : entry.paths()) {
      byPath.computeIfAbsent(path, p -> new ArrayDeque<>()).addLast(entry);
    }
    bytes += size;
    while (!entries.isEmpty() && (entries.size() > maxEntries || bytes > maxBytes)) {
      Entry dropped = entries.removeFirst();
      for (String path : dropped.paths()) {
        ArrayDeque<Entry> onPath = byPath.get(path);
        onPath.removeFirst(); // the oldest of every path it changed
        if (onPath.isEmpty()) {
          byPath.remove(path);
        }
      }
      bytes -= dropped.bytes();
      completeAfter = dropped.seq();
    }
  }

  private static Set<String> paths(List<Change> changes) {
    if (changes.size() == 1) {
      return Set.of(changes.get(0).path()); // most writes are one op
    }
    Set<String> paths = new LinkedHashSet<>();
    for (Change c : changes) {
      paths.add(c.path());
    }
    return paths;
  }

  /** Forgets everything: the log is complete after {@code seq} from now on. */
  void reset(long seq) {
    entries.clear();
    byPath.clear();
    bytes = 0;
    completeAfter = seq;
  }

  /** The log holds the changes of every write after this seq. */
  long completeAfter() {
    return completeAfter;
  }

  /**
   * @return the entries after {@code sinceSeq}, in seq order; meaningful only when {@code sinceSeq
   *     >= completeAfter()}
   */
  List<Entry> after(long sinceSeq) {
    return after(entries, sinceSeq);
  }

  /**
   * @return the entries after {@code sinceSeq} that change {@code path}, in seq order; meaningful
   *     only when {@code sinceSeq >= completeAfter()}
   */
  List<Entry> after(String path, long sinceSeq) {
    ArrayDeque<Entry> onPath = byPath.get(path);
    return onPath == null ? List.of() : after(onPath, sinceSeq);
  }

  private static List<Entry> after(ArrayDeque<Entry> entries, long sinceSeq) {
    List<Entry> out = new ArrayList<>();
    var it = entries.descendingIterator();
    while (it.hasNext()) {
      Entry e = it.next();
      if (e.seq() <= sinceSeq) {
        break;
      }
      out.add(e);
    }
    Collections.reverse(out);
    return out;
  }

  int size() {
    return entries.size();
  }
}
