package io.zoolander.model.internal;

import java.util.SplittableRandom;
import org.apache.commons.math3.random.RandomGenerator;

/**
 * A commons-math3 {@link RandomGenerator} backed by {@link SplittableRandom} (SplitMix64): several
 * times faster than {@code Well19937c} (about 1 ns per double), passes BigCrush, and {@link
 * #split()} gives statistically independent streams, one per random source of a simulation.
 * Deterministic for a given seed on a given JDK ({@link #nextGaussian} uses the JDK's algorithm).
 * Not thread-safe. Internal: not part of the public API.
 */
public final class SplittableRandomGenerator implements RandomGenerator {
  private SplittableRandom random;

  public SplittableRandomGenerator(long seed) {
    this.random = new SplittableRandom(seed);
  }

  private SplittableRandomGenerator(SplittableRandom random) {
    this.random = random;
  }

  /** A new generator, independent of this one, whose draws are determined by this one's state. */
  public SplittableRandomGenerator split() {
    return new SplittableRandomGenerator(random.split());
  }

  @Override
  public void setSeed(int seed) {
    random = new SplittableRandom(seed);
  }

  @Override
  public void setSeed(int[] seed) {
    long combined = 0;
    for (int s : seed) {
      combined = combined * 0x9E3779B97F4A7C15L + s;
    }
    random = new SplittableRandom(combined);
  }

  @Override
  public void setSeed(long seed) {
    random = new SplittableRandom(seed);
  }

  @Override
  public void nextBytes(byte[] bytes) {
    random.nextBytes(bytes);
  }

  @Override
  public int nextInt() {
    return random.nextInt();
  }

  @Override
  public int nextInt(int n) {
    return random.nextInt(n);
  }

  @Override
  public long nextLong() {
    return random.nextLong();
  }

  @Override
  public boolean nextBoolean() {
    return random.nextBoolean();
  }

  @Override
  public float nextFloat() {
    return random.nextFloat();
  }

  @Override
  public double nextDouble() {
    return random.nextDouble();
  }

  @Override
  public double nextGaussian() {
    return random.nextGaussian();
  }
}
