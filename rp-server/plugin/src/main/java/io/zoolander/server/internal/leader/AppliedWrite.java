package io.zoolander.server.internal.leader;

/**
 * One write op the leader applied to its tree, as {@link LocalServer#observeWrites} reports it (a
 * multi's ops one by one).
 *
 * @param sessionId the ZooKeeper session whose request it was
 * @param op ZooKeeper's name of the op ({@code create}, {@code setData}, {@code delete}, ...)
 * @param path the znode it wrote
 */
public record AppliedWrite(long sessionId, String op, String path) {}
