import FoundationEssentials
import Testing

@testable import GBGBridgeGTK

@Suite("Origin policy")
struct OriginPolicyTests {
    @Test("serializes origins as pages see them")
    func origins() {
        #expect(
            OriginPolicy.origin(ofURLString: "https://Journey.Example.com/path?q=1") == "https://journey.example.com")
        #expect(OriginPolicy.origin(ofURLString: "https://example.com:443/") == "https://example.com")
        #expect(OriginPolicy.origin(ofURLString: "http://127.0.0.1:8080/x") == "http://127.0.0.1:8080")
        #expect(OriginPolicy.origin(ofURLString: "file:///usr/share/gbgbridge-shell/demo/index.html") == "file://")
        #expect(OriginPolicy.origin(ofURLString: "javascript:alert(1)") == nil)
        #expect(OriginPolicy.origin(ofURLString: "data:text/html,hi") == nil)
    }

    @Test("defaults to the journey origin only")
    func journeyDefault() throws {
        let policy = OriginPolicy(journeyURL: try #require(URL(string: "https://journey.example.com/start")))
        #expect(policy.allows(urlString: "https://journey.example.com/next"))
        #expect(!policy.allows(urlString: "https://evil.example.com/"))
        #expect(!policy.allows(urlString: "http://journey.example.com/"))
        #expect(!policy.allows(urlString: "about:blank"))
    }

    @Test("canonicalises hosts the way WHATWG URL parsing does (what location.origin shows)")
    func canonicalHosts() {
        for form in [
            "http://127.1/", "http://0x7f.0.0.1/", "http://127.0.0.1./", "http://0177.0.0.1/", "http://2130706433/",
            "HTTP://127.0.0.1:80/", "http://127.0.0.1:080/", "http://user:pw@127.0.0.1/", "http://%31%32%37.0.0.1/",
        ] {
            #expect(OriginPolicy.origin(ofURLString: form) == "http://127.0.0.1", "\(form)")
        }
        #expect(OriginPolicy.origin(ofURLString: "http://[0:0::1]:8080/") == "http://[::1]:8080")
        #expect(OriginPolicy.origin(ofURLString: "http://[::FFFF:127.0.0.1]/") == "http://[::ffff:7f00:1]")
        #expect(OriginPolicy.origin(ofURLString: "https://[2001:db8:0:0:1:0:0:1]/") == "https://[2001:db8::1:0:0:1]")
        #expect(OriginPolicy.origin(ofURLString: "https://Example.COM./") == "https://example.com.")
        #expect(OriginPolicy.origin(ofURLString: "http://256.0.0.1/") == nil)
        #expect(OriginPolicy.origin(ofURLString: "http://1.2.3.4.5/") == nil)
        #expect(OriginPolicy.origin(ofURLString: "http://example.com:65536/") == nil)
        #expect(OriginPolicy.origin(ofURLString: "http://[::1/") == nil)
        #expect(OriginPolicy.origin(ofURLString: "http:///") == nil)
        let policy = OriginPolicy(allowedOrigins: ["http://127.1:8080"])
        #expect(policy.allowedOrigins == ["http://127.0.0.1:8080"])
        #expect(policy.allows(urlString: "http://127.0.0.1:8080/journey"))
    }

    @Test("script string literals survive any text")
    func literals() {
        #expect(
            BridgeScripts.javaScriptStringLiteral("a\"b\\c\n\u{2028}\u{2029}\u{1}é")
                == #""a\"b\\c\u000a\u2028\u2029\u0001é""#)
        #expect(BridgeScripts.javaScriptStringLiteral("€ ok\u{2028}xx€") == #""€ ok\u2028xx€""#)
        #expect(BridgeScripts.javaScriptStringLiteral("") == #""""#)
        let long = String(repeating: "QUJD", count: 5000)
        #expect(BridgeScripts.javaScriptStringLiteral(long + "\"" + long) == "\"" + long + "\\\"" + long + "\"")
    }

    @Test("delivery scripts are one call with one array: the token, then object literals")
    func deliveryScript() {
        let script = String(
            decoding: BridgeScripts.delivery(of: [#"{"a":"x\"y"}"#, "{}"], toDocument: "t-1"), as: UTF8.self)
        #expect(script == #"__gbgBridgeDeliver(["t-1",{"a":"x\"y"},{}])"#)
    }

    @Test("messages that may name __proto__ travel as string literals")
    func protoKeysStayKeys() {
        let script = String(
            decoding: BridgeScripts.delivery(
                of: [#"{"__proto__":{"x":1}}"#, #"{"a":"\u005f_proto__"}"#, #"{"b":"__prot"}"#], toDocument: "t"),
            as: UTF8.self)
        #expect(
            script
                == #"__gbgBridgeDeliver(["t","{\"__proto__\":{\"x\":1}}","{\"a\":\"\\u005f_proto__\"}",{"b":"__prot"}])"#
        )
    }
}
