package io.hamiobserve.ports;

/**
 * A source cannot deliver anything right now (library missing, driver not loaded, no access).
 * The message says why, in words an operator can act on.
 */
public class SourceUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    public SourceUnavailableException(String message) {
        super(message);
    }

    public SourceUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
