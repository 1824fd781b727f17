/**
 * The repeater's controller that follows the load: {@link
 * io.zoolander.server.internal.repeater.control.LoadPolicy} (its rules, pure) and {@link
 * io.zoolander.server.internal.repeater.control.LoadController} (its period, changes, logs and
 * meters). Internal: configure it with {@link io.zoolander.server.repeater.ControllerSettings}.
 */
package io.zoolander.server.internal.repeater.control;
