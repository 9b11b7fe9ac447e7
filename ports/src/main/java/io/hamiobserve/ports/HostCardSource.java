package io.hamiobserve.ports;

import io.hamiobserve.domain.HostCardReading;

import java.util.List;

/**
 * Where whole-card readings come from (the driver). A card or field that cannot be read is left
 * out and reported; a source that cannot read anything (no driver) throws
 * {@link SourceUnavailableException} so the health series can say so.
 */
public interface HostCardSource extends AutoCloseable {
    /** Reads every card now. */
    List<HostCardReading> read(SkipReporter skips) throws SourceUnavailableException;

    /** Releases the driver. Called once at exit, not per scrape. */
    @Override
    void close();
}
