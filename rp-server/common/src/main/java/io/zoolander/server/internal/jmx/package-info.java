/**
 * MBean plumbing shared by the plugin's and the repeater's consoles (registration under {@link
 * io.zoolander.server.jmx}'s names). <b>Internal</b>: not part of Zoolander's public API; its types
 * are public only for Zoolander's own modules and may change or disappear in any release.
 */
package io.zoolander.server.internal.jmx;
