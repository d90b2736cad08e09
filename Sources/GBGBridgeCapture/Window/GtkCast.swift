import CWebKitGTK

/// Reinterprets a GTK widget pointer as one of its GObject subclasses (the C cast macros do not import).
package func gtkCast<T>(_ widget: UnsafeMutablePointer<GtkWidget>, to type: T.Type = T.self) -> UnsafeMutablePointer<T>
{
    UnsafeMutablePointer<T>(OpaquePointer(widget))
}
