package io.zoolander.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;

/**
 * The requests a duplicate has applied for one client, stored in {@link Znodes#client(long)} and
 * updated in the same ZooKeeper multi as each of that client's writes, so it is replicated state:
 * every duplicate holds the same record after the same seq. It makes writes idempotent by {@code
 * (clientId, requestId)}: a client retries a write (after a timeout or a reconnect) with the same
 * request id, the repeater sequences the retry again under a new seq, and the plugin recognises it
 * as a duplicate because its request id is not above {@link #highestRequestId()}.
 *
 * <p>This relies on one assumption: a client's first attempts carry increasing request ids, in the
 * order the repeater sequences them (a client's writes go over one connection and the repeater
 * never reorders them). A client id must therefore not be reused by a new client that starts
 * counting request ids again.
 *
 * <p>The record keeps the outcome of the client's last {@link #WINDOW} requests ({@link Entry}:
 * request id, the seq it was applied at, its results, failures included), so a retry is answered
 * with the original seq and results. Older outcomes are forgotten; an entry whose results would
 * make the record larger than {@link #MAX_ENCODED_BYTES} is forgotten too (oldest first), so the
 * record always fits in one ZooKeeper request next to a write. The entries built by {@link #first},
 * {@link #append} and {@link #withoutEntries} are always the outcomes of the client's <em>last</em>
 * applied requests, without a hole: a request id between the oldest entry's and the highest that
 * has no entry was never applied ({@link #neverApplied}).
 *
 * <p>Encoding, {@code varint} being an unsigned LEB128 number (7 bits a byte, low bits first):
 *
 * <pre>
 * [byte format = 1][varint highestRequestId][varint entryCount] entry*
 * entry:  [varint requestId][varint seq][varint resultCount] result*
 * result: [byte tag] then, by tag (the wire's result tags):
 *         1 Created: [varint byteLength][UTF-8 path]    2 DataSet: [varint version]
 *         3 Deleted, 4 Checked: nothing                 5 Failed: [varint zigzag(code)]
 * </pre>
 *
 * Entries are oldest first, their request ids strictly increasing and at most {@code
 * highestRequestId}.
 *
 * @param highestRequestId the highest request id applied for the client ({@code >= 0})
 * @param entries the outcomes still held, oldest first
 */
public record ClientRecord(long highestRequestId, List<Entry> entries) {

  /** How many recent requests a record holds the outcome of (K). */
  public static final int WINDOW = 32;

  /**
   * Upper bound of an encoded record: entries are dropped, oldest first, to stay within it. Far
   * below ZooKeeper's default {@code jute.maxbuffer} (1 MiB), so the record's update fits next to
   * almost any write.
   */
  public static final int MAX_ENCODED_BYTES = 64 * 1024;

  private static final byte FORMAT = 1;
  private static final int TAG_CREATED = 1;
  private static final int TAG_DATA_SET = 2;
  private static final int TAG_DELETED = 3;
  private static final int TAG_CHECKED = 4;
  private static final int TAG_FAILED = 5;

  /**
   * The outcome of one applied request.
   *
   * @param requestId the client's request id ({@code >= 0})
   * @param seq the seq it was applied at ({@code >= 1})
   * @param results one per op of the write, as its REPLY carried them
   */
  public record Entry(long requestId, long seq, List<OpResult> results) {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Entry {
      if (requestId < 0) {
        throw new IllegalArgumentException("requestId must be >= 0, was " + requestId);
      }
      if (seq < 1) {
        throw new IllegalArgumentException("seq must be >= 1, was " + seq);
      }
      Objects.requireNonNull(results, "results must not be null");
      if (results.isEmpty() || results.size() > WireSettings.MAX_OPS_PER_MESSAGE) {
        throw new IllegalArgumentException(
            "results must hold 1 to "
                + WireSettings.MAX_OPS_PER_MESSAGE
                + " results, held "
                + results.size());
      }
      results = List.copyOf(results);
    }

