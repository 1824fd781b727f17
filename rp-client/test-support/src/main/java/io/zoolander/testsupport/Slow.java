package io.zoolander.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class or method that takes more than about 20 s (JUnit tag {@value #TAG}). The
 * default suite runs it; {@code mvn test -DexcludedGroups=slow} leaves it out for a quick round.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(Slow.TAG)
public @interface Slow {
  /** The JUnit tag. */
  String TAG = "slow";
}
