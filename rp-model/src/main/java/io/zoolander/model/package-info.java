/**
 * The Zoolander model: predicts the SLA (fraction of accesses completing within a bound tau) that
 * replication for predictability buys, and plans how to spend nodes. Pure Java on commons-math3; no
 * I/O. See {@code docs/model.md}.
 */
package io.zoolander.model;