    private int encodedLength() {
      int length = varLength(requestId) + varLength(seq) + varLength(results.size());
      for (OpResult r : results) {
        length += 1;
        if (r instanceof OpResult.Created c) {
          int bytes = utf8Length(c.path());
          length += varLength(bytes) + bytes;
        } else if (r instanceof OpResult.DataSet d) {
          length += varLength(d.version());
        } else if (r instanceof OpResult.Failed f) {
          length += varLength(zigzag(f.code().intValue()));
        }
      }
      return length;
    }
  }

  /**
   * @throws IllegalArgumentException if a field is invalid or the entries are out of order; the
   *     message names it
   */
  public ClientRecord {
    if (highestRequestId < 0) {
      throw new IllegalArgumentException("highestRequestId must be >= 0, was " + highestRequestId);
    }
    entries = List.copyOf(Objects.requireNonNull(entries, "entries must not be null"));
    long previous = -1;
    for (Entry e : entries) {
      if (e.requestId() <= previous || e.requestId() > highestRequestId) {
        throw new IllegalArgumentException(
            "entries: request ids must increase and not exceed highestRequestId "
                + highestRequestId
                + ", found "
                + e.requestId()
                + " after "
                + previous);
      }
      previous = e.requestId();
    }
  }

  /** The record of a client's first applied request. */
  public static ClientRecord first(Entry entry) {
    return window(entry.requestId(), List.of(), List.of(entry));
  }

  /**
   * The first record of a client, after {@code entries} in order: as {@link #first} and then {@link
   * #append} of each of the others, computed at once.
   *
   * @throws IllegalArgumentException if {@code entries} is empty or its request ids do not increase
   */
  public static ClientRecord first(List<Entry> entries) {
    if (entries.isEmpty()) {
      throw new IllegalArgumentException("entries must not be empty");
    }
    return window(increasing(-1, entries), List.of(), entries);
  }

  /** Whether {@code requestId} was applied already: it is not above {@link #highestRequestId()}. */
  public boolean isDuplicate(long requestId) {
    return requestId <= highestRequestId;
  }

  /**
   * Whether {@code requestId}, though not above {@link #highestRequestId()}, was certainly never
   * applied: it lies within the window and has no entry. Only a client that breaks the ordering
   * assumption (a first attempt sent after a request with a higher id was sequenced) sends such a
   * request.
   */
  public boolean neverApplied(long requestId) {
    return isDuplicate(requestId)
        && !entries.isEmpty()
        && requestId > entries.get(0).requestId()
        && find(requestId).isEmpty();
  }

