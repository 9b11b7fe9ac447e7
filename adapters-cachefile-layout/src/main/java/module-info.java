/**
 * Where every field of HAMi-Core's per-container cache file lives, for each format in the field:
 * stated once, for the reader (the cache-file adapter) and the writer (the testkit). A module of
 * its own so that the writer, which no image holds, needs nothing of the reader, and the reader's
 * tests can use the writer.
 */
module io.hamiobserve.adapters.cachefile.layout {
    exports io.hamiobserve.adapters.cachefile.layout;
}
