import CWebKitGTK

/// Synthesised keyboard input for tests that drive real GTK windows (under Xvfb or a headless Wayland compositor).
@MainActor
public enum Keyboard {
    /// Presses `keyval` on `window` through GTK's event dispatch (as if the X server had delivered it to
    /// the focused toplevel): the window's key handling, focus widget, mnemonics and default all apply.
    public static func press(
        _ keyval: Int32, on window: UnsafeMutablePointer<GtkWidget>, state: GdkModifierType = GdkModifierType(0)
    ) {
        guard let gdkWindow = gtk_widget_get_window(window), let event = gdk_event_new(GDK_KEY_PRESS) else { return }
        event.pointee.key.window = OpaquePointer(g_object_ref(UnsafeMutableRawPointer(gdkWindow)))
        event.pointee.key.send_event = 1
        event.pointee.key.time = guint32(GDK_CURRENT_TIME)
        event.pointee.key.keyval = guint(keyval)
        // Mnemonics and accelerators are looked up by hardware key code.
        var keys: UnsafeMutablePointer<GdkKeymapKey>?
        var count: Int32 = 0
        if gdk_keymap_get_entries_for_keyval(
            gdk_keymap_get_for_display(gdk_display_get_default()), guint(keyval), &keys, &count) != 0,
            let keys, count > 0
        {
            event.pointee.key.hardware_keycode = guint16(keys[0].keycode)
            g_free(keys)
        }
        event.pointee.key.state = state.rawValue
        // A compositor with no seat (weston's headless backend) has no keyboard to name.
        if let seat = gdk_display_get_default_seat(gdk_display_get_default()) {
            gdk_event_set_device(event, gdk_seat_get_keyboard(seat))
        }
        gtk_main_do_event(event)
        gdk_event_free(event)
    }
}
