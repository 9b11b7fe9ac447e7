/**
 * The files an operator writes for hami-observe (the web config, the query backend's http_config,
 * price lists): read only when they are small regular files, parsed strictly, every refusal one
 * line that names the file and the key at fault. Used by the HTTP edge and by adapters; it knows
 * no role, port or domain type.
 */
module io.hamiobserve.configfiles {
    // StrictYaml hands out Jackson's JsonNode: its users read the tree with it.
    requires transitive tools.jackson.databind;
    requires tools.jackson.core;
    requires tools.jackson.dataformat.yaml;
    requires org.snakeyaml.engine;

    exports io.hamiobserve.configfiles;
}
