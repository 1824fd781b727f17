package io.zoolander.wire.internal;

import io.netty.buffer.ByteBufUtil;
import io.zoolander.wire.WireSettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import org.apache.zookeeper.common.PathUtils;

/**
 * Argument checks for the wire records. Internal: not part of the public API.
 *
 * <p>Every failure is an {@link IllegalArgumentException} whose message starts with the offending
 * field's name, so both a caller building a message and a peer reading an ERROR see at once what
 * was wrong.
 */
public final class Checks {
  private Checks() {}

  public static <T> T notNull(T value, String name) {
    if (value == null) {
      throw new IllegalArgumentException(name + ": must not be null");
    }
    return value;
  }

  public static long atLeast(long value, long min, String name) {
    if (value < min) {
      throw new IllegalArgumentException(name + ": must be >= " + min + ", was " + value);
    }
    return value;
  }

  public static int atLeast(int value, int min, String name) {
    if (value < min) {
      throw new IllegalArgumentException(name + ": must be >= " + min + ", was " + value);
    }
    return value;
  }

  /** A ZooKeeper expected version: {@code -1} (any) or a version {@code >= 0}. */
  public static int expectedVersion(int version, String name) {
    if (version < -1) {
      throw new IllegalArgumentException(
          name + ": must be -1 (any version) or >= 0, was " + version);
    }
    return version;
  }

  /** A valid ZooKeeper path; a sequential create's path may end in '/'. */
  public static String checkPath(String path, String name, boolean sequential) {
    notNull(path, name);
    try {
      PathUtils.validatePath(path, sequential);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
    }
    return path;
  }

  /** Non-null data of at most {@link WireSettings#MAX_DATA_BYTES}. */
  public static byte[] checkData(byte[] data, String name) {
    notNull(data, name);
    if (data.length > WireSettings.MAX_DATA_BYTES) {
      throw new IllegalArgumentException(
          name + ": " + data.length + " bytes exceed the limit of " + WireSettings.MAX_DATA_BYTES);
    }
    return data;
  }

  /** A non-null string of at most {@code maxBytes} UTF-8 bytes. */
  public static String utf8(String value, String name, int maxBytes) {
    notNull(value, name);
    int bytes = ByteBufUtil.utf8Bytes(value);
    if (bytes > maxBytes) {
      throw new IllegalArgumentException(
          name + ": " + bytes + " UTF-8 bytes exceed the limit of " + maxBytes);
    }
    return value;
  }

  /**
   * The longest prefix of {@code value} that is at most {@code maxBytes} UTF-8 bytes, never
   * splitting a code point.
   */
  public static String truncateUtf8(String value, int maxBytes) {
    if (ByteBufUtil.utf8Bytes(value) <= maxBytes) {
      return value;
    }
    int bytes = 0;
    int i = 0;
    while (i < value.length()) {
      int cp = value.codePointAt(i);
      int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (bytes + n > maxBytes) {
        break;
      }
      bytes += n;
      i += Character.charCount(cp);
    }
    return value.substring(0, i);
  }

  /** An immutable copy of a list of 1 to {@code maxSize} non-null elements. */
  public static <T> List<T> list(List<? extends T> list, String name, int minSize, int maxSize) {
    notNull(list, name);
    int size = list.size();
    if (size < minSize || size > maxSize) {
      throw new IllegalArgumentException(
          name + ": must hold " + minSize + " to " + maxSize + " elements, held " + size);
    }
    List<T> copy = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      T element = list.get(i);
      if (element
          == null) { // the name is built only on failure: this runs for every message on every hot
        // path
        throw new IllegalArgumentException(name + "[" + i + "]: must not be null");
      }
      copy.add(element);
    }
    return Collections.unmodifiableList(copy);
  }

  /** A child name: non-empty, without '/'. */
  public static String childName(String child, String name) {
    notNull(child, name);
    if (child.isEmpty() || child.indexOf('/') >= 0) {
      throw new IllegalArgumentException(
          name + ": a child name must be non-empty and contain no '/', was \"" + child + "\"");
    }
    return child;
  }

  /** A short description of data for toString: its size and its first bytes in hex. */
  public static String describe(byte[] data) {
    int shown = Math.min(data.length, 16);
    String hex = HexFormat.of().formatHex(data, 0, shown);
    return data.length
        + " bytes"
        + (data.length == 0 ? "" : " 0x" + hex + (shown < data.length ? "..." : ""));
  }
}
