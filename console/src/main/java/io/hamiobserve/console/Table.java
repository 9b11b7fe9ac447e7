package io.hamiobserve.console;

import io.hamiobserve.console.view.Link;
import io.hamiobserve.console.view.TableView;
import io.hamiobserve.domain.fleet.Measure;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A table of rows of one type: its columns, and how a request sorts, filters, pages and exports
 * it. The state lives in the URL under the table's id ({@code workloads.sort=memory_used},
 * {@code workloads.dir=desc}, {@code workloads.q=ml-team}, {@code workloads.page=2}), so several
 * tables on one page keep theirs apart, and every view can be bookmarked.
 *
 * @param id          the table's name in URLs and export file names
 * @param defaultSort the column sorted by when the URL says nothing, and its direction
 */
record Table<R>(String id, String title, List<Column<R>> columns, String defaultSort, boolean defaultDescending) {
    static final int PAGE_SIZE = 50;
    static final int MAX_PAGE_SIZE = 1000;
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    /**
     * A column.
     *
     * @param key     the name in URLs and exports
     * @param href    the link of a row's cell, or null for none
     * @param measure the measure whose query the figures come from, or null
     * @param help    a line explaining the column (its header's tooltip)
     */
    record Column<R>(String key, String title, Function<R, Value> value, Function<R, String> href, Measure measure,
                     String help) {
        Column<R> linked(Function<R, String> link) {
            return new Column<>(key, title, value, link, measure, help);
        }

        Column<R> from(Measure source) {
            return new Column<>(key, title, value, href, source, help);
        }

        Column<R> explained(String text) {
            return new Column<>(key, title, value, href, measure, text);
        }
    }

    static <R> Column<R> column(String key, String title, Function<R, Value> value) {
        return new Column<>(key, title, value, null, null, "");
    }

    /** This table without its column {@code key}, the same otherwise. */
    Table<R> without(String key) {
        return new Table<>(id, title, columns.stream().filter(column -> !column.key().equals(key)).toList(),
                defaultSort, defaultDescending);
    }

    /** What a request asks of a table: read from the URL's parameters under the table's id. */
    record View(String sort, boolean descending, String filter, int page, int size) {
        static View of(Map<String, String> parameters, String id, String defaultSort, boolean defaultDescending) {
            String sort = parameters.getOrDefault(id + ".sort", defaultSort);
            String dir = parameters.get(id + ".dir");
            boolean descending = dir == null ? sort.equals(defaultSort) && defaultDescending : dir.equals("desc");
            return new View(sort, descending, parameters.getOrDefault(id + ".q", "").trim(),
                    whole(parameters.get(id + ".page"), 1, 1, Integer.MAX_VALUE),
                    whole(parameters.get(id + ".size"), PAGE_SIZE, 1, MAX_PAGE_SIZE));
        }

        private static int whole(String text, int fallback, int min, int max) {
            if (text == null) {
                return fallback;
            }
            try {
                return Math.max(min, Math.min(max, Integer.parseInt(text.trim())));
            } catch (NumberFormatException notNumber) {
                return fallback;
            }
        }
    }

    /** The rows the view keeps (filter), in its order (sort); every one of them, not just a page. */
    List<R> select(List<R> rows, View view) {
        Column<R> sortBy = columns.stream().filter(column -> column.key().equals(view.sort())).findFirst()
                .orElse(columns.stream().filter(column -> column.key().equals(defaultSort)).findFirst()
                        .orElse(columns.getFirst()));
        String needle = view.filter().toLowerCase(Locale.ROOT);
        List<Row<R>> kept = new ArrayList<>();
        for (R row : rows) {
            // Every cell is worked out only to filter: a page of 30,000 rows and a dozen columns
            // unfiltered needs just the sort key of each.
            if (!needle.isEmpty() && columns.stream().noneMatch(column ->
                    column.value().apply(row).display().toLowerCase(Locale.ROOT).contains(needle))) {
                continue;
            }
            kept.add(new Row<>(row, sortBy.value().apply(row)));
        }
        boolean descending = sortBy.key().equals(view.sort()) ? view.descending() : defaultDescending;
        Comparator<Value> order = descending ? Value.ORDER.reversed() : Value.ORDER;
        kept.sort((a, b) -> {
            boolean aMissing = a.key().missing() != null;
            boolean bMissing = b.key().missing() != null;
            if (aMissing || bMissing) {
                return Boolean.compare(aMissing, bMissing);
            }
            return order.compare(a.key(), b.key());
        });
        return kept.stream().map(Row::row).toList();
    }

