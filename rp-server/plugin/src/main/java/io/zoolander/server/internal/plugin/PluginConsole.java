package io.zoolander.server.internal.plugin;

import io.zoolander.server.jmx.PluginMXBean;
import io.zoolander.server.plugin.ZoolanderPluginView;
import io.zoolander.wire.PluginEndpoint;

/** {@link PluginMXBean} over a running plugin's view. Internal. */
public final class PluginConsole implements PluginMXBean {
  private final ZoolanderPluginView plugin;
  private final long serverId;

  public PluginConsole(ZoolanderPluginView plugin, long serverId) {
    this.plugin = plugin;
    this.serverId = serverId;
  }

  @Override
  public int getDuplicateId() {
    return plugin.duplicateId();
  }

  @Override
  public long getServerId() {
    return serverId;
  }

  @Override
  public String getState() {
    return plugin.snapshot().state().name();
  }

  @Override
  public long getAppliedSeq() {
    return plugin.snapshot().appliedSeq();
  }

  @Override
  public long getEpoch() {
    return plugin.snapshot().epoch();
  }

  @Override
  public String getEndpoint() {
    return plugin.endpoint().map(PluginEndpoint::address).orElse("");
  }

  @Override
  public long getDuplicateRequests() {
    return plugin.duplicateRequests();
  }
}
