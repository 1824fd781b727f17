/** The MBean implementations behind {@link io.zoolander.server.jmx}. Internal. */
package io.zoolander.server.internal.jmx;
