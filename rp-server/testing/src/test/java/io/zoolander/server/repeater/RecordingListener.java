package io.zoolander.server.repeater;

import io.zoolander.wire.ErrorCode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Records what the repeater reports. */
final class RecordingListener implements RepeaterListener {
  final List<DuplicateView> changes = Collections.synchronizedList(new ArrayList<>());
  final List<String> fenced = Collections.synchronizedList(new ArrayList<>());
  final List<String> deposed = Collections.synchronizedList(new ArrayList<>());
  final List<String> pluginErrors = Collections.synchronizedList(new ArrayList<>());
  final List<Rejoin> rejoins = Collections.synchronizedList(new ArrayList<>());
  final List<String> rejoinFailures = Collections.synchronizedList(new ArrayList<>());

  @Override
  public void duplicateRejoined(Rejoin rejoin) {
    rejoins.add(rejoin);
  }

  @Override
  public void rejoinFailed(int duplicateId, String reason) {
    rejoinFailures.add(duplicateId + ": " + reason);
  }

  @Override
  public void duplicateChanged(DuplicateView duplicate) {
    changes.add(duplicate);
  }

  @Override
  public void duplicateFenced(DuplicateView duplicate, String reason) {
    fenced.add(duplicate.id() + ": " + reason);
  }

  @Override
  public void deposed(int duplicateId, String reason) {
    deposed.add(duplicateId + ": " + reason);
  }

  @Override
  public void pluginError(int duplicateId, ErrorCode code, String message) {
    pluginErrors.add(duplicateId + ": " + code + " " + message);
  }

  @Override
  public String toString() {
    return "fenced "
        + fenced
        + ", deposed "
        + deposed
        + ", plugin errors "
        + pluginErrors
        + ", rejoins "
        + rejoins
        + ", failed rejoins "
        + rejoinFailures;
  }
}
