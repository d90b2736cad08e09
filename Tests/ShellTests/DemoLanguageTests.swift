import Foundation
import Testing

/// The bundled demo journey speaks the person's language: the shell offers it `--lang` (or the
/// desktop's LANG / LANGUAGE) as WebKit's preferred languages, the page reads them from
/// `navigator.languages`, takes the first it has texts for (German, French, Spanish; "de-CH" is
/// German), else English, and names the one it used in `journey.complete`'s `language`.
@Suite("gbgbridge-shell demo journey languages", .serialized)
struct DemoLanguageTests {
    let scratch = ShellRun.scratchDirectory()
    let documentImage = ShellRun.fixture("document.png")
    let selfieImage = ShellRun.fixture("selfie.jpg")

    /// The source tree's `Resources/`.
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Resources").standardized

    private func file(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    private func object(_ value: Any?) -> [String: Any] { value as? [String: Any] ?? [:] }

    /// Runs a demo journey unattended with both images scripted until `journey.complete`.
    private func runDemo(
        _ extra: [String], environment: [String: String?] = [:], screenshot: String? = nil
    ) throws -> [String: Any] {
        var arguments = [
            "--headless", "--document-image", documentImage, "--selfie-image", selfieImage,
            "--exit-on", "journey.complete", "--timeout", "60",
        ]
        if let screenshot { arguments += ["--screenshot", screenshot] }
        let run = try ShellRun.run(extra + arguments, environment: environment, scratch: scratch)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let result = try run.resultObject()
        #expect(result["outcome"] as? String == "completed", "\(result)")
        return result
    }

    @Test(
        "--lang de, fr: the bundled demo runs to journey.complete in that language, laid out as in English",
        arguments: ["de", "fr"])
    func bundledDemoFollowsLang(language: String) throws {
        let screenshot = file("demo-\(language).png")
        let result = try runDemo(["--lang", language], screenshot: screenshot)
        #expect(result["language"] as? String == language, "\(result)")
        let steps = object(result["steps"])
        #expect(object(steps["document"])["status"] as? String == "success", "\(steps)")
        #expect(object(steps["selfie"])["status"] as? String == "success", "\(steps)")

        let facts = try ScreenshotCheck.facts(of: screenshot)
        #expect(ScreenshotCheck.looksRendered(facts, width: 1280, height: 900), "\(facts)")
        // The blank spots the English demo test checks: longer texts must not push the cards
        // out of place (or make the finished page scroll) nor run into these spots.
        for (x, y) in [(430, 620), (700, 720)] {
            #expect(try ScreenshotCheck.pixel(of: screenshot, x: x, y: y) == [255, 255, 255], "pixel \(x),\(y)")
        }
    }

    @Test("a language the demo has no texts for (--lang ja) falls back to English")
    func unknownLanguageIsEnglish() throws {
        let result = try runDemo(["--lang", "ja"])
        #expect(result["language"] as? String == "en", "\(result)")
        let english = try runDemo([])
        #expect(english["language"] as? String == "en", "LANG=C.UTF-8: \(english)")
    }

    /// How the page is offered a language, and the language it must then speak.
    static let pageCases: [(arguments: [String], environment: [String: String?], language: String)] = [
        (["--lang", "de-CH"], [:], "de"),
        ([], ["LANG": "fr_FR.UTF-8"], "fr"),
        (["--lang", "es"], [:], "es"),
    ]

    @Test(
        "the finished page: title, lang and every text in the language (de-CH, LANG=fr_FR, es)", arguments: [0, 1, 2])
    func finishedPageHasNoEnglishLeft(index: Int) throws {
        let entry = Self.pageCases[index]
        let url = try probedDemoCopy()
        let result = try runDemo([url] + entry.arguments, environment: entry.environment)
        #expect(result["language"] as? String == entry.language, "\(result)")
        let page = object(result["page"])
        #expect(page["lang"] as? String == entry.language, "\(page)")
        let title = page["title"] as? String ?? ""
        #expect(!title.isEmpty && title != "GBG Bridge demo journey", "title: \(title)")
        #expect(page["title"] as? String == page["expectedTitle"] as? String, "\(page)")
        #expect((page["checked"] as? Int ?? 0) > 100, "\(page)")
        #expect(page["untranslated"] as? [String] == [], "texts without a translation: \(page)")
        #expect(page["englishLeft"] as? [String] == [], "English on the page: \(page)")
    }

    /// A copy of the demo (and the client it loads) in the scratch folder, with a probe that adds
    /// what the page shows to `journey.complete`'s data as `page`: its title and lang, the texts
    /// of its language that are missing or still English, and English texts left on the page.
    /// Returns the copy's URL with `?autostart=1`, as the shell gives the bundled demo.
    private func probedDemoCopy() throws -> String {
        let files = FileManager.default
        let root = scratch.appendingPathComponent("resources-\(UUID().uuidString)")
        let demo = root.appendingPathComponent("demo")
        try files.createDirectory(at: demo, withIntermediateDirectories: true)
        for name in try files.contentsOfDirectory(atPath: Self.resources.appendingPathComponent("demo").path) {
            try files.copyItem(
                at: Self.resources.appendingPathComponent("demo/\(name)"), to: demo.appendingPathComponent(name))
        }
        try files.copyItem(
            at: Self.resources.appendingPathComponent("gbgbridge-client.js"),
            to: root.appendingPathComponent("gbgbridge-client.js"))
        let index = demo.appendingPathComponent("index.html")
        let html = try String(contentsOf: index, encoding: .utf8)
        #expect(html.contains("</body>"))
        try html.replacingOccurrences(of: "</body>", with: Self.probe + "</body>")
            .write(to: index, atomically: true, encoding: .utf8)
        return index.absoluteString + "?autostart=1"
    }

    /// Runs before demo.js (which is deferred) and wraps the client's send.
    static let probe = """
        <script>
          (function () {
            var client = window.GBGBridgeClient;
            var send = client.send;
            client.send = function (action, data) {
              if (action !== "journey.complete") return send.apply(client, arguments);
              var messages = window.GBGBridgeDemoMessages;
              var language = document.documentElement.lang;
              var english = messages.tables.en;
              var table = messages.tables[language] || {};
              var text = document.body.innerText;
              var untranslated = [];
              var englishLeft = [];
              var checked = 0;
              Object.keys(english).forEach(function (key) {
                var values = typeof english[key] === "object" ? english[key] : { other: english[key] };
                Object.keys(values).forEach(function (form) {
                  checked += 1;
                  var own = table[key] === undefined ? undefined
                    : typeof table[key] === "object" ? table[key][form] : table[key];
                  if (language !== "en" && (typeof own !== "string" || own.trim() === "")) untranslated.push(key);
                  if (own === values[form]) {
                    // The same as in English is fine for one word ("Selfie", "Version"), not for more.
                    var words = own.replace(/\\{\\w+\\}/g, " ").split(/\\s+/)
                      .filter(function (word) { return /[A-Za-z]/.test(word); });
                    if (words.length > 1) untranslated.push(key + " (the English text)");
                    return;
                  }
                  // The English text's fixed parts (around {placeholders}) must not be on the page,
                  // unless the language writes them the same way ("8 messages" in French).
                  values[form].split(/\\{\\w+\\}/).forEach(function (piece) {
                    piece = piece.trim();
                    if (piece.length < 8 || (own || "").indexOf(piece) !== -1) return;
                    if (text.indexOf(piece) !== -1) englishLeft.push(key + ": " + piece);
                  });
                });
              });
              var page = {
                lang: language, title: document.title, expectedTitle: (table["page.title"] || english["page.title"]),
                checked: checked, untranslated: untranslated, englishLeft: englishLeft, text: text
              };
              return send.call(client, action, Object.assign({ page: page }, data));
            };
          })();
        </script>

        """
}
