package io.hamiobserve.adapters.cachefile;

/**
 * A read file: either its content, or why it was rejected as a whole.
 *
 * @param content  the file's content; null when rejected
 * @param reason   why it was rejected (a file skip); null when read
 * @param detail   what exactly was wrong, in words, when rejected
*/
record ReadResult(CacheFileContent content, Skips.Reason reason, String detail) {
    static ReadResult of(CacheFileContent content) {
        return new ReadResult(content, null, null);
    }

    static ReadResult rejected(Skips.Reason reason, String detail) {
        return new ReadResult(null, reason, detail);
    }

    boolean ok() {
        return content != null;
    }
}
