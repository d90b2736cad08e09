/// A value handed to a C callback as its `user_data` (an async GIO or WebKit call's completion, a one-shot
/// idle source): retained by ``retain(_:)`` and released when the callback takes it back with ``take(_:)``,
/// exactly once.
// @unchecked: the value goes to C and comes back on the main loop's thread, once.
package final class RetainedBox<Value>: @unchecked Sendable {
    private let value: Value

    private init(_ value: Value) { self.value = value }

    /// Boxes `value` and returns the retained pointer to pass as `user_data`.
    package static func retain(_ value: Value) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(RetainedBox(value)).toOpaque()
    }

    /// The value behind `pointer`, releasing the box: call once, in the callback.
    package static func take(_ pointer: UnsafeMutableRawPointer?) -> Value {
        guard let pointer else { fatalError("RetainedBox.take: the callback got no user data") }
        return Unmanaged<RetainedBox<Value>>.fromOpaque(pointer).takeRetainedValue().value
    }
}
