/**
 * The JMX console: Zoolander's MBeans (domain {@value
 * io.zoolander.server.jmx.ZoolanderJmx#DOMAIN}), its meter names and the remote JMX connector.
 * JConsole or any JMX client is the console; every attribute and operation uses open types, so a
 * client needs none of Zoolander's classes. {@code docs/operations.md} ("JMX console") is the
 * reference.
 */
package io.zoolander.server.jmx;
