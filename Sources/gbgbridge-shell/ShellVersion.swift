import CWebKitGTK

/// The version of `gbgbridge-shell` (also the default `--host-version`), and the facts a bug
/// report needs: the WebKitGTK and GTK it runs with and was built against, and the Swift that built it.
enum ShellVersion {
    static let current = "0.2.0"

    /// The Swift compiler that built the shell.
    static var swift: String {
        #if compiler(>=6.3)
            "6.3 or later"
        #elseif compiler(>=6.2)
            "6.2"
        #else
            "6.1 or earlier"
        #endif
    }

    /// The facts, in a stable order: name and value.
    static var facts: [(String, String)] {
        [
            ("gbgbridge-shell", current),
            ("WebKitGTK", "\(webkit_get_major_version()).\(webkit_get_minor_version()).\(webkit_get_micro_version())"),
            ("WebKitGTK (built against)", "\(WEBKIT_MAJOR_VERSION).\(WEBKIT_MINOR_VERSION).\(WEBKIT_MICRO_VERSION)"),
            ("GTK", "\(gtk_get_major_version()).\(gtk_get_minor_version()).\(gtk_get_micro_version())"),
            ("GTK (built against)", "\(GTK_MAJOR_VERSION).\(GTK_MINOR_VERSION).\(GTK_MICRO_VERSION)"),
            ("GLib", "\(glib_major_version).\(glib_minor_version).\(glib_micro_version)"),
            ("Swift", swift),
        ]
    }

    /// `--version`: one fact per line, the shell's own first.
    static var text: String {
        facts.enumerated().map { index, fact in index == 0 ? "\(fact.0) \(fact.1)" : "\(fact.0): \(fact.1)" }
            .joined(separator: "\n")
    }

    /// `--version --json`: one JSON object.
    static var json: String {
        let keys = ["shell", "webkitgtk", "webkitgtkBuiltAgainst", "gtk", "gtkBuiltAgainst", "glib", "swift"]
        let members = zip(keys, facts).map { key, fact in "\"\(key)\":\"\(fact.1)\"" }
        return "{" + members.joined(separator: ",") + "}"
    }
}
