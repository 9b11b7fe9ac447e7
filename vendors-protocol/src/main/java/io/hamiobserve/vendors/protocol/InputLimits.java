package io.hamiobserve.vendors.protocol;

/**
 * Bounds on what one node or pod may make the exporter hold, render or log, however it was
 * crafted: a tenant can put HAMi's annotations on its own pod, and a snapshot file is checked by
 * no API server. Each check adds a problem and leaves the part out.
 */
public final class InputLimits {
    /** An API server refuses objects whose annotations together exceed 256 KiB; longer is crafted. */
    public static final int MAX_ANNOTATION_CHARS = 256 * 1024;
    /** Kubernetes names (DNS subdomains), node names among them, are at most 253 characters. */
    public static final int MAX_NAME_CHARS = 253;
    /** Free text that becomes a label value: a card type, a MIG profile, a vendor field. */
    public static final int MAX_TEXT_CHARS = 256;
    /** A card UUID a device plugin writes: {@code GPU-…}, {@code MIG-…} are 40 to 44 characters. */
    public static final int MAX_UUID_CHARS = 128;
    /**
     * A card identity HAMi builds from a node's name ({@code <node>-cambricon-mlu-<i>}): the
     * longest node name and the longest suffix HAMi appends.
     */
    public static final int MAX_SYNTHESISED_ID_CHARS = MAX_NAME_CHARS + 32;
    /** Cards one node registers: no node holds this many. */
    public static final int MAX_CARDS_PER_NODE = 1024;
    /** Container positions one allocation annotation lists. */
    public static final int MAX_CONTAINERS = 1024;
    /** Devices one container position lists: a container is placed on one node's cards. */
    public static final int MAX_DEVICES_PER_CONTAINER = 128;
    /** Entries of one JSON list in a pod annotation (MIG instances). */
    public static final int MAX_ENTRIES = 1024;
    /** Kubernetes quantities are short ({@code 40Gi}, {@code 1e3}); a long one is crafted. */
    public static final int MAX_QUANTITY_CHARS = 64;

    private InputLimits() {
    }

    /** False, with a problem, when a value is longer than any API server would store. */
    public static boolean annotation(String value, String what, Problems problems) {
        if (value.length() > MAX_ANNOTATION_CHARS) {
            problems.add("too_long", what + " holds " + value.length() + " characters, more than the "
                    + MAX_ANNOTATION_CHARS + " an API server stores for all of an object's annotations");
            return false;
        }
        return true;
    }

    /** False, with a problem, when {@code id} (not blank) is not 1 to {@code max} characters of printable ASCII. */
    public static boolean uuid(String id, int max, String where, Problems problems) {
        if (id.length() > max) {
            problems.add("bad_uuid", where + ": UUID of " + id.length() + " characters");
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                problems.add("bad_uuid", where + ": UUID holds character U+" + String.format("%04X", (int) c)
                        + ": '" + id + "'");
                return false;
            }
        }
        return true;
    }

    /** False, with a problem, when {@code text} is longer than {@code max} characters. */
    public static boolean length(String text, int max, String field, String where, Problems problems) {
        if (text.length() > max) {
            problems.add("too_long", where + ": " + field + " of " + text.length() + " characters, more than " + max);
            return false;
        }
        return true;
    }
}
