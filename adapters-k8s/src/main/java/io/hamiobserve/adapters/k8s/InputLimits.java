package io.hamiobserve.adapters.k8s;

import io.hamiobserve.adapters.k8s.Skips.Reason;

import io.hamiobserve.ports.spi.DeviceVendor.Problem;

import java.util.Optional;

/**
 * Bounds on what the adapter accepts from a Kubernetes object, so that no object, however it was
 * crafted, makes the exporter hold, render or log an unbounded amount. A tenant can put HAMi's
 * annotations and label on its own pod; a snapshot file is not checked by any API server.
 */
final class InputLimits {
    /** An API server refuses objects whose annotations together exceed 256 KiB; longer is crafted. */
    static final int MAX_ANNOTATION_CHARS = 256 * 1024;
    /** Kubernetes names (DNS subdomains) are at most 253 characters; so are identities and container names here. */
    static final int MAX_NAME_CHARS = 253;
    /** Free text that becomes a label value: a card type, a MIG profile, a vendor field. */
    static final int MAX_TEXT_CHARS = 256;
    /** A card or MIG UUID: {@code GPU-…} and {@code MIG-…} are 40 to 44 characters of printable ASCII. */
    static final int MAX_UUID_CHARS = 128;
    /** Cards one node registers: no node holds this many. */
    static final int MAX_CARDS_PER_NODE = 1024;
    /** Container positions one allocation annotation lists. */
    static final int MAX_CONTAINERS = 1024;
    /** Devices one container position lists: a container is placed on one node's cards. */
    static final int MAX_DEVICES_PER_CONTAINER = 128;
    /** Entries of one MIG allocation annotation. */
    static final int MAX_MIG_INSTANCES = 1024;

    private InputLimits() {
    }

    /** A problem when an annotation value is longer than any API server would store. */
    static Optional<Problem> annotation(String key, String value) {
        if (value.length() > MAX_ANNOTATION_CHARS) {
            return Optional.of(Reason.TOO_LONG.problem(key + " holds " + value.length() + " characters, more than the "
                    + MAX_ANNOTATION_CHARS + " an API server stores for all of an object's annotations"));
        }
        return Optional.empty();
    }

    /** A problem when {@code uuid} (not blank) is not 1 to 128 characters of printable ASCII. */
    static Optional<Problem> uuid(String uuid, String where) {
        if (uuid.length() > MAX_UUID_CHARS) {
            return Optional.of(Reason.BAD_UUID.problem(where + ": UUID of " + uuid.length() + " characters"));
        }
        for (int i = 0; i < uuid.length(); i++) {
            char c = uuid.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                return Optional.of(Reason.BAD_UUID.problem(where + ": UUID holds character U+"
                        + String.format("%04X", (int) c) + ": '" + uuid + "'"));
            }
        }
        return Optional.empty();
    }

    /** A problem when {@code text} is longer than {@code max} characters. */
    static Optional<Problem> length(String text, int max, String field, String where) {
        if (text.length() > max) {
            return Optional.of(Reason.TOO_LONG.problem(where + ": " + field + " of " + text.length()
                    + " characters, more than " + max));
        }
        return Optional.empty();
    }
}
