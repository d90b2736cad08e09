import Testing

@testable import GBGBridgeLocalization

@Suite("Localization")
struct LocalizationTests {
    private func languages(_ variables: [String: String]) -> [String] {
        Localization.preferredLanguages(environment: { variables[$0] })
    }

    @Test("preferred languages come from LANGUAGE, then LC_ALL, LC_MESSAGES and LANG, as BCP 47 tags")
    func preferredLanguages() {
        #expect(languages([:]) == ["en-US"])
        #expect(languages(["LANG": "C"]) == ["en-US"])
        #expect(languages(["LANG": "C.UTF-8"]) == ["en-US"])
        #expect(languages(["LANG": "POSIX"]) == ["en-US"])
        #expect(languages(["LANG": "de_DE.UTF-8"]) == ["de-DE"])
        #expect(languages(["LANG": "fr_FR.UTF-8@euro"]) == ["fr-FR"])
        #expect(languages(["LANG": "es"]) == ["es"])
        #expect(languages(["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_CA.UTF-8"]) == ["fr-CA"])
        #expect(languages(["LANG": "de_DE.UTF-8", "LC_MESSAGES": "fr_CA", "LC_ALL": "es_ES"]) == ["es-ES"])
        #expect(languages(["LANG": "de_DE.UTF-8", "LC_ALL": ""]) == ["de-DE"])
        #expect(languages(["LANGUAGE": "fr:de_CH", "LANG": "en_US.UTF-8"]) == ["fr", "de-CH", "en-US"])
        #expect(languages(["LANGUAGE": "de:de", "LANG": "de.UTF-8"]) == ["de"])
        #expect(languages(["LANGUAGE": "", "LANG": "C"]) == ["en-US"])
        #expect(languages(["LANGUAGE": "sr_RS@latin", "LANG": "C.UTF-8"]) == ["sr-RS", "en-US"])
    }

    @Test("locale names that are no language give no tag")
    func localeNames() {
        #expect(Localization.languageTag(fromLocale: "pt_BR.utf8") == "pt-BR")
        #expect(Localization.languageTag(fromLocale: "C") == nil)
        #expect(Localization.languageTag(fromLocale: "") == nil)
        #expect(Localization.languageTag(fromLocale: "x") == nil)
        #expect(Localization.languageTag(fromLocale: "/usr/lib/locale/de") == nil)
    }

    @Test("language tags for --lang")
    func tags() {
        for good in ["de", "fr-CA", "zh-Hant-TW", "de_DE", "es-419", "gsw"] {
            #expect(Localization.isLanguageTag(good), "\(good)")
        }
        for bad in ["", "d", "deutsch", "de-", "de--DE", "fr CA", "123", "en-toolongsubtag", "*"] {
            #expect(!Localization.isLanguageTag(bad), "\(bad)")
        }
    }

    @Test("LANGUAGE for gettext: ll_CC entries, ending at English, the source language")
    func gettextList() {
        #expect(Localization.gettextLanguageList(["fr-CA", "de"]) == "fr_CA:de")
        #expect(Localization.gettextLanguageList(["de-DE", "en-US", "fr"]) == "de_DE:en_US")
        #expect(Localization.gettextLanguageList(["zh-Hant-TW"]) == "zh_TW")
        #expect(Localization.gettextLanguageList(["es-419"]) == "es_419")
    }

    @Test("tr() without a catalogue returns the text, with its placeholders filled")
    func untranslated() {
        #expect(tr("No catalogue has this text") == "No catalogue has this text")
        #expect(tr("{a} and {b}, {a}", ["a": "one", "b": "two"]) == "one and two, one")
        #expect(tr("{a} {unknown} {", ["a": "{b}", "b": "no"]) == "{b} {unknown} {")
    }
}
