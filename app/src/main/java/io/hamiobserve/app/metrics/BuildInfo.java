package io.hamiobserve.app.metrics;

import io.hamiobserve.exposition.MetricFamily;
import io.hamiobserve.exposition.Families;

/**
 * What {@code hami_build_info} reports. HAMi's labels are kept; this Java build fills
 * {@code go_version} with the Java runtime version (e.g. {@code java25.0.3}) and {@code compiler}
 * with {@code javac}, so dashboards grouping by those labels still work.
 */
public record BuildInfo(String version, String revision, String buildDate, String runtimeVersion,
                        String compiler, String platform) {

    static final MetricFamily BUILD_INFO = new MetricFamily("hami_build_info",
            "hami build metadata exposed as labels with a constant value of 1.", MetricFamily.Type.GAUGE, false,
            java.util.List.of("version", "revision", "build_date", "go_version", "compiler", "platform"));

    /** Reads the running build: version and revision from the jar's manifest when present. */
    public static BuildInfo current() {
        Package appPackage = BuildInfo.class.getPackage();
        String version = appPackage.getImplementationVersion();
        return new BuildInfo(version == null ? "dev" : version, System.getProperty("hami.revision", "unknown"),
                System.getProperty("hami.buildDate", "unknown"), "java" + Runtime.version(), "javac",
                System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT) + "/" + System.getProperty("os.arch"));
    }

    void addTo(Families families) {
        families.of(BUILD_INFO).add(1, version, revision, buildDate, runtimeVersion, compiler, platform);
    }
}
