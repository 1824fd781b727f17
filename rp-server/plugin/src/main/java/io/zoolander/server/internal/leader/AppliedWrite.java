package io.zoolander.server.internal.leader;

/**
 * One write op the leader applied to its tree, as {@link LocalServer#observeWrites} reports it (a
 * multi's ops one by one).
 *
 * @param sessionId the ZooKeeper session whose request it was
 * @param op ZooKeeper's name of the op ({@code create}, {@code setData}, {@code delete}, ...)
 * @param path the znode it wrote
 */
public record AppliedWrite(long sessionId, String op, String path) {

  /** The session of {@link #missed}: no ZooKeeper session has this id. */
  public static final long NO_SESSION = 0;

  /**
   * Writes under {@code prefix} that were applied while nobody observed and could not all be kept:
   * which ones, and by whom, is not known.
   */
  static AppliedWrite missed(String prefix) {
    return new AppliedWrite(NO_SESSION, "(writes applied before the plugin observed)", prefix);
  }
}
