/**
 * The Zoolander plugin: the {@link io.zoolander.server.LeaderPlugin} that runs on each duplicate's
 * ZooKeeper leader, applies the repeater's sequenced writes exactly once and in order, and replies
 * to the clients. Configure it in {@code zoo.cfg} with {@code
 * zoolander.pluginFactory=io.zoolander.server.plugin.ZoolanderPluginFactory} and the settings of
 * {@link io.zoolander.server.plugin.ZoolanderPluginConfig}; {@code docs/architecture.md} is the
 * contract it implements.
 */
package io.zoolander.server.plugin;