  /**
   * @return the outcome of {@code requestId}, if the record still holds it
   */
  public Optional<Entry> find(long requestId) {
    for (Entry e : entries) {
      if (e.requestId() == requestId) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /**
   * The record after applying {@code entry}: its request id becomes the highest, and it joins the
   * window, which then drops its oldest entries beyond {@link #WINDOW} or {@link
   * #MAX_ENCODED_BYTES} (possibly {@code entry} itself, if its results alone are too large).
   *
   * @throws IllegalArgumentException if {@code entry} is not newer than {@link #highestRequestId()}
   *     (a duplicate)
   */
  public ClientRecord append(Entry entry) {
    if (entry.requestId() <= highestRequestId) {
      throw new IllegalArgumentException(
          "request "
              + entry.requestId()
              + " is not newer than the highest applied, "
              + highestRequestId);
    }
    return window(entry.requestId(), entries, List.of(entry));
  }

  /**
   * The record after {@code newer}, in order: the same as {@link #append} of each, computed at once
   * (the window is the newest outcomes that fit, whether they come one by one or together), for a
   * batch of a client's writes applied in one multi.
   *
   * @throws IllegalArgumentException if the request ids of {@code newer} do not increase from above
   *     {@link #highestRequestId()}
   */
  public ClientRecord appendAll(List<Entry> newer) {
    if (newer.isEmpty()) {
      return this;
    }
    return window(increasing(highestRequestId, newer), entries, newer);
  }

  /**
   * @return the last request id of {@code newer}
   * @throws IllegalArgumentException unless their ids increase from above {@code highest}
   */
  private static long increasing(long highest, List<Entry> newer) {
    long previous = highest;
    for (Entry e : newer) {
      if (e.requestId() <= previous) {
        throw new IllegalArgumentException(
            "request " + e.requestId() + " is not newer than the highest applied, " + previous);
      }
      previous = e.requestId();
    }
    return previous;
  }

  /**
   * The newest outcomes of {@code previous} followed by {@code added} that fit: at most {@link
   * #WINDOW}, and at most {@link #MAX_ENCODED_BYTES} encoded, the oldest dropped first.
   */
  private static ClientRecord window(long highest, List<Entry> previous, List<Entry> added) {
    int total = previous.size() + added.size();
    int from = Math.max(0, total - WINDOW);
    List<Entry> window = new ArrayList<>(total - from);
    for (int i = from; i < total; i++) {
      window.add(i < previous.size() ? previous.get(i) : added.get(i - previous.size()));
    }
    int body = 0;
    for (Entry e : window) {
      body += e.encodedLength();
    }
    while (!window.isEmpty() && headerLength(highest, window.size()) + body > MAX_ENCODED_BYTES) {
      body -= window.remove(0).encodedLength();
    }
    return new ClientRecord(highest, window);
  }

  /**
   * The same record without any outcome: a retry of any of its requests is then a {@code
   * DUPLICATE_REQUEST}.
   */
  public ClientRecord withoutEntries() {
    return new ClientRecord(highestRequestId, List.of());
  }

  /**
   * The record after applying request {@code requestId} without holding its outcome (its results
   * are too large to keep): it becomes the highest, and the older outcomes are dropped too, so that
   * the window has no hole.
   *
   * @throws IllegalArgumentException if {@code requestId} is not newer than {@link
   *     #highestRequestId()}
   */
  public ClientRecord appendUnheld(long requestId) {
    if (requestId <= highestRequestId) {
      throw new IllegalArgumentException(
          "request " + requestId + " is not newer than the highest applied, " + highestRequestId);
    }
    return new ClientRecord(requestId, List.of());
  }

  /**
   * @return the encoding described in the class documentation
   */
  public byte[] encode() {
    Writer out = new Writer(encodedLength());
    out.write(FORMAT);
    out.writeVar(highestRequestId);
    out.writeVar(entries.size());
    for (Entry e : entries) {
      out.writeVar(e.requestId());
      out.writeVar(e.seq());
      out.writeVar(e.results().size());
      for (OpResult r : e.results()) {
        if (r instanceof OpResult.Created c) {
          byte[] path = c.path().getBytes(StandardCharsets.UTF_8);
          out.write(TAG_CREATED);
          out.writeVar(path.length);
          out.write(path, 0, path.length);
        } else if (r instanceof OpResult.DataSet d) {
          out.write(TAG_DATA_SET);
          out.writeVar(d.version());
        } else if (r instanceof OpResult.Deleted) {
          out.write(TAG_DELETED);
        } else if (r instanceof OpResult.Checked) {
          out.write(TAG_CHECKED);
        } else if (r instanceof OpResult.Failed f) {
          out.write(TAG_FAILED);
          out.writeVar(zigzag(f.code().intValue()));
        } else {
          throw new IllegalStateException("unhandled result " + r); // sealed: unreachable
        }
      }
    }
    return out.toByteArray();
  }

  /**
   * @return the length of {@link #encode()}
   */
  public int encodedLength() {
    int length = headerLength(highestRequestId, entries.size());
    for (Entry e : entries) {
      length += e.encodedLength();
    }
    return length;
  }

  /**
   * @throws IllegalArgumentException if the bytes are not a client record of a known format
   */
  public static ClientRecord decode(byte[] bytes) {
    if (bytes == null || bytes.length < 3 || bytes[0] != FORMAT) {
      throw new IllegalArgumentException("not a Zoolander client record (format " + FORMAT + ")");
    }
    Reader in = new Reader(bytes);
    long highest = in.readVar("highestRequestId");
    int count = in.readCount("entryCount", 3);
    List<Entry> entries = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      long requestId = in.readVar("requestId");
      long seq = in.readVar("seq");
      int resultCount = in.readCount("resultCount", 1);
      List<OpResult> results = new ArrayList<>(resultCount);
      for (int j = 0; j < resultCount; j++) {
        int tag = in.readByte("result tag");
        switch (tag) {
          case TAG_CREATED -> results.add(new OpResult.Created(in.readUtf8("path")));
          case TAG_DATA_SET -> results.add(new OpResult.DataSet(in.readInt("version")));
          case TAG_DELETED -> results.add(new OpResult.Deleted());
          case TAG_CHECKED -> results.add(new OpResult.Checked());
          case TAG_FAILED -> {
            long zigzagged = in.readVar("code");
            int code = (int) ((zigzagged >>> 1) ^ -(zigzagged & 1));
            KeeperException.Code c = KeeperException.Code.get(code);
            if (c == null || zigzagged > 0xFFFF_FFFFL) {
              throw new IllegalArgumentException("client record: unknown result code " + code);
            }
            results.add(new OpResult.Failed(c));
          }
          default -> throw new IllegalArgumentException("client record: unknown result tag " + tag);
        }
      }
      entries.add(new Entry(requestId, seq, results));
    }
    if (in.remaining() != 0) {
      throw new IllegalArgumentException("client record: " + in.remaining() + " trailing bytes");
    }
    return new ClientRecord(highest, entries);
  }

  // ---------------------------------------------------------------- encoding helpers

  private static int headerLength(long highest, int count) {
    return 1 + varLength(highest) + varLength(count);
  }

  private static long zigzag(int value) {
    return ((long) ((value << 1) ^ (value >> 31))) & 0xFFFF_FFFFL;
  }

  private static int varLength(long value) {
    int length = 1;
    while ((value & ~0x7FL) != 0) {
      value >>>= 7;
      length++;
    }
    return length;
  }

  private static int utf8Length(String s) {
    int length = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        length += 1;
      } else if (c < 0x800) {
        length += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        length += 4;
        i++;
      } else {
        length += 3;
      }
    }
    return length;
  }

  private static final class Writer extends ByteArrayOutputStream {
    Writer(int size) {
      super(size);
    }

    void writeVar(long value) {
      while ((value & ~0x7FL) != 0) {
        write((int) ((value & 0x7F) | 0x80));
        value >>>= 7;
      }
      write((int) value);
    }
  }

  private static final class Reader {
    private final byte[] bytes;
    private int position = 1; // after the format byte

    Reader(byte[] bytes) {
      this.bytes = bytes;
    }

    int remaining() {
      return bytes.length - position;
    }

    int readByte(String name) {
      if (position >= bytes.length) {
        throw new IllegalArgumentException("client record: truncated at " + name);
      }
      return bytes[position++] & 0xFF;
    }

    long readVar(String name) {
      long value = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        int b = readByte(name);
        value |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          if (value < 0) {
            throw new IllegalArgumentException("client record: " + name + " out of range");
          }
          return value;
        }
      }
      throw new IllegalArgumentException("client record: " + name + " is not a valid varint");
    }

    int readInt(String name) {
      long value = readVar(name);
      if (value > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("client record: " + name + " out of range: " + value);
      }
      return (int) value;
    }

    /**
     * A count of items of at least {@code minItemBytes} each: it cannot claim more than the bytes
     * left.
     */
    int readCount(String name, int minItemBytes) {
      int count = readInt(name);
      if ((long) count * minItemBytes > remaining()) {
        throw new IllegalArgumentException(
            "client record: " + name + " " + count + " exceeds the bytes left");
      }
      return count;
    }

    String readUtf8(String name) {
      int length = readCount(name + " length", 1);
      String s = new String(bytes, position, length, StandardCharsets.UTF_8);
      position += length;
      return s;
    }
  }
}
