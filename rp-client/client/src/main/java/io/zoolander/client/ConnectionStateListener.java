package io.zoolander.client;

/**
 * Told about every connection state change; called on the client's I/O thread, so it must not
 * block.
 */
@FunctionalInterface
public interface ConnectionStateListener {
  void stateChanged(Peer peer, ConnectionState state);
}
