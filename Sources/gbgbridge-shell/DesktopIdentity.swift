import CWebKitGTK

/// Who the shell is to the desktop: its application ID (program name and X11 window class,
/// matching `StartupWMClass` in the .desktop file), its readable name and its icon.
enum DesktopIdentity {
    static let applicationID = "io.gbgbridge.Shell"
    static let applicationName = "GBG Bridge"

    /// Sets the program name and window class; call before `gtk_init`, so every window's
    /// `WM_CLASS` is `io.gbgbridge.Shell` and the desktop groups it under the launcher.
    static func setBeforeGTKInit() {
        g_set_prgname(applicationID)
        g_set_application_name(applicationName)
        gdk_set_program_class(applicationID)
    }

    /// Call after `gtk_init`, before any window is created: sets the window class again and
    /// gives every window the application icon: from the icon theme when it is installed,
    /// else the SVG in the resources directory (runs from the build tree). Returns where it came from.
    @discardableResult
    static func installDefaultIcon() -> String? {
        // GTK's start-up derives a class of its own from the program name ("Io.gbgbridge.Shell");
        // set ours again before the first window exists.
        gdk_set_program_class(applicationID)
        if let theme = gtk_icon_theme_get_default(), gtk_icon_theme_has_icon(theme, applicationID) != 0 {
            gtk_window_set_default_icon_name(applicationID)
            return "icon theme"
        }
        guard let path = ResourceLocator.applicationIconPath() else { return nil }
        var error: UnsafeMutablePointer<GError>?
        if gtk_window_set_default_icon_from_file(path, &error) != 0 { return path }
        if let error { g_error_free(error) }
        return nil
    }
}
