/**
 * The tools' commands, {@code zoolander demo} and {@code zoolander bench}, and the entry point of
 * the runnable jar that bundles them with the operator's commands. Never deployed: the Docker
 * images carry the slim server jar.
 */
package io.zoolander.server.tools;
