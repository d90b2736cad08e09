import CWebKitGTK
import GBGBridgeLocalization
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

/// The web-process extension (Sources/WebProcessExtension, built by scripts/build-web-extension.sh): the
/// delivery path that parses each message once, in the page's world, after checking natively that the
/// document is the one the messages are for (docs/transport.md, "Delivery path").
///
/// Found, in this order: `GBGBRIDGE_WEB_EXTENSION_DIR` (a directory; `off` turns the extension off), the
/// packaged `../lib/gbgbridge-shell/web-extension` next to the executable's directory, the build's
/// `../web-extension` (`.build/web-extension` for programs in `.build/debug`). Without it, deliveries are
/// evaluated in the relay's world as before.
enum WebProcessExtension {
    /// User message names and the relay's token property, from gbgbridge_web_extension.h (the extension's own
    /// header, so C and Swift cannot drift apart).
    static let readyMessage = GBGBRIDGE_EXTENSION_READY
    static let deliverMessage = GBGBRIDGE_DELIVER
    static let flushMessage = GBGBRIDGE_FLUSH
    /// From the relay's world: the messages the relay accepted in one turn, parameters `ay` (one text's UTF-8) or
    /// `aay` (several).
    static let postMessage = GBGBRIDGE_POST
    static let tokenProperty = GBGBRIDGE_TOKEN_PROPERTY
    static let libraryName = "libgbgbridge-web-extension.so"
    /// Deliveries of at least this many bytes of JSON go through the extension; smaller ones are evaluated in
    /// the relay's world. Measured (docs/transport.md): a user message and its reply cost about 40 µs more
    /// than an evaluation for a small message, while for large ones the extension's single native parse
    /// saves time (a 20 MiB answer in 83-92 against 137 ms) and web-process memory.
    static let smallestDelivery = 64 * 1024

    /// The directory holding the extension (and nothing else WebKit would load), if one is found.
    static let directory: String? = locate()

    /// Tells `context` to load the extension into the web processes it starts from now on.
    @MainActor
    static func install(on context: UnsafeMutablePointer<WebKitWebContext>) {
        guard let directory else { return }
        webkit_web_context_set_web_extensions_directory(context, directory)
    }

    /// Whether `GBGBRIDGE_WEB_EXTENSION_DIR=off` turned the extension off.
    static let turnedOff = getenv(directoryVariable).map { String(cString: $0) == "off" } ?? false

    private static let directoryVariable = "GBGBRIDGE_WEB_EXTENSION_DIR"

    private static func locate() -> String? {
        if let value = getenv(directoryVariable) {
            let directory = String(cString: value)
            if directory == "off" { return nil }
            if !directory.isEmpty { return holdsLibrary(directory) ? directory : nil }
        }
        guard let executableDirectory = ProgramLocation.executableDirectory() else { return nil }
        let candidates = [
            executableDirectory + "/../lib/gbgbridge-shell/web-extension", executableDirectory + "/../web-extension",
        ]
        return candidates.first(where: holdsLibrary)
    }

    private static func holdsLibrary(_ directory: String) -> Bool {
        access(directory + "/" + libraryName, R_OK) == 0
    }

    /// The `(saay)` parameters of a delivery: the document's token and the messages' JSON texts, each copied
    /// once into a NUL-terminated byte string the message then owns (a string child would be checked to be
    /// UTF-8 when made and again when read, which for a 20 MiB text costs about as long as parsing it).
    static func deliveryParameters(token: String, texts: [String]) -> OpaquePointer {
        var children = texts.map { text in text.withCString { g_variant_new_bytestring($0) } }
        let array =
            children.isEmpty
            ? g_variant_new_bytestring_array(nil, 0)
            : children.withUnsafeMutableBufferPointer { g_variant_new_array(nil, $0.baseAddress, gsize($0.count)) }
        var tuple: [OpaquePointer?] = [token.withCString { g_variant_new_string($0) }, array]
        return tuple.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, 2) }!
    }
}

/// What the extension answered to one delivery.
enum ExtensionReply {
    case outcome(DeliveryOutcome)
    /// No extension in the web process answered (it was not loaded there).
    case unhandled
    case failed(String)
}

/// The completion of one `webkit_web_view_send_message_to_page` call, retained until it runs.
let extensionReplied: GAsyncReadyCallback = { source, result, data in
    let completion = RetainedBox<@MainActor (ExtensionReply) -> Void>.take(data)
    var error: UnsafeMutablePointer<GError>?
    let reply = webkit_web_view_send_message_to_page_finish(source.map { gtkCast($0) }, result, &error)
    let answer: ExtensionReply
    if let reply {
        defer { g_object_unref(reply) }
        if let parameters = webkit_user_message_get_parameters(reply), g_variant_n_children(parameters) == 2,
            let status = g_variant_get_child_value(parameters, 0), let text = g_variant_get_child_value(parameters, 1)
        {
            defer {
                g_variant_unref(status)
                g_variant_unref(text)
            }
            answer = .outcome(
                DeliveryOutcome(
                    status: g_variant_get_int32(status), failures: String(cString: g_variant_get_string(text, nil))))
        } else {
            answer = .outcome(.delivered)
        }
    } else if let error, error.pointee.domain == webkit_user_message_error_quark(),
        error.pointee.code == Int32(WEBKIT_USER_MESSAGE_UNHANDLED_MESSAGE.rawValue)
    {
        g_error_free(error)
        answer = .unhandled
    } else {
        answer = .failed(GErrorText.take(&error, or: "unknown error"))
    }
    MainActor.assumeIsolated { completion(answer) }
}
