package io.zoolander.client;

/**
 * Told about every reply from every duplicate, including the losing ones the client otherwise
 * drops. Called on the client's I/O thread: it must be quick and must not block.
 */
@FunctionalInterface
public interface ReplyListener {
  void replied(ReplyEvent event);
}
