package io.hamiobserve.console;

import io.hamiobserve.console.PageKit.Request;
import io.hamiobserve.console.PageKit.Result;
import io.hamiobserve.ports.SourceUnavailableException;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * One page of the console, declared in one place: the path it answers at (under the route
 * prefix), its name in the navigation (none for a page reached by a link, such as one card), and
 * what builds it. Routes, the navigation and every link to the page come from this declaration;
 * {@link ConsolePages} lists them.
 *
 * @param path       "/" or like "/cards"
 * @param navigation its name in the navigation, or empty
 * @param handler    builds the page's handler from what pages share
 */
record ConsolePage(String path, Optional<String> navigation, Function<PageContext, Handler> handler) {
    /** Builds one page, or one of its tables as a file, for a request. */
    interface Handler {
        Result build(Request request) throws SourceUnavailableException;
    }

    ConsolePage {
        Objects.requireNonNull(navigation);
        Objects.requireNonNull(handler);
        if (!path.equals("/") && !path.matches("/[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("a page's path is \"/\" or one lower-case segment: " + path);
        }
    }

    /** A page named in the navigation. */
    static ConsolePage listed(String path, String navigation, Function<PageContext, Handler> handler) {
        return new ConsolePage(path, Optional.of(navigation), handler);
    }

    /** A page reached by its links only. */
    static ConsolePage unlisted(String path, Function<PageContext, Handler> handler) {
        return new ConsolePage(path, Optional.empty(), handler);
    }

    /** Whether a request for {@code requested} is on this page or below it, for the navigation's highlight. */
    boolean covers(String requested) {
        return path.equals(requested) || (!path.equals("/") && requested.startsWith(path));
    }
}
