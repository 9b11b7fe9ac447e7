package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * An informer store that keeps only the identity of each object (namespace, name, UID,
 * resourceVersion): enough for the informer to detect changes and to emit deletes after a
 * relist, while the full object is mapped to the domain by the event handler and dropped.
 *
 * <p>It declares itself not to hold full state, so the informer hands the full object to
 * {@code onAdd} instead of reading it back from here. Resync events carry the lean copies.
 */
final class LeanStore<T extends HasMetadata> implements ItemStore<T> {
    private final Map<String, T> items = new ConcurrentHashMap<>();
    private final Supplier<T> blank;

    LeanStore(Supplier<T> blank) {
        this.blank = blank;
    }

    @Override
    public String getKey(T item) {
        return Cache.metaNamespaceKeyFunc(item);
    }

    @Override
    public T put(String key, T item) {
        return items.put(key, lean(item));
    }

    private T lean(T item) {
        ObjectMeta source = item.getMetadata();
        ObjectMeta meta = new ObjectMeta();
        meta.setName(source.getName());
        meta.setNamespace(source.getNamespace());
        meta.setUid(source.getUid());
        meta.setResourceVersion(source.getResourceVersion());
        T copy = blank.get();
        copy.setMetadata(meta);
        return copy;
    }

    /**
     * Whether {@code item} is this store's own lean copy: fabric8 replays the stored items as adds
     * to an event handler added to an informer that restarts on this store, and a lean copy
     * mapped as if it were the object would drop its annotations from the ledger.
     */
    boolean isLeanCopy(T item) {
        return item != null && item.getMetadata() != null && items.get(getKey(item)) == item;
    }

    /**
     * Forgets every stored resourceVersion, so that the next list delivers each object as an
     * update even where a restarted API server reuses version numbers.
     */
    void forgetVersions() {
        items.values().forEach(item -> item.getMetadata().setResourceVersion(null));
    }

    @Override
    public T remove(String key) {
        return items.remove(key);
    }

    @Override
    public Stream<String> keySet() {
        return items.keySet().stream();
    }

    @Override
    public Stream<T> values() {
        return items.values().stream();
    }

    @Override
    public int size() {
        return items.size();
    }

    @Override
    public T get(String key) {
        return items.get(key);
    }

    @Override
    public boolean isFullState() {
        return false;
    }
}
