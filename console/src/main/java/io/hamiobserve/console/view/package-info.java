/**
 * The view models the templates render: plain records of text already formatted, links already
 * built and numbers already laid out. Templates only place them (and jte escapes every value for
 * the context it lands in), so nothing about the fleet is decided in a template.
 */
package io.hamiobserve.console.view;
