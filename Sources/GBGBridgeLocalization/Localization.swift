import CGettext

#if canImport(Glibc)
    import Glibc
#endif

/// Translations of the text a person sees, through glibc's gettext.
///
/// Call ``Localization/setUp(localeDirectory:languages:)`` once at start, before any text is
/// built; then wrap every user-facing string in ``tr(_:)`` (or ``tr(_:_:)`` for text with named
/// `{placeholders}`). Message catalogues are `<localeDirectory>/<lang>/LC_MESSAGES/gbgbridge-shell.mo`.
public enum Localization {
    /// The gettext domain of this project's catalogues.
    public static let domain = "gbgbridge-shell"
    /// The environment variable that names the catalogue directory, overriding the search.
    public static let localeDirectoryVariable = "GBGBRIDGE_LOCALEDIR"

    /// Takes the user's locale from the environment and binds the catalogues in `localeDirectory`
    /// (default: ``defaultLocaleDirectory()``). Text is always returned as UTF-8.
    ///
    /// `languages` (BCP 47 tags, most preferred first) replaces the user's message languages, as
    /// `LANGUAGE` would. When the message locale is "C" or "POSIX" (glibc then ignores `LANGUAGE`)
    /// but the environment or `languages` asks for a language, the message locale becomes
    /// "C.UTF-8" so that translations still load. Calling it again (say, once `--lang` is known)
    /// is fine.
    public static func setUp(localeDirectory: String? = nil, languages: [String]? = nil) {
        if let languages {
            setenv("LANGUAGE", gettextLanguageList(languages), 1)
        }
        setlocale(LC_ALL, "")
        let messages = setlocale(LC_MESSAGES, nil).map { String(cString: $0) } ?? "C"
        if messages == "C" || messages == "POSIX" {
            let wanted = preferredLanguages(environment: environmentValue)
            if wanted != ["en-US"] || environmentValue("LANGUAGE")?.isEmpty == false {
                if environmentValue("LANGUAGE")?.isEmpty != false {
                    setenv("LANGUAGE", gettextLanguageList(wanted), 1)
                }
                setlocale(LC_MESSAGES, "C.UTF-8")
            }
        }
        if let directory = localeDirectory ?? defaultLocaleDirectory() { bindtextdomain(domain, directory) }
        bind_textdomain_codeset(domain, "UTF-8")
    }

    /// Where the catalogues are: `$GBGBRIDGE_LOCALEDIR`; else `<executable dir>/../share/locale`
    /// when it holds this domain (installed: `/usr/share/locale`); else `<executable dir>/locale`
    /// (a development build, filled by `scripts/build-translations.sh`); else `nil`, the system default.
    public static func defaultLocaleDirectory() -> String? {
        if let directory = environmentValue(localeDirectoryVariable), !directory.isEmpty { return directory }
        guard let executableDirectory = ProgramLocation.executableDirectory() else { return nil }
        for candidate in [
            ProgramLocation.parent(of: executableDirectory) + "/share/locale", executableDirectory + "/locale",
        ]
        where holdsCatalogue(candidate) {
            return candidate
        }
        return nil
    }

    /// The user's preferred languages as BCP 47 tags, most preferred first ("de-DE", "fr",
    /// "en-US"): the entries of `LANGUAGE`, then the language of the first of `LC_ALL`,
    /// `LC_MESSAGES` and `LANG` that is set. The "C" and "POSIX" locales count as "en-US", which is
    /// also the answer when nothing is set.
    public static func preferredLanguages() -> [String] {
        preferredLanguages(environment: environmentValue)
    }

