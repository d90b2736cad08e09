import CWebKitGTK

/// Screen-reader announcements through ATK.
///
/// ATK 2.46 (Debian 12) has the `announcement` signal on `AtkObject` but not yet the
/// `atk_object_announce()` wrapper (ATK 2.50); the AT-SPI bridge forwards the signal as the
/// `object:announcement` event, which screen readers speak. The signal is emitted through `g_signal_emitv`
/// because the variadic `g_signal_emit_by_name` does not import into Swift.
@MainActor
package enum Accessibility {
    /// The `announcement` signal's id, or 0 when the ATK in use does not have it.
    static let announcementSignal: guint = g_signal_lookup("announcement", atk_object_get_type())

    /// Emits `announcement` with `text` on `object`; does nothing on an ATK without the signal.
    package static func announce(_ text: String, from object: UnsafeMutablePointer<AtkObject>) {
        guard announcementSignal != 0 else { return }
        var values = [GValue](repeating: GValue(), count: 2)
        values.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            g_value_init(base, atk_object_get_type())
            g_value_set_object(base, UnsafeMutableRawPointer(object))
            g_value_init(base + 1, g_type_from_name("gchararray"))
            g_value_set_string(base + 1, text)
            g_signal_emitv(base, announcementSignal, 0, nil)
            g_value_unset(base)
            g_value_unset(base + 1)
        }
    }

    /// Sets the accessible name, role and description of `widget` (each only when given).
    package static func describe(
        _ widget: UnsafeMutablePointer<GtkWidget>, name: String? = nil, role: AtkRole? = nil, description: String? = nil
    ) {
        guard let object = gtk_widget_get_accessible(widget) else { return }
        if let name { atk_object_set_name(object, name) }
        if let role { atk_object_set_role(object, role) }
        if let description { atk_object_set_description(object, description) }
    }
}
