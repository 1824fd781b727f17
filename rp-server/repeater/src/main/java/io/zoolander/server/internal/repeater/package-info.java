/**
 * The repeater's implementation. {@link io.zoolander.server.internal.repeater.RepeaterCore} starts,
 * stops and answers for it; one thread, the sequencer loop, owns its parts, each with one job:
 * {@code Sequencer} (the seq counter, the {@link
 * io.zoolander.server.internal.repeater.RetransmissionLog} and its trim), {@code FrameRun} (the
 * encoded frames of a handoff), {@code ClientFlow} (pausing clients), {@code Transfers} (state
 * transfers), one {@code DuplicateLink} per duplicate (its plugin connection, which sees the
 * repeater through {@code LinkHost}, implemented by {@code DuplicateLinks}); {@code NettyRuntime}
 * holds the event loops and channels, {@code EpochClaim} claims the epoch and recovers at start,
 * {@code Notifier} calls the listener on a thread of its own, and one {@code ClientHandler} serves
 * each client connection on the client I/O threads. Internal: not part of the public API; use
 * {@link io.zoolander.server.repeater.Repeater}.
 */
package io.zoolander.server.internal.repeater;
