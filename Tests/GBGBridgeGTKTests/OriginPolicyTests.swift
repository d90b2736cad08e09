import FoundationEssentials
import Testing

@testable import GBGBridgeGTK

@Suite("Origin policy")
struct OriginPolicyTests {
    @Test("serializes origins as pages see them")
    func origins() {
        #expect(OriginPolicy.origin(ofURLString: "https://Journey.Example.com/path?q=1") == "https://journey.example.com")
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

    @Test("script string literals survive any text")
    func literals() {
        #expect(BridgeScripts.javaScriptStringLiteral("a\"b\\c\n\u{2028}\u{1}") == #""a\"b\\c\n\u2028\u0001""#)
    }
}
