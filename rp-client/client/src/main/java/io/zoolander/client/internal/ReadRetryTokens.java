package io.zoolander.client.internal;

import io.zoolander.client.RetryBudget;
import io.zoolander.wire.Ticker;

/**
 * The token bucket behind {@link RetryBudget}'s read retries. Internal; confined to the client's
 * event loop.
 */
final class ReadRetryTokens {
  private final RetryBudget budget;
  private final Ticker ticker;
  private double tokens;
  private long earnedNanos;

  ReadRetryTokens(RetryBudget budget, Ticker ticker) {
    this.budget = budget;
    this.ticker = ticker;
    this.tokens = Math.min(budget.maxReadRetryTokens(), Math.max(1, budget.minReadRetriesPerSec()));
    this.earnedNanos = ticker.nanoTime();
  }

  /** A read was started: it deposits its share. */
  void deposit() {
    tokens = Math.min(budget.maxReadRetryTokens(), tokens + budget.readRetryRatio());
  }

  /** Takes a token for one retry; false if there is none (the retry must not be sent). */
  boolean tryRetry() {
    long now = ticker.nanoTime();
    tokens =
        Math.min(
            budget.maxReadRetryTokens(),
            tokens + (now - earnedNanos) * budget.minReadRetriesPerSec() / 1e9);
    earnedNanos = now;
    if (tokens < 1) {
      return false;
    }
    tokens -= 1;
    return true;
  }

  double tokens() {
    return tokens;
  }
}
