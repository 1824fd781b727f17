/**
 * Internal: the repeater's admission control (live service times, arrival rate, the model's verdict
 * and the integral controller that sets the admitted rate). Not a public API; configure it through
 * {@link io.zoolander.server.repeater.AdmissionSettings}.
 */
package io.zoolander.server.internal.repeater.admission;
