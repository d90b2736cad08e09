import CWebKitGTK
import GBGBridge

extension BridgeJourneyWindow {
    /// Why a snapshot could not be written.
    public struct SnapshotError: Error, CustomStringConvertible {
        /// A readable description of the failure.
        public let description: String
    }

    /// Renders the visible part of the page and writes it as a PNG file.
    ///
    /// Painting can lag the end of loading by a few hundred milliseconds; take
    /// snapshots a little after ``onLoadFinished``.
    public func saveSnapshot(toPNG path: String) async throws(SnapshotError) {
        guard let webView else { throw SnapshotError(description: "The journey window is closed") }
        let failure: String? = await withCheckedContinuation { continuation in
            let request = SnapshotRequest(path: path) { continuation.resume(returning: $0) }
            webkit_web_view_get_snapshot(
                webView, WEBKIT_SNAPSHOT_REGION_VISIBLE, WEBKIT_SNAPSHOT_OPTIONS_NONE, nil,
                snapshotFinished, Unmanaged.passRetained(request).toOpaque())
        }
        if let failure { throw SnapshotError(description: failure) }
    }
}

/// One pending snapshot: where to write it and whom to tell (`nil` = success).
private final class SnapshotRequest: @unchecked Sendable {
    let path: String
    let completion: (String?) -> Void
    init(path: String, completion: @escaping (String?) -> Void) {
        self.path = path
        self.completion = completion
    }
}

private let snapshotFinished: GAsyncReadyCallback = { source, result, data in
    let request = Unmanaged<SnapshotRequest>.fromOpaque(data!).takeRetainedValue()
    var error: UnsafeMutablePointer<GError>?
    guard let surface = webkit_web_view_get_snapshot_finish(gbg_web_view(source), result, &error) else {
        let message = error.flatMap { $0.pointee.message }.map { String(cString: $0) } ?? "unknown error"
        g_error_free(error)
        request.completion("Could not take a snapshot of the page: \(message)")
        return
    }
    defer { cairo_surface_destroy(surface) }
    let status = cairo_surface_write_to_png(surface, request.path)
    if status == CAIRO_STATUS_SUCCESS {
        request.completion(nil)
    } else {
        let reason = String(cString: cairo_status_to_string(status))
        request.completion("Could not write \(request.path): \(reason)")
    }
}
