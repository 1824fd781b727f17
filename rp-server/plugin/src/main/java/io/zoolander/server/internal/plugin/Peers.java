package io.zoolander.server.internal.plugin;

import io.netty.channel.Channel;
import java.util.Collection;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;

/**
 * The plugin's connected peers that it sends to unasked: repeaters (ACK) and clients (REPLY).
 * Thread-safe: Netty's event loop registers and removes, the applier looks up.
 */
final class Peers {

  private final Set<Channel> repeaters = ConcurrentHashMap.newKeySet();
  private final ConcurrentMap<Long, Channel> clients = new ConcurrentHashMap<>();
  private final Consumer<Channel> clientAdded;

  Peers() {
    this(channel -> {});
  }

  /**
   * @param clientAdded told of every client connection registered, on its event loop
   */
  Peers(Consumer<Channel> clientAdded) {
    this.clientAdded = clientAdded;
  }

  void addRepeater(Channel channel) {
    repeaters.add(channel);
    channel.closeFuture().addListener(f -> repeaters.remove(channel));
  }

  /**
   * Registers {@code channel} for {@code clientId}'s REPLYs; the newest connection of a client id
   * wins.
   */
  void addClient(long clientId, Channel channel) {
    clients.put(clientId, channel);
    channel.closeFuture().addListener(f -> clients.remove(clientId, channel));
    clientAdded.accept(channel);
  }

  /**
   * @return the live repeater connections
   */
  Collection<Channel> repeaters() {
    return Collections.unmodifiableSet(repeaters);
  }

  /**
   * @return the live client connections
   */
  Collection<Channel> clients() {
    return Collections.unmodifiableCollection(clients.values());
  }

  /**
   * @return the connection for {@code clientId}'s REPLYs, or null
   */
  Channel client(long clientId) {
    Channel channel = clients.get(clientId);
    return channel != null && channel.isActive() ? channel : null;
  }
}
