package io.zoolander.server.plugin;

import io.zoolander.server.LeaderPlugin;
import io.zoolander.server.LeaderPluginFactory;
import io.zoolander.server.internal.plugin.ZoolanderPlugin;
import io.zoolander.server.settings.Setting;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Creates the Zoolander plugin of each leadership term. Name it in every server's {@code zoo.cfg}
 * of a duplicate:
 *
 * <pre>
 * standaloneEnabled=false
 * zoolander.pluginFactory=io.zoolander.server.plugin.ZoolanderPluginFactory
 * zoolander.duplicateId=1
 * # optional, see ZoolanderPluginConfig:
 * zoolander.basePath=/zoolander
 * zoolander.plugin.host=127.0.0.1
 * zoolander.plugin.port=0
 * zoolander.plugin.sessionTimeoutMs=6000
 * zoolander.plugin.gapBufferMessages=256
 * </pre>
 *
 * <p>and run the servers with {@link io.zoolander.server.ZoolanderPeerMain}. The factory declares
 * every key the plugin reads ({@link #settings()}), so the server refuses an unknown or misspelled
 * {@code zoolander.*} key when it starts. The values are validated when a plugin starts ({@link
 * ZoolanderPluginConfig}); invalid values are logged and the server keeps serving as plain
 * ZooKeeper.
 *
 * <p>While its server leads, the plugin:
 *
 * <ul>
 *   <li>keeps its bookkeeping in {@code <basePath>/state} and the application's tree under {@code
 *       <basePath>/data}, creating them when absent;
 *   <li>listens on {@code host:port} for the wire protocol ({@link io.zoolander.wire}) and
 *       publishes where in the ephemeral {@code <basePath>/endpoint} znode, so repeater and clients
 *       follow leadership changes;
 *   <li>answers every HELLO with STATUS; applies the repeater's SEQUENCED writes exactly once,
 *       strictly in seq order, each together with its bookkeeping updates (the state, the client's
 *       record) in one ZooKeeper multi; asks for retransmission on a gap; refuses a stale repeater
 *       epoch; replies REPLY to the writing client's connection and ACK to the repeater;
 *   <li>recognises a retried write (a request id its client's record in {@code <basePath>/clients}
 *       says was applied) and does not apply it again: it answers with the original seq and
 *       results, or ERROR(DUPLICATE_REQUEST) once those left the record's window of {@link
 *       io.zoolander.wire.ClientRecord#WINDOW} requests;
 *   <li>answers READ (GET_DATA, EXISTS, GET_CHILDREN) once it has applied the read's {@code
 *       minSeq}, waiting at most {@code zoolander.plugin.readWaitMs}; a read it cannot serve in
 *       time is refused with ERROR(OVERLOADED) and a {@code retryAfterMillis} (the protocol has no
 *       "not caught up" code; a client should try another duplicate);
 *   <li>stops applying and serving reads, but keeps answering STATUS, once the repeater sends
 *       ERROR(FENCED); the fence is not persisted (a restarted plugin is fenced again by the
 *       repeater if it is still behind its log);
 *   <li>slows accesses on purpose while the optional {@code <basePath>/anomaly} znode says so: the
 *       anomaly injector, a test and demo tool, off by default ({@link AnomalySettings}).
 * </ul>
 *
 * {@code docs/architecture.md} is the full contract.
 *
 * <p>One factory instance exists per server; {@link #plugin()} gives a read-only view of its latest
 * plugin.
 */
public final class ZoolanderPluginFactory implements LeaderPluginFactory {

  private final AtomicReference<ZoolanderPlugin> latest = new AtomicReference<>();

  /** Called by the server, which names this class in {@code zoo.cfg}. */
  public ZoolanderPluginFactory() {}

  @Override
  public LeaderPlugin newPlugin() {
    ZoolanderPlugin plugin = new ZoolanderPlugin();
    latest.set(plugin);
    return plugin;
  }

  /**
   * @return {@link PluginKeys#ALL}: the plugin's entries and the security entries
   */
  @Override
  public List<Setting<?>> settings() {
    return PluginKeys.ALL.settings();
  }

  /**
   * @return the plugin of this server's current (or last) leadership term, empty if it never led
   */
  public Optional<ZoolanderPluginView> plugin() {
    return Optional.ofNullable(latest.get());
  }
}
