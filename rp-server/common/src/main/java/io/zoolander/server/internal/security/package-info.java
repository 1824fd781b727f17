/**
 * Security plumbing shared by the repeater and the plugin (TLS, authentication, ZooKeeper ACLs).
 * Internal.
 */
package io.zoolander.server.internal.security;
