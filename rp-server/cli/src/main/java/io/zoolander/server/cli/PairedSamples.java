package io.zoolander.server.cli;

import io.zoolander.model.EmpiricalLatency;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Paired per-duplicate latencies read from a CSV file: one row per access, one column per duplicate
 * (ms), as a client that records every duplicate's reply gets them. Comma-separated; blank lines
 * and lines starting with {@code #} are skipped; a first row whose cells are all non-numeric is a
 * header (the duplicates' names). Every error names the line and, where it is about one cell, the
 * column.
 */
final class PairedSamples {
  private final List<String> columnNames;
  private final double[][] rowsMs;

  private PairedSamples(List<String> columnNames, double[][] rowsMs) {
    this.columnNames = List.copyOf(columnNames);
    this.rowsMs = rowsMs;
  }

  /** The header's names, or {@code dup1..dupM} without one. */
  List<String> columnNames() {
    return columnNames;
  }

  /** The latencies, {@code [access][duplicate]}, ms (not copied: do not modify). */
  double[][] rowsMs() {
    return rowsMs;
  }

  /** {@code M}, the measured duplicates. */
  int columns() {
    return columnNames.size();
  }

  /** Accesses measured. */
  int rows() {
    return rowsMs.length;
  }

  /** Every duplicate's latencies pooled: the service time of one duplicate. */
  EmpiricalLatency pooled() {
    double[] all = new double[rows() * columns()];
    int i = 0;
    for (double[] row : rowsMs) {
      for (double v : row) {
        all[i++] = v;
      }
    }
    return EmpiricalLatency.of(all);
  }

  /**
   * Reads {@code file}.
   *
   * @throws CliException if it cannot be read or is not such a CSV (naming the line and column)
   */
  static PairedSamples read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new CliException("paired-samples file " + file + " does not exist");
    } catch (IOException e) {
      throw new CliException("cannot read paired-samples file " + file + ": " + e.getMessage());
    }
    List<String> names = null;
    int headerLine = 0;
    List<double[]> rows = new ArrayList<>();
    int firstRowLine = 0;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int lineNumber = i + 1;
      String[] cells = line.split(",", -1);
      if (names == null && rows.isEmpty() && headerLine == 0 && allNonNumeric(cells)) {
        names = new ArrayList<>();
        for (String cell : cells) {
          names.add(cell.strip());
        }
        headerLine = lineNumber;
        continue;
      }
      int expected =
          names != null ? names.size() : rows.isEmpty() ? cells.length : rows.get(0).length;
      if (cells.length < 2) {
        throw new CliException(
            where(file, lineNumber)
                + ": one column; give one column per duplicate, separated by commas (at least 2)");
      }
      if (cells.length != expected) {
        throw new CliException(
            where(file, lineNumber)
                + ": "
                + cells.length
                + " columns, expected "
                + expected
                + " as on line "
                + (names != null ? headerLine : firstRowLine));
      }
      double[] row = new double[cells.length];
      for (int c = 0; c < cells.length; c++) {
        row[c] = latency(file, lineNumber, c + 1, cells[c].strip());
      }
      if (rows.isEmpty()) {
        firstRowLine = lineNumber;
      }
      rows.add(row);
    }
    if (rows.isEmpty()) {
      throw new CliException("paired-samples file " + file + " holds no rows of latencies");
    }
    int m = rows.get(0).length;
    if (names == null) {
      names = new ArrayList<>();
      for (int c = 1; c <= m; c++) {
        names.add("dup" + c);
      }
    }
    return new PairedSamples(names, rows.toArray(double[][]::new));
  }

  private static double latency(Path file, int line, int column, String cell) {
    if (cell.isEmpty()) {
      throw new CliException(where(file, line) + ", column " + column + ": empty");
    }
    double value;
    try {
      value = Double.parseDouble(cell);
    } catch (NumberFormatException e) {
      throw new CliException(
          where(file, line) + ", column " + column + ": not a latency in ms: '" + cell + "'");
    }
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw new CliException(
          where(file, line)
              + ", column "
              + column
              + ": a latency must be a finite number >= 0, was "
              + cell);
    }
    return value;
  }

  private static boolean allNonNumeric(String[] cells) {
    return Arrays.stream(cells).map(String::strip).noneMatch(PairedSamples::isNumber);
  }

  private static boolean isNumber(String cell) {
    try {
      Double.parseDouble(cell);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String where(Path file, int line) {
    return file + " line " + line;
  }
}
