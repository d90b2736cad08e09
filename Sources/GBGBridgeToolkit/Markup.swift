import CWebKitGTK

/// Escapes text for Pango markup (`&`, `<`, `>`, quotes).
package func markupEscaped(_ text: String) -> String {
    guard let escaped = g_markup_escape_text(text, -1) else { return "" }
    defer { g_free(escaped) }
    return String(cString: escaped)
}
