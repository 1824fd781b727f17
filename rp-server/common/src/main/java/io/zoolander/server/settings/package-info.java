/**
 * Settings as descriptors, owned by the component that reads them and validated when it is built,
 * wherever it is started from (as Aeron's {@code Context.conclude()}).
 *
 * <p>A {@link io.zoolander.server.settings.Setting} describes one key: its name, its type (how a
 * value is parsed), its default (a value, and the text the help and {@code docs/operations.md}
 * show), its allowed range, its unit and a one-line doc. A component lists its settings in a {@link
 * io.zoolander.server.settings.SettingSet} under its key prefix; the set tells an unknown key from
 * a known one and suggests the nearest known key for a misspelled one ({@code did you mean
 * zoolander.plugin.port?}, by edit distance), and parses a map of entries into {@link
 * io.zoolander.server.settings.SettingValues}. Every problem is a {@link
 * io.zoolander.server.settings.SettingException} whose message names the key: {@code clientPort:
 * must be in 0..65535, was 70000}.
 *
 * <p>Who owns what: the repeater's file ({@code io.zoolander.server.repeater.RepeaterKeys}, {@code
 * AdmissionKeys}), the plugin's zoo.cfg entries ({@code io.zoolander.server.plugin.PluginKeys}),
 * the launcher's ({@code io.zoolander.server.ZoolanderPeerMain#settings()}) and the security
 * entries ({@link io.zoolander.server.security.PluginSecurity#SETTINGS}). The {@code zoolander}
 * command only reads files and prints its help from these descriptors; the documentation check
 * compares {@code docs/operations.md}'s tables with them.
 *
 * <pre>{@code
 * Setting<Long> PORT = Setting.integer("zoolander.plugin.port")
 *     .defaultValue(0L).range(0L, 65_535L).doc("Port the plugin binds; 0 picks a free one.").build();
 * SettingSet set = SettingSet.of("zoolander.", List.of(PORT));
 * long port = set.parse(Map.of("zoolander.plugin.port", "7001")).get(PORT);
 * set.parse(Map.of("zoolander.plugin.prot", "7001"));
 * // SettingException: unknown key zoolander.plugin.prot (did you mean zoolander.plugin.port?)
 * }</pre>
 */
package io.zoolander.server.settings;
