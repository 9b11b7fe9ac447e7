package io.hamiobserve.console.view;

/** A block of a page. */
public sealed interface Section permits Tiles, TableView, ChartView, BarView, Facts, Note, Snippet, ShapeForm,
        Choices {
}
