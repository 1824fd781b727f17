package io.zoolander.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The set of duplicates a deployment runs now, in {@link Znodes#members()}: written by the active
 * repeater to every member whenever a duplicate is added or retired online, read by a repeater that
 * takes over (so it streams to the set the old one left, not to the one in its configuration) and
 * watched by clients (so they start and stop reading from duplicates without a restart).
 *
 * <p>A member is {@link State#JOINING} from the moment it is added until it has caught up with the
 * others (by state transfer if the repeater's log no longer reaches back to its applied seq), then
 * {@link State#ACTIVE}: only active members are read from and counted in majorities. A retired
 * duplicate is absent. Each change adds or removes one member and raises {@link #version()}, so
 * that the newest record wins wherever records differ.
 *
 * <p>The record also carries the deployment's read fan-out when its load controller decides one:
 * how many duplicates each read of a client with {@code ReadPolicy.advised} asks. 0 means none is
 * advised. A change of fan-out alone is a change too, and raises the version.
 *
 * <p>Encoded as UTF-8 text an operator can read with {@code zkCli.sh get}: the version on the first
 * line, then {@code read-fan-out <C>} when one is advised, then one line per member, {@code <id>
 * active|joining <connectString>}.
 *
 * @param version raised by one at every change ({@code >= 1})
 * @param members in increasing id order, ids unique, at least one active
 * @param readFanOut the duplicates each read asks, as the controller advises; 0 when none is
 *     advised. Clients take at most the active members, whatever it says.
 */
public record Membership(long version, List<Member> members, int readFanOut) {

  private static final String READ_FAN_OUT = "read-fan-out ";

  /** Where a member stands. */
  public enum State {
    /** Added, catching up: streamed to, not read from, not counted. */
    JOINING,
    /** Caught up: read from and counted. */
    ACTIVE
  }

  /**
   * One duplicate of the set.
   *
   * @param duplicateId its {@code zoolander.duplicateId} ({@code >= 1})
   * @param connectString its ensemble's ZooKeeper connect string
   */
  public record Member(int duplicateId, State state, String connectString) {
    public Member {
      if (duplicateId < 1) {
        throw new IllegalArgumentException("duplicateId must be >= 1, was " + duplicateId);
      }
      Objects.requireNonNull(state, "state must not be null");
      Objects.requireNonNull(connectString, "connectString must not be null");
      if (connectString.isEmpty()
          || connectString.chars().anyMatch(c -> Character.isWhitespace(c))) {
        throw new IllegalArgumentException(
            "connectString must be a ZooKeeper connect string without spaces, was '"
                + connectString
                + "'");
      }
    }

    public boolean active() {
      return state == State.ACTIVE;
    }
  }

  /** A record that advises no read fan-out. */
  public Membership(long version, List<Member> members) {
    this(version, members, 0);
  }

  public Membership {
    if (version < 1) {
      throw new IllegalArgumentException("version must be >= 1, was " + version);
    }
    if (readFanOut < 0) {
      throw new IllegalArgumentException("readFanOut must be >= 0, was " + readFanOut);
    }
    members = List.copyOf(Objects.requireNonNull(members, "members must not be null"));
    Set<Integer> ids = new HashSet<>();
    int previous = 0;
    for (Member m : members) {
      if (!ids.add(m.duplicateId())) {
        throw new IllegalArgumentException("duplicate " + m.duplicateId() + " is listed twice");
      }
      if (m.duplicateId() < previous) {
        throw new IllegalArgumentException("members must be in increasing id order: " + members);
      }
      previous = m.duplicateId();
    }
    if (members.stream().noneMatch(Member::active)) {
      throw new IllegalArgumentException("at least one member must be active: " + members);
    }
  }

  /** The member with this id, if it is one. */
  public Optional<Member> member(int duplicateId) {
    return members.stream().filter(m -> m.duplicateId() == duplicateId).findFirst();
  }

  /** How many members are active. */
  public int activeCount() {
    return (int) members.stream().filter(Member::active).count();
  }

  /** This set with {@code member} added, or put in place of the member with its id. */
  public Membership with(Member member) {
    List<Member> next = new ArrayList<>();
    boolean placed = false;
    for (Member m : members) {
      if (!placed && member.duplicateId() <= m.duplicateId()) {
        next.add(member);
        placed = true;
      }
      if (m.duplicateId() != member.duplicateId()) {
        next.add(m);
      }
    }
    if (!placed) {
      next.add(member);
    }
    return new Membership(version + 1, next, readFanOut);
  }

  /**
   * This set advising {@code fanOut} duplicates per read (0: none advised).
   *
   * @throws IllegalArgumentException if {@code fanOut} is negative
   */
  public Membership withReadFanOut(int fanOut) {
    return new Membership(version + 1, members, fanOut);
  }

  /**
   * This set without the member {@code duplicateId}.
   *
   * @throws IllegalArgumentException if it is not a member, or the last active one
   */
  public Membership without(int duplicateId) {
    if (member(duplicateId).isEmpty()) {
      throw new IllegalArgumentException("duplicate " + duplicateId + " is not a member");
    }
    return new Membership(
        version + 1,
        members.stream().filter(m -> m.duplicateId() != duplicateId).toList(),
        readFanOut);
  }

  public byte[] encode() {
    StringBuilder s = new StringBuilder().append(version).append('\n');
    if (readFanOut > 0) {
      s.append(READ_FAN_OUT).append(readFanOut).append('\n');
    }
    for (Member m : members) {
      s.append(m.duplicateId())
          .append(' ')
          .append(m.active() ? "active" : "joining")
          .append(' ')
          .append(m.connectString())
          .append('\n');
    }
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @throws IllegalArgumentException if {@code data} is not such a record
   */
  public static Membership decode(byte[] data) {
    String text = new String(data, StandardCharsets.UTF_8);
    List<String> lines = text.lines().toList();
    if (lines.isEmpty()) {
      throw new IllegalArgumentException("not a membership record: empty");
    }
    try {
      long version = Long.parseLong(lines.get(0).strip());
      int first = 1;
      int fanOut = 0;
      if (lines.size() > 1 && lines.get(1).startsWith(READ_FAN_OUT)) {
        fanOut = Integer.parseInt(lines.get(1).substring(READ_FAN_OUT.length()).strip());
        first = 2;
      }
      List<Member> members = new ArrayList<>();
      for (String line : lines.subList(first, lines.size())) {
        String[] parts = line.strip().split(" ", -1);
        if (parts.length != 3 || !(parts[1].equals("active") || parts[1].equals("joining"))) {
          throw new IllegalArgumentException(
              "not a membership record: bad member line '" + line + "'");
        }
        members.add(
            new Member(
                Integer.parseInt(parts[0]),
                parts[1].equals("active") ? State.ACTIVE : State.JOINING,
                parts[2]));
      }
      return new Membership(version, members, fanOut);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a membership record: '" + text + "'", e);
    }
  }
}
