import Foundation
import Testing

/// The shell's languages: its messages under LANGUAGE / LANG / --lang (from the catalogues that
/// scripts/build-translations.sh compiles next to the binary), and the languages the journey is
/// offered (Accept-Language, navigator.languages).
@Suite("gbgbridge-shell languages", .serialized)
struct ShellLanguageTests {
    let scratch = ShellRun.scratchDirectory()
    let silentJourney = ShellRun.fixture("journey-silent.html")

    /// What a validation error and a timeout look like in each language, and English words
    /// (from the message ids) that must not be left in them.
    static let expected: [(language: String, validation: String, timeout: String)] = [
        (
            "de", "Fehler: --timeout muss eine Anzahl Sekunden über 0 sein (höchstens 604800, eine Woche), nicht -5",
            "Fehler: Zeitüberschreitung nach 1 s beim Warten auf das Ende des Ablaufs"
        ),
        (
            "fr",
            "erreur\u{A0}: --timeout doit être un nombre de secondes supérieur à 0 (au plus 604800, une semaine), et non -5",
            "erreur\u{A0}: délai dépassé après 1\u{A0}s d’attente de la fin du parcours"
        ),
        (
            "es", "error: --timeout debe ser un número de segundos mayor que 0 (como máximo 604800, una semana), no -5",
            "error: tiempo agotado tras 1 s esperando a que termine el proceso"
        ),
    ]
    static let englishWords = [
        "must", "number", "seconds", "above", "most", "week", "timed", "waiting", "journey", "finish",
    ]

    init() throws {
        try Catalogues.build()
    }

    @Test("LANGUAGE=de, fr, es: a validation error and a run's outcome line are translated", arguments: [0, 1, 2])
    func translatedMessages(index: Int) throws {
        let expected = Self.expected[index]
        let environment: [String: String?] = ["LANGUAGE": expected.language]

        let usage = try ShellRun.run(["--timeout", "-5"], environment: environment, scratch: scratch)
        #expect(usage.status == 2)
        #expect(usage.stderr == "gbgbridge-shell: \(expected.validation)\n", "\(usage.stderr)")

        let timeout = try ShellRun.run(
            [silentJourney, "--headless", "--no-console", "--timeout", "1"], environment: environment, scratch: scratch)
        #expect(timeout.status == 3, "stderr: \(timeout.stderr)")
        #expect(timeout.stderr.contains("gbgbridge-shell: \(expected.timeout)\n"), "\(timeout.stderr)")

        for text in [usage.stderr, timeout.stderr] {
            let words = Set(text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init))
            for english in Self.englishWords {
                #expect(!words.contains(english), "English '\(english)' left in: \(text)")
            }
        }
    }

    @Test("--lang fr: French messages, and the journey is offered French (navigator.languages, Accept-Language)")
    func langOption() throws {
        let usage = try ShellRun.run(["--lang", "fr", "--window-size", "5x5"], scratch: scratch)
        #expect(usage.status == 2)
        #expect(
            usage.stderr
                == "gbgbridge-shell: erreur\u{A0}: --window-size doit être compris entre 320x240 et 7680x4320 pixels, et non 5x5\n",
            "\(usage.stderr)")

        let offered = try Self.offeredLanguages(arguments: ["--lang", "fr-CA,fr"], environment: [:], scratch: scratch)
        #expect(offered.languages.first?.hasPrefix("fr") == true, "\(offered)")
        // WebKit shows only the first language to the page; the header carries them all.
        #expect(offered.languages == ["fr-CA"], "\(offered)")
        #expect(offered.acceptLanguage.hasPrefix("fr-CA"), "\(offered)")
        #expect(offered.acceptLanguage.contains("fr;q="), "\(offered)")
    }

    @Test("--lang garbage is a usage error with an example")
    func badLang() throws {
        for value in ["x y", "", "french!", "de,,fr", "123"] {
            let run = try ShellRun.run(["--lang", value], scratch: scratch)
            #expect(run.status == 2, "\(value): \(run.stderr)")
            #expect(
                run.stderr.contains("error: --lang takes language tags separated by commas, such as de or fr-CA,fr,en"),
                "\(run.stderr)")
        }
    }

    @Test("by default the messages and the journey's languages follow LANG and LANGUAGE")
    func followsLocale() throws {
        let german = try ShellRun.run(
            ["--timeout", "-5"], environment: ["LANG": "de_DE.UTF-8"], scratch: scratch)
        #expect(german.stderr.hasPrefix("gbgbridge-shell: Fehler: --timeout muss"), "\(german.stderr)")

        let fromLang = try Self.offeredLanguages(
            arguments: [], environment: ["LANG": "de_DE.UTF-8"], scratch: scratch)
        #expect(fromLang.languages.first == "de-DE", "\(fromLang)")
        #expect(fromLang.acceptLanguage.hasPrefix("de-DE"), "\(fromLang)")

        let fromLanguage = try Self.offeredLanguages(
            arguments: [], environment: ["LANGUAGE": "es:fr", "LANG": "C.UTF-8"], scratch: scratch)
        #expect(fromLanguage.languages.first == "es", "\(fromLanguage)")
        #expect(fromLanguage.acceptLanguage.hasPrefix("es"), "\(fromLanguage)")

        let english = try Self.offeredLanguages(arguments: [], environment: [:], scratch: scratch)
        #expect(english.languages.first == "en-US", "\(english)")
    }

    struct Offered: CustomStringConvertible {
        var acceptLanguage: String
        var languages: [String]
        var description: String { "Accept-Language: \(acceptLanguage), navigator.languages: \(languages)" }
    }

    /// Runs the language probe page headless and returns what it saw.
    static func offeredLanguages(
        arguments: [String], environment: [String: String?], scratch: URL
    ) throws -> Offered {
        let server = try StorageServer(script: "language-server.py")
        defer { server.stop() }
        let run = try ShellRun.run(
            [server.url, "--headless", "--exit-on", "test.done", "--timeout", "60"] + arguments,
            environment: environment, scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try run.resultObject()
        return Offered(
            acceptLanguage: result["acceptLanguage"] as? String ?? "", languages: result["languages"] as? [String] ?? []
        )
    }
}

/// The message catalogues next to the built shell (`<bin>/locale`), compiled once per test run.
enum Catalogues {
    private static let built: Result<Void, ShellRun.RunError> = {
        let binDirectory = URL(fileURLWithPath: ShellRun.binary).deletingLastPathComponent()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../scripts/build-translations.sh").standardized.path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["bash", script, binDirectory.appendingPathComponent("locale").path]
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            return .failure(ShellRun.RunError(description: "cannot run \(script): \(error)"))
        }
        guard process.terminationStatus == 0 else {
            return .failure(ShellRun.RunError(description: "\(script) failed (is gettext installed?)"))
        }
        return .success(())
    }()

    static func build() throws {
        try built.get()
    }
}
