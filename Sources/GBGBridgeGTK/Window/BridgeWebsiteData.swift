import CWebKitGTK
import GBGBridgeLocalization
import GBGBridgeToolkit

/// Where a journey's website data lives: cookies, localStorage, IndexedDB, CacheStorage,
/// service workers, the HTTP cache, HSTS entries.
///
/// The default, ``ephemeral``, keeps all of it in memory for the life of the web context
/// and writes none of it to disk: a journey run in front of the public leaves nothing for
/// the next person. Choose ``profile(directory:)`` only where keeping state across runs is
/// wanted (a developer's machine), or ``context(_:)`` to manage the `WebKitWebContext` yourself.
public enum BridgeWebsiteData {
    /// A new ephemeral web context: nothing is written to disk.
    case ephemeral
    /// A new persistent web context keeping its data under `directory/data` and its caches
    /// (HTTP cache, HSTS) under `directory/cache`; cookies go to `directory/data/cookies.sqlite`.
    case profile(directory: String)
    /// A web context you created and configured; it is referenced, not copied or changed.
    case context(UnsafeMutablePointer<WebKitWebContext>)

    /// Creates (or, for ``context(_:)``, references) the web context; the caller owns the
    /// returned reference and releases it with `g_object_unref`.
    @MainActor
    public func makeWebContext() -> UnsafeMutablePointer<WebKitWebContext> {
        switch self {
        case .ephemeral:
            return webkit_web_context_new_ephemeral()
        case .context(let context):
            g_object_ref(context)
            return context
        case .profile(let directory):
            let manager = Self.persistentDataManager(
                dataDirectory: directory + "/data", cacheDirectory: directory + "/cache")
            defer { g_object_unref(manager) }
            let context = webkit_web_context_new_with_website_data_manager(manager)!
            if let cookies = webkit_website_data_manager_get_cookie_manager(manager) {
                webkit_cookie_manager_set_persistent_storage(
                    cookies, directory + "/data/cookies.sqlite", WEBKIT_COOKIE_PERSISTENT_STORAGE_SQLITE)
            }
            return context
        }
    }

    /// `webkit_website_data_manager_new` is variadic, so build it through its properties.
    @MainActor
    private static func persistentDataManager(
        dataDirectory: String, cacheDirectory: String
    ) -> UnsafeMutablePointer<WebKitWebsiteDataManager> {
        let stringType = GType(16 << 2)  // G_TYPE_STRING
        let properties = [("base-data-directory", dataDirectory), ("base-cache-directory", cacheDirectory)]
        var names: [UnsafePointer<CChar>?] = properties.map { UnsafePointer(g_strdup($0.0)) }
        defer { for name in names { g_free(UnsafeMutableRawPointer(mutating: name)) } }
        var values = [GValue](repeating: GValue(), count: properties.count)
        for index in properties.indices {
            g_value_init(&values[index], stringType)
            g_value_set_string(&values[index], properties[index].1)
        }
        defer { for index in values.indices { g_value_unset(&values[index]) } }
        let object = g_object_new_with_properties(
            webkit_website_data_manager_get_type(), guint(properties.count), &names, &values)
        return gtkCast(object!)
    }
}

/// Trusting a self-signed or private-CA server certificate for a journey.
public enum BridgeCertificateTrust {
    /// Why a certificate could not be used.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads a PEM certificate file; fails when it is missing or holds no certificate.
    ///
    /// The caller owns the returned reference (`g_object_unref`).
    public static func loadCertificate(atPath path: String) throws(Failure) -> UnsafeMutablePointer<GTlsCertificate> {
        var error: UnsafeMutablePointer<GError>?
        guard let certificate = g_tls_certificate_new_from_file(path, &error) else {
            let message = GErrorText.take(&error, or: tr("unknown error"))
            throw Failure(
                description: tr(
                    "{path} is not a readable PEM certificate ({reason})", ["path": path, "reason": message]))
        }
        return certificate
    }

    /// Makes `context` accept `certificate` for `host` even though no trusted authority signed it.
    ///
    /// Call it before the journey loads; it only affects this web context.
    @MainActor
    public static func trust(
        _ certificate: UnsafeMutablePointer<GTlsCertificate>, forHost host: String,
        in context: UnsafeMutablePointer<WebKitWebContext>
    ) {
        webkit_web_context_allow_tls_certificate_for_host(context, certificate, host)
    }

    /// Reads the certificate at `path` and trusts it for `host` in `context`.
    @MainActor
    public static func trustCertificate(
        atPath path: String, forHost host: String, in context: UnsafeMutablePointer<WebKitWebContext>
    ) throws(Failure) {
        let certificate = try loadCertificate(atPath: path)
        defer { g_object_unref(certificate) }
        trust(certificate, forHost: host, in: context)
    }
}
