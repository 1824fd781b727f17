/**
 * Security plumbing shared by the repeater and the plugin (TLS, authentication, ZooKeeper ACLs).
 * <b>Internal</b>: not part of Zoolander's public API; its types are public only for Zoolander's
 * own modules and may change or disappear in any release. Configure security through {@link
 * io.zoolander.server.security.PluginSecurity}.
 */
package io.zoolander.server.internal.security;
