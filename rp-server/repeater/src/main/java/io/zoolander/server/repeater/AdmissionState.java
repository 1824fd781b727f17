package io.zoolander.server.repeater;

/**
 * A read-only snapshot of the repeater's admission control, as of its last control period ({@link
 * Repeater#admission()}).
 *
 * @param targetSla the target SLA at tau now in force
 * @param tauMs the SLA's bound now in force, in milliseconds
 * @param limiting whether new writes are rate limited (and the excess shed)
 * @param rateLimitPerSec the admitted rate limit in writes per second; {@link
 *     Double#POSITIVE_INFINITY} when not limiting
 * @param offeredRatePerSec WRITEs arriving per second over the rate window, admitted or shed
 * @param admittedRatePerSec WRITEs admitted per second over the rate window
 * @param observedSla fraction of the writes first acknowledged in the SLA window within tau; NaN
 *     without any
 * @param predictedSla the model's SLA at the offered rate; NaN until it has enough service-time
 *     samples
 * @param modelMaxRatePerSec the model's highest rate that keeps the target; NaN until it has enough
 *     samples
 * @param admitted WRITEs admitted since start
 * @param shed WRITEs shed (refused with OVERLOADED) since start
 * @param lastDecision why the last control period set the limit it did, in words
 */
public record AdmissionState(
    double targetSla,
    double tauMs,
    boolean limiting,
    double rateLimitPerSec,
    double offeredRatePerSec,
    double admittedRatePerSec,
    double observedSla,
    double predictedSla,
    double modelMaxRatePerSec,
    long admitted,
    long shed,
    String lastDecision) {}
