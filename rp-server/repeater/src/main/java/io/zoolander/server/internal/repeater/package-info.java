/**
 * The repeater's implementation: {@link io.zoolander.server.internal.repeater.RepeaterCore}
 * (threads, sequencing, back-pressure), {@link
 * io.zoolander.server.internal.repeater.RetransmissionLog} (the log and the fencing decisions), one
 * {@code DuplicateLink} per duplicate and one {@code ClientHandler} per client connection.
 * Internal: not part of the public API; use {@link io.zoolander.server.repeater.Repeater}.
 */
package io.zoolander.server.internal.repeater;
