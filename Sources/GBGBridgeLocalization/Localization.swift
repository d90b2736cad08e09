import CGettext

#if canImport(Glibc)
import Glibc
#endif

/// Translations of the text a person sees, through glibc's gettext.
///
/// Call ``Localization/setUp(localeDirectory:)`` once at start, before any text is built; then wrap every
/// user-facing string in ``tr(_:)`` (or ``tr(_:_:)`` for text with named `{placeholders}`).
/// Message catalogues are `<localeDirectory>/<lang>/LC_MESSAGES/gbgbridge-shell.mo`.
public enum Localization {
    /// The gettext domain of this project's catalogues.
    public static let domain = "gbgbridge-shell"

    /// Takes the user's locale from the environment and binds the catalogues in `localeDirectory`
    /// (default: the system's, `/usr/share/locale`). Text is always returned as UTF-8.
    public static func setUp(localeDirectory: String? = nil) {
        setlocale(LC_ALL, "")
        if let localeDirectory { bindtextdomain(domain, localeDirectory) }
        bind_textdomain_codeset(domain, "UTF-8")
    }
}

/// `msgid` in the user's language (itself when there is no translation).
public func tr(_ msgid: String) -> String {
    // Without a translation dgettext returns its argument, which is only valid inside withCString.
    msgid.withCString { key in
        guard let translated = dgettext(Localization.domain, key), translated != UnsafeMutablePointer(mutating: key) else {
            return msgid
        }
        return String(cString: translated)
    }
}

/// `msgid` in the user's language with each `{name}` replaced by its value, e.g.
/// `tr("Camera “{name}” stopped.", ["name": cameraName])`. Translators may move placeholders.
public func tr(_ msgid: String, _ values: KeyValuePairs<String, String>) -> String {
    var text = tr(msgid)
    for (name, value) in values { text = text.replacing("{\(name)}", with: value) }
    return text
}