    private record Row<R>(R row, Value key) {
    }

    /**
     * The table as the page shows it.
     *
     * @param path       the page's path, for the sort, filter and paging links
     * @param parameters the request's parameters (kept in every link)
     * @param queries    each measure's query anchor on the page
     */
    TableView view(List<R> rows, Map<String, String> parameters, Links links, String path,
                   Map<Measure, String> queries, String caption, String empty) {
        View view = View.of(parameters, id, defaultSort, defaultDescending);
        List<R> selected = select(rows, view);
        int pages = Math.max(1, (selected.size() + view.size() - 1) / view.size());
        int page = Math.min(view.page(), pages);
        List<R> shown = selected.subList((page - 1) * view.size(), Math.min(selected.size(), page * view.size()));

        List<TableView.Header> headers = new ArrayList<>();
        boolean[] numeric = new boolean[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            Column<R> column = columns.get(i);
            boolean current = column.key().equals(view.sort());
            Map<String, String> sort = new LinkedHashMap<>(parameters);
            sort.put(id + ".sort", column.key());
            sort.put(id + ".dir", current && !view.descending() ? "desc" : "asc");
            sort.remove(id + ".page");
            numeric[i] = !rows.isEmpty() && column.value().apply(rows.getFirst()).numeric();
            headers.add(new TableView.Header(column.title(), links.to(path, sort),
                    current ? (view.descending() ? "desc" : "asc") : "", numeric[i],
                    column.measure() == null ? null : queries.get(column.measure()), column.help()));
        }
        Set<String> reasons = new LinkedHashSet<>();
        List<TableView.Row> viewRows = new ArrayList<>();
        for (R row : shown) {
            List<TableView.Cell> cells = new ArrayList<>();
            for (Column<R> column : columns) {
                Value value = column.value().apply(row);
                String missing = value.missing();
                if (missing != null) {
                    reasons.add(missing);
                }
                String href = column.href() == null ? null : column.href().apply(row);
                cells.add(new TableView.Cell(value.display(), href, missing != null ? missing : title(value),
                        value.css(), value instanceof Value.Bar bar ? bar.bar() : null));
            }
            viewRows.add(new TableView.Row(cells));
        }
        Map<String, String> others = new LinkedHashMap<>(parameters);
        others.keySet().removeIf(key -> key.startsWith(id + ".") || key.equals("export"));
        List<TableView.Hidden> hidden = others.entrySet().stream()
                .map(entry -> new TableView.Hidden(entry.getKey(), entry.getValue())).toList();
        hidden = new ArrayList<>(hidden);
        hidden.add(new TableView.Hidden(id + ".sort", view.sort()));
        hidden.add(new TableView.Hidden(id + ".dir", view.descending() ? "desc" : "asc"));
        Map<String, String> exportParameters = new LinkedHashMap<>(parameters);
        exportParameters.remove(id + ".page");
        exportParameters.put("export", id + ".csv");
        String csv = links.to(path, exportParameters);
        exportParameters.put("export", id + ".json");
        String json = links.to(path, exportParameters);
        return new TableView(id, title, caption, headers, viewRows, rows.size(), selected.size(), page, pages,
                view.filter(), links.to(path, Map.of()), hidden, csv, json, pageLink(parameters, links, path, page - 1, pages, "previous"),
                pageLink(parameters, links, path, page + 1, pages, "next"),
                reasons.stream().toList(), empty);
    }

    private static String title(Value value) {
        return value instanceof Value.Text text && text.text().length() > 24 ? text.text() : "";
    }

    private Link pageLink(Map<String, String> parameters, Links links, String path, int page, int pages, String text) {
        if (page < 1 || page > pages) {
            return null;
        }
        Map<String, String> next = new LinkedHashMap<>(parameters);
        next.put(id + ".page", Integer.toString(page));
        return new Link(text, links.to(path, next), false);
    }

