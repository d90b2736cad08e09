import CWebKitGTK
import GBGBridgeToolkit

/// Clearing a web context's website data until WebKit reports none left.
enum KioskWipe {
    /// How many times the data is cleared before a wipe gives up on what WebKit still reports.
    static let maximumPasses = 3

    /// Clears all website data of `manager` (cookies, every storage, caches, service workers and
    /// their registrations, HSTS, ITP), then asks WebKit what is left and clears again while
    /// something is, up to ``maximumPasses`` times. Returns the `WebKitWebsiteDataTypes` still
    /// reported after the last pass: 0 when the wipe is complete.
    @MainActor
    static func clearAll(_ manager: UnsafeMutablePointer<WebKitWebsiteDataManager>) async -> UInt32 {
        var remaining: UInt32 = 0
        for _ in 0..<maximumPasses {
            await clear(manager)
            remaining = await remainingTypes(manager)
            if remaining == 0 { break }
        }
        return remaining
    }

    /// Clears all website data of `manager`, whatever its age.
    @MainActor
    static func clear(_ manager: UnsafeMutablePointer<WebKitWebsiteDataManager>) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let box = RetainedBox.retain(continuation)
            webkit_website_data_manager_clear(
                manager, WEBKIT_WEBSITE_DATA_ALL, 0, nil,
                { source, result, data in
                    let continuation = RetainedBox<CheckedContinuation<Void, Never>>.take(data)
                    var error: UnsafeMutablePointer<GError>?
                    _ = webkit_website_data_manager_clear_finish(source.map { gtkCast($0) }, result, &error)
                    if let error { g_error_free(error) }
                    continuation.resume()
                }, box)
        }
    }

    /// The kinds of website data `manager` still holds, as a `WebKitWebsiteDataTypes` mask.
    @MainActor
    static func remainingTypes(_ manager: UnsafeMutablePointer<WebKitWebsiteDataManager>) async -> UInt32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<UInt32, Never>) in
            let box = RetainedBox.retain(continuation)
            webkit_website_data_manager_fetch(
                manager, WEBKIT_WEBSITE_DATA_ALL, nil,
                { source, result, data in
                    let continuation = RetainedBox<CheckedContinuation<UInt32, Never>>.take(data)
                    var error: UnsafeMutablePointer<GError>?
                    let list = webkit_website_data_manager_fetch_finish(
                        source.map { gtkCast($0) }, result, &error)
                    if let error { g_error_free(error) }
                    var types: UInt32 = 0
                    var node = list
                    while let current = node {
                        if let item = current.pointee.data {
                            types |= webkit_website_data_get_types(OpaquePointer(item)).rawValue
                            webkit_website_data_unref(OpaquePointer(item))
                        }
                        node = current.pointee.next
                    }
                    g_list_free(list)
                    continuation.resume(returning: types)
                }, box)
        }
    }

    /// Runs `navigator.serviceWorker` unregistration for every registration the page of `webView`
    /// can see, then calls `done` (also when the script fails).
    @MainActor
    static func unregisterServiceWorkers(
        in webView: UnsafeMutablePointer<WebKitWebView>, then done: @escaping @MainActor () -> Void
    ) {
        let script = """
            if (!navigator.serviceWorker) return 0;
            const registrations = await navigator.serviceWorker.getRegistrations();
            await Promise.all(registrations.map((registration) => registration.unregister()));
            return registrations.length;
            """
        let box = RetainedBox.retain(done)
        webkit_web_view_call_async_javascript_function(
            webView, script, -1, nil, nil, nil, nil,
            { source, result, data in
                let done = RetainedBox<@MainActor () -> Void>.take(data)
                var error: UnsafeMutablePointer<GError>?
                let value = webkit_web_view_call_async_javascript_function_finish(
                    source.map { gtkCast($0) }, result, &error)
                if let value { g_object_unref(value) }
                if let error { g_error_free(error) }
                MainActor.assumeIsolated { done() }
            }, box)
    }
}
