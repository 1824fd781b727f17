/**
 * Implementation of the wire protocol: the frame codec and the Netty handlers that {@link
 * io.zoolander.wire.WirePipeline} installs. <b>Internal</b>: not part of Zoolander's public API;
 * anything here may change or disappear in any release.
 */
package io.zoolander.wire.internal;