    /**
     * Every selected row (not only a page) as CSV: raw numbers (bytes, fractions), empty when
     * missing. A text cell that a spreadsheet would read as a formula (it starts with =, +, -, @,
     * a tab or a carriage return: a card model or label value like {@code =HYPERLINK(...)}) gets a
     * leading apostrophe, as OWASP advises (CSV injection); numbers are written as numbers.
     */
    String csv(List<R> rows, Map<String, String> parameters) {
        return csv(rows, parameters, java.util.function.UnaryOperator.identity());
    }

    /** As {@link #csv(List, Map)}, each text cell passed through {@code cell} first (a terminal's {@link #printable}). */
    String csv(List<R> rows, Map<String, String> parameters, java.util.function.UnaryOperator<String> cell) {
        List<R> selected = select(rows, View.of(parameters, id, defaultSort, defaultDescending));
        StringWriter out = new StringWriter();
        try (CSVPrinter printer = new CSVPrinter(out, CSVFormat.RFC4180)) {
            printer.printRecord(columns.stream().map(Column::key).toList());
            for (R row : selected) {
                List<Object> record = new ArrayList<>();
                for (Column<R> column : columns) {
                    Object value = column.value().apply(row).exported();
                    record.add(value == null ? "" : value instanceof java.lang.Number ? value : inert(cell.apply(value.toString())));
                }
                printer.printRecord(record);
            }
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
        return out.toString();
    }

    /** A text cell a spreadsheet reads as text, never as a formula. */
    static String inert(String cell) {
        return !cell.isEmpty() && "=+-@\t\r".indexOf(cell.charAt(0)) >= 0 ? "'" + cell : cell;
    }

    /**
     * A cell as a terminal may print it: control characters (ESC, BEL, ...) and the invisible
     * bidirectional overrides, which a label value could carry to move the cursor, retitle the
     * window or reorder what is shown, become "?".
     */
    static String printable(String cell) {
        return cell.replaceAll("[\\p{Cc}\u202A-\u202E\u2066-\u2069]", "?");
    }

    /** Every selected row as a text table for a terminal: columns padded, numbers right-aligned. */
    String text(List<R> rows, Map<String, String> parameters) {
        List<R> selected = select(rows, View.of(parameters, id, defaultSort, defaultDescending));
        List<List<String>> cells = new ArrayList<>();
        cells.add(columns.stream().map(Column::title).map(Table::printable).toList());
        boolean[] right = new boolean[columns.size()];
        for (R row : selected) {
            List<String> line = new ArrayList<>();
            for (int i = 0; i < columns.size(); i++) {
                Value value = columns.get(i).value().apply(row);
                right[i] |= value.numeric();
                line.add(printable(value.display()));
            }
            cells.add(line);
        }
        int[] widths = new int[columns.size()];
        for (List<String> line : cells) {
            for (int i = 0; i < line.size(); i++) {
                widths[i] = Math.max(widths[i], line.get(i).length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (List<String> line : cells) {
            for (int i = 0; i < line.size(); i++) {
                String cell = line.get(i);
                String pad = " ".repeat(widths[i] - cell.length());
                out.append(right[i] ? pad + cell : cell + (i == line.size() - 1 ? "" : pad));
                out.append(i == line.size() - 1 ? "" : "  ");
            }
            out.append(System.lineSeparator());
        }
        return out.toString();
    }

    /**
     * Every selected row as JSON objects keyed by column; a missing figure is null with
     * {@code <key>_missing} saying why.
     */
    String json(List<R> rows, Map<String, String> parameters) {
        List<R> selected = select(rows, View.of(parameters, id, defaultSort, defaultDescending));
        ArrayNode array = JSON.createArrayNode();
        for (R row : selected) {
            ObjectNode object = array.addObject();
            for (Column<R> column : columns) {
                Value value = column.value().apply(row);
                Object exported = value.exported();
                switch (exported) {
                    case null -> {
                        object.putNull(column.key());
                        object.put(column.key() + "_missing", value.missing());
                    }
                    case Double number -> object.put(column.key(), number);
                    case Long number -> object.put(column.key(), number);
                    default -> object.put(column.key(), exported.toString());
                }
            }
        }
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(array);
    }
}
