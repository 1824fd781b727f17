package io.zoolander.wire;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The top-level names one partition of a partitioned deployment is moving away or has moved away:
 * the route record, in the partition's application znode {@link #PATH}. A name without an entry is
 * served here as usual.
 *
 * <ul>
 *   <li>{@link Frozen}: a mover is copying the name's subtree; reads are served, writes by any
 *       other client are refused with {@link ErrorCode#NAME_FROZEN} (retryable: the freeze ends).
 *   <li>{@link Moved}: the name lives in another partition since that partition's {@code seq};
 *       reads and writes by any other client are refused with {@link ErrorCode#NAME_MOVED}.
 * </ul>
 *
 * <p>The record is changed only by sequenced writes, one name per write ({@link #change}), and the
 * repeater checks every write against the record as of the seq it gives it, so the refusals are
 * exact: a write sequenced after a name froze never touches it. Each plugin checks reads against
 * the record in the same tree as the data read.
 *
 * <p>Encoded as UTF-8 text an operator can read with {@code zkCli.sh get}: a first line {@code
 * zoolander-routes 1}, then one line per name, {@code frozen <mover> <from> <to> <name>} or {@code
 * moved <mover> <partition> <seq> <name>} (the name last: ZooKeeper names may hold spaces, never a
 * line break).
 *
 * @param routes top-level name to its route, sorted by name
 */
public record NameRoutes(Map<String, Route> routes) {

  /** The reserved top-level name of the route record: no application data may use it. */
  public static final String NAME = "zoolander.routes";

  /** The application path of the route record. */
  public static final String PATH = "/" + NAME;

  /**
   * Where a repeater's per-name write rates count the writes to names beyond those it tracks: not a
   * name, so never one to move.
   */
  public static final String OTHER_NAMES = "(other names)";

  /** No name routed away: what a partition without {@link #PATH} has. */
  public static final NameRoutes NONE = new NameRoutes(Map.of());

  /**
   * A route record with its znode's data version, as a duplicate holds it: what a change of it is
   * made against.
   *
   * @param version the data version, -1 while the record does not exist
   */
  public record Versioned(NameRoutes routes, int version) {
    /** No record: every name is served here. */
    public static final Versioned ABSENT = new Versioned(NONE, -1);

    public Versioned {
      Objects.requireNonNull(routes, "routes must not be null");
      if (version < -1) {
        throw new IllegalArgumentException("version must be >= -1, was " + version);
      }
    }
  }

  private static final String HEADER = "zoolander-routes 1";

  /** Where a name stands in this partition, when it is not simply served here. */
  public sealed interface Route permits Frozen, Moved {
    /** The client moving the name: the one client whose writes to it are still applied here. */
    long moverClientId();

    /**
     * The route of {@code name} in words, for errors and operators: {@code /users moved to
     * partition 1 (complete at its seq 40)}, {@code /users frozen by client 7, moving from
     * partition 0 to 1}.
     */
    String describe(String name);
  }

  /**
   * Held still by {@code moverClientId} while the name is copied from partition {@code from} to
   * partition {@code to} (this partition is one of them): the record says which move it is part of,
   * so that another client can finish or undo the move if its mover stops ({@link #change}).
   *
   * @param moverClientId the mover's client id ({@code >= 0})
   * @param from the partition the name is copied from ({@code >= 0})
   * @param to the partition it is copied to ({@code >= 0}, not {@code from})
   */
  public record Frozen(long moverClientId, int from, int to) implements Route {
    public Frozen {
      if (moverClientId < 0) {
        throw new IllegalArgumentException("moverClientId must be >= 0, was " + moverClientId);
      }
      if (from < 0 || to < 0 || from == to) {
        throw new IllegalArgumentException(
            "from and to must be two partitions (>= 0), were " + from + " and " + to);
      }
    }

    @Override
    public String describe(String name) {
      return "/"
          + name
          + " frozen by client "
          + moverClientId
          + ", moving from partition "
          + from
          + " to "
          + to;
    }
  }

  /**
   * Moved to {@code partition}, whose copy is complete at its {@code seq}: a client reading it
   * there waits for that seq, so it never reads less than was moved.
   *
   * @param partition the partition the name lives in now ({@code >= 0})
   * @param seq that partition's seq at which the copy is complete ({@code >= 0})
   * @param moverClientId the mover's client id ({@code >= 0}), which may still delete the old copy
   */
  public record Moved(int partition, long seq, long moverClientId) implements Route {
    public Moved {
      if (partition < 0) {
        throw new IllegalArgumentException("partition must be >= 0, was " + partition);
      }
      if (seq < 0) {
        throw new IllegalArgumentException("seq must be >= 0, was " + seq);
      }
      if (moverClientId < 0) {
        throw new IllegalArgumentException("moverClientId must be >= 0, was " + moverClientId);
      }
    }

    @Override
    public String describe(String name) {
      return "/" + name + " moved to partition " + partition + " (complete at its seq " + seq + ")";
    }
  }

  public NameRoutes {
    Objects.requireNonNull(routes, "routes must not be null");
    TreeMap<String, Route> sorted = new TreeMap<>();
    routes.forEach(
        (name, route) -> {
          checkName(name);
          sorted.put(name, Objects.requireNonNull(route, "route of " + name + " must not be null"));
        });
    routes = Collections.unmodifiableSortedMap(sorted);
  }

  /** The route of {@code name}, empty if it is served here. */
  public Optional<Route> route(String name) {
    return Optional.ofNullable(routes.get(name));
  }

  /** This record with {@code name} routed by {@code route}. */
  public NameRoutes with(String name, Route route) {
    TreeMap<String, Route> next = new TreeMap<>(routes);
    next.put(name, route);
    return new NameRoutes(next);
  }

  /** This record with {@code name} served here again. */
  public NameRoutes without(String name) {
    TreeMap<String, Route> next = new TreeMap<>(routes);
    next.remove(name);
    return new NameRoutes(next);
  }

  /**
   * The top-level name of an application path: {@code users} for {@code /users/42}; null for the
   * root, which is no name's.
   */
  public static String topLevelName(String path) {
    if (path.length() <= 1) {
      return null;
    }
    int end = path.indexOf('/', 1);
    return end < 0 ? path.substring(1) : path.substring(1, end);
  }

  /**
   * Why {@code clientId} may not touch {@code path} here, or null if it may: {@link
   * ErrorCode#NAME_FROZEN} or {@link ErrorCode#NAME_MOVED} for another client than the name's
   * mover.
   */
  public ErrorCode refusal(String path, long clientId) {
    String name = topLevelName(path);
    Route route = name == null ? null : routes.get(name);
    if (route == null || route.moverClientId() == clientId) {
      return null;
    }
    return route instanceof Moved ? ErrorCode.NAME_MOVED : ErrorCode.NAME_FROZEN;
  }

  /**
   * Why {@code writerClientId} may not change this record into {@code next}, or null if it may. One
   * change touches one name, and is one of:
   *
   * <ul>
   *   <li>served here or {@link Moved} away to {@link Frozen} by the writer (a move begins here, or
   *       a name moved away comes back and is frozen while it is copied in);
   *   <li>{@link Frozen} by another client to {@link Frozen} by the writer, for the same move: the
   *       writer takes the move over, to finish or undo it (its mover died); the mover's further
   *       writes to the name are refused from then on;
   *   <li>{@link Frozen} by the writer to served here (the copy is done, or the move is given up);
   *   <li>{@link Frozen} by the writer to {@link Moved} with the writer as mover (the move is
   *       done).
   * </ul>
   */
  public String change(NameRoutes next, long writerClientId) {
    String changed = null;
    for (String name : union(next)) {
      if (!Objects.equals(routes.get(name), next.routes.get(name))) {
        if (changed != null) {
          return "a route change changes one name, this one changes " + changed + " and " + name;
        }
        changed = name;
      }
    }
    if (changed == null) {
      return "the route change changes nothing";
    }
    Route from = routes.get(changed);
    Route to = next.routes.get(changed);
    if (to instanceof Frozen f) {
      if (f.moverClientId() != writerClientId) {
        return "client " + writerClientId + " can freeze " + changed + " for itself only";
      }
      if (from instanceof Frozen held
          && (held.moverClientId() == writerClientId
              || held.from() != f.from()
              || held.to() != f.to())) {
        return changed
            + " is "
            + describe(held)
            + " already: only that move can be taken over, by another client";
      }
      return null;
    }
    if (!(from instanceof Frozen) || from.moverClientId() != writerClientId) {
      return changed
          + " is "
          + describe(from)
          + ": only client "
          + writerClientId
          + "'s own freeze can end";
    }
    if (to instanceof Moved m && m.moverClientId() != writerClientId) {
      return "the mover of " + changed + " must stay client " + writerClientId;
    }
    return null;
  }

  private Set<String> union(NameRoutes next) {
    Set<String> names = new TreeSet<>(routes.keySet());
    names.addAll(next.routes.keySet());
    return names;
  }

  private static String describe(Route route) {
    if (route == null) {
      return "served here";
    }
    return route instanceof Moved m
        ? "moved to partition " + m.partition()
        : "frozen by client "
            + route.moverClientId()
            + " (a move from "
            + ((Frozen) route).from()
            + " to "
            + ((Frozen) route).to()
            + ")";
  }

  /** The record as UTF-8 text (see the class comment). */
  public byte[] encode() {
    StringBuilder s = new StringBuilder(HEADER).append('\n');
    routes.forEach(
        (name, route) -> {
          if (route instanceof Moved m) {
            s.append("moved ")
                .append(m.moverClientId())
                .append(' ')
                .append(m.partition())
                .append(' ')
                .append(m.seq());
          } else {
            Frozen f = (Frozen) route;
            s.append("frozen ")
                .append(f.moverClientId())
                .append(' ')
                .append(f.from())
                .append(' ')
                .append(f.to());
          }
          s.append(' ').append(name).append('\n');
        });
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Decodes {@link #encode()}'s text.
   *
   * @throws IllegalArgumentException if it is not a route record; the message says where
   */
  public static NameRoutes decode(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes must not be null");
    String text = new String(bytes, StandardCharsets.UTF_8);
    String[] lines = text.split("\n", -1);
    if (!lines[0].equals(HEADER)) {
      throw new IllegalArgumentException("not a route record: the first line is not " + HEADER);
    }
    if (!lines[lines.length - 1].isEmpty()) {
      throw new IllegalArgumentException("route record: the last line does not end");
    }
    TreeMap<String, Route> routes = new TreeMap<>();
    for (int i = 1; i < lines.length - 1; i++) {
      String line = lines[i];
      String[] f = line.split(" ", 5);
      try {
        Route route;
        String name;
        if (f[0].equals("frozen") && f.length == 5) {
          route = new Frozen(Long.parseLong(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]));
          name = f[4];
        } else if (f[0].equals("moved") && f.length == 5) {
          route = new Moved(Integer.parseInt(f[2]), Long.parseLong(f[3]), Long.parseLong(f[1]));
          name = f[4];
        } else {
          throw new IllegalArgumentException(
              "neither 'frozen <mover> <from> <to> <name>' nor 'moved <mover> <partition> <seq>"
                  + " <name>'");
        }
        checkName(name);
        if (routes.put(name, route) != null) {
          throw new IllegalArgumentException(name + " is listed twice");
        }
      } catch (IllegalArgumentException e) { // NumberFormatException included
        throw new IllegalArgumentException(
            "route record line " + (i + 1) + " '" + line + "': " + e.getMessage(), e);
      }
    }
    return new NameRoutes(routes);
  }

  private static void checkName(String name) {
    Objects.requireNonNull(name, "name must not be null");
    if (name.isEmpty()
        || name.contains("/")
        || name.equals(NAME)
        || name.chars().anyMatch(c -> c < 0x20)) {
      throw new IllegalArgumentException(
          "a routed name must be one path component, not "
              + NAME
              + ", without '/' or control characters: '"
              + name
              + "'");
    }
  }
}
