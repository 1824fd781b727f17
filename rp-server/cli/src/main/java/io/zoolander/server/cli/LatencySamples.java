package io.zoolander.server.cli;

import io.zoolander.model.EmpiricalLatency;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * Reads a latency sample file: one value in milliseconds per line ({@code #} comments and blank
 * lines skipped), or an HdrHistogram log (recognised by its {@code #[Histogram log format version}
 * header) whose values are in {@code unitsPerMs} units per millisecond.
 */
final class LatencySamples {
  private LatencySamples() {}

  static EmpiricalLatency read(Path file, double unitsPerMs) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new CliException("sample file " + file + " does not exist");
    } catch (IOException e) {
      throw new CliException("cannot read sample file " + file + ": " + e.getMessage());
    }
    if (!lines.isEmpty() && lines.get(0).startsWith("#[Histogram log format")) {
      return readHistogramLog(file, unitsPerMs);
    }
    double[] samples = new double[lines.size()];
    int count = 0;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      double value;
      try {
        value = Double.parseDouble(line);
      } catch (NumberFormatException e) {
        throw new CliException(file + " line " + (i + 1) + ": not a latency in ms: '" + line + "'");
      }
      if (!(value >= 0) || Double.isInfinite(value)) {
        throw new CliException(
            file + " line " + (i + 1) + ": a latency must be a finite number >= 0, was " + line);
      }
      samples[count++] = value;
    }
    if (count == 0) {
      throw new CliException("sample file " + file + " holds no latency values");
    }
    return EmpiricalLatency.of(Arrays.copyOf(samples, count));
  }

  private static EmpiricalLatency readHistogramLog(Path file, double unitsPerMs) {
    Histogram total = new Histogram(3);
    try (HistogramLogReader reader = new HistogramLogReader(file.toFile())) {
      EncodableHistogram interval;
      while ((interval = reader.nextIntervalHistogram()) != null) {
        if (interval instanceof Histogram histogram) {
          total.add(histogram);
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new CliException("cannot read HdrHistogram log " + file + ": " + e.getMessage());
    }
    if (total.getTotalCount() == 0) {
      throw new CliException("HdrHistogram log " + file + " holds no recorded values");
    }
    return EmpiricalLatency.of(total, unitsPerMs);
  }
}
