import GBGBridge
import Testing

@Suite struct JSONWriterTests {
    @Test func writesIntegralNumbersWithoutFraction() throws {
        #expect(try JSONValue.number(1920).jsonText() == "1920")
        #expect(try JSONValue.number(-3).jsonText() == "-3")
        #expect(try JSONValue.number(-0.0).jsonText() == "0")
        #expect(try JSONValue.number(1_700_000_000_000).jsonText() == "1700000000000")
        #expect(try JSONValue.number(9_007_199_254_740_992).jsonText() == "9007199254740992")
        #expect(try JSONValue.number(3.14).jsonText() == "3.14")
        #expect(try JSONValue.number(0.1).jsonText() == "0.1")
        #expect(try JSONValue.number(1e300).jsonText() == "1e+300")
        #expect(try JSONValue.number(1e-7).jsonText() == "1e-07")
    }

    @Test(arguments: [0.1, 1e300, 1e-7, 2.2250738585072014e-308, -2.5, 1.7976931348623157e308, 123456.789, 1e16, 3e20])
    func numbersRoundTrip(number: Double) throws {
        let text = try JSONValue.number(number).jsonText()
        #expect(try JSONValue(parsing: text) == .number(number))
    }

    @Test func rejectsNonFiniteNumbers() {
        for number in [Double.nan, .infinity, -.infinity] {
            do {
                _ = try JSONValue.number(number).jsonText()
                Issue.record("\(number) was encoded")
            } catch {
                #expect(error.kind == .unencodable)
            }
        }
    }

    @Test func sortsObjectKeysForDeterministicOutput() throws {
        let value: JSONValue = .object([
            "b": .number(1), "a": .object(["z": .null, "y": .bool(false)]), "c": .array([]),
        ])
        #expect(try value.jsonText() == #"{"a":{"y":false,"z":null},"b":1,"c":[]}"#)
        #expect(try value.jsonText() == (try value.jsonText()))
    }

    @Test func escapesOnlyWhatJSONAndJavaScriptNeed() throws {
        let text = try JSONValue.string("a/b \"q\" \\ \n\r\t\u{8}\u{c}\u{1}\u{1f} é 😀 \u{2028}\u{2029} \u{7f}")
            .jsonText()
        #expect(text == #""a/b \"q\" \\ \n\r\t\b\f\u0001\u001f é 😀 \u2028\u2029 "# + "\u{7f}\"")
    }

    @Test func stringsRoundTrip() throws {
        let original = "line\u{2028}sep\u{2029}\u{0}</script>\\\"/😀"
        #expect(try JSONValue(parsing: JSONValue.string(original).jsonText()) == .string(original))
    }

    @Test func depthLimitMatchesTheParser() throws {
        let limit = JSONValue.defaultMaxNestingDepth
        let atLimit = try JSONValue(parsing: nested(depth: limit))
        #expect(try atLimit.jsonText() == nested(depth: limit))
        var deeper = atLimit
        deeper = .array([deeper])
        do {
            _ = try deeper.jsonText()
            Issue.record("depth \(limit + 1) was encoded")
        } catch {
            #expect(error.kind == .tooDeep)
        }
        #expect(try deeper.jsonText(maxDepth: limit + 1) == nested(depth: limit + 1))
    }

    @Test(arguments: ["\"", "\\", "\n", "\u{1}", "\u{1f}", "é", "\u{2028}", "\u{2029}", "😀", "\u{7f}", " "])
    func specialCharactersAtEveryOffsetSurviveTheWordScan(special: String) throws {
        for offset in 0..<24 {
            let text = String(repeating: "a", count: offset) + special + String(repeating: "b", count: 24 - offset)
            let json = try JSONValue.string(text).jsonText()
            #expect(try JSONValue(parsing: json) == .string(text))
            #expect(!json.contains("\u{2028}") && !json.contains("\u{2029}"))
            #expect(json.utf8.filter { $0 < 0x20 }.isEmpty)
        }
    }
}
