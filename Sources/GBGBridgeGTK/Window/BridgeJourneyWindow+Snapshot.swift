import CWebKitGTK
import GBGBridge
import GBGBridgeLocalization
import GBGBridgeToolkit

extension BridgeJourneyWindow {
    /// Why a snapshot could not be written.
    public struct SnapshotError: Error, CustomStringConvertible {
        /// A readable description of the failure.
        public let description: String
    }

    /// Renders the visible part of the page and writes it as a PNG file.
    ///
    /// First lets the page settle: finite CSS transitions and animations run to their end
    /// (at most 3 s) and two frames are rendered (at most 2 s more), so the picture shows
    /// the page's final look rather than the start of a fade. On a page at rest this takes
    /// a few tens of milliseconds. Painting can lag the end of loading by a few hundred
    /// milliseconds; take snapshots a little after ``onLoadFinished``.
    ///
    /// While the window shows its error page, the picture is of the window (the error page)
    /// instead: the page behind it is not what a person sees.
    public func saveSnapshot(toPNG path: String) async throws(SnapshotError) {
        if isShowingErrorPage {
            try saveWindowImage(toPNG: path)
            return
        }
        guard let webView else { throw SnapshotError(description: tr("The journey window is closed")) }
        await settleRendering(of: webView)
        guard let webView = self.webView else { throw SnapshotError(description: tr("The journey window is closed")) }
        let failure: String? = await withCheckedContinuation { continuation in
            let request = SnapshotRequest(path: path) { continuation.resume(returning: $0) }
            webkit_web_view_get_snapshot(
                webView, WEBKIT_SNAPSHOT_REGION_VISIBLE, WEBKIT_SNAPSHOT_OPTIONS_NONE, nil,
                snapshotFinished, RetainedBox.retain(request))
        }
        if let failure { throw SnapshotError(description: failure) }
    }
}

extension BridgeJourneyWindow {
    /// Paints the whole GTK window (notice bar, error page, dialogs excluded) into a PNG file.
    ///
    /// GTK widgets are drawn directly, without reading the screen, so other windows covering
    /// this one do not matter. The web view's content may be missing from this picture (it
    /// is composited by WebKit): use ``saveSnapshot(toPNG:)`` for the page.
    public func saveWindowImage(toPNG path: String) throws(SnapshotError) {
        guard let window else { throw SnapshotError(description: tr("The journey window is closed")) }
        let widget = gtkCast(window, to: GtkWidget.self)
        let width = gtk_widget_get_allocated_width(widget)
        let height = gtk_widget_get_allocated_height(widget)
        guard width > 1, height > 1 else { throw SnapshotError(description: tr("The journey window is not shown")) }
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height)
        defer { cairo_surface_destroy(surface) }
        let cairo = cairo_create(surface)
        gtk_widget_draw(widget, cairo)
        cairo_destroy(cairo)
        let status = cairo_surface_write_to_png(surface, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw SnapshotError(
                description: tr(
                    "Could not write {path}: {reason}",
                    ["path": path, "reason": String(cString: cairo_status_to_string(status))]))
        }
    }
}

extension BridgeJourneyWindow {
    /// Script run in the bridge's isolated world before a snapshot. While the renderer is
    /// behind (under Xvfb, Mesa compiling its shaders on a first run stalls frames for about
    /// 1.5 s), a snapshot shows elements at the start values of CSS transitions that the
    /// page has long asked to end. Waiting for the animations and two frames avoids that;
    /// reading the animations once more at the end brings the styles up to date.
    private static let settleScript = """
        const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
        const finite = document.getAnimations().filter(
            (animation) => animation.effect && isFinite(animation.effect.getComputedTiming().endTime));
        await Promise.race([Promise.all(finite.map((animation) => animation.finished.catch(() => null))), wait(3000)]);
        await Promise.race([new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))), wait(2000)]);
        document.getAnimations();
        """

    /// Runs ``settleScript``; failures (no page, script errors) only mean no settling.
    private func settleRendering(of webView: UnsafeMutablePointer<WebKitWebView>) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done: @Sendable () -> Void = { continuation.resume() }
            var script = Self.settleScript
            script.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { text in
                    webkit_web_view_call_async_javascript_function(
                        webView, text.baseAddress, gssize(text.count), nil, BridgeScripts.worldName, nil, nil,
                        settleFinished, RetainedBox.retain(done))
                }
            }
        }
    }
}

private let settleFinished: GAsyncReadyCallback = { source, result, data in
    let settled = RetainedBox<@Sendable () -> Void>.take(data)
    var error: UnsafeMutablePointer<GError>?
    if let value = webkit_web_view_call_async_javascript_function_finish(source.map { gtkCast($0) }, result, &error) {
        g_object_unref(value)
    }
    if let error { g_error_free(error) }
    settled()
}

/// One pending snapshot: where to write it and whom to tell (`nil` = success).
private struct SnapshotRequest: Sendable {
    let path: String
    let completion: @Sendable (String?) -> Void
}

private let snapshotFinished: GAsyncReadyCallback = { source, result, data in
    let request = RetainedBox<SnapshotRequest>.take(data)
    var error: UnsafeMutablePointer<GError>?
    guard let surface = webkit_web_view_get_snapshot_finish(source.map { gtkCast($0) }, result, &error) else {
        let message = GErrorText.take(&error, or: tr("unknown error"))
        request.completion(tr("Could not take a snapshot of the page: {reason}", ["reason": message]))
        return
    }
    defer { cairo_surface_destroy(surface) }
    let status = cairo_surface_write_to_png(surface, request.path)
    if status == CAIRO_STATUS_SUCCESS {
        request.completion(nil)
    } else {
        let reason = String(cString: cairo_status_to_string(status))
        request.completion(tr("Could not write {path}: {reason}", ["path": request.path, "reason": reason]))
    }
}