    /// ``preferredLanguages()`` for the environment variables `environment` returns.
    public static func preferredLanguages(environment: (String) -> String?) -> [String] {
        var tags: [String] = []
        func add(_ tag: String?) {
            if let tag, !tags.contains(tag) { tags.append(tag) }
        }
        if let list = environment("LANGUAGE") {
            for entry in list.split(separator: ":") { add(languageTag(fromLocale: String(entry))) }
        }
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].compactMap { environment($0) }.first { !$0.isEmpty }
        if let locale {
            add(isCLocale(locale) ? "en-US" : languageTag(fromLocale: locale))
        }
        return tags.isEmpty ? ["en-US"] : tags
    }

    /// The BCP 47 tag of a POSIX locale name: "de_DE.UTF-8@euro" → "de-DE", "fr" → "fr";
    /// `nil` for "C", "POSIX" and names that are not a language.
    public static func languageTag(fromLocale locale: String) -> String? {
        guard !isCLocale(locale) else { return nil }
        let name = locale.split(separator: "@", maxSplits: 1).first.map { $0.split(separator: ".").first ?? $0 } ?? ""
        let parts = name.split(whereSeparator: { $0 == "_" || $0 == "-" }).map(String.init)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy(\.isASCIILetter)
        else { return nil }
        var tag = language.lowercased()
        for part in parts.dropFirst() {
            guard !part.isEmpty, part.count <= 8, part.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit }) else {
                return nil
            }
            tag += "-" + (part.count == 2 ? part.uppercased() : part)
        }
        return tag
    }

    /// Whether `text` reads as a BCP 47 language tag: a 2–3 letter language, then subtags of
    /// 1–8 letters or digits, separated by "-" (or "_"), such as "de", "fr-CA", "zh-Hant-TW".
    public static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy(\.isASCIILetter)
        else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit }
        }
    }

    /// `LANGUAGE` for gettext from BCP 47 tags: "fr-CA,de" → "fr_CA:de". English is the text the
    /// program is written in, so the list stops there (a later language would otherwise win).
    static func gettextLanguageList(_ tags: [String]) -> String {
        var entries: [String] = []
        for tag in tags {
            let parts = tag.split(whereSeparator: { $0 == "-" || $0 == "_" })
            guard let language = parts.first?.lowercased() else { continue }
            let region = parts.dropFirst().first { $0.count == 2 || ($0.count == 3 && $0.allSatisfy(\.isASCIIDigit)) }
            entries.append(region.map { "\(language)_\($0.uppercased())" } ?? language)
            if language == "en" { break }
        }
        return entries.joined(separator: ":")
    }

    private static func isCLocale(_ locale: String) -> Bool {
        let name = locale.split(separator: ".").first.map(String.init) ?? locale
        return name == "C" || name == "POSIX" || locale.isEmpty
    }

    private static func holdsCatalogue(_ directory: String) -> Bool {
        guard let entries = opendir(directory) else { return false }
        defer { closedir(entries) }
        while let entry = readdir(entries) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            if access(directory + "/" + name + "/LC_MESSAGES/" + domain + ".mo", R_OK) == 0 { return true }
        }
        return false
    }

    static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

extension Character {
    fileprivate var isASCIILetter: Bool { isASCII && isLetter }
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

/// `msgid` in the user's language (itself when there is no translation).
public func tr(_ msgid: String) -> String {
    // Without a translation gettext returns its argument, a C string that lives only during the call.
    msgid.withCString { id in
        guard let translated = dgettext(Localization.domain, id), UnsafePointer(translated) != id else { return msgid }
        return String(cString: translated)
    }
}

/// `msgid` in the user's language with each `{name}` replaced by its value, e.g.
/// `tr("Camera “{name}” stopped.", ["name": cameraName])`. Translators may move placeholders.
public func tr(_ msgid: String, _ values: KeyValuePairs<String, String>) -> String {
    let template = tr(msgid)
    var text = ""
    var rest = Substring(template)
    // One pass: a value that itself contains "{name}" is left as it is.
    while let open = rest.firstIndex(of: "{") {
        text += rest[..<open]
        let afterOpen = rest.index(after: open)
        if let close = rest[afterOpen...].firstIndex(of: "}"),
            let value = values.first(where: { $0.key == rest[afterOpen..<close] })?.value
        {
            text += value
            rest = rest[rest.index(after: close)...]
        } else {
            text += "{"
            rest = rest[afterOpen...]
        }
    }
    return text + rest
}
