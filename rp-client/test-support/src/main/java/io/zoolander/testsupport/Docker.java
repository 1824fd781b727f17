package io.zoolander.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class or method that needs Docker (Testcontainers; JUnit tag {@value #TAG}). The
 * default suite runs it (and it skips itself without Docker); {@code mvn test
 * -DexcludedGroups=docker} leaves it out.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(Docker.TAG)
public @interface Docker {
  /** The JUnit tag. */
  String TAG = "docker";
}
