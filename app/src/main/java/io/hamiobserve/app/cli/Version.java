package io.hamiobserve.app.cli;

import io.hamiobserve.app.metrics.BuildInfo;
import picocli.CommandLine.IVersionProvider;

/** {@code --version}: what {@code hami_build_info} says. */
public final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
        BuildInfo build = BuildInfo.current();
        return new String[] {"hami-observe " + build.version() + " (revision " + build.revision() + ", built "
                + build.buildDate() + ", " + build.runtimeVersion() + ", " + build.platform() + ")"};
    }
}
