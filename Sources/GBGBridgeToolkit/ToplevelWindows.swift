import CWebKitGTK

/// The toplevel windows of this process.
@MainActor
package enum ToplevelWindows {
    /// Every toplevel window of the process (borrowed pointers: valid during this main-loop turn).
    package static func all() -> [UnsafeMutablePointer<GtkWindow>] {
        guard let list = gtk_window_list_toplevels() else { return [] }
        defer { g_list_free(list) }
        var windows: [UnsafeMutablePointer<GtkWindow>] = []
        var node: UnsafeMutablePointer<GList>? = list
        while let current = node {
            if let data = current.pointee.data { windows.append(gtkCast(raw: data)) }
            node = current.pointee.next
        }
        return windows
    }

    /// The window a dialog without a given parent belongs to: the application's active visible normal toplevel,
    /// else its only visible normal toplevel; nil when that is ambiguous. `dialog` itself is never chosen.
    package static func applicationWindow(
        excluding dialog: UnsafeMutablePointer<GtkWindow>?
    ) -> UnsafeMutablePointer<GtkWindow>? {
        var candidates: [UnsafeMutablePointer<GtkWindow>] = []
        for candidate in all() {
            guard candidate != dialog, gtk_widget_get_visible(gtkCast(candidate)) != 0,
                gtk_window_get_window_type(candidate) == GTK_WINDOW_TOPLEVEL,
                gtk_window_get_type_hint(candidate) == GDK_WINDOW_TYPE_HINT_NORMAL
            else { continue }
            if gtk_window_is_active(candidate) != 0 { return candidate }
            candidates.append(candidate)
        }
        return candidates.count == 1 ? candidates[0] : nil
    }
}
