import CWebKitGTK

/// A GObject instance struct from the C headers, with the `GType` it stands for: a pointer to one can be
/// cast to it with ``gtkCast(_:to:)``, which checks the type first (the C cast macros do not import).
package protocol GObjectInstance {
    /// The registered type, e.g. `gtk_window_get_type()` for `GtkWindow`.
    static var gType: GType { get }
}

/// Reinterprets a GObject pointer as `Target` after checking, as `GTK_WINDOW()` and the other cast macros do,
/// that the instance is a `Target` or a subclass of it; traps with both type names if it is not.
package func gtkCast<Source: GObjectInstance, Target: GObjectInstance>(
    _ instance: UnsafeMutablePointer<Source>, to type: Target.Type = Target.self
) -> UnsafeMutablePointer<Target> {
    gtkCast(raw: UnsafeMutableRawPointer(instance))
}

/// ``gtkCast(_:to:)`` for an untyped `gpointer` (a list element, a signal argument).
package func gtkCast<Target: GObjectInstance>(
    raw instance: UnsafeMutableRawPointer, to type: Target.Type = Target.self
) -> UnsafeMutablePointer<Target> {
    guard gtkIsInstance(instance, of: Target.self) else {
        let actual =
            instance.assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.flatMap {
                g_type_name($0.pointee.g_type)
            }.map { String(cString: $0) } ?? "an instance without a class"
        let expected = g_type_name(Target.gType).map { String(cString: $0) } ?? "\(Target.self)"
        fatalError("gtkCast: \(actual) is not a \(expected)")
    }
    return instance.assumingMemoryBound(to: Target.self)
}

/// Whether `instance` is a `type` or a subclass of it (`GTK_IS_BUTTON()` and the like); false for nil.
package func gtkIsInstance<Target: GObjectInstance>(_ instance: UnsafeMutableRawPointer?, of type: Target.Type) -> Bool
{
    guard let instance else { return false }
    return g_type_check_instance_is_a(instance.assumingMemoryBound(to: GTypeInstance.self), Target.gType) != 0
}

extension GtkWidget: GObjectInstance { package static var gType: GType { gtk_widget_get_type() } }
extension GtkWindow: GObjectInstance { package static var gType: GType { gtk_window_get_type() } }
extension GtkContainer: GObjectInstance { package static var gType: GType { gtk_container_get_type() } }
extension GtkBin: GObjectInstance { package static var gType: GType { gtk_bin_get_type() } }
extension GtkBox: GObjectInstance { package static var gType: GType { gtk_box_get_type() } }
extension GtkLabel: GObjectInstance { package static var gType: GType { gtk_label_get_type() } }
extension GtkButton: GObjectInstance { package static var gType: GType { gtk_button_get_type() } }
extension GtkToggleButton: GObjectInstance { package static var gType: GType { gtk_toggle_button_get_type() } }
extension GtkComboBox: GObjectInstance { package static var gType: GType { gtk_combo_box_get_type() } }
extension GtkComboBoxText: GObjectInstance { package static var gType: GType { gtk_combo_box_text_get_type() } }
extension GtkProgressBar: GObjectInstance { package static var gType: GType { gtk_progress_bar_get_type() } }
extension GtkSpinner: GObjectInstance { package static var gType: GType { gtk_spinner_get_type() } }
extension GtkImage: GObjectInstance { package static var gType: GType { gtk_image_get_type() } }
extension GtkDrawingArea: GObjectInstance { package static var gType: GType { gtk_drawing_area_get_type() } }
extension GtkEntry: GObjectInstance { package static var gType: GType { gtk_entry_get_type() } }
extension GtkButtonBox: GObjectInstance { package static var gType: GType { gtk_button_box_get_type() } }
extension GtkFrame: GObjectInstance { package static var gType: GType { gtk_frame_get_type() } }
extension GObject: GObjectInstance { package static var gType: GType { g_object_get_type() } }
extension GtkInfoBar: GObjectInstance { package static var gType: GType { gtk_info_bar_get_type() } }
extension GtkStack: GObjectInstance { package static var gType: GType { gtk_stack_get_type() } }
extension GtkScrolledWindow: GObjectInstance { package static var gType: GType { gtk_scrolled_window_get_type() } }
extension WebKitWebView: GObjectInstance { package static var gType: GType { webkit_web_view_get_type() } }
extension WebKitWebsiteDataManager: GObjectInstance {
    package static var gType: GType { webkit_website_data_manager_get_type() }
}
extension WebKitAutomationSession: GObjectInstance {
    package static var gType: GType { webkit_automation_session_get_type() }
}
extension WebKitPolicyDecision: GObjectInstance {
    package static var gType: GType { webkit_policy_decision_get_type() }
}
extension WebKitNavigationPolicyDecision: GObjectInstance {
    package static var gType: GType { webkit_navigation_policy_decision_get_type() }
}
extension WebKitResponsePolicyDecision: GObjectInstance {
    package static var gType: GType { webkit_response_policy_decision_get_type() }
}

/// Whether `instance` is a GObject of the run-time `type` (or a subclass), for types known only by
/// their `GType` (WebKit's permission requests, for example).
package func gtkIsInstance(_ instance: UnsafeMutableRawPointer?, ofType type: GType) -> Bool {
    guard let instance else { return false }
    return g_type_check_instance_is_a(instance.assumingMemoryBound(to: GTypeInstance.self), type) != 0
}
