import FoundationEssentials
import GBGBridge
import Testing

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue(
            parsing: #" {"s":"hi","n":-12.5e1,"t":true,"f":false,"z":null,"a":[1,[],{}],"o":{"k":"v"}} "#)
        #expect(
            value
                == .object([
                    "s": .string("hi"), "n": .number(-125), "t": .bool(true), "f": .bool(false), "z": .null,
                    "a": .array([.number(1), .array([]), .object([:])]), "o": .object(["k": .string("v")]),
                ]))
    }

    @Test func decodesEscapesAndUnicode() throws {
        let value = try JSONValue(parsing: #""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00 é 😀""#)
        #expect(value == .string("a\"b\\c/d\u{8}\u{c}\n\r\té😀 é 😀"))
    }

    @Test func replacesLoneSurrogatesWithReplacementCharacter() throws {
        #expect(try JSONValue(parsing: #""\ud800x""#) == .string("\u{FFFD}x"))
        #expect(try JSONValue(parsing: #""\udc00""#) == .string("\u{FFFD}"))
        #expect(try JSONValue(parsing: #""\ud800\u0041""#) == .string("\u{FFFD}A"))
    }

    @Test(arguments: [
        ("0", 0.0), ("-0", -0.0), ("1920", 1920), ("3.14", 3.14), ("1e3", 1000), ("1E-2", 0.01),
        ("9007199254740993", 9_007_199_254_740_992), ("123456789012345678901234567890", 1.2345678901234568e29),
    ])
    func parsesNumbers(text: String, expected: Double) throws {
        #expect(try JSONValue(parsing: text) == .number(expected))
    }

    @Test(arguments: [
        "", "   ", "nul", "tru", "{", "[", "[1,]", "{\"a\":1,}", "{a:1}", "01", "-", "1.", ".5", "1e", "+1",
        "\"abc", "\"\\x\"", "\"\\u12G4\"", "\"tab\there\"", "[1 2]", "{\"a\" 1}", "1 2", "NaN", "Infinity",
        "1e400", "// comment", "'single'", "\u{FEFF}{}",
    ])
    func rejectsMalformedInput(text: String) {
        #expect(throws: BridgeCodingError.self) { try JSONValue(parsing: text) }
    }

    @Test func rejectsInvalidUTF8() throws {
        #expect(throws: BridgeCodingError.self) { try JSONValue(parsing: [0x22, 0xFF, 0x22]) }
        #expect(throws: BridgeCodingError.self) { try JSONValue(parsing: [0x22, 0xC3, 0x22]) }
        #expect(throws: BridgeCodingError.self) { try JSONValue(parsing: [0x22, 0x5C, 0x6E, 0xED, 0xA0, 0x80, 0x22]) }
        #expect(try JSONValue(parsing: [0x22, 0xC3, 0xA9, 0x22]) == .string("é"))
    }

    @Test func laterDuplicateKeyWins() throws {
        #expect(try JSONValue(parsing: #"{"a":1,"a":2}"#) == .object(["a": .number(2)]))
    }

    @Test func acceptsNestingUpToTheLimit() throws {
        let limit = JSONValue.defaultMaxNestingDepth
        _ = try JSONValue(parsing: nested(depth: limit))
        _ = try JSONValue(parsing: nested(depth: limit - 1))
        _ = try JSONValue(parsing: nestedObjects(depth: limit))
    }

    @Test(arguments: [129, 130, 513, 100_000])
    func rejectsNestingBeyondTheLimit(depth: Int) {
        do {
            _ = try JSONValue(parsing: nested(depth: depth))
            Issue.record("depth \(depth) was accepted")
        } catch {
            #expect(error.kind == .tooDeep)
            #expect(error.message.contains("128"))
        }
    }

    @Test func honoursACustomDepthLimit() throws {
        _ = try JSONValue(parsing: nested(depth: 3), maxDepth: 3)
        #expect(throws: BridgeCodingError.self) { try JSONValue(parsing: nested(depth: 4), maxDepth: 3) }
    }

    @Test func parsesTenMegabyteStrings() throws {
        let big = String(repeating: "x", count: 10 * 1024 * 1024)
        #expect(try JSONValue(parsing: "\"\(big)\"") == .string(big))
        let escaped = String(repeating: "\\n", count: 1024 * 1024)
        #expect(try JSONValue(parsing: "\"\(escaped)\"") == .string(String(repeating: "\n", count: 1024 * 1024)))
    }

    @Test func codableDecodingFollowsTheDocumentedOrder() throws {
        let decoded = try JSONDecoder().decode(
            JSONValue.self, from: Data(#"{"n":null,"b":true,"d":2.5,"s":"x","o":{"k":[1]},"a":[false]}"#.utf8))
        #expect(
            decoded
                == .object([
                    "n": .null, "b": .bool(true), "d": .number(2.5), "s": .string("x"),
                    "o": .object(["k": .array([.number(1)])]), "a": .array([.bool(false)]),
                ]))
        let reencoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(decoded))
        #expect(reencoded == decoded)
    }

    @Test func anyValueGivesPlainSwiftValues() {
        let value: JSONValue = .object(["a": .array([.number(1), .string("s"), .bool(true), .null])])
        let any = value.anyValue as? [String: Any]
        let array = any?["a"] as? [Any]
        #expect(array?[0] as? Double == 1)
        #expect(array?[1] as? String == "s")
        #expect(array?[2] as? Bool == true)
        #expect(array?.count == 4)
    }
}

/// `depth` nested arrays around a number: depth 1 is `[0]`.
func nested(depth: Int) -> String {
    String(repeating: "[", count: depth) + "0" + String(repeating: "]", count: depth)
}

/// `depth` nested objects: depth 1 is `{"k":0}`.
func nestedObjects(depth: Int) -> String {
    String(repeating: #"{"k":"#, count: depth) + "0" + String(repeating: "}", count: depth)
}
